"""Benchmark: maximum-entropy Nash averaging against OpenSpiel's nash_averaging.

Setup (the anchor lives in its own virtual environment and is never a
dependency of sklearn-eval)::

    python3 -m venv /work/bench_game_venv
    /work/bench_game_venv/bin/pip install numpy scipy cvxpy clarabel open_spiel

Run from the repository root with the project's environment::

    python benchmarks/bench_nash.py            # all cases, OpenSpiel included
    python benchmarks/bench_nash.py --quick    # ours only
    SKLEARN_EVAL_BENCH_VENV=/path/to/venv python benchmarks/bench_nash.py

OpenSpiel runs in a subprocess of the anchor environment (data passed as .npy
files) with a time limit per case (``--timeout``, default 600 s). Each line
prints our time, the anchor's time, the ratio, and both exploitabilities
(mean best-deviation gain; AvA: ``max_i (A p)_i``), so accuracy is compared
together with speed. Timings on a shared machine are noisy: read the ratios
and repeat (``--repeat``) when the machine is quiet.

Targets (issue 4): AvT 200 x 200 <= 0.3 s and >= 1000x faster than OpenSpiel
at 50 x 50; AvA n = 1000 from ``make_cyclic_game`` <= 2 s; a strongly cyclic
AvA n = 1000 (large support) >= 3x faster than OpenSpiel with exploitability
<= 1e-9.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sklearn_eval.datasets import make_cyclic_game
from sklearn_eval.game import NashAverager

ANCHOR_CODE = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from open_spiel.python.algorithms import nash_averaging as na
kind, path = sys.argv[1], sys.argv[2]
X = np.load(path)
t = time.perf_counter()
try:
    if kind == "avt":
        (pa, pe), _ = na.nash_averaging_avt_matrix(X)
        out = {"p": pa.ravel().tolist(), "q": pe.ravel().tolist()}
    else:
        p = na._max_entropy_symmetric_nash(X)
        out = {"p": p.ravel().tolist()}
    out["ok"] = True
except Exception as exc:
    out = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:200]}
out["time"] = time.perf_counter() - t
print(json.dumps(out))
"""


def _anchor(kind, X, venv, timeout):
    """Run OpenSpiel in its own environment; returns a dict (time, p, q, error)."""
    python = Path(venv) / "bin" / "python"
    if not python.exists():
        return {"ok": False, "error": f"no anchor venv at {venv}", "time": np.nan}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "X.npy")
        np.save(path, X)
        try:
            done = subprocess.run(
                [str(python), "-c", ANCHOR_CODE, kind, path],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return {"ok": False, "error": f"timed out (> {timeout} s)", "time": timeout}
    lines = done.stdout.strip().splitlines()
    if not lines:
        return {"ok": False, "error": done.stderr[-300:], "time": np.nan}
    return json.loads(lines[-1])


def _ours(kind, X, repeat):
    game = "agent_vs_task" if kind == "avt" else "agent_vs_agent"
    normalize = "minmax" if kind == "avt" else None
    best = np.inf
    for _ in range(repeat):
        est = NashAverager(game=game, normalize=normalize)
        t = time.perf_counter()
        est.fit(X)
        best = min(best, time.perf_counter() - t)
    return best, est


def _exploitability_avt(S, p, q):
    return 0.5 * (np.max(S @ q) - np.min(S.T @ p))


def _entropy(p):
    p = np.asarray(p)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def _cases(quick):
    rng = np.random.default_rng(0)
    cases = [
        ("AvT 50x50 uniform scores", "avt", rng.uniform(size=(50, 50)), True),
        ("AvT 200x200 uniform scores", "avt", rng.uniform(size=(200, 200)), False),
        ("AvT 1000x100 uniform scores", "avt", rng.uniform(size=(1000, 100)), False),
        (
            "AvA n=1000 make_cyclic_game (transitive + rank-2 cyclic)",
            "ava",
            make_cyclic_game(1000, random_state=0),
            True,
        ),
    ]
    strong = make_cyclic_game(
        1000, transitive_scale=0.1, cyclic_rank=499, random_state=0
    )
    cases.append(("AvA n=1000 strongly cyclic (cyclic_rank=499)", "ava", strong, True))
    G = rng.normal(size=(1000, 1000))
    cases.append(
        ("AvA n=1000 strongly cyclic (Gaussian G - G^T)", "ava", G - G.T, True)
    )
    return [
        (name, kind, X, run_anchor and not quick) for name, kind, X, run_anchor in cases
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip OpenSpiel")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument(
        "--venv",
        default=os.environ.get("SKLEARN_EVAL_BENCH_VENV", "/work/bench_game_venv"),
    )
    args = parser.parse_args(argv)
    header = (
        f"{'case':58s} {'ours s':>8s} {'anchor s':>9s} {'ratio':>8s} "
        f"{'expl ours':>10s} {'expl anchor':>11s} {'H ours':>7s} {'H anchor':>8s}"
    )
    print(header)
    for name, kind, X, run_anchor in _cases(args.quick):
        t_ours, est = _ours(kind, X, args.repeat)
        expl = est.exploitability_
        anchor = _anchor(kind, X, args.venv, args.timeout) if run_anchor else None
        t_anchor, expl_anchor, h_anchor = np.nan, np.nan, np.nan
        note = ""
        if anchor is not None:
            t_anchor = anchor.get("time", np.nan)
            if anchor.get("ok"):
                p = np.asarray(anchor["p"])
                if kind == "avt":
                    q = np.asarray(anchor["q"])
                    expl_anchor = _exploitability_avt(est.payoff_, p, q)
                else:
                    expl_anchor = float(np.max(est.payoff_ @ p))
                h_anchor = _entropy(p)
            else:
                note = f"  anchor: {anchor.get('error')}"
        ratio = t_anchor / t_ours if np.isfinite(t_anchor) else np.nan
        print(
            f"{name:58s} {t_ours:8.3f} {t_anchor:9.2f} {ratio:8.1f} {expl:10.1e} "
            f"{expl_anchor:11.1e} {_entropy(est.agent_distribution_):7.3f} "
            f"{h_anchor:8.3f}{note}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
