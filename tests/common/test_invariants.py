"""Invariants as property tests (hypothesis), on inputs without ties.

Continuous random data (drawn from a hypothesis-chosen seed) has no ties and,
almost surely, a unique Nash equilibrium; the properties hold exactly up to
the solvers' tolerances:

- permutation equivariance of agents and tasks for every matrix method;
- antisymmetry and Hodge orthogonality;
- Nash averages unchanged by duplicated agents or tasks;
- IRT item estimates independent of item and agent order;
- batch Elo (and batch mElo) independent of match order;
- ``0 <= information gain <= log2(n_agents)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_eval import EloRanker, InfoGainSelector, MultiElo, NashAverager
from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.game import (
    div,
    grad,
    hodge_decomposition,
    maxent_nash,
    rot,
    symmetric_maxent_nash,
)
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.selection import confusion_matrix, information_gain
from sklearn_eval.utils import matches_to_win_matrix, matches_to_win_rate

SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _perm(rng, n):
    return rng.permutation(n)


def _game(seed, n):
    """A random antisymmetric log-odds matrix: transitive plus cyclic parts."""
    rng = np.random.default_rng(seed + 1)
    G = rng.normal(size=(n, n))
    r = rng.normal(size=n)
    return G - G.T + (r[:, None] - r[None, :])


# ---------------------------------------------------------------------------
# Nash averaging: permutations and duplicates
# ---------------------------------------------------------------------------
@SETTINGS
@given(seeds, st.integers(2, 7), st.integers(1, 7))
def test_nash_agent_vs_task_is_permutation_equivariant(seed, n_agents, n_tasks):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(n_agents, n_tasks))
    rows, cols = _perm(rng, n_agents), _perm(rng, n_tasks)
    base = NashAverager().fit(S)
    moved = NashAverager().fit(S[rows][:, cols])
    assert_allclose(
        moved.agent_distribution_, base.agent_distribution_[rows], atol=1e-7
    )
    assert_allclose(moved.task_distribution_, base.task_distribution_[cols], atol=1e-7)
    assert_allclose(moved.agent_skill_, base.agent_skill_[rows], atol=1e-8)
    assert_allclose(moved.difficulty_, base.difficulty_[cols], atol=1e-8)
    assert moved.value_ == pytest.approx(base.value_, abs=1e-9)


@SETTINGS
@given(seeds, st.integers(2, 8))
def test_nash_agent_vs_agent_is_permutation_equivariant(seed, n):
    rng = np.random.default_rng(seed)
    A = _game(seed, n)
    order = _perm(rng, n)
    base = NashAverager(game="agent_vs_agent").fit(A)
    moved = NashAverager(game="agent_vs_agent").fit(A[order][:, order])
    assert_allclose(
        moved.agent_distribution_, base.agent_distribution_[order], atol=1e-7
    )
    assert_allclose(moved.agent_skill_, base.agent_skill_[order], atol=1e-8)


@SETTINGS
@given(seeds, st.integers(2, 6), st.integers(2, 6))
def test_nash_averages_ignore_a_duplicated_task(seed, n_agents, n_tasks):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(n_agents, n_tasks))
    copy = int(rng.integers(n_tasks))
    base = NashAverager().fit(S)
    dup = NashAverager().fit(np.column_stack([S, S[:, copy]]))
    assert_allclose(dup.agent_skill_, base.agent_skill_, atol=1e-7)
    assert dup.value_ == pytest.approx(base.value_, abs=1e-8)
    assert_allclose(dup.agent_distribution_, base.agent_distribution_, atol=1e-6)
    # the copy splits the task's mass, and the maximum-entropy split is even
    split = dup.task_distribution_[[copy, n_tasks]]
    assert split.sum() == pytest.approx(base.task_distribution_[copy], abs=1e-6)
    assert split[0] == pytest.approx(split[1], abs=1e-6)


@SETTINGS
@given(seeds, st.integers(2, 6), st.integers(2, 6))
def test_nash_task_difficulty_ignores_a_duplicated_agent(seed, n_agents, n_tasks):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(n_agents, n_tasks))
    copy = int(rng.integers(n_agents))
    base = NashAverager().fit(S)
    dup = NashAverager().fit(np.vstack([S, S[copy]]))
    assert_allclose(dup.difficulty_, base.difficulty_, atol=1e-7)
    assert_allclose(dup.agent_skill_[:n_agents], base.agent_skill_, atol=1e-7)
    assert dup.agent_skill_[n_agents] == pytest.approx(
        base.agent_skill_[copy], abs=1e-7
    )


@SETTINGS
@given(seeds, st.integers(3, 8))
def test_nash_agent_vs_agent_ignores_a_duplicated_agent(seed, n):
    A = _game(seed, n)
    copy = int(np.random.default_rng(seed).integers(n))
    index = np.r_[np.arange(n), copy]
    base = NashAverager(game="agent_vs_agent").fit(A)
    dup = NashAverager(game="agent_vs_agent").fit(A[index][:, index])
    assert_allclose(dup.agent_skill_[:n], base.agent_skill_, atol=1e-7)
    mass = dup.agent_distribution_[copy] + dup.agent_distribution_[n]
    assert mass == pytest.approx(base.agent_distribution_[copy], abs=1e-6)


@SETTINGS
@given(seeds, st.integers(2, 7), st.integers(2, 7))
def test_maxent_nash_is_an_equilibrium(seed, n_rows, n_cols):
    M = np.random.default_rng(seed).normal(size=(n_rows, n_cols))
    ne = maxent_nash(M)
    assert ne.row.min() >= -1e-12 and ne.column.min() >= -1e-12
    assert ne.row.sum() == pytest.approx(1.0) and ne.column.sum() == pytest.approx(1.0)
    assert np.max(M @ ne.column) <= ne.value + 1e-8
    assert np.min(ne.row @ M) >= ne.value - 1e-8


@SETTINGS
@given(seeds, st.integers(2, 8))
def test_symmetric_game_value_is_zero_and_averages_nonpositive(seed, n):
    A = _game(seed, n)
    ne = symmetric_maxent_nash(A)
    assert np.max(A @ ne.row) <= 1e-8
    assert ne.row @ A @ ne.row == pytest.approx(0.0, abs=1e-10)


# ---------------------------------------------------------------------------
# Hodge: antisymmetry and orthogonality
# ---------------------------------------------------------------------------
@SETTINGS
@given(seeds, st.integers(2, 9))
def test_hodge_parts_are_antisymmetric_orthogonal_and_add_up(seed, n):
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n))
    A = G - G.T
    h = hodge_decomposition(A)
    assert_allclose(h.transitive, -h.transitive.T, atol=1e-12)
    assert_allclose(h.cyclic, -h.cyclic.T, atol=1e-12)
    assert_allclose(h.transitive + h.cyclic, A, atol=1e-12)
    scale = np.sum(A * A)
    assert abs(np.sum(h.transitive * h.cyclic)) <= 1e-10 * scale
    assert h.transitive_share + h.cyclic_share == pytest.approx(1.0)
    assert_allclose(div(h.cyclic), 0.0, atol=1e-12)
    assert_allclose(rot(A), h.cyclic, atol=1e-12)
    assert_allclose(grad(h.ratings), h.transitive, atol=1e-12)
    order = rng.permutation(n)
    moved = hodge_decomposition(A[order][:, order])
    assert_allclose(moved.ratings, h.ratings[order], atol=1e-12)


@SETTINGS
@given(seeds, st.integers(2, 7), st.integers(5, 60))
def test_win_matrices_are_complementary(seed, n_players, n_matches):
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    X = np.column_stack([first, second])
    y = rng.choice([0.0, 0.5, 1.0], n_matches)
    w = rng.uniform(0.1, 2.0, n_matches)
    wins, counts, players = matches_to_win_matrix(X, y, w)
    assert_allclose(wins + wins.T, counts, atol=1e-12)
    assert_allclose(counts, counts.T)
    assert counts.sum() == pytest.approx(2 * w.sum())
    rates, _, _ = matches_to_win_rate(X, y, w)
    met = counts > 0
    assert_allclose((rates + rates.T)[met], 1.0, atol=1e-12)
    assert np.all((rates[met] >= 0) & (rates[met] <= 1))


# ---------------------------------------------------------------------------
# IRT: item and agent order
# ---------------------------------------------------------------------------
@settings(max_examples=8, deadline=None, derandomize=True)
@given(seeds)
def test_irt_is_invariant_to_item_and_agent_order(seed):
    rng = np.random.default_rng(seed)
    X = make_irt_responses(80, 6, missing_rate=0.1, random_state=int(seed % 2**31))
    items, agents = rng.permutation(6), rng.permutation(80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = IRT2PL(a_prior=(1.0, 2.0)).fit(X)
        moved = IRT2PL(a_prior=(1.0, 2.0)).fit(X[agents][:, items])
    assert_allclose(moved.difficulty_, base.difficulty_[items], rtol=1e-4, atol=1e-4)
    assert_allclose(
        moved.discrimination_, base.discrimination_[items], rtol=1e-4, atol=1e-4
    )
    assert_allclose(moved.abilities_, base.abilities_[agents], atol=1e-4)
    assert moved.log_likelihood_ == pytest.approx(base.log_likelihood_, rel=1e-8)


@SETTINGS
@given(seeds, st.integers(3, 12), st.integers(4, 12))
def test_generality_is_permutation_equivariant(seed, n_agents, n_tasks):
    rng = np.random.default_rng(seed)
    X = (rng.random((n_agents, n_tasks)) < rng.random(n_tasks)).astype(float)
    difficulty = rng.normal(size=n_tasks)  # distinct: no ties
    rows, cols = rng.permutation(n_agents), rng.permutation(n_tasks)
    make = lambda d: GeneralityScorer(difficulty=d, bins=3, min_tasks_per_bin=1)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = make(difficulty).fit(X).transform(X)
        moved = make(difficulty[cols]).fit(X[rows][:, cols]).transform(X[rows][:, cols])
    assert_allclose(moved, base[rows], rtol=1e-10, atol=1e-12, equal_nan=True)


# ---------------------------------------------------------------------------
# Elo: batch fits do not depend on match order
# ---------------------------------------------------------------------------
def _random_matches(rng, n_players, n_matches):
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    X = np.column_stack([first, second]).astype(str)
    y = rng.choice([0.0, 0.5, 1.0], n_matches)
    return X, y


@SETTINGS
@given(seeds, st.integers(2, 8), st.integers(10, 120))
def test_batch_elo_is_invariant_to_match_order(seed, n_players, n_matches):
    rng = np.random.default_rng(seed)
    X, y = _random_matches(rng, n_players, n_matches)
    w = rng.uniform(0.2, 3.0, n_matches)
    order = rng.permutation(n_matches)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = EloRanker(method="batch", alpha=0.05).fit(X, y, sample_weight=w)
        moved = EloRanker(method="batch", alpha=0.05).fit(
            X[order], y[order], sample_weight=w[order]
        )
    assert_allclose(moved.ratings_, base.ratings_, atol=1e-7)
    # anchored: the mean rating is the initial rating
    assert base.ratings_.mean() == pytest.approx(1500.0)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(seeds)
def test_batch_multi_elo_is_invariant_to_match_order(seed):
    rng = np.random.default_rng(seed)
    X, y = _random_matches(rng, 5, 150)
    order = rng.permutation(150)
    base = MultiElo(method="batch", random_state=0).fit(X, y)
    moved = MultiElo(method="batch", random_state=0).fit(X[order], y[order])
    assert_allclose(
        moved.predict_proba(X)[:, 1], base.predict_proba(X)[:, 1], atol=1e-5
    )


@SETTINGS
@given(seeds, st.integers(2, 6), st.integers(5, 50))
def test_online_elo_conserves_rating_points(seed, n_players, n_matches):
    # a zero-sum update: the mean rating never moves (no advantage)
    X, y = _random_matches(np.random.default_rng(seed), n_players, n_matches)
    elo = EloRanker().fit(X, y)
    assert elo.ratings_.mean() == pytest.approx(1500.0)
    proba = elo.predict_proba(X)
    assert_allclose(proba.sum(axis=1), 1.0)
    swapped = elo.predict_proba(X[:, ::-1])
    assert_allclose(swapped[:, 1], proba[:, 0], atol=1e-12)


# ---------------------------------------------------------------------------
# information gain: bounds and invariances
# ---------------------------------------------------------------------------
@SETTINGS
@given(
    seeds, st.integers(2, 10), st.integers(1, 6), st.sampled_from(["sum_std", "pooled"])
)
def test_information_gain_is_between_zero_and_log2_n(seed, n_agents, n_measures, scale):
    rng = np.random.default_rng(seed)
    means = rng.normal(size=(n_agents, n_measures)) * rng.uniform(0.01, 100)
    stds = rng.uniform(1e-3, 3.0, size=(n_agents, n_measures))
    gain = information_gain(means, stds, pair_spread=scale)
    assert 0.0 <= gain <= np.log2(n_agents) + 1e-12
    C = confusion_matrix(means, stds, pair_spread=scale)
    assert_allclose(C.sum(axis=1), 1.0)
    # relabelling the agents changes nothing
    order = rng.permutation(n_agents)
    permuted = information_gain(means[order], stds[order], pair_spread=scale)
    assert permuted == pytest.approx(gain, abs=1e-10)
    # an affine map of the results, spreads scaled alike, changes nothing
    assert information_gain(3.0 * means - 7.0, 3.0 * stds, pair_spread=scale) == (
        pytest.approx(gain, abs=1e-9)
    )


@SETTINGS
@given(seeds, st.integers(3, 8), st.integers(2, 7))
def test_selector_is_task_permutation_equivariant(seed, n_agents, n_tasks):
    rng = np.random.default_rng(seed)
    means = rng.normal(size=(n_agents, n_tasks))
    stds = rng.uniform(0.2, 1.0, size=(n_agents, n_tasks))
    cols = rng.permutation(n_tasks)
    k = min(3, n_tasks)
    base = InfoGainSelector(n_tasks=k, input="agents").fit(means, X_std=stds)
    moved = InfoGainSelector(n_tasks=k, input="agents").fit(
        means[:, cols], X_std=stds[:, cols]
    )
    assert_allclose(moved.information_gain_, base.information_gain_[cols], atol=1e-10)
    assert np.all(base.information_gain_ >= 0)
    assert np.all(base.information_gain_ <= np.log2(n_agents) + 1e-12)
    assert np.all(base.cumulative_gain_ <= np.log2(n_agents) + 1e-12)
    # continuous random data has no ties: the same tasks are picked in order
    assert_allclose(cols[moved.selection_order_], base.selection_order_)
    assert_allclose(moved.cumulative_gain_, base.cumulative_gain_, atol=1e-10)
