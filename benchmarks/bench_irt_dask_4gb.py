r"""The driver's memory while IRT 2PL fits a 4 GB long table on a Dask cluster.

Setup: the development environment with the ``distributed`` extra
(``pip install -e '.[distributed]'``: dask, distributed, pyarrow; psutil
comes with distributed).

Run (from the repository root; the data go under ``/tmp``, never the repo)::

    python benchmarks/bench_irt_dask_4gb.py --responses 1e6      # a quick check
    python benchmarks/bench_irt_dask_4gb.py --responses 2e7
    nice -n 10 python benchmarks/bench_irt_dask_4gb.py            # 170M, ~4 GB

What it does:

1. **Writes** a folder of parquet files, one per partition of agents, each
   generated from its own seed in a pool of two processes: no process ever
   holds more than one partition. The table is a leaderboard: 50,000 agents
   x 4,000 items with 85% of the cells observed (about 170M responses; the
   agents' count scales with ``--responses``), simulated from a 2PL model.
   Labels are int64 and scores float64: 24 bytes per response in memory,
   4.1 GB at 170M. The folder is kept and reused (a ``DONE`` file records
   the parameters; missing files are written on a rerun).
2. **Starts** a ``LocalCluster`` of two single-threaded worker processes,
   imports the library, runs one small warm-up fit (two partitions of the
   folder, two EM iterations: Dask, numba and the library's code paths
   loaded), opens the whole folder with ``dask.dataframe.read_parquet``
   (the workers read it) and records the driver's RSS: the baseline.
3. **Fits** ``IRT(model="2PL", max_iter=3)`` while a thread samples the RSS
   of the driver and of every worker process every 50 ms. Three EM
   iterations suffice for the memory target: the responses are read, coded
   and stored once before EM, and every iteration moves the same
   (n_nodes x n_items) tables, so the driver's memory does not grow with
   the iterations; the final passes (standard errors, abilities) run as after
   a converged fit. Every E-step of the store is timed, with the bytes the
   workers sent around it (Dask's ``transfer_outgoing_bytes_total``: the
   sums coming back; what goes out is the item parameters, 2 x items x 8 B
   per task).
4. **Prints** the driver's peak above the baseline (sampled; and from
   ``getrusage``, which sees even spikes shorter than 50 ms), the workers'
   peak RSS, the time of the setup (reading, coding, storing), of each
   E-step and per EM iteration, and the bytes moved per E-step.

The machine running it is shared: timings are wall times under load.

Measured (2026-11-26, 2 cores, three other jobs running, load 2.5-5), the
default 170M responses (3,891 MB in memory): driver peak 80.1 MB above the
baseline (getrusage 83.7 MB; target 0.5 GB); workers 5,418 and 5,525 MB
peak; reading, coding and storing 61.2 s; E-step median 13.6 s (6.2M
responses/s per worker), 18.3 s per EM iteration; 15,491 kB sent per
E-step = 4.00 x (items x nodes x 8 B); whole fit 260 s. At 20M responses:
driver +41 MB, workers 0.9 GB each, the same 15.5 MB per E-step. These
transfer counts were read before the double-doubles reported their size to
Dask (the partial sums merged between the workers were not counted).
Re-run at 20M on 2026-11-27 (quieter machine), every transfer counted:
23,236 kB per E-step = 6.00 x (items x nodes x 8 B); driver +18 MB sampled
(getrusage 32 MB); workers 0.94 and 0.99 GB; E-step median 1.16 s.
"""

import argparse
import gc
import json
import os
import resource
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np

_SEED = 20261126


def _item_parameters(n_items):
    rng = np.random.default_rng(_SEED)
    return rng.lognormal(0.0, 0.3, n_items), rng.normal(0.0, 1.0, n_items)


def _write_partition(index, first_agent, n_agents, n_items, observed, folder):
    """One partition of agents, generated from its own seed and written."""
    import pandas as pd

    path = os.path.join(folder, f"part-{index:05d}.parquet")
    if os.path.exists(path):
        return None
    a, b = _item_parameters(n_items)
    rng = np.random.default_rng([_SEED, index])
    theta = rng.normal(size=n_agents)
    rows, columns = np.nonzero(rng.random((n_agents, n_items)) < observed)
    p = 1.0 / (1.0 + np.exp(-a[columns] * (theta[rows] - b[columns])))
    table = pd.DataFrame({
        "agent": (rows + first_agent).astype(np.int64),
        "item": columns.astype(np.int64),
        "score": (rng.random(rows.size) < p).astype(np.float64)})
    table.to_parquet(path + ".tmp", index=False)
    os.replace(path + ".tmp", path)
    return int(rows.size)


def write_folder(folder, n_agents, n_items, observed, per_part):
    """The parquet folder (resumable: existing files are kept)."""
    params = {"agents": n_agents, "items": n_items, "observed": observed,
              "per_part": per_part, "seed": _SEED}
    done = os.path.join(folder, "DONE")
    if os.path.exists(done):
        with open(done) as file:
            if json.load(file)["params"] == params:
                print(f"reusing {folder}")
                return
        raise SystemExit(f"{folder} holds another table; remove it or use --folder")
    os.makedirs(folder, exist_ok=True)
    starts = list(range(0, n_agents, per_part))
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(_write_partition, i, first,
                               min(per_part, n_agents - first), n_items, observed,
                               folder) for i, first in enumerate(starts)]
        written = [future.result() for future in futures]
    with open(done, "w") as file:
        json.dump({"params": params}, file)
    print(f"wrote {sum(n for n in written if n)} responses in "
          f"{sum(n is not None for n in written)} files in "
          f"{time.perf_counter() - start:.0f} s")


class _Sampler(threading.Thread):
    """RSS of this process and of its child processes every ``interval`` s."""

    def __init__(self, interval=0.05):
        super().__init__(daemon=True)
        import psutil

        self.interval = interval
        self.me = psutil.Process()
        self.stop = threading.Event()
        self.peak = 0
        self.children = {}  # pid -> peak RSS
        self.peak_total = 0

    def sample(self):
        import psutil

        rss = self.me.memory_info().rss
        self.peak = max(self.peak, rss)
        total = 0
        for child in self.me.children(recursive=True):
            try:
                child_rss = child.memory_info().rss
            except psutil.Error:
                continue
            total += child_rss
            self.children[child.pid] = max(self.children.get(child.pid, 0),
                                           child_rss)
        self.peak_total = max(self.peak_total, total)
        return rss

    def run(self):
        while not self.stop.is_set():
            self.sample()
            time.sleep(self.interval)


def _max_rss():
    """Peak RSS of this process since it started (getrusage, bytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _instrument(client, log):
    """Time every E-step of the distributed store, with Dask's byte counters."""
    from sklearn_eval.irt import _dask_responses

    def counters():
        return sum(client.run(
            lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())

    for name in ("e_step", "e_step_tables"):
        method = getattr(_dask_responses._DaskResponses, name)

        def timed(self, *args, _method=method, _name=name, **kwargs):
            before = counters()
            start = time.perf_counter()
            out = _method(self, *args, **kwargs)
            elapsed = time.perf_counter() - start
            log.append((_name, bool(kwargs.get("moments")), elapsed,
                        counters() - before))
            return out

        setattr(_dask_responses._DaskResponses, name, timed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--responses", type=float, default=1.7e8)
    parser.add_argument("--items", type=int, default=4000)
    parser.add_argument("--observed", type=float, default=0.85)
    parser.add_argument("--per-part", type=int, default=250,
                        help="agents per parquet file (250 x 4000 x 0.85: 850k rows)")
    parser.add_argument("--max-iter", type=int, default=3)
    parser.add_argument("--folder", default=None,
                        help="default /tmp/sklearn-eval-bench/irt-<responses>")
    parser.add_argument("--memory-limit", default="10GiB",
                        help="memory limit of each worker")
    args = parser.parse_args()
    n_agents = max(2, round(args.responses / (args.items * args.observed)))
    folder = args.folder or os.path.join(
        "/tmp", "sklearn-eval-bench", f"irt-{n_agents}x{args.items}-{args.observed}")
    write_folder(folder, n_agents, args.items, args.observed, args.per_part)

    import dask.dataframe as dd
    import psutil
    from distributed import Client, LocalCluster

    from sklearn_eval.irt import IRT, _dask_input

    warnings.simplefilter("ignore")
    log, phases = [], {}
    store_method = _dask_input._DaskInput.store

    def timed_store(self, *a, **k):
        out = store_method(self, *a, **k)
        phases["store built"] = time.perf_counter()
        return out

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      memory_limit=args.memory_limit, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:
        files = dd.read_parquet(folder)
        IRT(model="2PL", max_iter=2).fit(files.partitions[:2])  # warm-up
        del files
        _instrument(client, log)
        _dask_input._DaskInput.store = timed_store
        table = dd.read_parquet(folder)
        n_partitions = table.npartitions
        gc.collect()
        sampler = _Sampler()
        baseline = sampler.sample()
        workers_before = sampler.peak_total
        max_before = _max_rss()
        sampler.start()
        start = time.perf_counter()
        model = IRT(model="2PL", max_iter=args.max_iter).fit(table)
        fit_time = time.perf_counter() - start
        sampler.stop.set()
        sampler.join()
        max_after = _max_rss()
        n_responses = int(model.n_observations_)
        table_bytes = n_responses * 24
        mb = 2**20
        print(f"{model.abilities_.shape[0]} agents x {len(model.tasks_)} items, "
              f"{n_partitions} parquet files, 2 single-threaded workers "
              f"(memory limit {args.memory_limit} each)")
        print(f"{n_responses} responses: {table_bytes / mb:.0f} MB in memory "
              "(int64 labels, float64 scores)")
        print(f"driver RSS baseline {baseline / mb:.0f} MB; peak above it: "
              f"sampled {(sampler.peak - baseline) / mb:.1f} MB, getrusage "
              f"{max(max_after - baseline, 0) / mb:.1f} MB"
              + ("" if max_after > max_before else
                 " (not above the process's earlier peak: an upper bound)"))
        workers = {pid: rss for pid, rss in sampler.children.items()
                   if rss > 200 * mb}
        print("worker processes' peak RSS: " + ", ".join(
            f"{rss / mb:.0f} MB" for rss in sorted(workers.values()))
            + f"; children together {sampler.peak_total / mb:.0f} MB "
            f"(before the fit {workers_before / mb:.0f} MB)")
        setup = phases.get("store built", start) - start
        em_steps = [row for row in log if not row[1]]
        print(f"fit {fit_time:.1f} s: reading, coding and storing {setup:.1f} s; "
              f"{model.n_iter_} EM iterations, {len(em_steps)} E-steps, "
              f"{len(log) - len(em_steps)} passes with moments")
        for name, moments, elapsed, sent in log:
            print(f"  {name}{' (moments)' if moments else ''}: {elapsed:.2f} s, "
                  f"workers sent {sent / 1e3:.1f} kB")
        if em_steps:
            times = np.array([row[2] for row in em_steps])
            sent = np.array([row[3] for row in em_steps])
            n_nodes = len(model.quadrature_nodes_)
            unit = len(model.tasks_) * n_nodes * 8
            print(f"E-step: median {np.median(times):.2f} s; SQUAREM: "
                  f"{len(em_steps) / max(model.n_iter_, 1):.1f} E-steps per "
                  f"iteration, {times.sum() / max(model.n_iter_, 1):.2f} s per "
                  f"iteration; workers sent {np.median(sent) / 1e3:.0f} kB per "
                  f"E-step = {np.median(sent) / unit:.2f} x (items x nodes x 8 B)")
            if n_responses:
                print(f"throughput {n_responses / np.median(times) / 2 / 1e6:.1f} M "
                      "responses/s per worker (wall clock, shared machine)")
        print(f"total memory now: {psutil.virtual_memory().available / 2**30:.1f} "
              "GiB available")


if __name__ == "__main__":
    main()
