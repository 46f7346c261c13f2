"""Speed of the method advisor (``sklearn_eval.advise``).

Targets: the Chatbot Arena votes (``load_chatbot_arena``: 1.67M votes as
13,621 weighted rows, 129 players) in at most 10 s, and a 320 x 735 binary
matrix (the size of the ARC matrix, which the package does not ship; here
2PL responses from ``make_irt_responses``) in at most 20 s, on 2 cores.

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/bench_advice.py [--repeat 1]

A first, untimed call on small data compiles the numba kernels. Timings are
wall-clock seconds (best of ``--repeat``) with the CPU seconds of the
process beside them; on a shared machine the wall clock carries the load of
the other processes, which the script prints (load average).
"""

import argparse
import os
import time
import warnings

from sklearn_eval import advise
from sklearn_eval.datasets import load_chatbot_arena, make_irt_responses, make_matches


def _best(repeat, call):
    """Best wall-clock seconds, the CPU seconds of that run, the result."""
    best, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = call()
        seconds = time.perf_counter() - start
        if seconds < best:
            best, cpu = seconds, time.process_time() - start_cpu
    return best, cpu, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    X, y = make_matches(n_players=6, n_matches=300, random_state=0)
    advise(X, y, random_state=0)  # compile the kernels
    advise(make_irt_responses(60, 8, random_state=0), random_state=0)
    arena = load_chatbot_arena()
    seconds, cpu, advice = _best(args.repeat, lambda: advise(
        arena.data, arena.target, sample_weight=arena.sample_weight,
        random_state=0))
    print(f"chatbot arena ({arena.sample_weight.sum():,.0f} votes, "
          f"{len(arena.target):,} rows): {seconds:.1f} s wall, {cpu:.1f} s CPU "
          f"(target 10 s); {advice.recommendation!r}")
    R = make_irt_responses(320, 735, random_state=0)
    seconds, cpu, advice = _best(args.repeat, lambda: advise(R, random_state=0))
    print(f"binary 320 x 735: {seconds:.1f} s wall, {cpu:.1f} s CPU (target "
          f"20 s); {advice.recommendation!r}")
    print(f"load average while measured: {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")


if __name__ == "__main__":
    main()
