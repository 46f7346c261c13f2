"""Maximum-entropy equilibrium of a scaled, presolved zero-sum game.

The chain, each step verified before it is accepted:

1. strictly dominated strategies are removed (exact for the maximum-entropy
   equilibrium of the game being solved);
2. candidate maximal supports come from the interior-point pass (plus single
   flips of its least clear strategies), then from a HiGHS vertex and one
   exact LP;
3. on a candidate, each player's maximum-entropy strategy is computed on its
   face (:func:`maxent_on_face`: exact point, dual Newton, then Clarabel,
   then SCS). The candidate is certified when the pair is optimal and
   strictly complementary on it. Otherwise, if the pair is optimal, its
   supports bound the maximal ones from both sides, which gives each
   player's optimal set exactly (:func:`_safe_refine`), whatever the guess;
4. an answer is accepted when its exploitability is within ``tol``; if none
   is, the most accurate linear-programming equilibrium is returned, flagged
   ``"lp"`` (the caller warns).

Large games with small supports are first solved on a growing subset of
strategies (double oracle).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._maxent_face import maxent_on_face
from ._nash_lp import (
    maximal_support,
    maximal_supports_general,
    solve_ipm,
    solve_lp_vertex,
    solve_lp_vertex_default,
)
from ._nash_presolve import undominated

__all__ = ["Solved", "solve_game", "game_exploitability"]

# face methods, tried as successive tiers over all candidate supports
_TIERS = (("newton",), ("clarabel", "scs"))
_RANK = {"point": 0, "newton": 1, "clarabel": 2, "scs": 3, "lp": 4}
_SUPPORT_FLOOR = 1e-10
_SCREEN_ABOVE = 256
_SCREEN_START = 32


class Solved(NamedTuple):
    p: np.ndarray
    q: np.ndarray
    n_iter: int
    method: str  # "point", "newton", "clarabel", "scs" or "lp"
    supports: str  # where the accepted supports came from: "ipm", "highs", "lp"


def game_exploitability(M, p, q):
    return float(0.5 * (np.max(M @ q) - np.min(M.T @ p)))


def _worse(a, b):
    return a if _RANK[a] >= _RANK[b] else b


# ------------------------------------------------------------- supports
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


def _vertex_supports(Ms, p0, q0, v, tol, symmetric):
    """Maximal supports from a simplex vertex: its tied best responses, with
    one exact LP when the vertex does not play all of them."""
    row_cand = Ms @ q0 >= v - tol
    row_sup = p0 > tol
    if symmetric:
        if not np.array_equal(row_cand, row_sup):
            row_sup = maximal_support(Ms, 0.0, row_cand | row_sup)
        return row_sup, row_sup
    col_cand = Ms.T @ p0 <= v + tol
    col_sup = q0 > tol
    if not (np.array_equal(row_cand, row_sup) and np.array_equal(col_cand, col_sup)):
        row_sup, col_sup = maximal_supports_general(
            Ms, row_cand | row_sup, col_cand | col_sup
        )
    return row_sup, col_sup


class _FirstPass(NamedTuple):
    source: str
    p: np.ndarray
    q: np.ndarray
    n_iter: int
    guesses: list


def _first_passes(Ms, tol, symmetric):
    """Interior point first, HiGHS (computed only when needed) second, HiGHS
    at default tolerances if neither produced an optimal pair."""
    solvers = (
        ("ipm", solve_ipm),
        ("highs", solve_lp_vertex),
        ("highs", solve_lp_vertex_default),
    )
    produced = False
    for k, (source, solver) in enumerate(solvers):
        if k == 2 and produced:
            return
        try:
            p0, q0, v, n_iter, scores = solver(Ms)
        except (np.linalg.LinAlgError, ValueError, RuntimeError):
            continue
        if symmetric:
            # both players' optimal sets coincide; the average is more central
            v, p0 = 0.0, 0.5 * (p0 + q0)
            q0 = p0
        if not (np.all(np.isfinite(p0)) and np.all(np.isfinite(q0))):
            continue
        if scores is not None:
            guesses = _support_guesses(scores, symmetric)
        else:
            guesses = [_vertex_supports(Ms, p0, q0, v, tol, symmetric)]
        guesses = [(r, c) for r, c in guesses if r.any() and c.any()]
        produced = True
        yield _FirstPass(source, p0, q0, n_iter, guesses)


# ----------------------------------------------------------------- faces
def _face(cache, side, M, support, eq, weights, symmetric, methods):
    """maxent_on_face, memoised over a dense solve (support corrections and
    support guesses revisit the same faces)."""
    key = (side, support.tobytes(), eq.tobytes(), methods)
    if key not in cache:
        cache[key] = maxent_on_face(
            M,
            np.flatnonzero(support),
            eq,
            weights,
            symmetric=symmetric,
            methods=methods,
        )
    return cache[key]


def _solve_faces(Ms, wr, wc, faces, symmetric, methods, cache):
    """Maximum-entropy strategies of both players on given faces.

    ``faces = (rows, row_eq, cols, col_eq)``: the row player's support and
    the columns it keeps tied, then the same for the column player.
    """
    rows, row_eq, cols, col_eq = faces
    fx = _face(cache, "row", Ms, rows, row_eq, wr, symmetric, methods)
    if fx.x is None:
        return None
    p = np.zeros(Ms.shape[0])
    p[rows] = fx.x
    p = _drop_vanishing(p)
    if symmetric:
        return p, p, fx.method, fx.converged
    fy = _face(cache, "column", -Ms.T, cols, col_eq, wc, False, methods)
    if fy.x is None:
        return None
    q = np.zeros(Ms.shape[1])
    q[cols] = fy.x
    q = _drop_vanishing(q)
    return p, q, _worse(fx.method, fy.method), fx.converged and fy.converged


def _drop_vanishing(x):
    x = np.where(_support(x), x, 0.0)
    return x / x.sum()


def _support(x):
    # mass this small is a dual ray (a strategy outside the maximal support,
    # whose mass only decays), not a maximum-entropy share
    return x > _SUPPORT_FLOOR * x.max()


def _support_bounds(Ms, p, q, tol, symmetric):
    """Bounds on the maximal supports from one optimal pair ``(p, q)``.

    A strategy an optimal strategy plays is in the maximal support; one in
    the maximal support is a best response to every optimal opponent
    strategy. So ``supp(p) <= I_max <= {i : (M q)_i >= v - tol}``, and
    likewise for the columns.
    """
    v = 0.0 if symmetric else float(p @ Ms @ q)
    row_low, col_low = _support(p), _support(q)
    row_up = row_low | (Ms @ q >= v - tol)
    col_up = col_low | (Ms.T @ p <= v + tol)
    if symmetric:
        row_low = col_low = row_low | col_low
        row_up = col_up = row_up | col_up
    return row_low, row_up, col_low, col_up


def _safe_refine(Ms, wr, wc, p, q, *, tol, symmetric, methods, cache):
    """Maxent strategies from any optimal pair, without guessing supports.

    Each player's optimal set is exactly its face with a support at least
    as large as the maximal one (unplayable strategies get vanishing mass)
    and a tied set at most as large (implied equalities then hold anyway),
    so the bounds of :func:`_support_bounds` give both maxent strategies; a
    last pass on their supports, now exact, removes the vanishing mass.
    Returns ``(p, q, method, converged)`` or None.
    """
    row_low, row_up, col_low, col_up = _support_bounds(Ms, p, q, tol, symmetric)
    safe = _solve_faces(
        Ms, wr, wc, (row_up, col_low, col_up, row_low), symmetric, methods, cache
    )
    if safe is None or game_exploitability(Ms, safe[0], safe[1]) > tol:
        return None
    rows, cols = _support(safe[0]), _support(safe[1])
    polished = _solve_faces(
        Ms, wr, wc, (rows, cols, cols, rows), symmetric, methods, cache
    )
    if polished is not None:
        p3, q3 = polished[0], polished[1]
        if (
            game_exploitability(Ms, p3, q3) <= tol
            and np.array_equal(_support(p3), rows)
            and np.array_equal(_support(q3), cols)
        ):
            return polished
    return safe


def _refine(Ms, wr, wc, rows, cols, *, tol, symmetric, methods, cache):
    """Maxent strategies on guessed maximal supports, certified or corrected.

    The guess is certified when the pair is strictly complementary on it
    (every strategy outside the supports loses by more than ``tol``);
    otherwise the pair, if optimal, seeds :func:`_safe_refine`.
    Returns ``(p, q, method, converged)`` or None.
    """
    solved = _solve_faces(
        Ms, wr, wc, (rows, cols, cols, rows), symmetric, methods, cache
    )
    if solved is None:
        return None
    p, q = solved[0], solved[1]
    if game_exploitability(Ms, p, q) > tol:
        return None
    row_low, row_up, col_low, col_up = _support_bounds(Ms, p, q, tol, symmetric)
    if all(
        np.array_equal(a, b)
        for a, b in ((row_low, rows), (row_up, rows), (col_low, cols), (col_up, cols))
    ):
        return solved
    return _safe_refine(
        Ms, wr, wc, p, q, tol=tol, symmetric=symmetric, methods=methods, cache=cache
    )


def _solve_dense(Ms, wr, wc, *, tol, symmetric):
    """Maxent equilibrium of a (sub)game, after iterated strict dominance."""
    rows, cols = undominated(Ms, margin=tol, symmetric=symmetric)
    if rows.all() and cols.all():
        return _solve_undominated(Ms, wr, wc, tol=tol, symmetric=symmetric)
    sub = _solve_undominated(
        Ms[np.ix_(rows, cols)], wr[rows], wc[cols], tol=tol, symmetric=symmetric
    )
    p, q = np.zeros(Ms.shape[0]), np.zeros(Ms.shape[1])
    p[rows], q[cols] = sub.p, sub.q
    return sub._replace(p=p, q=q)


def _attempts(Ms, wr, wc, first, *, tol, symmetric, methods, cache):
    """Candidate answers from one first pass: each support guess, then (for
    an exact simplex vertex) the guess-free refinement from the vertex."""
    options = {"tol": tol, "symmetric": symmetric, "methods": methods, "cache": cache}
    for rows, cols in first.guesses:
        yield _refine(Ms, wr, wc, rows, cols, **options)
    if first.source == "highs" and game_exploitability(Ms, first.p, first.q) <= tol:
        yield _safe_refine(Ms, wr, wc, first.p, first.q, **options)


def _solve_undominated(Ms, wr, wc, *, tol, symmetric):
    """Maxent equilibrium of a (sub)game; see the module docstring."""
    passes = []
    lp_best = None  # (gap, p, q, n_iter)
    unconverged = None  # accurate, but a face step did not report convergence
    cache = {}
    for tier, methods in enumerate(_TIERS):
        sources = _first_passes(Ms, tol, symmetric) if tier == 0 else passes
        for first in sources:
            if tier == 0:
                passes.append(first)
                gap0 = game_exploitability(Ms, first.p, first.q)
                if lp_best is None or gap0 < lp_best[0]:
                    lp_best = (gap0, first.p, first.q, first.n_iter)
            for refined in _attempts(
                Ms,
                wr,
                wc,
                first,
                tol=tol,
                symmetric=symmetric,
                methods=methods,
                cache=cache,
            ):
                if refined is None:
                    continue
                p, q, method, converged = refined
                if game_exploitability(Ms, p, q) > tol:
                    continue
                solved = Solved(p, q, first.n_iter, method, first.source)
                if converged:
                    return solved
                unconverged = unconverged or solved
    if unconverged is not None:
        return unconverged
    if lp_best is None:  # pragma: no cover - HiGHS solves every finite game
        raise RuntimeError("No linear-programming pass solved the game.")
    _, p, q, n_iter = lp_best
    return Solved(p, q, n_iter, "lp", "lp")


# ------------------------------------------------------------- screening
def _solve_screened(Ms, wr, wc, *, tol, symmetric):
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
    rows = _initial_set(-Ms.mean(axis=1))
    cols = rows if symmetric else _initial_set(Ms.mean(axis=0))
    n_iter = 0
    while 4 * _cost(rows.sum(), cols.sum()) <= _cost(m, n):
        r_idx, c_idx = np.flatnonzero(rows), np.flatnonzero(cols)
        sub = _solve_dense(
            Ms[np.ix_(r_idx, c_idx)],
            wr[r_idx],
            wc[c_idx],
            tol=tol,
            symmetric=symmetric,
        )
        n_iter += sub.n_iter
        p, q = np.zeros(m), np.zeros(n)
        p[r_idx], q[c_idx] = sub.p, sub.q
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
            if sub.method == "lp":
                break  # not certified on the subgame: solve the whole game
            return sub._replace(p=p, q=q, n_iter=n_iter)
        rows = rows | add_rows
        cols = rows if symmetric else cols | add_cols
    full = _solve_dense(Ms, wr, wc, tol=tol, symmetric=symmetric)
    return full._replace(n_iter=n_iter + full.n_iter)


def _cost(m, n):
    """Flops of one interior-point iteration, up to a constant."""
    return m * n * min(m, n)


def _initial_set(order_key):
    """The first strategies to screen: all of a small dimension, else the
    ``_SCREEN_START`` best by their mean payoff."""
    chosen = np.zeros(order_key.size, dtype=bool)
    if order_key.size <= _SCREEN_ABOVE:
        chosen[:] = True
    else:
        chosen[np.argsort(order_key, kind="stable")[:_SCREEN_START]] = True
    return chosen


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


def solve_game(Ms, wr, wc, *, tol, symmetric):
    """Maximum-entropy equilibrium of a scaled game with strategy weights.

    Parameters
    ----------
    Ms : ndarray of shape (m, n)
        Payoff scaled to ``max|Ms| <= 1`` (antisymmetric if ``symmetric``).
    wr, wc : ndarray
        Multiplicities of the rows and columns (merged copies).
    tol : float
        Tie tolerance and largest accepted exploitability, in scaled units.
    symmetric : bool

    Returns
    -------
    Solved
    """
    if _cost(*Ms.shape) > _cost(_SCREEN_ABOVE, _SCREEN_ABOVE):
        return _solve_screened(Ms, wr, wc, tol=tol, symmetric=symmetric)
    return _solve_dense(Ms, wr, wc, tol=tol, symmetric=symmetric)
