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
# Abilities: the models ranked on the latent scale.
order = np.argsort(-irt.abilities_)
for k in order[:5]:
    print(f"{X.index[k]:28s} theta = {irt.abilities_[k]:+.2f}")

# %%
# The item table, sorted by discrimination: the questions that separate
# strong from weak models best.
table = irt.item_table()
print(table.sort_values("discrimination", ascending=False).head(8))

# %%
# Where does the benchmark measure precisely? Test information against ability.
theta = np.linspace(-4, 4, 9)
for t, info in zip(theta, irt.test_information(theta), strict=True):
    print(f"theta {t:+.1f}: information {info:8.1f}")

# %%
# Item characteristic curves of the most discriminating questions.
ItemCurveDisplay.from_estimator(irt, items="discrimination")
