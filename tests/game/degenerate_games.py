"""A seeded corpus of degenerate zero-sum games, as benchmark data produce them.

Real result matrices are not generic: pass/fail items give 0/1 matrices with
many identical rows and columns, integer scores tie, and win rates from a few
matches per pair are exactly 0 or 1. Their equilibria are not unique and the
optimal faces are large. Three families, each with explicit duplicates on
top of the natural ones:

* ``"binary"``: 2PL-shaped 0/1 responses (agents x items), 20-2,000 rows and
  5-200 columns; some all-correct and all-wrong items;
* ``"integer"``: small integer scores (0..k) with row and column effects and
  ties;
* ``"wins"``: win rates of agents from a few matches per pair (many 0/1 rates),
  with cloned agents and sometimes a cyclic component; an agent-vs-agent game
  given as win probabilities.

Used by the solver's corpus tests and by ``benchmarks/bench_nash_degenerate.py``.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

__all__ = ["DegenerateGame", "degenerate_corpus"]


class DegenerateGame(NamedTuple):
    name: str
    kind: str  # "avt" (scores, agents x tasks) or "ava" (win probabilities)
    X: np.ndarray


def _log_uniform_int(rng, low, high):
    return int(round(np.exp(rng.uniform(np.log(low), np.log(high)))))


def _with_copies(rng, base, size, axis):
    """``size`` rows (axis 0) or columns (axis 1) drawn from ``base``, all kept
    once (when they fit) and the rest repeated."""
    n_base = base.shape[axis]
    keep = rng.permutation(n_base)[: min(n_base, size)]
    extra = rng.integers(0, n_base, size=size - keep.size)
    idx = rng.permutation(np.concatenate([keep, extra]))
    return np.take(base, idx, axis=axis)


def binary_game(rng, m, n):
    """2PL-shaped 0/1 responses with duplicated rows and columns."""
    m_base = max(2, int(m * rng.uniform(0.2, 1.0)))
    n_base = max(2, int(n * rng.uniform(0.4, 1.0)))
    theta = rng.normal(size=(m_base, 1))
    b = rng.normal(scale=rng.uniform(0.5, 2.0), size=(1, n_base))
    a = rng.lognormal(0.0, 0.5, size=(1, n_base))
    X = (rng.random((m_base, n_base)) < 1.0 / (1.0 + np.exp(-a * (theta - b)))) * 1.0
    if rng.random() < 0.3:
        X[:, rng.integers(0, n_base)] = 1.0  # an item every agent solves
    if rng.random() < 0.3:
        X[:, rng.integers(0, n_base)] = 0.0  # an item no agent solves
    return _with_copies(rng, _with_copies(rng, X, m, 0), n, 1)


def integer_game(rng, m, n):
    """Integer scores 0..k with row/column effects: many ties."""
    k = int(rng.choice([1, 2, 3, 4, 5, 10]))
    m_base = max(2, int(m * rng.uniform(0.3, 1.0)))
    n_base = max(2, int(n * rng.uniform(0.5, 1.0)))
    latent = (
        rng.normal(size=(m_base, 1))
        - rng.normal(size=(1, n_base))
        + rng.normal(scale=rng.uniform(0.2, 2.0), size=(m_base, n_base))
    )
    X = np.clip(np.round(k / 2 + latent * k / 4), 0, k)
    return _with_copies(rng, _with_copies(rng, X, m, 0), n, 1)


def wins_game(rng, n):
    """Win rates from 1-5 matches per pair, with cloned agents.

    Returns a win-probability matrix ``P`` (``P + P.T = 1`` off the diagonal,
    0.5 on it); clones have identical results and draw each other.
    """
    n_base = max(2, int(n * rng.uniform(0.3, 1.0)))
    strength = rng.normal(scale=rng.uniform(0.5, 3.0), size=n_base)
    logit = strength[:, None] - strength[None, :]
    if rng.random() < 0.4:  # a cyclic component (rock-paper-scissors like)
        angle = rng.uniform(0, 2 * np.pi, size=n_base)
        logit = logit + rng.uniform(1, 4) * np.sin(angle[:, None] - angle[None, :])
    games = int(rng.choice([1, 2, 3, 5]))
    wins = rng.binomial(games, 1.0 / (1.0 + np.exp(-logit)))
    upper = np.triu(wins / games, 1)
    P = upper + np.tril(1.0 - upper.T, -1)
    np.fill_diagonal(P, 0.5)
    idx = _with_copies(rng, np.arange(n_base), n, 0)
    P = P[np.ix_(idx, idx)]
    P[idx[:, None] == idx[None, :]] = 0.5
    return P


def degenerate_corpus(n_games=500, *, seed=0, max_rows=2000, max_cols=200):
    """The seeded corpus: ``n_games`` games, half binary, a quarter each of
    integer and win-rate games (sizes log-uniform)."""
    rng = np.random.default_rng(seed)
    games = []
    for g in range(n_games):
        kind = ("binary", "binary", "integer", "wins")[g % 4]
        if kind == "wins":
            n = _log_uniform_int(rng, 3, min(300, max_rows))
            games.append(DegenerateGame(f"{g}:wins {n}", "ava", wins_game(rng, n)))
            continue
        m = _log_uniform_int(rng, 20, max_rows)
        n = _log_uniform_int(rng, 5, max_cols)
        make = binary_game if kind == "binary" else integer_game
        games.append(DegenerateGame(f"{g}:{kind} {m}x{n}", "avt", make(rng, m, n)))
    return games


def game_payoff(game, clip=1e-3):
    """The payoff NashAverager solves: the scores (AvT) or the clipped
    log-odds of the win rates (AvA, ``payoff="probability"``)."""
    if game.kind == "avt":
        return game.X
    P = np.clip(game.X, clip, 1.0 - clip)
    A = np.log(P) - np.log1p(-P)
    np.fill_diagonal(A, 0.0)
    return 0.5 * (A - A.T)


# ------------------------------------------------- independent reference
def _maximal_support_cone(K):
    """Maximal support of the cone ``{z >= 0 : K z <= 0}`` by one LP (HiGHS):
    ``max sum(w)`` with ``0 <= w <= min(z, 1)``; the cone scales, so ``w = 1``
    exactly on the coordinates that some point of the cone uses."""
    from scipy.optimize import linprog

    k = K.shape[1]
    res = linprog(
        np.r_[np.zeros(k), -np.ones(k)],
        A_ub=np.block([[K, np.zeros((K.shape[0], k))], [-np.eye(k), np.eye(k)]]),
        b_ub=np.zeros(K.shape[0] + k),
        bounds=[(0, None)] * k + [(0, 1)] * k,
        method="highs",
    )
    return res.x[k:] > 0.5


def _value(M):
    from scipy.optimize import linprog

    m, n = M.shape
    res = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.hstack([-M.T, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    return float(res.x[-1])


_REFERENCE_SOLVERS = (
    (
        "CLARABEL",
        {
            "tol_gap_abs": 1e-12,
            "tol_gap_rel": 1e-12,
            "tol_feas": 1e-12,
            "max_iter": 2000,
        },
    ),
    ("SCS", {"eps_abs": 1e-12, "eps_rel": 1e-12, "max_iters": 200_000}),
)


def _maxent_on(M, v, rows, accuracy):
    """cvxpy: maximum entropy over ``p`` on ``rows`` with ``M^T p >= v``,
    Clarabel then SCS at tight tolerances; the first answer whose constraint
    violation is within ``accuracy``, else None."""
    import cvxpy as cp

    p = cp.Variable(int(rows.sum()))
    problem = cp.Problem(
        cp.Maximize(cp.sum(cp.entr(p))),
        [p >= 0, cp.sum(p) == 1, M[rows].T @ p >= v],
    )
    for solver, options in _REFERENCE_SOLVERS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # accuracy is checked below
                problem.solve(solver=solver, **options)
        except cp.error.SolverError:
            continue
        if p.value is None:
            continue
        x = np.zeros(M.shape[0])
        x[rows] = np.clip(p.value, 0.0, None)
        x /= x.sum()
        if v - np.min(M.T @ x) <= accuracy:
            return x
    return None


def reference_maxent(M, *, symmetric, accuracy=1e-10):
    """Maximum-entropy equilibrium by an independent LP + cvxpy route.

    HiGHS gives the value and, through the Gale-Kuhn-Tucker symmetrisation
    (a homogeneous cone, no rounded value involved), the maximal supports;
    cvxpy maximises the entropy on them, where the solution is interior (an
    exponential-cone solver is inaccurate when mass must vanish, so the
    supports are not left to it). Returns ``(p, q)``, or None when neither
    Clarabel nor SCS reaches a constraint violation within ``accuracy`` (an
    almost feasible point can buy entropy: ``eps log(1/eps)``). ``M`` should
    be at unit scale.
    """
    m, n = M.shape
    if symmetric:
        rows = cols = _maximal_support_cone(M)
        v = 0.0
    else:
        Mp = M - M.min() + 1.0
        K = np.block(
            [
                [np.zeros((m, m)), Mp, -np.ones((m, 1))],
                [-Mp.T, np.zeros((n, n)), np.ones((n, 1))],
                [np.ones((1, m)), -np.ones((1, n)), np.zeros((1, 1))],
            ]
        )
        support = _maximal_support_cone(K)
        rows, cols = support[:m], support[m : m + n]
        v = _value(M)
    p = _maxent_on(M, v, rows, accuracy)
    q = p if symmetric else _maxent_on(-M.T, -v, cols, accuracy)
    if p is None or q is None:
        return None
    return p, q


def entropy(p):
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())
