"""The vanishing prior of data without finite maximum-likelihood ratings (a
player undefeated, winless or cut off) is per unit of the caller's weights:
the same matches as repeated rows or as one row weighted by their count give
one fit, for every batch model and the bootstrap."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.pairwise._intervals import _fit_counts

from .test_intervals import _draw_counts, _encode, _fit_full, _logit_ratings


def _games(seed):
    """Matches whose first player never loses, with integer counts."""
    rng = np.random.default_rng(seed)
    n_players = int(rng.integers(3, 7))
    n = int(rng.integers(6, 25))
    first = rng.integers(1, n_players, n)
    second = (first + rng.integers(1, n_players - 1, n) - 1) % (n_players - 1) + 1
    second = np.where(second == first, (first % (n_players - 1)) + 1, second)
    y = rng.choice([0.0, 0.5, 1.0], n)
    champion = rng.integers(1, n_players, 3)  # player 0 beats these
    first = np.concatenate([first, np.zeros(3, dtype=int)])
    second = np.concatenate([second, champion])
    y = np.concatenate([y, np.ones(3)])
    X = np.column_stack([first, second]).astype(str)
    counts = rng.integers(1, 6, first.shape[0])
    return X, y, counts


def _both(estimator, X, y, counts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = estimator.fit(X, y, sample_weight=counts.astype(float))
        weighted_scores = dict(zip(weighted.agents_, weighted.agent_scores_,
                                   strict=True))
        repeated = estimator.fit(np.repeat(X, counts, axis=0),
                                 np.repeat(y, counts))
    return weighted_scores, dict(zip(repeated.agents_, repeated.agent_scores_,
                                     strict=True))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1),
       ties=st.sampled_from(["half", "davidson", "rao-kupper"]))
def test_repeated_rows_and_count_weights_give_one_fit(seed, ties):
    X, y, counts = _games(seed)
    if ties == "half" or 0.5 in y:
        weighted, repeated = _both(EloRanker(method="batch", ties=ties, tol=1e-12),
                                   X, y, counts)
        assert weighted.keys() == repeated.keys()
        for player, score in weighted.items():
            assert score == pytest.approx(repeated[player], abs=1e-5)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_multi_elo_batch_takes_count_weights_as_repeats(seed):
    X, y, counts = _games(seed)
    weighted, repeated = _both(MultiElo(method="batch", random_state=0, tol=1e-10),
                               X, y, counts)
    # L-BFGS along the prior's flat directions: 1e-2 of ratings near 2000
    # (the grouping moved them by tens of points before)
    for player, score in weighted.items():
        assert score == pytest.approx(repeated[player], abs=1e-2)


@pytest.mark.parametrize("seed", [1, 7, 11])
def test_a_resample_refits_with_the_estimators_prior(seed):
    """The bootstrap's refit of a resample (weights relative to the data's)
    is the estimator fitted on that resample as weighted matches, also where
    a player is undefeated and the vanishing prior holds the ratings."""
    X, y, counts = _games(seed)
    weight = counts.astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = _fit_full(EloRanker(method="batch", tol=1e-12), X, y, weight)
        outcomes = _encode(full, X, y, weight)
        draw = _draw_counts(outcomes, np.random.default_rng(seed))
        fast = _fit_counts(outcomes, draw, full, _logit_ratings(full))
        players = full.players_
        keep = draw > 0
        refit = EloRanker(method="batch", tol=1e-12).fit(
            np.column_stack([players[outcomes.first], players[outcomes.second]])[keep],
            outcomes.y[keep], sample_weight=(draw * outcomes.weight)[keep])
    played = np.isfinite(fast)
    assert_allclose(fast[played], refit.ratings_[played], atol=1e-6)
