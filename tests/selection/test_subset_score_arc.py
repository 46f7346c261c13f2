"""Acceptance of efficient evaluation on real leaderboards (slow).

ARC: 320 models of the Mixtral family x 735 items of the Open LLM
Leaderboard v1 (ATLAS repository; no licence, so read in place from the shared
reference data and skipped without it). ChemBench: 22 models x 2854 items,
shipped. 5-fold cross-validation over models: fit on 4/5, predict the held-out
1/5.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from sklearn.model_selection import KFold

from sklearn_eval.datasets import load_chembench
from sklearn_eval.irt import AdaptiveTester
from sklearn_eval.selection import SubsetScoreEstimator

ARC = "data/irt/atlas_openllm_arc_mixtral_family_response_matrix.csv"


@pytest.fixture(scope="module")
def arc(shared_dir):
    path = shared_dir / ARC
    if not path.exists():
        pytest.skip("ARC response matrix not in the shared data")
    return pd.read_csv(path, index_col=0).to_numpy(dtype=float)


def random_mean_mae(X, n_items, draws=50, seed=0):
    """MAE of the plain mean of ``n_items`` random items (averaged over draws)."""
    rng = np.random.default_rng(seed)
    truth = X.mean(axis=1)
    return np.mean([
        np.mean(np.abs(X[:, rng.choice(X.shape[1], n_items, replace=False)]
                       .mean(axis=1) - truth))
        for _ in range(draws)
    ])


def cross_validated(X, make, seed=0):
    truth = X.mean(axis=1)
    pred = np.empty_like(truth)
    low, high = np.empty_like(truth), np.empty_like(truth)
    for train, test in KFold(5, shuffle=True, random_state=seed).split(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # constant items
            est = make().fit(X[train])
        pred[test] = est.predict(X[test])
        if hasattr(est, "predict_interval"):
            low[test], high[test] = est.predict_interval(X[test])
    return truth, pred, low, high


@pytest.mark.slow
def test_arc_default_hundred_items(arc):
    truth, pred, low, high = cross_validated(
        arc, lambda: SubsetScoreEstimator(n_items=100, random_state=0))
    mae = np.mean(np.abs(pred - truth))
    baseline = random_mean_mae(arc, 100)  # measured 0.035
    assert mae <= 0.012  # measured 0.0099
    assert mae <= 0.5 * baseline
    assert spearmanr(pred, truth)[0] >= 0.95  # measured 0.98
    assert np.mean((low <= truth) & (truth <= high)) >= 0.9  # measured 0.96


@pytest.mark.slow
def test_arc_adaptive_fifty_items_beats_hundred_random(arc):
    truth, pred, _, _ = cross_validated(
        arc, lambda: AdaptiveTester(max_items=50, random_state=0))
    assert np.mean(np.abs(pred - truth)) <= random_mean_mae(arc, 100)  # 0.021


@pytest.mark.slow
def test_chembench_default_not_worse_than_random_items():
    X = load_chembench().data
    maes, coverage = [], []
    for seed in range(3):  # 22 models: one split is too noisy (0.024-0.036)
        truth, pred, low, high = cross_validated(
            X, lambda: SubsetScoreEstimator(n_items=100, random_state=0), seed=seed)
        maes.append(np.mean(np.abs(pred - truth)))
        coverage.append(np.mean((low <= truth) & (truth <= high)))
    # "auto" keeps to stratified items here: measured 0.032 vs 0.035
    assert np.mean(maes) <= random_mean_mae(X, 100)
    assert np.mean(coverage) >= 0.8
