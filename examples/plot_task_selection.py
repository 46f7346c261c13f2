"""
Which AutoML Benchmark tasks tell frameworks apart?
===================================================

The 2019 AutoML Benchmark ran 7 frameworks on 35 OpenML tasks, 10 folds each
(1 hour per fold). :class:`~sklearn_eval.selection.InfoGainSelector` treats each
fold as a run and asks which tasks best identify the framework that produced a
result (continuous information gain, Stephenson et al. 2020). We then check how
well a small subset stands in for the whole benchmark.
"""

# %%
# Run-level data: one row per (framework, fold), one column per task.
import matplotlib.pyplot as plt
import numpy as np

from sklearn_eval.datasets import load_automl_benchmark
from sklearn_eval.selection import InfoGainSelector, subset_agreement

runs = load_automl_benchmark(budget="1h", kind="all", as_frame=True).frame
# ``score`` is oriented so that higher is better (AUC, or -log-loss).
wide = runs.pivot_table(index=["framework", "fold"], columns="task", values="score")
wide = wide.dropna(axis=1)  # keep tasks every run completed
frameworks = wide.index.get_level_values("framework").to_numpy()
print(f"{wide.shape[0]} runs of {len(set(frameworks))} frameworks on "
      f"{wide.shape[1]} tasks")

# %%
# Greedy selection of the most informative tasks.
selector = InfoGainSelector(n_tasks=8).fit(wide, frameworks)
chosen = selector.tasks_[selector.selection_order_]  # in greedy pick order
for task, gain in zip(chosen, selector.cumulative_gain_, strict=True):
    print(f"{task:28s} cumulative gain {gain:.3f} bits")
print(f"ceiling log2(7) = {selector.max_information_:.3f} bits")

# %%
# The gain rises quickly towards the log2(7) ceiling: a handful of tasks is
# enough to tell the seven frameworks apart.
fig, ax = plt.subplots(figsize=(6, 3.5))
steps = np.arange(1, len(selector.cumulative_gain_) + 1)
ax.plot(steps, selector.cumulative_gain_, marker="o")
ax.axhline(selector.max_information_, color="grey", linestyle="--",
           label="log2(n frameworks)")
ax.set_xlabel("number of tasks (greedy order)")
ax.set_ylabel("information gain (bits)")
ax.legend(loc="lower right")
fig.tight_layout()

# %%
# Does the subset rank frameworks like the whole benchmark? Agent-level means
# per task, min-max normalised per task, averaged over all tasks vs the subset.
means = wide.groupby(level="framework").mean()
agreement = subset_agreement(means.to_numpy(), selector.get_support(),
                             normalize="minmax")
print(f"Kendall tau {agreement.kendall_tau:.2f}, "
      f"Spearman rho {agreement.spearman_rho:.2f}")

# %%
# How many tasks? Agreement with the full benchmark grows with the subset
# size, so maximising it always picks every task. ``choose_n_tasks`` returns
# the smallest size whose cross-validated agreement is within ``tol`` of the
# best.
from sklearn_eval.selection import choose_n_tasks

choice = choose_n_tasks(InfoGainSelector(), wide, frameworks,
                        sizes=[1, 2, 3, 5, 8, 12], scoring="kendall_tau",
                        tol=0.05, random_state=0)
for size, score in zip(choice.sizes, choice.mean_scores, strict=True):
    print(f"n_tasks={size:2d}: mean Kendall tau {score:.2f}")
print("smallest size within 0.05 of the best:", choice.n_tasks)

# %%
# The selector is a scikit-learn transformer, so it also sits in a Pipeline:
# here, identifying the framework from one run's results on the chosen tasks,
# with the number of tasks tuned by GridSearchCV.
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

pipe = make_pipeline(InfoGainSelector(), StandardScaler(),
                     LogisticRegression(max_iter=2000))
search = GridSearchCV(pipe, {"infogainselector__n_tasks": [1, 2, 4, 8]},
                      cv=StratifiedKFold(5, shuffle=True, random_state=0))
search.fit(wide, frameworks)
for n, acc in zip(search.cv_results_["param_infogainselector__n_tasks"],
                  search.cv_results_["mean_test_score"], strict=True):
    print(f"n_tasks={n}: accuracy identifying the framework {acc:.2f}")
