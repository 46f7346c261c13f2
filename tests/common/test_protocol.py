"""The ranking protocol: agents_, agent_scores_, agent_table(), task_table().

Every estimator that scores agents exposes the same three things, and every
estimator that learns about tasks exposes ``task_table()``; uncertainty works
through ``__sklearn_eval_intervals__`` with no knowledge of the type.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from sklearn_eval.uncertainty import ranking_intervals
from sklearn_eval.utils import IntervalPlan
from tests.common.test_contract import CONFIGS

PROTOCOL_CONFIGS = CONFIGS


def _fitted(config):
    make, data, _ = PROTOCOL_CONFIGS[config]
    X, y, fit_params = data()
    est = make()
    args = (X,) if y is None else (X, y)
    return est.fit(*args, **(fit_params or {})), X, y, fit_params


@pytest.mark.parametrize("config", list(PROTOCOL_CONFIGS))
def test_every_estimator_speaks_the_protocol(config):
    est, X, _, _ = _fitted(config)
    assert hasattr(est, "agent_table") or hasattr(est, "task_table")
    if hasattr(est, "agent_table"):
        _check_agent_table(est)
    # an agent-vs-agent game has no tasks: no task_table at all
    if getattr(est, "game", "") == "agent_vs_agent":
        assert not hasattr(est, "task_table")
    if hasattr(est, "task_table"):
        _check_task_table(est, np.shape(X)[1])


def _check_agent_table(est):
    scores = np.asarray(est.agent_scores_, dtype=float)
    agents = np.asarray(est.agents_)
    assert scores.shape == agents.shape
    table = est.agent_table()
    assert table.index.name == "agent"
    assert list(table.columns[:2]) == ["score", "rank"]
    assert sorted(table.index.tolist(), key=str) == sorted(agents.tolist(), key=str)
    assert_allclose(table.loc[agents, "score"].to_numpy(), scores)
    assert np.all(np.diff(table["score"].to_numpy()) <= 0)
    best = table["score"].max()
    assert (table["rank"][table["score"] == best] == 1).all()


def _check_task_table(est, n_columns):
    table = est.task_table()
    assert table.index.name == "task"
    assert len(table) == len(est.tasks_) <= n_columns
    assert_array_equal(table.index.to_numpy(), np.asarray(est.tasks_))


def test_tables_join_on_labels_from_a_dataframe():
    from sklearn_eval import NashAverager

    scores = pd.DataFrame(
        [[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 0.4]],
        index=["ann", "bob", "cy"], columns=["t1", "t2", "t3"],
    )
    nash = NashAverager().fit(scores)
    assert set(nash.agent_table().index) == {"ann", "bob", "cy"}
    assert nash.task_table().index.tolist() == ["t1", "t2", "t3"]
    assert_allclose(nash.task_table()["difficulty"], nash.difficulty_)


def test_agent_vs_agent_nash_has_no_task_table():
    from sklearn_eval import NashAverager

    P = np.array([[0.5, 0.9, 0.1], [0.1, 0.5, 0.9], [0.9, 0.1, 0.5]])
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    assert not hasattr(nash, "task_table")
    with pytest.raises(AttributeError, match="task_table") as info:
        nash.task_table()
    assert "game='agent_vs_task'" in str(info.value.__cause__)
    # an unfitted agent-vs-task estimator has the method and says it is unfitted
    with pytest.raises(NotFittedError):
        NashAverager().task_table()


def test_deprecated_nash_task_difficulty_still_works():
    from sklearn_eval import NashAverager

    nash = NashAverager().fit([[1.0, 0.0], [0.0, 1.0], [0.4, 0.4]])
    with pytest.warns(FutureWarning, match="difficulty_"):
        assert_array_equal(nash.task_difficulty_, nash.difficulty_)


class _MeanScore(BaseEstimator):
    """A third-party ranker: agents scored by their mean over tasks."""

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=float)
        self.agents_ = np.arange(X.shape[0])
        self.agent_scores_ = X.mean(axis=1)
        return self

    def __sklearn_eval_intervals__(self, target=None):
        return IntervalPlan(target="mean", statistic="agent_scores_", resample="tasks")


def test_ranking_intervals_needs_only_the_plan():
    X = np.random.default_rng(0).normal(size=(5, 40)) + np.arange(5)[:, None]
    res = ranking_intervals(_MeanScore(), X, n_resamples=100, random_state=0)
    assert_allclose(res.estimate, X.mean(axis=1))
    assert res.rank.tolist() == [5, 4, 3, 2, 1]
    assert np.all(res.low <= res.estimate) and np.all(res.estimate <= res.high)


def test_ranking_intervals_names_an_estimator_without_a_plan():
    with pytest.raises(TypeError, match="__sklearn_eval_intervals__"):
        ranking_intervals(BaseEstimator(), np.zeros((3, 3)))


@pytest.mark.parametrize("config", list(CONFIGS))
def test_unknown_targets_are_value_errors_listing_the_valid_ones(config):
    est = CONFIGS[config][0]()
    if not hasattr(est, "__sklearn_eval_intervals__"):
        pytest.skip("not a ranker: no interval plan")
    with pytest.raises(ValueError, match="target must be one of"):
        est.__sklearn_eval_intervals__("no-such-target")


@pytest.mark.parametrize("config", list(CONFIGS))
def test_ranking_intervals_work_on_every_estimator_through_its_plan(config):
    make, data, _ = CONFIGS[config]
    X, y, fit_params = data()
    est = make()
    weight = (fit_params or {}).get("sample_weight")
    if not hasattr(est, "__sklearn_eval_intervals__"):
        assert not hasattr(est, "agent_table"), "an agent ranker needs a plan"
        with pytest.raises(TypeError, match="__sklearn_eval_intervals__"):
            ranking_intervals(est, X, y, n_resamples=4, random_state=0)
        return
    if config.startswith("InfoGainSelector") and "runs" not in config:
        with pytest.raises(ValueError, match="runs"):
            ranking_intervals(est, X, y, n_resamples=4, random_state=0)
        return
    if config.startswith("NashAverager(agent_vs_agent"):
        pytest.skip("agent-vs-agent intervals resample matches, not this matrix")
    if config.startswith("AlphaRank(agent_vs_agent"):
        with pytest.raises(ValueError, match="resample the matches"):
            ranking_intervals(est, X, y, n_resamples=4, random_state=0)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ranking_intervals(est, X, y, sample_weight=weight, n_resamples=4,
                                random_state=0)
    fitted = _fitted(config)[0]
    ranked = getattr(fitted, "agents_", None)
    if config.startswith("InfoGainSelector"):
        ranked = fitted.tasks_
    assert len(res.estimate) == len(ranked)
    assert res.samples.shape[1] == len(ranked)
