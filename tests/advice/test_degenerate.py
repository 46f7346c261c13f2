"""Degenerate but legal data: a documented treatment, no numerical noise.

Tasks without results, agents with a single result, tiny games: the
advisor says what it did in its diagnostics; no "Mean of empty slice" or
other RuntimeWarning escapes, and near duplicates are called only on enough
common agents (two points always correlate +-1).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval import advise
from sklearn_eval.advice._items import MIN_DUPLICATE_POINTS, duplicated_columns

from . import corpus


def _no_runtime_warnings(X, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)  # the advisor's own notes
        return advise(X, random_state=0, drop_empty=True, **kwargs)


def _binary():
    return corpus.items("2PL", 0, n_agents=40, n_items=8)


def _task_never_observed():
    X = _binary()
    X[:, 3] = np.nan
    return X


def _weakest_miss_the_hard_items():
    X = _binary()
    weakest = np.argsort(X.mean(axis=1))[:5]
    hard = np.argsort(X.mean(axis=0))[:3]
    X[np.ix_(weakest, hard)] = np.nan
    return X


def _scores_task_never_observed():
    X = corpus.duplicated_tasks(0, n_agents=20, n_tasks=6) * 40 - 7
    X[:, 1] = np.nan
    return X


def _game_with_missing_pairs():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(7, 7))
    A = A - A.T
    A[0, 1] = A[1, 0] = np.nan
    return A


DEGENERATE = {
    "binary, a task never observed": _task_never_observed,
    "binary, weakest agents never saw the hard items": _weakest_miss_the_hard_items,
    "scores, a task never observed": _scores_task_never_observed,
    "continuous, mostly missing": lambda: np.where(
        np.random.default_rng(1).random((30, 6)) < 0.7, np.nan,
        corpus.continuous("beta", 0, n_agents=30, n_items=6)),
    "game, missing pairs": _game_with_missing_pairs,
}


@pytest.mark.parametrize("name", list(DEGENERATE))
@pytest.mark.parametrize("container", ["array", "frame"])
def test_no_runtime_warning_escapes(name, container):
    X = DEGENERATE[name]()
    if container == "frame":
        X = pd.DataFrame(X)
        if X.shape[0] == X.shape[1]:
            X.columns = X.index
    advice = _no_runtime_warnings(X)
    assert "nan" not in advice.explain().lower()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_tiny_games_are_not_called_duplicates(n):
    """Two agents always 'correlate' +-1: a 2 x 2 game was always redundant."""
    rng = np.random.default_rng(n)
    P = rng.uniform(0.1, 0.9, (n, n))
    P = np.triu(P, 1) + np.tril(1 - P.T, -1) + 0.5 * np.eye(n)
    advice = _no_runtime_warnings(P, kind="game")
    row = advice.diagnostics.loc["redundancy (agents)"]
    assert row["verdict"] == "n/a" and row["value"].startswith("not tested")
    assert "nearly duplicate" not in advice.explain()


def _brute_force(values, threshold, min_points):
    """Columns correlated above ``threshold`` with an earlier one over at
    least ``min_points`` common rows (pandas' pairwise-complete Pearson)."""
    corr = pd.DataFrame(values).corr(min_periods=min_points).to_numpy()
    out = []
    for j in range(values.shape[1]):
        earlier = corr[:j, j]
        if np.any(np.nan_to_num(earlier, nan=-2.0) > threshold):
            out.append(j)
    return np.array(out, dtype=int)


@settings(max_examples=60, deadline=None)
@given(n_rows=st.integers(2, 12), n_cols=st.integers(2, 6),
       missing=st.sampled_from([0.0, 0.2, 0.5]), copies=st.integers(0, 2),
       seed=st.integers(0, 2**16))
def test_duplicates_are_pairwise_correlations_over_enough_common_agents(
        n_rows, n_cols, missing, copies, seed):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_rows, n_cols))
    for _ in range(copies):  # a near copy of a random column
        j = rng.integers(n_cols)
        values = np.column_stack([values, 2 * values[:, j] + 1
                                  + 1e-4 * rng.normal(size=n_rows)])
    values[rng.random(values.shape) < missing] = np.nan
    got = duplicated_columns(values)
    np.testing.assert_array_equal(got, _brute_force(values, 0.99,
                                                    MIN_DUPLICATE_POINTS))
    if n_rows < MIN_DUPLICATE_POINTS:
        assert got.size == 0


@pytest.mark.parametrize("value", [0.0, 1.0, 0.5, 3.7, -2.0, 7.0])
@pytest.mark.parametrize("gaps", [False, True])
def test_constant_data_has_nothing_to_rank(value, gaps):
    """Every result equal: no held-out comparison (a variance floor used to
    give every candidate 12.9 per result) and a warning that says why."""
    X = np.full((20, 10), value)
    if gaps:
        X[np.random.default_rng(0).random(X.shape) < 0.3] = np.nan
    with pytest.warns(UserWarning, match=f"every observed result is {value:g}: "
                                         "there is nothing to rank"):
        advice = advise(X, random_state=0)
    assert advice.recommendation is None and advice.candidates is None
    assert advice.agreement is None
    assert advice.diagnostics.loc["constant tasks", "value"].startswith("10 of 10")
    assert "nan" not in advice.explain().lower()


def test_identical_agents_have_nothing_to_rank():
    X = np.tile(np.array([0.1, 0.9, 0.4, 0.6, 0.3]), (12, 1))
    with pytest.warns(UserWarning, match="agents differ on none"):
        advice = advise(X, random_state=0)
    assert advice.recommendation is None


@pytest.mark.parametrize("game", ["win rates 0.5", "zero payoffs",
                                  "symmetric payoffs"])
def test_an_even_game_has_nothing_to_rank(game):
    n = 5
    rng = np.random.default_rng(0)
    S = rng.normal(size=(n, n))
    P = {"win rates 0.5": np.full((n, n), 0.5), "zero payoffs": np.zeros((n, n)),
         "symmetric payoffs": S + S.T}[game]
    with pytest.warns(UserWarning, match="every pair of agents is even"):
        advice = advise(P, kind="game", random_state=0)
    assert advice.recommendation is None


def _kind_data(kind):
    if kind == "binary":
        return corpus.items("2PL", 0, n_agents=40, n_items=8), 1.0
    if kind == "graded":
        return corpus.graded("GRM", 0, n_agents=60, n_items=6), 2.0
    if kind == "continuous":
        return corpus.continuous("beta", 0, n_agents=40, n_items=8), 0.5
    return corpus.duplicated_tasks(0, n_agents=25, n_tasks=6) * 50 - 10, 3.0


@pytest.mark.parametrize("kind", ["binary", "graded", "continuous", "scores"])
@pytest.mark.parametrize("how", ["constant", "single result", "no result"])
def test_constant_tasks_are_flagged_in_every_kind(kind, how):
    """A continuous task constant at 0.5 was "0 of 8 at floor or ceiling":
    the check compared task means with the table's extremes only."""
    X, inside = _kind_data(kind)
    X = X.copy()
    if how == "constant":
        X[:, 1] = inside
    else:
        X[1:, 1] = np.nan
        if how == "no result":
            X[0, 1] = np.nan
    advice = _no_runtime_warnings(X, kind=kind)
    row = advice.diagnostics.loc["constant tasks"]
    assert row["verdict"] == "uninformative tasks"
    if how == "no result":
        assert "1 without any result" in row["value"]
    else:
        assert row["value"].startswith("1 of ")
