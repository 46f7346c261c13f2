"""The ranking protocol on the IRT family: ``agents_``, ``agent_scores_``,
``agent_table()``, ``tasks_`` and ``task_table()`` (``item_table()`` kept as
its alias)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import NotFittedError

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.irt._curves import FEATURE_NAMES
from sklearn_eval.utils._protocol import competition_rank as _competition_ranks

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _frame(X):
    return pd.DataFrame(
        X,
        index=pd.Index([f"agent{i}" for i in range(X.shape[0])]),
        columns=[f"task{j}" for j in range(X.shape[1])],
    )


@pytest.fixture(scope="module")
def responses():
    X = make_irt_responses(150, 12, missing_rate=0.15, random_state=2)
    X[:, 5] = 1.0  # a constant item: left out of estimation
    return X


# ------------------------------------------------------------------- ranks
@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(1, 30),
              elements=st.sampled_from([-2.0, 0.0, 0.5, 0.5, 3.0, np.inf])))
def test_competition_ranks_put_the_highest_first_and_share_ties(scores):
    ranks = _competition_ranks(scores)
    assert ranks.dtype == np.int64
    expected = [1 + np.sum(scores > s) for s in scores]  # ties: the best rank
    assert_array_equal(ranks, expected)
    reference = pd.Series(scores).rank(method="min", ascending=False)
    assert_array_equal(ranks, reference.to_numpy())


def test_competition_ranks_leave_nan_scores_unranked():
    ranks = _competition_ranks([0.5, np.nan, 2.0, 0.5])
    assert ranks.dtype == np.float64
    assert_array_equal(ranks, [2.0, np.nan, 1.0, 2.0])


# ------------------------------------------------------------------ IRT2PL
@pytest.mark.parametrize("as_frame", [False, True])
def test_irt2pl_agent_table(responses, as_frame):
    X = _frame(responses) if as_frame else responses
    model = IRT2PL(ability_method="eap").fit(X)
    expected_agents = X.index if as_frame else np.arange(150)
    assert_array_equal(model.agents_, expected_agents)
    assert model.agent_scores_ is model.abilities_
    assert model.agent_scores_.dtype == np.float64
    table = model.agent_table()
    assert table.index.name == "agent"
    assert list(table.columns) == ["score", "rank", "success_rate",
                                   "n_responses", "score_se"]
    assert np.all(np.diff(table["score"].to_numpy()) <= 0)  # best first
    table = table.loc[expected_agents]
    assert_array_equal(table["score"], model.abilities_)
    assert_array_equal(table["score_se"], model.abilities_sd_)
    assert table["rank"].min() == 1
    best = np.argmax(model.abilities_)
    assert table["rank"].iloc[best] == 1
    assert np.all(np.diff(table["score"].to_numpy()[np.argsort(table["rank"])]) <= 0)
    kept = np.delete(responses, 5, axis=1)  # the constant item is not estimated
    seen = ~np.isnan(kept)
    assert_array_equal(table["n_responses"], seen.sum(axis=1))
    assert_allclose(table["success_rate"], np.nansum(kept, axis=1) / seen.sum(1))


@pytest.mark.parametrize("as_frame", [False, True])
def test_irt2pl_task_table_and_item_table_alias(responses, as_frame):
    X = _frame(responses) if as_frame else responses
    model = IRT2PL().fit(X)
    expected_tasks = X.columns if as_frame else np.arange(12)
    assert_array_equal(model.tasks_, expected_tasks)
    table = model.task_table()
    assert table.index.name == "task"
    assert_array_equal(table.index, expected_tasks)
    assert_array_equal(table["difficulty"], model.difficulty_)
    assert_array_equal(table["discrimination"], model.discrimination_)
    assert_array_equal(table["difficulty_se"], model.difficulty_se_)
    assert_array_equal(table["discrimination_se"], model.discrimination_se_)
    assert table["left_out"].tolist() == [j == 5 for j in range(12)]
    pd.testing.assert_frame_equal(model.item_table(), table)
    with_fit = model.task_table(X)
    statistic, pvalue = model.item_fit(X)
    assert_array_equal(with_fit["item_fit"], statistic)
    assert_array_equal(with_fit["item_fit_pvalue"], pvalue)
    pd.testing.assert_frame_equal(model.item_table(X), with_fit)


def test_irt2pl_from_item_params_has_tasks_but_no_agents():
    model = IRT2PL.from_item_params([1.0, 0.5], [0.0, 1.0], item_names=["p", "q"])
    assert model.tasks_.tolist() == ["p", "q"]
    assert model.task_table().index.tolist() == ["p", "q"]
    assert not hasattr(model, "agents_")
    with pytest.raises(NotFittedError, match="no training agents"):
        model.agent_table()
    for method in ("agent_table", "task_table", "item_table"):
        with pytest.raises(NotFittedError, match="not fitted"):
            getattr(IRT2PL(), method)()
        if method != "item_table":
            with pytest.raises(NotFittedError, match="not fitted"):
                getattr(GeneralityScorer(), method)()


def test_irt2pl_agent_table_follows_the_agents(responses):
    """Permuting the agents permutes the table rows, labels included."""
    X = _frame(responses)
    order = np.random.default_rng(0).permutation(150)
    table = IRT2PL(tol=1e-10).fit(X).agent_table()
    permuted = IRT2PL(tol=1e-10).fit(X.iloc[order]).agent_table()
    aligned = permuted.loc[table.index]
    assert_allclose(aligned["score"], table["score"], atol=1e-4)
    assert_array_equal(aligned["n_responses"], table["n_responses"])


# --------------------------------------------------------- GeneralityScorer
@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(4)
    X = make_irt_responses(60, 20, missing_rate=0.1, random_state=4)
    X[:, 0] = np.where(np.isnan(X[:, 0]), np.nan, rng.random(60))  # a score
    return X


@pytest.mark.parametrize("as_frame", [False, True])
def test_generality_agent_table_ranks_by_capability(scores, as_frame):
    X = _frame(scores) if as_frame else scores
    scorer = GeneralityScorer(difficulty="rate", bins=4).fit(X)
    out = scorer.transform(X)
    capability = out[:, FEATURE_NAMES.index("capability")]
    assert_array_equal(scorer.agents_, X.index if as_frame else np.arange(60))
    assert_array_equal(scorer.agent_scores_, capability)
    table = scorer.agent_table()
    assert table.index.name == "agent"
    assert list(table.columns) == ["score", "rank", *FEATURE_NAMES]
    table = table.loc[scorer.agents_]
    assert_array_equal(table["score"], capability)
    assert_array_equal(table[list(FEATURE_NAMES)].to_numpy(), out)
    assert_array_equal(table["rank"], _competition_ranks(capability))


def test_generality_nan_capability_is_unranked():
    X = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, np.nan, 0.0, np.nan],
                  [1.0, 1.0, 1.0, 0.0]])
    scorer = GeneralityScorer(difficulty=[1.0, 2.0, 3.0, 4.0], bins="unique",
                              empty_bins="nan").fit(X)
    table = scorer.agent_table()
    assert np.isnan(scorer.agent_scores_[1]) and np.isnan(table["rank"].loc[1])
    assert table.index.tolist() == [2, 0, 1]  # 2 solves a harder task; NaN last
    assert table["rank"].tolist()[:2] == [1.0, 2.0]


@pytest.mark.parametrize("as_frame", [False, True])
def test_generality_task_table(scores, as_frame):
    X = _frame(scores) if as_frame else scores
    weights = np.linspace(1.0, 2.0, 20)
    scorer = GeneralityScorer(difficulty=np.linspace(-3, 3, 20), bins=[-2, 0, 2],
                              task_weights=weights, min_tasks_per_bin=1).fit(X)
    table = scorer.task_table()
    assert table.index.name == "task"
    assert_array_equal(table.index, X.columns if as_frame else np.arange(20))
    assert_array_equal(scorer.tasks_, table.index)
    assert_array_equal(table["difficulty"], np.linspace(-3, 3, 20))
    assert_array_equal(table["bin"], scorer.task_bin_)
    assert_array_equal(table["left_out"], scorer.task_bin_ < 0)
    assert table["left_out"].sum() == len(scorer.excluded_tasks_) > 0
    assert_array_equal(table["weight"], weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_allclose(table["success_rate"], np.nanmean(scores, axis=0))
    edges = scorer.bin_edges_
    for difficulty, k, label in zip(table["difficulty"], table["bin"],
                                    table["bin_interval"], strict=True):
        if k < 0:
            assert pd.isna(label)
        else:
            assert edges[k] < difficulty <= edges[k + 1]
            assert label == f"({edges[k]:g}, {edges[k + 1]:g}]"


def test_generality_irt_difficulty_tables(responses):
    scorer = GeneralityScorer(bins=3).fit(_frame(responses))
    table = scorer.task_table()
    assert np.isnan(table.loc["task5", "difficulty"])  # the constant item
    assert table.loc["task5", "left_out"] and table.loc["task5", "bin"] == -1
    assert len(scorer.agent_table()) == 150


def test_response_curves_return_the_within_bin_variance(scores):
    difficulty = np.repeat([0.5, 1.5, 2.5, 3.5], 5)
    weights = np.linspace(0.5, 1.5, 20)
    scorer = GeneralityScorer(difficulty=difficulty, bins="unique",
                              task_weights=weights).fit(scores)
    curves, variance = scorer.response_curves(scores, return_variance=True)
    assert_array_equal(curves, scorer.response_curves(scores))
    for i in range(scores.shape[0]):
        for k in range(4):
            row, w = scores[i, 5 * k:5 * k + 5], weights[5 * k:5 * k + 5]
            seen = ~np.isnan(row)
            if not seen.any():
                assert np.isnan(variance[i, k])
                continue
            mean = np.average(row[seen], weights=w[seen])
            var = np.average((row[seen] - mean) ** 2, weights=w[seen])
            assert_allclose(variance[i, k], var, atol=1e-12)
    gen = scorer.transform(scores)[:, FEATURE_NAMES.index("generality")]
    assert_allclose(gen, 1 / np.nansum(variance, axis=1))
    frame = _frame(scores)
    curves_df, variance_df = scorer.response_curves(frame, return_variance=True)
    assert list(variance_df.columns) == list(curves_df.columns)
    assert_array_equal(variance_df.index, frame.index)
    assert_allclose(variance_df.to_numpy(), variance)
