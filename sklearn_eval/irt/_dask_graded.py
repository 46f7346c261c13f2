"""The GRM and GPCM of :class:`IRT` on Dask input: the indicator store on the workers.

The input is read and validated on the workers as for the binary models
(:mod:`._dask_input`, ``kind="graded"``: scores are category codes 0, 1,
2, ... or NaN). Then, still on the workers:

1. every partition returns its distinct (item, code) pairs, merged as a
   tree: the driver gets every item's category set and codes it exactly as
   the in-memory fit does (:func:`._graded_fit.codes_of`,
   :func:`._graded_fit.checked_codes`: unobserved categories below an
   item's highest collapsed, items in one category left out, with the same
   warnings);
2. every partition sums its observed responses per (item, category) and
   its item-total moments (the starting values), and builds its own
   indicator store (:class:`._graded_store._CategoricalResponses`), kept on
   its worker for the whole fit;
3. the EM engine of the in-memory fit (:func:`._graded_fit.fit_graded_data`)
   runs on :class:`_DaskCategorical`: every E-step sends the log category
   table (n_nodes x indicator columns) and brings back the expected counts
   of that shape and the log-likelihood, summed per worker and as a tree
   (the map/reduce of :class:`._dask_responses._DaskStore`).

Per-agent results (abilities, their sd, the mean category per agent) stay
on the workers as Dask arrays.
"""

import numpy as np
from scipy import sparse

from ._dask_responses import _DaskStore, _finish
from ._graded_factors import (
    check_factors,
    code_gram,
    code_moments,
    code_quantum,
    fit_factor_store,
    start_from_gram,
)
from ._graded_fit import (
    _category_counts,
    _Graded,
    checked_codes,
    codes_of,
    correlation_of,
    fit_graded_data,
    fitted_tables,
    graded_probabilities,
    grid_for_counts,
    indicators,
    item_moment_sums,
    largest_code,
    make_coding,
    mean_categories,
)
from ._graded_store import _CategoricalResponses


# ------------------------------------------------------------ worker side
def _part_cells(part):
    """The observed cells of a coded partition, in row-major order.

    ``part``: a long table's ``(csr, agents)`` (stored entries, zeros
    included) or a Dask array's dense chunk (NaN missing).
    """
    if isinstance(part, tuple):
        csr = part[0]
        coo = sparse.coo_array(csr)  # the CSR's indices are sorted
        return _Graded(coo.row.astype(np.int64), coo.col.astype(np.int64),
                       np.asarray(coo.data, dtype=np.float64), csr.shape)
    rows, cols = np.nonzero(~np.isnan(part))
    return _Graded(rows.astype(np.int64), cols.astype(np.int64), part[rows, cols],
                   part.shape)


def _part_pairs(part):
    """The distinct (item, code) pairs of a partition, (n, 2) float64."""
    cells = _part_cells(part)
    return np.unique(np.column_stack([cells.cols.astype(np.float64),
                                      cells.values]), axis=0)


def _merge_pairs(*parts):
    return np.unique(np.concatenate(parts), axis=0)


def _part_moment_sums(part, bound, n_agents):
    """Item-total moment sums of a partition (for the starting values), on
    the grids of all the data (added up exactly)."""
    return item_moment_sums(_part_cells(part), bound, n_agents, grid_sum=True)


def _largest_code(codes):
    """:func:`._graded_fit.largest_code` of every item's category values."""
    return max((largest_code(c) for c in codes), default=0.0)


def _part_code_gram(part, coding, moments, quantum):
    """Gram matrix of a partition's standardised codes (the factor start)."""
    return code_gram(_part_cells(part), coding, moments, quantum)


def _part_counts(store, coding):
    """Responses per (kept item, category), from the partition's indicators."""
    return _category_counts(None, coding, store.csr)


def _part_agent_mean(part):
    return mean_categories(_part_cells(part))[1]


def _part_store(part, name, coding, labels, what, chunk_size, n_nodes,
                n_responses, n_agents):
    """The partition's indicator store; unknown categories name the partition.

    ``n_responses``: the responses of all partitions (which loops it runs);
    ``n_agents``: their agents (the grids of its exact sums).
    """
    try:
        csr = indicators(_part_cells(part), coding, what, labels)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    return _CategoricalResponses(csr, chunk_size=chunk_size, n_nodes=n_nodes,
                                 n_responses=n_responses, n_terms=n_agents)


def _part_e_step(store, log_p, grid, counts, moments):
    """The partition's E-step; ``r`` stays a ``GridSum`` (added up exactly)."""
    out = store.e_step_sums(log_p, grid, counts=counts, moments=moments)
    if moments:
        return out
    return {key: out[key] for key in ("loglik", "r") if key in out}


def _part_score_products(store, log_p, grid, g):
    return store.score_product_sums(log_p, grid, g)


def _part_n_observed(store):
    return store.n_observed()


def _part_proba(store, log_p, grid, coding, n_codes):
    return graded_probabilities(store.csr, log_p, grid, coding, n_codes)


# ------------------------------------------------------------ driver side
class _DaskCategorical(_DaskStore):
    """The indicator store of a GRM/GPCM fit: partitions on the workers.

    Offers what :func:`._graded_fit.fit_graded_data` calls of a
    :class:`._graded_store._CategoricalResponses`: ``e_step``,
    ``score_products``, ``n_observed``, ``n_agents``.
    """

    def e_step(self, log_p, grid, *, counts=True, moments=False):
        """Log-likelihood and expected counts; moments stay distributed."""
        if moments:
            out = self._split_moments(
                self._map(_part_e_step, log_p, grid, counts, True), counts)
        else:
            out = _finish(self._map_reduce(_part_e_step, log_p, grid, counts,
                                           False), counts)
        if counts:
            out["n"] = out["r"]  # an indicator column is observed where it is 1
        return out

    def score_products(self, log_p, grid, g):
        """Per indicator column, ``sum_i E_i[s] E_i[s]^T``."""
        return self._map_reduce(_part_score_products, log_p, grid, g)

    def n_observed(self):
        """Observed responses per agent (a Dask array)."""
        return self._agent_array(self._map(_part_n_observed))


def _part_names(data):
    """How the errors name each coded partition (its place in the input)."""
    if data.items is None:
        return [f"Chunk {i}" for i in range(len(data.parts))]
    return [f"Partition {i}" for i in data.indices]


def _stores(data, coding, what, labels, chunk_size, n_nodes):
    """The indicator stores of every partition (errors raised here).

    Every partition runs the loops (compiled or numpy) the in-memory store of
    all the responses would: a partition alone is often below the size from
    which the compiled loops pay off, and its worker would take the slower
    numpy path (measured: a one-factor GRM E-step at 61 nodes, 8 partitions
    of 62,500 responses, 3.05 times the in-memory one).
    """
    n_responses = int(np.sum(data.totals[1][coding.keep]))
    stores = data.built_on_workers(_part_store, what, chunk_size, n_nodes,
                                   n_responses, data.shape[0],
                                   shared=(coding, labels),
                                   extras=_part_names(data))
    return _DaskCategorical(data.client, stores, data.workers, data.n_rows,
                            int(coding.n_categories.sum()))


def graded_dask_data(data, model):
    """``check_graded_fit`` of coded Dask input: the same tuple, warnings, errors.

    ``data``: the input coded on the workers (``kind="graded"``); only the
    (item, code) pairs reach the driver.
    """
    from ._dask_input import _tree

    what = f"IRT(model={model!r})"
    n_agents, n_items = data.shape
    if n_items < 2 or n_agents < 2:
        raise ValueError(
            f"{what} needs at least 2 agents and 2 items; got shape "
            f"{data.shape}.")
    client = data.client
    pairs = client.gather(_tree(client, _merge_pairs,
                                data.on_workers(_part_pairs)))
    codes = codes_of(pairs[:, 0].astype(np.int64), pairs[:, 1], n_items)
    labels = (np.arange(n_items) if data.items is None
              else np.asarray(data.items, dtype=object))
    keep = checked_codes(codes, labels, what)
    agents = np.arange(n_agents) if data.agents is None else np.asarray(data.agents)
    return data, labels, codes, keep, agents


def fit_graded_dask(checked, *, model, grid, settings, chunk_size, bound=6.0):
    """:func:`._graded_fit.fit_graded` on coded Dask input, data on the workers."""
    data, labels, codes, keep, agents = checked
    n_agents = data.shape[0]
    if grid is None:
        grid = grid_for_counts(data.totals[1], n_agents, codes, keep, bound)
    coding = make_coding(codes, keep)
    moment_sums = data.summed(_part_moment_sums, _largest_code(codes), n_agents)
    means = data.on_workers(_part_agent_mean)
    store = _stores(data, coding, f"IRT(model={model!r})", labels, chunk_size,
                    len(grid))
    agent_mean = store._agent_array(means)
    data.release()
    # the category counts from the stores' indicators (built once per partition)
    counts = store._map_reduce(_part_counts, coding)
    n, total = moment_sums[0], moment_sums[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
    fitted = fit_graded_data(
        store, labels, codes, coding, agents, model=model, grid=grid,
        settings=settings, counts=counts,
        correlation=correlation_of(moment_sums, coding), mean=mean,
        agent_mean=agent_mean)
    return data.finish(fitted, store, labels)


def fit_graded_factors_dask(checked, *, model, n_factors, rotation, grid,
                            settings, chunk_size):
    """:func:`._graded_factors.fit_graded_factors` on coded Dask input.

    Whether ``n_factors`` is identified is checked first, from the coding
    and the observed responses per item (known from coding the input), as in
    memory. The start's Gram matrix of the standardised codes (items x items)
    and the category counts are summed over the partitions on the workers;
    EM, the standard errors and the factor scores run on
    :class:`_DaskCategorical`.
    """
    data, labels, codes, keep, _ = checked
    coding = make_coding(codes, keep)
    # responses of the kept items (one indicator each): known from the coding
    n_obs = float(np.sum(data.totals[1][keep]))
    # before any work on the cluster
    n_params = check_factors(coding, n_factors, n_obs, keep.size)
    largest = _largest_code(codes)
    moment_sums = data.summed(_part_moment_sums, largest, data.shape[0])
    moments = code_moments(moment_sums, coding)
    gram = data.summed(_part_code_gram, code_quantum(moments, largest, data.shape[0]),
                       shared=(coding, moments))
    means = data.on_workers(_part_agent_mean)
    store = _stores(data, coding, f"IRT(model={model!r}, n_factors={n_factors})",
                    labels, chunk_size, len(grid))
    agent_mean = store._agent_array(means)
    data.release()
    counts = store._map_reduce(_part_counts, coding)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = moment_sums[1] / moment_sums[0]
    fitted = fit_factor_store(
        store, start_from_gram(gram, moments[0], counts, model, n_factors),
        labels=labels, codes=codes, coding=coding, model=model,
        n_factors=n_factors, rotation=rotation, grid=grid, settings=settings,
        n_obs=n_obs, n_params=n_params, mean=mean, agent_mean=agent_mean)
    return data.finish(fitted, store, labels)


def graded_dask_store(estimator, data):
    """The indicator store of new Dask input against a fitted GRM/GPCM."""
    grid, _ = fitted_tables(estimator)
    store = _stores(data, estimator._coding, f"IRT(model={estimator.model!r})",
                    estimator.tasks_, estimator.chunk_size, len(grid))
    data.release()
    return store


def graded_dask_pass(estimator, data, *, moments=True):
    """``graded_pass`` of new Dask input: moments as Dask arrays."""
    grid, log_p = fitted_tables(estimator)
    store = _stores(data, estimator._coding, f"IRT(model={estimator.model!r})",
                    estimator.tasks_, estimator.chunk_size, len(grid))
    data.release()
    out = store.e_step(log_p, grid, counts=False, moments=moments)
    out["n_observed"] = store.n_observed()
    return out


def graded_dask_proba(estimator, data):
    """``graded_predict_proba`` of new Dask input: a Dask array, rows on the workers."""
    import dask.array as da

    grid, log_p = fitted_tables(estimator)
    coding = estimator._coding
    store = _stores(data, coding, f"IRT(model={estimator.model!r})",
                    estimator.tasks_, estimator.chunk_size, len(grid))
    data.release()
    n_codes = max(int(c[-1]) + 1 if c.size else 1 for c in coding.codes)
    futures = store._map(_part_proba, log_p, grid, coding, n_codes)
    return da.concatenate([
        da.from_delayed(future, shape=(n, len(coding.codes), n_codes),
                        dtype=np.float64)
        for future, n in zip(futures, store.n_rows, strict=True)])
