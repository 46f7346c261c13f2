"""Tests of match_log_loss and its scorer."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.metrics import get_scorer, log_loss
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit, cross_val_score

from sklearn_eval.datasets import make_matches
from sklearn_eval.metrics import (
    match_log_loss,
    match_log_loss_scorer,
    three_outcome_log_loss_scorer,
)
from sklearn_eval.pairwise import EloRanker, MultiElo


def test_hand_computed_values():
    # -(log 0.8 + log 0.7 + (log 0.5 + log 0.5) / 2) / 3
    expected = -(np.log(0.8) + np.log(0.7) + np.log(0.5)) / 3
    assert_allclose(match_log_loss([1, 0, 0.5], [0.8, 0.3, 0.5]), expected)
    # A draw costs the mean of the win and the loss costs.
    p = 0.9
    assert_allclose(match_log_loss([0.5], [p]), -(np.log(p) + np.log(1 - p)) / 2)


def test_equals_sklearn_log_loss_without_draws():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 200).astype(float)
    p = rng.uniform(0.01, 0.99, 200)
    w = rng.uniform(0, 3, 200)
    assert_allclose(match_log_loss(y, p), log_loss(y, p), rtol=1e-12)
    assert_allclose(
        match_log_loss(y, p, sample_weight=w),
        log_loss(y, p, sample_weight=w),
        rtol=1e-12,
    )


def test_draws_equal_half_win_half_loss_duplicates():
    rng = np.random.RandomState(1)
    p = rng.uniform(0.05, 0.95, 50)
    draws = match_log_loss(np.full(50, 0.5), p)
    split = match_log_loss(np.r_[np.ones(50), np.zeros(50)], np.r_[p, p])
    assert_allclose(draws, split, rtol=1e-12)


def test_two_column_probabilities_and_clipping():
    proba = np.array([[0.2, 0.8], [0.7, 0.3]])
    assert_allclose(match_log_loss([1, 0], proba), match_log_loss([1, 0], [0.8, 0.3]))
    # A certain wrong prediction is finite (clipped at machine epsilon).
    loss = match_log_loss([1.0], [0.0])
    assert np.isfinite(loss) and 30 < loss < 40
    assert match_log_loss([1.0, 0.0], [1.0, 0.0]) < 1e-12


@pytest.mark.parametrize(
    "y, p, w, message",
    [
        ([1, 2], [0.5, 0.5], None, "y_true must be.*row 1"),
        ([1, np.nan], [0.5, 0.5], None, "y_true must be.*row 1"),
        ([1, 0], [0.5, 1.5], None, r"y_prob must hold probabilities.*row 1"),
        ([1, 0], [0.5, np.nan], None, "y_prob must hold probabilities"),
        ([1, 0], [0.5], None, "same length"),
        ([1, 0], [[0.5, 0.2, 0.3]] * 2, None, "shape"),
        ([1, 0], [0.5, 0.5], [1.0], "same length"),
        ([1, 0], [0.5, 0.5], [1.0, -1.0], "non-negative.*row 1"),
        ([1, 0], [0.5, 0.5], [0.0, 0.0], "sums to zero"),
        ([], [], None, "no matches"),
    ],
)
def test_errors(y, p, w, message):
    with pytest.raises(ValueError, match=message):
        match_log_loss(y, p, sample_weight=w)


def test_scorers_equal_minus_their_losses_and_handle_draws():
    X, y = make_matches(n_players=8, n_matches=400, draw_rate=0.3, random_state=0)
    assert np.any(y == 0.5)
    est = EloRanker().fit(X, y)
    # score is the three-outcome likelihood for every ties setting
    assert_allclose(three_outcome_log_loss_scorer(est, X, y), est.score(X, y),
                    rtol=1e-12)
    assert_allclose(
        match_log_loss_scorer(est, X, y),
        -match_log_loss(y, est.predict_proba(X)),
        rtol=1e-12,
    )
    # scikit-learn's neg_log_loss refuses the draws; ours does not.
    with pytest.raises(ValueError):
        get_scorer("neg_log_loss")(est, X, y)
    decisive = y != 0.5
    assert_allclose(
        get_scorer("neg_log_loss")(est, X[decisive], y[decisive]),
        match_log_loss_scorer(est, X[decisive], y[decisive]),
        rtol=1e-12,
    )
    assert pickle.loads(pickle.dumps(match_log_loss_scorer))(est, X, y) == (
        match_log_loss_scorer(est, X, y)
    )


def test_scorer_in_model_selection():
    X, y = make_matches(
        n_players=10, n_matches=2000, cyclic_strength=2.0, draw_rate=0.1, random_state=3
    )
    cv = TimeSeriesSplit(n_splits=3)
    scores = cross_val_score(EloRanker(), X, y, cv=cv, scoring=match_log_loss_scorer)
    assert scores.shape == (3,) and np.all(scores < 0)
    search = GridSearchCV(
        MultiElo(random_state=0),
        {"n_components": [0, 1]},
        cv=cv,
        scoring=match_log_loss_scorer,
    ).fit(X, y)
    # Cyclic data: the cyclic model must win the selection.
    assert search.best_params_ == {"n_components": 1}


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.001, 0.999)),
        min_size=1,
        max_size=30,
    )
)
def test_property_proper_scoring_rule(rows):
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    loss = match_log_loss(y, p)
    assert loss >= 0
    # Predicting the outcome frequency is never worse than any constant.
    freq = np.clip(y.mean(), 1e-9, 1 - 1e-9)
    assert (
        match_log_loss(y, np.full_like(p, freq))
        <= match_log_loss(y, np.full_like(p, p[0])) + 1e-12
    )
    # Swapping who is listed first leaves the loss unchanged.
    assert_allclose(match_log_loss(1 - y, 1 - p), loss, rtol=1e-10)
