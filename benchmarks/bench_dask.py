r"""Benchmark IRT2PL on a Dask cluster, the responses kept on the workers.

Setup: the development environment with the ``distributed`` extra
(``pip install -e '.[distributed]'``: dask, distributed, pyarrow).

Run (from the repository root)::

    /work/venv/bin/python benchmarks/bench_dask.py
    /work/venv/bin/python benchmarks/bench_dask.py --agents 40000 --items 400 \
        --observed 0.5 --partitions 8 --workers 2

Writes a long table (agent, item, score) as a folder of parquet files (one per
partition, written by the workers), then fits:

- in memory: the table read with pandas, ``long_to_result_matrix(...,
  sparse=True)`` and ``IRT2PL(n_jobs=workers)`` (threads);
- on the cluster: ``IRT2PL().fit(dask.dataframe.read_parquet(folder))`` on a
  ``LocalCluster(n_workers=workers, threads_per_worker=1)``.

Prints the wall time per E-step of each (fit time over ``n_iter_``, the setup
and the final passes included, so an upper bound), their ratio, the time of
one E-step alone (setup excluded: 5 E-steps on the built store, on the cluster
and on the in-memory store with ``n_jobs=workers`` threads) and its ratio, the
bytes the workers send per E-step (Dask's ``transfer_outgoing_bytes_total``, measured on
the store over 5 E-steps), the driver's peak RSS above its level before the fit,
the largest difference between the two fits, and a projection for 10^10
responses on 100 workers from the measured per-worker throughput of an E-step
(responses per second per worker thread) and the measured round trip. Timings
on a shared machine are noisy: repeat when quiet.
"""

import argparse
import os
import resource
import tempfile
import time
import warnings

import numpy as np
import pandas as pd


def _partition(seed, n_agents, n_items, observed, folder):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    a = rng.lognormal(0.0, 0.3, n_items)
    b = rng.normal(0.0, 1.0, n_items)
    rows, columns = np.nonzero(rng.random((n_agents, n_items)) < observed)
    p = 1.0 / (1.0 + np.exp(-a[columns] * (theta[rows] - b[columns])))
    table = pd.DataFrame({"agent": rows + seed * n_agents, "item": columns,
                          "score": (rng.random(rows.size) < p).astype(np.float64)})
    table.to_parquet(os.path.join(folder, f"part-{seed:04d}.parquet"))
    return int(rows.size)


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--observed", type=float, default=0.5)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-iter", type=int, default=1000,
                        help="EM iterations of the cluster fit (a cap for big runs)")
    parser.add_argument("--skip-memory-fit", action="store_true",
                        help="only the cluster fit (for tables past the RAM)")
    args = parser.parse_args()

    import dask.dataframe as dd
    from distributed import Client, LocalCluster
    from sklearn.utils.parallel import Parallel

    from sklearn_eval.irt import IRT2PL
    from sklearn_eval.irt._dask_fit import dask_fit_data
    from sklearn_eval.irt._quadrature import make_grid
    from sklearn_eval.irt._responses import _check_fit_responses, _make_storage
    from sklearn_eval.utils import long_to_result_matrix

    warnings.simplefilter("ignore")
    per_part = args.agents // args.partitions
    with tempfile.TemporaryDirectory() as folder, LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True,
            dashboard_address=None, silence_logs=40) as cluster, \
            Client(cluster) as client:
        sizes = client.gather(client.map(_partition, range(args.partitions),
                                         n_agents=per_part, n_items=args.items,
                                         observed=args.observed, folder=folder))
        n_responses = int(sum(sizes))
        print(f"{args.agents} agents x {args.items} items, {n_responses} responses "
              f"in {args.partitions} parquet files; {args.workers} workers")
        table = dd.read_parquet(folder)
        IRT2PL(max_iter=2).fit(dd.read_parquet(folder).partitions[:1])  # warm-up
        rss0 = _peak_rss_mb()
        start = time.perf_counter()
        model = IRT2PL(max_iter=args.max_iter).fit(table)
        dask_time = time.perf_counter() - start
        rss_dask = _peak_rss_mb() - rss0
        per_step_dask = dask_time / model.n_iter_
        print(f"cluster fit: {dask_time:.1f} s, {model.n_iter_} E-steps, "
              f"{per_step_dask:.3f} s per E-step; driver peak RSS "
              f"+{rss_dask:.0f} MB (table in memory: "
              f"{n_responses * 24 / 2**20:.0f} MB)")

        # traffic and throughput of one E-step on the store the fit runs on
        data, _, summary, _ = dask_fit_data(dd.read_parquet(folder))
        store = data.store(summary.keep)
        grid = make_grid("rectangular", 121, 6.0)
        a_, b_ = np.ones(store.n_items), np.zeros(store.n_items)
        store.e_step(a_, b_, grid)

        def sent():
            return sum(client.run(
                lambda dask_worker: dask_worker.transfer_outgoing_bytes_total
            ).values())

        before, start = sent(), time.perf_counter()
        for _ in range(5):
            store.e_step(a_, b_, grid)
        step = (time.perf_counter() - start) / 5
        traffic = (sent() - before) / 5
        table_bytes = store.n_items * len(grid) * 8
        print(f"E-step on the store: {step:.3f} s; workers sent {traffic:.0f} B per "
              f"E-step = {traffic / table_bytes:.2f} x (items x nodes x 8 B)")
        rtt_start = time.perf_counter()
        for _ in range(5):
            client.gather(client.submit(int, 1, pure=False))
        round_trip = (time.perf_counter() - rtt_start) / 5
        throughput = n_responses / args.workers / max(step - round_trip, 1e-9)
        projected = 1e10 / 100 / throughput + round_trip
        print(f"round trip {round_trip * 1e3:.0f} ms; throughput "
              f"{throughput / 1e6:.1f} M responses/s per worker; projection for "
              f"1e10 responses on 100 workers: {projected:.1f} s per E-step, "
              f"{projected * model.n_iter_ / 60:.1f} min for {model.n_iter_} "
              "E-steps")

        if not args.skip_memory_fit:
            long = pd.read_parquet(folder)
            matrix = long_to_result_matrix(long, task="item", sparse=True)
            values, _, local_summary, _ = _check_fit_responses(matrix)
            with Parallel(n_jobs=args.workers, prefer="threads") as parallel:
                local = _make_storage(values, local_summary.keep, parallel=parallel,
                                      n_observed=local_summary.n_observed)
                local.e_step(a_, b_, grid)
                start = time.perf_counter()
                for _ in range(5):
                    local.e_step(a_, b_, grid)
                local_step = (time.perf_counter() - start) / 5
            print(f"E-step alone (setup excluded): cluster {step:.3f} s, in memory "
                  f"({args.workers} threads) {local_step:.3f} s; cluster / in "
                  f"memory = {step / local_step:.2f}")
            del local, values
            start = time.perf_counter()
            memory = IRT2PL(n_jobs=args.workers).fit(matrix)
            memory_time = time.perf_counter() - start
            per_step_memory = memory_time / memory.n_iter_
            print(f"in-memory fit (n_jobs={args.workers} threads): "
                  f"{memory_time:.1f} s, {memory.n_iter_} E-steps, "
                  f"{per_step_memory:.3f} s per E-step; cluster / in memory = "
                  f"{per_step_dask / per_step_memory:.2f}")
            diff = np.nanmax(np.abs(memory.difficulty_ - model.difficulty_))
            print(f"largest |difficulty difference| {diff:.1e}; log-likelihoods "
                  f"{memory.log_likelihood_:.6f} / {model.log_likelihood_:.6f}")


if __name__ == "__main__":
    main()
