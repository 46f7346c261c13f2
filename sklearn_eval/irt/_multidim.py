"""Several abilities: the exploratory multidimensional 2PL of :class:`IRT`.

Agent ``i`` succeeds on item ``j`` with probability
``expit(a_j . theta_i + d_j)``, ``theta ~ N(0, I_m)`` during estimation.
The abilities are integrated out on a grid of points in ``R^m``
(:class:`FactorGrid`): a product rule (equally spaced or Gauss-Hermite) in
few dimensions, scrambled Sobol points mapped to the normal (quasi-Monte
Carlo, fixed by ``random_state``) where a product grid would blow up.

The E-step is the response store's :meth:`e_step_tables` on per-(point,
item) log tables: the store never asks which model or how many dimensions
(a categorical item model plugs in the same way, from its own log tables).
The M-step is a weighted logistic regression of every item on the points,
``(a_j, d_j)``, solved by Newton's method for all items at once. The
likelihood is invariant under rotations of ``theta``; EM runs unconstrained
from a principal-component start and converges on the log-likelihood
(SQUAREM extrapolation, kept only where it raises the likelihood, so the
likelihood never decreases); the loadings are rotated at the end
(:mod:`._rotation`).
"""

import warnings

import numpy as np
from scipy import linalg, sparse
from scipy.special import expit, log_expit, logsumexp, ndtri
from scipy.stats import qmc
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.extmath import randomized_svd

from ..utils._dask import stack_columns
from ..utils._resampling import unknown_target
from ..utils._sparse import is_sparse_input
from ..utils._stack import find_stack_level
from ..utils._validation import _py
from ._em import _NOISE, _squarem_vector
from ._fit import _warn_constant_items
from ._information import covariance_errors
from ._quadrature import QuadratureGrid, check_resolves_prior
from ._responses import _make_storage
from ._rotation import rotate_loadings

# nodes per dimension of the default product grid, by number of factors
_DEFAULT_PER_DIM = {2: 21, 3: 15, 4: 9, 5: 7}
_DEFAULT_SOBOL = 4096
# a product grid larger than this is refused (quasi-Monte Carlo instead)
_MAX_NODES = 200_000
# normal-ogive scale of the logistic (standardised loadings, starts)
_D = 1.702
_MAX_COMMUNALITY = 0.8
# |a_jk| and |d_j| stay below this: an item that (nearly) separates the agents
# has no finite maximum; at 30 its curve is a step on the ability scale
PARAM_CAP = 30.0
# the models with n_factors > 1 (the GRM and GPCM: see ._graded_factors)
_FACTOR_MODELS = ("2PL", "GRM", "GPCM")


class FactorGrid:
    """Points and log-weights of a quadrature rule for ``N(0, I_m)``.

    ``points`` (n_nodes, m); :meth:`axis` gives the one-dimensional
    :class:`QuadratureGrid` of the projections ``points @ direction`` with
    the same weights: the stores take it for their passes (their posterior
    moments are then those of the projection).
    """

    def __init__(self, points, log_weights, kind):
        self.points = np.asarray(points, dtype=np.float64)
        self.log_weights = np.asarray(log_weights, dtype=np.float64)
        self.kind = kind

    def __len__(self):
        return self.points.shape[0]

    def axis(self, direction=None):
        """The grid of ``points @ direction`` (default: the first coordinate)."""
        values = (self.points[:, 0] if direction is None
                  else self.points @ np.asarray(direction, dtype=np.float64))
        return QuadratureGrid(values, self.log_weights, self.kind)


def make_factor_grid(kind, n_factors, n_nodes=None, bound=6.0, rng=None):
    """Quadrature grid for ``N(0, I_m)``.

    ``"rectangular"``: the product of ``n_nodes`` equally spaced nodes on
    ``[-bound, bound]`` per dimension, keeping the points of the ball of
    radius ``bound`` (the corners weigh less than ``exp(-bound^2 / 2)``);
    ``"gauss-hermite"``: the product Gauss-Hermite rule with ``n_nodes``
    per dimension; ``"sobol"``: ``n_nodes`` scrambled Sobol points (rounded
    up to a power of 2) mapped by the normal quantile, equal weights.
    """
    m = n_factors
    if kind == "sobol":
        n = n_nodes or _DEFAULT_SOBOL
        sobol = qmc.Sobol(d=m, scramble=True, seed=rng)
        u = sobol.random_base2(int(np.ceil(np.log2(n))))
        points = ndtri(np.clip(u, 1e-12, 1.0 - 1e-12))
        return FactorGrid(points, np.full(len(points), -np.log(len(points))),
                          kind)
    per_dim = n_nodes or _DEFAULT_PER_DIM.get(m, 7)
    if per_dim**m > _MAX_NODES:
        raise ValueError(
            f"A product grid of {per_dim} nodes in each of n_factors={m} "
            f"dimensions has {per_dim**m} points (more than {_MAX_NODES}); use "
            "quadrature='sobol' (quasi-Monte Carlo) or fewer nodes."
        )
    if kind == "gauss-hermite":
        x, w = np.polynomial.hermite.hermgauss(per_dim)
        axis, log_axis = np.sqrt(2.0) * x, np.log(w / np.sqrt(np.pi))
    else:
        axis = np.linspace(-bound, bound, per_dim)
        log_axis = -0.5 * axis**2
    mesh = np.meshgrid(*([axis] * m), indexing="ij")
    points = np.column_stack([g.ravel() for g in mesh])
    log_w = sum(g.ravel() for g in np.meshgrid(*([log_axis] * m), indexing="ij"))
    if kind == "rectangular":
        inside = np.sum(points**2, axis=1) <= bound**2 * (1.0 + 1e-12)
        points, log_w = points[inside], log_w[inside]
    if len(points) == 0:
        return FactorGrid(np.zeros((0, m)), np.zeros(0), kind)
    return FactorGrid(points, log_w - logsumexp(log_w), kind)


# ------------------------------------------------------------------- model
def factor_log_tables(params, points):
    """``log P`` and ``log(1 - P)`` per (point, item); ``params`` = [A | d]."""
    z = points @ params[:, :-1].T + params[:, -1]
    return log_expit(z), log_expit(-z)


def _design(points):
    return np.column_stack([points, np.ones(points.shape[0])])


def _item_objective(params, r, n, design):
    z = design @ params.T
    return np.sum(r * z + n * log_expit(-z), axis=0)


def m_step(params, r, n, design, fixed=None, n_newton=8):
    """Newton's method on every item's expected complete log-likelihood.

    A weighted logistic regression of each item on the points (weights: the
    E-step's expected counts), concave in ``(a_j, d_j)``; the steps are
    halved until an item's objective does not decrease, and every step moves
    a parameter by at most ``1 + |value|``, and no parameter leaves
    ``[-PARAM_CAP, PARAM_CAP]``. All items at once. ``fixed`` (n_items,
    m + 1) marks the parameters held at their value.
    """
    params = params.copy()
    J, p = params.shape
    fixed = np.zeros((J, p), dtype=bool) if fixed is None else fixed
    objective = _item_objective(params, r, n, design)
    active = np.ones(J, dtype=bool)
    for _ in range(n_newton):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        z = design @ params[idx].T
        P = expit(z)
        grad = (r[:, idx] - n[:, idx] * P).T @ design  # (J, p)
        W = n[:, idx] * P * (1.0 - P)
        H = np.einsum("kj,ka,kb->jab", W, design, design)
        H[:, np.arange(p), np.arange(p)] += 1e-10 * np.trace(H, axis1=1, axis2=2)[
            :, None] + 1e-12
        hold = fixed[idx]
        if hold.any():
            grad = np.where(hold, 0.0, grad)
            H = np.where(hold[:, :, None] | hold[:, None, :], 0.0, H)
            H[:, np.arange(p), np.arange(p)] += hold
        step = np.linalg.solve(H, grad[..., None])[..., 0]
        cap = (1.0 + np.abs(params[idx])) / np.maximum(np.abs(step), 1e-300)
        scale = np.minimum(1.0, cap.min(axis=1))
        accepted = np.zeros(idx.size, dtype=bool)
        for _halving in range(30):
            trial = np.flatnonzero(~accepted)
            if trial.size == 0:
                break
            items = idx[trial]
            candidate = np.clip(params[items] + scale[trial, None] * step[trial],
                                -PARAM_CAP, PARAM_CAP)
            value = _item_objective(candidate, r[:, items], n[:, items], design)
            ok = np.isfinite(value) & (
                value >= objective[items] - 1e-12 * np.abs(objective[items]))
            params[items[ok]] = candidate[ok]
            objective[items[ok]] = value[ok]
            accepted[trial[ok]] = True
            scale = np.where(accepted, scale, 0.5 * scale)
        moved = np.max(np.abs(scale[:, None] * step), axis=1)
        active[idx[(moved < 1e-9) | ~accepted]] = False
    return params


def em(data, grid, params, max_iter, tol, fixed=None):
    """EM with SQUAREM from ``params``; the log-likelihood never decreases.

    ``fixed`` marks the loadings held at 0 (the identification constraint
    of :func:`anchor_constraint`).

    One cycle: two EM steps ``p1 = F(p0)``, ``p2 = F(p1)`` and the SQUAREM
    (S3) point from ``(p0, p1, p2)``; the cycle ends at the extrapolated
    point when its log-likelihood beats ``p2``'s, else at ``p2``. Stops
    when a cycle raises the log-likelihood by less than ``tol`` per agent.
    Returns ``(params, state, n_iter, converged, trace)`` with ``n_iter``
    the E-steps run and ``trace`` the log-likelihood after every cycle.
    """
    store_grid = grid.axis()
    design = _design(grid.points)

    def e_step(p):
        return data.e_step_tables(*factor_log_tables(p, grid.points), store_grid)

    def em_map(state, p):
        return m_step(p, state["r"], np.asarray(state["n"]), design, fixed)

    state = e_step(params)
    trace = [state["loglik"]]
    n_iter, converged, max_step = 1, False, 4.0
    while n_iter < max_iter:
        p1 = em_map(state, params)
        s1 = e_step(p1)
        p2 = em_map(s1, p1)
        s2 = e_step(p2)
        n_iter += 2
        best = (p2, s2)
        v = _squarem_vector(params.ravel(), p1.ravel(), p2.ravel(), max_step)
        if v is not None and np.all(np.isfinite(v)) and n_iter < max_iter:
            trial = np.clip(v.reshape(params.shape), -PARAM_CAP, PARAM_CAP)
            st = e_step(trial)
            n_iter += 1
            if np.isfinite(st["loglik"]) and st["loglik"] > s2["loglik"] + (
                    _NOISE * abs(s2["loglik"])):
                best = (trial, st)
                max_step = min(4.0 * max_step, 256.0)
            else:
                max_step = max(1.0, max_step / 4.0)
        previous = trace[-1]
        params, state = best
        trace.append(state["loglik"])
        if abs(trace[-1] - previous) <= tol * data.n_agents:
            converged = True
            break
    return params, state, n_iter, converged, np.asarray(trace)


# ------------------------------------------------------------------ starts
def _standardised(values, cols, n=None, p=None):
    """Responses centred and scaled per item at the observed cells (0 else).

    ``n``, ``p``: the observed responses and the proportion of successes of
    every item in ``cols`` (default: from ``values``; a partition of the
    agents takes those of all agents). Returns the CSR of the standardised
    responses, ``n`` and ``p`` (clipped to [1e-3, 1 - 1e-3]).
    """
    if is_sparse_input(values):
        Z = sparse.csc_array(values)[:, cols].tocoo()
        seen = ~np.isnan(Z.data)
        row, col, x = Z.row[seen], Z.col[seen], Z.data[seen]
    else:
        sub = values[:, cols]
        row, col = np.nonzero(~np.isnan(sub))
        x = sub[row, col]
    J = cols.size
    if p is None:
        n = np.bincount(col, minlength=J).astype(float)
        p = np.bincount(col, weights=x, minlength=J) / np.maximum(n, 1.0)
    p = np.clip(p, 1e-3, 1.0 - 1e-3)
    z = (x - p[col]) / np.sqrt(p[col] * (1.0 - p[col]))
    shape = (values.shape[0], J)
    return sparse.csr_array((z, (row, col)), shape=shape), n, p


def gram_matrix(Z):
    """``Z^T Z`` (items x items, dense): a sum over the agents."""
    return np.asarray((Z.T @ Z).toarray() if sparse.issparse(Z) else Z.T @ Z,
                      dtype=np.float64)


# Kept items up to which the start's components are the exact eigenvectors of
# the items' Gram matrix (as on Dask input, where it is summed over the
# partitions); beyond, the Gram matrix costs items^2 memory and items^3 time
# (measured on 2 loaded cores: 0.4 s at 1,000 items, 5.6 s at 2,700, 29 s at
# 5,000), and a randomized SVD of the standardised responses (fixed by
# ``random_state``) gives the start in memory.
GRAM_ITEMS = 2000


def principal_start(values, keep, n_factors, rng=None):
    """Starting ``[A | d]``: principal components of the item correlations.

    The loadings of the first ``m`` components of the standardised
    responses (missing cells 0) are taken as normal-ogive loadings, shrunk
    to a communality of at most 0.8, and turned into logistic slopes and
    intercepts (``a = 1.702 lambda / sqrt(1 - h^2)``, ``d = 1.702
    Phi^{-1}(p) / sqrt(1 - h^2)``). The components are exact up to
    :data:`GRAM_ITEMS` items, from a randomized SVD seeded by ``rng`` beyond.
    """
    cols = np.flatnonzero(keep)
    Z, n, p = _standardised(values, cols)
    return _start_columns(principal_slopes(Z, n, n_factors, rng), p)


def start_from_gram(G, n, p, n_factors):
    """:func:`principal_start` from the Gram matrix of the standardised
    responses (a sum over the agents: on Dask input, over the partitions)."""
    return _start_columns(principal_slopes(None, n, n_factors, gram=G), p)


def _start_columns(slopes_unique, p):
    slopes, unique = slopes_unique
    return np.column_stack([slopes, _D * ndtri(np.clip(p, 1e-3, 1.0 - 1e-3))
                            / unique])


def principal_slopes(Z, n, n_factors, rng=None, *, gram=None):
    """Logistic slopes from the principal components of standardised responses.

    ``Z`` (n_agents, n_items): responses centred and scaled per item (missing
    cells 0), or None with ``gram = Z^T Z`` given; ``n``: observed responses
    per item. The right singular vectors and values of ``Z`` are the
    eigenvectors and the square roots of the eigenvalues of ``Z^T Z``
    (items x items), computed exactly from ``gram`` or, up to
    :data:`GRAM_ITEMS` items, from ``Z``; beyond, by a randomized SVD of
    ``Z`` seeded by ``rng``. Every component is signed so that its largest
    entry is positive. Returns the slopes ``1.702 lambda / sqrt(1 - h^2)``
    (communalities shrunk to at most 0.8) and ``sqrt(1 - h^2)`` per item.
    """
    m = n_factors
    if gram is None and Z.shape[1] > GRAM_ITEMS:
        _, S, Vt = randomized_svd(Z, m, n_iter=7, random_state=rng)
        vectors = Vt.T
    else:
        G = gram_matrix(Z) if gram is None else np.asarray(gram, dtype=np.float64)
        values, vectors = linalg.eigh(G, subset_by_index=[G.shape[0] - m,
                                                          G.shape[0] - 1])
        values, vectors = values[::-1], vectors[:, ::-1]
        S = np.sqrt(np.maximum(values, 0.0))
    largest = vectors[np.argmax(np.abs(vectors), axis=0), np.arange(m)]
    vectors = vectors * np.where(largest < 0, -1.0, 1.0)
    lam = vectors * (S / np.sqrt(max(float(n.mean()), 1.0)))
    h2 = np.sum(lam**2, axis=1)
    shrink = np.sqrt(np.minimum(1.0, _MAX_COMMUNALITY / np.maximum(h2, 1e-300)))
    lam *= shrink[:, None]
    unique = np.sqrt(1.0 - np.sum(lam**2, axis=1))
    return _D * lam / unique[:, None], unique


def anchor_constraint(start, n_factors=None):
    """Rotate ``start`` so that ``m - 1`` anchor items fix the orientation.

    The likelihood does not change under rotations of ``theta``; left free,
    EM drifts along them (on a quadrature grid they are not exactly flat, so
    the drift is slow and endless). Anchor ``k`` (``k = 0..m-2``, the items
    QR with column pivoting picks from the start's loadings: well separated
    directions) loads on the first ``k + 1`` factors only. Returns the
    rotated start and the mask of the loadings held at 0. ``n_factors``: the
    slope columns of ``start`` (default: all but the last, the intercept).
    """
    m = start.shape[1] - 1 if n_factors is None else n_factors
    A = start[:, :m]
    _, _, pivots = linalg.qr(A.T, pivoting=True, mode="economic")
    anchors = pivots[: m - 1]
    # orthogonal Q with A[anchors] @ Q lower triangular (the QR of its transpose)
    Q, _ = np.linalg.qr(A[anchors].T, mode="complete")
    rotated = start.copy()
    rotated[:, :m] = A @ Q
    fixed = np.zeros(start.shape, dtype=bool)
    for k, item in enumerate(anchors):
        fixed[item, k + 1:m] = True
    rotated[fixed] = 0.0
    return rotated, fixed


# ------------------------------------------------------- standard errors
def louis_covariance(data, grid, params):
    """Per item, the inverse of Louis' observed information of ``(a_j, d_j)``.

    Items one at a time (the covariance between items is ignored, as for the
    other IRT models); NaN where the information is singular.
    """
    store_grid = grid.axis()
    log_p, log_q = factor_log_tables(params, grid.points)
    state = data.e_step_tables(log_p, log_q, store_grid)
    r, n = state["r"], np.asarray(state["n"])
    design = _design(grid.points)
    P = np.exp(log_p)
    g1 = (1.0 - P)[..., None] * design[:, None, :]
    g0 = -P[..., None] * design[:, None, :]
    outer = data.score_products(log_p, log_q, store_grid, g1, g0)
    weight = (r - n * P) * (1.0 - 2.0 * P)
    info = -np.einsum("kj,ka,kb->jab", weight, design, design) + outer
    cov = np.full_like(info, np.nan)
    for j in range(info.shape[0]):
        try:
            inverse = np.linalg.inv(info[j])
        except np.linalg.LinAlgError:
            continue
        if np.all(np.isfinite(inverse)) and np.all(np.diag(inverse) >= 0):
            cov[j] = inverse
    return cov


# -------------------------------------------------------------- the fit
def check_identifiable(n_factors, n_items, n_observed, n_total_items, labels=None,
                       n_params=None):
    """ValueError when ``n_factors`` exceeds what the responses identify.

    ``n_params``: the item parameters of the model (default: the 2PL's).
    """
    m = n_factors
    if n_params is None:
        n_params = n_items * (m + 1) - m * (m - 1) // 2
    if 2 * m >= n_items:
        raise ValueError(
            f"n_factors={m} is not identifiable from {n_items} informative "
            f"items (of {n_total_items}): an exploratory model with m factors "
            f"needs more than 2m items (here at least {2 * m + 1})."
        )
    if n_params >= n_observed:
        raise ValueError(
            f"n_factors={m} has {n_params} item parameters for {int(n_observed)} "
            "observed responses: more parameters than data; use fewer factors."
        )


def _standardised_scale(A):
    """Per item, the factor turning slopes into normal-ogive loadings."""
    return 1.0 / (_D * np.sqrt(1.0 + np.sum((A / _D) ** 2, axis=1)))


def fit_multidim(values, labels, summary, *, n_factors, rotation, grid, max_iter,
                 tol, chunk_size, parallel, rng, algorithm):
    """Everything :meth:`IRT.fit` learns with ``n_factors > 1``, as a dict.

    Dask input (coded on the workers, see :mod:`._dask_fit`) is fitted on a
    store that stays on the workers, by the same code: the start's Gram
    matrix (items x items) is summed over the partitions.
    """
    keep = summary.keep
    check_identifiable(n_factors, int(keep.sum()), summary.n_observed,
                       values.shape[1])
    _warn_constant_items(keep, labels)
    options = {"n_factors": n_factors, "rotation": rotation, "grid": grid,
               "max_iter": max_iter, "tol": tol}
    if hasattr(values, "fit_with"):  # Dask input, coded on the workers
        start = anchor_constraint(_distributed_start(values, keep, n_factors))
        return values.fit_with(_fit_factor_storage, labels, keep, summary.rate,
                               algorithm=algorithm, chunk_size=chunk_size,
                               start=start, **options)
    data = _make_storage(values, keep, algorithm=algorithm, chunk_size=chunk_size,
                         parallel=parallel, n_observed=summary.n_observed)
    start = anchor_constraint(principal_start(values, keep, n_factors, rng))
    return _fit_factor_storage(data, labels, keep, summary.rate, values.shape[0],
                        start=start, **options)


def _part_gram(part, cols, n, p):
    """Gram matrix of a coded partition's standardised responses (worker)."""
    values = part[0] if isinstance(part, tuple) else part
    return gram_matrix(_standardised(values, cols, n, p)[0])


def _distributed_start(data, keep, n_factors):
    """:func:`principal_start` of coded Dask input: the Gram matrix summed
    over the partitions on the workers (items x items reach the driver)."""
    cols = np.flatnonzero(keep)
    successes, observed = (np.asarray(t, dtype=np.float64)[cols]
                           for t in data.totals)
    p = np.clip(successes / np.maximum(observed, 1.0), 1e-3, 1.0 - 1e-3)
    G = data.summed(_part_gram, cols, observed, p)
    return start_from_gram(G, observed, p, n_factors)


def _fit_factor_storage(data, labels, keep, rate, n_agents, should_flip=None, *,
                        start, n_factors, rotation, grid, max_iter, tol):
    """:func:`fit_multidim` on built storage ``data`` of the kept items.

    ``start``: the anchored start and its mask (:func:`anchor_constraint`);
    ``should_flip`` is not used (the rotation orients the factors).
    """
    start, fixed = start
    n_items = keep.shape[0]
    params, state, n_iter, converged, trace = em(data, grid, start, max_iter, tol,
                                                 fixed)
    if not converged:
        warnings.warn(
            f"EM did not converge in max_iter={max_iter} iterations (tol={tol}); "
            "increase max_iter.", ConvergenceWarning, stacklevel=find_stack_level())
    _warn_separating_items(params, labels[keep])
    A, d = params[:, :-1], params[:, -1]
    T, back, loadings, general = rotate_solution(A, rotation)
    cov = louis_covariance(data, grid, params)
    jac = np.zeros((n_factors + 1, n_factors + 1))
    jac[:-1, :-1], jac[-1, -1] = back, 1.0
    se = covariance_errors(jac @ cov @ jac.T)
    scores = factor_moments(data, grid, params, _directions(T, general))
    n_params = int(keep.sum()) * (n_factors + 1) - n_factors * (n_factors - 1) // 2
    n_obs = float(data.n_observed().sum())  # computed on the workers (Dask)
    loglik = float(state["loglik"])
    full = np.full((n_items, n_factors), np.nan)
    full[keep] = loadings
    full_se = np.full((n_items, n_factors), np.nan)
    full_se[keep] = se[:, :-1]
    intercept = np.full(n_items, np.nan)
    intercept[keep] = d
    intercept_se = np.full(n_items, np.nan)
    intercept_se[keep] = se[:, -1]
    return {
        "discrimination_": full,
        "discrimination_se_": full_se,
        "intercept_": intercept,
        "intercept_se_": intercept_se,
        "factor_corr_": T.T @ T,
        "rotation_matrix_": T,
        "general_direction_": general,
        "constant_items_": labels[~keep],
        "log_likelihood_": loglik,
        "log_likelihood_trace_": trace,
        "n_parameters_": n_params,
        "n_observations_": n_obs,
        "aic_": -2.0 * loglik + 2.0 * n_params,
        "bic_": float(-2.0 * loglik + n_params * np.log(n_obs)),
        "n_iter_": int(n_iter),
        "abilities_": scores[:, 0, 0].copy(),
        "abilities_sd_": scores[:, 0, 1].copy(),
        "agent_scores_": scores[:, 0, 0].copy(),
        "factor_scores_": scores[:, 1:, 0].copy(),
        "factor_scores_sd_": scores[:, 1:, 1].copy(),
        "tasks_": labels,
        "quadrature_nodes_": grid.points,
        "quadrature_weights_": np.exp(grid.log_weights),
        "_item_params": params,
        "_factor_grid": grid,
        "_keep": keep,
        "_success_rate_items": rate,
        "_agent_success_rate": data.success_rate(),
    }


def rotate_solution(A, rotation):
    """Rotation of the loadings ``A`` and the general direction.

    Returns ``T`` (:func:`rotate_loadings` on the standardised loadings),
    ``back = inv(T)`` (rotated loadings: ``a_j^T T^{-T}``, i.e. ``back @
    a_j``), the rotated loadings and the unit direction of the general
    ability (the first principal axis of ``A``, signed so that the items'
    logits rise along it).
    """
    T = rotate_loadings(A, rotation, _standardised_scale(A))
    back = np.linalg.inv(T)
    general = np.linalg.svd(A, full_matrices=False)[2][0]
    general = general * (1.0 if np.sum(A @ general) >= 0 else -1.0)
    return T, back, A @ back.T, general


def _warn_separating_items(params, labels):
    """UserWarning naming the items whose parameters reached ``PARAM_CAP``."""
    capped = np.any(np.abs(params) >= PARAM_CAP * (1.0 - 1e-9), axis=1)
    if capped.any():
        warnings.warn(
            f"{int(capped.sum())} item(s) nearly separate the agents: a loading or "
            f"intercept reached the cap of {PARAM_CAP:g} (no finite maximum; the "
            f"item's curve is a step): {[_py(v) for v in labels[capped][:10]]}"
            + (" ..." if capped.sum() > 10 else ""),
            UserWarning, stacklevel=find_stack_level())


def _directions(T, general):
    """The general direction, then the rotated factors ``eta_f = T[:, f] . theta``."""
    return np.column_stack([general, T])


def factor_moments(data, grid, params, directions, posterior=None):
    """Posterior mean and sd of ``direction . theta`` for every agent and direction.

    Returns (n_agents, n_directions, 2); one pass of the store per direction.
    ``posterior(axis_grid)``: the store's pass giving ``mean`` and ``sd`` on
    a one-dimensional grid (default: the 2PL's, from ``params``).
    """
    if posterior is None:
        log_p, log_q = factor_log_tables(params, grid.points)

        def posterior(axis):
            return data.e_step_tables(log_p, log_q, axis, counts=False,
                                      moments=True)
    columns = []
    for k in range(directions.shape[1]):
        moments = posterior(grid.axis(directions[:, k]))
        columns += [moments["mean"], moments["sd"]]
    # a Dask array (rows on the workers) for a distributed store
    return stack_columns(*columns).reshape(data.n_agents, directions.shape[1], 2)


# ------------------------------------------------- the estimator's methods
class MultiFactorMixin:
    """The methods of :class:`IRT` that differ with ``n_factors > 1``.

    A fit with several factors sets ``factor_corr_``; the methods below read
    that fit (not the current ``n_factors``, which ``set_params`` may have
    changed since).
    """

    def _is_multifactor(self):
        return hasattr(self, "factor_corr_")

    def _check_multifactor_params(self):
        """ValueError for parameter values that do not go with ``n_factors``."""
        if self.n_factors == 1:
            if self.quadrature == "sobol":
                raise ValueError(
                    "quadrature='sobol' is for n_factors > 1; one ability uses "
                    "'rectangular' or 'gauss-hermite'."
                )
            return None
        if self.model not in _FACTOR_MODELS:
            raise ValueError(
                f"n_factors={self.n_factors} is available for model='2PL', "
                f"'GRM' and 'GPCM'; got model={self.model!r} (the other models "
                "fit one ability)."
            )
        if self.n_options is not None or self.guessing_prior is not None or (
                self.upper_prior is not None):
            raise ValueError(
                "n_options, guessing_prior and upper_prior apply to the 3PL and "
                "4PL; the multidimensional 2PL has no asymptotes."
            )

    def _factor_grid_for_fit(self, rng):
        """The grid of a fit with several factors (Sobol points seeded by ``rng``)."""
        seed = int(rng.randint(2**31 - 1))
        grid = make_factor_grid(self.quadrature, self.n_factors, self.n_quadrature,
                                self.quadrature_bound, seed)
        check_resolves_prior(grid.points, grid.log_weights, self.quadrature,
                             self.n_quadrature or "default", self.quadrature_bound)
        return grid

    def _multifactor_tables(self):
        """Store grid (general direction) and log tables of the fitted items."""
        grid = self._factor_grid
        return (grid.axis(self.general_direction_),
                *factor_log_tables(self._item_params, grid.points))

    def _multifactor_transform(self, values):
        with self._executor() as parallel:
            data = _make_storage(values, self._keep, algorithm=self.algorithm,
                                 chunk_size=self.chunk_size, parallel=parallel)
            moments = factor_moments(
                data, self._factor_grid, self._item_params,
                _directions(self.rotation_matrix_, self.general_direction_))
        return moments.reshape(moments.shape[0], -1)

    def _multifactor_names(self):
        m = self.factor_corr_.shape[0]
        names = ["ability", "ability_sd"]
        for f in range(1, m + 1):
            names += [f"factor_{f}", f"factor_{f}_sd"]
        return names

    def _multifactor_agent_columns(self, rate="success_rate"):
        columns = {rate: self._agent_success_rate}
        for f in range(self.factor_corr_.shape[0]):
            columns[f"factor_{f + 1}"] = self.factor_scores_[:, f]
            columns[f"factor_{f + 1}_sd"] = self.factor_scores_sd_[:, f]
        return columns

    def _multifactor_task_columns(self):
        columns = self._loading_columns()
        columns.update(intercept=self.intercept_, intercept_se=self.intercept_se_,
                       success_rate=self._success_rate_items, left_out=~self._keep)
        return columns

    def _loading_columns(self):
        """``discrimination_f`` and ``discrimination_f_se`` of every factor."""
        columns = {}
        for f in range(self.factor_corr_.shape[0]):
            columns[f"discrimination_{f + 1}"] = self.discrimination_[:, f]
            columns[f"discrimination_{f + 1}_se"] = self.discrimination_se_[:, f]
        return columns

    def _check_multifactor_target(self, target):
        if self.n_factors == 1 or target in (None, "agent_scores", "abilities"):
            return
        if target not in ("difficulty", "discrimination"):
            raise unknown_target(target, ("abilities",), "IRT(n_factors > 1)")
        raise ValueError(
            f"target={target!r}: intervals of item parameters are for one "
            "ability (n_factors=1); with several factors the general "
            "ability ('abilities') is ranked."
        )

