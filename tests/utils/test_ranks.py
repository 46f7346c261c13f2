"""The library's one rank rule: "min" ranks, scores equal up to rounding tied.

See the user guide's ranking protocol: every ``rank`` column is
``rank_scores(agent_scores_)`` with ``RANK_RTOL`` (1e-9 relative to
``max(1, max|score|)``).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

from sklearn_eval.utils import RANK_RTOL, rank_scores


def _min_ranks(scores):
    """Reference: scipy's competition ranks of exact values, best = highest."""
    return rankdata(-np.asarray(scores, dtype=float), method="min").astype(int)


@st.composite
def tied_scores(draw):
    """Scores on a few well separated levels, several agents per level."""
    n_levels = draw(st.integers(1, 6))
    scale = draw(st.sampled_from([1e-3, 1.0, 0.354972, 1500.0, 1e6]))
    gaps = draw(st.lists(st.floats(1e-5, 1.0), min_size=n_levels,
                         max_size=n_levels))
    levels = scale * (1.0 + np.cumsum(gaps))
    if draw(st.booleans()):
        levels = -levels
    n_agents = draw(st.integers(1, 30))
    which = np.array(draw(st.lists(st.integers(0, n_levels - 1), min_size=n_agents,
                                   max_size=n_agents)))
    seed = draw(st.integers(0, 2**32 - 1))
    return levels[which], seed


@settings(max_examples=200, deadline=None)
@given(tied_scores(), st.floats(0.0, 1e3))
def test_rounding_noise_on_tied_scores_leaves_the_ranks_unchanged(case, ulps):
    """Noise of a few thousand ulps (sums taken in another order, a solver's
    last digits) never splits a tie nor reorders distinct scores."""
    exact, seed = case
    noise = np.random.default_rng(seed).uniform(-1, 1, exact.shape)
    noisy = exact + ulps * np.spacing(np.abs(exact)) * noise
    expected = _min_ranks(exact)
    np.testing.assert_array_equal(rank_scores(exact), expected)
    np.testing.assert_array_equal(rank_scores(noisy), expected)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40), st.randoms())
def test_ranks_do_not_depend_on_the_order_of_the_agents(values, random):
    scores = np.array(values)
    perm = np.array(random.sample(range(len(values)), len(values)))
    np.testing.assert_array_equal(rank_scores(scores[perm]), rank_scores(scores)[perm])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40))
def test_rank_rule_properties(values):
    scores = np.array(values)
    ranks = rank_scores(scores)
    order = np.argsort(-scores, kind="stable")
    # best score ranks 1; ranks never improve going down the scores
    assert ranks[order[0]] == 1
    assert np.all(np.diff(ranks[order]) >= 0)
    # "min" ranks: an agent's rank is 1 + the number of agents ranked better
    for rank in np.unique(ranks):
        assert rank == 1 + np.sum(ranks < rank)
    # with no tolerance, the rule is scipy's exact competition ranking
    np.testing.assert_array_equal(rank_scores(scores, rtol=0), _min_ranks(scores))


def test_well_separated_scores_are_never_tied():
    scores = np.array([3.0, 3.0 + 1e-5, 2.0, 1500.0, -1.0])  # 1e-5 > 1500 * 1e-9
    np.testing.assert_array_equal(rank_scores(scores), _min_ranks(scores))


def test_the_tolerance_is_relative_to_the_largest_score():
    gap = RANK_RTOL * 1500.0
    assert rank_scores([1500.0, 1500.0 - 0.5 * gap, 0.0]).tolist() == [1, 1, 3]
    assert rank_scores([1500.0, 1500.0 - 2 * gap, 0.0]).tolist() == [1, 2, 3]
    # below 1 in magnitude the tolerance is absolute: RANK_RTOL
    assert rank_scores([1e-3, 1e-3 - 0.5 * RANK_RTOL]).tolist() == [1, 1]


def test_nan_scores_rank_nan_and_infinities_rank_at_the_ends():
    ranks = rank_scores([2.0, np.nan, np.inf, -np.inf, 2.0])
    assert ranks.dtype == np.float64
    np.testing.assert_array_equal(ranks, [2.0, np.nan, 1.0, 4.0, 2.0])
    assert rank_scores([np.inf, np.inf, 1.0]).tolist() == [1, 1, 3]


def test_lower_is_better_and_rows():
    assert rank_scores([3.0, 1.0, 1.0 + 1e-15], higher_is_better=False).tolist() == [
        3, 1, 1]
    rows = np.array([[1.0, 2.0, 2.0], [5.0, 4.0, np.nan]])
    ranks = rank_scores(rows)
    np.testing.assert_array_equal(ranks[0], rank_scores(rows[0]))
    np.testing.assert_array_equal(ranks[1], rank_scores(rows[1]))
    assert rank_scores(np.zeros(0)).shape == (0,)


@pytest.mark.parametrize("bad, match", [
    (np.zeros((2, 2, 2)), "1-D or 2-D"),
])
def test_bad_shapes_raise(bad, match):
    with pytest.raises(ValueError, match=match):
        rank_scores(bad)


@pytest.mark.parametrize("rtol", [-1e-9, np.nan, np.inf])
def test_bad_tolerance_raises(rtol):
    with pytest.raises(ValueError, match="rtol"):
        rank_scores([1.0, 2.0], rtol=rtol)
