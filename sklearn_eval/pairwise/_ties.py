"""Tie models and per-match covariates: the extended batch likelihood.

The first player's strength advantage in a match is, on the natural-logit
scale,

    d = r_first - r_second + h + x . beta

with ``h`` the first-player advantage (fixed, or fitted as the coefficient of
a constant covariate) and ``x`` the match's covariates. Three outcome models:

- ``"half"``: Bradley-Terry with a draw scored as half a win,
  ``loglik = s log sigmoid(d) + (1 - s) log sigmoid(-d)``, s in {0, 1/2, 1};
- ``"davidson"`` (Davidson, 1970): with ``u = d / 2`` and ``tau = log nu``,
  ``P(win, tie, loss) = (e^u, e^tau, e^-u) / (e^u + e^tau + e^-u)``;
- ``"rao-kupper"`` (Rao and Kupper, 1967): with ``kappa = log theta > 0``,
  ``P(win) = sigmoid(d - kappa)``, ``P(loss) = sigmoid(-d - kappa)`` and the
  tie takes the rest, ``sigmoid(d + kappa) - sigmoid(d - kappa)``.

With no tie (``nu = 0``, ``theta = 1``) both tie models are Bradley-Terry in
d. Both negative log-likelihoods are jointly convex in (ratings, beta, h,
tie parameter) -- Davidson's is a log-sum-exp of linear functions, Rao-Kupper's
a sum of softplus terms plus ``-log(1 - e^(-2 kappa))`` -- so Newton's method
with a backtracking line search finds the global optimum.

Matches are aggregated into cells (one per distinct pair when there are no
per-match covariates, one per match otherwise) holding the weighted counts of
the first player's losses, ties and wins, so a fit costs O(distinct pairs)
whatever the number of votes. Each Newton system is solved by block
elimination: the rating block (a weighted graph Laplacian, as in the plain
Bradley-Terry fit) by Cholesky or preconditioned conjugate gradients, then a
small dense system for the covariates and the tie parameter.
"""

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg
from scipy.special import log_expit

from . import _tie_kernels
from ._batch import _DENSE_LIMIT, _blas_controller, _pcg
from ._tie_kernels import cell_terms, meat_terms, newton_dense

__all__ = [
    "TIE_MODELS",
    "Cells",
    "NoMaximumError",
    "build_cells",
    "check_identifiable",
    "expected_score",
    "fit_tie_model",
    "log_probabilities",
    "outcome_probabilities",
    "parameter_covariance",
    "tie_start",
]

TIE_MODELS = ("half", "davidson", "rao-kupper")
# Up to this many players the rating block is factorised (Cholesky).
_DIRECT_LIMIT = 400
# Outcome columns: loss, tie, win of the first player (y = 0, 0.5, 1).
_OUTCOME_VALUES = np.array([0.0, 0.5, 1.0])

#: The smallest positive normal double: floor of a starting tie share.
_TINY = float(np.finfo(np.float64).tiny)


class NoMaximumError(ArithmeticError):
    """Newton's Hessian became singular: the likelihood has no maximum.

    Some ratings or the tie parameter run off to infinity (the data separate
    the players under the model); a prior (``alpha > 0``) restores a maximum.
    """


class Cells:
    """Aggregated matches.

    Attributes
    ----------
    first, second : ndarray of int64, shape (m,)
    design : ndarray of shape (m, q)
        Covariates of each cell (a leading column of ones when the
        first-player advantage is fitted).
    counts : ndarray of shape (m, 3)
        Summed weights of the first player's losses, ties and wins.
    squares : ndarray of shape (m, 3)
        Summed squared weights (for the sandwich covariance).
    offset : float
        Fixed logit added to every d (a fixed first-player advantage).
    n_players : int
    """

    __slots__ = ("first", "second", "design", "counts", "squares", "offset",
                 "n_players")

    def __init__(self, first, second, design, counts, squares, offset, n_players):
        self.first = first
        self.second = second
        self.design = design
        self.counts = counts
        self.squares = squares
        self.offset = float(offset)
        self.n_players = int(n_players)

    @property
    def totals(self):
        return self.counts.sum(axis=1)


def _outcome_codes(y):
    return np.rint(2.0 * np.asarray(y, dtype=np.float64)).astype(np.intp)


def build_cells(first, second, y, weight, n_players, covariates=None, *,
                fit_advantage=False, offset=0.0, ordered=True, return_index=False):
    """Aggregate weighted matches into cells.

    With ``ordered=False`` (valid when nothing favours the first-listed
    player) a match (j, i, x, s) is stored as (i, j, -x, 1 - s) with i < j,
    so both orders of a pair share a cell. Without covariates the cells are
    the distinct pairs (O(n_players^2) bincounts when that is small, a sort
    otherwise); with covariates every match with positive weight is a cell.

    With ``return_index=True`` also returns, per match, the flat position
    ``3 * cell + outcome`` of its weight in ``counts`` (-1 for a match
    without weight), so that new weights of the same matches are
    aggregated by one bincount.
    """
    n = int(n_players)
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    code = _outcome_codes(y)
    weight = np.asarray(weight, dtype=np.float64)
    if not ordered:
        swap = first > second
        first, second = np.where(swap, second, first), np.where(swap, first, second)
        code = np.where(swap, 2 - code, code)
        if covariates is not None:
            covariates = np.where(swap[:, None], -covariates, covariates)
    if covariates is None:
        cell_first, cell_second, counts, squares, cell = _aggregate_pairs(
            first, second, code, weight, n
        )
        design = np.ones((cell_first.shape[0], int(fit_advantage)))
    else:
        keep = weight > 0
        cell = np.where(keep, np.cumsum(keep) - 1, -1)
        cell_first, cell_second = first[keep], second[keep]
        rows = np.arange(cell_first.shape[0])
        w = weight[keep]
        counts = np.zeros((rows.shape[0], 3))
        counts[rows, code[keep]] = w
        squares = np.zeros((rows.shape[0], 3))
        squares[rows, code[keep]] = w * w
        covariates = np.asarray(covariates, dtype=np.float64)[keep]
        if fit_advantage:
            covariates = np.column_stack([np.ones(rows.shape[0]), covariates])
        design = np.ascontiguousarray(covariates)
    cells = Cells(cell_first, cell_second, design, counts, squares, offset, n)
    if not return_index:
        return cells
    return cells, np.where(cell >= 0, 3 * cell + code, -1)


def _aggregate_pairs(first, second, code, weight, n):
    key = first * n + second
    if n * n <= max(4 * key.shape[0], 1 << 22):
        slots = n * n
        keys = None
    else:
        keys, key = np.unique(key, return_inverse=True)
        slots = keys.shape[0]
    keyed = key * 3 + code
    counts = np.bincount(keyed, weights=weight, minlength=3 * slots).reshape(-1, 3)
    squares = np.bincount(keyed, weights=weight * weight,
                          minlength=3 * slots).reshape(-1, 3)
    used = np.flatnonzero(counts.sum(axis=1) > 0)
    position = np.full(slots, -1, dtype=np.int64)
    position[used] = np.arange(used.shape[0])
    pair = used if keys is None else keys[used]
    return pair // n, pair % n, counts[used], squares[used], position[key]


# --------------------------------------------------------------- the models
def _logits(cells, ratings, coef):
    d = ratings[cells.first] - ratings[cells.second]
    if cells.design.shape[1]:
        d += cells.design @ coef
    if cells.offset:
        d += cells.offset
    return d


def log_probabilities(model, d, tie):
    """Log-probabilities of the first player's loss, tie and win, shape (m, 3).

    ``tie`` is the internal tie parameter: ``log nu`` (Davidson, -inf for
    nu = 0) or ``kappa = log theta`` (Rao-Kupper, 0 for theta = 1); for
    ``"half"`` the tie column is ``log P(tie) = -inf`` (the model has none).
    """
    d = np.asarray(d, dtype=np.float64)
    out = np.empty(d.shape + (3,))
    with np.errstate(divide="ignore"):
        if model == "half":
            out[..., 0] = log_expit(-d)
            out[..., 1] = -np.inf
            out[..., 2] = log_expit(d)
        elif model == "davidson":
            u = 0.5 * d
            log_z = np.logaddexp(np.logaddexp(u, -u), tie)
            out[..., 0] = -u - log_z
            out[..., 1] = tie - log_z
            out[..., 2] = u - log_z
        else:
            out[..., 0] = log_expit(-d - tie)
            out[..., 1] = (log_expit(d + tie) + log_expit(tie - d)
                           + np.log(-np.expm1(-2.0 * tie)))
            out[..., 2] = log_expit(d - tie)
    return out


def outcome_probabilities(model, d, tie):
    """P(second wins), P(tie), P(first wins) for logits d, shape (n, 3)."""
    proba = np.exp(log_probabilities(model, d, tie))
    return proba / proba.sum(axis=1, keepdims=True)


def expected_score(model, d, tie):
    """The first player's expected score, P(win) + P(tie) / 2."""
    proba = outcome_probabilities(model, d.ravel(), tie)
    return (proba[:, 2] + 0.5 * proba[:, 1]).reshape(d.shape)


class _Point:
    """The model at one parameter vector: loss, gradient and curvature terms."""

    __slots__ = ("theta", "d", "loss", "g_d", "g_t", "h_dd", "h_dt", "h_tt")


def _evaluate(cells, model, theta, n, q, alpha):
    """Loss (penalised negative log-likelihood, inf outside the parameter space)."""
    point = _Point()
    point.theta = theta
    r = theta[:n]
    point.d = _logits(cells, r, theta[n:n + q])
    tie = theta[n + q] if model != "half" else None
    if model == "rao-kupper" and not tie > 0.0:
        point.loss = np.inf
        return point
    loss, point.g_d, point.g_t, point.h_dd, point.h_dt, point.h_tt = cell_terms(
        model, point.d, tie, cells.counts
    )
    if model == "half":
        point.h_dt = point.h_tt = None
    point.loss = float(loss + 0.5 * alpha * (r @ r))
    return point


def _outcome_scores(model, d, tie):
    """Per-observation derivatives of -log P(outcome) in (d, tie), shape (m, 3).

    Column o is the score of one observation with outcome o (loss, tie, win).
    For ``"half"`` it is the quasi-score ``p - s`` and there is no tie part.
    """
    probs = np.exp(log_probabilities(model, d, tie))
    if model == "half":
        return probs[:, 2][:, None] - _OUTCOME_VALUES, None
    if model == "davidson":
        gap = (probs[:, 2] - probs[:, 0])[:, None]
        s_d = 0.5 * (gap + np.array([1.0, 0.0, -1.0]))
        s_t = probs[:, 1][:, None] - np.array([0.0, 1.0, 0.0])
        return s_d, s_t
    s1 = np.exp(log_expit(d - tie))
    s2 = np.exp(log_expit(-d - tie))
    dq = -2.0 / np.expm1(2.0 * tie)  # derivative of -log(1 - e^(-2 kappa))
    s_d = np.column_stack([1.0 - s2, s1 - s2, s1 - 1.0])
    s_t = np.column_stack([1.0 - s2, dq - s1 - s2, 1.0 - s1])
    return s_d, s_t


# ----------------------------------------------- gradient, Hessian, solves
def _incidence_sum(cells, values, n):
    """sum over cells of values * (e_first - e_second)."""
    out = np.bincount(cells.first, values, n).astype(np.float64, copy=False)
    out -= np.bincount(cells.second, values, n)
    return out


class _Blocks:
    """A symmetric matrix shaped like the Hessian, from per-cell weights.

    ``A`` (ratings) is the weighted Laplacian of the (d, d) weights plus
    ``alpha`` (and the gauge ``11^T / n`` when alpha is 0), ``B`` couples
    ratings with the covariates and the tie parameter, ``C`` is the small
    block of covariates and tie parameter.
    """

    def __init__(self, cells, w_dd, w_dt, w_tt, alpha):
        n = cells.n_players
        X = cells.design
        q = X.shape[1]
        size = q + (w_dt is not None)
        self.cells, self.n, self.alpha = cells, n, alpha
        self.w_dd = w_dd
        self.B = np.empty((n, size))
        self.C = np.empty((size, size))
        for j in range(q):
            self.B[:, j] = _incidence_sum(cells, w_dd * X[:, j], n)
        self.C[:q, :q] = X.T @ (w_dd[:, None] * X)
        if w_dt is not None:
            self.B[:, q] = _incidence_sum(cells, w_dt, n)
            self.C[:q, q] = self.C[q, :q] = X.T @ w_dt
            self.C[q, q] = np.sum(w_tt)

    def dense_ratings(self):
        n = self.n
        pair = np.bincount(self.cells.first * n + self.cells.second,
                           weights=self.w_dd, minlength=n * n).reshape(n, n)
        A = np.diag(pair.sum(axis=0) + pair.sum(axis=1)) - pair - pair.T
        A[np.diag_indices(n)] += self.alpha
        return A

    def dense(self):
        """The whole matrix (without the gauge), for covariances."""
        return np.block([[self.dense_ratings(), self.B], [self.B.T, self.C]])

    def rating_solver(self):
        """A function solving (A + gauge) Y = R for a block of columns R."""
        n, alpha = self.n, self.alpha
        gauge = 1.0 / n if alpha == 0.0 else 0.0
        if n <= _DIRECT_LIMIT:
            A = self.dense_ratings() + gauge
            factor = cho_factor(A, check_finite=False)
            return lambda rhs: cho_solve(factor, rhs, check_finite=False)
        cells = self.cells
        if n <= _DENSE_LIMIT:
            pair = np.bincount(cells.first * n + cells.second, weights=self.w_dd,
                               minlength=n * n).reshape(n, n)
            diagonal = pair.sum(axis=1) + pair.sum(axis=0) + alpha

            def matvec(v):
                return diagonal * v - pair @ v - v @ pair + gauge * v.sum()

            def solve_one(b):
                return _pcg(matvec, b, diagonal + gauge)
        else:
            off = sp.coo_matrix((self.w_dd, (cells.first, cells.second)),
                                shape=(n, n)).tocsr()
            off = off + off.T
            diagonal = np.asarray(off.sum(axis=1)).ravel() + alpha
            hessian = sp.diags(diagonal) - off
            if gauge:
                hessian = aslinearoperator(hessian) + LinearOperator(
                    (n, n), matvec=lambda v: gauge * np.sum(v) * np.ones(n),
                    dtype=np.float64,
                )
            preconditioner = sp.diags(1.0 / np.maximum(diagonal + gauge, 1e-300))

            def solve_one(b):
                x, _ = cg(hessian, b, rtol=1e-12, atol=0.0,
                          maxiter=min(10 * n, 1000), M=preconditioner)
                return x

        def solve(rhs):
            rhs = np.asarray(rhs, dtype=np.float64)
            if rhs.ndim == 1:
                return solve_one(rhs)
            return np.column_stack([solve_one(col) for col in rhs.T])

        return solve

    def solve(self, rhs_r, rhs_z):
        """Block elimination: the solution (x_r, x_z) of the gauged system."""
        solve = self.rating_solver()
        if self.C.shape[0] == 0:
            return solve(rhs_r), np.zeros(0)
        Y = solve(np.column_stack([rhs_r, self.B]))
        y_a, y_b = Y[:, 0], Y[:, 1:]
        schur = self.C - self.B.T @ y_b
        x_z = np.linalg.solve(schur, rhs_z - self.B.T @ y_a)
        return y_a - y_b @ x_z, x_z

    def schur(self):
        """Schur complement of the rating block (the non-rating curvature)."""
        if self.C.shape[0] == 0:
            return self.C
        y_b = self.rating_solver()(self.B)
        return self.C - self.B.T @ y_b.reshape(self.n, -1)


def _gradient(cells, model, point, n, alpha):
    grad = [_incidence_sum(cells, point.g_d, n) + alpha * point.theta[:n],
            cells.design.T @ point.g_d]
    if model != "half":
        grad.append([point.g_t])
    return np.concatenate(grad)


def tie_start(model, cells):
    """Starting tie parameter: the one matching the overall tie rate at d = 0."""
    counts = cells.counts.sum(axis=0)
    # a tie share below the rounding of 1 + rate (a tie of weight 1e-17
    # next to matches of weight 1) must still start inside the parameter
    # space: Rao-Kupper's log theta > 0, Davidson's log nu finite
    rate = max(counts[1] / counts.sum(), _TINY)
    if model == "davidson":
        return float(np.log(2.0 * rate / (1.0 - rate)))
    # log((1 + rate) / (1 - rate)), without rounding 1 + rate to 1
    return max(float(2.0 * np.arctanh(rate)), _TINY)


def fit_tie_model(cells, model, *, alpha=0.0, tol=1e-8, max_iter=100, init=None):
    """Maximum likelihood of the extended model by Newton's method.

    Minimises the negative log-likelihood of ``model`` over the cells plus
    ``alpha/2 |r|^2`` (ratings only). The parameter vector is (ratings,
    coefficients of ``cells.design``, tie parameter). Converged when the
    largest entry of the (full) Newton step is at most ``tol``; that step is
    then taken.

    Parameters
    ----------
    cells : Cells
    model : {"half", "davidson", "rao-kupper"}
        For the tie models the data must hold ties and decided matches
        (otherwise the tie parameter is on the boundary; the caller handles
        those cases).
    alpha, tol, max_iter
    init : ndarray or None
        Starting parameters (zeros and :func:`tie_start` when None).

    Returns
    -------
    theta : ndarray
        Ratings (mean zero when ``alpha == 0``), coefficients, tie parameter.
    n_iter : int
    converged : bool

    Raises
    ------
    NoMaximumError
        When the Hessian becomes singular (the estimate does not exist: some
        ratings or the tie parameter run off to infinity).
    """
    n, q = cells.n_players, cells.design.shape[1]
    if init is None:
        theta = np.zeros(n + q + (model != "half"))
        if model != "half":
            theta[-1] = tie_start(model, cells)
    else:
        theta = np.array(init, dtype=np.float64)
    if model == "rao-kupper" and not theta[-1] > 0.0:
        # outside the parameter space: no loss, no derivatives to start from
        raise NoMaximumError("start outside the parameter space")
    if n <= _DIRECT_LIMIT and _tie_kernels.compiled_for(cells.counts.shape[0]):
        # the same iteration as below, compiled: one loop for the whole fit
        theta, n_iter, status = newton_dense(
            model, cells.first, cells.second, cells.design, cells.offset,
            cells.counts, n, theta, alpha, tol, max_iter,
        )
        if status == 2:
            raise NoMaximumError("singular Hessian")
        if alpha == 0.0 and n:
            theta[:n] -= theta[:n].mean()
        return theta, n_iter, status == 0
    point = _evaluate(cells, model, theta, n, q, alpha)
    newton_step = _block_step
    converged, n_iter = False, 0
    with _blas_controller().limit(limits=1, user_api="blas"):
        while n_iter < max_iter:
            n_iter += 1
            try:
                step, grad = newton_step(cells, model, point, n, alpha)
            except np.linalg.LinAlgError as exc:
                raise NoMaximumError("singular Hessian") from exc
            if alpha == 0.0 and n:
                step[:n] -= step[:n].mean()
            if not np.all(np.isfinite(step)):
                raise NoMaximumError("non-finite Newton step")
            if np.max(np.abs(step), initial=0.0) <= tol:
                point.theta = point.theta + step
                converged = True
                break
            point, moved = _line_search(cells, model, point, step, grad, n, q, alpha)
            if not moved:
                break
    theta = point.theta
    if alpha == 0.0 and n:
        theta[:n] -= theta[:n].mean()
    return theta, n_iter, converged


def _block_step(cells, model, point, n, alpha):
    """Newton step by block elimination (any number of players)."""
    grad = _gradient(cells, model, point, n, alpha)
    blocks = _Blocks(cells, point.h_dd, point.h_dt, point.h_tt, alpha)
    if n <= _DIRECT_LIMIT:
        # the compiled loop's step (``_tie_kernels``): a Cholesky factor of
        # the whole gauged Hessian, so that both paths call the same Hessians
        # singular (a covariate that separates the outcomes leaves a pivot
        # that the block elimination's Schur complement can round below zero)
        hessian = blocks.dense()
        if alpha == 0.0 and n:
            hessian[:n, :n] += 1.0 / n
        factor = np.linalg.cholesky(hessian)
        return cho_solve((factor, True), -grad, check_finite=False), grad
    x_r, x_z = blocks.solve(-grad[:n], -grad[n:])
    return np.concatenate([x_r, x_z]), grad


def _line_search(cells, model, point, step, grad, n, q, alpha):
    """Backtracking (Armijo) along the Newton step; keeps kappa > 0."""
    slope = grad @ step
    # slack for rounding in the loss sum, which would otherwise stall the
    # search next to the optimum
    slack = 1e-12 * (1.0 + abs(point.loss))
    t = 1.0
    while t >= 1e-12:
        candidate = _evaluate(cells, model, point.theta + t * step, n, q, alpha)
        if candidate.loss <= point.loss + 1e-4 * t * slope + slack:
            return candidate, True
        t *= 0.5
    return point, False


# ----------------------------------------------------------- identifiability
def check_identifiable(cells, names, alpha=0.0):
    """Raise a ValueError naming a covariate whose coefficient is not identified.

    The coefficients are identified (given the ratings) iff the Schur
    complement of the rating block of ``[B X]^T N [B X]`` is positive
    definite, with B the match incidence, X the covariates and N the match
    weights. A covariate constant over all matches of a pair orientation
    that never changes, or equal to a combination of others, fails.
    """
    if cells.design.shape[1] == 0:
        return
    blocks = _Blocks(cells, cells.totals, None, None, alpha)
    schur = blocks.schur()
    scale = np.sqrt(np.clip(np.diag(blocks.C), 0.0, None))
    scale = np.where(scale > 0, scale, 1.0)
    values, vectors = np.linalg.eigh(schur / np.outer(scale, scale))
    if values[0] > 1e-9:
        return
    worst = int(np.argmax(np.abs(vectors[:, 0])))
    raise ValueError(
        f"The covariate {names[worst]!r} is collinear with the players' ratings "
        "or with the other covariates (e.g. constant in every match, a copy of "
        "another column, or always favouring the same side of a pair), so its "
        "coefficient is not identified; drop it."
    )


# ----------------------------------------------------------- covariance
def _incidence_rows(cells):
    """Sparse (n_cells, n_players) matrix whose row c is e_first - e_second.

    Built directly in CSR form (two entries per row), without a sort.
    """
    m = cells.first.shape[0]
    indices = np.empty(2 * m, dtype=np.int64)
    indices[0::2] = cells.first
    indices[1::2] = cells.second
    data = np.tile([1.0, -1.0], m)
    indptr = np.arange(0, 2 * m + 1, 2)
    return sp.csr_matrix((data, indices, indptr), shape=(m, cells.n_players))


def structured_matvec(cells, w_dd, w_dt, w_tt, V):
    """Product of a Hessian-shaped matrix (no penalty, no gauge) with V."""
    n, q = cells.n_players, cells.design.shape[1]
    V = np.asarray(V, dtype=np.float64).reshape(n + q + (w_dt is not None), -1)
    incidence = _incidence_rows(cells)
    delta = incidence @ V[:n] + cells.design @ V[n:n + q]
    a = w_dd[:, None] * delta
    if w_dt is not None:
        a += w_dt[:, None] * V[-1][None, :]
    parts = [incidence.T @ a, cells.design.T @ a]
    if w_dt is not None:
        parts.append((w_dt @ delta + np.sum(w_tt) * V[-1])[None, :])
    return np.vstack(parts)


def _meat_weights(model, d, tie, weights):
    """Per-cell weights of the sandwich's meat: sum_o w_o s_o s_o^T."""
    if _tie_kernels.compiled_for(d.shape[0]):
        return meat_terms(model, d, tie, weights)
    s_d, s_t = _outcome_scores(model, d, tie)
    w_dd = np.sum(weights * s_d * s_d, axis=1)
    if s_t is None:
        return w_dd, None, None
    w_dt = np.sum(weights * s_d * s_t, axis=1)
    return w_dd, w_dt, np.sum(weights * s_t * s_t, axis=1)


def parameter_covariance(cells, model, theta, *, alpha=0.0, covariance="sandwich",
                         frequency_weights=False, ratings=True):
    """Covariance of the fitted parameters, natural-logit units.

    ``H^+`` (observed information) or ``H^+ J H^+`` (sandwich) with H the
    penalised Hessian and J the summed outer products of the per-match
    scores: ``sum w^2 s s^T`` with the match weights read as importance
    weights, ``sum w s s^T`` with them read as frequency weights (a weight
    k is k matches). With ``alpha = 0`` the ratings are anchored to mean zero
    and ``H^+`` is the pseudo-inverse on that subspace.

    Parameters
    ----------
    ratings : bool, default=True
        True: the covariance of all parameters (ratings, coefficients, tie
        parameter), from dense matrices. False: only the coefficients and the
        tie parameter, from the rows of ``H^+`` found by block elimination
        (cost linear in the number of cells; any number of players).

    Returns
    -------
    cov : ndarray
    """
    n, q = cells.n_players, cells.design.shape[1]
    point = _evaluate(cells, model, np.asarray(theta, dtype=np.float64), n, q, alpha)
    hessian = _Blocks(cells, point.h_dd, point.h_dt, point.h_tt, alpha)
    tie = theta[n + q] if model != "half" else None
    meat_weights = _meat_weights(
        model, point.d, tie, cells.counts if frequency_weights else cells.squares
    )
    if ratings:
        gauge = np.zeros(hessian.C.shape[0] + n)
        if alpha == 0.0:
            gauge[:n] = 1.0 / np.sqrt(n)
        projector = np.outer(gauge, gauge)
        inverse = np.linalg.inv(hessian.dense() + projector) - projector
        if covariance == "observed":
            cov = inverse
        else:
            cov = inverse @ _Blocks(cells, *meat_weights, 0.0).dense() @ inverse
        return 0.5 * (cov + cov.T)
    y_b = hessian.rating_solver()(hessian.B).reshape(n, -1)
    schur = hessian.C - hessian.B.T @ y_b
    schur_inverse = np.linalg.inv(schur)
    rows = np.hstack([-schur_inverse @ y_b.T, schur_inverse])
    if covariance == "observed":
        cov = rows[:, n:]
    else:
        cov = rows @ structured_matvec(cells, *meat_weights, rows.T)
    cov = 0.5 * (cov + cov.T)
    lost = _lost_coefficients(cells, schur, alpha)
    if lost.any():
        # no information left at the estimate: the Schur complement is
        # rounding noise there, and so would be a finite variance
        cov[lost, :] = cov[:, lost] = np.nan
        cov[lost, lost] = np.inf
    return cov


def _lost_coefficients(cells, schur, alpha):
    """Coefficients whose information at the estimate has vanished.

    A coefficient that runs off to infinity (its covariate separates the
    outcomes) keeps less than ``1e-12`` of the curvature its covariate gives
    at even odds (the weights of :func:`check_identifiable`); its variance
    is then undefined, whichever rounding the elimination took.
    """
    q = cells.design.shape[1]
    lost = np.zeros(schur.shape[0], dtype=bool)
    if q == 0:
        return lost
    reference = np.diag(_Blocks(cells, cells.totals, None, None, alpha).schur())
    lost[:q] = np.diag(schur)[:q] <= 1e-12 * 0.25 * reference
    return lost
