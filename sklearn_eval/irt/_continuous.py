"""Continuous scores in [0, 1]: validation, storage, EM and standard errors.

The scores of the kept items are stored once as two statistics ``T1``, ``T2``
and an observation mask, either as dense arrays (0 where missing) or as CSR
arrays sharing the pattern of the observed cells, so every pass is a few
matrix products in O(observed responses) for sparse input. The E-step gives
per (node, item) the posterior mass ``N``, the posterior-weighted sums ``S1``
and ``S2`` (and, for the standard errors, the sums of the squares and product
``S11``, ``S12``, ``S22``): everything the M-step of
:mod:`._continuous_models` reads.
"""

import warnings

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.parallel import delayed

from ..utils import check_empty_agents, check_result_matrix
from ..utils._protocol import column_labels
from ..utils._sparse import check_sparse_result, is_sparse_input
from ..utils._stack import find_stack_level
from ..utils._validation import _py
from ._binary_models import standardise_latent
from ._continuous_models import (
    MODELS,
    chain,
    clip_params,
    gradient_hessian,
    item_objective,
    m_step,
)
from ._em import _squarem_vector
from ._em_loop import squarem_em
from ._fit import _scatter, _should_flip
from ._fitted import shared_fitted
from ._responses import EMPTY_REMEDY, _agent_labels, _unpack

CONTINUOUS_MODELS = tuple(MODELS)
# entries of a per-(agent, node) block
_BLOCK_ENTRIES = 2**21


# --------------------------------------------------------------- validation
def check_scores(X):
    """Validated scores in [0, 1] (float64 array with NaN, or CSR) and labels.

    Returns ``(values, agents, tasks)`` as ``_check_responses`` does for 0/1
    responses; a score outside [0, 1] raises a ValueError naming its item,
    row and value.
    """
    inner, agents, tasks = _unpack(X)
    if is_sparse_input(inner):
        values = check_sparse_result(inner, binary=False)
        coo = sparse.coo_array(values)
        rows, cols, data = coo.row, coo.col, coo.data
    else:
        checked = check_result_matrix(inner, allow_nan=True)
        values = np.asarray(checked.values, dtype=np.float64)
        agents = checked.agents if agents is None else agents
        tasks = checked.tasks if tasks is None else tasks
        rows, cols = np.nonzero(~np.isnan(values))
        data = values[rows, cols]
    bad = ~((data >= 0.0) & (data <= 1.0)) & ~np.isnan(data)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        names = (np.asarray(tasks, dtype=object) if tasks is not None
                 else column_labels(X, values.shape[1]))
        raise ValueError(
            f"Continuous scores must lie in [0, 1]; item {_py(names[cols[k]])!r} "
            f"has {float(data[k])!r} in row {int(rows[k])} ({int(bad.sum())} such "
            "score(s))."
        )
    return values, agents, tasks


def _cells(values):
    """CSR pattern of the observed scores: ``(indptr, indices, data)``."""
    if is_sparse_input(values):
        csr = sparse.csr_array(values)
        rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
        seen = ~np.isnan(csr.data)
        counts = np.bincount(rows[seen], minlength=csr.shape[0])
        indptr = np.concatenate([[0], np.cumsum(counts)])
        return indptr, csr.indices[seen], np.asarray(csr.data[seen], np.float64)
    observed = ~np.isnan(values)
    indptr = np.concatenate([[0], np.cumsum(observed.sum(axis=1))])
    rows, cols = np.nonzero(observed)
    return indptr, cols, values[rows, cols]


def clip_scores(data, clip, labels, cols, *, warn=True):
    """Exact 0 and 1 moved to ``clip`` and ``1 - clip``, with a warning."""
    exact = (data == 0.0) | (data == 1.0)
    if warn and exact.any():
        warn_clipped(int(exact.sum()), np.unique(cols[exact]), clip, labels)
    return np.where(exact, np.clip(data, clip, 1.0 - clip), data)


def warn_clipped(n_exact, items, clip, labels):
    """The warning of :func:`clip_scores`: ``n_exact`` scores of ``items``."""
    warnings.warn(
        f"{n_exact} score(s) exactly 0 or 1 were moved to "
        f"score_clip={clip} or 1 - score_clip (the continuous models have "
        f"densities on (0, 1)); items: "
        f"{', '.join(str(v) for v in labels[items][:10])}"
        + (" ..." if items.size > 10 else ""),
        UserWarning, stacklevel=find_stack_level())


def summarise_scores(values, labels, clip, *, what="IRT.fit"):
    """Kept agents, the cells, the kept items and the mean score per item."""
    n_agents, n_items = values.shape
    if n_items < 2 or n_agents < 2:
        raise ValueError(
            f"IRT needs at least 2 agents and 2 items; got {n_agents} x {n_items}.")
    rows_kept = check_empty_agents(values, None, what=what, remedy=EMPTY_REMEDY)
    indptr, cols, data = _cells(values)
    data = clip_scores(data, clip, labels, cols)
    keep, rate = kept_items(*item_sums(cols, data, n_items), labels)
    return rows_kept, (indptr, cols, data), keep, rate


def item_sums(cols, data, n_items):
    """Per item: responses, sum, lowest and highest (clipped) score."""
    count = np.bincount(cols, minlength=n_items).astype(float)
    total = np.bincount(cols, weights=data, minlength=n_items)
    low = np.full(n_items, np.inf)
    high = np.full(n_items, -np.inf)
    np.minimum.at(low, cols, data)
    np.maximum.at(high, cols, data)
    return count, total, low, high


def kept_items(count, total, low, high, labels):
    """The estimated items and the mean score per item (warning, errors)."""
    n_items = count.size
    keep = (count >= 2) & (high > low)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(count > 0, total / count, np.nan)
    if keep.sum() < 2:
        raise ValueError(
            "IRT needs at least 2 items with two different observed scores; "
            f"got {int(keep.sum())} of {n_items}.")
    if not keep.all():
        warnings.warn(
            f"{int((~keep).sum())} item(s) with one distinct score (or fewer "
            f"than 2 responses) were left out of estimation: "
            f"{', '.join(repr(_py(v)) for v in labels[~keep][:10])}"
            + (" ..." if (~keep).sum() > 10 else ""),
            UserWarning, stacklevel=find_stack_level())
    return keep, rate


# ------------------------------------------------------------------ storage
class ScoreStore:
    """The statistics of the observed scores of the kept items.

    ``cells`` is ``(indptr, indices, data)`` over all items of ``values``;
    ``keep`` selects the items. ``dense`` stores masked arrays, else CSR.
    """

    def __init__(self, cells, n_agents, keep, model, *, dense=None,
                 parallel=None, chunk_size=None):
        indptr, cols, data = cells
        index = np.cumsum(keep) - 1
        rows = np.repeat(np.arange(n_agents), np.diff(indptr))
        seen = keep[cols]
        rows, cols, data = rows[seen], index[cols[seen]], data[seen]
        self.n_agents, self.n_items = n_agents, int(keep.sum())
        self.model = MODELS[model]
        t1, t2, h = self.model.statistics(data)
        self.rows, self.cols, self.t1, self.t2 = rows, cols, t1, t2
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(
            rows, minlength=n_agents))])
        self.base = np.bincount(rows, weights=h, minlength=n_agents)
        self.counts = np.bincount(rows, minlength=n_agents).astype(float)
        shape = (n_agents, self.n_items)
        if dense is None:
            dense = rows.size >= 0.3 * max(n_agents * self.n_items, 1)
        self.dense = dense
        self.parallel = parallel
        self.chunk_size = chunk_size
        self.M, self.T1, self.T2 = (self._matrix(v, shape) for v in
                                    (np.ones_like(t1), t1, t2))
        self.T11, self.T12, self.T22 = None, None, None

    def _matrix(self, values, shape):
        if self.dense:
            out = np.zeros(shape)
            out[self.rows, self.cols] = values
            return out
        return sparse.csr_array((values, (self.rows, self.cols)), shape=shape)

    def squares(self):
        if self.T11 is None:
            shape = (self.n_agents, self.n_items)
            self.T11, self.T12, self.T22 = (self._matrix(v, shape) for v in (
                self.t1 * self.t1, self.t1 * self.t2, self.t2 * self.t2))
        return self.T11, self.T12, self.T22

    def blocks(self, n_nodes):
        size = self.chunk_size or max(
            1, _BLOCK_ENTRIES // max(n_nodes, self.n_items, 1))
        return [slice(s, min(s + size, self.n_agents))
                for s in range(0, self.n_agents, size)]

    def _block(self, rows, tables, grid, stats, moments, keep_post, squares):
        c0, A, B = tables
        log = (self.M[rows] @ c0.T + self.T1[rows] @ A.T + self.T2[rows] @ B.T
               + self.base[rows, None] + grid.log_weights)
        top = log.max(axis=1, keepdims=True)
        post = np.exp(log - top)
        total = post.sum(axis=1, keepdims=True)
        post /= total
        norm = (top + np.log(total))[:, 0]
        out = {"per_agent": norm}
        if stats:
            out["N"] = np.asarray(self.M[rows].T @ post).T
            out["mass"] = post.sum(axis=0)
            out["S1"] = np.asarray(self.T1[rows].T @ post).T
            out["S2"] = np.asarray(self.T2[rows].T @ post).T
            if squares:
                for key, T in zip(("S11", "S12", "S22"), self.squares(), strict=True):
                    out[key] = np.asarray(T[rows].T @ post).T
        if moments:
            mean = post @ grid.nodes
            var = np.maximum(post @ grid.nodes**2 - mean**2, 0.0)
            out["mean"], out["sd"] = mean, np.sqrt(var)
        if keep_post:
            out["post"] = post
        return out

    def e_step(self, tables, grid, *, stats=True, moments=False, post=False,
               squares=False):
        """Log-likelihood, per-agent terms, node statistics, moments."""
        blocks = self.blocks(len(grid))

        def run(rows):
            return self._block(rows, tables, grid, stats, moments, post, squares)

        if self.parallel is None or len(blocks) == 1:
            parts = [run(rows) for rows in blocks]
        else:
            parts = self.parallel(delayed(run)(rows) for rows in blocks)
        out = {"per_agent": np.concatenate([p["per_agent"] for p in parts])}
        out["loglik"] = float(out["per_agent"].sum())
        for key in ("N", "S1", "S2", "S11", "S12", "S22", "mass"):
            if key in parts[0]:
                out[key] = sum(p[key] for p in parts)
        for key in ("mean", "sd", "post"):
            if key in parts[0]:
                out[key] = np.concatenate([p[key] for p in parts])
        return out

    def mean_score(self):
        """Mean observed score of every agent (NaN without responses)."""
        x = np.bincount(self.rows, weights=_score(self), minlength=self.n_agents)
        with np.errstate(invalid="ignore", divide="ignore"):
            return x / self.counts


def _score(store):
    """The scores back from the statistics (T1 = log x or logit x)."""
    if store.model.name == "beta":
        return np.exp(store.t1)
    return 1.0 / (1.0 + np.exp(-store.t1))


# ----------------------------------------------------------------------- EM
def _logit_scores(store):
    return store.t1 if store.model.name != "beta" else store.t1 - store.t2


def _row_means(store):
    z = _logit_scores(store)
    return np.bincount(store.rows, weights=z, minlength=store.n_agents) / \
        np.maximum(store.counts, 1)


def row_mean_sums(store, center=None):
    """Agents and the sum of their mean logit scores (``center`` None), or of
    their squared deviations from ``center``."""
    row_mean = _row_means(store)
    if center is None:
        return np.array([row_mean.size, row_mean.sum()])
    return np.array([row_mean.size, np.sum((row_mean - center) ** 2)])


def _standardised(store, center, sd):
    """Every observed cell's standardised mean logit score of its agent."""
    row_mean = _row_means(store)
    theta = (row_mean - center) / sd if sd > 0 else np.zeros_like(row_mean)
    return theta[store.rows]


def _per_item(store, v):
    return np.bincount(store.cols, weights=v, minlength=store.n_items)


def start_sums(store, center, sd):
    """Per item: n, sum t, sum t^2, sum z, sum t z (t standardised, z logit)."""
    t, z = _standardised(store, center, sd), _logit_scores(store)
    return np.stack([_per_item(store, v) for v in (np.ones_like(t), t, t * t, z,
                                                   t * z)])


def scale_sums(store, center, sd, a, d):
    """Per item, the residual sums the start of the scale parameter needs."""
    t, z = _standardised(store, center, sd), _logit_scores(store)
    eta = a[store.cols] * t + d[store.cols]
    if store.model.name == "beta":
        x = _score(store)
        mu = 1.0 / (1.0 + np.exp(-eta))
        return np.stack([_per_item(store, (x - mu) ** 2),
                         _per_item(store, mu * (1 - mu))])
    return np.stack([_per_item(store, (z - eta) ** 2)])


def start_params(store):
    """Regression of each item's logit score on standardised mean logit scores.

    Built from sums over the agents (:func:`row_mean_sums`,
    :func:`start_sums`, :func:`scale_sums`), which a store on Dask workers
    adds up across its partitions.
    """
    sums = getattr(store, "sums", None) or (lambda f, *args: f(store, *args))
    n_rows, total = sums(row_mean_sums)
    center = total / n_rows
    sd = float(np.sqrt(sums(row_mean_sums, center)[1] / n_rows))
    n, st, szz, sz, stz = sums(start_sums, center, sd)
    det = n * szz - st * st
    a = np.where(det > 1e-12, (n * stz - st * sz) / np.where(det > 1e-12, det, 1),
                 0.0)
    a = np.where(np.abs(a) < 0.05, 0.05, a)
    d = (sz - a * st) / n
    residual = sums(scale_sums, center, sd, a, d)
    if store.model.name == "beta":
        s = store.model.start_scale(residual[0] / n, residual[1] / n)
    else:
        s = store.model.start_scale(residual[0] / n, None)
    return np.column_stack([a, d, s])


_NOT_RESOLVED = (
    "The marginal log-likelihood of the scores is not finite on this grid "
    "({} {} nodes): continuous scores give narrow ability posteriors that fall "
    "between its nodes. Use quadrature='rectangular' (the default) and, if "
    "needed, more nodes (n_quadrature).")


def em(store, grid, params, max_iter, tol):
    """EM with SQUAREM extrapolation kept only when it raises the likelihood.

    The beta model's EM is parameter-expanded in the latent location and
    scale (:func:`._binary_models.standardise_latent`, as the binary
    models'): continuous scores give narrow posteriors, and plain EM moves
    the items' common location and scale by a small fraction of the way per
    E-step. Measured on beta draws (precision 20): 3,000 x 40 in 12 E-steps
    instead of 46, 5,000 x 100 half observed 12 instead of 60, 300 x 200 12
    instead of 106, each ending as high or higher. The logit-normal model's
    EM is not expanded: on 3,000 x 40 of the same draws (an item at ``a =
    12``, the logit of scores near 0) it took 424 E-steps instead of 46,
    though 8 instead of 18 and 34 on the other two.
    """
    model, nodes = store.model, grid.nodes

    def e_step(p):
        state = store.e_step(model.tables(p, nodes), grid)
        if not np.isfinite(state["loglik"]):
            raise ValueError(_NOT_RESOLVED.format(len(grid), grid.kind))
        return state

    def extrapolate(p0, p1, p2):
        v = _squarem_vector(p0.ravel(), p1.ravel(), p2.ravel(), 64.0)
        if v is None or not np.all(np.isfinite(v)):
            return None
        return clip_params(v.reshape(p0.shape))

    def em_map(state, p):
        return m_step(model, p, nodes, state)

    def expand(state, p):
        return clip_params(standardise_latent(p, state["mass"], nodes))

    return squarem_em(
        params, e_step=e_step, em_map=em_map,
        objective=lambda p, state: state["loglik"], extrapolate=extrapolate,
        max_iter=max_iter, tol=tol, n_agents=store.n_agents,
        expand=expand if model.name == "beta" else None)


def louis_covariance(store, grid, params):
    """Covariance of each item's ``(a, d, s)`` from Louis' observed information.

    ``I_j = -E[d2 l_j] - sum_i Var_i[s_ij]`` with the expectations over each
    agent's posterior (the items' blocks, as for the binary models).
    """
    model, nodes = store.model, grid.nodes
    der = model.derivatives(params, nodes)
    t = nodes[:, None]

    def vec(first):  # the score in (a, d, s) of a table: (K, J, 3)
        return np.stack([t * first[0], first[0], first[1]], axis=-1)

    g0, g1, g2 = vec(der["c0"][0]), vec(der["A"][0]), vec(der["B"][0])
    sums = getattr(store, "sums", None) or (lambda f, *args: f(store, *args))
    state = sums(louis_sums, model.tables(params, nodes), grid, g0, g1, g2)
    _, hess = gradient_hessian(model, params, nodes, state)

    def outer(u, v, w):  # sum over nodes of w * (u v^T + v u^T) / 2
        return 0.5 * (np.einsum("kj,kjp,kjq->jpq", w, u, v)
                      + np.einsum("kj,kjp,kjq->jpq", w, v, u))

    second = (outer(g0, g0, state["N"]) + 2 * outer(g0, g1, state["S1"])
              + 2 * outer(g0, g2, state["S2"]) + outer(g1, g1, state["S11"])
              + 2 * outer(g1, g2, state["S12"]) + outer(g2, g2, state["S22"]))
    J = store.n_items
    info = -hess - second + state["mean_outer"]
    cov = np.full((J, 3, 3), np.nan)
    for j in range(J):
        try:
            w = np.linalg.eigvalsh(info[j])
            if w[0] > 1e-10 * max(w[-1], 1e-300):
                cov[j] = np.linalg.inv(info[j])
        except np.linalg.LinAlgError:
            pass
    return cov


def louis_sums(store, tables, grid, g0, g1, g2):
    """The E-step sums of Louis' information and ``sum_i E_i[s] E_i[s]^T``.

    ``g0``, ``g1``, ``g2``: the scores in ``(a, d, s)`` of the three tables,
    (n_nodes, n_items, 3). Sums over the agents (``N`` ... ``S22`` and
    ``mean_outer``), without the posteriors.
    """
    state = store.e_step(tables, grid, post=True, squares=True)
    J, K = store.n_items, len(grid)
    mean_outer = np.zeros((J, 3, 3))
    post = state.pop("post")
    # per observed cell: E_i[s_ij] = sum_k post_ik (g0 + T1 g1 + T2 g2)[k, j],
    # in chunks of cells (O(observed x nodes), dense or sparse alike)
    step = max(1, _BLOCK_ENTRIES // (3 * K))
    for lo in range(0, store.rows.size, step):
        cut = slice(lo, min(lo + step, store.rows.size))
        r, c = store.rows[cut], store.cols[cut]
        P = post[r]
        Es = (np.einsum("ck,kcp->cp", P, g0[:, c])
              + store.t1[cut, None] * np.einsum("ck,kcp->cp", P, g1[:, c])
              + store.t2[cut, None] * np.einsum("ck,kcp->cp", P, g2[:, c]))
        for p in range(3):
            for q in range(p, 3):
                v = np.bincount(c, weights=Es[:, p] * Es[:, q], minlength=J)
                mean_outer[:, p, q] += v
                if q != p:
                    mean_outer[:, q, p] += v
    keys = ("N", "S1", "S2", "S11", "S12", "S22")
    return {"loglik": state["loglik"], **{key: state[key] for key in keys},
            "mean_outer": mean_outer}


def fit_continuous(cells, n_agents, labels, keep, rate, *, model, grid,
                   max_iter, tol, parallel, algorithm, chunk_size=None):
    """Everything :meth:`IRT.fit` learns for a continuous model, as a dict."""
    dense = {"dense": True, "sparse": False}.get(algorithm)
    store = ScoreStore(cells, n_agents, keep, model, dense=dense,
                       parallel=parallel, chunk_size=chunk_size)
    return fit_score_store(store, labels, keep, rate, grid=grid, max_iter=max_iter,
                           tol=tol)


def fit_score_store(store, labels, keep, rate, *, grid, max_iter, tol):
    """:func:`fit_continuous` on a built store (per-agent results: Dask
    arrays for a store on Dask workers)."""
    params = start_params(store)
    params, state, n_iter, converged = em(store, grid, params, max_iter, tol)
    if not converged:
        warnings.warn(
            f"EM did not converge in max_iter={max_iter} iterations (tol={tol}); "
            "increase max_iter.", ConvergenceWarning, stacklevel=find_stack_level())
    spec = store.model
    moments = store.e_step(spec.tables(params, grid.nodes), grid, stats=False,
                           moments=True)
    if getattr(store, "should_flip", _should_flip)(moments["mean"],
                                                  store.mean_score()):
        params[:, 0] *= -1.0
        moments = store.e_step(spec.tables(params, grid.nodes), grid,
                               stats=False, moments=True)
    _warn_coarse_grid(moments["sd"], grid)
    cov = louis_covariance(store, grid, params)
    a, d, s = params.T
    _warn_flat_items(a, labels[keep])
    b = -d / a
    jac_b = np.stack([d / a**2, -1.0 / a, np.zeros_like(a)], axis=1)
    scale = spec.report_scale(s)
    se = {"discrimination_se_": np.sqrt(cov[:, 0, 0]),
          "difficulty_se_": np.sqrt(np.einsum("jp,jpq,jq->j", jac_b, cov, jac_b)),
          f"{spec.scale_name}_se_": scale * np.sqrt(cov[:, 2, 2])}
    n_items = keep.size
    n_params = 3 * int(keep.sum())
    loglik = float(moments["loglik"])
    n_obs = float(store.counts.sum())
    fitted = {
        "discrimination_": _scatter(a, keep, n_items),
        "difficulty_": _scatter(b, keep, n_items),
        f"{spec.scale_name}_": _scatter(scale, keep, n_items),
        **{key: _scatter(value, keep, n_items) for key, value in se.items()},
        **shared_fitted(loglik=loglik, n_params=n_params, n_obs=n_obs,
                        n_iter=n_iter, moments=moments, labels=labels, keep=keep,
                        grid=grid),
        "_item_params": params,
        "_success_rate_items": rate,
        "_agent_success_rate": store.mean_score(),
    }
    return fitted


# |a| below this: the item's mean score does not move with the ability
_FLAT = 1e-3


def _warn_flat_items(a, labels):
    """Warn naming the items whose discrimination is (nearly) 0.

    There the model finds no relation between the item's scores and the
    ability (measured: two-valued 0.1/0.9 scores on 60 x 5, fitted by a
    U-shaped Beta of constant mean), and the difficulty ``-d / a`` is not
    identified: it is reported, but can be in the thousands.
    """
    flat = np.abs(a) < _FLAT
    if flat.any():
        warnings.warn(
            f"{int(flat.sum())} item(s) have |discrimination| < {_FLAT:g}: their "
            "scores do not follow the ability under this model, and their "
            f"difficulty (-d / a) is not identified: "
            f"{[_py(v) for v in labels[flat][:10]]}"
            + (" ..." if flat.sum() > 10 else ""),
            UserWarning, stacklevel=find_stack_level())


def _warn_coarse_grid(sd, grid):
    """Warn when posteriors are narrower than the grid resolves."""
    spacing = float(np.min(np.diff(grid.nodes))) if len(grid) > 1 else np.inf
    narrow = np.sum(sd < 0.75 * spacing)
    if narrow:
        warnings.warn(
            f"{int(narrow)} agent(s) have a posterior sd below 0.75 x the grid "
            f"spacing ({spacing:.3g}): the likelihood is not resolved on this "
            "grid; raise n_quadrature.", UserWarning, stacklevel=find_stack_level())


def agent_labels(X, rows_kept):
    return _agent_labels(X, rows_kept.shape[0])[rows_kept]


__all__ = ["CONTINUOUS_MODELS", "ScoreStore", "check_scores", "chain",
           "fit_continuous", "item_objective", "summarise_scores"]
