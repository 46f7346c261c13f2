r"""IRT(n_factors=2) against the PyPI package ``mirt`` (2-factor 2PL).

The reference lives in its own environment, never in the package's
dependencies (theta-irt 0.1.1 fits one ability only, so it has no
2-factor fit to compare)::

    python -m venv /work/venv-irtbench
    /work/venv-irtbench/bin/pip install mirt==1.2.0 theta-irt==0.1.1

Run from the repository root with the development environment; the
reference runs in a child process of the benchmark environment::

    PYTHONPATH=$PWD /work/venv/bin/python benchmarks/bench_irt_multidim.py \
        --n-agents 5000 --n-items 40

Data: two factors correlated ``--corr`` (0.3), item ``j`` loads
U(0.8, 2.0) on factor ``j mod 2`` and U(-0.2, 0.4) on the other, intercepts
N(0, 1) (seed 0). Fits: ``IRT(n_factors=2)`` (defaults) and
``mirt.fit_mirt(X, "2PL", n_factors=2)`` (EM, defaults, no standard
errors). Every fit is scored by the same marginal log-likelihood (a product
grid of 121 x 121 nodes on [-7, 7]^2, ``theta ~ N(0, I)``: the item curves
are read off each package's own probabilities on that grid, so no
parametrisation is assumed) and by the RMSE of its loadings after an
orthogonal Procrustes rotation to the true ones (``theta ~ N(0, I)``
metric) and of its intercepts. Prints wall seconds of each fit (one run;
the machine may be shared) and the ratios. Both sides are timed warm: each
first fits a small data set untimed (imports, compiled loops, the
reference's start-up).

Measured: see the numbers printed at the end of a run and the CHANGELOG.
"""

import argparse
import json
import os
import subprocess
import tempfile
import time
import warnings

import numpy as np
from scipy.special import expit, log_expit, logit, logsumexp

REFERENCE_ENV = os.environ.get("IRT_BENCH_PYTHON", "/work/venv-irtbench/bin/python")

_REFERENCE_CODE = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
data = np.load(sys.argv[1])
X, points = data["X"], data["points"]
import mirt
# warm-up, untimed (imports, the backend's start-up), as IRT's below
start = time.perf_counter()
mirt.fit_mirt(X[:300], "2PL", n_factors=2, compute_standard_errors=False,
              max_iter=5)
print(f"mirt warm-up fit: {time.perf_counter() - start:.1f} s")
start = time.perf_counter()
res = mirt.fit_mirt(X, "2PL", n_factors=2, compute_standard_errors=False,
                    max_iter=int(sys.argv[3]))
wall = time.perf_counter() - start
P = np.asarray(res.model.probability(points))
np.save(sys.argv[2] + ".npy", P)
json.dump(dict(wall=wall, n_iter=int(res.n_iterations),
               converged=bool(res.converged),
               loglik=float(res.log_likelihood),
               latent_cov=np.asarray(res.latent_covariance).tolist()),
          open(sys.argv[2], "w"))
"""


def simulate(n, J, corr=0.3, missing=0.0, seed=0):
    """Two correlated factors, simple structure with small cross-loadings."""
    rng = np.random.default_rng(seed)
    lam = np.zeros((J, 2))
    for j in range(J):
        lam[j, j % 2] = rng.uniform(0.8, 2.0)
        lam[j, (j + 1) % 2] = rng.uniform(-0.2, 0.4)
    chol = np.linalg.cholesky(np.array([[1.0, corr], [corr, 1.0]]))
    A = lam @ chol  # theta ~ N(0, I) metric
    d = rng.normal(0.0, 1.0, J)
    theta = rng.standard_normal((n, 2))
    X = (rng.random((n, J)) < expit(theta @ A.T + d)).astype(float)
    X[rng.random((n, J)) < missing] = np.nan
    return X, A, d


def fine_points(per_dim=121, bound=7.0):
    axis = np.linspace(-bound, bound, per_dim)
    g = np.meshgrid(axis, axis, indexing="ij")
    points = np.column_stack([g[0].ravel(), g[1].ravel()])
    log_w = -0.5 * np.sum(points**2, axis=1)
    return points, log_w - logsumexp(log_w)


def marginal_loglik(X, log_p, log_q, log_w):
    total = 0.0
    for start in range(0, X.shape[0], 500):
        block = X[start:start + 500]
        seen = ~np.isnan(block)
        Y = np.where(seen, block, 0.0)
        table = Y @ log_p.T + (seen & (Y == 0)) @ log_q.T + log_w
        total += float(logsumexp(table, axis=1).sum())
    return total


def curves_to_items(P, points):
    """Slopes and intercepts read off the logits of a fit on ``points``."""
    z = logit(np.clip(P, 1e-15, 1 - 1e-15))
    design = np.column_stack([points, np.ones(len(points))])
    central = np.sum(points**2, axis=1) <= 9.0  # away from clipped tails
    coef, *_ = np.linalg.lstsq(design[central], z[central], rcond=None)
    return coef[:2].T, coef[2]


def procrustes_rmse(A_hat, A_true):
    U, _, Vt = np.linalg.svd(A_hat.T @ A_true)
    return float(np.sqrt(np.mean((A_hat @ (U @ Vt) - A_true) ** 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-agents", type=int, default=5000)
    parser.add_argument("--n-items", type=int, default=40)
    parser.add_argument("--corr", type=float, default=0.3)
    parser.add_argument("--missing", type=float, default=0.0)
    parser.add_argument("--mirt-max-iter", type=int, default=500)
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()

    from sklearn_eval.irt import IRT

    X, A, d = simulate(args.n_agents, args.n_items, args.corr, args.missing)
    points, log_w = fine_points()
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        IRT(n_factors=2).fit(simulate(300, 8, seed=1)[0])  # imports, compilation
        print(f"IRT warm-up fit: {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        ours = IRT(n_factors=2).fit(X)
        wall = time.perf_counter() - start
    z = points @ ours._item_params[:, :2].T + ours._item_params[:, 2]
    results["IRT"] = dict(wall=wall, n_iter=ours.n_iter_, converged=True,
                          log_p=log_expit(z), log_q=log_expit(-z),
                          A=ours._item_params[:, :2], d=ours._item_params[:, 2])
    if not args.no_reference:
        with tempfile.TemporaryDirectory() as tmp:
            data, out = os.path.join(tmp, "X.npz"), os.path.join(tmp, "out.json")
            np.savez(data, X=X, points=points)
            subprocess.run([REFERENCE_ENV, "-c", _REFERENCE_CODE, data, out,
                            str(args.mirt_max_iter)], check=True)
            with open(out) as handle:
                info = json.load(handle)
            P = np.load(out + ".npy")
        A_m, d_m = curves_to_items(P, points)
        P = np.clip(P, 1e-300, 1.0)
        info.update(log_p=np.log(P), log_q=np.log1p(-np.minimum(P, 1 - 1e-16)),
                    A=A_m, d=d_m)
        print(f"mirt: latent covariance {info.pop('latent_cov')}, own log-lik "
              f"{info.pop('loglik'):.3f}")
        results["mirt"] = info
    print(f"== 2-factor 2PL: {args.n_agents} x {args.n_items}, "
          f"{args.missing:.0%} missing ==")
    truth = marginal_loglik(X, log_expit(points @ A.T + d),
                            log_expit(-(points @ A.T + d)), log_w)
    print(f"log-likelihood at the true items: {truth:.3f}")
    loglik = {}
    for name, fit in results.items():
        loglik[name] = marginal_loglik(X, fit["log_p"], fit["log_q"], log_w)
        print(f"{name:5s} {fit['wall']:7.1f} s  {fit['n_iter']:5d} iterations "
              f"(converged: {fit['converged']})  log-lik {loglik[name]:.3f}  "
              f"loadings RMSE {procrustes_rmse(fit['A'], A):.4f}  intercepts "
              f"RMSE {np.sqrt(np.mean((fit['d'] - d) ** 2)):.4f}")
    if "mirt" in results:
        ratio = results["mirt"]["wall"] / results["IRT"]["wall"]
        gap = loglik["IRT"] - loglik["mirt"]
        print(f"IRT - mirt log-lik {gap:+.3f} (relative "
              f"{gap / abs(loglik['mirt']):+.2e}); mirt time / IRT time {ratio:.2f}")


if __name__ == "__main__":
    main()
