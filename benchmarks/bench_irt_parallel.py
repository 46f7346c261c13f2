r"""Benchmark IRT2PL's chunked E-step with ``n_jobs`` (issue 9).

No anchor package is needed: this compares IRT2PL with itself. Setup: the
development environment (numpy, scipy, scikit-learn, joblib, threadpoolctl; the
package installed, e.g. ``pip install -e /work/main``).

Run (from the repository root)::

    /work/venv/bin/python benchmarks/bench_irt_parallel.py
    /work/venv/bin/python benchmarks/bench_irt_parallel.py --agents 1000 \
        --items 20000 --missing 0.0 --n-jobs 2 --repeat 3

For each of ``n_jobs=None`` (serial, the BLAS uses its own threads),
``n_jobs=N`` and ``n_jobs=N`` with the BLAS limited to one thread per worker
(``threadpoolctl``), prints the best wall time of ``--repeat`` fits, its ratio
to ``n_jobs=None``, the number of E-steps and the largest relative difference of
the item parameters from the serial fit (0: the partial sums are added in chunk
order). Timings are noisy on a shared machine: read the ratios, repeat when
quiet.
"""

import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL


def _timed_fit(X, repeat, *, n_jobs, single_blas=False):
    best, model = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if single_blas:
                with threadpool_limits(1, user_api="blas"):
                    model = IRT2PL(n_jobs=n_jobs).fit(X)
            else:
                model = IRT2PL(n_jobs=n_jobs).fit(X)
        best = min(best, time.perf_counter() - start)
    return best, model


def _max_rel_diff(model, reference):
    diffs = []
    for name in ("discrimination_", "difficulty_"):
        ours, ref = getattr(model, name), getattr(reference, name)
        ok = np.isfinite(ref)
        diffs.append(np.max(np.abs(ours[ok] - ref[ok]) / np.abs(ref[ok]).clip(1e-12)))
    return max(diffs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--missing", type=float, default=0.0)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    X = make_irt_responses(args.agents, args.items, missing_rate=args.missing,
                           random_state=0)
    print(f"== IRT2PL fit, {args.agents} x {args.items}, missing {args.missing} ==")
    base_time, base = _timed_fit(X, args.repeat, n_jobs=None)
    rows = [("n_jobs=None", base_time, base)]
    t, m = _timed_fit(X, args.repeat, n_jobs=args.n_jobs)
    rows.append((f"n_jobs={args.n_jobs}", t, m))
    t, m = _timed_fit(X, args.repeat, n_jobs=args.n_jobs, single_blas=True)
    rows.append((f"n_jobs={args.n_jobs}, 1 BLAS thread", t, m))
    for label, seconds, model in rows:
        print(f"{label:28s} {seconds:8.2f} s  ratio {seconds / base_time:5.2f}  "
              f"E-steps {model.n_iter_:4d}  max rel diff "
              f"{_max_rel_diff(model, base):.1e}")


if __name__ == "__main__":
    main()
