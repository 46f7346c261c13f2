"""Several abilities for the ordered-category models: the GRM and GPCM with
``n_factors > 1``.

Item ``j`` with categories ``0..K-1`` has slopes ``a_j`` (one per factor)
and intercepts; ``theta ~ N(0, I_m)`` while estimating:

- graded response model: ``P(X >= k | theta) = expit(a_j . theta + d_jk)``,
  ``d_j1 > ... > d_j,K-1``;
- generalised partial credit model (mirt's ``gpcm`` with the scoring fixed at
  ``0..K-1``): category ``k`` has the logit ``sum_{v <= k} (a_j . theta +
  s_jv)``, i.e. ``P(X = k) ∝ exp(k a_j . theta + D_jk)`` with ``D_jk =
  s_j1 + ... + s_jk``.

In several dimensions an item has no location on one scale: its thresholds
(steps) are reported as these intercepts ``d_jk`` (``s_jk``), a larger one
meaning an easier category boundary (one ability: ``b_k = -d_k / a``).

Everything is shared with the other models: the category probabilities,
scores and Fisher-scoring M-step of :mod:`._graded` (which take points of
several abilities), the indicator store of :mod:`._graded_store`, and the
grids, principal-component start, anchor identification, rotation, general
ability and factor scores of the multidimensional 2PL (:mod:`._multidim`).
EM is the shared SQUAREM loop (an extrapolation is kept only where it raises
the likelihood: the log-likelihood never decreases).
"""

import math
import warnings
from types import SimpleNamespace

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning

from ..utils._stack import find_stack_level
from ._em import _squarem_vector
from ._em_loop import squarem_em
from ._fitted import shared_fitted
from ._graded import category_mask, m_step, ordered, start_values
from ._graded_fit import (
    _category_counts,
    _counts_by_category,
    _massive_nodes,
    _new_indicators,
    category_columns,
    indicators,
    item_moment_sums,
    largest_code,
    make_coding,
    mean_categories,
    observed_information,
    tables,
)
from ._graded_store import _CategoricalResponses
from ._information import covariance_errors
from ._multidim import (
    PARAM_CAP,
    _directions,
    _warn_separating_items,
    anchor_constraint,
    check_identifiable,
    factor_moments,
    gram_matrix,
    principal_slopes,
    rotate_solution,
)


def code_moments(sums, coding):
    """Responses, mean and sd of the codes of every kept item.

    ``sums``: per item, the responses, sum of codes and sum of squared codes
    (rows 0, 1 and 4 of :func:`._graded_fit.item_moment_sums`).
    """
    n, sx, sxx = (np.asarray(sums[k], dtype=np.float64)[coding.keep]
                  for k in (0, 1, 4))
    mean = sx / np.maximum(n, 1.0)
    var = sxx / np.maximum(n, 1.0)
    return n, mean, np.sqrt(np.maximum(var - mean**2, 1e-12))


def code_quantum(moments, largest, n_agents):
    """The grid the start rounds standardised codes to: exact Gram sums.

    ``moments``: :func:`code_moments` of all agents; ``largest``: the largest
    magnitude of a category value; ``n_agents``: all the agents. A code
    standardised by an item's mean and sd is at most ``z = 2 largest /
    min(sd)`` in magnitude; rounded to multiples of ``2**-s`` with ``n_agents
    z**2 4**s < 2**52``, every product of two is exact and so is any sum of
    them, in any order: the Gram matrix does not depend on how the agents are
    grouped (in memory or in partitions on Dask workers). The rounding moves
    a code by at most ``2**-(s+1)`` (about 1e-4 at a million agents and ten
    categories), which only the starting values see.
    """
    sd = np.asarray(moments[2], dtype=np.float64)
    z = 2.0 * max(float(largest), 1.0) / max(float(sd.min(initial=np.inf)), 1e-12)
    s = math.floor((52.0 - math.log2(max(int(n_agents), 1) * z * z)) / 2.0)
    return 2.0 ** -min(s, 30)


def _standardised_codes(cells, coding, moments, quantum):
    """Category codes centred and scaled per kept item (missing cells 0).

    ``moments``: :func:`code_moments` of all agents (a partition of the
    agents takes those of all agents); ``quantum``: the grid of
    :func:`code_quantum` the codes are rounded to.
    """
    index = np.cumsum(coding.keep) - 1
    take = coding.keep[cells.cols]
    rows, cols, x = cells.rows[take], index[cells.cols[take]], cells.values[take]
    J = int(coding.keep.sum())
    n, mean, sd = moments
    z = np.round((x - mean[cols]) / sd[cols] / quantum) * quantum
    return sparse.csr_array((z, (rows, cols)), shape=(cells.shape[0], J)), n


def code_gram(cells, coding, moments, quantum):
    """Gram matrix of the standardised codes (kept items; sums over agents)."""
    return gram_matrix(_standardised_codes(cells, coding, moments, quantum)[0])


def factor_start(cells, coding, model, n_factors, rng=None):
    """Starting ``(a_1..a_m, d_1..)`` and the mask of the anchors' loadings.

    Slopes from the principal components of the standardised codes (as the
    multidimensional 2PL; the codes on the grid of :func:`code_quantum`),
    intercepts reproducing each item's category proportions
    (:func:`._graded.start_values`), then the anchor rotation of
    :func:`._multidim.anchor_constraint`. The components are exact up to
    :data:`._multidim.GRAM_ITEMS` items, from a randomized SVD seeded by
    ``rng`` beyond.
    """
    largest = largest_code(cells.values)
    moments = code_moments(item_moment_sums(cells, largest), coding)
    Z, n = _standardised_codes(cells, coding, moments,
                               code_quantum(moments, largest, cells.shape[0]))
    slopes, _ = principal_slopes(Z, n, n_factors, rng)
    params = start_values(model, _category_counts(cells, coding), slopes=slopes)
    return anchor_constraint(params, n_factors)


def start_from_gram(G, n, counts, model, n_factors):
    """:func:`factor_start` from the Gram matrix of the standardised codes
    and the category counts (sums over the agents: on Dask input, over the
    partitions)."""
    slopes, _ = principal_slopes(None, n, n_factors, gram=G)
    params = start_values(model, counts, slopes=slopes)
    return anchor_constraint(params, n_factors)


def em_factors(data, grid, params, model, coding, fixed, max_iter, tol):
    """EM from ``params`` with the loadings ``fixed`` held at 0.

    Returns ``(params, state, n_iter, converged, trace)``; ``trace`` is the
    log-likelihood at the start and after every iteration (non-decreasing).
    """
    axis = grid.axis()
    m = grid.points.shape[1]
    free = category_mask(params, m) & ~fixed

    def e_step(p):
        return data.e_step(tables(model, p, coding, grid.points), axis)

    def em_map(state, p):
        r, points = _massive_nodes(state["r"], grid.points)
        return m_step(model, p, _counts_by_category(r, coding), points,
                      fixed=fixed, cap=PARAM_CAP)

    def extrapolate(p0, p1, p2):
        v = _squarem_vector(p0[free], p1[free], p2[free], 64.0)
        if v is None or not np.all(np.isfinite(v)):
            return None
        trial = p0.copy()
        trial[free] = np.clip(v, -PARAM_CAP, PARAM_CAP)
        return trial if ordered(model, trial, m) else None

    trace = []
    params, state, n_iter, converged = squarem_em(
        params, e_step=e_step, em_map=em_map,
        objective=lambda p, state: state["loglik"], extrapolate=extrapolate,
        max_iter=max_iter, tol=tol, n_agents=data.n_agents, trace=trace)
    return params, state, n_iter, converged, np.asarray(trace)


def _reported_covariance(model, params, info, back):
    """Covariance of the rotated slopes and the reported intercepts, per item.

    ``back``: the rotation's inverse (rotated slopes ``back @ a_j``). GPCM
    steps are the differences of the cumulative intercepts. NaN for an item
    whose information is singular.
    """
    m = back.shape[0]
    valid = category_mask(params, m)
    J, n_params = params.shape
    jac = np.eye(n_params)
    jac[:m, :m] = back
    if model == "GPCM":
        k = np.arange(m + 1, n_params)
        jac[k, k - 1] = -1.0
    cov = np.full((J, n_params, n_params), np.nan)
    for j in range(J):
        free = np.flatnonzero(valid[j])
        try:
            inverse = np.linalg.inv(info[j][np.ix_(free, free)])
        except np.linalg.LinAlgError:
            continue
        if not np.all(np.isfinite(inverse)) or np.any(np.diag(inverse) <= 0):
            continue
        part = jac[np.ix_(free, free)]
        cov[j][np.ix_(free, free)] = part @ inverse @ part.T
    return cov


def _intercepts(model, params, m):
    """The reported intercepts: GRM ``d_k``; GPCM steps ``D_k - D_{k-1}``."""
    D = params[:, m:]
    if model == "GRM":
        out = D.copy()
    else:
        previous = np.concatenate([np.zeros((D.shape[0], 1)), D[:, :-1]], axis=1)
        with np.errstate(invalid="ignore"):
            out = D - previous
    return np.where(np.isfinite(D), out, np.nan)


def _posterior(data, log_p):
    """The store's moments pass on a one-dimensional view of the grid."""
    def posterior(axis):
        return data.e_step(log_p, axis, counts=False, moments=True)
    return posterior


def _scatter_rows(values, keep):
    out = np.full((keep.size,) + values.shape[1:], np.nan)
    out[keep] = values
    return out


def fit_graded_factors(checked, *, model, n_factors, rotation, grid, settings,
                       chunk_size, parallel, rng=None):
    """Everything :meth:`IRT.fit` learns for a GRM/GPCM with several factors."""
    cells, labels, codes, keep, agents = checked
    m = n_factors
    coding = make_coding(codes, keep)
    csr = indicators(cells, coding, f"IRT(model={model!r}, n_factors={m})", labels)
    n_params = check_factors(coding, m, float(csr.nnz), cells.shape[1])
    data = _CategoricalResponses(csr, chunk_size=chunk_size, parallel=parallel,
                                 n_nodes=len(grid))
    mean, agent_mean = mean_categories(cells)
    fitted = fit_factor_store(
        data, factor_start(cells, coding, model, m, rng), labels=labels, codes=codes,
        coding=coding, model=model, n_factors=m, rotation=rotation, grid=grid,
        settings=settings, n_obs=float(csr.nnz), n_params=n_params, mean=mean,
        agent_mean=agent_mean)
    fitted["agents_"] = agents
    return fitted


def check_factors(coding, n_factors, n_obs, n_items):
    """ValueError when ``n_factors`` exceeds what the responses identify;
    else the number of free parameters."""
    m = n_factors
    n_items_kept = int(coding.keep.sum())
    n_params = (int(np.sum(coding.n_categories - 1)) + n_items_kept * m
                - m * (m - 1) // 2)
    check_identifiable(m, n_items_kept, n_obs, n_items, n_params=n_params)
    return n_params


def fit_factor_store(data, start, *, labels, codes, coding, model, n_factors,
                     rotation, grid, settings, n_obs, n_params, mean, agent_mean):
    """:func:`fit_graded_factors` on an indicator store ``data`` (in memory or
    on a Dask cluster) from ``start`` (params, mask of the anchors' loadings).

    ``n_params``: from :func:`check_factors`, which the caller runs before
    building the store; ``mean``: mean code per item; ``agent_mean``: per
    agent (numpy or Dask).
    """
    m, keep = n_factors, coding.keep
    start, fixed = start
    params, state, n_iter, converged, trace = em_factors(
        data, grid, start, model, coding, fixed, settings.max_iter, settings.tol)
    if not converged:
        warnings.warn(
            f"EM did not converge in max_iter={settings.max_iter} iterations "
            f"(tol={settings.tol}); increase max_iter.", ConvergenceWarning,
            stacklevel=find_stack_level())
    _warn_separating_items(np.where(np.isfinite(params), params, 0.0),
                           labels[keep])
    A = params[:, :m]
    T, back, loadings, general = rotate_solution(A, rotation)
    info, _ = observed_information(data, grid.axis(), params, model, coding,
                                   points=grid.points)
    se = covariance_errors(_reported_covariance(model, params, info, back))
    log_p = tables(model, params, coding, grid.points)
    scores = factor_moments(data, grid, params, _directions(T, general),
                            posterior=_posterior(data, log_p))
    column = "thresholds" if model == "GRM" else "steps"
    moments = {"mean": scores[:, 0, 0], "sd": scores[:, 0, 1]}
    flat = SimpleNamespace(nodes=grid.points, log_weights=grid.log_weights)
    return {
        "discrimination_": _scatter_rows(loadings, keep),
        "discrimination_se_": _scatter_rows(se[:, :m], keep),
        f"{column}_": _scatter_rows(_intercepts(model, params, m), keep),
        f"{column}_se_": _scatter_rows(np.where(
            np.isfinite(params[:, m:]), se[:, m:], np.nan), keep),
        "n_categories_": np.array([c.size for c in codes]),
        "categories_": [c.copy() for c in codes],
        "factor_corr_": T.T @ T,
        "rotation_matrix_": T,
        "general_direction_": general,
        "factor_scores_": scores[:, 1:, 0].copy(),
        "factor_scores_sd_": scores[:, 1:, 1].copy(),
        "log_likelihood_trace_": trace,
        **shared_fitted(loglik=float(state["loglik"]), n_params=n_params,
                        n_obs=n_obs, n_iter=n_iter, moments=moments,
                        labels=labels, keep=keep, grid=flat),
        "_item_params": params,
        "_coding": coding,
        "_factor_grid": grid,
        "_success_rate_items": mean,
        "_agent_success_rate": agent_mean,
    }


class GradedFactorMixin:
    """The methods of :class:`IRT` for a GRM/GPCM fitted with several factors."""

    def _graded_factor_transform(self, X):
        """General ability, then every rotated factor: means and sds."""
        csr = _new_indicators(self, X)
        with self._executor() as parallel:
            data = _CategoricalResponses(csr, chunk_size=self.chunk_size,
                                         parallel=parallel,
                                         n_nodes=len(self._factor_grid))
            return self._graded_factor_scores(data)

    def _graded_factor_scores(self, data):
        """:meth:`_graded_factor_transform` of an indicator store (in memory
        or on a Dask cluster: then a Dask array)."""
        grid = self._factor_grid
        log_p = tables(self.model, self._item_params, self._coding, grid.points)
        moments = factor_moments(
            data, grid, self._item_params,
            _directions(self.rotation_matrix_, self.general_direction_),
            posterior=_posterior(data, log_p))
        return moments.reshape(moments.shape[0], -1)

    def _graded_factor_agent_columns(self):
        return self._multifactor_agent_columns("mean_category")

    def _graded_factor_task_columns(self):
        columns = self._loading_columns()
        columns.update(category_columns(self))
        columns.update(n_categories=self.n_categories_,
                       mean_category=self._success_rate_items,
                       left_out=~self._keep)
        return columns
