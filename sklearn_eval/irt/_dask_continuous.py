"""The continuous models of :class:`IRT` (beta, logit-normal) on Dask input.

The input is read and validated on the workers as for the binary models
(:mod:`._dask_input`, ``kind="continuous"``: scores in [0, 1] or NaN). Then,
still on the workers, every partition clips its exact 0 and 1 scores and
returns its per-item responses, sums, lowest and highest scores (merged as a
tree: the driver keeps and warns about items exactly as
:func:`._continuous.summarise_scores` does), and becomes its own
:class:`._continuous.ScoreStore`, kept on its worker. The fit of the
in-memory path (:func:`._continuous.fit_score_store`) runs on
:class:`_DaskScores`: the start values, every E-step and Louis' information
are sums over the agents, computed per partition and added per worker and
as a tree; per-agent results stay on the workers as Dask arrays.
"""

import numpy as np

from ._continuous import ScoreStore, _cells, fit_score_store, item_sums, kept_items
from ._continuous import warn_clipped as _warn_clipped
from ._continuous_models import MODELS
from ._dask_responses import _SUMMED, _DaskStore, _finish


# ------------------------------------------------------------ worker side
def _part_values(part):
    """The scores of a coded partition: a CSR (long table) or a dense chunk."""
    return part[0] if isinstance(part, tuple) else part


def _clipped_cells(part, clip):
    """``(indptr, cols, data)`` of the partition, exact 0 and 1 clipped."""
    indptr, cols, data = _cells(_part_values(part))
    exact = (data == 0.0) | (data == 1.0)
    return (indptr, cols, np.where(exact, np.clip(data, clip, 1.0 - clip), data)), \
        exact


def _part_summary(part, clip, n_items):
    """Per item: responses, sum, lowest, highest; the exact 0/1 scores."""
    (_, cols, data), exact = _clipped_cells(part, clip)
    count, total, low, high = item_sums(cols, data, n_items)
    exact_items = np.zeros(n_items, dtype=bool)
    exact_items[cols[exact]] = True
    return {"count": count, "total": total, "low": low, "high": high,
            "n_exact": int(exact.sum()), "exact_items": exact_items}


def _merge_summaries(*parts):
    out = dict(parts[0])
    for part in parts[1:]:
        out = {"count": out["count"] + part["count"],
               "total": out["total"] + part["total"],
               "low": np.minimum(out["low"], part["low"]),
               "high": np.maximum(out["high"], part["high"]),
               "n_exact": out["n_exact"] + part["n_exact"],
               "exact_items": out["exact_items"] | part["exact_items"]}
    return out


def _part_store(part, keep, model, dense, chunk_size, clip):
    cells, _ = _clipped_cells(part, clip)
    n_rows = _part_values(part).shape[0]
    return ScoreStore(cells, n_rows, keep, model, dense=dense, chunk_size=chunk_size)


def _part_e_step(store, tables, grid, stats, moments):
    out = store.e_step(tables, grid, stats=stats, moments=moments)
    if moments:
        return out
    return {key: out[key] for key in _SUMMED if key in out}


def _part_apply(store, function, *args):
    return function(store, *args)


def _part_attribute(store, name):
    value = getattr(store, name)
    return value() if callable(value) else value


def _part_predict(store, tables, grid, mean, keep, fill):
    post = store.e_step(tables, grid, stats=False, post=True)["post"]
    out = np.empty((store.n_agents, keep.size))
    out[:, ~keep] = fill[~keep]
    out[:, keep] = post @ mean
    return out


# ------------------------------------------------------------ driver side
class _DaskScores(_DaskStore):
    """The score store of a continuous fit: partitions on the workers.

    Offers what :func:`._continuous.fit_score_store` calls of a
    :class:`._continuous.ScoreStore`: ``e_step``, ``sums`` (any sum over the
    agents, e.g. :func:`._continuous.start_sums`), ``mean_score``,
    ``counts``, ``should_flip``, ``model``.
    """

    def __init__(self, client, stores, workers, n_rows, n_items, model):
        super().__init__(client, stores, workers, n_rows, n_items)
        self.model = MODELS[model]

    def e_step(self, tables, grid, *, stats=True, moments=False):
        """Log-likelihood and node statistics; moments stay distributed."""
        if moments:
            return self._split_moments(
                self._map(_part_e_step, tables, grid, stats, True), False)
        return _finish(self._map_reduce(_part_e_step, tables, grid, stats, False),
                       False)

    def sums(self, function, *args):
        """``function(store, *args)`` summed over the partitions."""
        return self._map_reduce(_part_apply, function, *args)

    def mean_score(self):
        """Mean observed score of every agent (a Dask array)."""
        return self._agent_array(self._map(_part_attribute, "mean_score"))

    @property
    def counts(self):
        """Observed responses of every agent (a Dask array)."""
        return self._agent_array(self._map(_part_attribute, "counts"))


def _located_stores(data, keep, model, dense, chunk_size, clip):
    stores = data.built_on_workers(_part_store, model, dense, chunk_size, clip,
                                   shared=(keep,))
    return _DaskScores(data.client, stores, data.workers, data.n_rows,
                       int(keep.sum()), model)


def _summary(data, clip, labels, *, warn=True):
    """The per-item summary of coded input, with the clipping warning."""
    from ._dask_input import _tree

    client = data.client
    futures = data.on_workers(_part_summary, clip, data.n_items)
    summary = client.gather(_tree(client, _merge_summaries, futures))
    if warn and summary["n_exact"]:
        _warn_clipped(summary["n_exact"], np.flatnonzero(summary["exact_items"]),
                      clip, labels)
    return summary


def continuous_dask_data(data, clip):
    """``summarise_scores`` of coded Dask input: ``(n_agents, labels, agents,
    data, keep, rate)``, the same warnings and errors."""
    n_agents, n_items = data.shape
    if n_items < 2 or n_agents < 2:
        raise ValueError(
            f"IRT needs at least 2 agents and 2 items; got {n_agents} x {n_items}.")
    labels = (np.arange(n_items) if data.items is None
              else np.asarray(data.items, dtype=object))
    summary = _summary(data, clip, labels)
    keep, rate = kept_items(summary["count"], summary["total"], summary["low"],
                            summary["high"], labels)
    agents = np.arange(n_agents) if data.agents is None else np.asarray(data.agents)
    dense = _dense_storage(summary["count"], keep, n_agents)
    return n_agents, labels, agents, (data, dense), keep, rate


def _dense_storage(count, keep, n_agents):
    """ScoreStore's own rule (30% observed) on the whole input, not per part."""
    return bool(count[keep].sum() >= 0.3 * max(n_agents * int(keep.sum()), 1))


def fit_continuous_dask(checked, *, model, grid, max_iter, tol, algorithm,
                        chunk_size, clip):
    """:func:`._continuous.fit_continuous` with the data on the workers."""
    _, labels, agents, (data, dense), keep, rate = checked
    dense = {"dense": True, "sparse": False}.get(algorithm, dense)
    store = _located_stores(data, keep, model, dense, chunk_size, clip)
    data.release()
    fitted = fit_score_store(store, labels, keep, rate, grid=grid,
                             max_iter=max_iter, tol=tol)
    fitted["agents_"] = agents
    return data.finish(fitted, store, labels)


def _new_store(estimator, data):
    labels = np.asarray(estimator.tasks_, dtype=object)
    summary = _summary(data, estimator.score_clip, labels)
    dense = {"dense": True, "sparse": False}.get(
        estimator.algorithm,
        _dense_storage(summary["count"], estimator._keep, data.shape[0]))
    store = _located_stores(data, estimator._keep, estimator.model, dense,
                            estimator.chunk_size, estimator.score_clip)
    data.release()
    return store


def continuous_dask_pass(estimator, data, grid, *, moments=True):
    """``_continuous_pass`` of new Dask input: moments as Dask arrays."""
    store = _new_store(estimator, data)
    tables = store.model.tables(estimator._item_params, grid.nodes)
    out = store.e_step(tables, grid, stats=False, moments=moments)
    out["n_observed"] = store.counts
    return out


def continuous_dask_predict(estimator, data, grid):
    """``_continuous_predict`` of new Dask input: a Dask array of rows."""
    store = _new_store(estimator, data)
    spec, params = store.model, estimator._item_params
    return store.map_rows(_part_predict, spec.tables(params, grid.nodes), grid,
                          spec.mean(params, grid.nodes), estimator._keep,
                          estimator._success_rate_items,
                          n_columns=estimator._keep.size)
