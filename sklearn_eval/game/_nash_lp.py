"""Linear-programming passes of the zero-sum game solver.

The value of a game and its *maximal supports* (the strategies that some
optimal strategy plays) come from a dense primal-dual interior-point method
whose iterates approach the analytic centre of the optimal faces, a strictly
complementary pair (Goldman-Tucker), so the supports can be read off them.
HiGHS (scipy) gives a vertex and, with one extra exactly homogeneous LP, the
maximal supports when the interior-point reading is in doubt.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.optimize import linprog

__all__ = [
    "maximal_support",
    "maximal_supports_general",
    "solve_ipm",
    "solve_lp",
    "solve_lp_vertex",
    "solve_lp_vertex_default",
]

HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
}


def solve_lp(M, options=HIGHS_OPTIONS):
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
        options=options,
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


def solve_ipm(M):
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


def solve_lp_vertex(M):
    p, q, v, n_iter = solve_lp(M)
    return p, q, v, n_iter, None


def solve_lp_vertex_default(M):
    """HiGHS at its default tolerances: the last resort of the first pass."""
    p, q, v, n_iter = solve_lp(M, options={})
    return p, q, v, n_iter, None


def maximal_support(M, v, candidates):
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
        options=HIGHS_OPTIONS,
    )
    support = np.zeros_like(candidates)
    if res.status != 0:  # pragma: no cover - the cone LP is always feasible
        support[idx] = True
        return support
    support[idx[res.x[k:] > 0.5]] = True
    return support


def maximal_supports_general(M, row_cand, col_cand):
    """Maximal supports of both players of a general game, in one exact LP.

    The game is shifted to positive payoffs ``M'`` and symmetrised
    (Gale-Kuhn-Tucker): ``z = (x, w, t) >= 0`` with ``M' w <= t``,
    ``M'^T x >= t`` and ``sum(x) <= sum(w)`` is exactly the cone over
    ``{(p, q, v')}`` with ``p``, ``q`` optimal and ``v'`` the shifted value.
    The constraints are homogeneous, so no (inexact) value enters; as in
    :func:`maximal_support`, ``y <= min(z, 1)`` reaches 1 on every strategy
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
        options=HIGHS_OPTIONS,
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
