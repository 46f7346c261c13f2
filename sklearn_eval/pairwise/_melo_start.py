"""A deterministic start of the MultiElo batch fit, equivariant in the players.

The mElo likelihood is not convex and L-BFGS stops at a tolerance, so where
it stops depends on where it starts. Random initial vectors drawn by player
position made the batch fit depend on the labels (renaming the players moved
ratings by up to an Elo point) and gave exact copies of a player different
scores. The start here is a function of the data alone:

- at the Bradley-Terry ratings ``r``, the residual of pair (i, j) is
  ``A[i, j] = W_ij - N_ij p_ij`` minus the same for (j, i): an antisymmetric
  matrix, the negative gradient of the loss in the cyclic logits. The planes
  in which the vectors can first lower the loss are its leading invariant
  planes: the eigenvectors ``w`` of the Hermitian ``i A`` with the largest
  eigenvalues ``lambda > 0``. Plane m starts at ``(Im w_m, Re w_m)``, scaled
  to a root mean square of ``init_scale`` per player (``c_i^T Omega c_j``
  then has the sign of ``A[i, j]``);
- a plane whose eigenvalue is zero (no cyclic residual left) starts at
  zero, where the loss is stationary in it.

Relabelling the players permutes ``A`` and so permutes the start (the phase
of ``w``, a rotation of the plane, leaves the likelihood unchanged), and
exact copies of a player (identical rows of ``A``) start with identical
vectors; L-BFGS then keeps both properties up to rounding. The start is exact
for a simple spectrum; when a leading eigenvalue is repeated (several
identical cycles) the basis of its eigenspace is the solver's, and the fit
is invariant only up to its tolerance.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh
from scipy.special import expit

from ..utils._twins import agent_signatures
from ._batch import PairStats

__all__ = ["canonical_stats", "melo_start", "pair_matrices"]

# Up to this many players the eigenvectors come from a dense decomposition;
# beyond, from Lanczos iterations (ARPACK) on the sparse residual matrix.
_DENSE_LIMIT = 400


def _residuals(stats, ratings, advantage):
    logits = ratings[stats.first] - ratings[stats.second] + advantage
    return stats.score - stats.games * expit(logits)


def _leading_planes(stats, residual, n_planes):
    """The ``n_planes`` largest eigenvalues of ``i A`` and their eigenvectors."""
    n = stats.n_players
    if n <= _DENSE_LIMIT or n_planes >= n - 1:
        R = np.bincount(stats.first * n + stats.second, weights=residual,
                        minlength=n * n).reshape(n, n)
        values, vectors = np.linalg.eigh(1j * (R - R.T))
        order = np.argsort(-values, kind="stable")[:n_planes]
        return values[order], vectors[:, order]
    R = sp.csr_array((residual, (stats.first, stats.second)), shape=(n, n))
    H = (1j * (R - R.T)).tocsr()
    # a start that depends on the data only: the players' total games
    games = np.bincount(stats.first, stats.games, n) + np.bincount(
        stats.second, stats.games, n)
    values, vectors = eigsh(H, k=n_planes, which="LA", v0=games.astype(complex),
                            tol=0.0)
    order = np.argsort(-values, kind="stable")
    return values[order], vectors[:, order]


def melo_start(stats, ratings, advantage, width, init_scale):
    """Initial cyclic vectors of the batch fit (see the module docstring).

    Parameters
    ----------
    stats : PairStats
    ratings : ndarray of shape (n_players,)
        Bradley-Terry ratings (logits).
    advantage : float
        First-player advantage (logits).
    width : int
        2 * n_components.
    init_scale : float
        Root mean square of a player's initial vector in each plane.

    Returns
    -------
    vectors : ndarray of shape (n_players, width)
    """
    n = stats.n_players
    vectors = np.zeros((n, width))
    n_planes = min(width // 2, n // 2)
    if n_planes == 0 or stats.first.shape[0] == 0:
        return vectors
    residual = _residuals(stats, ratings, advantage)
    values, planes = _leading_planes(stats, residual, n_planes)
    floor = 1e-9 * max(1.0, float(np.abs(residual).max()))
    for m in range(values.shape[0]):
        if not values[m] > floor:
            continue
        w = planes[:, m]
        plane = np.column_stack([w.imag, w.real])
        rms = np.sqrt(np.mean(np.sum(plane**2, axis=1)))
        vectors[:, 2 * m:2 * m + 2] = plane * (init_scale / rms)
    return vectors


def pair_matrices(stats, *, ordered):
    """The pair statistics as sparse matrices whose swaps define exact copies.

    Without a first-player advantage the loss of a pair depends on its games
    and scores only: ``M[i, j]`` is i's score against j (``M[j, i]`` the
    rest). With one, the order counts: the first player's score and the
    second's, per ordered pair. Players whose swap leaves these unchanged
    (:func:`~sklearn_eval.utils._twins.twin_classes`) are exact copies.
    """
    n = stats.n_players
    shape = (n, n)
    first, second = stats.first, stats.second
    rest = stats.games - stats.score
    if ordered:
        return (sp.csr_array((stats.score, (first, second)), shape=shape),
                sp.csr_array((rest, (first, second)), shape=shape))
    rows = np.concatenate([first, second])
    cols = np.concatenate([second, first])
    return (sp.csr_array((np.concatenate([stats.score, rest]), (rows, cols)),
                         shape=shape),)


def _colours(keys):
    """Dense ranks of hashable, orderable keys."""
    distinct = sorted(set(keys))
    rank = {key: k for k, key in enumerate(distinct)}
    return np.array([rank[key] for key in keys], dtype=np.int64)


def _refined_colours(matrices, keys):
    """Colour refinement (1-dimensional Weisfeiler-Leman) of the signatures.

    Players whose own signatures tie are told apart by the colours of their
    opponents, entry by entry, until no colour class splits any more: what
    is left tied is a symmetry of the data (or a rare refinement failure),
    and only there does the label order decide.
    """
    lines = [(m.tocsr(), m.T.tocsr()) for m in matrices]
    colour = _colours(keys)
    for _ in range(len(keys)):
        refined = []
        for i in range(len(keys)):
            parts = [int(colour[i])]
            for rows in (part for pair in lines for part in pair):
                lo, hi = rows.indptr[i], rows.indptr[i + 1]
                entries = np.column_stack([rows.data[lo:hi],
                                           colour[rows.indices[lo:hi]]])
                entries = entries[np.lexsort(entries.T[::-1])]
                parts.append(entries.tobytes())
            refined.append(tuple(parts))
        new = _colours(refined)
        if new.max() == colour.max():
            return new
        colour = new
    return colour


def canonical_stats(stats, *, ordered):
    """The pair statistics with the players in an order free of their labels.

    Players are sorted by :func:`~sklearn_eval.utils._twins.agent_signatures`
    of :func:`pair_matrices` (their label order only among equal
    signatures) and the pairs by their new indices, so that relabelling the
    players leaves the whole batch computation unchanged, bit for bit,
    whenever the signatures differ.

    Returns
    -------
    canonical : PairStats
    position : ndarray of intp of shape (n_players,)
        The canonical index of each player: ``fitted[position]`` are the
        values of the canonical fit in the players' own order.
    """
    n = stats.n_players
    matrices = pair_matrices(stats, ordered=ordered)
    colour = _refined_colours(matrices, agent_signatures(*matrices))
    order = sorted(range(n), key=lambda i: (colour[i], i))
    position = np.empty(n, dtype=np.intp)
    position[np.asarray(order, dtype=np.intp)] = np.arange(n)
    first, second = position[stats.first], position[stats.second]
    score = stats.score.copy()
    if not ordered:  # unordered pairs are kept with first < second
        swap = first > second
        first, second = np.where(swap, second, first), np.where(swap, first, second)
        score = np.where(swap, stats.games - score, score)
    sort = np.argsort(first * n + second, kind="stable")
    canonical = PairStats(first[sort], second[sort], stats.games[sort], score[sort], n)
    return canonical, position
