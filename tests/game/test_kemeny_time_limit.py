"""VotingRanker(time_limit=...): Kemeny-Young's exact search stops with an
error naming the polynomial rules, and leaves a fitted ranker as it was."""

import numpy as np
import pytest

from sklearn_eval.game import VotingRanker


def _cyclic_profile(seed, n_agents=30, n_tasks=5):
    """Random scores: majorities cycle, so the integer program runs."""
    return np.random.default_rng(seed).random((n_agents, n_tasks))


def test_the_limit_stops_the_search_with_the_remedy():
    X = _cyclic_profile(0)
    with pytest.raises(ValueError, match="time_limit") as info:
        VotingRanker(time_limit=1e-9).fit(X)
    assert "'schulze'" in str(info.value) and "'ranked_pairs'" in str(info.value)
    assert "30 agents" in str(info.value)


@pytest.mark.parametrize("seed", range(3))
def test_a_limit_not_reached_changes_nothing(seed):
    X = _cyclic_profile(seed)
    free = VotingRanker().fit(X)
    limited = VotingRanker(time_limit=600.0).fit(X)
    np.testing.assert_array_equal(limited.ranking_, free.ranking_)
    assert limited.agreement_ == free.agreement_


def test_a_stopped_search_leaves_the_fitted_ranker_as_it_was():
    ranker = VotingRanker().fit(_cyclic_profile(1, n_agents=8))
    before = ranker.ranking_.copy()
    ranker.set_params(time_limit=1e-9)
    with pytest.raises(ValueError, match="time_limit"):
        ranker.fit(_cyclic_profile(0))
    np.testing.assert_array_equal(ranker.ranking_, before)


@pytest.mark.parametrize("bad", [0.0, -1.0, "5"])
def test_the_limit_is_a_positive_number(bad):
    with pytest.raises((ValueError, TypeError), match="time_limit"):
        VotingRanker(time_limit=bad).fit(_cyclic_profile(0, n_agents=5))
