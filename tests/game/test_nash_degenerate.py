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
import pandas as pd
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


def _gap_bound(M, half):
    """TOL of the half range, plus the rounding of payoffs of M's size: a
    constant game (half range 0) has every strategy at exploitability 0 up
    to a few ulps of its payoffs (5.6e-17 for ones)."""
    return TOL * half + 8.0 * np.finfo(np.float64).eps * float(np.abs(M).max())


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
    assert 0.0 <= ne.exploitability <= _gap_bound(M, half)
    # recomputed independently of the solver's own report
    assert exploitability(M, ne.row, ne.column) <= _gap_bound(M, half)
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
    """500 games, 20-2,000 rows x 5-200 columns, every one solved.

    User guide, Nash averaging: "Exact, not approximate".
    """
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
    assert exploitability(M, merged_p, merged_q) <= _gap_bound(M, half)
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


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(1, 40), st.integers(1, 12), st.integers(1, 3))
def test_property_presolve_maps_back_exactly(seed, m, n, levels):
    """Whatever the copies (none, some, all), the reduced game indexed by the
    groups is the original game, and the weights count the copies."""
    from sklearn_eval.game._nash_presolve import presolve

    rng = np.random.default_rng(seed)
    M = rng.integers(0, levels + 1, size=(m, n)).astype(float)
    for symmetric, G in ((False, M), (True, M[:, :m] - M[:, :m].T if n >= m else None)):
        if G is None:
            continue
        red = presolve(G, symmetric=symmetric)
        np.testing.assert_array_equal(red.payoff[red.row_group][:, red.col_group], G)
        np.testing.assert_array_equal(np.bincount(red.row_group), red.row_weights)
        np.testing.assert_array_equal(np.bincount(red.col_group), red.col_weights)
        assert np.unique(red.payoff, axis=0).shape[0] == red.payoff.shape[0]


def test_distinct_binary_strategies_are_not_reordered():
    """All rows and columns distinct, but their first entries collide (0/1):
    the presolve must keep the game as it is (a regression)."""
    rng = np.random.default_rng(0)
    theta, b = rng.normal(size=(400, 1)), rng.normal(size=(1, 30))
    X = (rng.random((400, 30)) < 1 / (1 + np.exp(-(theta - b)))) * 1.0
    X = np.unique(np.unique(X, axis=0), axis=1)
    X = X[rng.permutation(X.shape[0])][:, rng.permutation(X.shape[1])]
    _assert_total(X, _solve_strictly(X, False), False)


def test_presolve_survives_digest_collisions(monkeypatch):
    """Rows are grouped by a digest and then checked exactly."""
    import sklearn_eval.game._nash_presolve as module

    monkeypatch.setattr(module, "_row_keys", lambda M: np.zeros(M.shape[0], np.int64))
    M = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    red = module.presolve(M, symmetric=False)
    np.testing.assert_array_equal(red.row_weights, [1, 2])  # sorted rows
    np.testing.assert_array_equal(red.payoff[red.row_group][:, red.col_group], M)


# ------------------------------------------------------------- face step
def _face_solution(M, eq_cols, weights, methods, symmetric=True):
    from sklearn_eval.game._maxent_face import maxent_on_face

    rows = np.arange(M.shape[0])
    return maxent_on_face(
        M, rows, np.asarray(eq_cols), weights, symmetric=symmetric, methods=methods
    )


@pytest.mark.parametrize("method", ["newton", "clarabel", "scs"])
def test_face_step_with_an_active_inequality(method):
    """max H(x) over the simplex with x1 >= 2 x2: the constraint is active,
    x = (2a, a, 1 - 3a) with ((1 - 3a) / a)^3 = 4."""
    a = 1.0 / (3.0 + 4.0 ** (1.0 / 3.0))
    face = _face_solution(
        np.array([[1.0], [-2.0], [0.0]]), [False], np.ones(3), (method,)
    )
    assert face.method == method and face.converged
    atol = 1e-12 if method == "newton" else 1e-6
    np.testing.assert_allclose(face.x, [2 * a, a, 1 - 3 * a], atol=atol)


def test_face_step_weights_are_multiplicities():
    """max sum x log(k / x) over the simplex is x = k / sum(k)."""
    k = np.array([1.0, 2.0, 5.0])
    face = _face_solution(np.zeros((3, 1)), [True], k, ("newton",))
    np.testing.assert_allclose(face.x, k / k.sum(), atol=1e-14)


def test_face_step_rejects_an_empty_face():
    # x1 - x2 = 0 and x1 + x2 = 0 leave only x = 0
    face = _face_solution(
        np.array([[1.0, 1.0], [-1.0, 1.0]]), [True, True], np.ones(2), ("newton",)
    )
    assert face.x is None


# --------------------------------------------------------- fallback chain
# the row player's optimal set is {p : p1 >= 2 p2} (rows 2 and 3 are copies):
# its maximum-entropy point lies on that facet, p = (2a, a, c, c) with
# c = 4^(1/3) a; the column player must play the zero column
CHAIN_GAME = np.array([[1.0, 0.0], [-2.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
_A = 1.0 / (3.0 + 2.0 * 4.0 ** (1.0 / 3.0))
CHAIN_ROW = np.array([2 * _A, _A, 4 ** (1 / 3) * _A, 4 ** (1 / 3) * _A])


def _disable(monkeypatch, *names):
    import sklearn_eval.game._maxent_face as face

    def fail_newton(face_):
        return None, False

    real_cvxpy = face._maxent_cvxpy

    def cvxpy_without(face_, solver):
        return None if solver.lower() in names else real_cvxpy(face_, solver)

    if "newton" in names:
        monkeypatch.setattr(face, "_dual_newton", fail_newton)
    monkeypatch.setattr(face, "_maxent_cvxpy", cvxpy_without)


@pytest.mark.parametrize(
    "disabled, expected",
    [((), "newton"), (("newton",), "clarabel"), (("newton", "clarabel"), "scs")],
)
def test_each_fallback_gives_the_maximum_entropy_equilibrium(
    monkeypatch, disabled, expected
):
    _disable(monkeypatch, *disabled)
    ne = maxent_nash(CHAIN_GAME)
    assert ne.method == expected
    assert ne.exploitability <= TOL
    atol = 1e-12 if expected == "newton" else 1e-6
    np.testing.assert_allclose(ne.row, CHAIN_ROW, atol=atol)
    np.testing.assert_allclose(ne.column, [0.0, 1.0], atol=atol)


def test_last_resort_is_the_lp_equilibrium_with_a_warning(monkeypatch):
    from sklearn.exceptions import ConvergenceWarning

    _disable(monkeypatch, "newton", "clarabel", "scs")
    with pytest.warns(ConvergenceWarning) as record:
        ne = maxent_nash(CHAIN_GAME)
    message = str(record[0].message)
    assert "not the maximum-entropy one" in message
    assert "exact copies still share equally" in message
    assert ne.method == "lp"
    assert ne.exploitability <= TOL
    np.testing.assert_allclose(ne.row.sum(), 1.0)
    # rows 2 and 3 are copies: merged before solving, so still equal
    assert ne.row[2] == ne.row[3]


@pytest.mark.parametrize("failure", ["nan", "raises"])
def test_broken_interior_point_falls_back_to_the_simplex(monkeypatch, failure):
    import sklearn_eval.game._nash_solver as solver

    def garbage(M):
        m, n = M.shape
        if failure == "raises":
            raise np.linalg.LinAlgError("not positive definite")
        return (
            np.full(m, np.nan),
            np.full(n, np.nan),
            np.nan,
            0,
            (np.ones(m), np.ones(n)),
        )

    expected = maxent_nash(ICAR_LIKE)
    monkeypatch.setattr(solver, "solve_ipm", garbage)
    ne = maxent_nash(ICAR_LIKE)
    assert ne.method != "lp"
    np.testing.assert_allclose(ne.row, expected.row, atol=1e-10)
    np.testing.assert_allclose(ne.column, expected.column, atol=1e-10)


ICAR_LIKE = binary_game(np.random.default_rng(7), 120, 12)


# ------------------------------------------------------ finite but huge
BIG = np.finfo(np.float64).max
APPENDIX_A = np.array([[89.0, 93.0, 76.0], [85.0, 85.0, 85.0], [79.0, 74.0, 99.0]])
CYCLE = np.array([[0.0, 1.5, 0.0], [-1.5, 0.0, 1.5], [0.0, -1.5, 0.0]])


@pytest.mark.parametrize("scale", [1e154, 1e300, BIG / 100])
def test_huge_payoffs_solve_at_a_safe_scale(scale):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ne, base = maxent_nash(APPENDIX_A * scale), maxent_nash(APPENDIX_A)
        sym, sym_base = (
            symmetric_maxent_nash(CYCLE * scale),
            symmetric_maxent_nash(CYCLE),
        )
    np.testing.assert_allclose(ne.row, base.row, atol=1e-12)
    np.testing.assert_allclose(ne.column, base.column, atol=1e-12)
    assert ne.value == pytest.approx(base.value * scale, rel=1e-12)
    assert 0.0 <= ne.exploitability <= TOL * scale
    np.testing.assert_allclose(sym.row, sym_base.row, atol=1e-12)
    assert np.isfinite(exploitability(APPENDIX_A * scale, ne.row, ne.column))


def test_payoffs_spanning_the_whole_double_range():
    S = np.array([[BIG, -BIG, 0.0], [-BIG, BIG, 0.0], [0.5 * BIG, -0.5 * BIG, -BIG]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ne = maxent_nash(S)
        ref = maxent_nash(S / BIG)
    np.testing.assert_allclose(ne.row, ref.row, atol=1e-12)
    np.testing.assert_allclose(ne.column, ref.column, atol=1e-12)
    assert np.isfinite(ne.value) and np.isfinite(ne.exploitability)


@pytest.mark.parametrize("normalize", [None, "minmax", "zscore"])
def test_nash_averager_agent_vs_task_with_huge_scores(normalize):
    X = np.array(
        [[BIG, -BIG, 0.3 * BIG], [-BIG, BIG, 0.0], [0.5 * BIG, 0.5 * BIG, -BIG]]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nash = NashAverager(normalize=normalize).fit(X)
        small = NashAverager(normalize=normalize).fit(X / BIG)
    for name in ("agent_distribution_", "task_distribution_"):
        np.testing.assert_allclose(
            getattr(nash, name), getattr(small, name), atol=1e-12
        )
    for name in ("agent_skill_", "difficulty_", "value_", "exploitability_"):
        assert np.all(np.isfinite(getattr(nash, name)))
    factor = BIG if normalize is None else 1.0
    np.testing.assert_allclose(
        nash.agent_skill_, small.agent_skill_ * factor, rtol=1e-12, atol=1e-12 * factor
    )
    np.testing.assert_allclose(
        nash.transform(X).ravel(), nash.agent_skill_, rtol=1e-12, atol=1e-12 * factor
    )


def test_nash_averager_agent_vs_agent_with_huge_logits():
    A = np.array([[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]]) * BIG
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nash = NashAverager(game="agent_vs_agent").fit(A)
    np.testing.assert_allclose(nash.agent_distribution_, [1 / 3] * 3, atol=1e-12)
    assert np.all(np.isfinite(nash.agent_skill_))
    with pytest.raises(ValueError, match="A\\[i, j\\] = -A\\[j, i\\]"):
        bad = A.copy()
        bad[0, 1] = -BIG  # A + A^T overflows: still a clear antisymmetry error
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            NashAverager(game="agent_vs_agent").fit(bad)


def test_transform_beyond_the_double_range_is_a_clear_error():
    nash = NashAverager(normalize="minmax").fit([[0.0, 1.0], [1e-300, 0.0]])
    with pytest.raises(ValueError, match="too large"):
        nash.transform([[1e300, 0.0]])
