"""Exact presolve of a zero-sum game for its maximum-entropy equilibrium.

Two reductions leave the maximum-entropy equilibrium unchanged, and both are
frequent in benchmark data (0/1 item matrices, tied integer scores, clones):

* **Identical strategies are merged** with their multiplicity ``k``. Swapping
  two copies maps the optimal set onto itself and keeps the entropy, so the
  (unique) maximum-entropy point gives copies equal mass; a merged strategy
  with total mass ``P`` contributes ``P log(k / P)`` to the entropy, and the
  merged game is solved with these weights. Identical columns are repeated
  constraints for the row player and merged strategies for the column player.
* **Strictly dominated strategies are removed**, iteratively. A strategy that
  another pure strategy beats against every remaining opponent strategy (by
  more than the tie tolerance) is never a best response, so no optimal
  strategy plays it, and its constraint on the opponent is implied by the
  dominating one: the optimal sets, hence their maximum-entropy points, are
  those of the smaller game. Weakly dominated strategies are *kept*: they
  can carry mass in the maximum-entropy equilibrium.

The result maps back exactly: a merged strategy's mass is split equally over
its copies, removed strategies get 0.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Presolved", "expand", "presolve", "undominated"]

_N_DOMINATORS = 4  # candidate dominators per ordering, per pass
_N_PROBES = 6  # entries per row compared before hashing whole rows


class Presolved(NamedTuple):
    """A reduced game and how its strategies map to the original ones.

    Attributes
    ----------
    payoff : ndarray of shape (n_rows_reduced, n_cols_reduced)
    row_weights, col_weights : ndarray of float
        Multiplicity of each reduced strategy (its number of copies).
    row_group, col_group : ndarray of int
        For each original strategy, its reduced strategy.
    """

    payoff: np.ndarray
    row_weights: np.ndarray
    col_weights: np.ndarray
    row_group: np.ndarray
    col_group: np.ndarray


def _row_keys(M):
    """A 64-bit digest of each row's bytes (-0.0 read as 0.0).

    Each 8-byte word is mixed (xor-shift-multiply) and the words are summed
    with fixed odd weights, all modulo 2**64: exact integer arithmetic, so
    identical rows always get identical keys, whatever the memory layout.
    """
    words = np.ascontiguousarray(M + 0.0).view(np.uint64)
    words *= np.uint64(0xBF58476D1CE4E5B9)
    words ^= words >> np.uint64(32)
    weights = np.random.default_rng(0x5EED).integers(
        0, 2**63, size=M.shape[1], dtype=np.uint64
    )
    weights = weights * np.uint64(2) + np.uint64(1)
    return (words * weights).sum(axis=1, dtype=np.uint64)


def _fingerprints(M):
    """A few entries of each row, taken as they are (no arithmetic): equal
    rows have equal fingerprints, and distinct ones usually differ."""
    n = M.shape[1]
    picks = np.unique(np.linspace(0, n - 1, min(n, _N_PROBES)).astype(int))
    return np.column_stack([M[:, picks], M.min(axis=1), M.max(axis=1)]) + 0.0


def _unique_rows(M):
    """Representative index, group of every row and count.

    Groups are found by a digest of the row's bytes (O(rows x columns),
    against a lexicographic sort of whole rows) and checked exactly: a
    collision falls back to the sort.
    """
    m = M.shape[0]
    _, probe_group = np.unique(_fingerprints(M), axis=0, return_inverse=True)
    if np.unique(probe_group.ravel()).size == m:  # no two rows can be equal
        return np.arange(m), np.arange(m), np.ones(m, dtype=np.int64)
    _, first, group, counts = np.unique(
        _row_keys(M), return_index=True, return_inverse=True, return_counts=True
    )
    group = group.ravel()
    if counts.size == m:  # all distinct: keep the original order
        return np.arange(m), np.arange(m), np.ones(m, dtype=np.int64)
    if not np.array_equal(M[first[group]], M):  # pragma: no cover
        _, first, group, counts = np.unique(
            M + 0.0,
            axis=0,
            return_index=True,
            return_inverse=True,
            return_counts=True,
        )
        group = group.ravel()
    return first, group, counts


def _dominated_pairwise(M, margin):
    """Rows beaten by a candidate row in every column by more than ``margin``.

    The candidates are the rows with the best worst case and the best mean
    (a dominating row is better on both): exact, not exhaustive, and O(rows x
    columns) per pass.
    """
    k = min(_N_DOMINATORS, M.shape[0])
    candidates = np.union1d(
        np.argsort(-M.min(axis=1), kind="stable")[:k],
        np.argsort(-M.mean(axis=1), kind="stable")[:k],
    )
    dominated = np.zeros(M.shape[0], dtype=bool)
    for c in candidates:
        dominated |= np.all(M < M[c] - margin, axis=1)
    return dominated


def _dominated_rows(M, margin):
    """Strictly dominated rows of a game whose row player maximises."""
    # cheap test: a row whose best payoff is below another row's worst one
    dominated = M.max(axis=1) < M.min(axis=1).max() - margin
    return dominated | _dominated_pairwise(M, margin)


def undominated(M, *, margin, symmetric):
    """Rows and columns left by iterated strict dominance (boolean masks).

    Removing them is exact for the maximum-entropy equilibrium of ``M``
    (see the module docstring); the solver applies it to every game it
    solves densely, where it costs O(rows x columns) per pass against the
    interior point's O(rows x columns x min(rows, columns)) per iteration.
    """
    rows = np.ones(M.shape[0], dtype=bool)
    cols = np.ones(M.shape[1], dtype=bool)
    sub = M
    while True:
        drop_rows = _dominated_rows(sub, margin)
        if symmetric:
            drop_cols = drop_rows
        else:
            drop_cols = _dominated_rows(-sub.T, margin)
        if not drop_rows.any() and not drop_cols.any():
            return rows, cols
        rows[np.flatnonzero(rows)[drop_rows]] = False
        cols[np.flatnonzero(cols)[drop_cols]] = False
        sub = M[np.ix_(rows, cols)]


def presolve(M, *, symmetric):
    """Merge identical rows and identical columns, with their multiplicity.

    Parameters
    ----------
    M : ndarray of shape (m, n)
        Payoff to the row (maximising) player.
    symmetric : bool
        ``M`` is antisymmetric (a symmetric game): identical rows are
        identical agents, their columns are identical too, and both are
        merged together so that the reduced game stays antisymmetric.

    Returns
    -------
    Presolved
    """
    row_first, row_group, row_counts = _unique_rows(M)
    if symmetric:
        col_first, col_group, col_counts = row_first, row_group, row_counts
    else:
        col_first, col_group, col_counts = _unique_rows(M.T)
    # no copies at all: the groups are the identity, and M needs no copy
    identity = row_first.size == M.shape[0] and col_first.size == M.shape[1]
    return Presolved(
        payoff=M if identity else np.ascontiguousarray(M[np.ix_(row_first, col_first)]),
        row_weights=row_counts.astype(np.float64),
        col_weights=col_counts.astype(np.float64),
        row_group=row_group,
        col_group=col_group,
    )


def expand(x, group, weights):
    """Strategy on the original strategies from one on the reduced game.

    Each reduced strategy's mass is split equally over its copies.
    """
    return (x / weights)[group]
