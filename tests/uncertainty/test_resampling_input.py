"""Resampling on inputs of every form: DataFrames whose rows are drawn twice,
nested lists, result matrices the bootstrap cannot vary, ties up to rounding
in rank sets, and the checks of ``estimator="mean"``."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.game import AlphaRank, NashAverager, VotingRanker
from sklearn_eval.uncertainty import (
    bootstrap_ranking,
    compare_agents,
    rank_sets,
    ranking_intervals,
)


def _scores(n_agents=4, n_tasks=6, seed=0):
    return np.random.default_rng(seed).normal(size=(n_agents, n_tasks))


@pytest.mark.parametrize("index", [list("wxyz"), None])
def test_agents_drawn_twice_from_a_dataframe_keep_distinct_labels(index):
    values = _scores()
    frame = pd.DataFrame(values, index=index)
    for target in ("difficulty", "task_distribution"):
        from_frame = ranking_intervals(NashAverager(), frame, target=target,
                                       n_resamples=30, random_state=0)
        from_array = ranking_intervals(NashAverager(), values, target=target,
                                       n_resamples=30, random_state=0)
        np.testing.assert_allclose(from_frame.low, from_array.low)
        np.testing.assert_allclose(from_frame.high, from_array.high)
    result = bootstrap_ranking(NashAverager(), frame, statistic="difficulty_",
                               resample="agents", n_resamples=20, random_state=0)
    assert np.all(np.isfinite(result.low))


@pytest.mark.parametrize("estimator", [NashAverager(), AlphaRank(), VotingRanker()])
def test_a_result_matrix_as_nested_lists_is_the_array(estimator):
    values = [[0.1, 0.2, 0.4, 0.3], [0.1, 0.3, 0.2, 0.6], [0.3, 0.5, 0.1, 0.2]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for run in (ranking_intervals, rank_sets, compare_agents):
            from_list = run(estimator, values, n_resamples=20, random_state=0)
            from_array = run(estimator, np.asarray(values), n_resamples=20,
                             random_state=0)
            assert repr(from_list) == repr(from_array)
        from_list = bootstrap_ranking(estimator, values, statistic="agent_scores_",
                                      resample="tasks", n_resamples=20,
                                      random_state=0)
        np.testing.assert_array_equal(from_list.low, bootstrap_ranking(
            estimator, np.asarray(values), statistic="agent_scores_",
            resample="tasks", n_resamples=20, random_state=0).low)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_agents=st.integers(3, 6),
       copies=st.integers(2, 3))
def test_rank_sets_hold_the_point_rank_of_agents_tied_up_to_rounding(
        seed, n_agents, copies):
    # agents whose scores differ by rounding share the point rank; their rank
    # sets must hold it, whatever the bootstrap's spread
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n_agents, 10))
    rows = np.vstack([base] + [base[:1] + k * 1e-14 for k in range(1, copies)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = rank_sets("mean", rows, n_resamples=60, random_state=0).to_frame()
    assert np.all(frame["rank_low"] <= frame["rank"])
    assert np.all(frame["rank"] <= frame["rank_high"])
    tied = frame.loc[[0] + list(range(n_agents, n_agents + copies - 1))]
    assert tied["rank"].nunique() == 1 and tied["tier"].nunique() == 1


def test_alpha_rank_masses_equal_up_to_rounding_are_not_separated():
    S = np.arange(5)[:, None] * 1.0 + np.random.default_rng(0).normal(
        scale=0.3, size=(5, 12))
    frame = rank_sets(AlphaRank(alpha=50.0), S, n_resamples=200,
                      random_state=0).to_frame()
    assert np.all(frame["rank_low"] <= frame["rank"])
    assert np.all(frame["rank"] <= frame["rank_high"])


@pytest.mark.parametrize("estimator", [NashAverager(), VotingRanker(), AlphaRank()])
def test_resampling_that_cannot_vary_the_data_says_so(estimator):
    one_task = np.array([[1.3], [0.4], [0.1], [-2.3]])
    with pytest.warns(UserWarning, match="All 50 resamples gave the same values"):
        rank_sets(estimator, one_task, n_resamples=50, random_state=0)


@pytest.mark.parametrize("X, error, message", [
    ([0.1, 0.2, 0.3], ValueError, "2-D"),
    ([["a", "b"], ["c", "d"]], TypeError, "must hold numbers"),
    (np.zeros((0, 3)), ValueError, "empty"),
    ([[np.inf, 0.3], [0.1, 0.2], [0.3, 0.5]], ValueError, "infinite value at row 0"),
    (pd.DataFrame([[0.1, 0.2], [0.3, 0.4]], index=["a", "a"]), ValueError,
     "duplicated agent label"),
    (pd.DataFrame([[0.1, 0.2], [0.3, 0.4]], index=["a", np.nan]), ValueError,
     "missing agent label"),
])
@pytest.mark.parametrize("method", ["auto", "bootstrap"])
def test_the_mean_ranking_checks_its_result_matrix(X, error, message, method):
    for run in (rank_sets, compare_agents):
        with pytest.raises(error, match=message):
            run("mean", X, method=method, n_resamples=20)
