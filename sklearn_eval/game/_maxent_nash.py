"""Exact maximum-entropy Nash equilibria of two-player zero-sum games.

The set of optimal strategies of a zero-sum matrix game is a polytope; Nash
averaging (Balduzzi et al., 2018) needs its maximum-entropy point, which is
unique and treats redundant copies of a strategy alike. The solver:

1. works in a safe scale: the payoff is centred and divided by its half
   range (computed without overflow), so any finite input, up to the largest
   double, is solved at unit scale;
2. presolves exactly (:mod:`._nash_presolve`): identical strategies are
   merged with their multiplicity (the entropy becomes
   ``sum P log(k / P)``), strictly dominated strategies are removed;
3. finds the value and the maximal supports with a dense interior-point
   method (HiGHS and an exact support LP as fallback), then the
   maximum-entropy point of each player's optimal face by its smooth dual
   with Newton's method (exponential-cone solvers as fallback), with
   support corrections (:mod:`._nash_solver`, :mod:`._maxent_face`);
4. verifies every answer (exploitability <= tol, mass summing to 1) and,
   when no maximum-entropy step passes, returns the linear program's
   equilibrium with a ``ConvergenceWarning`` saying what was lost;
5. maps back: a merged strategy's mass is split equally over its copies.

Large games with small supports (mostly transitive ones) are first solved on
a growing subset of strategies (double oracle). Exploitability is always
computed and reported.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from ..utils._validation import antisymmetry_excess, asymmetry_cell
from ._nash_presolve import expand, presolve
from ._nash_scaling import antisymmetric_part
from ._nash_solver import game_exploitability, solve_game

__all__ = [
    "NashEquilibrium",
    "exploitability",
    "maxent_nash",
    "symmetric_maxent_nash",
]


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
    method : str
        How the maximum-entropy strategies were obtained: ``"exact"``
        (the optimal faces are points, or the game is constant),
        ``"newton"`` (dual Newton method), ``"clarabel"`` or ``"scs"``
        (exponential-cone fallbacks), or ``"lp"``: every maximum-entropy
        step failed and the linear program's equilibrium was returned (with
        a ``ConvergenceWarning``).
    """

    row: np.ndarray
    column: np.ndarray
    value: float
    exploitability: float
    row_support: np.ndarray
    column_support: np.ndarray
    n_iter: int = 0
    method: str = "exact"


def _unit_scale(M):
    """A power of two ``s`` with ``max|M| / s`` in [1, 2) (1 for M = 0):
    dividing by it is exact and ``s`` itself never overflows."""
    top = float(np.max(np.abs(M)))
    if top == 0.0:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(top)[1]) - 1))


def exploitability(payoff, row, column):
    """Exploitability of a strategy pair in a zero-sum matrix game.

    The row player maximises ``row @ payoff @ column``. Returns half the
    duality gap, ``(max_i (payoff @ column)_i - min_j (payoff.T @ row)_j) / 2``:
    the mean of what each player gains by deviating to a best response (the
    convention of OpenSpiel's ``exploitability`` for two-player zero-sum
    games). For an antisymmetric payoff and ``row = column = p`` this is
    ``max_i (payoff @ p)_i``. Computed at unit scale, so payoffs up to the
    largest double do not overflow.

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
    scale = _unit_scale(M)
    return game_exploitability(M / scale, p, q) * scale


def _check_payoff(payoff, name="payoff"):
    M = np.asarray(payoff, dtype=np.float64)
    if M.ndim != 2 or 0 in M.shape:
        raise ValueError(f"{name} must be a non-empty 2-D matrix; got {M.shape}.")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    return M


def _safe_scale(M, symmetric):
    """Centre, half range and range of the payoffs, computed without overflow.

    An antisymmetric game keeps its centre at 0 (its value). The scaled game
    ``(M - centre) / half`` has entries in [-1, 1] whatever the magnitude of
    the (finite) input.
    """
    hi, lo = float(M.max()), float(M.min())
    if symmetric:
        return 0.0, max(hi, -lo), (lo, hi)
    return 0.5 * hi + 0.5 * lo, 0.5 * hi - 0.5 * lo, (lo, hi)


def _constant_game(m, n, value):
    return NashEquilibrium(
        np.full(m, 1.0 / m),
        np.full(n, 1.0 / n),
        value,
        0.0,
        np.ones(m, dtype=bool),
        np.ones(n, dtype=bool),
    )


def _warn_lp_fallback(gap, stacklevel):
    warnings.warn(
        "No maximum-entropy step (dual Newton, Clarabel, SCS) could be verified "
        "for this game; returning the linear program's Nash equilibrium "
        f"(exploitability {gap:.2g}). It is optimal but not the maximum-entropy "
        "one: the mass among tied, non-identical strategies is arbitrary, so the "
        "invariance to near-copies and the uniqueness of the answer are lost "
        "(exact copies still share equally).",
        ConvergenceWarning,
        stacklevel=stacklevel,
    )


def _solve(M, *, tol, symmetric):
    m, n = M.shape
    centre, half, (lo, hi) = _safe_scale(M, symmetric)
    if half == 0.0:
        return _constant_game(m, n, centre)
    Ms = M / half if centre == 0.0 else (M - centre) / half
    reduced = presolve(Ms, symmetric=symmetric)
    # Oversubscribed BLAS threads are many times slower on shared machines
    # than one thread for these sizes; parallelise across fits (joblib).
    with threadpool_limits(limits=1, user_api="blas"):
        solved = solve_game(
            reduced.payoff,
            reduced.row_weights,
            reduced.col_weights,
            tol=tol,
            symmetric=symmetric,
        )
    p = expand(solved.p, reduced.row_group, reduced.row_weights)
    q = expand(solved.q, reduced.col_group, reduced.col_weights)
    p, q = p / p.sum(), q / q.sum()
    gap = max(0.0, game_exploitability(Ms, p, q))
    if solved.method == "lp":
        _warn_lp_fallback(gap * half, stacklevel=4)
    value = 0.0 if symmetric else centre + half * float(p @ Ms @ q)
    method = "exact" if solved.method == "point" else solved.method
    return NashEquilibrium(
        p,
        q,
        float(np.clip(value, lo, hi)),
        gap * half,
        p > 0,
        q > 0,
        int(solved.n_iter),
        method,
    )


def maxent_nash(payoff, *, tol=1e-9):
    """Maximum-entropy Nash equilibrium of a two-player zero-sum matrix game.

    The row player picks ``p``, the column player ``q``, and the row player
    receives ``p @ payoff @ q``. Each player's optimal strategies form a
    polytope; this returns the point of maximum entropy in each, which is
    unique, splits mass evenly between exact copies of a strategy, and differs
    from an LP vertex whenever the equilibrium is not unique.

    Any finite payoff is accepted (the game is solved at unit scale, so
    magnitudes up to the largest double are fine), and the answer is always
    verified: if no maximum-entropy step reaches ``tol``, the linear
    program's equilibrium is returned with a ``ConvergenceWarning``.

    Parameters
    ----------
    payoff : array-like of shape (n_rows, n_columns)
        Payoff to the row (maximising) player. Finite real numbers.
    tol : float, default=1e-9
        Tolerance, relative to half the payoff range
        ``(max(payoff) - min(payoff)) / 2``, under which two payoffs count
        as tied when deciding which strategies are best responses, and the
        largest accepted exploitability.

    Returns
    -------
    NashEquilibrium
        Named tuple ``(row, column, value, exploitability, row_support,
        column_support, n_iter, method)``.

    Examples
    --------
    >>> from sklearn_eval.game import maxent_nash
    >>> ne = maxent_nash([[89, 93, 76], [85, 85, 85], [79, 74, 99]])
    >>> ne.row.round(4), ne.column.round(4), round(ne.value, 4)
    (array([0.6061, 0.    , 0.3939]), array([0.697, 0.   , 0.303]), 85.0606)
    >>> ne.exploitability < 1e-9
    True

    Identical tasks share their mass equally, and dominated ones get none:

    >>> maxent_nash([[1, 0, 0, 2], [0, 1, 1, 2]]).column.round(4)
    array([0.5 , 0.25, 0.25, 0.  ])
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
        with ``(A - A.T) / 2`` if needed). Any finite magnitude.
    tol : float, default=1e-9
        Tie tolerance and largest accepted exploitability, relative to
        ``max|payoff|``.

    Returns
    -------
    NashEquilibrium
        With ``row`` and ``column`` both ``p*`` and ``value`` 0;
        ``exploitability`` is ``max_i (A p*)_i``.

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
    with np.errstate(over="ignore"):  # |A + A^T| = inf is a clear violation
        excess, limit = antisymmetry_excess(M)
    if excess.max() > limit:
        i, j = np.unravel_index(np.argmax(excess), M.shape)
        raise ValueError(
            f"payoff must be antisymmetric; {asymmetry_cell(M, i, j, 'payoff')}."
        )
    return _solve(antisymmetric_part(M), tol=float(tol), symmetric=True)
