"""Kemeny-Young ties exact copies, as every other voting rule does.

Regression: the integer program returns one ranking, and its positions were
the scores, so two exact copies of an agent (identical rows, or a profile
symmetric under swapping them) got different ranks, decided by the
tie-break. Twins, agents whose swap leaves the pairwise counts unchanged,
must share a score and a rank (the library's one rank rule); every other pair
of agents keeps distinct Kemeny scores, and the ranking stays optimal.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.game import VotingRanker
from sklearn_eval.game._kemeny import agreement, twin_classes
from sklearn_eval.game._voting import METHODS
from sklearn_eval.game._voting_methods import pairwise_counts
from sklearn_eval.utils import rank_scores


def _swap_invariant(N, i, j):
    """The definition, checked directly: swapping i and j leaves N unchanged."""
    p = np.arange(N.shape[0])
    p[[i, j]] = p[[j, i]]
    return bool(np.array_equal(N[np.ix_(p, p)], N))


@st.composite
def profiles_with_copies(draw, max_base=5):
    """A random profile, some agents copied (rows) or made symmetric (tasks)."""
    n_base = draw(st.integers(1, max_base))
    n_tasks = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    levels = draw(st.sampled_from([2, 3, 0]))
    if levels:
        X = rng.integers(0, levels, size=(n_base, n_tasks)).astype(float)
    else:
        X = rng.normal(size=(n_base, n_tasks))
    if draw(st.booleans()):
        X[rng.uniform(size=X.shape) < 0.2] = np.nan
        X[:, 0] = np.where(np.isnan(X[:, 0]), rng.normal(size=n_base), X[:, 0])
    # exact copies of some rows
    copies = draw(st.lists(st.integers(0, n_base - 1), min_size=0, max_size=3))
    X = np.vstack([X] + [X[[k]] for k in copies])
    # a swap-symmetric pair: every task also appears with the two rows swapped
    if draw(st.booleans()) and X.shape[0] >= 2:
        i, j = draw(st.lists(st.integers(0, X.shape[0] - 1), min_size=2,
                             max_size=2, unique=True))
        swapped = X.copy()
        swapped[[i, j]] = swapped[[j, i]]
        X = np.hstack([X, swapped])
    # a shuffle of the rows, so that copies are not always last
    X = X[rng.permutation(X.shape[0])]
    if X.shape[0] < 2:
        X = np.vstack([X, X])
    return X


def _best_agreement(N):
    return max(agreement(N, p) for p in itertools.permutations(range(N.shape[0])))


@settings(max_examples=120, deadline=None)
@given(profiles_with_copies())
def test_kemeny_ranks_are_tied_exactly_for_twins(X):
    vr = VotingRanker().fit(X)
    N = vr.preference_matrix_
    n = X.shape[0]
    table = vr.agent_table()
    rank = table["rank"].reindex(vr.agents_).to_numpy()
    for i, j in itertools.combinations(range(n), 2):
        twins = _swap_invariant(N, i, j)
        assert (rank[i] == rank[j]) == twins, (i, j)
        assert (vr.agent_scores_[i] == vr.agent_scores_[j]) == twins, (i, j)
    # the one rank rule, and rows in ranking_ order
    np.testing.assert_array_equal(rank, rank_scores(vr.agent_scores_))
    assert table.index.tolist() == vr.ranking_.tolist()
    assert np.all(np.diff(table["rank"].to_numpy()) >= 0)
    # still a Kemeny ranking: the best agreement over all orders
    if n <= 7:
        assert vr.agreement_ == _best_agreement(N)


@settings(max_examples=60, deadline=None)
@given(profiles_with_copies(max_base=4), st.randoms(use_true_random=False))
def test_kemeny_ties_follow_the_agents_under_relabelling(X, random):
    n = X.shape[0]
    perm = np.array(random.sample(range(n), n))
    a = VotingRanker().fit(X)
    b = VotingRanker().fit(X[perm])
    assert b.agreement_ == a.agreement_
    rank_a = a.agent_table()["rank"].reindex(a.agents_).to_numpy()
    rank_b = b.agent_table()["rank"].reindex(b.agents_).to_numpy()
    # which agents share a rank does not depend on the row order
    same_a = rank_a[perm][:, None] == rank_a[perm][None, :]
    same_b = rank_b[:, None] == rank_b[None, :]
    np.testing.assert_array_equal(same_a, same_b)


@settings(max_examples=60, deadline=None)
@given(profiles_with_copies())
def test_twin_classes_match_the_definition(X):
    N, _ = pairwise_counts(X)
    classes = twin_classes(N)
    for i, j in itertools.combinations(range(N.shape[0]), 2):
        assert (classes[i] == classes[j]) == _swap_invariant(N, i, j)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("X", [
    pd.DataFrame([[9.0, 3.0, 7.0], [9.0, 3.0, 7.0], [1.0, 4.0, 9.0],
                  [2.0, 1.0, 3.0]], index=["a", "a2", "c", "d"]),
    pd.DataFrame([[1.0, 0, 1, 0], [0, 1, 0, 1]], index=["p", "q"]),
    pd.DataFrame([[1.0, 0, 1, 0], [0, 1, 0, 1], [2, 2, 2, 2]], index=["p", "q", "r"]),
], ids=["identical-rows", "symmetric-pair", "symmetric-pair-below-a-winner"])
def test_every_rule_ties_the_reviewers_copies(method, X):
    copies = [X.index[0], X.index[1]]
    table = VotingRanker(method=method).fit(X).agent_table()
    assert table.loc[copies[0], "rank"] == table.loc[copies[1], "rank"], method


def test_kemeny_copies_share_the_best_rank_and_the_next_rank_skips():
    X = pd.DataFrame([[9.0, 3.0, 7.0], [9.0, 3.0, 7.0], [1.0, 4.0, 9.0],
                      [2.0, 1.0, 3.0]], index=["a", "a2", "c", "d"])
    table = VotingRanker().fit(X).agent_table()
    assert table["rank"].to_dict() == {"c": 1, "a": 2, "a2": 2, "d": 4}
    # the score counts the agents below, as Schulze's and ranked pairs'
    assert table["score"].to_dict() == {"c": 3.0, "a": 1.0, "a2": 1.0, "d": 0.0}
