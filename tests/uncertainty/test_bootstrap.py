"""Tests of the generic bootstrap (sklearn_eval.uncertainty)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from sklearn_eval.uncertainty import bootstrap_ranking
from sklearn_eval.utils import encode_players


class ColumnMeans(BaseEstimator):
    """Per-task and per-agent means of a result matrix (a test double)."""

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=float)
        self.task_mean_ = X.mean(axis=0)
        self.agent_mean_ = X.mean(axis=1)
        return self


class WinShare(BaseEstimator):
    """Share of points won per player from a match table (a test double)."""

    def fit(self, X, y):
        X = np.asarray(X)
        players, i, j = encode_players(X[:, 0], X[:, 1])
        y = np.asarray(y, dtype=float)
        points = np.bincount(i, y, len(players)) + np.bincount(j, 1 - y, len(players))
        games = np.bincount(i, minlength=len(players)) + np.bincount(
            j, minlength=len(players)
        )
        self.agents_ = players
        self.share_ = points / games
        return self


def _matrix(seed=0, n_agents=40, n_tasks=5):
    rng = np.random.default_rng(seed)
    return rng.normal(loc=np.arange(n_tasks), size=(n_agents, n_tasks))


def test_task_statistic_under_agent_resampling_orders_tasks():
    X = _matrix()
    res = bootstrap_ranking(ColumnMeans(), X, statistic="task_mean_",
                            resample="agents", n_resamples=100, random_state=0)
    assert res.rank.tolist() == [5, 4, 3, 2, 1]
    assert np.all(res.low <= res.estimate) and np.all(res.estimate <= res.high)
    # tasks are 1 apart and intervals are about +-0.3 wide: ranks are certain
    np.testing.assert_array_equal(res.rank_low, res.rank)
    np.testing.assert_array_equal(res.rank_high, res.rank)
    assert res.prob_above[4, 0] == 1.0 and res.prob_above[0, 4] == 0.0
    np.testing.assert_allclose(res.prob_above + res.prob_above.T, 1.0)


def test_results_independent_of_n_jobs():
    X = _matrix(1)
    kwargs = dict(statistic="task_mean_", resample="agents", n_resamples=40,
                  random_state=7)
    one = bootstrap_ranking(ColumnMeans(), X, n_jobs=1, **kwargs)
    two = bootstrap_ranking(ColumnMeans(), X, n_jobs=2, **kwargs)
    np.testing.assert_allclose(one.samples, two.samples, rtol=1e-12)
    again = bootstrap_ranking(ColumnMeans(), X, n_jobs=1, **kwargs)
    np.testing.assert_array_equal(one.samples, again.samples)
    other = bootstrap_ranking(ColumnMeans(), X, n_jobs=1,
                              **{**kwargs, "random_state": 8})
    assert not np.array_equal(one.samples, other.samples)


def test_agent_statistic_under_task_resampling_keeps_dataframe_names():
    X = pd.DataFrame(_matrix(2, n_agents=4, n_tasks=30), index=["a", "b", "c", "d"])
    res = bootstrap_ranking(ColumnMeans(), X, statistic="agent_mean_",
                            resample="tasks", n_resamples=30, random_state=0)
    assert res.labels.tolist() == ["a", "b", "c", "d"]
    frame = res.to_frame()
    assert frame["rank"].tolist() == sorted(frame["rank"].tolist())


def test_statistic_along_the_resampled_axis_averages_duplicates():
    X = _matrix(3, n_agents=6)
    res = bootstrap_ranking(ColumnMeans(), X, statistic="agent_mean_",
                            resample="agents", n_resamples=50, random_state=0)
    # each agent's mean is fixed, so every resample that contains it agrees
    for k in range(6):
        present = ~np.isnan(res.samples[:, k])
        assert present.any() and not present.all()
        np.testing.assert_allclose(res.samples[present, k], res.estimate[k])


def test_matches_unit_aligns_players_by_label():
    rng = np.random.default_rng(0)
    players = np.array(["p0", "p1", "p2", "p3"])
    strength = np.array([0.0, 1.0, 2.0, 3.0])
    pairs = np.array([rng.choice(4, 2, replace=False) for _ in range(600)])
    p = 1 / (1 + np.exp(-(strength[pairs[:, 0]] - strength[pairs[:, 1]])))
    y = (rng.random(600) < p).astype(float)
    res = bootstrap_ranking(WinShare(), players[pairs], y, statistic="share_",
                            resample="matches", n_resamples=60, random_state=1)
    assert res.labels.tolist() == players.tolist()
    assert res.rank.tolist() == [4, 3, 2, 1]
    assert np.all(res.high - res.low > 0)


def test_matches_unit_needs_the_protocol_labels():
    """Players are aligned through ``agents_`` only (the ranking protocol)."""

    class PlayersOnly(WinShare):
        def fit(self, X, y):
            super().fit(X, y)
            self.players_ = self.agents_
            del self.agents_
            return self

    X = np.array([["a", "b"], ["b", "c"], ["c", "a"]] * 10)
    y = np.tile([1.0, 0.0, 1.0], 10)
    with pytest.raises(TypeError, match="agents_"):
        bootstrap_ranking(PlayersOnly(), X, y, statistic="share_",
                          resample="matches", n_resamples=5, random_state=0)


def test_runs_are_resampled_within_agents():
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c"], [5, 10, 15])
    X = rng.normal(size=(30, 3))
    seen = []

    class Spy(ColumnMeans):
        def fit(self, X, y=None):
            seen.append(np.unique(np.asarray(y), return_counts=True)[1].tolist())
            return super().fit(X)

    bootstrap_ranking(Spy(), X, y, statistic="task_mean_", resample="runs",
                      n_resamples=5, random_state=0)
    assert all(counts == [5, 10, 15] for counts in seen)


def test_lower_is_better_orientation():
    X = _matrix()
    res = bootstrap_ranking(ColumnMeans(), X, statistic="task_mean_",
                            resample="agents", n_resamples=20, random_state=0,
                            higher_is_better=False)
    assert res.rank.tolist() == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_resamples": 1}, "n_resamples"),
        ({"confidence_level": 1.5}, "confidence_level"),
        ({"resample": "players"}, "resample must be one of"),
        ({"resample": "runs"}, "needs y"),
        ({"statistic": lambda est: np.ones((2, 2))}, "must be 1-D"),
        ({"statistic": lambda est: np.ones(7)}, "has 7 values"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"statistic": "task_mean_", "resample": "agents", "n_resamples": 5}
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        bootstrap_ranking(ColumnMeans(), _matrix(), **args)


@pytest.mark.slow
def test_percentile_interval_coverage_of_a_mean():
    """95% intervals of a task mean cover the truth about 95% of the time."""
    hits = []
    for seed in range(200):
        X = np.random.default_rng(seed).normal(size=(80, 1))
        res = bootstrap_ranking(ColumnMeans(), X, statistic="task_mean_",
                                resample="agents", n_resamples=200,
                                random_state=seed)
        hits.append(res.low[0] <= 0.0 <= res.high[0])
    assert 0.90 <= np.mean(hits) <= 0.98
