"""SubsetScoreEstimator with graded and continuous calibrations.

The estimate is the full-benchmark mean item score on [0, 1]; the p-IRT
estimate of tinyBenchmarks (Polo et al. 2024) with the model's expected
item scores in place of success probabilities.
"""

import warnings

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator

from sklearn_eval.irt import IRT
from sklearn_eval.selection import SubsetScoreEstimator
from tests.irt.simulate import simulate_graded, simulate_scores


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.mark.slow  # calibrates the models (~10 s each)
@pytest.mark.parametrize("model, data", [("GRM", simulate_graded),
                                         ("beta", simulate_scores)])
@pytest.mark.parametrize("seed", [0, 1])
def test_irt_estimate_beats_the_mean_of_random_items(model, data, seed):
    X = data(500, 40, seed=seed)
    irt = _quiet(IRT(model=model, n_quadrature=121).fit, X)
    train, test = X[:400], X[400:]
    est = _quiet(SubsetScoreEstimator(n_items=15, selection="random", method="irt",
                                      irt=FrozenEstimator(irt), random_state=seed).fit,
                 train)
    truth = irt.item_scores(None, test).mean(axis=1)
    error = np.abs(est.predict(test) - truth).mean()
    assert -est.score(test) == pytest.approx(error)
    # the same items' plain mean, and random items' mean
    chosen = irt.item_scores(None, test)[:, est.selected_items_].mean(axis=1)
    assert error < np.abs(chosen - truth).mean()
    low, high = est.predict_interval(test)
    assert np.all((low <= est.predict(test)) & (est.predict(test) <= high))
    assert np.mean((low <= truth) & (truth <= high)) > 0.8


def test_scored_features_follow_the_models_curves():
    X = simulate_graded(200, 12, seed=3)
    irt = _quiet(IRT(model="GPCM").fit, X)
    est = _quiet(SubsetScoreEstimator(n_items=4, selection="information",
                                      method="irt", irt=FrozenEstimator(irt),
                                      random_state=0).fit, X)
    # the most informative items by the model's own information
    info = irt.quadrature_weights_ @ irt.item_information(irt.quadrature_nodes_)
    assert set(est.selected_items_) == set(np.argsort(-info)[:4])
    rows = X[:5]
    post = irt.response_log_likelihood(irt.quadrature_nodes_, est.selected_items_,
                                       rows[:, est.selected_items_])
    post = np.exp(post - post.max(axis=1, keepdims=True)) * irt.quadrature_weights_
    post /= post.sum(axis=1, keepdims=True)
    rest = np.setdiff1d(np.arange(12), est.selected_items_)
    expected = (irt.item_scores(est.selected_items_, rows[:, est.selected_items_])
                .sum(axis=1) + post @ irt.expected_score(
                    irt.quadrature_nodes_)[:, rest].sum(axis=1)) / 12
    np.testing.assert_allclose(est.predict(rows), expected, atol=1e-12)


def test_scored_calibration_errors():
    X = simulate_graded(100, 8, seed=4)
    irt = _quiet(IRT(model="GRM").fit, X)
    est = _quiet(SubsetScoreEstimator(n_items=3, selection="random", method="irt",
                                      irt=FrozenEstimator(irt), random_state=0).fit,
                 X)
    bad = X[:2].copy()
    bad[0, est.selected_items_[0]] = 17.0
    with pytest.raises(ValueError, match="category 17"):
        est.predict(bad)
    with pytest.raises(ValueError, match="n_factors=2"):
        SubsetScoreEstimator(3, irt=IRT(n_factors=2)).fit((X >= 2).astype(float))
