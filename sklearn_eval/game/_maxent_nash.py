"""Exact maximum-entropy Nash equilibria of two-player zero-sum games.

The set of optimal strategies of a zero-sum matrix game is a polytope; Nash
averaging (Balduzzi et al., 2018) needs its maximum-entropy point, which is
unique and treats redundant copies of a strategy alike. The solver:

1. solves the game's linear program with a dense primal-dual interior-point
   method (Mehrotra predictor-corrector on the normal equations, one BLAS
   thread). Its iterates approach the analytic centre of the optimal faces,
   a strictly complementary pair, so they reveal the *maximal supports* (the
   strategies that some optimal strategy plays) directly;
2. on the supports, the optimal set is an affine space cut by the remaining
   inequalities. When the affine space is a point (the equilibrium is
   unique, the generic case) it is solved exactly by least squares;
   otherwise the entropy is maximised over it with an exponential-cone
   solver (cvxpy + Clarabel) in the few free coordinates only, then polished
   by Newton's method;
3. verifies the result (exploitability <= tol). If the supports read from
   the interior point were wrong (near-ties), the least clear strategies are
   flipped one at a time; failing that, scipy's HiGHS simplex gives a vertex
   and the maximal supports come from one extra, exactly homogeneous LP;
4. large games with small supports (mostly transitive ones) are first
   solved on a growing subset of strategies (double oracle).

Exploitability is always computed and reported.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy import linalg
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from ..utils._validation import antisymmetry_excess

__all__ = [
    "NashEquilibrium",
    "exploitability",
    "maxent_nash",
    "symmetric_maxent_nash",
]

_HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
}


class NashEquilibrium(NamedTuple):
    """The maximum-entropy Nash equilibrium of a zero-sum game.

    Attributes
    ----------
    row : ndarray of shape (n_rows,)
        Maximum-entropy optimal strategy of the row (maximising) player.
    column : ndarray of shape (n_columns,)
        Maximum-entropy optimal strategy of the column (minimising) player.
    value : float
        Value of the game, ``row @ payoff @ column``.
    exploitability : float
        ``(max(payoff @ column) - min(payoff.T @ row)) / 2``: the mean gain
        of the two players' best deviations (0 at an exact equilibrium).
    row_support, column_support : ndarray of bool
        Maximal supports: strategies played by some optimal strategy.
    n_iter : int
        Iterations of the first pass (interior-point, or simplex when the
        fallback was used).
    """

    row: np.ndarray
    column: np.ndarray
    value: float
    exploitability: float
    row_support: np.ndarray
    column_support: np.ndarray
    n_iter: int = 0


def exploitability(payoff, row, column):
    """Exploitability of a strategy pair in a zero-sum matrix game.

    The row player maximises ``row @ payoff @ column``. Returns half the
    duality gap, ``(max_i (payoff @ column)_i - min_j (payoff.T @ row)_j) / 2``:
    the mean of what each player gains by deviating to a best response (the
    convention of OpenSpiel's ``exploitability`` for two-player zero-sum
    games). For an antisymmetric payoff and ``row = column = p`` this is
    ``max_i (payoff @ p)_i``.

    Parameters
    ----------
    payoff : array-like of shape (n_rows, n_columns)
    row : array-like of shape (n_rows,)
    column : array-like of shape (n_columns,)

    Returns
    -------
    float
        Non-negative up to rounding for probability vectors.

    Examples
    --------
    >>> from sklearn_eval.game import exploitability
    >>> rps = [[0, 1, -1], [-1, 0, 1], [1, -1, 0]]
    >>> exploitability(rps, [1/3, 1/3, 1/3], [1/3, 1/3, 1/3])
    0.0
    >>> exploitability(rps, [1, 0, 0], [1, 0, 0])
    1.0
    """
    M = np.asarray(payoff, dtype=np.float64)
    p = np.asarray(row, dtype=np.float64)
    q = np.asarray(column, dtype=np.float64)
    return float(0.5 * (np.max(M @ q) - np.min(M.T @ p)))


def _check_payoff(payoff, name="payoff"):
    M = np.asarray(payoff, dtype=np.float64)
    if M.ndim != 2 or 0 in M.shape:
        raise ValueError(f"{name} must be a non-empty 2-D matrix; got {M.shape}.")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    return M


def _solve_lp(M):
    """Value and one optimal pair (p, q) of the game M (row maximises)."""
    m, n = M.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-M.T, np.ones((n, 1))])
    A_eq = np.zeros((1, m + 1))
    A_eq[0, :m] = 1.0
    bounds = [(0.0, None)] * m + [(None, None)]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n),
        A_eq=A_eq,
        b_eq=[1.0],
        bounds=bounds,
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    if res.status != 0:  # pragma: no cover - a finite matrix game always solves
        raise RuntimeError(f"The value LP failed: {res.message}")
    p = np.clip(res.x[:m], 0.0, None)
    q = np.clip(-res.ineqlin.marginals, 0.0, None)
    return p / p.sum(), q / q.sum(), float(res.x[-1]), int(res.nit)


def _ipm_normalized(B, max_iter=100):
    """Dense Mehrotra predictor-corrector for ``min 1^T x : B x >= 1, x >= 0``.

    ``B`` (n x m) must be positive. The dual is ``max 1^T y : B^T y <= 1,
    y >= 0`` with slacks ``z = 1 - B^T y`` and ``s = B x - 1``. Returns
    ``(x, y, log(x / z), log(y / s), n_iter)``: interior-point iterates
    approach the analytic centre of the optimal faces, a strictly
    complementary pair, so ``x_i > z_i`` marks the rows some optimal strategy
    plays (Goldman-Tucker) and likewise ``y_j > s_j`` for the columns; the
    log-ratios say how clearly. The answer only needs to be
    accurate enough to read the supports: it is polished exactly afterwards.
    """
    n, m = B.shape
    scale = 1.0 / float(B.sum(axis=1).max())
    x, z = np.full(m, scale), np.ones(m)
    y, s = np.full(n, scale), np.ones(n)
    best = (x, y, z, s)
    n_iter = 0
    while n_iter < max_iter:
        r_p = B @ x - s - 1.0
        r_d = B.T @ y + z - 1.0
        mu = (x @ z + y @ s) / (m + n)
        residual = max(np.abs(r_p).max(), np.abs(r_d).max())
        if residual < 1e-8:
            best = (x, y, z, s)
            # stop once every strategy is clearly in or out of the supports
            # (before the normal equations become too ill-conditioned)
            if mu < 1e-14 or (
                mu < 1e-9 and min(_separation(x, z), _separation(y, s)) > 1e3
            ):
                break
        elif best[0] is not x and n_iter > 5 and residual > 1e-6 and mu < 1e-9:
            break  # accuracy lost near the end: keep the last accurate iterate
        n_iter += 1
        Dx = x / z
        K = (B * Dx) @ B.T
        K[np.diag_indices_from(K)] += s / y
        try:
            factor = linalg.cho_factor(K, check_finite=False)
        except linalg.LinAlgError:
            K[np.diag_indices_from(K)] += 1e-13 * np.trace(K) / n
            try:
                factor = linalg.cho_factor(K, check_finite=False)
            except linalg.LinAlgError:
                break
        state = (B, x, z, y, s, factor, r_p, r_d)
        dx, dy, dz, ds = _newton_direction(state, -x * z, -y * s)
        a_p = min(1.0, _max_step(x, dx), _max_step(s, ds))
        a_d = min(1.0, _max_step(z, dz), _max_step(y, dy))
        mu_aff = (x + a_p * dx) @ (z + a_d * dz) + (y + a_d * dy) @ (s + a_p * ds)
        sigma = min(1.0, (mu_aff / (m + n) / mu) ** 3)
        target = sigma * mu
        dx, dy, dz, ds = _newton_direction(
            state, target - x * z - dx * dz, target - y * s - dy * ds
        )
        eta = min(1.0 - 1e-12, max(0.95, 1.0 - 100.0 * mu))
        a_p = min(1.0, eta * min(_max_step(x, dx), _max_step(s, ds)))
        a_d = min(1.0, eta * min(_max_step(z, dz), _max_step(y, dy)))
        new = (x + a_p * dx, s + a_p * ds, y + a_d * dy, z + a_d * dz)
        if not all(np.all(v > 0) and np.all(np.isfinite(v)) for v in new):
            break
        x, s, y, z = new
    x, y, z, s = best
    return x, y, np.log(x / z), np.log(y / s), n_iter


def _newton_direction(state, rc_x, rc_y):
    """Primal-dual Newton step from the factorised normal equations."""
    B, x, z, y, s, factor, r_p, r_d = state
    Dx = x / z
    rhs = -r_p + rc_y / y - B @ (Dx * r_d + rc_x / z)
    dy = linalg.cho_solve(factor, rhs, check_finite=False)
    dx = Dx * (B.T @ dy + r_d) + rc_x / z
    return dx, dy, (rc_x - z * dx) / x, (rc_y - s * dy) / y


def _separation(primal, slack):
    """Smallest ratio between the larger and smaller of each pair."""
    return float(np.min(np.maximum(primal, slack) / np.minimum(primal, slack)))


def _max_step(v, dv):
    neg = dv < 0
    if not neg.any():
        return np.inf
    return float(np.min(-v[neg] / dv[neg]))


def _solve_ipm(M):
    """Value, a near-central optimal pair (p, q) and the maximal supports.

    ``M`` is scaled to max|M| = 1; the game is shifted to positive payoffs
    (equilibria are shift-invariant) and solved in the classic normalised
    form ``p = x / sum(x)``, ``v = 1 / sum(x) - shift``.
    """
    transpose = M.shape[0] < M.shape[1]
    G = -M.T if transpose else M
    shift = 1.0 - float(G.min())
    x, y, x_score, y_score, n_iter = _ipm_normalized((G + shift).T)
    p, q = x / x.sum(), y / y.sum()
    v = 1.0 / x.sum() - shift
    if transpose:
        return q, p, -v, n_iter, (y_score, x_score)
    return p, q, v, n_iter, (x_score, y_score)


def _solve_lp_vertex(M):
    p, q, v, n_iter = _solve_lp(M)
    return p, q, v, n_iter, None


def _maximal_support(M, v, candidates):
    """Rows of M played by some optimal row strategy, among ``candidates``.

    Used with the exact value ``v = 0`` of a symmetric game.

    One LP: ``max sum(y)`` s.t. ``(M_c - v)^T x >= 0``, ``0 <= y <= min(x, 1)``
    over the cone ``x >= 0``; ``y_i = 1`` exactly for the rows some optimal
    strategy plays (the cone lets every such row reach ``x_i >= 1`` at once).
    """
    idx = np.flatnonzero(candidates)
    k = idx.size
    D = M[idx] - v
    n = M.shape[1]
    c = np.concatenate([np.zeros(k), -np.ones(k)])
    A_ub = np.block([[-D.T, np.zeros((n, k))], [-np.eye(k), np.eye(k)]])
    bounds = [(0.0, None)] * k + [(0.0, 1.0)]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(n + k),
        bounds=bounds[:k] + bounds[k:] * k,
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    support = np.zeros_like(candidates)
    if res.status != 0:  # pragma: no cover - the cone LP is always feasible
        support[idx] = True
        return support
    support[idx[res.x[k:] > 0.5]] = True
    return support


def _maximal_supports_general(M, row_cand, col_cand):
    """Maximal supports of both players of a general game, in one exact LP.

    The game is shifted to positive payoffs ``M'`` and symmetrised
    (Gale-Kuhn-Tucker): ``z = (x, w, t) >= 0`` with ``M' w <= t``,
    ``M'^T x >= t`` and ``sum(x) <= sum(w)`` is exactly the cone over
    ``{(p, q, v')}`` with ``p``, ``q`` optimal and ``v'`` the shifted value.
    The constraints are homogeneous, so no (inexact) value enters; as in
    :func:`_maximal_support`, ``y <= min(z, 1)`` reaches 1 on every strategy
    some optimal strategy plays.
    """
    Mp = M - float(M.min()) + 1.0
    r_idx, c_idx = np.flatnonzero(row_cand), np.flatnonzero(col_cand)
    kr, kc = r_idx.size, c_idx.size
    m, n = M.shape
    nz = kr + kc + 1
    rows_block = np.zeros((m, nz))
    rows_block[:, kr : kr + kc] = Mp[:, c_idx]
    rows_block[:, -1] = -1.0
    cols_block = np.zeros((n, nz))
    cols_block[:, :kr] = -Mp[r_idx].T
    cols_block[:, -1] = 1.0
    mass = np.concatenate([np.ones(kr), -np.ones(kc), [0.0]])[None, :]
    link = np.hstack([-np.eye(kr + kc), np.zeros((kr + kc, 1))])
    A_ub = np.block(
        [
            [rows_block, np.zeros((m, kr + kc))],
            [cols_block, np.zeros((n, kr + kc))],
            [mass, np.zeros((1, kr + kc))],
            [link, np.eye(kr + kc)],
        ]
    )
    c = np.concatenate([np.zeros(nz), -np.ones(kr + kc)])
    bounds = [(0.0, None)] * nz + [(0.0, 1.0)] * (kr + kc)
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(A_ub.shape[0]),
        bounds=bounds,
        method="highs",
        options=_HIGHS_OPTIONS,
    )
    row_sup, col_sup = row_cand.copy(), col_cand.copy()
    if res.status == 0:
        y = res.x[nz:]
        row_sup[:] = False
        col_sup[:] = False
        row_sup[r_idx[y[:kr] > 0.5]] = True
        col_sup[c_idx[y[kr:] > 0.5]] = True
        if not row_sup.any() or not col_sup.any():  # pragma: no cover - defensive
            return row_cand.copy(), col_cand.copy()
    return row_sup, col_sup


def _null_space(K, rtol=1e-10):
    """Orthonormal basis of the null space of K (SVD with a relative rank cut)."""
    if K.shape[1] == 0:
        return np.zeros((0, 0))
    _, s, Vt = linalg.svd(K, full_matrices=True)
    cut = rtol * max(1.0, float(s[0]) if s.size else 0.0) * max(K.shape)
    rank = int(np.sum(s > cut))
    return Vt[rank:].T


def _maxent_on_face(p0, N, G):
    """Maximise entropy of ``p0 + N w`` subject to ``G (p0 + N w) >= 0``."""
    import cvxpy as cp

    w = cp.Variable(N.shape[1])
    p = p0 + N @ w
    constraints = [p >= 0]
    if G.shape[0]:
        constraints.append(G @ p >= 0)
    problem = cp.Problem(cp.Maximize(cp.sum(cp.entr(p))), constraints)
    with warnings.catch_warnings():
        # accuracy is checked (and polished) below, not taken from cvxpy
        warnings.simplefilter("ignore", UserWarning)
        try:
            problem.solve(
                solver=cp.CLARABEL,
                tol_gap_abs=1e-10,
                tol_gap_rel=1e-10,
                tol_feas=1e-10,
                max_iter=500,
            )
        except cp.error.SolverError:  # pragma: no cover - retried with defaults
            problem.solve(solver=cp.CLARABEL)
    if w.value is None:  # pragma: no cover - the face is non-empty
        return None
    p_ipm = p0 + N @ w.value
    polished = _newton_polish(p_ipm, N, G)
    return p_ipm if polished is None else polished


def _newton_polish(p, N, G, active_tol=1e-7, max_iter=50):
    """Refine an interior-point maxent solution to machine precision.

    The constraints of ``G`` that are (nearly) tight at ``p`` become
    equalities; entropy is then maximised by Newton's method on the
    remaining free coordinates. Returns None when the refined point would
    leave the feasible set (the interior-point answer is kept then).
    """
    if np.any(p <= 0):
        return None
    if G.shape[0]:
        slack = G @ p
        active = slack <= active_tol * max(1.0, float(np.abs(G).max()))
        if active.any():
            GN = G[active] @ N
            shift, *_ = linalg.lstsq(GN, -(G[active] @ p))
            p = p + N @ shift
            N = N @ _null_space(GN)
    if np.any(p <= 0):
        return None
    for _ in range(max_iter):
        if N.shape[1] == 0:
            break
        grad = N.T @ (-np.log(p) - 1.0)
        hess = (N.T / p) @ N
        try:
            step = linalg.solve(hess, grad, assume_a="pos")
        except (linalg.LinAlgError, ValueError):
            return None
        direction = N @ step
        t = 1.0
        while np.any(p + t * direction <= 0):
            t *= 0.5
        p = p + t * direction
        if t == 1.0 and float(grad @ step) < 1e-28:
            break
    if G.shape[0] and np.min(G @ p) < -1e-12 * max(1.0, float(np.abs(G).max())):
        return None
    return p


def _optimal_face(M, v, support, other_support, fixed_value):
    """Maximum-entropy optimal row strategy given the maximal supports.

    On the supports, every optimal ``p`` satisfies ``(M^T p)_j = v`` for the
    columns ``j`` in ``other_support``; the others are inequalities.
    """
    rows = np.flatnonzero(support)
    J = np.flatnonzero(other_support)
    MIJ = M[np.ix_(rows, J)]
    k = rows.size
    if fixed_value:
        K = np.vstack([MIJ.T, np.ones((1, k))])
        rhs = np.zeros(J.size + 1)
        rhs[-1] = 1.0
        z, *_ = linalg.lstsq(K, rhs)
        p_I, value = z, v
        N = _null_space(K)
    else:
        K = np.block([[MIJ.T, -np.ones((J.size, 1))], [np.ones((1, k)), 0.0]])
        rhs = np.zeros(J.size + 1)
        rhs[-1] = 1.0
        z, *_ = linalg.lstsq(K, rhs)
        p_I, value = z[:k], float(z[k])
        N = _null_space(K)[:k]
    if N.shape[1]:
        outside = ~other_support
        G = (M[np.ix_(rows, np.flatnonzero(outside))] - value).T
        solved = _maxent_on_face(p_I, N, G)
        if solved is not None:
            p_I = solved
    p = np.zeros(M.shape[0])
    p[rows] = np.clip(p_I, 0.0, None)
    total = p.sum()
    if not np.isfinite(total) or total <= 0:
        return None, value
    return p / total, value


def _refine(Ms, p0, q0, v, *, tol, symmetric, supports=None):
    """Maximal supports and maximum-entropy strategies from one optimal pair.

    ``supports`` (from the interior-point pass) are used as they are; from a
    simplex vertex they are derived from the tied best responses, with one
    extra LP when the vertex does not play all of them.
    """
    if supports is not None:
        row_sup, col_sup = supports
        if symmetric:
            row_sup = col_sup = row_sup | col_sup
        if not row_sup.any() or not col_sup.any():
            return None, None, row_sup, col_sup
    else:
        row_sup, col_sup = _vertex_supports(Ms, p0, q0, v, tol, symmetric)
    p, _ = _optimal_face(Ms, v, row_sup, col_sup, fixed_value=symmetric)
    if symmetric:
        q = p
    else:
        q, _ = _optimal_face(-Ms.T, -v, col_sup, row_sup, fixed_value=False)
    return p, q, row_sup, col_sup


def _vertex_supports(Ms, p0, q0, v, tol, symmetric):
    row_cand = Ms @ q0 >= v - tol
    row_sup = p0 > tol
    if symmetric:
        if not np.array_equal(row_cand, row_sup):
            row_sup = _maximal_support(Ms, 0.0, row_cand | row_sup)
        return row_sup, row_sup
    col_cand = Ms.T @ p0 <= v + tol
    col_sup = q0 > tol
    if not (np.array_equal(row_cand, row_sup) and np.array_equal(col_cand, col_sup)):
        row_sup, col_sup = _maximal_supports_general(
            Ms, row_cand | row_sup, col_cand | col_sup
        )
    return row_sup, col_sup


def _support_guesses(scores, symmetric, n_flips=4):
    """Supports read from interior-point scores, then single flips of the
    least clear strategies (a near-tie can sit on the wrong side when the
    iterations stop)."""
    row_score, col_score = scores
    if symmetric:
        row_score = col_score = 0.5 * (row_score + col_score)
    base = (row_score > 0, col_score > 0)
    guesses = [base]
    m = row_score.size
    joint = np.abs(row_score) if symmetric else np.abs(np.r_[row_score, col_score])
    for k in np.argsort(joint, kind="stable")[:n_flips]:
        rows, cols = base[0].copy(), base[1].copy()
        if symmetric:
            rows[k] = ~rows[k]
            cols = rows
        elif k < m:
            rows[k] = ~rows[k]
        else:
            cols[k - m] = ~cols[k - m]
        guesses.append((rows, cols))
    return guesses


def _first_pass(Ms, solver, symmetric):
    p0, q0, v, n_iter, supports = solver(Ms)
    if symmetric:
        # both players' optimal sets coincide; the average is more central
        v = 0.0
        p0 = q0 = 0.5 * (p0 + q0)
    return p0, q0, v, n_iter, supports


def _solve_dense(Ms, *, tol, symmetric):
    """Maxent equilibrium of a scaled game: (p, q, row_sup, col_sup, n_iter)."""
    best, fallback = None, None
    # The dense interior-point pass lands near the analytic centre of the
    # optimal faces (supports read off directly); the HiGHS simplex vertex
    # is the fallback.
    for solver in (_solve_ipm, _solve_lp_vertex):
        p0, q0, v, n_iter, scores = _first_pass(Ms, solver, symmetric)
        if not (np.all(np.isfinite(p0)) and np.all(np.isfinite(q0))):
            continue
        gap0 = exploitability(Ms, p0, q0)
        if fallback is None or gap0 < fallback[0]:
            fallback = (gap0, (p0, q0, p0 > tol, q0 > tol, n_iter))
        guesses = [None] if scores is None else _support_guesses(scores, symmetric)
        for supports in guesses:
            p, q, row_sup, col_sup = _refine(
                Ms, p0, q0, v, tol=tol, symmetric=symmetric, supports=supports
            )
            if p is None or q is None:
                continue
            gap = exploitability(Ms, p, q)
            if gap <= tol:
                best = (p, q, row_sup, col_sup, n_iter)
                break
            if gap < fallback[0]:
                fallback = (gap, (p, q, row_sup, col_sup, n_iter))
        if best is not None:
            break
    if best is None:
        warnings.warn(
            "The maximum-entropy refinement did not reach exploitability <= tol; "
            "returning the most accurate equilibrium found, which may not be the "
            "maximum-entropy one.",
            ConvergenceWarning,
            stacklevel=4,
        )
        best = fallback[1]
    return best


_SCREEN_ABOVE = 256
_SCREEN_START = 32


def _solve_screened(Ms, *, tol, symmetric):
    """Solve large games on a growing set of strategies (double oracle).

    The restricted game's maximum-entropy equilibrium, padded with zeros, is
    the full game's as soon as no strategy outside the restricted sets is a
    best response (strict or tied within ``tol``): the full game's optimal
    strategies are then supported inside the sets, where their polytope is
    contained in the restricted one and holds its maximum-entropy point.
    Otherwise every tied strategy and the strongest violators are added.
    Games with small supports (mostly transitive ones) solve in a fraction of
    the time of the full problem; when the sets grow past half the game, the
    full problem is solved directly.
    """
    m, n = Ms.shape
    k0 = min(_SCREEN_START, m, n)
    rows = np.zeros(m, dtype=bool)
    rows[np.argsort(-Ms.mean(axis=1), kind="stable")[:k0]] = True
    if symmetric:
        cols = rows
    else:
        cols = np.zeros(n, dtype=bool)
        cols[np.argsort(Ms.mean(axis=0), kind="stable")[:k0]] = True
    n_iter = 0
    while 2 * rows.sum() <= m and 2 * cols.sum() <= n:
        r_idx, c_idx = np.flatnonzero(rows), np.flatnonzero(cols)
        p_r, q_c, sup_r, sup_c, it = _solve_dense(
            Ms[np.ix_(r_idx, c_idx)], tol=tol, symmetric=symmetric
        )
        n_iter += it
        p, q = np.zeros(m), np.zeros(n)
        p[r_idx], q[c_idx] = p_r, q_c
        v = float(p @ Ms @ q)
        row_gain = np.where(rows, -np.inf, Ms @ q - v)
        col_gain = np.where(cols, -np.inf, v - Ms.T @ p)
        n_violating = int(np.sum(row_gain > tol) + np.sum(col_gain > tol))
        if n_violating > 4 * (rows.sum() + cols.sum()):
            break  # a large support: the full problem is cheaper
        add_rows = _to_add(row_gain, tol, budget=max(16, rows.sum()))
        add_cols = (
            add_rows if symmetric else _to_add(col_gain, tol, max(16, cols.sum()))
        )
        if not add_rows.any() and not add_cols.any():
            row_sup, col_sup = np.zeros(m, dtype=bool), np.zeros(n, dtype=bool)
            row_sup[r_idx], col_sup[c_idx] = sup_r, sup_c
            return p, q, row_sup, col_sup, n_iter
        rows = rows | add_rows
        cols = rows if symmetric else cols | add_cols
    p, q, row_sup, col_sup, it = _solve_dense(Ms, tol=tol, symmetric=symmetric)
    return p, q, row_sup, col_sup, n_iter + it


def _to_add(gain, tol, budget):
    """Strategies to add: every tie within tol, and the largest gains."""
    add = gain >= -tol
    violating = np.flatnonzero(gain > tol)
    if violating.size > budget:
        add[violating] = False
        add[violating[np.argsort(-gain[violating], kind="stable")[: int(budget)]]] = (
            True
        )
    return add


def _solve(M, *, tol, symmetric):
    m, n = M.shape
    scale = float(np.max(np.abs(M)))
    if scale == 0.0:
        p, q = np.full(m, 1.0 / m), np.full(n, 1.0 / n)
        return NashEquilibrium(
            p, q, 0.0, 0.0, np.ones(m, dtype=bool), np.ones(n, dtype=bool)
        )
    Ms = M / scale
    # Oversubscribed BLAS threads are many times slower on shared machines
    # than one thread for these sizes; parallelise across fits (joblib).
    with threadpool_limits(limits=1, user_api="blas"):
        if max(m, n) > _SCREEN_ABOVE:
            solved = _solve_screened(Ms, tol=tol, symmetric=symmetric)
        else:
            solved = _solve_dense(Ms, tol=tol, symmetric=symmetric)
    p, q, row_sup, col_sup, n_iter = solved
    value = float(p @ M @ q)
    return NashEquilibrium(
        p,
        q,
        value,
        max(0.0, exploitability(M, p, q)),
        row_sup.copy(),
        col_sup.copy(),
        int(n_iter),
    )


def maxent_nash(payoff, *, tol=1e-9):
    """Maximum-entropy Nash equilibrium of a two-player zero-sum matrix game.

    The row player picks ``p``, the column player ``q``, and the row player
    receives ``p @ payoff @ q``. Each player's optimal strategies form a
    polytope; this returns the point of maximum entropy in each, which is
    unique, splits mass evenly between exact copies of a strategy, and differs
    from an LP vertex whenever the equilibrium is not unique.

    Parameters
    ----------
    payoff : array-like of shape (n_rows, n_columns)
        Payoff to the row (maximising) player. Finite real numbers.
    tol : float, default=1e-9
        Tolerance, relative to ``max|payoff|``, under which two payoffs count
        as tied when deciding which strategies are best responses, and the
        largest accepted exploitability (a ``ConvergenceWarning`` is raised
        when no solution reaches it).

    Returns
    -------
    NashEquilibrium
        Named tuple ``(row, column, value, exploitability, row_support,
        column_support)``.

    Examples
    --------
    >>> from sklearn_eval.game import maxent_nash
    >>> ne = maxent_nash([[89, 93, 76], [85, 85, 85], [79, 74, 99]])
    >>> ne.row.round(4), ne.column.round(4), round(ne.value, 4)
    (array([0.6061, 0.    , 0.3939]), array([0.697, 0.   , 0.303]), 85.0606)
    >>> ne.exploitability < 1e-9
    True
    """
    M = _check_payoff(payoff)
    return _solve(M, tol=float(tol), symmetric=False)


def symmetric_maxent_nash(payoff, *, tol=1e-9):
    """Maximum-entropy Nash equilibrium of a symmetric zero-sum game.

    For an antisymmetric payoff ``A`` (``A = -A.T``, e.g. ``logit(P)``) the
    value is 0 and the optimal strategies are ``{p in simplex : A p <= 0}``;
    both players play the maximum-entropy one, ``p*`` (Proposition 4 of
    Balduzzi et al., 2018). The Nash average is ``A @ p*``.

    Parameters
    ----------
    payoff : array-like of shape (n, n)
        Antisymmetric payoff (checked to ``1e-8`` relative; symmetrise first
        with ``(A - A.T) / 2`` if needed).
    tol : float, default=1e-9
        Tie tolerance and largest accepted exploitability, relative to
        ``max|payoff|``.

    Returns
    -------
    NashEquilibrium
        With ``row`` and ``column`` both ``p*`` and ``value`` 0 up to
        rounding; ``exploitability`` is ``max_i (A p*)_i``.

    Examples
    --------
    >>> from sklearn_eval.game import symmetric_maxent_nash
    >>> A = [[0.0, 1.5, 0.0], [-1.5, 0.0, 1.5], [0.0, -1.5, 0.0]]
    >>> symmetric_maxent_nash(A).row.round(6)  # an LP vertex gives (1, 0, 0)
    array([0.5, 0. , 0.5])
    """
    M = _check_payoff(payoff)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"payoff must be square; got shape {M.shape}.")
    excess, limit = antisymmetry_excess(M)
    if excess.max() > limit:
        i, j = np.unravel_index(np.argmax(excess), M.shape)
        raise ValueError(
            f"payoff must be antisymmetric; payoff[{i}, {j}] = {M[i, j]} but "
            f"payoff[{j}, {i}] = {M[j, i]}."
        )
    M = 0.5 * (M - M.T)
    return _solve(M, tol=float(tol), symmetric=True)
