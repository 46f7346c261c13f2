"""Adaptive testing and generality with graded and continuous IRT models.

The full-benchmark estimate is then the mean item score on [0, 1] (a
category code divided by its item's largest code; a continuous score as it
is), see the User Guide section on efficient evaluation.
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import sparse
from sklearn.frozen import FrozenEstimator

from sklearn_eval.irt import IRT, AdaptiveTester, GeneralityScorer
from tests.irt.simulate import simulate_graded, simulate_scores


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.fixture(scope="module")
def calibrated():
    # calibrated on all rows (a held-out row may use a category the
    # calibration never saw); the last 100 are tested
    graded = simulate_graded(400, 30, seed=0)
    scores = simulate_scores(300, 20, seed=1, precision=15.0)
    return {
        "GPCM": (graded, _quiet(IRT(model="GPCM").fit, graded)),
        "beta": (scores, _quiet(IRT(model="beta", n_quadrature=121).fit, scores)),
    }


@pytest.mark.slow  # calibrates a GPCM and a beta model (~20 s)
@pytest.mark.parametrize("model", ["GPCM", "beta"])
def test_adaptive_test_shrinks_the_posterior_and_beats_random_items(calibrated,
                                                                    model):
    X, irt = calibrated[model]
    n_train = X.shape[0] - 100
    tester = AdaptiveTester(FrozenEstimator(irt), max_items=15, random_state=0)
    tester = _quiet(tester.fit)
    test = X[n_train:]
    log = _quiet(tester.simulate, test)
    sd = log.groupby("step")["se"].mean()
    assert sd.iloc[-1] < 0.5 * sd.iloc[0] and sd.is_monotonic_decreasing
    truth = irt.item_scores(None, test).mean(axis=1)
    error = np.abs(_quiet(tester.predict, test) - truth).mean()
    assert -_quiet(tester.score, test) == pytest.approx(error)
    rng = np.random.default_rng(0)
    scores = irt.item_scores(None, test)
    random = np.mean([np.abs(scores[:, rng.choice(X.shape[1], 15, replace=False)]
                             .mean(axis=1) - truth).mean() for _ in range(50)])
    assert error < random


@pytest.mark.slow  # calibrates a GPCM and a beta model (~20 s)
def test_adaptive_estimate_counts_the_seen_scores(calibrated):
    X, irt = calibrated["GPCM"]
    tester = _quiet(AdaptiveTester(FrozenEstimator(irt), max_items=5).fit)
    responses = np.full((1, X.shape[1]), np.nan)
    responses[0, :3] = [3.0, 0.0, 2.0]
    ability, se, score = tester.estimate(responses)
    post = irt.response_log_likelihood(irt.quadrature_nodes_, None, responses)[0]
    post = np.exp(post - post.max()) * irt.quadrature_weights_
    post /= post.sum()
    expected = irt.expected_score(irt.quadrature_nodes_)
    unseen = post @ expected[:, 3:].sum(axis=1)
    seen = irt.item_scores(np.arange(3), responses[0, :3]).sum()
    assert score[0] == pytest.approx((seen + unseen) / X.shape[1])
    assert ability[0] == pytest.approx(post @ irt.quadrature_nodes_)
    assert 0 < se[0] < 1


@pytest.mark.slow  # calibrates a GPCM and a beta model (~20 s)
def test_adaptive_refuses_an_unknown_category_and_several_factors(calibrated):
    X, irt = calibrated["GPCM"]
    tester = _quiet(AdaptiveTester(FrozenEstimator(irt)).fit)
    bad = np.full(X.shape[1], np.nan)
    bad[4] = 9.0
    with pytest.raises(ValueError, match="item 4 has category 9"):
        tester.next_item(bad)
    binary = (X[:200] >= 2).astype(float)
    with pytest.raises(ValueError, match="n_factors=2"):
        AdaptiveTester(IRT(n_factors=2)).fit(binary)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_generality_location_is_where_the_expected_score_is_one_half(model):
    X = simulate_graded(300, 20, seed=3)
    scorer = _quiet(GeneralityScorer(difficulty=IRT(model=model), bins=4).fit, X)
    irt = scorer.difficulty_model_
    at = irt.expected_score(scorer.difficulty_)
    assert_allclose(np.diag(at), 0.5, atol=1e-4)
    # sparse input (absent = missing) gives the same scorer
    Xm = X.copy()
    Xm[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    rows, cols = np.nonzero(~np.isnan(Xm))
    S = sparse.csr_array((Xm[rows, cols], (rows, cols)), shape=X.shape)
    dense = _quiet(GeneralityScorer(difficulty=IRT(model=model), bins=4).fit, Xm)
    sparse_fit = _quiet(GeneralityScorer(difficulty=IRT(model=model), bins=4).fit, S)
    assert_allclose(dense.difficulty_, sparse_fit.difficulty_, atol=1e-10)
    assert_allclose(dense.agent_table()["score"], sparse_fit.agent_table()["score"],
                    atol=1e-10)


def test_generality_with_a_continuous_model_uses_its_midpoint():
    X = simulate_scores(150, 12, seed=4, precision=15.0)
    scorer = _quiet(GeneralityScorer(difficulty=IRT(model="beta", n_quadrature=121),
                                   bins=4).fit, X)
    # the Beta mean expit(a (theta - b)) is 0.5 at the difficulty b
    assert_allclose(scorer.difficulty_, scorer.difficulty_model_.difficulty_,
                    atol=1e-4)
