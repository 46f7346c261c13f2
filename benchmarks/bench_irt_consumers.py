"""Subset scoring and adaptive testing on graded and continuous IRT calibrations.

Full-benchmark mean item score (on [0, 1]) estimated from a few items:
``SubsetScoreEstimator(method="irt")`` with random or most informative items
and ``AdaptiveTester`` after 15 items, against the plain mean of random items
(mean absolute error over held-out models). Cases:

- ``graded``: simulated GRM data, 2,000 models x 60 items, 4 categories
  (calibration on 1,500, error on 500);
- ``mmlu``: MMLU accuracy per subject (98 models x 57 subjects, scores in
  [0, 1]) with the beta model, 5-fold cross-validation over the models.

Usage: ``python benchmarks/bench_irt_consumers.py [graded|mmlu]``.
"""

import sys
import time
import warnings

import numpy as np
from scipy.special import expit
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import KFold

from sklearn_eval.datasets import load_leaderboard
from sklearn_eval.irt import IRT, AdaptiveTester
from sklearn_eval.selection import SubsetScoreEstimator


def graded_data(n=2000, J=60, K=4, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a = rng.uniform(0.8, 2.0, J)
    b = np.sort(rng.normal(size=(J, K - 1)), axis=1)
    P = expit(a[None, :, None] * (theta[:, None, None] - b[None]))
    return (rng.random((n, J, 1)) < P).sum(axis=2).astype(float)


def errors(irt, train, test, n_items_list=(15, 30), seed=0):
    """MAE of each estimator on ``test`` (calibration ``irt`` frozen)."""
    truth = irt.item_scores(None, test).mean(axis=1)
    scores = irt.item_scores(None, test)
    rng = np.random.default_rng(seed)
    out = {}
    for k in n_items_list:
        picks = [rng.choice(test.shape[1], k, replace=False) for _ in range(200)]
        out[f"random items' mean, {k}"] = np.mean(
            [np.abs(scores[:, p].mean(axis=1) - truth).mean() for p in picks])
        for selection in ("random", "information"):
            est = SubsetScoreEstimator(n_items=k, selection=selection, method="irt",
                                       irt=FrozenEstimator(irt), random_state=seed)
            est.fit(train)
            out[f"subset irt ({selection}), {k}"] = np.abs(
                est.predict(test) - truth).mean()
    tester = AdaptiveTester(FrozenEstimator(irt), max_items=15,
                            random_state=seed).fit()
    out["adaptive, 15"] = np.abs(tester.predict(test) - truth).mean()
    return out


def main(case):
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    if case == "graded":
        X = graded_data()
        irt = IRT(model="GRM").fit(X[:1500])
        result = errors(irt, X[:1500], X[1500:])
    else:
        X = np.asarray(load_leaderboard("mmlu").data, dtype=np.float64)
        folds = KFold(5, shuffle=True, random_state=0).split(X)
        parts = []
        for train, test in folds:
            irt = IRT(model="beta").fit(X[train])
            parts.append(errors(irt, X[train], X[test]))
        result = {key: np.mean([p[key] for p in parts]) for key in parts[0]}
    for key, value in result.items():
        print(f"{key:34s} {value:.4f}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "graded")
