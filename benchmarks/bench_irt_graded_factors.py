r"""IRT(model="GRM"/"GPCM", n_factors=2) against the PyPI package ``mirt``.

mirt 1.2.0 fits the multidimensional graded response and generalised partial
credit models (``fit_mirt(X, "GRM", n_factors=2)``); theta-irt 0.1.1 fits
binary models only. The reference lives in its own environment, never in the
package's dependencies::

    python -m venv /work/venv-irtbench
    /work/venv-irtbench/bin/pip install mirt==1.2.0 theta-irt==0.1.1

Run from the repository root with the development environment; the
reference runs in a child process of the benchmark environment::

    PYTHONPATH=$PWD /work/venv/bin/python benchmarks/bench_irt_graded_factors.py \
        --model GRM --n-agents 3000 --n-items 20 --n-categories 4

Data: two factors correlated ``--corr`` (0.3); item ``j`` loads U(0.8, 2.0)
on factor ``j mod 2`` and U(-0.2, 0.4) on the other (``theta ~ N(0, I)``
metric after the Cholesky factor of the correlation); GRM intercepts sorted
N(0, 1) draws (decreasing), GPCM steps N(0, 1) (seed 0). Fits:
``IRT(model, n_factors=2)`` at the defaults and at ``tol=1e-9`` (how far the
default stops from the maximum), and ``mirt.fit_mirt(X, model, n_factors=2)``
(EM, defaults, no standard errors). Every fit is scored by the same marginal
log-likelihood (a product grid of 121 x 121 nodes on [-7, 7]^2, ``theta ~
N(0, I)``: each package's own category probabilities on that grid, no
parametrisation assumed), and by the recovery of the items: slopes and
intercepts read off the fitted curves (GRM: cumulative logits ``logit P(X >=
k)``; GPCM: adjacent-category logits ``log P(X = k) / P(X = k - 1)``, both
linear in ``theta`` with slope ``a_j``), the slopes compared with the true
ones after an orthogonal Procrustes rotation (RMSE). Prints wall seconds of
each fit (one run; the machine may be shared) and the ratios.

Measured: see the CHANGELOG and the User Guide (several factors).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_irt_multidim import fine_points, procrustes_rmse  # noqa: E402

REFERENCE_ENV = os.environ.get("IRT_BENCH_PYTHON", "/work/venv-irtbench/bin/python")

_REFERENCE_CODE = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
data = np.load(sys.argv[1])
X, points = data["X"], data["points"]
import mirt
start = time.perf_counter()
res = mirt.fit_mirt(X, sys.argv[3], n_factors=2, compute_standard_errors=False,
                    max_iter=int(sys.argv[4]))
wall = time.perf_counter() - start
np.save(sys.argv[2] + ".npy", np.asarray(res.model.probability(points)))
json.dump(dict(wall=wall, n_iter=int(res.n_iterations),
               converged=bool(res.converged), loglik=float(res.log_likelihood)),
          open(sys.argv[2], "w"))
"""


def simulate(model, n, J, K=4, corr=0.3, missing=0.0, seed=0):
    """Responses 0..K-1 (NaN missing), true slopes (J, 2) and intercepts."""
    rng = np.random.default_rng(seed)
    lam = np.zeros((J, 2))
    for j in range(J):
        lam[j, j % 2] = rng.uniform(0.8, 2.0)
        lam[j, (j + 1) % 2] = rng.uniform(-0.2, 0.4)
    A = lam @ np.linalg.cholesky(np.array([[1.0, corr], [corr, 1.0]]))
    d = rng.normal(0.0, 1.0, (J, K - 1))
    if model == "GRM":
        d = -np.sort(-d, axis=1)  # P(X >= k) = expit(a . theta + d_k)
    theta = rng.standard_normal((n, 2))
    P = np.exp(log_category_probabilities(model, A, d, theta))
    cumulative = np.cumsum(P, axis=2)
    X = (rng.random((n, J, 1)) > cumulative[..., :-1]).sum(axis=2).astype(float)
    X[rng.random((n, J)) < missing] = np.nan
    return X, A, d


def log_category_probabilities(model, A, d, points):
    """(n_points, J, K) log category probabilities at the true items."""
    u = points @ A.T
    z = u[:, :, None] + d[None]
    if model == "GRM":
        star = expit(z)
        upper = np.concatenate([np.ones(star.shape[:2] + (1,)), star], axis=2)
        lower = np.concatenate([star, np.zeros(star.shape[:2] + (1,))], axis=2)
        return np.log(np.clip(upper - lower, 1e-300, 1.0))
    steps = np.concatenate([np.zeros(z.shape[:2] + (1,)), np.cumsum(z, axis=2)],
                           axis=2)
    return log_softmax(steps, axis=2)


def marginal_loglik(X, log_P, log_w, block=250):
    """Marginal log-likelihood from log category probabilities on the grid."""
    total = 0.0
    for start in range(0, X.shape[0], block):
        part = X[start:start + block]
        table = np.tile(log_w, (part.shape[0], 1))
        for j in range(X.shape[1]):
            seen = ~np.isnan(part[:, j])
            table[seen] += log_P[:, j, part[seen, j].astype(int)].T
        total += float(logsumexp(table, axis=1).sum())
    return total


def curves_to_items(model, log_P, points):
    """Slopes (J, 2) and intercepts (J, K-1) read off the fitted curves."""
    if model == "GRM":
        tail = np.logaddexp.accumulate(log_P[..., ::-1], axis=2)[..., ::-1]
        head = np.logaddexp.accumulate(log_P, axis=2)
        z = tail[..., 1:] - head[..., :-1]  # logit P(X >= k)
    else:
        z = log_P[..., 1:] - log_P[..., :-1]
    central = np.sum(points**2, axis=1) <= 4.0
    design = np.column_stack([points, np.ones(len(points))])[central]
    J, K1 = z.shape[1], z.shape[2]
    coef, *_ = np.linalg.lstsq(design, z[central].reshape(central.sum(), -1),
                               rcond=None)
    coef = coef.reshape(3, J, K1)
    return coef[:2].mean(axis=2).T, coef[2]


def _rmse(u, v):
    return float(np.sqrt(np.mean((np.asarray(u) - np.asarray(v)) ** 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="GRM", choices=["GRM", "GPCM"])
    parser.add_argument("--n-agents", type=int, default=3000)
    parser.add_argument("--n-items", type=int, default=20)
    parser.add_argument("--n-categories", type=int, default=4)
    parser.add_argument("--corr", type=float, default=0.3)
    parser.add_argument("--missing", type=float, default=0.0)
    parser.add_argument("--mirt-max-iter", type=int, default=2000)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--no-tight", action="store_true")
    args = parser.parse_args()

    from sklearn_eval.irt import IRT
    from sklearn_eval.irt._graded import log_probabilities

    X, A, d = simulate(args.model, args.n_agents, args.n_items, args.n_categories,
                       args.corr, args.missing)
    points, log_w = fine_points()
    results = {}
    runs = [("IRT", {})] + ([] if args.no_tight else [("IRT tol=1e-9",
                                                        {"tol": 1e-9})])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        IRT(model=args.model, n_factors=2).fit(
            simulate(args.model, 300, 8, 3, seed=1)[0])  # imports
        for name, params in runs:
            start = time.perf_counter()
            ours = IRT(model=args.model, n_factors=2, random_state=0,
                       **params).fit(X)
            wall = time.perf_counter() - start
            log_P = log_probabilities(args.model, ours._item_params, points)
            results[name] = dict(wall=wall, n_iter=ours.n_iter_, converged=True,
                                 log_P=log_P)
    if not args.no_reference:
        with tempfile.TemporaryDirectory() as tmp:
            data, out = os.path.join(tmp, "X.npz"), os.path.join(tmp, "out.json")
            np.savez(data, X=X, points=points)
            subprocess.run([REFERENCE_ENV, "-c", _REFERENCE_CODE, data, out,
                            args.model, str(args.mirt_max_iter)], check=True)
            with open(out) as handle:
                info = json.load(handle)
            P = np.load(out + ".npy")
        print(f"mirt: own log-lik {info.pop('loglik'):.3f}")
        info["log_P"] = np.log(np.clip(P, 1e-300, 1.0))
        results["mirt"] = info
    print(f"== 2-factor {args.model}: {args.n_agents} x {args.n_items}, "
          f"{args.n_categories} categories, {args.missing:.0%} missing ==")
    truth = marginal_loglik(X, log_category_probabilities(args.model, A, d, points),
                            log_w)
    print(f"log-likelihood at the true items: {truth:.3f}")
    loglik = {}
    for name, fit in results.items():
        loglik[name] = marginal_loglik(X, fit["log_P"], log_w)
        slopes, intercepts = curves_to_items(args.model, fit["log_P"], points)
        print(f"{name:13s} {fit['wall']:7.1f} s  {fit['n_iter']:5d} iterations "
              f"(converged: {fit['converged']})  log-lik {loglik[name]:.3f}  "
              f"loadings RMSE {procrustes_rmse(slopes, A):.4f}  intercepts "
              f"RMSE {_rmse(intercepts, d):.4f}")
    for name in results:
        if name != "IRT":
            ratio = results[name]["wall"] / results["IRT"]["wall"]
            gap = loglik["IRT"] - loglik[name]
            print(f"IRT - {name} log-lik {gap:+.3f} (relative "
                  f"{gap / abs(loglik[name]):+.2e}); {name} time / IRT time "
                  f"{ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
