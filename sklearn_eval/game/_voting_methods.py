"""Social-choice rules on a profile summarised by pairwise counts.

Every task is a voter ranking the agents by its scores. With ties and
missing scores allowed, a profile is summarised by

* ``N[a, b]``: the number of tasks that score both ``a`` and ``b`` and rank
  ``a`` strictly above ``b`` (a tie counts for neither);
* ``E[a, b]``: the number of tasks that score both and tie them;

and, for plurality, by each task's set of top agents. Each rule returns
``(scores, order)``: per-agent scores (higher = better) and the ranking as
agent indices, best first.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ._maxent_nash import symmetric_maxent_nash

__all__ = [
    "borda",
    "copeland",
    "maximal_lotteries",
    "order_by_scores",
    "pairwise_counts",
    "plurality",
    "ranked_pairs",
    "schulze",
]

_CHUNK_ELEMENTS = 4_000_000
#: scores from iterative solvers (maximal lotteries, SCO) closer than this
#: (relative) are ties
SOLVER_RTOL = 1e-7
#: plurality counts are sums of fractions 1/k: equal up to rounding only
COUNT_RTOL = 1e-12


def pairwise_counts(X):
    """``N`` (strict preferences) and ``E`` (ties) of an agents x tasks matrix.

    NaN means the task did not score that agent: no comparison involving it.
    """
    n, n_tasks = X.shape
    N = np.zeros((n, n))
    E = np.zeros((n, n))
    chunk = max(1, _CHUNK_ELEMENTS // max(1, n * n))
    for start in range(0, n_tasks, chunk):
        block = X[:, start : start + chunk]
        left, right = block[:, None, :], block[None, :, :]
        N += (left > right).sum(axis=2)
        E += (left == right).sum(axis=2)
    np.fill_diagonal(E, 0.0)
    return N, E


def order_by_scores(scores, tiebreak=None, rtol=0.0):
    """Agent indices by decreasing score; equal scores by ``tiebreak``, then index.

    Scores within ``rtol * max(1, max|score|)`` of their neighbour in sorted
    order count as equal (for scores computed by an iterative solver).
    """
    scores = np.asarray(scores, dtype=np.float64)
    keys = [np.arange(scores.size)]
    if tiebreak is not None:
        keys.append(-np.asarray(tiebreak, dtype=np.float64))
    keys.append(tie_groups(scores, rtol))
    return np.lexsort(keys)


def tie_groups(scores, rtol=0.0):
    """Group number of each score, 0 for the highest; near-equal scores share one."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size == 0:
        return np.zeros(0, dtype=np.intp)
    order = np.argsort(-scores, kind="stable")
    scale = rtol * max(1.0, float(np.max(np.abs(scores))))
    gaps = -np.diff(scores[order]) > scale
    groups = np.empty(scores.size, dtype=np.intp)
    groups[order] = np.concatenate([[0], np.cumsum(gaps)])
    return groups


def borda(N, E):
    """Points = agents ranked strictly below + half the agents tied with it."""
    scores = N.sum(axis=1) + 0.5 * E.sum(axis=1)
    return scores, order_by_scores(scores)


def plurality(X):
    """One vote per task, split equally among its top (tied) agents.

    Tasks that score fewer than two agents express no preference and are
    skipped.
    """
    present = ~np.isnan(X)
    usable = present.sum(axis=0) >= 2
    Xu = np.where(present, X, -np.inf)[:, usable]
    top = Xu == Xu.max(axis=0, keepdims=True)
    scores = (top / top.sum(axis=0, keepdims=True)).sum(axis=1)
    borda_scores, _ = borda(*pairwise_counts(X))
    return scores, order_by_scores(scores, tiebreak=borda_scores, rtol=COUNT_RTOL)


def copeland(margin, tiebreak):
    """Pairwise wins plus half the pairwise ties (zero margins)."""
    scores = (margin > 0).sum(axis=1) + 0.5 * ((margin == 0).sum(axis=1) - 1)
    return scores.astype(np.float64), order_by_scores(scores, tiebreak=tiebreak)


def schulze(N, tiebreak):
    """Schulze's beatpath method with winning votes (strongest-path strength).

    ``d[a, b] = N[a, b]`` when ``a`` beats ``b`` (else 0); the strength of the
    strongest path is the widest path (Floyd-Warshall). ``a`` is above ``b``
    when ``p[a, b] > p[b, a]``; this relation is transitive, and the score is
    the number of agents an agent is above.
    """
    p = np.where(N > N.T, N, 0.0)
    np.fill_diagonal(p, 0.0)
    n = p.shape[0]
    for k in range(n):
        p = np.maximum(p, np.minimum(p[:, k : k + 1], p[k : k + 1, :]))
    np.fill_diagonal(p, 0.0)
    scores = (p > p.T).sum(axis=1).astype(np.float64)
    return scores, order_by_scores(scores, tiebreak=tiebreak)


def ranked_pairs(margin, tiebreak):
    """Tideman's ranked pairs: lock majorities by decreasing margin.

    A majority ``a > b`` is locked unless it closes a cycle with the pairs
    already locked. Equal margins are taken in the order of ``tiebreak``
    (higher first for the winner, then lower first for the loser, then by
    index). The score of an agent is the number of agents below it in the
    locked graph (its descendants), which orders any topological sort.
    """
    n = margin.shape[0]
    rows, cols = np.nonzero(margin > 0)
    order = np.lexsort(
        (cols, rows, tiebreak[cols], -tiebreak[rows], -margin[rows, cols])
    )
    reach = np.eye(n, dtype=bool)  # reach[a, b]: a path a -> b is locked
    for a, b in zip(rows[order], cols[order], strict=True):
        if reach[b, a]:
            continue  # would close a cycle
        # everything reaching a now reaches everything b reaches
        reach |= np.outer(reach[:, a], reach[b, :])
    scores = (reach.sum(axis=1) - 1).astype(np.float64)
    return scores, order_by_scores(scores, tiebreak=tiebreak), reach


def maximal_lotteries(margin, tiebreak, tol=1e-9):
    """Iterated maximal lotteries (the maximum-entropy one at every level).

    The maximal lottery is an optimal mixed strategy of the symmetric
    zero-sum game on the margin matrix; the maximum-entropy optimum is unique
    (and treats equivalent agents equally). Its support is the first level;
    the game on the remaining agents gives the next level, and so on. The
    score is ``(levels below) + (probability within its level)``.

    Returns
    -------
    scores, order, lottery
        ``lottery`` is the first-level maximal lottery over all agents.
    """
    n = margin.shape[0]
    remaining = np.arange(n)
    scores = np.zeros(n)
    levels = []
    lottery = None
    while remaining.size:
        sub = margin[np.ix_(remaining, remaining)].astype(np.float64)
        if remaining.size == 1 or not np.any(sub):
            p = np.full(remaining.size, 1.0 / remaining.size)
            support = np.ones(remaining.size, dtype=bool)
        else:
            ne = symmetric_maxent_nash(sub, tol=tol)
            p, support = ne.row, ne.row_support
        if lottery is None:
            lottery = np.zeros(n)
            lottery[remaining] = p
        levels.append((remaining[support], p[support]))
        remaining = remaining[~support]
    for depth, (agents, probs) in enumerate(levels):
        scores[agents] = (len(levels) - 1 - depth) + probs
    order = order_by_scores(scores, tiebreak=tiebreak, rtol=SOLVER_RTOL)
    return scores, order, lottery


def condorcet_winner(margin):
    """Index of the agent with a positive margin over every other, or None."""
    n = margin.shape[0]
    beats = (margin > 0).sum(axis=1)
    winners = np.flatnonzero(beats == n - 1)
    return int(winners[0]) if winners.size else None


def majority_components(margin):
    """Strongly connected components of "not beaten" (margin >= 0), in order.

    Every agent of an earlier component strictly beats every agent of a later
    one, so a Kemeny ranking (and any Smith-consistent rule) keeps this
    order; the first component is the Smith set.
    """
    graph = sp.csr_array((margin >= 0) & ~np.eye(margin.shape[0], dtype=bool))
    n_comp, labels = csgraph.connected_components(
        graph, directed=True, connection="strong"
    )
    # components form a total order: sort by how many agents each one beats
    beaten = np.array([
        np.sum(margin[np.ix_(labels == c, labels != c)] > 0) for c in range(n_comp)
    ])
    size = np.bincount(labels, minlength=n_comp)
    rank_key = beaten / np.maximum(size, 1)
    return [np.flatnonzero(labels == c) for c in np.argsort(-rank_key, kind="stable")]
