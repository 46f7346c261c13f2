"""Maximum-entropy Nash solver on degenerate games: every solver path agrees.

Integer payoffs with ties have whole faces of equilibria; the solver must
return the maximum-entropy point of each face whichever path it takes (the
interior-point pass, the simplex-vertex fallback with the maximal-support LPs,
or the screened double oracle for large games). The reference is an
independent convex program (cvxpy): maximise the entropy over the optimal set
``{p >= 0, sum p = 1, M^T p >= v}``.
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning

from sklearn_eval.game import _nash_solver as solver_module
from sklearn_eval.game import exploitability, maxent_nash, symmetric_maxent_nash


def _game_value(M):
    m, n = M.shape
    # max v s.t. M^T p >= v, p in the simplex
    c = np.r_[np.zeros(m), -1.0]
    A_ub = np.hstack([-M.T, np.ones((n, 1))])
    A_eq = np.r_[np.ones(m), 0.0][None, :]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    return -res.fun


def _maxent_row(M, slack=1e-9):
    v = _game_value(M)
    p = cp.Variable(M.shape[0], nonneg=True)
    problem = cp.Problem(
        cp.Maximize(cp.sum(cp.entr(p))),
        [cp.sum(p) == 1, M.T @ p >= v - slack],
    )
    problem.solve(solver=cp.CLARABEL)
    return np.asarray(p.value), v


def _degenerate_games():
    games = [
        np.zeros((3, 2)) + np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 2.0]]),
        np.kron(
            np.ones((2, 2)), [[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]]
        ),
        np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]),
        np.eye(3),
    ]
    for seed in range(6):
        rng = np.random.default_rng(seed)
        m, n = rng.integers(2, 6, 2)
        games.append(rng.integers(-1, 2, size=(m, n)).astype(float))
    return games


GAMES = _degenerate_games()


def _entropy(p):
    p = np.clip(p, 0.0, None)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


@pytest.mark.parametrize("k", range(len(GAMES)))
def test_maxent_matches_an_independent_convex_program(k):
    M = GAMES[k]
    ne = maxent_nash(M)
    p_ref, v = _maxent_row(M)
    q_ref, _ = _maxent_row(-M.T)
    assert ne.value == pytest.approx(v, abs=1e-9)
    assert exploitability(M, ne.row, ne.column) <= 1e-8
    # the conic solver is accurate to ~1e-5; the library is exact and at
    # least as entropic on the (exact) optimal set
    assert_allclose(ne.row, p_ref, atol=1e-4)
    assert_allclose(ne.column, q_ref, atol=1e-4)
    assert _entropy(ne.row) >= _entropy(p_ref) - 1e-6
    assert _entropy(ne.column) >= _entropy(q_ref) - 1e-6


def _no_interior_point(M):
    m, n = M.shape
    return np.full(m, np.nan), np.full(n, np.nan), np.nan, 0, None


@pytest.mark.parametrize("k", range(len(GAMES)))
def test_simplex_fallback_gives_the_same_equilibrium(k, monkeypatch):
    M = GAMES[k]
    expected = maxent_nash(M)
    monkeypatch.setattr(solver_module, "solve_ipm", _no_interior_point)
    fallback = maxent_nash(M)
    assert_allclose(fallback.row, expected.row, atol=1e-7)
    assert_allclose(fallback.column, expected.column, atol=1e-7)
    assert_allclose(fallback.row_support, expected.row_support)


@pytest.mark.parametrize("n", [3, 4, 6])
def test_symmetric_fallback_gives_the_same_equilibrium(n, monkeypatch):
    rng = np.random.default_rng(n)
    G = rng.integers(-1, 2, size=(n, n)).astype(float)
    A = G - G.T
    A = np.kron(np.ones((2, 2)), A)  # duplicated agents: a face of equilibria
    expected = symmetric_maxent_nash(A)
    monkeypatch.setattr(solver_module, "solve_ipm", _no_interior_point)
    fallback = symmetric_maxent_nash(A)
    assert_allclose(fallback.row, expected.row, atol=1e-7)
    assert np.max(A @ fallback.row) <= 1e-9


def test_broken_solvers_warn_instead_of_returning_nan(monkeypatch):
    M = GAMES[1]

    def vertex_only(M):
        m, n = M.shape
        return np.full(m, 1.0 / m), np.full(n, 1.0 / n), 0.0, 0, None

    monkeypatch.setattr(solver_module, "solve_ipm", _no_interior_point)
    monkeypatch.setattr(solver_module, "solve_lp_vertex", vertex_only)
    monkeypatch.setattr(solver_module, "_refine", lambda *a, **k: None)
    monkeypatch.setattr(solver_module, "_safe_refine", lambda *a, **k: None)
    with pytest.warns(ConvergenceWarning, match="linear program's Nash equilibrium"):
        ne = maxent_nash(M)
    assert ne.method == "lp"
    assert np.isfinite(ne.row).all() and np.isfinite(ne.column).all()


def test_large_degenerate_game_uses_screening_and_is_exact():
    rng = np.random.default_rng(3)
    small = rng.normal(size=(20, 20))
    # 300 x 300: 15 copies of each strategy, screened then solved
    M = np.kron(np.ones((15, 15)), small)
    ne = maxent_nash(M)
    base = maxent_nash(small)
    assert exploitability(M, ne.row, ne.column) <= 1e-8
    assert ne.value == pytest.approx(base.value, abs=1e-9)
    # copies share their strategy's mass equally (maximum entropy)
    assert_allclose(ne.row.reshape(15, 20).sum(axis=0), base.row, atol=1e-7)
    assert_allclose(ne.row.reshape(15, 20).std(axis=0), 0.0, atol=1e-8)


def test_transitive_large_game_screens_to_a_small_support():
    r = np.linspace(0, 3, 400)
    A = r[:, None] - r[None, :]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ne = symmetric_maxent_nash(A)
    assert ne.row[-1] == pytest.approx(1.0)
    assert ne.row_support.sum() == 1
