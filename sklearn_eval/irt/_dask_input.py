"""Dask input of the IRT estimators: validated, coded and stored on the workers.

Two kinds of Dask input are read without collecting the responses:

- a Dask array of 0/1 responses (agents x items, NaN = missing), chunked by
  agents: each chunk of rows is one partition;
- a Dask DataFrame long table with the columns ``agent``, ``item`` (or
  ``task``) and ``score`` (0, 1; NaN = missing), e.g. from
  ``dask.dataframe.read_parquet``.

The long table is read in three passes, all on the workers:

1. every partition is validated (binary scores, no missing label) and
   returns its sorted distinct agent and item labels; the labels are merged
   as a tree and only they reach the driver. Agents and items get the codes
   of their sorted labels, so results align with the in-memory fit by label.
2. If an agent's rows are spread over several partitions, or partitions'
   agent ranges overlap, the table is regrouped once on the workers into
   ranges of agents (``set_index`` with known divisions: a shuffle between
   workers, nothing through the driver).
3. Every partition is coded (agents local, items global), checked for
   repeated (agent, item) rows, and stored as the library's own dense or
   sparse response store, which stays on its worker for the whole fit.

Errors found on a worker name the partition and an example row. The
scores are binary (``kind="binary"``, the 1PL to 4PL) or ordered category
codes 0, 1, 2, ... (``kind="graded"``, the GRM and GPCM: see
:mod:`._dask_graded`).
"""

import numpy as np
from scipy import sparse

from ..utils._dask import get_client, is_dask_collection
from ..utils._exact_sums import exact_total
from ._dask_responses import _DaskResponses, _sum_parts, wait
from ._kernels import HAVE_NUMBA
from ._responses import (
    _SPARSE_BELOW,
    _input_counts,
    _make_storage,
    _summary_from_counts,
)

_ITEM_COLUMNS = ("item", "task")


def _plain(value):
    """A numpy scalar as the Python value it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _describe_row(frame, position, columns):
    row = frame.iloc[position]
    shown = ", ".join(f"{name}={_plain(row[name])!r}" for name in columns)
    return f"row {frame.index[position]!r} ({shown})"


def _not_allowed(values, kind):
    """Mask of the scores ``kind`` does not allow (NaN is missing)."""
    if kind == "graded":
        with np.errstate(invalid="ignore"):
            return ~(np.isnan(values) | ((values == np.round(values))
                                         & (values >= 0.0)))
    if kind == "continuous":
        return ~(np.isnan(values) | ((values >= 0.0) & (values <= 1.0)))
    return ~(np.isnan(values) | (values == 0.0) | (values == 1.0))


# what each kind of score must be, for the messages
_ALLOWED = {"binary": "binary (0, 1, or NaN for missing)",
            "graded": "ordered categories coded 0, 1, 2, ... (NaN for missing)",
            "continuous": "in [0, 1] (NaN for missing)"}
_NUMERIC = {"binary": "0, 1", "graded": "0, 1, 2, ...", "continuous": "in [0, 1]"}


def _scores_of(frame, index, columns, kind="binary"):
    """float64 scores of a partition; errors name the partition and a row."""
    agent, item, score = columns
    try:
        values = frame[score].to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        for position in range(len(frame)):
            try:
                float(frame[score].iloc[position])
            except (TypeError, ValueError):
                raise TypeError(
                    f"Partition {index}: score must be numeric "
                    f"({_NUMERIC[kind]} or NaN); "
                    f"{_describe_row(frame, position, columns)}."
                ) from None
        raise
    bad = _not_allowed(values, kind)
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"Partition {index}: scores must be {_ALLOWED[kind]}; "
            f"{int(bad.sum())} row(s) are not, e.g. "
            f"{_describe_row(frame, position, columns)}."
        )
    for name in (agent, item):
        missing = frame[name].isna().to_numpy()
        if missing.any():
            position = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"Partition {index}: the {name!r} label is missing in "
                f"{_describe_row(frame, position, columns)}."
            )
    return values


def _scan_partition(frame, index, columns, kind="binary"):
    """Validate a partition; its sorted distinct agents and items (worker)."""
    scores = _scores_of(frame, index, columns, kind)
    observed = ~np.isnan(scores)
    agents = np.unique(frame[columns[0]].to_numpy()[observed])
    items = np.unique(frame[columns[1]].to_numpy()[observed])
    return agents, items


def _merge_labels(*parts):
    """Union of (agents, items) label sets (runs on a worker)."""
    agents = np.unique(np.concatenate([part[0] for part in parts]))
    items = np.unique(np.concatenate([part[1] for part in parts]))
    return agents, items


def _range_of(part):
    agents = part[0]
    return (agents.size, agents[0], agents[-1]) if agents.size else (0, None, None)


def _code_partition(frame, index, columns, agents, items, kind="binary"):
    """CSR of a partition's observed responses: local agents x global items.

    Returns ``(csr, first_agent_code)`` (worker side). Raises on a repeated
    (agent, item) pair or an item unknown to ``items``.
    """
    scores = _scores_of(frame, index, columns, kind)
    observed = np.flatnonzero(~np.isnan(scores))
    agent_labels = frame[columns[0]].to_numpy()[observed]
    item_labels = frame[columns[1]].to_numpy()[observed]
    agent_code = np.searchsorted(agents, agent_labels)
    item_code = np.searchsorted(items, item_labels)
    known = (item_code < items.size) & (items[np.minimum(item_code, items.size - 1)]
                                        == item_labels)
    if not known.all():
        position = int(observed[np.flatnonzero(~known)[0]])
        raise ValueError(
            f"Partition {index}: item {item_labels[~known][0]!r} was not seen in "
            f"fit; {_describe_row(frame, position, columns)}."
        )
    local, row = np.unique(agent_code, return_inverse=True)
    order = np.lexsort((item_code, row))
    key = row[order] * np.int64(items.size) + item_code[order]
    repeated = np.flatnonzero(key[1:] == key[:-1])
    if repeated.size:
        positions = observed[order[[repeated[0], repeated[0] + 1]]]
        raise ValueError(
            f"Partition {index}: repeated (agent, item) rows "
            f"({repeated.size} repeat(s)), e.g. "
            f"{_describe_row(frame, int(positions[0]), columns)} and "
            f"{_describe_row(frame, int(positions[1]), columns)}. Aggregate them "
            "first (one response per agent and item)."
        )
    csr = sparse.csr_array((scores[observed], (row, item_code)),
                           shape=(local.size, items.size))
    csr.sum_duplicates()
    csr.sort_indices()
    return csr, local


def _check_block(block, index, offset, n_items, kind="binary"):
    """Validate a chunk of a Dask array of responses (worker side)."""
    values = np.asarray(block, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != n_items:
        raise ValueError(
            f"Chunk {index}: expected a 2-D chunk with {n_items} columns; got "
            f"shape {values.shape}."
        )
    bad = _not_allowed(values, kind)
    if bad.any():
        row, column = (int(v[0]) for v in np.nonzero(bad))
        what = {"binary": "binary responses (0, 1, or NaN)",
                "continuous": "scores in [0, 1] (NaN for missing)"}.get(
                    kind, _ALLOWED[kind])
        raise ValueError(
            f"Chunk {index}: X must hold {what}; row "
            f"{offset + row}, column {column} holds {_plain(values[row, column])!r}."
        )
    empty = np.flatnonzero(np.isnan(values).all(axis=1))
    if empty.size:
        raise ValueError(
            f"Chunk {index}: agent (row) {offset + int(empty[0])} has no observed "
            f"response ({empty.size} such row(s) in the chunk); drop them first."
        )
    return values


def _part_counts(part):
    """Successes and observed responses per item of a coded partition."""
    values = part[0] if isinstance(part, tuple) else part
    successes, observed, _ = _input_counts(values)
    return successes, observed


def _build_store(part, keep, algorithm, chunk_size):
    values = part[0] if isinstance(part, tuple) else part
    return _make_storage(values, keep, algorithm=algorithm, chunk_size=chunk_size)


def _n_local_agents(part):
    return part[1].size


class _DaskInput:
    """Dask input coded on the workers, before the store is built.

    ``parts`` are futures of coded partitions (a CSR with the partition's
    agents, or a dense chunk), ``workers`` their addresses, ``n_rows`` their
    agents, ``agents``/``items`` the sorted labels (None: positions) and
    ``totals`` the successes and observed responses per item.
    """

    def __init__(self, client, parts, workers, n_rows, n_items, agents, items,
                 indices=None):
        self.client = client
        self.parts = parts
        # the input's partition of every coded part (for the messages)
        self.indices = list(range(len(parts))) if indices is None else indices
        self.workers = workers
        self.n_rows = n_rows
        self.n_items = n_items
        self.agents = agents
        self.items = items
        self.totals = client.gather(_tree(client, _sum_parts,
                                          self.on_workers(_part_counts)))

    def on_workers(self, function, *args, shared=(), extras=None):
        """``function(part, *extra, *shared, *args)`` on every coded partition's worker.

        Futures in partition order; ``shared`` is scattered once to every
        worker, ``extras`` (one per partition, or None) go to their own.
        """
        client = self.client
        if shared:
            shared = client.scatter(list(shared), broadcast=True, hash=False)
        own = [()] * len(self.parts) if extras is None else [(e,) for e in extras]
        return [client.submit(function, part, *extra, *shared, *args,
                              workers=[worker], allow_other_workers=False, pure=False)
                for part, extra, worker in zip(self.parts, own, self.workers,
                                               strict=True)]

    def summed(self, function, *args, shared=()):
        """Sum over the coded partitions of ``function(part, *shared, *args)``.

        Added exactly (double-doubles) as a tree on the workers and rounded
        once there: only the total reaches the driver, and it does not
        depend on where the partitions are.
        """
        futures = self.on_workers(function, *args, shared=shared)
        total = _tree(self.client, exact_total, futures)
        return self.client.submit(_sum_parts, total, pure=False).result()

    def built_on_workers(self, function, *args, shared=(), extras=None):
        """:meth:`on_workers`, waited for: the first failed task's error is raised."""
        futures = self.on_workers(function, *args, shared=shared, extras=extras)
        wait(futures)
        for future in futures:
            if future.status == "error":
                future.result()
        return futures

    @property
    def shape(self):
        return (int(sum(self.n_rows)), self.n_items)

    def store(self, keep, *, algorithm="auto", chunk_size=None):
        """The distributed store of the kept items (same rule as in memory)."""
        if algorithm == "auto":
            n_cells = self.shape[0] * int(np.sum(keep))
            density = float(self.totals[1][keep].sum()) / max(n_cells, 1)
            algorithm = ("sparse" if HAVE_NUMBA and density < _SPARSE_BELOW
                         else "dense")
        stores = self.on_workers(_build_store, keep, algorithm, chunk_size)
        wait(stores)
        return _DaskResponses(self.client, stores, self.workers, self.n_rows,
                              int(np.sum(keep)),
                              (self.totals[0][keep], self.totals[1][keep]))

    def fit_with(self, fit, labels, keep, rate, *, algorithm, chunk_size, **kwargs):
        """``fit(store, labels, keep, rate, n_agents, **kwargs)`` on the workers.

        The coded partitions are released once the store is built; the fit's
        per-agent Dask arrays are persisted on the workers before the store
        is released.
        """
        store = self.store(keep, algorithm=algorithm, chunk_size=chunk_size)
        self.release()
        fitted = fit(store, labels, keep, rate, store.n_agents,
                     should_flip=store.should_flip, **kwargs)
        return self.finish(fitted, store, labels)

    def finish(self, fitted, store, labels):
        """A fit's attributes with its per-agent Dask arrays persisted.

        The arrays are computed and kept on the workers before the store
        ``store`` is released; the input attributes come from the labels.
        """
        names = [key for key, value in fitted.items() if is_dask_collection(value)]
        values = self.client.persist([fitted[key] for key in names])
        wait(values)
        store.release()
        fitted.update(zip(names, values, strict=True))
        fitted["agent_scores_"] = fitted["abilities_"]
        fitted["n_features_in_"] = int(labels.size)
        if self.items is not None and all(isinstance(x, str) for x in labels):
            fitted["feature_names_in_"] = np.asarray(labels, dtype=object)
        return fitted

    def release(self):
        """Let the workers drop the coded partitions."""
        self.parts = []


def _located(client, futures):
    """Wait for ``futures`` and return the address of a worker holding each.

    A task that failed on a worker raises its error here (with the message
    that names the partition and row).
    """
    wait(futures)
    for future in futures:
        if future.status == "error":
            future.result()
    holders = client.who_has(futures)
    return [sorted(holders[future.key])[0] for future in futures]


def read_dask_array(X, n_items=None, *, kind="binary"):
    """Chunks of a Dask array of responses, validated on the workers."""
    client = get_client()
    if X.ndim != 2:
        raise ValueError(f"A Dask array of responses must be 2-D; got {X.ndim}-D.")
    if n_items is not None and X.shape[1] != n_items:
        raise ValueError(f"X has {X.shape[1]} features, but the model is "
                         f"expecting {n_items} features as input.")
    if np.isnan(X.shape[0]) or any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError("The Dask array needs known chunk sizes "
                         "(call X.compute_chunk_sizes()).")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # rows stay on the workers: one chunk per row band
    blocks = list(X.to_delayed().ravel())
    chunk_rows = [int(n) for n in X.chunks[0]]
    offsets = np.concatenate([[0], np.cumsum(chunk_rows)[:-1]])
    raw = client.compute(blocks)
    parts = [client.submit(_check_block, block, i, int(offsets[i]), X.shape[1],
                           kind, pure=False) for i, block in enumerate(raw)]
    workers = _located(client, parts)
    del raw  # the workers drop them
    return _DaskInput(client, parts, workers, chunk_rows, int(X.shape[1]), None,
                      None)


def long_columns(frame):
    """The (agent, item, score) column names of a long table; errors name others."""
    names = list(frame.columns)
    item = next((name for name in _ITEM_COLUMNS if name in names), None)
    missing = [name for name in ("agent", "score") if name not in names]
    if item is None:
        missing.insert(1, "item")
    unknown = [name for name in names if name not in ("agent", item, "score")]
    if missing or unknown:
        raise ValueError(
            "A Dask DataFrame of responses is a long table with the columns "
            "'agent', 'item' (or 'task') and 'score'"
            + (f"; missing: {missing}" if missing else "")
            + (f"; unknown column(s): {unknown}" if unknown else "") + "."
        )
    return ("agent", item, "score")


def _tree(client, function, futures):
    level = list(futures)
    while len(level) > 1:
        level = [client.submit(function, *level[i:i + 8], pure=False)
                 for i in range(0, len(level), 8)]
    return level[0]


def read_long_table(frame, items=None, *, kind="binary", _regrouped=False):
    """A Dask DataFrame long table, validated and coded on the workers.

    ``items``: the fitted item labels (new data in ``transform``); None in
    ``fit`` (the sorted labels of the table).
    """
    client = get_client()
    columns = long_columns(frame)
    raw = client.compute(list(frame.to_delayed()))
    scans = [client.submit(_scan_partition, part, i, columns, kind, pure=False)
             for i, part in enumerate(raw)]
    agents, labels_of_items = client.gather(_tree(client, _merge_labels, scans))
    ranges = client.gather([client.submit(_range_of, scan, pure=False)
                            for scan in scans])
    del scans  # the workers drop them
    used = [i for i, (count, _, _) in enumerate(ranges) if count]
    if not used:
        del raw  # the workers drop them
        raise ValueError("The long table has no observed response.")
    order = sorted(used, key=lambda i: agents.searchsorted(ranges[i][1]))
    spread = sum(ranges[i][0] for i in used) > agents.size or any(
        agents.searchsorted(ranges[order[k]][2])
        >= agents.searchsorted(ranges[order[k + 1]][1])
        for k in range(len(order) - 1))
    if spread:
        if _regrouped:  # pragma: no cover - set_index yields ranges of agents
            raise RuntimeError("Regrouping the long table by agent failed.")
        del raw  # the workers drop them
        return read_long_table(_regroup(frame, agents, len(used)), items,
                               kind=kind, _regrouped=True)
    item_labels = labels_of_items if items is None else np.asarray(items)
    # the labels go to every worker once, not once per partition
    shared = client.scatter([agents, item_labels], broadcast=True)
    coded = [client.submit(_code_partition, raw[i], i, columns, *shared, kind,
                           pure=False) for i in order]
    workers = _located(client, coded)
    del raw  # the workers drop them
    n_rows = client.gather([client.submit(_n_local_agents, part, workers=[worker],
                                          pure=False)
                            for part, worker in zip(coded, workers, strict=True)])
    return _DaskInput(client, coded, workers, n_rows, item_labels.size, agents,
                      item_labels, indices=order)


def _regroup(frame, agents, n_partitions):
    """The table regrouped into ranges of agents (a shuffle between workers)."""
    n_partitions = max(1, min(n_partitions, agents.size))
    cuts = np.linspace(0, agents.size - 1, n_partitions + 1).round().astype(int)
    divisions = sorted(set(agents[cuts].tolist()))
    if len(divisions) < 2:
        divisions = [agents[0], agents[-1]]
    regrouped = frame.set_index("agent", divisions=divisions, drop=True)
    return regrouped.reset_index()[list(frame.columns)]


def summary_of(totals):
    """The item summary from the successes and observed responses per item."""
    return _summary_from_counts(*totals)
