"""The maximum-entropy Nash solver is total on degenerate games.

Benchmark data make degenerate games the normal case: 0/1 item matrices with
many identical rows and columns, tied integer scores, 0/1 win rates. Every
valid game must solve (no exception, no fallback warning), with
exploitability <= 1e-9 relative to half the payoff range, masses summing to
1, exact copies sharing their mass to 1e-12, and the entropy of an
independent LP + cvxpy reference (to 1e-7) wherever that reference solves.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.game import (
    NashAverager,
    exploitability,
    maxent_nash,
    symmetric_maxent_nash,
)

from .degenerate_games import (
    DegenerateGame,
    binary_game,
    degenerate_corpus,
    entropy,
    game_payoff,
    integer_game,
    reference_maxent,
    wins_game,
)

TOL = 1e-9


def _half_range(M, symmetric):
    return float(np.abs(M).max()) if symmetric else 0.5 * float(np.ptp(M))


def _solve_strictly(M, symmetric):
    """Solve with every warning an error (no fallback, no numpy warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return symmetric_maxent_nash(M) if symmetric else maxent_nash(M)


def _copies_spread(M, x, axis):
    """Largest mass difference between identical rows (axis 0) or columns."""
    _, group = np.unique(M, axis=axis, return_inverse=True)
    group = group.ravel()
    top = np.full(group.max() + 1, -np.inf)
    low = np.full(group.max() + 1, np.inf)
    np.maximum.at(top, group, x)
    np.minimum.at(low, group, x)
    return float(np.max(top - low))


def _assert_total(M, ne, symmetric):
    half = _half_range(M, symmetric)
    assert ne.method != "lp"
    for x in (ne.row, ne.column):
        assert np.all(np.isfinite(x)) and np.all(x >= 0.0)
        assert x.sum() == pytest.approx(1.0, abs=1e-12)
    assert 0.0 <= ne.exploitability <= TOL * half
    # recomputed independently of the solver's own report
    assert exploitability(M, ne.row, ne.column) <= TOL * half
    assert _copies_spread(M, ne.row, 0) <= 1e-12
    assert _copies_spread(M, ne.column, 1) <= 1e-12
    np.testing.assert_array_equal(ne.row_support, ne.row > 0)


def _unit(M, symmetric):
    if symmetric:
        return M / np.abs(M).max()
    return (M - M.min()) / (0.5 * np.ptp(M)) - 1.0


def _assert_reference_entropy(M, ne, symmetric):
    """Entropy within 1e-7 of the LP + cvxpy reference, where it solves."""
    ref = reference_maxent(_unit(M, symmetric), symmetric=symmetric)
    if ref is None:
        return False
    assert abs(entropy(ne.row) - entropy(ref[0])) <= 1e-7
    assert abs(entropy(ne.column) - entropy(ref[1])) <= 1e-7
    return True


def _check(game, *, reference):
    M = game_payoff(game)
    symmetric = game.kind == "ava"
    if np.ptp(M) == 0:
        return False
    ne = _solve_strictly(M, symmetric)
    _assert_total(M, ne, symmetric)
    return _assert_reference_entropy(M, ne, symmetric) if reference else False


# ------------------------------------------------------------------ corpora
SMALL_CORPUS = degenerate_corpus(40, seed=1, max_rows=200, max_cols=40)


@pytest.mark.parametrize("game", SMALL_CORPUS, ids=[g.name for g in SMALL_CORPUS])
def test_small_degenerate_corpus(game):
    _check(game, reference=True)


@pytest.mark.slow
def test_full_degenerate_corpus_never_fails():
    """500 games, 20-2,000 rows x 5-200 columns (issue 14's acceptance)."""
    games = degenerate_corpus(500, seed=0)
    assert len(games) >= 500
    n_checked = 0
    for game in games:
        M = game_payoff(game)
        small = M.size <= 40_000  # the reference's dense LPs grow fast
        n_checked += _check(game, reference=small)
    assert n_checked >= 250


# ---------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def icar(shared_dir):
    pd = pytest.importorskip("pandas")
    path = shared_dir / "data" / "irt" / "icar_ability_200x16_complete.csv"
    return pd.read_csv(path, index_col=0)


def test_icar_items_solve(icar):
    """200 people x 16 items: Clarabel failed on its equilibrium face."""
    nash = NashAverager().fit(icar)
    S = nash.payoff_
    assert nash.exploitability_ <= TOL * 0.5
    ne = maxent_nash(S)
    _assert_total(S, ne, False)
    assert _assert_reference_entropy(S, ne, False)
    # value 1: everyone who solves all items is in the support, equally
    assert nash.value_ == pytest.approx(1.0)
    perfect = S.min(axis=1) == 1.0
    np.testing.assert_array_equal(nash.agent_support_, perfect)
    np.testing.assert_allclose(nash.agent_distribution_[perfect], 1 / perfect.sum())
    np.testing.assert_allclose(nash.task_distribution_, 1 / 16, atol=1e-12)


@pytest.mark.parametrize("rows", [100, 150, 200])
def test_icar_subsets(icar, rows):
    S = icar.to_numpy()[:rows]
    _assert_total(S, _solve_strictly(S, False), False)


@pytest.fixture(scope="module")
def atlas(shared_dir):
    pd = pytest.importorskip("pandas")
    path = (
        shared_dir
        / "data"
        / "irt"
        / "atlas_openllm_arc_mixtral_family_response_matrix.csv"
    )
    return pd.read_csv(path, index_col=0).to_numpy(dtype=float)


def test_atlas_response_matrix(atlas):
    """320 fine-tunes x 735 ARC items (0/1, near-identical models)."""
    for S in (atlas, atlas.T):
        _assert_total(S, _solve_strictly(S, False), False)


def test_chembench_matrix():
    from sklearn_eval.datasets import load_chembench

    S = load_chembench().data
    _assert_total(S, _solve_strictly(S, False), False)


@pytest.mark.slow
def test_real_matrices_match_the_reference_entropy(atlas):
    from sklearn_eval.datasets import load_chembench

    for S in (atlas, load_chembench().data):
        ne = maxent_nash(S)
        assert _assert_reference_entropy(S, ne, False)


@pytest.mark.parametrize("kind", ["rainbow", "agent57"])
def test_atari_tables(kind):
    from sklearn_eval.datasets import load_atari

    nash = NashAverager(normalize="minmax").fit(load_atari(kind).data)
    S = nash.payoff_
    ne = maxent_nash(S)
    _assert_total(S, ne, False)
    assert _assert_reference_entropy(S, ne, False)


# ------------------------------------------------------------ properties
seeds = st.integers(0, 2**32 - 1)
kinds = st.sampled_from(["binary", "integer", "wins"])


def _small_game(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "wins":
        return DegenerateGame(kind, "ava", wins_game(rng, int(rng.integers(3, 30))))
    m, n = int(rng.integers(3, 60)), int(rng.integers(2, 15))
    make = binary_game if kind == "binary" else integer_game
    return DegenerateGame(kind, "avt", make(rng, m, n))


def _solve_game(M, symmetric):
    return symmetric_maxent_nash(M) if symmetric else maxent_nash(M)


@settings(max_examples=40, deadline=None)
@given(kinds, seeds)
def test_property_exploitability_bound(kind, seed):
    game = _small_game(kind, seed)
    M = game_payoff(game)
    if np.ptp(M) > 0:
        _assert_total(M, _solve_strictly(M, game.kind == "ava"), game.kind == "ava")


@settings(max_examples=30, deadline=None)
@given(kinds, seeds, st.integers(1, 4))
def test_property_copies_share_mass_equally(kind, seed, copies):
    """Duplicating a strategy splits its mass equally between the copies, and
    the merged masses are an equilibrium of the original game. (They are its
    maximum-entropy one only when the equilibrium is unique: copies weigh
    more in the entropy, the paper's invariance caveat.)"""
    game = _small_game(kind, seed)
    M = game_payoff(game)
    symmetric = game.kind == "ava"
    rng = np.random.default_rng(seed)
    k = int(rng.integers(0, M.shape[0]))
    rows = np.r_[np.arange(M.shape[0]), np.full(copies, k)]
    cols = rows if symmetric else np.r_[np.arange(M.shape[1]), [0] * copies]
    ne = _solve_game(M, symmetric)
    ne2 = _solve_game(M[np.ix_(rows, cols)], symmetric)
    np.testing.assert_allclose(ne2.row[rows == k], ne2.row[k], atol=1e-12)
    np.testing.assert_allclose(
        ne2.column[cols == cols[-1]], ne2.column[cols[-1]], atol=1e-12
    )
    merged_p, merged_q = np.bincount(rows, ne2.row), np.bincount(cols, ne2.column)
    half = _half_range(M, symmetric)
    assert exploitability(M, merged_p, merged_q) <= TOL * half
    assert ne2.value == pytest.approx(ne.value, abs=TOL * max(1.0, half))


@settings(max_examples=30, deadline=None)
@given(kinds, seeds)
def test_property_permutation_equivariance(kind, seed):
    game = _small_game(kind, seed)
    M = game_payoff(game)
    symmetric = game.kind == "ava"
    rng = np.random.default_rng(seed)
    pr = rng.permutation(M.shape[0])
    pc = pr if symmetric else rng.permutation(M.shape[1])
    ne, nep = _solve_game(M, symmetric), _solve_game(M[np.ix_(pr, pc)], symmetric)
    np.testing.assert_allclose(nep.row, ne.row[pr], atol=1e-10)
    np.testing.assert_allclose(nep.column, ne.column[pc], atol=1e-10)
    np.testing.assert_array_equal(nep.row_support, ne.row_support[pr])


# ---------------------------------------------------------------- presolve
def test_weakly_dominated_strategies_keep_their_mass():
    # column 0 is weakly dominated for the (minimising) column player, yet
    # every column strategy is optimal: the maximum-entropy one is uniform
    ne = maxent_nash([[1.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(ne.column, [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(ne.row, [1.0, 0.0], atol=1e-12)


def test_strictly_dominated_strategies_get_no_mass():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(6, 5))
    worse = S.min(axis=0) - 1.0  # strictly dominated by every row
    ne = maxent_nash(np.vstack([S, worse]))
    assert ne.row[-1] == 0.0
    np.testing.assert_allclose(ne.row[:-1], maxent_nash(S).row, atol=1e-12)


def test_presolve_merges_copies_exactly():
    from sklearn_eval.game._nash_presolve import expand, presolve

    rng = np.random.default_rng(1)
    base = rng.integers(0, 2, size=(5, 4)).astype(float)
    base[0] = [1.0, 0.0, 1.0, 0.0]  # make the five rows distinct
    base[1] = [0.0, 1.0, 1.0, 1.0]
    base[2] = [1.0, 1.0, 0.0, 0.0]
    base[3] = [0.0, 0.0, 0.0, 1.0]
    base[4] = [1.0, 1.0, 1.0, 1.0]
    base[:, 3] = [0.0, 1.0, 1.0, 0.0, 0.0]  # and the four columns
    M = base[[0, 1, 1, 2, 3, 3, 3, 4]][:, [0, 0, 1, 2, 3, 3]]
    red = presolve(M, symmetric=False)
    assert red.payoff.shape == (5, 4)
    assert sorted(red.row_weights) == [1, 1, 1, 2, 3]
    assert sorted(red.col_weights) == [1, 1, 2, 2]
    np.testing.assert_array_equal(red.payoff[red.row_group][:, red.col_group], M)
    x = rng.dirichlet(np.ones(5))
    full = expand(x, red.row_group, red.row_weights)
    assert full.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(np.bincount(red.row_group, full), x)
    copies = red.row_group == red.row_group[4]
    np.testing.assert_array_equal(full[copies], full[4])


def test_presolve_survives_digest_collisions(monkeypatch):
    """Rows are grouped by a digest and then checked exactly."""
    import sklearn_eval.game._nash_presolve as module

    monkeypatch.setattr(module, "_row_keys", lambda M: np.zeros(M.shape[0], np.int64))
    M = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    red = module.presolve(M, symmetric=False)
    np.testing.assert_array_equal(red.row_weights, [1, 2])  # sorted rows
    np.testing.assert_array_equal(red.payoff[red.row_group][:, red.col_group], M)
