"""Exact copies of an agent: the one definition the rankers share.

Two agents are *twins* in square matrices of pairwise statistics (``N[a, b]``
tasks ranking a above b, or the weighted score of a against b) when swapping
them leaves every matrix unchanged: the same entries against every other
agent, in both directions, and ``N[a, b] == N[b, a]`` between them. No rule
that reads only these statistics can tell twins apart, so their ranks must
be equal. Identical rows of scores are twins, and so is a pair whose profile
is symmetric under the swap.

The relation is an equivalence (it is the orbit relation of transpositions
that fix the matrices, and such transpositions compose), so twins fall into
classes. Twins have the same multiset of entries in their row and in their
column, so only agents sharing those are compared: the cost is about one pass
over the entries when the agents differ, dense or sparse.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["agent_signatures", "twin_classes"]


class _Lines:
    """Rows and columns of one matrix as (sorted indices, values) pairs."""

    def __init__(self, matrix):
        if sp.issparse(matrix):
            rows = sp.csr_array(matrix)
            rows.sort_indices()
            cols = sp.csr_array(matrix.T)
            cols.sort_indices()
            self.sparse = (rows, cols)
            self.dense = None
        else:
            self.dense = np.asarray(matrix, dtype=np.float64)
            self.sparse = None

    def __call__(self, i):
        if self.dense is not None:
            idx = np.arange(self.dense.shape[0])
            return [(idx, self.dense[i]), (idx, self.dense[:, i])]
        out = []
        for part in self.sparse:
            lo, hi = part.indptr[i], part.indptr[i + 1]
            out.append((part.indices[lo:hi], part.data[lo:hi]))
        return out

    def entry(self, i, j):
        if self.dense is not None:
            return float(self.dense[i, j])
        indices, values = self(i)[0]
        hit = np.flatnonzero(indices == j)
        return float(values[hit].sum()) if hit.size else 0.0


def _signature(matrices, i):
    parts = []
    for lines in matrices:
        for _, values in lines(i):
            values = np.asarray(values, dtype=np.float64)
            parts.append(np.sort(values[values != 0]).tobytes())
    return tuple(parts)


def _without(indices, values, i, j):
    keep = (indices != i) & (indices != j)
    values = np.asarray(values, dtype=np.float64)[keep]
    nonzero = values != 0
    return indices[keep][nonzero], values[nonzero]


def _twins(matrices, i, j):
    for lines in matrices:
        if lines.entry(i, j) != lines.entry(j, i):
            return False
        for (ci, vi), (cj, vj) in zip(lines(i), lines(j), strict=True):
            ci, vi = _without(ci, vi, i, j)
            cj, vj = _without(cj, vj, i, j)
            if not (np.array_equal(ci, cj) and np.array_equal(vi, vj)):
                return False
    return True


def twin_classes(*matrices):
    """Classes of twins: agents whose swap leaves every matrix unchanged.

    Parameters
    ----------
    *matrices : ndarray or sparse matrix of shape (n_agents, n_agents)
        Pairwise statistics (the diagonal is ignored by the definition only
        through the swap: keep it zero).

    Returns
    -------
    labels : ndarray of intp of shape (n_agents,)
        Class of each agent, classes numbered by their first agent.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils._twins import twin_classes
    >>> N = np.array([[0, 1, 1, 2], [1, 0, 1, 2], [1, 1, 0, 0], [0, 0, 2, 0]])
    >>> twin_classes(N).tolist()
    [0, 0, 1, 2]
    """
    matrices = [_Lines(m) for m in matrices]
    n = (matrices[0].dense if matrices[0].dense is not None
         else matrices[0].sparse[0]).shape[0]
    labels = np.arange(n, dtype=np.intp)
    buckets = {}
    for i in range(n):
        buckets.setdefault(_signature(matrices, i), []).append(i)
    for members in buckets.values():
        if len(members) < 2:
            continue
        representatives = []
        for j in members:
            for r in representatives:
                if _twins(matrices, r, j):
                    labels[j] = r
                    break
            else:
                representatives.append(j)
    _, labels = np.unique(labels, return_inverse=True)
    return labels.astype(np.intp)


def agent_signatures(*matrices):
    """A label-free key per agent: the sorted entries of its rows and columns.

    Equal for twins (and for agents alike in a larger symmetry); sorting the
    agents by it orders them without looking at their labels.

    Returns
    -------
    list of tuple of bytes, one per agent
    """
    lines = [_Lines(m) for m in matrices]
    n = (lines[0].dense if lines[0].dense is not None
         else lines[0].sparse[0]).shape[0]
    return [_signature(lines, i) for i in range(n)]
