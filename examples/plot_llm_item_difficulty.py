"""
Which ChemBench questions are hard, and which tell LLMs apart?
==============================================================

Item response theory gives every question a difficulty ``b`` and a
discrimination ``a`` and every model an ability ``theta``, on one scale:
``P(correct) = 1 / (1 + exp(-a (theta - b)))``. With 22 models, priors on
``a`` and ``b`` keep near-separable questions finite, and the test
information shows where on the ability scale the benchmark measures well.
"""

# %%
import numpy as np
import pandas as pd

from sklearn_eval.datasets import load_chembench
from sklearn_eval.irt import IRT2PL
from sklearn_eval.plotting import ItemCurveDisplay

bench = load_chembench(as_frame=True)
X = bench.frame  # models as rows, questions as columns
print(f"{X.shape[0]} models x {X.shape[1]} questions, "
      f"{np.nanmean(np.asarray(X, dtype=float)):.1%} answered correctly")

# %%
# Questions every model gets right (or wrong) carry no information: they are
# left out of the fit, with a warning, and listed in ``constant_items_``.
irt = IRT2PL(a_prior=(1.0, 2.0), b_prior=(0.0, 2.0), random_state=0)
irt.fit(X)
print(f"{len(irt.constant_items_)} constant questions left out; "
      f"{len(irt.negative_items_)} with negative discrimination")

# %%
# Abilities: the models ranked on the latent scale, with standard errors.
print(irt.agent_table().head(5).round(2))

# %%
# The task table, sorted by discrimination: the questions that separate strong
# from weak models best. Many questions get exactly the same answers from all
# 22 models, and hence the same parameters; we keep one question per answer
# pattern and count how many share it (``n_same``).
pattern = pd.util.hash_pandas_object(X.T, index=False)  # one key per question
table = irt.task_table().assign(n_same=pattern.map(pattern.value_counts()))
distinct = table[~pattern.duplicated()].dropna(subset=["discrimination"])
columns = ["difficulty", "discrimination", "success_rate", "n_same"]
print(distinct.sort_values("discrimination", ascending=False)[columns].head(8)
      .round(2))

# %%
# Where does the benchmark measure precisely? Test information against ability.
theta = np.linspace(-4, 4, 9)
for t, info in zip(theta, irt.test_information(theta), strict=True):
    print(f"theta {t:+.1f}: information {info:8.1f}")

# %%
# Item characteristic curves: the most discriminating question at each level
# of difficulty, one question per answer pattern (questions with the same
# answers have the same curve). A curve crosses 0.5 at its difficulty; the
# steeper it is there, the better the question separates the models just
# below from those just above.
band = np.digitize(distinct["difficulty"], [-1.5, -0.5, 0.5, 1.5])
steepest = distinct.groupby(band)["discrimination"].idxmax().to_list()
print(distinct.loc[steepest, columns].round(2))
display = ItemCurveDisplay.from_estimator(irt, items=steepest, theta_range=(-4, 4))
