"""Order-independent (batch) likelihood fits over aggregated matches.

Matches are first aggregated into pairs ``(first, second)`` with the total
weight ``N`` of their games and the weighted score ``W`` of the first player
(draws count half); without a first-player advantage (i, j) and (j, i) are
merged. Both batch fits work on these sufficient statistics, so their cost
after aggregation depends on the number of distinct pairs, not on the number
of matches, and their result does not depend on the order of the matches.

- :func:`fit_bradley_terry`: Newton's method with a line search on the
  (optionally L2-penalised) Bradley-Terry negative log-likelihood. Its fixed
  point is the paper's Proposition 1 (predicted and empirical row sums
  agree). Each Newton system is solved by Jacobi-preconditioned conjugate
  gradients, on a dense (n, n) pair-weight matrix up to a few thousand
  players and on a sparse Laplacian beyond.
- :func:`fit_melo_lbfgs`: the full mElo_2k likelihood by L-BFGS, started from
  the Bradley-Terry ratings; its loss and gradient are one compiled pass over
  the pairs when numba is available (numpy otherwise), with single-threaded
  BLAS as in the Newton fit.
"""

import numpy as np
import scipy.optimize
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import cg
from scipy.special import expit
from threadpoolctl import ThreadpoolController

from . import _kernels

__all__ = [
    "PairStats",
    "aggregate_pairs",
    "code_played_players",
    "fit_bradley_terry",
    "fit_melo_lbfgs",
    "omega_product",
    "strong_components",
]

# Above this many players the Newton system is solved with sparse CG.
_DENSE_LIMIT = 2500


class PairStats:
    """Sufficient statistics of weighted matches, one entry per ordered pair.

    Attributes
    ----------
    first, second : ndarray of int64
        Player indices of each distinct ordered pair with positive weight.
    games : ndarray of float64
        Total weight of the pair's matches.
    score : ndarray of float64
        Weighted score of ``first`` (wins + half the draws).
    n_players : int
    """

    __slots__ = ("first", "second", "games", "score", "n_players")

    def __init__(self, first, second, games, score, n_players):
        self.first = first
        self.second = second
        self.games = games
        self.score = score
        self.n_players = n_players


def code_played_players(first, second, n_players):
    """Players with at least one match, and their codes among them.

    Returns ``present`` (sorted player indices) and ``code`` of length
    ``n_players``: the position in ``present``, -1 for players without a match.
    """
    played = np.zeros(n_players, dtype=bool)
    played[first] = True
    played[second] = True
    present = np.flatnonzero(played)
    code = np.full(n_players, -1, dtype=np.int64)
    code[present] = np.arange(present.shape[0])
    return present, code


def aggregate_pairs(first, second, outcome, weight, n_players, *, ordered=True):
    """Sum weights and weighted scores per pair (order-independent).

    With ``ordered=False`` the pairs (i, j) and (j, i) are merged into one
    entry with ``first < second`` (the second player's results are turned
    round); valid whenever the model's logit is antisymmetric, i.e. there is
    no first-player advantage.
    """
    n = int(n_players)
    wy = weight * outcome
    if ordered:
        key = first * n + second
    else:
        swap = first > second
        key = np.minimum(first, second) * n + np.maximum(first, second)
        np.subtract(weight, wy, out=wy, where=swap)
    if n * n <= max(4 * key.shape[0], 1 << 22):
        games = np.bincount(key, weights=weight, minlength=n * n)
        score = np.bincount(key, weights=wy, minlength=n * n)
        keys = np.flatnonzero(games > 0)
        games = games[keys]
        score = score[keys]
    else:
        keys, inverse = np.unique(key, return_inverse=True)
        games = np.bincount(inverse, weights=weight, minlength=keys.shape[0])
        score = np.bincount(inverse, weights=wy, minlength=keys.shape[0])
        positive = games > 0
        keys, games, score = keys[positive], games[positive], score[positive]
    # Rounding in the sums must not push the score outside [0, games].
    score = np.clip(score, 0.0, games)
    return PairStats(keys // n, keys % n, games, score, n)


def strong_components(stats):
    """Strongly connected components of the "scored against" graph.

    There is an edge i -> j when i scored (won or drew) against j. The
    Bradley-Terry maximum-likelihood ratings are finite and unique (up to a
    constant) iff this graph is strongly connected.

    Returns
    -------
    n_components : int
    labels : ndarray of int
    """
    n = stats.n_players
    forward = stats.score > 0
    backward = stats.games - stats.score > 0
    if n <= _DENSE_LIMIT:
        adjacency = np.zeros((n, n), dtype=bool)
        adjacency[stats.first[forward], stats.second[forward]] = True
        adjacency[stats.second[backward], stats.first[backward]] = True
        graph = sp.csr_matrix(adjacency)
    else:
        rows = np.concatenate([stats.first[forward], stats.second[backward]])
        cols = np.concatenate([stats.second[forward], stats.first[backward]])
        graph = sp.coo_matrix(
            (np.ones(rows.shape[0], dtype=bool), (rows, cols)), shape=(n, n)
        ).tocsr()
    return connected_components(graph, directed=True, connection="strong")


def _bt_logits(stats, r, advantage):
    z = r[stats.first] - r[stats.second]
    if advantage:
        z += advantage
    return z


def _bt_loss(stats, r, alpha, advantage):
    """Penalised negative log-likelihood.

    Uses ``W softplus(-z) + (N - W) softplus(z) = N softplus(z) - W z`` and
    ``softplus(z) = max(z, 0) + log1p(exp(-|z|))``.
    """
    z = _bt_logits(stats, r, advantage)
    softplus = np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))
    return stats.games @ softplus - stats.score @ z + 0.5 * alpha * (r @ r)


def _bt_gradient(stats, r, alpha, advantage):
    """Gradient of the penalised loss and the per-pair curvature N p (1 - p)."""
    n = stats.n_players
    p = expit(_bt_logits(stats, r, advantage))
    residual = stats.games * p - stats.score
    # (bincount of no pairs returns integers: keep float64 throughout)
    grad = np.bincount(stats.first, residual, n).astype(np.float64, copy=False)
    grad -= np.bincount(stats.second, residual, n)
    grad += alpha * r
    curvature = stats.games * p * (1.0 - p)
    return grad, curvature


def _pcg(matvec, rhs, diagonal, *, rtol=1e-11, max_iter=None):
    """Jacobi-preconditioned conjugate gradients for a PSD system.

    Memory-bound matrix-vector products instead of a Cholesky factorisation:
    the Bradley-Terry Hessian (a weighted graph Laplacian) is well
    conditioned after diagonal scaling for the comparison graphs met in
    practice, so a few dozen products suffice, and they do not depend on
    BLAS threading (which is erratic on a loaded machine).
    """
    inverse_diagonal = 1.0 / np.maximum(diagonal, np.finfo(float).tiny)
    x = np.zeros_like(rhs)
    residual = rhs.copy()
    z = inverse_diagonal * residual
    direction = z.copy()
    rz = residual @ z
    target = rtol * np.linalg.norm(rhs)
    max_iter = min(10 * rhs.shape[0], 1000) if max_iter is None else max_iter
    for _ in range(max_iter):
        if np.linalg.norm(residual) <= target:
            break
        product = matvec(direction)
        curvature = direction @ product
        if curvature <= 0:
            break
        step = rz / curvature
        x += step * direction
        residual -= step * product
        z = inverse_diagonal * residual
        rz_new = residual @ z
        direction = z + (rz_new / rz) * direction
        rz = rz_new
    return x


def _dense_newton_step(stats, grad, curvature, alpha):
    """Newton step with the Hessian kept as its (n, n) pair-weight matrix.

    ``H = diag(d) - (B + B^T)`` with ``B[i, j]`` the curvature of pair (i, j);
    ``H v`` is computed as ``d v - B v - B^T v`` without forming ``B + B^T``.
    """
    n = stats.n_players
    pair_weights = np.bincount(
        stats.first * n + stats.second, weights=curvature, minlength=n * n
    ).reshape(n, n).astype(np.float64, copy=False)
    diagonal = pair_weights.sum(axis=1) + pair_weights.sum(axis=0) + alpha
    # With alpha = 0 the likelihood is flat along the constant vector and the
    # gradient is orthogonal to it: adding 11^T / n fixes the gauge without
    # changing the step in the identified directions.
    gauge = 1.0 / n if alpha == 0.0 else 0.0

    def matvec(v):
        return diagonal * v - pair_weights @ v - v @ pair_weights + gauge * v.sum()

    return _pcg(matvec, -grad, diagonal + gauge)


def _sparse_newton_step(stats, grad, curvature, alpha):
    n = stats.n_players
    off = sp.coo_matrix(
        (curvature, (stats.first, stats.second)), shape=(n, n)
    ).tocsr()
    off = off + off.T
    diagonal = np.asarray(off.sum(axis=1)).ravel() + alpha
    hessian = sp.diags(diagonal) - off
    preconditioner = sp.diags(1.0 / np.maximum(diagonal, 1e-12))
    step, _ = cg(hessian, -grad, rtol=1e-12, atol=0.0, maxiter=min(10 * n, 1000),
                 M=preconditioner)
    return step


_CONTROLLER = []


def _blas_controller():
    """One cached threadpool controller (building one scans the libraries).

    The Newton steps run single-threaded BLAS: their matrix-vector products
    are memory-bound, and threaded BLAS is erratic on a shared machine.
    """
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def fit_bradley_terry(stats, *, alpha=0.0, advantage=0.0, tol=1e-8, max_iter=100,
                      init=None):
    """Penalised Bradley-Terry maximum likelihood by Newton's method.

    Minimises ``sum_pairs [W softplus(-z) + (N - W) softplus(z)] + alpha/2 |r|^2``
    with ``z = r_first - r_second + advantage`` on the natural-logit scale.

    Parameters
    ----------
    stats : PairStats
    alpha : float
        L2 penalty (a N(0, 1/alpha) prior on each rating); 0 gives the plain
        maximum-likelihood estimate.
    advantage : float
        Fixed first-player advantage in logits.
    tol : float
        Convergence when the largest rating change of the (full) Newton step
        is at most ``tol`` logits; that step is then taken, so the remaining
        error is of order ``tol**2`` (Newton converges quadratically).
    max_iter : int
    init : ndarray or None
        Starting ratings (zeros when None).

    Returns
    -------
    ratings : ndarray of shape (n_players,), mean zero
    n_iter : int
    converged : bool
    """
    n = stats.n_players
    r = np.zeros(n) if init is None else np.array(init, dtype=np.float64)
    newton_step = _dense_newton_step if n <= _DENSE_LIMIT else _sparse_newton_step
    grad, curvature = _bt_gradient(stats, r, alpha, advantage)
    converged = False
    n_iter = 0
    with _blas_controller().limit(limits=1, user_api="blas"):
        while n_iter < max_iter:
            n_iter += 1
            step = newton_step(stats, grad, curvature, alpha)
            if alpha == 0.0:
                step -= step.mean()
            if (np.max(np.abs(step)) if n else 0.0) <= tol:
                # Inside the quadratic region: the full step is safe and final.
                r = r + step
                converged = True
                break
            r, grad, curvature = _line_search(
                stats, r, step, grad, alpha, advantage
            )
    if alpha == 0.0:
        r -= r.mean()
    return r, n_iter, converged


def _line_search(stats, r, step, grad, alpha, advantage):
    """Take the Newton step, backtracking only if it could overshoot.

    The loss is convex, so if its slope along the step is still
    non-positive at the full step, the loss decreased all the way and the
    (costlier) loss itself need not be evaluated.
    """
    candidate = r + step
    new_grad, new_curvature = _bt_gradient(stats, candidate, alpha, advantage)
    if new_grad @ step <= 0.0:
        return candidate, new_grad, new_curvature
    loss = _bt_loss(stats, r, alpha, advantage)
    slope = grad @ step
    # Slack for rounding in the loss sum, which would otherwise stall the
    # search next to the optimum.
    slack = 1e-12 * (1.0 + abs(loss))
    t = 1.0
    while t >= 1e-10:
        new_loss = _bt_loss(stats, r + t * step, alpha, advantage)
        if new_loss <= loss + 1e-4 * t * slope + slack:
            break
        t *= 0.5
    candidate = r + t * step
    new_grad, new_curvature = _bt_gradient(stats, candidate, alpha, advantage)
    return candidate, new_grad, new_curvature


def omega_product(c_first, c_second):
    """Row-wise ``c_first^T Omega c_second``, Omega = blockdiag([[0, 1], [-1, 0]])."""
    return np.einsum(
        "ij,ij->i", c_first[:, 0::2], c_second[:, 1::2]
    ) - np.einsum("ij,ij->i", c_first[:, 1::2], c_second[:, 0::2])


def _melo_loss_and_grad(params, stats, width, alpha, advantage, total):
    """Mean penalised mElo loss and its gradient.

    ``params`` holds the ratings, then the vectors column by column (each
    coordinate of all players contiguous), so that gathers are 1-D.
    """
    n = stats.n_players
    first, second = stats.first, stats.second
    r = params[:n]
    columns = params[n:].reshape(width, n)
    at_first = [col[first] for col in columns]
    at_second = [col[second] for col in columns]
    z = r[first] - r[second]
    if advantage:
        z += advantage
    for a in range(0, width, 2):
        z += at_first[a] * at_second[a + 1] - at_first[a + 1] * at_second[a]
    e = np.exp(-np.abs(z))
    softplus = np.maximum(z, 0.0) + np.log1p(e)
    loss = stats.games @ softplus - stats.score @ z + 0.5 * alpha * (params @ params)
    inv = 1.0 / (1.0 + e)
    residual = stats.games * np.where(z >= 0, inv, e * inv) - stats.score
    grad = alpha * params
    grad[:n] += np.bincount(first, residual, n) - np.bincount(second, residual, n)
    grad_c = grad[n:].reshape(width, n)
    # d z / d c_first = Omega c_second = (c1, -c0);
    # d z / d c_second = -Omega c_first = (-c1, c0)   (per plane).
    for a in range(0, width, 2):
        grad_c[a] += np.bincount(first, residual * at_second[a + 1], n)
        grad_c[a] -= np.bincount(second, residual * at_first[a + 1], n)
        grad_c[a + 1] -= np.bincount(first, residual * at_second[a], n)
        grad_c[a + 1] += np.bincount(second, residual * at_first[a], n)
    return loss / total, grad / total


def _melo_loss_and_grad_compiled(params, stats, width, alpha, advantage, total):
    """:func:`_melo_loss_and_grad` in one compiled pass over the pairs."""
    grad = np.empty_like(params)
    loss = _kernels.melo_loss_grad(
        params, stats.first, stats.second, stats.games, stats.score,
        stats.n_players, width, float(alpha), float(advantage), grad,
    )
    grad /= total
    return loss / total, grad


def melo_objective(n_pairs=None):
    """The mElo loss-and-gradient to use: compiled with numba, else numpy.

    Fewer than ``_kernels.COMPILED_FROM`` distinct pairs take numpy either way
    (no disk-cache load of the compiled loop for a small fit).
    """
    if _kernels.HAVE_NUMBA and (n_pairs is None
                                or n_pairs >= _kernels.COMPILED_FROM):
        return _melo_loss_and_grad_compiled
    return _melo_loss_and_grad


def fit_melo_lbfgs(stats, ratings, vectors, *, alpha=0.0, advantage=0.0, tol=1e-6,
                   max_iter=1000, groups=None):
    """Full-likelihood mElo_2k fit by L-BFGS from the given starting point.

    The objective is the Bradley-Terry loss with logits
    ``r_i - r_j + advantage + c_i^T Omega c_j`` plus ``alpha/2 (|r|^2 + |C|^2)``,
    divided by the total match weight (so ``tol`` does not depend on the
    amount of data). With ``groups`` (a class label per player, e.g. classes
    of exact copies) the players of a class share their rating and vector:
    the same objective, minimised over one parameter set per class.

    Returns
    -------
    ratings : ndarray of shape (n_players,), mean zero
    vectors : ndarray of shape (n_players, 2k)
    n_iter : int
    converged : bool
    """
    n = stats.n_players
    width = vectors.shape[1]
    total = max(float(stats.games.sum()), np.finfo(float).tiny)
    objective = melo_objective(stats.first.shape[0])
    x0 = np.concatenate([ratings, vectors.T.ravel()])
    if groups is not None:
        objective, x0 = _tied(objective, groups, n, width, x0)
    # Single-threaded BLAS, as in the Newton fit: L-BFGS-B's vector updates
    # are small and threaded BLAS only adds contention on a shared machine.
    with _blas_controller().limit(limits=1, user_api="blas"):
        result = scipy.optimize.minimize(
            objective,
            x0,
            args=(stats, width, alpha, advantage, total),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15, "maxcor": 20},
        )
    x = result.x if groups is None else _expand(result.x, groups, width)
    r = x[:n].copy()
    r -= r.mean()
    c = x[n:].reshape(width, n).T.copy()
    grad_norm = np.max(np.abs(result.jac)) if result.jac.size else 0.0
    converged = bool(result.success) or grad_norm <= tol
    return r, c, int(result.nit), converged


def _expand(u, groups, width):
    """Per-player parameters from per-class ones (ratings, then vectors)."""
    m = int(groups.max()) + 1
    return np.concatenate([u[:m][groups],
                           u[m:].reshape(width, m)[:, groups].ravel()])


def _tied(objective, groups, n, width, x0):
    """The objective over one parameter set per class, and the start there."""
    m = int(groups.max()) + 1
    size = np.bincount(groups, minlength=m).astype(np.float64)

    def reduce(full):
        r = np.bincount(groups, full[:n], m)
        c = [np.bincount(groups, col, m) for col in full[n:].reshape(width, n)]
        return np.concatenate([r, *c])

    def tied(u, *args):
        loss, grad = objective(_expand(u, groups, width), *args)
        return loss, reduce(grad)

    start = reduce(x0) / np.tile(size, width + 1)  # the members' mean
    return tied, start
