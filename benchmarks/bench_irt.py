r"""Benchmark IRT2PL against the PyPI packages ``mirt`` and ``girth``.

Setup (once; the anchors never become package dependencies)::

    python3 -m venv /work/bench_irt_venv
    /work/bench_irt_venv/bin/pip install numpy scipy scikit-learn joblib pandas \
        mirt girth
    /work/bench_irt_venv/bin/pip install --no-deps -e /work/main

Run (from the repository root)::

    /work/bench_irt_venv/bin/python benchmarks/bench_irt.py            # all cases
    /work/bench_irt_venv/bin/python benchmarks/bench_irt.py --case mirt --repeat 3
    /work/bench_irt_venv/bin/python benchmarks/bench_irt.py --case girth \
        --girth-timeout 600

Cases:

- ``mirt``: 5000 agents x 500 items, 20% missing at random (``make_irt_responses``,
  seed 0). IRT2PL (defaults) against ``mirt.fit_mirt(X, "2PL")`` (EM, defaults) in
  one process; wall and CPU seconds (best of ``--repeat``), the ratio ours/mirt
  (target <= 0.33), the log-likelihood of both fits on one common fine grid (801
  equally spaced nodes on [-8, 8]; target: ours >= mirt's) and RMSE against the
  generating parameters.
- ``girth``: ``girth.twopl_mml`` on the same data in a child process, killed after
  ``--girth-timeout`` seconds (default 600): records the time or that it did not
  finish.
- ``leaderboard``: 1000 agents x 20000 items, complete (an LLM-leaderboard shape):
  fit time (target <= 60 s) and peak memory (RSS) of a child process during the
  fit, its float64 input included (target < 4 GB).
- ``scaling``: fits at growing sizes, then extrapolates time and memory to the
  11,785 x 36,259 matrix of girth issue #148.

Timings are noisy on a shared machine: read the ratios, and repeat when quiet.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL


def _rmse(u, v):
    return float(np.sqrt(np.mean((np.asarray(u) - np.asarray(v)) ** 2)))


def _fine_loglik(X, a, b):
    """Marginal log-likelihood on a common fine grid (801 nodes on [-8, 8])."""
    model = IRT2PL.from_item_params(a, b, n_quadrature=801, quadrature_bound=8.0)
    return float(model.score_samples(X).sum())


def _timed(fn, repeat):
    best = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if best is None or wall < best[0]:
            best = (wall, cpu, out)
    return best


def _mirt_data(seed=0):
    return make_irt_responses(5000, 500, missing_rate=0.2, random_state=seed,
                              return_params=True)


def case_mirt(repeat):
    import mirt

    X, truth = _mirt_data()
    ours_wall, ours_cpu, ours = _timed(lambda: IRT2PL().fit(X), repeat)

    def fit_mirt():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mirt.fit_mirt(X, "2PL")

    mirt_wall, mirt_cpu, res = _timed(fit_mirt, repeat)
    a_m = np.ravel(res.model.discrimination)
    b_m = np.ravel(res.model.difficulty)
    ll_ours = _fine_loglik(X, ours.discrimination_, ours.difficulty_)
    ll_mirt = _fine_loglik(X, a_m, b_m)
    print("== 5000 x 500, 20% missing: IRT2PL vs PyPI mirt (EM, defaults) ==")
    print(f"IRT2PL : wall {ours_wall:7.2f} s  cpu {ours_cpu:7.2f} s  "
          f"E-steps {ours.n_iter_}  fine-grid loglik {ll_ours:.2f}  "
          f"RMSE a {_rmse(ours.discrimination_, truth['a']):.3f} "
          f"b {_rmse(ours.difficulty_, truth['b']):.3f}")
    print(f"mirt   : wall {mirt_wall:7.2f} s  cpu {mirt_cpu:7.2f} s  "
          f"iterations {res.n_iterations}  fine-grid loglik {ll_mirt:.2f}  "
          f"RMSE a {_rmse(a_m, truth['a']):.3f} b {_rmse(b_m, truth['b']):.3f}")
    print(f"ratio ours/mirt: wall {ours_wall / mirt_wall:.3f}  "
          f"cpu {ours_cpu / mirt_cpu:.3f}  (target <= 0.33)")
    print(f"loglik ours - mirt: {ll_ours - ll_mirt:+.2f} (target >= 0)")


def _girth_worker():
    import girth

    X, _ = _mirt_data()
    data = np.where(np.isnan(X), girth.INVALID_RESPONSE, X).astype(int).T
    start = time.perf_counter()
    girth.twopl_mml(data)
    print(f"{time.perf_counter() - start:.1f}")


def case_girth(timeout):
    print(f"== girth.twopl_mml on 5000 x 500, 20% missing (timeout {timeout} s) ==")
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", "girth"],
            capture_output=True, text=True, timeout=timeout,
        )
        print(f"girth finished in {out.stdout.strip()} s (stderr tail: "
              f"{out.stderr.strip()[-200:]!r})")
    except subprocess.TimeoutExpired:
        print(f"girth did NOT finish within {timeout} s (child killed)")


def _reset_peak_rss():
    """Reset the peak RSS (Linux: write 5 to /proc/self/clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:  # pragma: no cover - other systems: peak since start
        pass


def _peak_rss_gb():
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1e6  # kB -> GB
    except OSError:  # pragma: no cover
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def _fit_worker(path):
    """Child process: load a saved int8 matrix (-1 = missing), fit, report."""
    codes = np.load(path)
    X = codes.astype(np.float64)
    X[codes < 0] = np.nan
    del codes
    _reset_peak_rss()  # measure the fit (with its float64 input resident)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    model = IRT2PL().fit(X)
    wall = time.perf_counter() - start_wall
    cpu = time.process_time() - start_cpu
    peak = _peak_rss_gb()
    truth = np.load(path.replace(".npy", "_truth.npz"))
    print(f"{wall:.2f} {cpu:.2f} {peak:.3f} {model.n_iter_} "
          f"{_rmse(model.discrimination_, truth['a']):.4f} "
          f"{_rmse(model.difficulty_, truth['b']):.4f} "
          f"{_rmse(model.abilities_, truth['theta']):.4f}")


def _run_size(n_agents, n_items, missing_rate=0.0, seed=0):
    X, truth = make_irt_responses(n_agents, n_items, missing_rate=missing_rate,
                                  random_state=seed, return_params=True)
    codes = np.where(np.isnan(X), -1, X).astype(np.int8)
    del X
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "X.npy")
        np.save(path, codes)
        np.savez(path.replace(".npy", "_truth.npz"), a=truth["a"], b=truth["b"],
                 theta=truth["theta"])
        del codes, truth
        out = subprocess.run([sys.executable, __file__, "--worker", "fit", path],
                             capture_output=True, text=True, check=True)
    wall, cpu, peak, n_iter, ra, rb, rt = out.stdout.split()
    return dict(wall=float(wall), cpu=float(cpu), peak=float(peak),
                n_iter=int(n_iter), rmse_a=float(ra), rmse_b=float(rb),
                rmse_theta=float(rt))


def _print_row(n_agents, n_items, r):
    print(f"{n_agents:6d} x {n_items:6d}: wall {r['wall']:7.2f} s  cpu "
          f"{r['cpu']:7.2f} s  peak RSS {r['peak']:.2f} GB  E-steps {r['n_iter']}  "
          f"RMSE a {r['rmse_a']:.3f} b {r['rmse_b']:.3f} theta {r['rmse_theta']:.3f}")


def case_leaderboard():
    print("== 1000 x 20000, complete (targets: <= 60 s, < 4 GB) ==")
    _print_row(1000, 20000, _run_size(1000, 20000))


def case_scaling():
    print("== scaling, then extrapolation to 11,785 x 36,259 (girth issue #148) ==")
    # the last two sizes exceed the dense limit (2**25 responses): uint8 storage,
    # the regime of the target; the extrapolation uses them
    sizes = [(1000, 5000), (2000, 10000), (4000, 10000), (4000, 15000)]
    rows = []
    for n, j in sizes:
        r = _run_size(n, j)
        _print_row(n, j, r)
        rows.append((n * j, r))
    target = 11785 * 36259
    big = [(e, r) for e, r in rows if e > 2**25]
    entries = np.array([e for e, _ in big], dtype=float)
    cpu = np.array([r["cpu"] for _, r in big])
    wall = np.array([r["wall"] for _, r in big])
    peak = np.array([r["peak"] for _, r in big])
    # time and memory are linear in the number of responses (fixed E-steps)
    cpu_est, wall_est, mem_est = (np.polyval(np.polyfit(entries, v, 1), target)
                                  for v in (cpu, wall, peak))
    print(f"extrapolated to 11785 x 36259 ({target / 1e6:.0f}M responses), "
          f"linear in responses from the uint8-storage sizes: ~{cpu_est / 60:.1f} "
          f"CPU-min (~{wall_est / 60:.1f} wall-min at this machine's load), peak "
          f"~{mem_est:.1f} GB (of which the float64 input {target * 8 / 1e9:.1f} GB)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="all",
                        choices=["all", "mirt", "girth", "leaderboard", "scaling"])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--girth-timeout", type=float, default=600.0)
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        if args.worker[0] == "girth":
            _girth_worker()
        else:
            _fit_worker(args.worker[1])
        return
    if args.case in ("all", "mirt"):
        case_mirt(args.repeat)
    if args.case in ("all", "leaderboard"):
        case_leaderboard()
    if args.case in ("all", "scaling"):
        case_scaling()
    if args.case in ("all", "girth"):
        case_girth(args.girth_timeout)


if __name__ == "__main__":
    main()
