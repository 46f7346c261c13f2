r"""IRT's GRM and GPCM against the PyPI package ``mirt``.

theta-irt 0.1.1 fits binary models only, so ``mirt`` 1.2.0 is the one
reference for ordered categories. It lives in its own environment, never in
the package's dependencies::

    python -m venv /work/venv-irtbench
    /work/venv-irtbench/bin/pip install mirt==1.2.0 theta-irt==0.1.1

Run from the repository root with the development environment; the
reference runs in a child process of the benchmark environment::

    PYTHONPATH=$PWD /work/venv/bin/python benchmarks/bench_irt_graded.py \
        --model GRM --n-agents 5000 --n-items 30 --n-categories 4

Data: responses simulated with theta ~ N(0, 1), a ~ LogNormal(0.2, 0.3) and
(GRM) ordered thresholds b_1 < ... < b_{K-1} (sorted N(0, 1) draws) or (GPCM)
steps b_k ~ N(0, 1), each response missing with probability ``--missing``
(seed 0). Fits: ``IRT(model)`` (defaults) and ``mirt.fit_mirt(X, model)`` (EM,
defaults, no standard errors; and with ``--mirt-tol`` a tighter tolerance).
Every fit's items are scored by the same marginal log-likelihood (a
rectangular grid of 801 nodes on [-8, 8], N(0, 1) ability) and compared with
the true items (RMSE of a and of the thresholds/steps). Prints wall seconds of
each fit (one run; the machine may be shared) and the ratios.

Both fits are timed in a warm process: each side fits the data once untimed
first (imports, compiled loops, the reference's own start-up), and the
warm-up times are printed.

Measured (2026-11-26, warm processes, load 3-4, one run each, 5,000 x 30, 4
categories; IRT with its standard errors, mirt without, at 1e-4 and 1e-6):
GRM IRT 0.56 s, mirt 2.15 s and 3.26 s (ratios 0.26, 0.17), log-likelihood
+1.18; 10% missing 0.51-0.67 s against 1.74-1.77 s (0.29-0.38), +0.45; GPCM
1.23 s against 3.14 and 4.58 s (0.39, 0.27), +61.2; 10% missing 0.57 s
against 2.89 s (0.20), +42.7. Warm-up fits: IRT 1.7-3.0 s, mirt 4.1-6.6 s.
The numbers below timed each side's first fit of the data (IRT after a tiny
warm-up fit that did not load its compiled E-step).

Earlier (2026-11-25, 2 cores shared by several jobs, load ~20, one run each,
5,000 x 30, 4 categories, no missing; mirt at tol 1e-4 and 1e-6):

- GRM: IRT 1.89 s (12 E-steps), mirt 7.55 s and 4.62 s; time ratio 0.25 and
  0.41; log-likelihood IRT - mirt +1.18 and +1.16 (relative 7e-6); RMSE a/b
  0.048/0.046 (mirt 0.046/0.047).
- GPCM: IRT 2.31 s (22 E-steps), mirt 8.14 s and 6.56 s; time ratio 0.28 and
  0.35; log-likelihood IRT - mirt +61.2 (relative 4e-4: no mirt fit reaches
  IRT's maximum); RMSE a/b 0.044/0.053 (mirt 0.138/0.135).
- With ``--missing 0.1`` (load ~20): GRM IRT 2.37 s, mirt 8.87 s and 4.31 s
  (ratios 0.27 and 0.55), log-likelihood +0.45; GPCM IRT 3.22 s, mirt 9.88 s
  and 7.29 s (ratios 0.33 and 0.44), log-likelihood +42.7.
- 2026-11-26, GRM 10% missing, load ~12, the two mirt tolerances in both
  orders: IRT 1.74 s and 1.68 s; mirt's FIRST fit 8.81 s (1e-4) and 9.39 s
  (1e-6), its second 4.06 s (1e-6) and 2.76 s (1e-4). mirt's first fit in a
  process pays its warm-up: compare with the second (ratio 0.61 against mirt
  at 1e-4, which ends 0.45 units below IRT). IRT's CPU time per fit is the
  same with and without missing responses (0.57 s and 0.59 s, best of 5):
  the missing data cost the graded E-step nothing; its time is the two
  sparse products per block (csr_matvecs, ~45% of the fit), the M-step
  (~27%) and the Louis information (~19%).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from scipy.special import expit, log_softmax, logsumexp

REFERENCE_ENV = os.environ.get("IRT_BENCH_PYTHON", "/work/venv-irtbench/bin/python")

_REFERENCE_CODE = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
X = np.load(sys.argv[1])["X"]
model, tols = sys.argv[2], [float(t) for t in sys.argv[4].split(",")]
out = {}
import mirt
start = time.perf_counter()
mirt.fit_mirt(X, model, compute_standard_errors=False, tol=tols[0], max_iter=5000)
out["mirt warm-up"] = time.perf_counter() - start
for tol in tols:
    start = time.perf_counter()
    res = mirt.fit_mirt(X, model, compute_standard_errors=False, tol=tol,
                        max_iter=5000)
    wall = time.perf_counter() - start
    m = res.model
    b = m.thresholds if model == "GRM" else m.steps
    out[f"mirt tol={tol:g}"] = dict(wall=wall, a=np.ravel(m.discrimination).tolist(),
                                     b=np.asarray(b).tolist(),
                                     n_iter=int(res.n_iterations))
json.dump(out, open(sys.argv[3], "w"))
"""


def simulate(model, n, J, K, missing, seed=0):
    """Graded responses 0..K-1 (NaN missing) and the true items."""
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.2, 0.3, J)
    b = rng.normal(0.0, 1.0, (J, K - 1))
    if model == "GRM":
        b = np.sort(b, axis=1)
    theta = rng.normal(size=n)
    P = category_probabilities(model, a, b, theta)
    cumulative = np.cumsum(P, axis=2)
    X = (rng.random((n, J, 1)) > cumulative[..., :-1]).sum(axis=2).astype(float)
    X[rng.random((n, J)) < missing] = np.nan
    return X, dict(a=a, b=b)


def category_probabilities(model, a, b, theta):
    """(len(theta), J, K) category probabilities of every item."""
    z = a[None, :, None] * (theta[:, None, None] - b[None])
    if model == "GRM":
        star = expit(z)
        upper = np.concatenate([np.ones(star.shape[:2] + (1,)), star], axis=2)
        lower = np.concatenate([star, np.zeros(star.shape[:2] + (1,))], axis=2)
        return np.clip(upper - lower, 1e-300, 1.0)
    steps = np.concatenate([np.zeros(z.shape[:2] + (1,)), np.cumsum(z, axis=2)],
                           axis=2)
    return np.exp(log_softmax(steps, axis=2))


def marginal_loglik(model, X, a, b, n_nodes=801, bound=8.0):
    """Marginal log-likelihood on a fine rectangular grid."""
    nodes = np.linspace(-bound, bound, n_nodes)
    log_w = -0.5 * nodes**2 - logsumexp(-0.5 * nodes**2)
    log_P = np.log(category_probabilities(model, a, b, nodes))  # (nodes, J, K)
    table = np.tile(log_w, (X.shape[0], 1))
    for j in range(X.shape[1]):
        seen = ~np.isnan(X[:, j])
        table[seen] += log_P[:, j, X[seen, j].astype(int)].T
    return float(logsumexp(table, axis=1).sum())


def _rmse(u, v):
    return float(np.sqrt(np.mean((np.asarray(u) - np.asarray(v)) ** 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="GRM", choices=["GRM", "GPCM"])
    parser.add_argument("--n-agents", type=int, default=5000)
    parser.add_argument("--n-items", type=int, default=30)
    parser.add_argument("--n-categories", type=int, default=4)
    parser.add_argument("--missing", type=float, default=0.0)
    parser.add_argument("--mirt-tol", default="1e-4",
                        help="comma-separated tolerances of the mirt fits")
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()

    from sklearn_eval.irt import IRT

    X, truth = simulate(args.model, args.n_agents, args.n_items,
                        args.n_categories, args.missing)
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # warm-up: the same fit once (imports, compiled loops loaded), as the
        # reference's untimed first fit
        start = time.perf_counter()
        IRT(model=args.model).fit(X)
        print(f"IRT warm-up fit (imports, compiled loops): "
              f"{time.perf_counter() - start:.2f} s")
        start = time.perf_counter()
        ours = IRT(model=args.model).fit(X)
        wall = time.perf_counter() - start
        column = "threshold" if args.model == "GRM" else "step"
        table = ours.task_table()
        b = table[[f"{column}_{k}" for k in range(1, args.n_categories)]].to_numpy()
        results["IRT"] = dict(wall=wall, a=ours.discrimination_, b=b,
                              n_iter=ours.n_iter_)
    if not args.no_reference:
        with tempfile.TemporaryDirectory() as tmp:
            data, out = os.path.join(tmp, "X.npz"), os.path.join(tmp, "out.json")
            np.savez(data, X=X)
            subprocess.run([REFERENCE_ENV, "-c", _REFERENCE_CODE, data, args.model,
                            out, args.mirt_tol], check=True)
            with open(out) as handle:
                reference = json.load(handle)
            print(f"mirt warm-up fit: {reference.pop('mirt warm-up'):.2f} s")
            results.update(reference)
    print(f"== {args.model}: {args.n_agents} x {args.n_items}, "
          f"{args.n_categories} categories, {args.missing:.0%} missing ==")
    loglik = {}
    for name, fit in results.items():
        a, b = (np.asarray(fit[k], dtype=float) for k in "ab")
        loglik[name] = marginal_loglik(args.model, X, a, b)
        print(f"{name:14s} wall {fit['wall']:8.2f} s  iterations {fit['n_iter']:5d}  "
              f"loglik {loglik[name]:.3f}  RMSE a {_rmse(a, truth['a']):.3f} "
              f"b {_rmse(b, truth['b']):.3f}")
    for name in results:
        if name != "IRT":
            ratio = results["IRT"]["wall"] / results[name]["wall"]
            print(f"IRT vs {name}: time ratio {ratio:.3f}  loglik difference "
                  f"{loglik['IRT'] - loglik[name]:+.3f} (relative "
                  f"{(loglik['IRT'] - loglik[name]) / abs(loglik[name]):+.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
