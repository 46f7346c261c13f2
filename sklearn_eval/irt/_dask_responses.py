"""Responses that stay on the workers of a Dask cluster: the distributed store.

:class:`_DaskResponses` offers the operations of a response store
(:mod:`._responses`, :mod:`._sparse_responses`) that the EM engine and the
fit call, so the engine runs unchanged on data it never holds. Every
partition of agents is a store of its own (dense blocks or sparse codes,
built once on the worker that holds the partition, see
:mod:`._dask_input`); an operation sends the item parameters to the
partitions' workers, runs the partition's own store operation there, sums
the partitions of each worker on that worker and then the workers' sums as a
tree, and brings one (n_nodes x n_items) table back. Per-agent results
(posterior moments, abilities) stay on the workers as Dask arrays, one chunk
per partition.

Sums over partitions are carried as double-doubles
(:mod:`sklearn_eval.utils._exact_sums`) from the partitions to the last
merge and rounded once there, so a fit gives the same numbers whichever
worker or thread ran which partition and however many there are (the
double-doubles double the bytes sent; the driver merges the last two itself
where the total is small, see :meth:`_DaskStore._gathered`, and else
receives the rounded total). Where the partitions' own sums are exact on
fixed grids (``GridSum``: the GRM/GPCM's counts and score products) the fit
equals the in-memory one bit for bit; elsewhere (the in-memory fit adds its
blocks of agents in its own order) to rounding, about 1e-13 relative. Dask
is imported only here and in :mod:`._dask_input`, on Dask input.
"""

import numpy as np

from ..utils._exact_sums import GridSum, exact_total, rounded

# Workers' partial sums are added in groups of this many (tree reduction).
_FAN_IN = 8
# Totals of up to this many bytes are merged by the driver (see _gathered).
_DRIVER_MERGE_BYTES = 2**20
# Array arguments of per-partition tasks past this size are scattered once.
_SHARE_FROM = 2**16


def wait(collections):
    """Block until Dask collections or futures are computed on the cluster."""
    from distributed import wait as _wait

    return _wait(collections)


# ------------------------------------------------------------ worker side
def _sum_parts(*parts):
    """Sum of partial results, rounded once (on a worker or the driver).

    Dicts, tuples or lists of arrays and floats, added as double-doubles
    (:mod:`sklearn_eval.utils._exact_sums`).
    """
    return rounded(exact_total(*parts))


def _run_group(function, stores, args, extras):
    """``function`` on a worker's partitions, summed exactly (runs on a worker).

    The sum is a double-double partial result
    (:func:`sklearn_eval.utils._exact_sums.exact_total`): which partitions
    share a group does not change the rounded total.
    """
    total = None
    for i, store in enumerate(stores):
        own = () if extras is None else (extras[i],)
        part = function(store, *args, *own)
        total = exact_total(part) if total is None else exact_total(total, part)
    return total


def _part_e_step(store, a, b, grid, counts):
    out = store.e_step(a, b, grid, counts=counts)
    keys = ("loglik", "mass", "r", "n") if counts else ("loglik", "mass")
    return {key: np.array(out[key]) for key in keys}


def _part_e_step_tables(store, log_p, log_q, grid, counts):
    out = store.e_step_tables(log_p, log_q, grid, counts=counts)
    keys = ("loglik", "mass", "r", "n") if counts else ("loglik", "mass")
    return {key: np.array(out[key]) for key in keys}


def _part_moments(store, a, b, grid, tables, counts=False):
    if tables:
        out = store.e_step_tables(a, b, grid, counts=counts, moments=True)
    else:
        out = store.e_step(a, b, grid, counts=counts, moments=True)
    return out


def _small_part(moments):
    """The summed part of an E-step with moments: what leaves the worker.

    ``n`` is left out where it is ``r`` itself (the graded store's).
    """
    keys = [key for key in _SUMMED if key in moments
            and not (key == "n" and moments["n"] is moments.get("r"))]
    return {key: moments[key] if isinstance(moments[key], GridSum)
            else np.array(moments[key]) for key in keys}


# what an E-step sums over the agents: binary, graded and continuous stores
_SUMMED = ("loglik", "mass", "r", "n", "N", "S1", "S2", "S11", "S12", "S22")


def _pick(result, key):
    return result[key]


def _part_louis(store, a, b, grid, P):
    r, n, outer = store.louis_sums(a, b, grid, P)
    return r, n, list(outer)


def _part_score_products(store, log_p, log_q, grid, g1, g0):
    return store.score_products(log_p, log_q, grid, g1, g0)


def _part_item_moments(store, total):
    return store.item_moments(np.asarray(total, dtype=np.float64))


def _part_map(store, a, b, start):
    return store.map_abilities(a, b, np.asarray(start, dtype=np.float64))


def _part_row_sums(store):
    return store.row_sums()


def _part_observed_histogram(store, n_items):
    counts = store.n_observed().astype(np.int64)
    return np.bincount(counts, minlength=n_items + 1).astype(np.float64)


def _part_flip_sums(theta, proportion):
    """n, sums and cross sums of (theta, proportion) over finite proportions."""
    theta, proportion = np.asarray(theta), np.asarray(proportion)
    ok = np.isfinite(proportion)
    t, p = theta[ok], proportion[ok]
    return np.array([t.size, t.sum(), p.sum(), t @ t, p @ p, t @ p])


# ------------------------------------------------------------ driver side
class _DaskStore:
    """Partitions of a store on the workers, and the map/reduce over them.

    ``stores`` are futures of per-partition stores, ``workers`` the address
    holding each, ``n_rows`` the agents of each partition (in the order of
    the agents' codes) and ``n_items`` the store's columns. Subclasses
    offer a store's operations (:class:`_DaskResponses` for binary
    responses, ``_dask_graded._DaskCategorical`` for ordered categories).
    """

    parallel = None

    def __init__(self, client, stores, workers, n_rows, n_items, item_totals=None):
        self.client = client
        self.stores = list(stores)
        self.workers = list(workers)
        self.n_rows = [int(n) for n in n_rows]
        self.n_agents = int(sum(self.n_rows))
        self.n_items = int(n_items)
        self._item_totals = item_totals
        self._nthreads = None
        self._total_bytes = {}  # bytes of each operation's last total

    # ------------------------------------------------------- plumbing
    def _map(self, function, *args, extra=None):
        """``function(store, *args, extra_i)`` on the worker of each partition.

        Array arguments of ``_SHARE_FROM`` bytes or more (the log tables of
        an E-step with moments: n_nodes x n_items) are sent to the workers
        once and passed by reference: a task embeds its arguments, and the
        scheduler (in the driver's process on a local cluster) keeps every
        task's arguments while its result is held, so embedding them would
        cost the driver one copy per partition.
        """
        args = self._shared(args)
        futures = []
        for i, (store, worker) in enumerate(zip(self.stores, self.workers,
                                                strict=True)):
            own = () if extra is None else (extra[i],)
            futures.append(self.client.submit(
                function, store, *args, *own, workers=[worker],
                allow_other_workers=False, pure=False))
        return futures

    def _shared(self, args):
        """``args`` with the large arrays scattered to every worker (futures)."""
        large = [i for i, arg in enumerate(args)
                 if isinstance(arg, np.ndarray) and arg.nbytes >= _SHARE_FROM]
        if not large or len(self.stores) < 2:
            return args
        futures = self.client.scatter([args[i] for i in large], broadcast=True,
                                      hash=False)
        args = list(args)
        for i, future in zip(large, futures, strict=True):
            args[i] = future
        return tuple(args)

    def _reduce(self, futures):
        """Sum of per-partition results (futures): per worker, then gathered."""
        by_worker = {}
        for future, worker in zip(futures, self.workers, strict=True):
            by_worker.setdefault(worker, []).append(future)
        return self._gathered([
            self.client.submit(exact_total, *group, workers=[worker],
                               allow_other_workers=False, pure=False)
            for worker, group in sorted(by_worker.items())])

    def _map_reduce(self, function, *args, extra=None):
        """Sum over the partitions of ``function(store, *args, extra_i)``.

        One task per worker thread runs the function on its share of the
        worker's partitions and adds them up there: only sums leave a
        worker. The sums travel as double-doubles (twice the bytes of a
        table) and are rounded once, at the last merge (see
        :meth:`_gathered`), so the total does not depend on which worker or
        thread ran which partition.
        """
        groups = {}
        threads = self._threads()
        for i, worker in enumerate(self.workers):
            n_slots = threads.get(worker, 1)
            slots = groups.setdefault(worker, [[] for _ in range(n_slots)])
            min(slots, key=len).append(i)
        futures = []
        for worker, slots in sorted(groups.items()):
            for members in slots:
                if not members:
                    continue
                own = None if extra is None else [extra[i] for i in members]
                futures.append(self.client.submit(
                    _run_group, function, [self.stores[i] for i in members], args,
                    own, workers=[worker], allow_other_workers=False, pure=False))
        return self._gathered(futures, function)

    def _threads(self):
        if self._nthreads is None:
            info = self.client.scheduler_info(n_workers=-1)["workers"]
            self._nthreads = {address: int(w.get("nthreads", 1))
                              for address, w in info.items()}
        return self._nthreads

    def _gathered(self, futures, operation=None):
        """Sum of the results of ``futures``, merged as double-doubles.

        The partial sums are merged on the workers (groups of up to
        ``_FAN_IN``, as a tree) and rounded once at the last merge. Where the
        ``operation``'s total was at most ``_DRIVER_MERGE_BYTES`` the last
        time, the last two partial sums are gathered and merged by the
        driver: one round of scheduling less (about 10 ms of an E-step's
        wall time on a local cluster), for two double-doubles (four times
        the total's bytes) on the driver; larger totals are merged on a
        worker, and the driver receives the rounded total only. Either way
        the total does not depend on the grouping.
        """
        small = self._total_bytes.get(operation, np.inf) <= _DRIVER_MERGE_BYTES
        while len(futures) > (2 if small else _FAN_IN):
            futures = [self.client.submit(exact_total, *futures[i:i + _FAN_IN],
                                          pure=False)
                       for i in range(0, len(futures), _FAN_IN)]
        if small:
            total = _sum_parts(*self.client.gather(futures))
        else:
            total = self.client.submit(_sum_parts, *futures, pure=False).result()
        self._total_bytes[operation] = _nbytes(total)
        return total

    def _agent_array(self, futures, dtype=np.float64):
        """A Dask array over the agents, one chunk per partition's future."""
        import dask.array as da

        return da.concatenate([
            da.from_delayed(future, shape=(n,), dtype=dtype)
            for future, n in zip(futures, self.n_rows, strict=True)])

    def map_rows(self, function, *args, n_columns):
        """``function(store, *args)`` per partition: a Dask array of its rows.

        ``function`` returns an array of shape (partition's agents,
        ``n_columns``); the result stays on the workers, one chunk per
        partition.
        """
        import dask.array as da

        return da.concatenate([
            da.from_delayed(future, shape=(n, n_columns), dtype=np.float64)
            for future, n in zip(self._map(function, *args), self.n_rows,
                                 strict=True)])

    def _pieces(self, futures, n_pieces):
        """Futures of the elements of each partition's tuple result (in place)."""
        return [[self.client.submit(_pick, future, k, workers=[worker],
                                    allow_other_workers=False, pure=False)
                 for future, worker in zip(futures, self.workers, strict=True)]
                for k in range(n_pieces)]

    def _blocks_of(self, vector):
        """Futures of a per-agent Dask array's chunks, aligned with the partitions."""
        vector = vector.rechunk((tuple(self.n_rows),))
        futures = self.client.compute(list(vector.to_delayed().ravel()))
        return futures

    def _split_moments(self, full, counts):
        """Sums of per-partition E-steps with moments (``full``: futures).

        The sums come back; ``mean``, ``sd``, ``per_agent`` stay on the
        workers as Dask arrays.
        """
        small = [self.client.submit(_small_part, future, workers=[worker],
                                    allow_other_workers=False, pure=False)
                 for future, worker in zip(full, self.workers, strict=True)]
        out = _finish(self._reduce(small), counts)
        for key in ("mean", "sd", "per_agent"):
            pieces = [self.client.submit(_pick, future, key, workers=[worker],
                                         allow_other_workers=False, pure=False)
                      for future, worker in zip(full, self.workers, strict=True)]
            out[key] = self._agent_array(pieces)
        return out

    def should_flip(self, theta, proportion):
        """``_should_flip`` from sums computed on the workers."""
        futures = [self.client.submit(_part_flip_sums, t, p, workers=[worker],
                                      allow_other_workers=False, pure=False)
                   for t, p, worker in zip(self._blocks_of(theta),
                                           self._blocks_of(proportion),
                                           self.workers, strict=True)]
        sums = self._reduce(futures)
        n, st, sp, stt, spp, stp = sums
        if n < 2:
            return False
        var_t = stt / n - (st / n) ** 2
        var_p = spp / n - (sp / n) ** 2
        if var_t <= 0 or var_p <= 0:
            return False
        return stp / n - st / n * sp / n < 0


    def release(self):
        """Let the workers drop the partitions (no result depends on them)."""
        self.stores = []


class _DaskResponses(_DaskStore):
    """The response store of a fit on Dask input: partitions on the workers.

    ``stores`` are futures of per-partition stores (``_Responses`` or
    ``_SparseResponses``), ``workers`` the address holding each, ``n_rows``
    the agents of each partition (in the order of the agents' codes) and
    ``n_items`` the items kept for estimation. ``item_totals`` (successes,
    observed) per kept item were reduced while coding.
    """

    has_missing = True

    # ------------------------------------------------ summaries of the data
    def item_counts(self):
        """Successes and observed responses per item."""
        return self._item_totals

    def row_sums(self):
        """Successes and observed responses per agent (Dask arrays)."""
        successes, observed = self._pieces(self._map(_part_row_sums), 2)
        return self._agent_array(successes), self._agent_array(observed)

    def n_observed(self):
        """Observed responses per agent (a Dask array)."""
        return self.row_sums()[1]

    def success_rate(self):
        """Per agent: successes / observed responses (a Dask array)."""
        successes, observed = self.row_sums()
        return successes / observed

    def median_observed(self):
        """Median of the observed responses per agent (np.median's value)."""
        histogram = self._map_reduce(_part_observed_histogram, self.n_items)
        cumulative = np.cumsum(histogram)
        total = int(cumulative[-1])
        low = int(np.searchsorted(cumulative, (total - 1) // 2 + 1))
        high = int(np.searchsorted(cumulative, total // 2 + 1))
        return 0.5 * (low + high)

    def item_moments(self, total):
        """Per item, over observed responses: n, sum x, sum t, sum x t, sum t^2."""
        return self._map_reduce(_part_item_moments, extra=self._blocks_of(total))

    # ------------------------------------------- the operations of a store
    def e_step(self, a, b, grid, *, counts=True, moments=False):
        """Log-likelihood, node mass, expected counts; moments stay distributed."""
        if moments:
            return self._moments(a, b, grid, tables=False, counts=counts)
        out = self._map_reduce(_part_e_step, a, b, grid, counts)
        return _finish(out, counts)

    def e_step_tables(self, log_p, log_q, grid, *, counts=True, moments=False):
        """:meth:`e_step` for any binary item model, from its log tables."""
        if moments:
            return self._moments(log_p, log_q, grid, tables=True, counts=counts)
        out = self._map_reduce(_part_e_step_tables, log_p, log_q, grid, counts)
        return _finish(out, counts)

    def _moments(self, first, second, grid, tables, counts=False):
        full = self._map(_part_moments, first, second, grid, tables, counts)
        return self._split_moments(full, counts)

    def score_products(self, log_p, log_q, grid, g1, g0):
        """Per item, ``sum_i E_i[s] E_i[s]^T`` of the parameter scores."""
        return self._map_reduce(_part_score_products, log_p, log_q, grid, g1, g0)

    def louis_sums(self, a, b, grid, P):
        """Expected counts and posterior score products per item (Louis)."""
        r, n, outer = self._map_reduce(_part_louis, a, b, grid, P)
        return r, n, outer

    def map_abilities(self, a, b, start):
        """MAP abilities and their sd (Dask arrays), Newton from ``start``."""
        parts = self._map(_part_map, a, b, extra=self._blocks_of(start))
        theta, sd = self._pieces(parts, 2)
        return self._agent_array(theta), self._agent_array(sd)

    def item_fit(self, a, b, grid):
        raise NotImplementedError(
            "item_fit needs every response of an item at once; it is not "
            "offered on Dask input (collect a sample of agents first)."
        )


def _nbytes(x):
    """Bytes of the arrays in a (nested) result."""
    if isinstance(x, dict):
        return sum(_nbytes(value) for value in x.values())
    if isinstance(x, (tuple, list)):
        return sum(_nbytes(value) for value in x)
    return np.asarray(x).nbytes


def _finish(out, counts):
    out = dict(out)
    out["loglik"] = float(out["loglik"])
    return out
