"""Speed of rank sets on Chatbot Arena, and of one active-sampling round.

What it measures (best of ``--repeat`` runs, wall-clock seconds):

1. ``rank_sets(EloRanker(method="batch"), ...)`` on ``load_chatbot_arena()``
   (129 models, 1.67M votes as 13,621 weighted rows, ``frequency_weights=
   True``) with the analytic path: the batch fit, the sandwich covariance,
   1,000 normal draws and the simultaneous max-|t| step-down over the 8,256
   pairs. Target <= 2 s.
2. The same with ``method="bootstrap"``, ``--n-resamples`` (1,000) votes
   resamples and ``n_jobs=2``. Target <= 15 s. The workers are started by a
   small warm-up call first.
3. One ``ActiveSampler`` round on 16 agents and a few thousand votes:
   ``partial_fit`` of 100 votes, ``is_settled("top-1")`` and
   ``next_pairs(100)``. Target <= 50 ms.

Numba compilation is excluded (every call runs once before timing). The
machine may be shared: repeat when it is quiet.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_rank_sets.py [--repeat 3] [--n-resamples 1000]
"""

import argparse
import time
import warnings

import numpy as np
from scipy.special import expit

from sklearn_eval.datasets import load_chatbot_arena
from sklearn_eval.pairwise import ActiveSampler, EloRanker
from sklearn_eval.uncertainty import rank_sets


def best_of(repeat, call):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--skip-bootstrap", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    arena = load_chatbot_arena()
    X, y, votes = arena.data, arena.target, arena.sample_weight
    common = {"sample_weight": votes, "frequency_weights": True,
              "random_state": 0}
    est = EloRanker(method="batch")
    rank_sets(est, X[:2000], y[:2000], random_state=0)  # compile
    analytic = best_of(args.repeat, lambda: rank_sets(est, X, y, **common))
    print(f"rank_sets analytic, arena (129 models): {analytic:.2f} s (target 2 s)")

    if not args.skip_bootstrap:
        warm = best_of(1, lambda: rank_sets(est, X, y, method="bootstrap",
                                            n_resamples=8, n_jobs=2, **common))
        boot = best_of(1, lambda: rank_sets(est, X, y, method="bootstrap",
                                            n_resamples=args.n_resamples,
                                            n_jobs=2, **common))
        print(f"rank_sets bootstrap, {args.n_resamples} resamples, n_jobs=2: "
              f"{boot:.2f} s (target 15 s; warm-up {warm:.2f} s)")

    rng = np.random.default_rng(0)
    truth = np.linspace(1200.0, 900.0, 16)
    first, second = np.triu_indices(16, k=1)
    start = np.repeat(np.column_stack([first, second]), 25, axis=0)

    def vote(pairs):
        p = expit((truth[pairs[:, 0]] - truth[pairs[:, 1]]) * np.log(10) / 400)
        return (rng.random(len(pairs)) < p).astype(float)

    sampler = ActiveSampler(random_state=0).fit(start, vote(start))
    pairs = sampler.next_pairs(100).astype(int)

    def one_round():
        nonlocal pairs
        sampler.partial_fit(pairs, vote(pairs))
        sampler.is_settled("top-1")
        pairs = sampler.next_pairs(100).astype(int)

    one_round()
    round_time = best_of(max(args.repeat, 5), one_round)
    print(f"ActiveSampler round, 16 agents, {sampler.n_votes_:,.0f} votes: "
          f"{1000 * round_time:.0f} ms (target 50 ms)")


if __name__ == "__main__":
    main()
