"""Fit and prediction of the ordered-category models (GRM, GPCM) of :class:`IRT`.

Storage: a response of agent ``i`` in category ``k`` of item ``j`` is the
indicator column ``(j, k)``, 1 only where the agent chose ``k``
(:mod:`._graded_store`): the E-step gives the posteriors, the marginal
log-likelihood and exactly the expected category counts
``r[node, (j, k)]`` the M-step needs, in O(observed responses), for dense
(NaN) and sparse input alike. The EM is the template of the binary models:
E-step, Fisher-scoring M-step (:mod:`._graded`), SQUAREM kept only where it
raises the likelihood, Louis standard errors.
"""

import warnings
from typing import NamedTuple

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning

from ..utils import check_empty_agents, check_result_matrix
from ..utils._exact_sums import GridSum, cut, grid_constants
from ..utils._protocol import column_labels
from ..utils._sklearn_compat import _get_feature_names
from ..utils._sparse import check_sparse_result, is_sparse_input
from ..utils._stack import find_stack_level
from ._em import _squarem_vector
from ._em_loop import squarem_em
from ._fit import _scatter
from ._fitted import shared_fitted
from ._graded import (
    log_probabilities,
    louis_information,
    m_step,
    ordered,
    reported,
    reported_covariance,
    scores,
    start_values,
)
from ._graded_store import _CategoricalResponses
from ._information import covariance_errors
from ._quadrature import (
    QuadratureGrid,
    default_rectangular_nodes,
    estimator_grid,
)
from ._responses import EMPTY_REMEDY, _agent_labels, _unpack


def _name(label):
    """A label as the user wrote it (a NumPy scalar as a Python one)."""
    return label.item() if isinstance(label, np.generic) else label


def _code(value):
    """A category code for a message: ``2`` for 2.0, else the float."""
    value = float(value)
    return int(value) if value.is_integer() else value


class _Graded(NamedTuple):
    """Validated ordered-category responses, as observed cells.

    ``rows``, ``cols``, ``values``: the observed responses (original codes);
    ``shape``: (n_agents, n_items) of the input.
    """

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    shape: tuple


def _cells(X, what):
    """Observed cells of integer category codes, with the input's labels."""
    inner, agents, tasks = _unpack(X)
    if is_sparse_input(inner):
        csr = check_sparse_result(inner, binary=False)
        coo = sparse.coo_array(csr)
        seen = ~np.isnan(np.asarray(coo.data, dtype=np.float64))
        rows, cols = coo.row[seen], coo.col[seen]
        values = np.asarray(coo.data, dtype=np.float64)[seen]
        shape = csr.shape
    else:
        checked = check_result_matrix(inner, allow_nan=True)
        dense = checked.values
        rows, cols = np.nonzero(~np.isnan(dense))
        values = dense[rows, cols]
        shape = dense.shape
        agents = checked.agents if agents is None else agents
        tasks = checked.tasks if tasks is None else tasks
    labels = (np.asarray(tasks, dtype=object) if tasks is not None
              else column_labels(X, shape[1]))
    bad = (values != np.round(values)) | (values < 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{what} needs ordered categories coded 0, 1, 2, ... (NaN or absent "
            f"= missing): item {_name(labels[cols[first]])!r} (column "
            f"{int(cols[first])}) has {_code(values[first])!r} at row "
            f"{int(rows[first])}."
        )
    return _Graded(rows.astype(np.int64), cols.astype(np.int64), values,
                   tuple(shape)), agents, labels


def check_graded_fit(X, model):
    """Validated responses, item labels, category coding and agent labels.

    Categories never observed below an item's largest code are collapsed
    (the codes above shift down, as R's mirt recodes them) with a warning
    naming item and category; items answered in one category only are left
    out with a warning (as constant items of the binary models).
    """
    what = f"IRT(model={model!r})"
    _get_feature_names(X)  # rejects mixed column-name types before fitting
    cells, agents, labels = _cells(X, what)
    n_agents, n_items = cells.shape
    if n_items < 2 or n_agents < 2:
        raise ValueError(
            f"{what} needs at least 2 agents and 2 items; got shape "
            f"{cells.shape}.")
    inner = _unpack(X)[0]
    rows = check_empty_agents(inner if is_sparse_input(inner) else _dense(cells),
                              agents, what=f"{what}.fit", remedy=EMPTY_REMEDY)
    codes = codes_of(cells.cols, cells.values, n_items)
    keep = checked_codes(codes, labels, what)
    return cells, labels, codes, keep, _agent_labels(X, n_agents)[rows]


def codes_of(cols, values, n_items):
    """Every item's sorted distinct category codes (int64 arrays).

    ``cols``, ``values``: observed (item, code) cells, repeats allowed (the
    distinct pairs of partitions give the same codes as all the cells).
    """
    span = int(values.max()) + 1
    pairs = np.unique(_keys(cols, values, span))
    return np.split(pairs % span, np.searchsorted(pairs // span,
                                                  np.arange(1, n_items)))


def checked_codes(codes, labels, what):
    """The estimated items, with the warnings and errors of the coding.

    Categories never observed below an item's largest code are collapsed
    (warning naming item and category); items in one category only are left
    out (warning); fewer than 2 items left is a ValueError.
    """
    n_items = len(codes)
    gaps = [(_name(labels[j]), int(k)) for j in range(n_items) if codes[j].size > 1
            for k in np.setdiff1d(np.arange(codes[j][-1]), codes[j])]
    if gaps:
        warnings.warn(
            f"{len(gaps)} category(ies) below an item's highest are never "
            f"observed and were collapsed (the higher categories shift down): "
            + ", ".join(f"item {item!r} category {k}" for item, k in gaps[:10])
            + (" ..." if len(gaps) > 10 else ""), UserWarning,
            stacklevel=find_stack_level())
    keep = np.array([c.size >= 2 for c in codes])
    if (~keep).any():
        warnings.warn(
            f"{int((~keep).sum())} item(s) answered in one category only (or "
            f"never) were left out of estimation: "
            f"{[_name(label) for label in labels[~keep]][:10]}"
            + (" ..." if (~keep).sum() > 10 else ""), UserWarning,
            stacklevel=find_stack_level())
    if keep.sum() < 2:
        raise ValueError(
            f"{what} needs at least 2 items answered in two or more "
            f"categories; got {int(keep.sum())} of {n_items}.")
    return keep


def _dense(cells):
    out = np.full(cells.shape, np.nan)
    out[cells.rows, cells.cols] = cells.values
    return out


class _Coding(NamedTuple):
    """Where each (kept item, category) lives among the indicator columns."""

    codes: list  # original codes of every item's categories
    keep: np.ndarray
    n_categories: np.ndarray  # per kept item
    offset: np.ndarray  # first indicator column of every kept item
    valid: np.ndarray  # (n_kept, K_max) category mask


def make_coding(codes, keep):
    n_categories = np.array([codes[j].size for j in np.flatnonzero(keep)])
    offset = np.concatenate([[0], np.cumsum(n_categories)[:-1]])
    valid = np.arange(n_categories.max())[None, :] < n_categories[:, None]
    return _Coding(codes, keep, n_categories, offset, valid)


def indicators(cells, coding, what, labels):
    """CSR of the indicator columns (1 where observed) of the kept items.

    A code an item never had in fit is an error naming item and value.
    """
    index = np.cumsum(coding.keep) - 1
    take = coding.keep[cells.cols]
    rows, cols, values = cells.rows[take], cells.cols[take], cells.values[take]
    # every kept item's known codes, in one sorted array of (item, code) keys
    kept = np.flatnonzero(coding.keep)
    span = max([int(coding.codes[j][-1]) for j in kept]
               + [int(values.max()) if values.size else 0]) + 1
    known = np.concatenate([_keys(np.full(coding.codes[j].size, j), coding.codes[j],
                                  span) for j in kept])
    key = _keys(cols, values, span)
    found = np.minimum(np.searchsorted(known, key), known.size - 1)
    ok = known[found] == key
    if not ok.all():
        first = int(np.flatnonzero(~ok)[0])
        j = int(cols[first])
        raise ValueError(
            f"{what}: item {_name(labels[j])!r} has category "
            f"{_code(values[first])!r}, which it never had in fit (categories "
            f"{coding.codes[j].tolist()}).")
    category = found - coding.offset[index[cols]]
    columns = coding.offset[index[cols]] + category
    n_columns = int(coding.n_categories.sum())
    return sparse.csr_array((np.ones(rows.size), (rows, columns)),
                            shape=(cells.shape[0], n_columns))


def _keys(cols, values, span):
    """One sortable int64 key per (item, code)."""
    span = int(span)
    if span * (int(np.max(cols, initial=0)) + 1) >= 2**62:
        raise ValueError(
            f"Category codes up to {float(span - 1):.6g} are too large to index; "
            "code the categories 0, 1, ..., K - 1.")
    return np.asarray(cols, dtype=np.int64) * span + np.asarray(values, np.int64)


def tables(model, params, coding, nodes):
    """``log P`` per (node, indicator column)."""
    return log_probabilities(model, params, nodes)[:, coding.valid]


def _counts_by_category(r, coding):
    """Expected counts (n_nodes, n_items, K_max) from the indicator columns."""
    R = np.zeros((r.shape[0],) + coding.valid.shape)
    R[:, coding.valid] = r
    return R


# Nodes whose share of the posterior mass is below this add nothing the M-step
# can resolve (as the binary sparse store's posterior windows, which drop
# weights below exp(-37) of an agent's peak).
_NODE_MASS = 1e-15


def _massive_nodes(r, nodes):
    """Expected counts without the nodes carrying no posterior mass.

    With many items per agent the posteriors are narrow and most of the grid
    carries none; the M-step's cost is proportional to the nodes kept.
    """
    mass = r.sum(axis=1)
    keep = mass > _NODE_MASS * mass.max()
    return (r, nodes) if keep.all() else (r[keep], nodes[keep])


def em_graded(data, grid, params, model, coding, max_iter, tol):
    """EM from ``params``; SQUAREM kept only where it raises the likelihood.

    Returns ``(params, loglik, n_iter, converged)``; ``n_iter`` counts
    E-steps. The log-likelihood never decreases.
    """
    valid = coding.valid

    def e_step(p):
        return data.e_step(tables(model, p, coding, grid.nodes), grid)

    def em_map(state, p):
        r, nodes = _massive_nodes(state["r"], grid.nodes)
        return m_step(model, p, _counts_by_category(r, coding), nodes)

    def extrapolate(p0, p1, p2):
        v = _squarem_vector(p0[valid], p1[valid], p2[valid], 64.0)
        if v is None or not np.all(np.isfinite(v)):
            return None
        trial = p0.copy()
        trial[valid] = v
        return trial if ordered(model, trial) else None

    params, state, n_iter, converged = squarem_em(
        params, e_step=e_step, em_map=em_map,
        objective=lambda p, state: state["loglik"], extrapolate=extrapolate,
        max_iter=max_iter, tol=tol, n_agents=data.n_agents)
    return params, state["loglik"], n_iter, converged


def _covariance(data, grid, params, model, coding):
    """Covariance of every item's ``(a, b_1, ...)`` (Louis, per item)."""
    info, state = observed_information(data, grid, params, model, coding)
    return reported_covariance(model, params, info), state


# Entries of the largest temporary of the observed information (2**23: 64 MB).
_HESSIAN_ENTRIES = 2**23


def observed_information(data, grid, params, model, coding, points=None):
    """Louis' observed information of every item's parameters, and the E-step.

    ``points`` (n_nodes, m): the abilities at the grid's nodes with several
    factors (``grid`` is then a one-dimensional view of them, whose nodes
    only give the posterior moments).
    """
    nodes = grid.nodes if points is None else points
    log_p = tables(model, params, coding, nodes)
    state = data.e_step(log_p, grid, moments=True)
    g = scores(model, params, nodes)[:, coding.valid]  # (Q, C, n_params)
    products = data.score_products(log_p, grid, g)
    item = np.repeat(np.arange(coding.valid.shape[0]), coding.n_categories)
    outer = np.zeros((coding.valid.shape[0],) + products.shape[1:])
    np.add.at(outer, item, products)
    R = _counts_by_category(state["r"], coding)
    # items one block at a time: the second derivatives are (nodes, items,
    # categories, parameters, parameters), large on a grid of several factors
    J, n_params = params.shape
    step = max(1, _HESSIAN_ENTRIES // (len(nodes) * coding.valid.shape[1]
                                       * n_params**2))
    info = np.concatenate([
        louis_information(model, params[j:j + step], R[:, j:j + step],
                          outer[j:j + step], nodes) for j in range(0, J, step)])
    return info, state


def _item_total_correlation(cells, coding):
    """Per kept item: correlation of its code with the agent's mean code."""
    return correlation_of(item_moment_sums(cells), coding)


def largest_code(values):
    """The largest magnitude of a category value (the moment sums' bound)."""
    return float(np.max(np.abs(values), initial=0.0))


def item_moment_sums(cells, bound=None, n_terms=None, grid_sum=False):
    """Per item: n, sum x, sum t, sum x t, sum x^2, sum t^2 (6 x n_items).

    ``x`` the code, ``t`` the agent's mean code; sums over agents add up
    across partitions of agents. They are summed on fixed grids (exact in
    any order, :class:`sklearn_eval.utils._exact_sums.GridSum`) set by
    ``bound`` (the largest ``|x|`` of all the data; default: of ``cells``)
    and ``n_terms`` (all the agents; default: those of ``cells``), so the
    starting values of a fit do not depend on how its agents are grouped.
    ``grid_sum``: return the ``GridSum`` (a partition's share), not its value.
    """
    n_agents, n_items = cells.shape
    if bound is None:
        bound = largest_code(cells.values)
    consts = grid_constants(max(bound * bound, bound, 1.0),
                            n_agents if n_terms is None else n_terms)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.bincount(cells.rows, weights=cells.values, minlength=n_agents)
        total /= np.bincount(cells.rows, minlength=n_agents)
    t, x = total[cells.rows], cells.values
    ones = np.ones_like(x)
    sums = GridSum(np.stack([
        np.stack([np.bincount(cells.cols, weights=piece, minlength=n_items)
                  for piece in cut(w, consts)])
        for w in (ones, x, t, x * t, x * x, t * t)], axis=1))
    return sums if grid_sum else sums.value()


def correlation_of(sums, coding):
    """The item-total correlation of every kept item from its moment sums."""
    n, sx, st, sxt, sxx, stt = sums
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxt / n - sx / n * st / n
        out = cov / np.sqrt((sxx / n - (sx / n) ** 2) * (stt / n - (st / n) ** 2))
    return out[coding.keep]


def _category_counts(cells, coding, csr=None):
    """Observed responses per (kept item, category).

    ``csr``: the indicator columns of ``cells`` when already built (``cells``
    is then not read).
    """
    if csr is None:
        csr = indicators(cells, coding, "", np.arange(cells.shape[1]))
    counts = np.zeros(coding.valid.shape)
    counts[coding.valid] = np.asarray(csr.sum(axis=0)).ravel()
    return counts


def default_grid(cells, codes, keep, bound):
    """The rectangular grid of the GRM/GPCM when ``n_quadrature`` is None."""
    observed = np.bincount(cells.cols, minlength=len(codes))
    return grid_for_counts(observed, cells.shape[0], codes, keep, bound)


def grid_for_counts(observed, n_agents, codes, keep, bound):
    """:func:`default_grid` from the observed responses per item."""
    steps = np.array([max(c.size - 1, 0) for c in codes], dtype=np.float64)
    per_agent = float(np.where(keep, steps, 0.0) @ observed) / n_agents
    return estimator_grid("rectangular", default_rectangular_nodes(per_agent), bound)


def fitted_grid(estimator):
    """The quadrature grid of a fitted GRM/GPCM."""
    return QuadratureGrid(estimator.quadrature_nodes_,
                          np.log(estimator.quadrature_weights_),
                          estimator.quadrature)


def fitted_tables(estimator):
    """The grid of a fitted GRM/GPCM and its log table per indicator column.

    With several factors: the grid of the general ability's projections of
    the fitted points (posterior moments are then the general ability's).
    """
    if hasattr(estimator, "factor_corr_"):
        grid = estimator._factor_grid
        return (grid.axis(estimator.general_direction_),
                tables(estimator.model, estimator._item_params,
                       estimator._coding, grid.points))
    grid = fitted_grid(estimator)
    return grid, tables(estimator.model, estimator._item_params,
                        estimator._coding, grid.nodes)


def fit_graded(checked, *, model, grid, settings, chunk_size, parallel,
               bound=6.0):
    """Everything :meth:`IRT.fit` learns for the GRM or GPCM, as a dict.

    ``grid`` None: :func:`default_grid` on ``[-bound, bound]``.
    """
    cells, labels, codes, keep, agents = checked
    if grid is None:
        grid = default_grid(cells, codes, keep, bound)
    coding = make_coding(codes, keep)
    what = f"IRT(model={model!r})"
    csr = indicators(cells, coding, what, labels)
    data = _CategoricalResponses(csr, chunk_size=chunk_size, parallel=parallel,
                                 n_nodes=len(grid))
    mean, agent_mean = mean_categories(cells)
    return fit_graded_data(
        data, labels, codes, coding, agents, model=model, grid=grid,
        settings=settings, counts=_category_counts(cells, coding, csr),
        correlation=_item_total_correlation(cells, coding), mean=mean,
        agent_mean=agent_mean)


def fit_graded_data(data, labels, codes, coding, agents, *, model, grid, settings,
                    counts, correlation, mean, agent_mean):
    """:func:`fit_graded` on a built store ``data`` of the indicator columns.

    ``counts``: observed responses per (kept item, category); ``correlation``:
    the kept items' item-total correlations; ``mean``, ``agent_mean``: mean
    codes per item and per agent. A store on Dask workers gives Dask arrays
    for the per-agent results.
    """
    keep = coding.keep
    n_items = keep.size
    params = start_values(model, counts, correlation)
    params, loglik, n_iter, converged = em_graded(
        data, grid, params, model, coding, settings.max_iter, settings.tol)
    if not converged:
        warnings.warn(
            f"EM did not converge in max_iter={settings.max_iter} iterations "
            f"(tol={settings.tol}); increase max_iter.", ConvergenceWarning,
            stacklevel=find_stack_level())
    cov, moments = _covariance(data, grid, params, model, coding)
    a, b = reported(model, params)
    se = covariance_errors(cov)
    K = params.shape[1]
    # location: the mean threshold (step), its se by the delta method
    weights = np.where(coding.valid[:, 1:], 1.0 / (coding.n_categories - 1)[:, None],
                       0.0)
    location = np.nansum(b * weights, axis=1)
    location_se = np.sqrt(np.einsum("jp,jpe,je->j", weights,
                                    np.nan_to_num(cov[:, 1:, 1:]), weights))
    location_se[np.isnan(se[:, 1:]).all(axis=1) | np.isnan(se[:, 0])] = np.nan
    n_params = int(coding.n_categories.sum())
    n_obs = float(counts.sum())
    column = "thresholds" if model == "GRM" else "steps"
    item_b = np.full((n_items, K - 1), np.nan)
    item_b[keep] = b
    item_b_se = np.full((n_items, K - 1), np.nan)
    item_b_se[keep] = se[:, 1:]
    n_categories = np.array([c.size for c in codes])
    return {
        "discrimination_": _scatter(a, keep, n_items),
        "difficulty_": _scatter(location, keep, n_items),
        f"{column}_": item_b,
        "discrimination_se_": _scatter(se[:, 0], keep, n_items),
        "difficulty_se_": _scatter(location_se, keep, n_items),
        f"{column}_se_": item_b_se,
        "n_categories_": n_categories,
        "categories_": [c.copy() for c in codes],
        **shared_fitted(loglik=loglik, n_params=n_params, n_obs=n_obs,
                        n_iter=n_iter, moments=moments, labels=labels, keep=keep,
                        grid=grid),
        "agents_": agents,
        "_item_params": params,
        "_coding": coding,
        "_success_rate_items": mean,
        "_agent_success_rate": agent_mean,
    }


def mean_categories(cells):
    """Mean category code per item and per agent (NaN where none observed)."""
    n_agents, n_items = cells.shape
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(cells.cols, weights=cells.values,
                           minlength=n_items) / np.bincount(cells.cols,
                                                            minlength=n_items)
        agent_mean = np.bincount(cells.rows, weights=cells.values,
                                 minlength=n_agents) / np.bincount(
            cells.rows, minlength=n_agents)
    return mean, agent_mean


# ------------------------------------------------------------ new data
def _new_indicators(estimator, X):
    """Indicator CSR of new responses to the fitted items (validated)."""
    what = f"IRT(model={estimator.model!r})"
    cells, _, _ = _cells(X, what)
    if cells.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {cells.shape[1]} features, but IRT is expecting "
            f"{estimator.n_features_in_} features as input.")
    return indicators(cells, estimator._coding, what, estimator.tasks_)


def graded_pass(estimator, X, *, moments=True):
    """Posterior moments and per-agent log-likelihood of new responses."""
    csr = _new_indicators(estimator, X)
    grid, log_p = fitted_tables(estimator)
    with estimator._executor() as parallel:
        data = _CategoricalResponses(csr, chunk_size=estimator.chunk_size,
                                     parallel=parallel, n_nodes=len(grid))
        out = data.e_step(log_p, grid, counts=False, moments=moments)
        out["n_observed"] = data.n_observed()
    return out


def graded_predict_proba(estimator, X):
    """Posterior predictive category probabilities, (n_agents, n_items, K_max).

    Axis 2 is the original category code; NaN past an item's largest code.
    """
    csr = _new_indicators(estimator, X)
    grid, log_p = fitted_tables(estimator)
    coding = estimator._coding
    n_codes = max(int(c[-1]) + 1 if c.size else 1 for c in coding.codes)
    return graded_probabilities(csr, log_p, grid, coding, n_codes)


def graded_probabilities(csr, log_p, grid, coding, n_codes):
    """:func:`graded_predict_proba` of the indicator rows ``csr``."""
    out = np.full((csr.shape[0], len(coding.codes), n_codes), np.nan)
    for j, known in enumerate(coding.codes):
        if known.size:
            out[:, j, :known[-1] + 1] = 0.0
            if not coding.keep[j]:
                out[:, j, known[0]] = 1.0
    kept = np.flatnonzero(coding.keep)
    item = np.repeat(np.arange(kept.size), coding.n_categories)
    category = np.concatenate([np.arange(k) for k in coding.n_categories])
    target = np.array([coding.codes[kept[i]][c] for i, c in zip(item, category,
                                                                 strict=True)])
    P = np.exp(log_p)
    step = max(1, 2**20 // max(P.shape[1], 1))
    for start in range(0, csr.shape[0], step):
        rows = slice(start, min(start + step, csr.shape[0]))
        table = csr[rows] @ log_p.T + grid.log_weights
        table -= table.max(axis=1, keepdims=True)
        post = np.exp(table)
        post /= post.sum(axis=1, keepdims=True)
        out[rows, kept[item], target] = post @ P
    return out


def category_columns(estimator):
    """``threshold_k`` (GRM) or ``step_k`` (GPCM) and their ``_se`` columns."""
    name, column = (("thresholds_", "threshold") if estimator.model == "GRM"
                    else ("steps_", "step"))
    b, b_se = getattr(estimator, name), getattr(estimator, name[:-1] + "_se_")
    columns = {}
    for k in range(b.shape[1]):
        columns[f"{column}_{k + 1}"] = b[:, k]
        columns[f"{column}_{k + 1}_se"] = b_se[:, k]
    return columns


def graded_task_columns(estimator):
    """The GRM/GPCM columns of :meth:`IRT.task_table`."""
    columns = {"discrimination": estimator.discrimination_,
               "discrimination_se": estimator.discrimination_se_,
               **category_columns(estimator)}
    columns.update(difficulty=estimator.difficulty_,
                   difficulty_se=estimator.difficulty_se_,
                   n_categories=estimator.n_categories_,
                   mean_category=estimator._success_rate_items,
                   left_out=~estimator._keep)
    return columns



def graded_values(X):
    """Validated responses of any category codes: float64 array or CSR."""
    inner = _unpack(X)[0]
    if is_sparse_input(inner):
        return check_sparse_result(inner, binary=False)
    return check_result_matrix(inner, allow_nan=True).values


def known_categories(estimator, cols, values):
    """Whether each (item, code) cell is a category the fitted item has."""
    out = np.zeros(cols.size, dtype=bool)
    for j, known in enumerate(estimator._coding.codes):
        here = cols == j
        out[here] = np.isin(values[here], known)
    return out
