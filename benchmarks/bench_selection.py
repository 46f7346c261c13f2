"""Benchmark: greedy information-gain task selection (InfoGainSelector).

Setup
-----
No extra environment is needed: the anchor is a straightforward per-pair
pure-Python implementation of the paper's equations written in this file (the
authors' reference code is GPL-3.0 and is not used). Run from the repository
root with the project's environment::

    /work/venv/bin/python benchmarks/bench_selection.py            # all cases
    /work/venv/bin/python benchmarks/bench_selection.py --quick    # small only

The GVGAI case reads ``../shared/data/gvgai/stephenson2020_Combined_raw_data.csv``
(GPL data, read in place, never copied) and falls back to synthetic data of the
same shape when it is absent.

Targets (issue 7): greedy selection of 10 of the 108 GVGAI games in <= 0.5 s;
1000 tasks x 200 agents choosing 50 in <= 30 s. The pure-Python anchor is far
too slow for the large case, so its time there is extrapolated from timed
candidate evaluations (printed as such).

Output: one line per case with our time, the anchor's time and the ratio.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from sklearn_eval.selection import InfoGainSelector, greedy_select

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


# ----------------------------------------------------------------------------
# Anchor: per-pair pure Python (Eq. 1-4 literally, linear space, like the paper)
# ----------------------------------------------------------------------------


def naive_set_gain(means, stds, columns, prob_floor=None):
    """IG of a set of columns, looping over every pair of agents."""
    n = len(means)
    total_entropy = 0.0
    for i in range(n):
        densities = []
        for j in range(n):
            value = 1.0
            for c in columns:
                s = stds[i][c] + stds[j][c]
                d = means[i][c] - means[j][c]
                value *= math.exp(-d * d / (2 * s * s)) / math.sqrt(2 * math.pi * s * s)
            densities.append(value)
        norm = sum(densities)
        for value in densities:
            p = value / norm
            if p == 0.0:
                if prob_floor is None:
                    continue
                p = prob_floor
            total_entropy -= p * math.log2(p)
    return max(math.log2(n) - total_entropy / n, 0.0)


def naive_greedy(means, stds, groups, k, prob_floor=None):
    """Greedy forward selection calling :func:`naive_set_gain` per candidate."""
    tasks = list(dict.fromkeys(groups))
    columns = {t: [c for c, g in enumerate(groups) if g == t] for t in tasks}
    chosen, cumulative = [], []
    for _ in range(k):
        best, best_gain = None, -1.0
        for t in tasks:
            if t in chosen:
                continue
            cols = [c for u in chosen + [t] for c in columns[u]]
            gain = naive_set_gain(means, stds, cols, prob_floor)
            if gain > best_gain:
                best, best_gain = t, gain
        chosen.append(best)
        cumulative.append(best_gain)
    return chosen, cumulative


# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------


def gvgai_combined():
    path = SHARED / "data" / "gvgai" / "stephenson2020_Combined_raw_data.csv"
    if not path.exists():
        print(f"(GVGAI data not found at {path}: synthetic 27 x 108 x 2 instead)")
        rng = np.random.default_rng(0)
        means = rng.normal(size=(27, 216))
        stds = rng.uniform(0.05, 1.0, size=(27, 216)) + 0.001
        return means, stds, np.repeat(np.arange(108), 2)
    raw = np.genfromtxt(path, delimiter=",", dtype=None, encoding="utf-8",
                        autostrip=True)
    agent = np.array([r[0] for r in raw])
    game = np.array([r[1] for r in raw])
    numbers = np.array([list(r)[2:] for r in raw], dtype=float)
    agents, games = np.unique(agent), np.unique(game)
    a, g = np.searchsorted(agents, agent), np.searchsorted(games, game)
    means = np.empty((len(agents), 2 * len(games)))
    stds = np.empty_like(means)
    means[a, 2 * g], means[a, 2 * g + 1] = numbers[:, 1], numbers[:, 2]
    stds[a, 2 * g], stds[a, 2 * g + 1] = numbers[:, 4], numbers[:, 5]
    return means, stds, np.repeat(games, 2)


def synthetic(n_agents, n_tasks, seed=0):
    rng = np.random.default_rng(seed)
    skill = rng.normal(size=(n_agents, 1))
    means = skill * rng.uniform(0, 2, size=n_tasks) + rng.normal(
        size=(n_agents, n_tasks)
    )
    stds = rng.uniform(0.3, 1.5, size=(n_agents, n_tasks))
    return means, stds


def best_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------


def case_gvgai():
    means, stds, groups = gvgai_combined()
    selector = InfoGainSelector(n_tasks=10, input="agents", groups=groups,
                                std_offset=0.0, prob_floor=1e-5)
    ours, fitted = best_time(lambda: selector.fit(means, X_std=stds), 5)
    anchor, (order, cumulative) = best_time(
        lambda: naive_greedy(means.tolist(), stds.tolist(), groups.tolist(), 10,
                             prob_floor=1e-5),
        1,
    )
    assert [str(t) for t in fitted.tasks_[fitted.selection_order_]] == [
        str(t) for t in order
    ]
    np.testing.assert_allclose(fitted.cumulative_gain_, cumulative, atol=1e-9)
    print(f"GVGAI 27 agents, 108 games x 2 measures, pick 10 (paper floor): "
          f"ours {ours:.4f} s, per-pair Python {anchor:.2f} s, "
          f"ratio {anchor / ours:.0f}x  [target <= 0.5 s: "
          f"{'met' if ours <= 0.5 else 'MISSED'}]")
    exact = InfoGainSelector(n_tasks=10, input="agents", groups=groups,
                             std_offset=0.0)
    ours_exact, _ = best_time(lambda: exact.fit(means, X_std=stds), 5)
    print(f"GVGAI pick 10, exact mode (prob_floor=None): ours {ours_exact:.4f} s")


def case_medium():
    means, stds = synthetic(60, 200, seed=1)
    groups = np.arange(200)
    ours, result = best_time(lambda: greedy_select(means, stds, 5), 3)
    anchor, (order, cumulative) = best_time(
        lambda: naive_greedy(means.tolist(), stds.tolist(), groups.tolist(), 5), 1
    )
    assert result[0].tolist() == order
    np.testing.assert_allclose(result[1], cumulative, atol=1e-9)
    print(f"synthetic 60 agents x 200 tasks, pick 5: ours {ours:.4f} s, "
          f"per-pair Python {anchor:.2f} s, ratio {anchor / ours:.0f}x")


def case_large():
    n_agents, n_tasks, k = 200, 1000, 50
    means, stds = synthetic(n_agents, n_tasks, seed=2)
    ours, _ = best_time(lambda: greedy_select(means, stds, k), 1)
    # anchor: time single candidate-set evaluations of a few sizes, extrapolate
    m, s = means.tolist(), stds.tolist()
    sizes = [1, 2, 4]
    costs = []
    for size in sizes:
        columns = list(range(size))
        start = time.perf_counter()
        naive_set_gain(m, s, columns)
        costs.append(time.perf_counter() - start)
    slope, intercept = np.polyfit(sizes, costs, 1)
    anchor = sum(
        (n_tasks - step) * (intercept + slope * (step + 1)) for step in range(k)
    )
    print(f"synthetic {n_agents} agents x {n_tasks} tasks, pick {k}: "
          f"ours {ours:.2f} s, per-pair Python ~{anchor / 3600:.0f} h "
          f"(extrapolated from "
          f"{', '.join(f'{c:.3f}' for c in costs)} s per set of size {sizes}), "
          f"ratio ~{anchor / ours:.0f}x  [target <= 30 s: "
          f"{'met' if ours <= 30 else 'MISSED'}]")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the large case")
    args = parser.parse_args()
    case_gvgai()
    case_medium()
    if not args.quick:
        case_large()


if __name__ == "__main__":
    main()
