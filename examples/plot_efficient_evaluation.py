"""
A model's full-benchmark accuracy from a few items
==================================================

Running every item of a large benchmark on every new model is expensive.
:class:`~sklearn_eval.selection.SubsetScoreEstimator` learns, from a population
of models already evaluated, which items to keep and how to turn a new model's
responses on them into its accuracy on the whole benchmark (tinyBenchmarks,
metabench); :class:`~sklearn_eval.irt.AdaptiveTester` chooses the items one at a
time for each model instead (computerised adaptive testing).

Leaderboards of language models are full of fine-tunes of a few base models, so
their items are strongly correlated. We simulate such a population here (the
Open LLM Leaderboard's ARC matrix, measured in the user guide, is not
redistributable): 8 base models, each fine-tuned many times, answer 600 items
that load on 4 latent skills. We compare, by 5-fold cross-validation over
models, the error of the predicted full accuracy against the number of items.
"""

# %%
# A population of fine-tunes.
import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import KFold

from sklearn_eval.irt import IRT2PL, AdaptiveTester
from sklearn_eval.selection import SubsetScoreEstimator

rng = np.random.default_rng(0)
bases = rng.normal(0, 1, (8, 4)) * [1.5, 1, 1, 1]
skills = bases[rng.integers(8, size=300)] + rng.normal(0, 0.35, (300, 4))
loadings = np.abs(rng.normal(0, 1, (600, 4))) * [1.5, 0.7, 0.7, 0.7]
P = expit(0.75 * skills @ loadings.T - rng.normal(-0.5, 1.5, 600))
X = (rng.random(P.shape) < P).astype(float)
accuracy = X.mean(axis=1)
print(f"{X.shape[0]} models x {X.shape[1]} items; accuracy "
      f"{accuracy.min():.2f}-{accuracy.max():.2f}")

# %%
# Cross-validated error of each method against the number of items. The item
# response model (a 1PL, the default) is calibrated once per fold and shared
# through ``FrozenEstimator``. "random items, mean" is what one would do
# without this library: average a random subset.
methods = {
    "random items, mean": ("random", "mean"),
    "stratified, mean": ("stratified", "mean"),
    "anchor points, gp-IRT": ("anchor", "gp-irt"),
    "max information, p-IRT": ("information", "irt"),
    "predictive, regression": ("predictive", "regression"),
    "default (auto)": ("auto", "auto"),
}
sizes = [10, 25, 50, 100]
errors = {name: np.zeros(len(sizes)) for name in methods}
adaptive_error = np.zeros(100)
folds = KFold(5, shuffle=True, random_state=0)
for train, test in folds.split(X):
    irt = FrozenEstimator(IRT2PL(model="1PL").fit(X[train]))
    for name, (selection, estimator) in methods.items():
        for k, n_items in enumerate(sizes):
            est = SubsetScoreEstimator(n_items, selection=selection,
                                       estimator=estimator, irt=irt,
                                       random_state=0).fit(X[train])
            errors[name][k] += np.abs(est.predict(X[test]) - accuracy[test]).sum()
    log = AdaptiveTester(irt, max_items=100, random_state=0).fit().simulate(X[test])
    by_step = log.pivot(index="agent", columns="step", values="accuracy")
    adaptive_error += np.abs(by_step.to_numpy() - accuracy[test][:, None]).sum(0)
errors = {name: value / len(X) for name, value in errors.items()}
adaptive_error /= len(X)

fig, ax = plt.subplots(figsize=(6.5, 4))
for name, value in errors.items():
    style = {"color": "grey", "linestyle": "--"} if name.startswith("random") else {}
    ax.plot(sizes, value, marker="o", label=name, **style)
ax.plot(np.arange(1, 101), adaptive_error, color="black", linewidth=1,
        label="adaptive (AdaptiveTester)")
ax.set_xscale("log")
ax.set_xlabel("items per model")
ax.set_ylabel("mean absolute error of the accuracy")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# The table behind the plot. With many strongly related models, the regression
# on greedily chosen items ("predictive") wins by a wide margin; the default
# ``"auto"`` finds it by cross-validation inside ``fit``.
print("method".ljust(26) + "".join(f"n={n:<7d}" for n in sizes))
for name, value in errors.items():
    print(name.ljust(26) + "".join(f"{v:<9.4f}" for v in value))
print(f"adaptive after 25 / 50 items: {adaptive_error[24]:.4f} / "
      f"{adaptive_error[49]:.4f}")

# %%
# Use it: fit on the population, keep the chosen items, score a new model from
# its responses to those items only, with an interval. ``write_items_csv``
# stores the items and everything needed to score (``read_items_csv`` reads it
# back).
est = SubsetScoreEstimator(n_items=50, random_state=0).fit(X[:250])
new_model = X[250:251, est.selected_items_]  # responses on the chosen items
low, high = est.predict_interval(new_model)
print(f"chosen by {est.selection_}/{est.method_}; predicted "
      f"{est.predict(new_model)[0]:.3f} in [{low[0]:.3f}, {high[0]:.3f}], "
      f"true {accuracy[250]:.3f}")
print(est.task_table().head())
