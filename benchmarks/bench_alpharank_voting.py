"""Speed of AlphaRank and exact Kemeny-Young against OpenSpiel.

Targets (issue 19):

* alpha-Rank on a random 200 x 200 win-probability matrix (alpha = 10,
  m = 50) at least 10x faster than ``open_spiel.python.egt.alpharank.compute``,
  with the same distribution;
* exact Kemeny-Young on 15 agents x 57 tasks in at most 2 s (OpenSpiel
  enumerates all 15! = 1.3e12 permutations, so it is timed at 8 agents, where
  it still finishes).

OpenSpiel runs in its own venv (never a dependency)::

    python -m venv /work/bench-venvs/openspiel
    /work/bench-venvs/openspiel/bin/pip install open_spiel cvxpy

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/bench_alpharank_voting.py \
        [--openspiel-python /work/bench-venvs/openspiel/bin/python]

Timings are best-of-3 wall-clock seconds measured in the same run (ratios are
what matters on a shared machine).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from sklearn_eval.game import AlphaRank, VotingRanker

OPENSPIEL_SNIPPET = r"""
import json, sys, time
import numpy as np
from open_spiel.python.egt import alpharank
from open_spiel.python.voting import base, kemeny_young
task = json.load(open(sys.argv[1]))
out = {}
P = np.asarray(task["P"])
best = np.inf
for _ in range(task["repeat"]):
    t = time.perf_counter()
    _, _, pi, _, _ = alpharank.compute([P], m=50, alpha=10.0)
    best = min(best, time.perf_counter() - t)
out["alpharank_time"] = best
out["alpharank_pi"] = pi.tolist()
X = np.asarray(task["X8"])
profile = base.PreferenceProfile(alternatives=list(range(X.shape[0])))
for column in X.T:
    profile.add_vote([int(i) for i in np.argsort(-column)])
t = time.perf_counter()
outcome = kemeny_young.KemenyYoungVoting().run_election(profile)
out["kemeny8_time"] = time.perf_counter() - t
out["kemeny8_ranking"] = [int(a) for a in outcome.ranking]
json.dump(out, sys.stdout)
"""


def random_win_probabilities(n, seed):
    rng = np.random.default_rng(seed)
    U = np.triu(rng.uniform(size=(n, n)), 1)
    P = U + np.tril(1.0 - U.T, -1)
    np.fill_diagonal(P, 0.5)
    return P


def best_of(fn, repeat=3):
    best, result = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def run_openspiel(python, P, X8, repeat):
    with tempfile.TemporaryDirectory() as tmp:
        task = os.path.join(tmp, "task.json")
        script = os.path.join(tmp, "run.py")
        with open(task, "w") as fh:
            json.dump({"P": P.tolist(), "X8": X8.tolist(), "repeat": repeat}, fh)
        with open(script, "w") as fh:
            fh.write(OPENSPIEL_SNIPPET)
        done = subprocess.run(
            [python, script, task], capture_output=True, text=True, check=True
        )
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openspiel-python",
                        default="/work/bench-venvs/openspiel/bin/python")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    P = random_win_probabilities(200, 0)
    game = AlphaRank(alpha=10.0, game="agent_vs_agent")
    ours_time, fitted = best_of(lambda: game.fit(P), args.repeat)
    rng = np.random.default_rng(0)
    X15 = rng.normal(size=(15, 57))  # no signal: the hardest (most cyclic) case
    X15_signal = np.linspace(1, -1, 15)[:, None] + rng.normal(size=(15, 57))
    X8 = rng.normal(size=(8, 57))
    ky_noise, vr = best_of(lambda: VotingRanker().fit(X15), args.repeat)
    ky_signal, _ = best_of(lambda: VotingRanker().fit(X15_signal), args.repeat)
    ky20, _ = best_of(lambda: VotingRanker().fit(rng.normal(size=(20, 57))), 1)
    ky8, vr8 = best_of(lambda: VotingRanker().fit(X8), args.repeat)

    print("alpha-Rank, 200 agents, alpha=10, m=50")
    print(f"  sklearn-eval AlphaRank      {ours_time:8.3f} s  "
          f"(solver {fitted.solver_})")
    print("Kemeny-Young (exact)")
    print(f"  15 agents x 57 tasks, noise {ky_noise:8.3f} s  (target <= 2 s)")
    print(f"  15 agents x 57 tasks, signal{ky_signal:8.3f} s")
    print(f"  20 agents x 57 tasks, noise {ky20:8.3f} s")
    print(f"  8 agents x 57 tasks         {ky8:8.3f} s")
    if not os.path.exists(args.openspiel_python):
        print(f"(OpenSpiel not found at {args.openspiel_python}: no ratios)")
        return
    ref = run_openspiel(args.openspiel_python, P, X8, args.repeat)
    diff = np.max(np.abs(np.asarray(ref["alpharank_pi"]) - fitted.agent_distribution_))
    print(f"  OpenSpiel alpharank.compute {ref['alpharank_time']:8.3f} s  "
          f"-> {ref['alpharank_time'] / ours_time:6.1f}x faster "
          f"(target >= 10x); max |diff| = {diff:.1e}")
    same = ref["kemeny8_ranking"] == vr8.ranking_.tolist()
    print(f"  OpenSpiel Kemeny, 8 agents  {ref['kemeny8_time']:8.3f} s  "
          f"-> {ref['kemeny8_time'] / ky8:6.1f}x faster; same ranking: {same}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
