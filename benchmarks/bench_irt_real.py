r"""Binary item response models on real benchmark matrices.

Evidence for the user guide's choice of default (:ref:`irt_models`): does the
3PL's guessing floor pay on a real multiple-choice benchmark, and do two
factors pay on ChemBench?

Cases:

- ``compare``: ``compare_models`` on the ARC matrix (320 Mixtral-family models
  x 735 multiple-choice items, mostly four options, of the Open LLM
  Leaderboard v1, read from ``shared/data/irt`` beside the checkout or
  ``$SKLEARN_EVAL_SHARED``; the package does not ship it), 5 folds of
  responses, ``random_state=0``: 2PL, 3PL (maximum likelihood) and 3PL with
  ``n_options=4`` (a prior on the asymptote centred on 1/4). Each model is a
  separate call (``--models``, separated by ``;``) with the same
  ``random_state``, hence the same folds (one call would label both 3PLs
  "3PL"), so the models can run in parallel processes; the table is printed
  after each.
- ``subset``: the full-benchmark accuracy error of ``SubsetScoreEstimator`` at
  100 items with each calibration (1PL, the estimator's default; 2PL; 3PL;
  3PL with ``n_options=4``). For each seed the 320 models are split at random
  into 240 calibration models and 80 held-out models; the item response model
  is fitted once on the calibration models and shared (``FrozenEstimator``);
  the held-out models' accuracy on all 735 items is predicted from their
  responses to the 100 chosen items. Reported: mean absolute error over the
  held-out models, averaged over seeds (standard error over seeds), for
  ``method="irt"`` (the p-IRT estimate, which reads the calibration) with
  ``selection="stratified"`` (the same items for every calibration) and
  ``selection="information"`` (items chosen by the calibration), and the plain
  mean of the stratified items.
- ``chembench``: ``compare_models`` on ChemBench (22 x 2,854, shipped), 1PL
  and 2PL against two factors, 5 folds, ``random_state=0``.

Every IRT runs with ``n_jobs=1`` and ``tol=--tol`` (IRT's default 1e-7 per
agent). The user guide's numbers use 1e-4 per agent (0.03 log-likelihood units
per EM step on 320 agents), which keeps the 3PL's maximum-likelihood EM to
minutes on a shared machine. Held-out numbers of maximum-likelihood fits
depend on where EM stops (on ARC the 2PL stops after 50 steps at 1e-4, after
160 at 1e-7, at different likelihoods), so compare models at one ``tol``.
The user guide's numbers come from (repository root, ``PYTHONPATH=$PWD``)::

    python benchmarks/bench_irt_real.py --case compare --tol 1e-4
    python benchmarks/bench_irt_real.py --case subset --seeds 3 --tol 1e-4
    python benchmarks/bench_irt_real.py --case chembench

Each case prints its table and the process CPU seconds it took.
"""

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.frozen import FrozenEstimator

from sklearn_eval.datasets import load_chembench
from sklearn_eval.irt import IRT, compare_models
from sklearn_eval.selection import SubsetScoreEstimator

ARC_FILE = "data/irt/atlas_openllm_arc_mixtral_family_response_matrix.csv"
CALIBRATIONS = {
    "1PL": {"model": "1PL"},
    "2PL": {"model": "2PL"},
    "3PL": {"model": "3PL"},
    "3PL, n_options=4": {"model": "3PL", "n_options": 4},
}
COLUMNS = ["heldout_loglik_per_response", "heldout_loglik_se", "n_heldout",
           "log_likelihood", "n_parameters", "aic", "bic", "n_misfit_items"]


def load_arc():
    """The ARC matrix from the shared reference data, or exit with a message."""
    repo = Path(__file__).resolve().parents[1]
    for folder in (os.environ.get("SKLEARN_EVAL_SHARED"), repo.parent / "shared",
                   repo.parent.parent / "shared"):
        if folder and (Path(folder) / ARC_FILE).exists():
            return pd.read_csv(Path(folder) / ARC_FILE, index_col=0).to_numpy(float)
    raise SystemExit(f"{ARC_FILE} not found: set SKLEARN_EVAL_SHARED to the "
                     "folder holding data/irt.")


def case_compare(cv, models, tol):
    X = load_arc()
    print(f"ARC {X.shape[0]} x {X.shape[1]}, compare_models cv={cv}, "
          f"random_state=0, tol={tol:g}", flush=True)
    tables = []
    for name in models:  # the same folds for each
        table = compare_models(
            X, models=[IRT(**CALIBRATIONS[name], tol=tol, n_jobs=1)], cv=cv,
            random_state=0)
        table.index = [name]
        tables.append(table)
        with pd.option_context("display.width", 250, "display.precision", 4,
                           "display.max_columns", None):
            print(pd.concat(tables)[COLUMNS].sort_values(
                "heldout_loglik_per_response", ascending=False), flush=True)
        print(f"({time.process_time():.0f} s CPU so far)", flush=True)


def case_subset(seeds, n_items, n_calibration, tol):
    X = load_arc()
    truth = X.mean(axis=1)
    rows = []
    for seed in range(seeds):
        order = np.random.default_rng(seed).permutation(X.shape[0])
        cal, held = order[:n_calibration], order[n_calibration:]
        for name, params in CALIBRATIONS.items():
            irt = IRT(**params, tol=tol, n_jobs=1).fit(X[cal])
            for selection, method in [("stratified", "irt"),
                                      ("information", "irt"),
                                      ("stratified", "mean")]:
                if method == "mean" and name != "1PL":
                    continue  # the mean does not read the calibration
                est = SubsetScoreEstimator(
                    n_items, selection=selection, method=method,
                    irt=FrozenEstimator(irt), random_state=seed).fit(X[cal])
                error = np.abs(est.predict(X[held]) - truth[held]).mean()
                rows.append({"seed": seed,
                             "calibration": name if method == "irt" else "-",
                             "selection": selection, "method": method,
                             "mae": error})
        print(f"seed {seed} done ({time.process_time():.0f} s CPU)", flush=True)
        _print_subset(pd.DataFrame(rows), n_items, n_calibration, X.shape[0])


def _print_subset(frame, n_items, n_calibration, n_models):
    summary = frame.groupby(["method", "selection", "calibration"])["mae"].agg(
        ["mean", "sem", "count"])
    print(f"ARC: SubsetScoreEstimator(n_items={n_items}), {n_calibration} "
          f"calibration models, {n_models - n_calibration} held out, "
          f"{frame.seed.nunique()} seeds; mean absolute error of the full accuracy")
    with pd.option_context("display.width", 250, "display.precision", 4,
                           "display.max_columns", None):
        print(summary)
        print(frame.pivot_table(index="seed", columns=["method", "selection",
                                                       "calibration"],
                                values="mae"), flush=True)


def case_chembench(cv):
    X = load_chembench().data
    table = compare_models(X, models=["1PL", "2PL", ("2PL", 2)], cv=cv,
                           random_state=0, n_jobs=1)
    print(f"ChemBench {X.shape[0]} x {X.shape[1]}, compare_models cv={cv}, "
          "random_state=0")
    with pd.option_context("display.width", 250, "display.precision", 4,
                           "display.max_columns", None):
        print(table[COLUMNS])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["compare", "subset", "chembench"],
                        required=True)
    parser.add_argument("--cv", type=int, default=5)
    parser.add_argument("--models", default="2PL;3PL, n_options=4;3PL",
                        help="compare: calibrations separated by ';'")
    parser.add_argument("--tol", type=float, default=1e-7,
                        help="EM tolerance of every fit (IRT's tol)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n-items", type=int, default=100)
    parser.add_argument("--n-calibration", type=int, default=240)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.case == "compare":
        case_compare(args.cv, [name.strip() for name in args.models.split(";")],
                     args.tol)
    elif args.case == "subset":
        case_subset(args.seeds, args.n_items, args.n_calibration, args.tol)
    else:
        case_chembench(args.cv)
    print(f"{time.process_time():.0f} s CPU")


if __name__ == "__main__":
    main()
