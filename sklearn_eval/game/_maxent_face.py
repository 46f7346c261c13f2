"""Maximum-entropy point of one player's optimal face in a zero-sum game.

Given the maximal supports, a player's optimal strategies on its support
``I`` are ``x >= 0`` with ``sum(x) = 1``, the opponent's support columns
``J`` tied (``M[I, j]^T x`` equal for ``j`` in ``J``, the value) and every
other column no better for the opponent. Subtracting the mean of the ``J``
columns makes these homogeneous: ``E^T x = 0`` and ``G^T x >= 0``. The
weighted entropy ``sum_i x_i log(k_i / x_i)`` (``k`` the multiplicities of
merged copies) is maximised over this polytope by, in turn:

1. its smooth dual, ``min logsumexp(log k + B mu + G lam)`` over ``mu`` free
   and ``lam >= 0`` (``B`` an orthonormal basis of ``range(E)``), by a
   projected Newton method with an active set of inequalities; the dual is
   attained on the maximal supports (they hold a strictly feasible point),
   converges quadratically, and ``x = softmax(log k + B mu + G lam)`` is
   positive on the whole support by construction;
2. the primal problem with cvxpy's exponential-cone solvers (Clarabel, then
   SCS) on the same rescaled constraints, projected back onto the equalities.

When the face is a single point, it is solved exactly by least squares.
Callers verify every answer against the game (exploitability and supports).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy import linalg

__all__ = ["FaceSolution", "maxent_on_face"]

# dual gradient (constraint residual) at which Newton stops: the entries of
# B and of the normalised G are O(1) and x sums to 1, so this is absolute
_GRAD_TOL = 1e-14
_ACCEPT_TOL = 1e-11
_RANK_RTOL = 1e-12
_VANISH = 1e-14  # mass (relative to the largest) treated as 0
_FEAS_TOL = 1e-13
_DAMPING_MIN, _DAMPING_MAX = 1e-13, 1e6  # relative to the Hessian's mean diagonal
_MAX_STEP = 30.0  # largest move of a dual variable (x ~ exp(C y)) per step


class FaceSolution(NamedTuple):
    """Maximum-entropy point on a face, and the method that produced it."""

    x: np.ndarray | None
    method: str
    converged: bool


class _Face(NamedTuple):
    log_weights: np.ndarray
    B: np.ndarray  # orthonormal basis of the equality constraints (|I| x r)
    G: np.ndarray  # normalised inequality constraints on the face (|I| x g)


def _constraints(M, rows, eq_cols, symmetric):
    """``E`` (tied columns) and ``G`` (other columns), homogeneous in x."""
    MI = M[rows]
    if symmetric:  # the value is exactly 0
        return MI[:, eq_cols], MI[:, ~eq_cols]
    ref = MI[:, eq_cols].mean(axis=1, keepdims=True)
    return MI[:, eq_cols] - ref, MI[:, ~eq_cols] - ref


def _rank_cut(s, shape):
    return _RANK_RTOL * (s[0] if s.size else 0.0) * max(1.0, np.sqrt(max(shape)))


def _point_face(E, G):
    """``(x, True)`` when ``E^T x = 0, sum(x) = 1`` has a unique solution
    (``x`` None if it is not a feasible strategy), else ``(None, False)``.

    The equilibrium is unique on its supports in generic games: solved
    exactly by least squares.
    """
    n = E.shape[0]
    K = np.vstack([E.T, np.ones((1, n))])
    rhs = np.zeros(K.shape[0])
    rhs[-1] = 1.0
    x, _, _, s = linalg.lstsq(K, rhs, check_finite=False)
    if np.sum(s > _rank_cut(s, K.shape)) < n:
        return None, False
    feasible = (
        np.abs(K @ x - rhs).max() <= 1e-10
        and np.all(x >= -1e-12)
        and (G.shape[1] == 0 or np.all(G.T @ x >= -1e-12))
    )
    return (np.clip(x, 0.0, None) if feasible else None), True


def _face(E, G, weights):
    """The dual's data: an orthonormal basis of the equalities and the
    inequalities projected on their null space, deduplicated, normalised."""
    B = np.zeros((E.shape[0], 0))
    if E.shape[1] and np.any(E):
        U, s, _ = linalg.svd(E, full_matrices=False, check_finite=False)
        B = U[:, s > _rank_cut(s, E.shape)]
    if G.shape[1]:
        G = np.unique(G + 0.0, axis=1)  # repeated constraints
        G = G - B @ (B.T @ G)
        size = np.abs(G).max(axis=0)
        # drop constraints implied by x >= 0, and those that vanish on the
        # equalities' subspace (0 >= 0)
        keep = (size > 1e-12) & (G.min(axis=0) < -_FEAS_TOL * size)
        G = G[:, keep] / size[keep]
    return _Face(np.log(weights), B, G)


def _logsumexp(z):
    top = float(z.max())
    e = np.exp(z - top)
    total = float(e.sum())
    return top + np.log(total), e / total


def _stationarity(y, g, bounded):
    """``y - P[y - g]``: the gradient, with bounded variables held at 0."""
    return np.where(bounded, np.minimum(y, g), g)


def _projected_newton(face_lw, C, y, n_free, max_iter):
    """Minimise ``logsumexp(lw + C y)`` over ``y[n_free:] >= 0``.

    Bertsekas's projected Newton method: the bounded variables within eps of
    0 with a positive gradient are set to 0, Newton steps move the others,
    and an Armijo search runs along the projection arc. The Hessian is
    singular along constant and redundant directions and nearly so along a
    ray where some mass vanishes (a support that is too large): the steps
    are capped and Levenberg-Marquardt damping grows when a step fails, down
    to projected gradient steps, which always descend.
    """
    bounded = np.arange(y.size) >= n_free
    f, x = _logsumexp(face_lw + C @ y)
    g = C.T @ x
    damping = _DAMPING_MIN
    for _ in range(max_iter):
        w = _stationarity(y, g, bounded)
        w_norm = float(np.abs(w).max()) if w.size else 0.0
        if w_norm <= _GRAD_TOL:
            break
        active = bounded & (y <= min(1e-3, w_norm)) & (g > 0)
        free = ~active
        Cf = C[:, free]
        H = (Cf.T * x) @ Cf - np.outer(g[free], g[free])
        size = max(1e-12, float(np.trace(H)) / max(1, H.shape[0]))
        while damping <= _DAMPING_MAX:
            step = _damped_step(H, g, y, free, active, damping * size)
            moved = _line_search(face_lw, C, y, f, g, step, bounded, w_norm)
            if moved is not None:
                damping = max(_DAMPING_MIN, damping * 1e-2)
                break
            damping *= 1e3
        if moved is None:
            break  # no decrease left at double precision
        y, f, x, g = moved
        if f < -1e-9:
            break  # below the entropy's minimum, 0: the face is empty
    w = _stationarity(y, g, bounded)
    return y, x, float(np.abs(w).max()) if w.size else 0.0


def _damped_step(H, g, y, free, active, damping):
    """Damped Newton step on the free variables; active ones go to 0."""
    K = H.copy()
    K[np.diag_indices_from(K)] += damping
    d = np.zeros_like(y)
    try:
        d[free] = -np.linalg.solve(K, g[free])
    except np.linalg.LinAlgError:
        d[free] = -g[free]
    top = float(np.abs(d[free]).max()) if free.any() else 0.0
    if top > _MAX_STEP:
        d[free] *= _MAX_STEP / top
    d[active] = -y[active]
    return d


def _line_search(face_lw, C, y, f, g, d, bounded, w_norm):
    """Armijo search along the projection arc; ``(y, f, x, g)`` or None."""
    # near the optimum the decrease of f drowns in its rounding: judge steps
    # by the stationarity measure instead
    near = abs(float(g @ d)) <= 1e-11 * (1.0 + abs(f))
    t = 1.0
    for _ in range(30):
        y_new = y + t * d
        y_new[bounded] = np.maximum(y_new[bounded], 0.0)
        f_new, x_new = _logsumexp(face_lw + C @ y_new)
        g_new = C.T @ x_new
        if near:
            w_new = _stationarity(y_new, g_new, bounded)
            ok = float(np.abs(w_new).max()) < w_norm
        else:
            ok = f_new <= f + 1e-4 * float(g @ (y_new - y))
        if ok and np.isfinite(f_new):
            return y_new, f_new, x_new, g_new
        t *= 0.5
    return None


def _dual_newton(face, max_iter=200, max_rounds=50):
    """Dual Newton with an active set of inequalities; ``(x, converged)``.

    On a wrong support guess the dual is unbounded; the iterates then
    overflow or stall, which the caller's verification rejects, so floating
    point warnings on the way are silenced.
    """
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        return _dual_active_set(face, max_iter, max_rounds)


def _dual_active_set(face, max_iter, max_rounds):
    B, G = face.B, face.G
    r = B.shape[1]
    working = np.zeros(G.shape[1], dtype=bool)
    lam = np.zeros(G.shape[1])
    mu = np.zeros(r)
    x, pg_norm = None, np.inf
    for _ in range(max_rounds):
        C = np.hstack([B, G[:, working]])
        y0 = np.concatenate([mu, lam[working]])
        y, x, pg_norm = _projected_newton(face.log_weights, C, y0, r, max_iter)
        if not np.all(np.isfinite(x)):
            return None, False
        mu, lam[working] = y[:r], y[r:]
        slack = G.T @ x
        violated = ~working & (slack < -_FEAS_TOL)
        if not violated.any():
            break
        worst = np.flatnonzero(violated)
        worst = worst[np.argsort(slack[worst], kind="stable")[: max(8, r)]]
        working[worst] = True
    else:
        return x, False
    return x, pg_norm <= _ACCEPT_TOL


def _maxent_cvxpy(face, solver):
    """The primal problem with a conic solver; None if it fails."""
    import cvxpy as cp

    n = face.log_weights.size
    x = cp.Variable(n)
    constraints = [cp.sum(x) == 1, x >= 0]
    if face.B.shape[1]:
        constraints.append(face.B.T @ x == 0)
    if face.G.shape[1]:
        constraints.append(face.G.T @ x >= 0)
    objective = cp.Maximize(cp.sum(cp.entr(x)) + face.log_weights @ x)
    options = {
        "CLARABEL": {
            "tol_gap_abs": 1e-12,
            "tol_gap_rel": 1e-12,
            "tol_feas": 1e-12,
            "max_iter": 500,
        },
        "SCS": {"eps_abs": 1e-10, "eps_rel": 1e-10, "max_iters": 100_000},
    }[solver]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # accuracy is verified by the caller
        try:
            cp.Problem(objective, constraints).solve(solver=solver, **options)
        except (cp.error.SolverError, ValueError, ArithmeticError):
            return None
    if x.value is None or not np.all(np.isfinite(x.value)):
        return None
    # back onto the equalities (B is orthonormal), then into the simplex
    z = np.asarray(x.value, dtype=np.float64)
    z = np.clip(z - face.B @ (face.B.T @ z), 0.0, None)
    total = z.sum()
    return z / total if total > 0 else None


def _clean(x):
    """Zero the mass that vanished (below rounding) and renormalise."""
    if x is None or not np.all(np.isfinite(x)):
        return None
    x = np.where(x > _VANISH * max(float(x.max()), 0.0), x, 0.0)
    total = x.sum()
    return x / total if total > 0 else None


def maxent_on_face(M, rows, eq_cols, weights, *, symmetric, methods):
    """Maximum-weighted-entropy optimal strategy of the row player on a face.

    Parameters
    ----------
    M : ndarray of shape (m, n)
        Scaled payoff (row player maximises).
    rows : ndarray of int
        The row player's support.
    eq_cols : ndarray of bool of shape (n,)
        The opponent's support: columns tied at the value for every optimal
        row strategy.
    weights : ndarray of shape (m,)
        Multiplicity of each row.
    symmetric : bool
        The value is exactly 0 (an antisymmetric game).
    methods : sequence of {"newton", "clarabel", "scs"}
        Methods tried in turn after the exact point-face shortcut.

    Returns
    -------
    FaceSolution
        ``x`` on ``rows`` (None if every method failed), the method used and
        whether it reported convergence.
    """
    E, G = _constraints(M, rows, eq_cols, symmetric)
    x, is_point = _point_face(E, G)
    if is_point:
        x = _clean(x)
        return FaceSolution(x, "point", x is not None)
    face = _face(E, G, weights[rows])
    ones = np.full(rows.size, 1.0 / np.sqrt(rows.size))
    if np.linalg.norm(ones - face.B @ (face.B.T @ ones)) <= 1e-9:
        # the equalities force sum(x) = 0: a wrong support guess
        return FaceSolution(None, "none", False)
    first = FaceSolution(None, "none", False)
    for method in methods:
        if method == "newton":
            x, converged = _dual_newton(face)
        else:
            x = _maxent_cvxpy(face, method.upper())
            converged = x is not None
        x = _clean(x)
        if x is not None and converged:
            return FaceSolution(x, method, True)
        if x is not None and first.x is None:
            first = FaceSolution(x, method, False)
    return first
