r"""Benchmark efficient evaluation: SubsetScoreEstimator and AdaptiveTester.

Setup: the static methods need no anchor (tinyBenchmarks and metabench are not
installable libraries; their estimators are options of SubsetScoreEstimator,
and the baseline is the plain mean of random items). The adaptive-testing
anchor is PyPI ``catsim`` in its own environment (never a dependency)::

    python3 -m venv /work/bench-venvs/catsim
    /work/bench-venvs/catsim/bin/pip install catsim

Run from the repository root with the project's environment::

    PYTHONPATH=$PWD /work/venv/bin/python benchmarks/bench_efficient_evaluation.py
    ... --case timing --catsim-python /work/bench-venvs/catsim/bin/python
    ... --case table --datasets arc,chembench,syn2pl --sizes 25,50,100,200
    ... --case adaptive

Cases:

- ``timing`` (issue 18 targets): fit on 320 x 735 and predict 1,000 models
  (<= 5 s); simulate 1,000 adaptive tests of 50 items (<= 10 s). With
  ``--catsim-python``, catsim's ``Simulator`` (maximum information, numerical
  ability search, 50 items) runs on the same 1PL item bank for
  ``--catsim-examinees`` examinees (default 20; it takes about a second per
  examinee) and its time is extrapolated linearly to 1,000 (printed as such).
- ``table``: 5-fold cross-validated MAE of the predicted full accuracy for
  every (selection, estimator) at every size, the default (``auto``) and the
  mean of random items (averaged over 50 draws), per dataset. The item
  response model is calibrated once per fold and shared (FrozenEstimator).
- ``adaptive``: 5-fold MAE of AdaptiveTester after 10, 20, 50 items, beside
  the static default at the same sizes and random items by mean.

Datasets: ``arc`` (320 Mixtral-family models x 735 ARC items of the Open LLM
Leaderboard v1, read from ``shared/data/irt`` beside the checkout or its parent,
or ``$SKLEARN_EVAL_SHARED``, when present; never shipped),
``chembench`` (22 x 2854, shipped), ``syn2pl`` (300 x 600 from the 2PL model),
``syn1pl`` (200 x 400, Rasch-like), ``synfam`` (320 x 735: fine-tunes of 8
base models in a 4-dimensional latent space, the ARC-like case).
The machine may be shared: read ratios, and repeat when it is quiet.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.special import expit
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import KFold

from sklearn_eval.datasets import load_chembench, make_irt_responses
from sklearn_eval.irt import IRT2PL, AdaptiveTester
from sklearn_eval.selection import SubsetScoreEstimator

ARC_FILE = "data/irt/atlas_openllm_arc_mixtral_family_response_matrix.csv"


def _arc_path():
    """The ARC matrix in the shared reference data (beside the checkout)."""
    repo = Path(__file__).resolve().parents[1]
    for folder in (os.environ.get("SKLEARN_EVAL_SHARED"), repo.parent / "shared",
                   repo.parent.parent / "shared"):
        if folder and (Path(folder) / ARC_FILE).exists():
            return Path(folder) / ARC_FILE
    return None

SELECTIONS = ("random", "stratified", "anchor", "information", "predictive")
ESTIMATORS = ("mean", "irt", "gp-irt", "regression")


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def fine_tunes(n_models=320, n_items=735, seed=0, n_dims=4, n_bases=8):
    """Fine-tunes of a few base models in a multidimensional latent space."""
    rng = np.random.default_rng(seed)
    bases = rng.normal(0, 1, (n_bases, n_dims))
    bases[:, 0] *= 1.5
    theta = bases[rng.integers(n_bases, size=n_models)] + rng.normal(
        0, 0.35, (n_models, n_dims))
    loading = np.abs(rng.normal(0, 1, (n_items, n_dims))) * np.array(
        [1.5] + [0.7] * (n_dims - 1))
    difficulty = rng.normal(-0.5, 1.5, n_items)
    P = expit(1.5 * theta @ loading.T / np.sqrt(n_dims) - difficulty)
    return (rng.random(P.shape) < P).astype(float)


def rasch_like(n_models=200, n_items=400, seed=0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    return (rng.random((n_models, n_items)) < expit(1.3 * (theta[:, None] - b))
            ).astype(float)


def load(name):
    if name == "arc":
        path = _arc_path()
        if path is None:
            return None
        import pandas as pd

        return pd.read_csv(path, index_col=0).to_numpy(dtype=float)
    if name == "chembench":
        return load_chembench().data
    if name == "syn2pl":
        return make_irt_responses(300, 600, random_state=0)
    if name == "syn1pl":
        return rasch_like()
    if name == "synfam":
        return fine_tunes()
    raise ValueError(f"unknown dataset {name!r}")


def random_mean_mae(X, n_items, draws=50, seed=0):
    rng = np.random.default_rng(seed)
    truth = np.nanmean(X, axis=1)
    return float(np.mean([
        np.mean(np.abs(np.nanmean(X[:, rng.choice(X.shape[1], n_items,
                                                  replace=False)], axis=1) - truth))
        for _ in range(draws)
    ]))


# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------
def case_timing(catsim_python, catsim_examinees, repeat):
    X = load("arc")
    source = "ARC"
    if X is None:
        X, source = fine_tunes(), "simulated fine-tunes (ARC absent)"
    rng = np.random.default_rng(0)
    new = X[rng.integers(X.shape[0], size=1000)]
    fit_times, sim_times = [], []
    for _ in range(repeat):
        clock = _Clock()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            est = SubsetScoreEstimator(n_items=100, random_state=0).fit(X)
        est.predict(new)
        est.predict_interval(new)
        fit_times.append(clock.read())
        tester = AdaptiveTester(max_items=50, random_state=0).fit(X)
        clock = _Clock()
        tester.simulate(new)
        sim_times.append(clock.read())
    fit_wall, fit_cpu = min(fit_times)
    sim_wall, sim_cpu = min(sim_times)
    print(f"data: {source}, {X.shape[0]} x {X.shape[1]} (best of {repeat}; wall / "
          "CPU seconds, single-threaded BLAS: CPU is what a quiet machine takes)")
    print(f"SubsetScoreEstimator fit + predict 1,000 (+ intervals): {fit_wall:.2f} / "
          f"{fit_cpu:.2f} s (target <= 5 s) [{est.selection_}/{est.method_}]")
    print(f"AdaptiveTester.simulate 1,000 x 50 items: {sim_wall:.2f} / {sim_cpu:.2f} s "
          "(target <= 10 s)")
    if catsim_python:
        anchor = _catsim_time(catsim_python, tester, catsim_examinees)
        if anchor is not None:
            wall, cpu = (t * 1000 / catsim_examinees for t in anchor)
            print(f"catsim Simulator, {catsim_examinees} examinees x 50 items: "
                  f"{anchor[0]:.2f} / {anchor[1]:.2f} s -> extrapolated to 1,000: "
                  f"{wall:.0f} / {cpu:.0f} s; ratio ours/catsim (CPU) = "
                  f"{sim_cpu / cpu:.4f}")


class _Clock:
    """Wall and process CPU time since creation."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self):
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


_CATSIM_SCRIPT = """
import json, sys, time
import numpy as np
from catsim.estimation import NumericalSearchEstimator
from catsim.initialization import FixedPointInitializer
from catsim.selection import MaxInfoSelector
from catsim.simulation import Simulator
from catsim.stopping import TestLengthStopper
items = np.load(sys.argv[1])
n = int(sys.argv[2])
theta = np.random.default_rng(0).normal(size=n)
start, cpu = time.perf_counter(), time.process_time()
Simulator(items, theta, FixedPointInitializer(0.0), MaxInfoSelector(),
          NumericalSearchEstimator(), TestLengthStopper(max_items=50)).simulate()
print(json.dumps({"seconds": time.perf_counter() - start,
                  "cpu": time.process_time() - cpu}))
"""


def _catsim_time(python, tester, n_examinees):
    a = np.nan_to_num(np.asarray(tester.irt_.discrimination_, dtype=float), nan=0.01)
    b = np.nan_to_num(np.asarray(tester.irt_.difficulty_, dtype=float))
    items = np.column_stack([np.maximum(a, 0.01), b, np.zeros_like(a),
                             np.ones_like(a)])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "items.npy"
        np.save(path, items)
        script = Path(folder) / "run_catsim.py"
        script.write_text(_CATSIM_SCRIPT)
        done = subprocess.run([python, str(script), str(path), str(n_examinees)],
                              capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        print("catsim failed:", done.stderr.strip().splitlines()[-1:])
        return None
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["seconds"], result["cpu"]


def _cv_table(X, sizes, seed=0):
    """{(selection, estimator, size): MAE} with one calibration per fold."""
    truth = np.nanmean(X, axis=1)
    combos = [(s, e) for s in SELECTIONS for e in ESTIMATORS] + [("auto", "auto")]
    predictions = {(s, e, n): np.empty_like(truth) for s, e in combos for n in sizes}
    chosen = {n: [] for n in sizes}
    for train, test in KFold(5, shuffle=True, random_state=seed).split(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            irt = FrozenEstimator(IRT2PL(model="1PL").fit(X[train]))
            for n in sizes:
                for selection, estimator in combos:
                    est = SubsetScoreEstimator(n, selection=selection,
                                               estimator=estimator, irt=irt,
                                               random_state=seed)
                    est.fit(X[train])
                    predictions[selection, estimator, n][test] = est.predict(X[test])
                    if selection == "auto":
                        chosen[n].append(f"{est.selection_}/{est.method_}")
    mae = {key: float(np.mean(np.abs(p - truth))) for key, p in predictions.items()}
    return mae, chosen


def case_table(datasets, sizes):
    for name in datasets:
        X = load(name)
        if X is None:
            print(f"\n{name}: not available, skipped")
            continue
        start = time.perf_counter()
        usable = [n for n in sizes if n < X.shape[1]]
        mae, chosen = _cv_table(X, usable)
        print(f"\n{name}: {X.shape[0]} models x {X.shape[1]} items; 5-fold CV MAE "
              f"({time.perf_counter() - start:.0f} s)")
        header = f"{'selection':12s} {'estimator':11s}" + "".join(
            f"{'n=' + str(n):>9s}" for n in usable)
        print(header)
        for selection in (*SELECTIONS, "auto"):
            for estimator in (ESTIMATORS if selection != "auto" else ("auto",)):
                row = "".join(f"{mae[selection, estimator, n]:9.4f}" for n in usable)
                print(f"{selection:12s} {estimator:11s}{row}")
        row = "".join(f"{random_mean_mae(X, n):9.4f}" for n in usable)
        print(f"{'random x50':12s} {'mean':11s}{row}   (mean over 50 draws)")
        for n in usable:
            print(f"  auto at n={n}: {', '.join(chosen[n])}")


def case_adaptive(datasets):
    for name in datasets:
        X = load(name)
        if X is None:
            continue
        truth = np.nanmean(X, axis=1)
        steps = (10, 20, 50)
        final = {k: np.empty_like(truth) for k in steps}
        static = {k: np.empty_like(truth) for k in steps}
        start = time.perf_counter()
        for train, test in KFold(5, shuffle=True, random_state=0).split(X):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                irt = FrozenEstimator(IRT2PL(model="1PL").fit(X[train]))
                tester = AdaptiveTester(irt, max_items=max(steps),
                                        random_state=0).fit(X[train])
                log = tester.simulate(X[test])
                for k in steps:
                    last = log[log["step"] <= k].groupby("agent")["accuracy"].last()
                    final[k][test[last.index]] = last.to_numpy()
                    static[k][test] = SubsetScoreEstimator(
                        k, irt=irt, random_state=0).fit(X[train]).predict(X[test])
        print(f"\n{name}: adaptive vs static, 5-fold CV MAE "
              f"({time.perf_counter() - start:.0f} s)")
        for k in steps:
            print(f"  {k:3d} items: adaptive {np.mean(np.abs(final[k] - truth)):.4f}  "
                  f"static default {np.mean(np.abs(static[k] - truth)):.4f}  "
                  f"random by mean {random_mean_mae(X, k):.4f}")
        print(f"  100 random items by mean: {random_mean_mae(X, 100):.4f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="all",
                        choices=["all", "timing", "table", "adaptive"])
    parser.add_argument("--datasets", default="arc,chembench,syn2pl,syn1pl,synfam")
    parser.add_argument("--sizes", default="25,50,100,200")
    parser.add_argument("--catsim-python", default=None)
    parser.add_argument("--catsim-examinees", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    datasets = [d for d in args.datasets.split(",") if d]
    sizes = [int(n) for n in args.sizes.split(",") if n]
    if args.case in ("all", "timing"):
        case_timing(args.catsim_python, args.catsim_examinees, args.repeat)
    if args.case in ("all", "table"):
        case_table(datasets, sizes)
    if args.case in ("all", "adaptive"):
        case_adaptive(datasets)


if __name__ == "__main__":
    sys.exit(main())
