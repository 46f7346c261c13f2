"""Benchmark GeneralityScorer.transform against a per-agent loop anchor.

No installable package computes these indicators: the reference
implementations are the authors' R scripts (``nandomp/AI_benchmark_analysis``,
``genEmpACC``; ``jorallo/generality``, ``CalculateIndicators``), which loop over
agents and bins. The anchor here is a plain-Python port of that loop (pandas
free, numpy per agent and bin) computing the same bin success rates, gamma,
slope proxy, capability and spread; the script first checks that both agree.

Setup and run (no extra environment needed; only the package's dev venv):

    /work/venv/bin/python benchmarks/bench_generality.py

It prints, per problem size, our time, the anchor's time and the ratio
(anchor / ours; > 1 means we are faster). Timings are the best of ``repeat``
runs; on a shared machine, compare ratios and repeat when quiet.
"""

import time

import numpy as np

from sklearn_eval.irt import GeneralityScorer
from sklearn_eval.irt._generality import FEATURE_NAMES


def loop_anchor(X, task_bin, edges, medians):
    """Per-agent, per-bin loop as in the authors' R code."""
    n_agents, n_bins = X.shape[0], edges.size - 1
    out = np.empty((n_agents, 5))
    for i in range(n_agents):
        rates, variances = [], []
        for b in range(n_bins):
            values = X[i, task_bin == b]
            values = values[~np.isnan(values)]
            rate = values.mean()
            rates.append(rate)
            variances.append(np.mean((values - rate) ** 2))
        total = sum(variances)
        gamma = np.inf if total < 1e-20 else 1.0 / total
        slope = np.nan
        for b in range(n_bins - 1):
            if rates[b] > 0.5 and rates[b + 1] < 0.5:
                slope = abs(rates[b + 1] - rates[b]) / abs(medians[b + 1] - medians[b])
                break
        area = sum(rates[b] * (edges[b + 1] - edges[b]) for b in range(n_bins))
        moment = sum(
            rates[b]
            * (edges[b + 1] - edges[b])
            * ((edges[b] + edges[b + 1]) / 2 - edges[0])
            for b in range(n_bins)
        )
        spread = np.sqrt(max(2 * moment - area**2, 0.0))
        out[i] = gamma, slope, edges[0] + area, spread, rates[0]
    return out


def best_time(function, repeat):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def run(n_agents, n_tasks, n_bins, missing, repeat, seed=0):
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(size=n_tasks)
    ability = rng.normal(size=n_agents)
    prob = 1 / (1 + np.exp(-(ability[:, None] - difficulty[None, :]) * 2))
    X = (rng.uniform(size=prob.shape) < prob).astype(float)
    X[rng.uniform(size=X.shape) < missing] = np.nan
    scorer = GeneralityScorer(difficulty=difficulty, bins=n_bins).fit(X)
    ours = scorer.transform(X)
    anchor = loop_anchor(X, scorer.task_bin_, scorer.bin_edges_, scorer.bin_medians_)
    names = ["generality", "slope", "capability", "spread"]
    picked = ours[:, [FEATURE_NAMES.index(name) for name in names]]
    np.testing.assert_allclose(picked, anchor[:, :4], rtol=1e-9, atol=1e-12)
    t_ours = best_time(lambda: scorer.transform(X), repeat)
    t_anchor = best_time(
        lambda: loop_anchor(
            X, scorer.task_bin_, scorer.bin_edges_, scorer.bin_medians_
        ),
        max(1, repeat // 3),
    )
    print(
        f"{n_agents:>6} agents x {n_tasks:>6} tasks, {scorer.bin_counts_.size:>3} "
        f"bins, {missing:.0%} missing: ours {t_ours * 1e3:9.2f} ms   "
        f"loop anchor {t_anchor * 1e3:9.2f} ms   ratio {t_anchor / t_ours:7.1f}x"
    )


if __name__ == "__main__":
    run(40, 41, 4, 0.0, repeat=20)  # ALE size
    run(23, 154, 4, 0.0, repeat=20)  # GVGAI size
    run(500, 1000, 10, 0.1, repeat=5)
    run(2000, 5000, 20, 0.1, repeat=3)
