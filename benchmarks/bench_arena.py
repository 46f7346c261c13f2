"""Speed of the arena fits (ties, style control, bootstrap) against the anchors.

What it measures (best of ``--repeat`` runs, wall-clock seconds, each anchor
run alternately with ours in the same process so the ratios share the load):

1. the Chatbot Arena fit with a tie model: ``EloRanker(method="batch",
   ties="davidson")`` on ``load_chatbot_arena()`` (3,460 pairs, 1.67M votes
   as weighted rows of model names; label coding included) against leaderbot's
   Davidson model in its original form (``Davidson(data, k_cov=None,
   k_tie=0).train()``, data from ``leaderbot.data.load(tie="both")``, the
   same votes). Targets: ours <= 0.1 s and >= 10x faster. Also Rao-Kupper
   (for information), with the Kendall tau between the two rankings and the
   mean log-loss per vote of both fits;
2. a style-controlled fit: ``EloRanker(method="batch")`` with per-match
   covariates (ties as half wins; a DataFrame of model names and three float
   covariate columns, label coding included) against arena-rank's
   ``ContextualBradleyTerry`` (same model: ``reg=0``, unit weights,
   unnormalised features) on ``--n-style`` synthetic matches among
   ``--n-players`` players with 3 style covariates. Target >= 10x faster;
   the largest coefficient difference is printed;
3. 1,000 bootstrap refits of the arena Davidson fit with
   ``frequency_weights=True`` (votes resampled) and ``n_jobs=2``. Target
   <= 10 s. The workers are started (and numba loaded in them) by a small
   warm-up call first; its time is printed too.

The anchors' JIT compilation (numba in leaderbot, jax in arena-rank, numba
in ours) is excluded: every fit is run once before timing.

Setup (once; the anchors are never dependencies of the package)::

    python3 -m venv /work/bench-venvs/arena
    /work/bench-venvs/arena/bin/pip install leaderbot arena-rank

Run from the repository root (the package is taken from the checkout)::

    PYTHONPATH=. /work/bench-venvs/arena/bin/python benchmarks/bench_arena.py

Options: ``--repeat``, ``--n-style``, ``--n-players``, ``--n-resamples``,
``--skip-bootstrap``. The machine may be shared: compare ratios, and repeat
when it is quiet.
"""

import argparse
import os
import time

import numpy as np


def compare(ours, anchor, repeat):
    """Best times of two callables run alternately (fairer on a busy machine)."""
    best_ours = best_anchor = np.inf
    result_ours = result_anchor = None
    for _ in range(repeat):
        start = time.perf_counter()
        result_anchor = anchor()
        best_anchor = min(best_anchor, time.perf_counter() - start)
        start = time.perf_counter()
        result_ours = ours()
        best_ours = min(best_ours, time.perf_counter() - start)
    return best_ours, result_ours, best_anchor, result_anchor


def report(name, ours, anchor=None, *, max_seconds=None, min_speedup=None, extra=""):
    line = f"{name:<44} ours {ours:8.3f} s"
    verdicts = []
    if anchor is not None:
        speedup = anchor / ours
        line += f"   anchor {anchor:8.3f} s   speed-up {speedup:7.1f}x"
        if min_speedup is not None:
            verdicts.append("OK" if speedup >= min_speedup
                            else f"MISSED (>= {min_speedup}x)")
    if max_seconds is not None:
        verdicts.append("OK" if ours <= max_seconds else f"MISSED (<= {max_seconds} s)")
    print(line + ("  " + ", ".join(verdicts) if verdicts else "") + extra)


def load_calibration():
    """Seconds for a fixed numpy workload: how loaded the machine is now."""
    x = np.random.default_rng(0).random(1_000_000)
    start = time.perf_counter()
    for _ in range(10):
        np.exp(x).sum()
    return time.perf_counter() - start


# ---------------------------------------------------------------------------
# 1. the arena with ties
# ---------------------------------------------------------------------------
def bench_arena_ties(repeat):
    import leaderbot as lb
    from leaderbot.models import Davidson, RaoKupper
    from scipy.stats import kendalltau

    from sklearn_eval.datasets import load_chatbot_arena
    from sklearn_eval.pairwise import EloRanker

    arena = load_chatbot_arena()
    data = lb.data.load(tie="both")
    for ties, anchor_class in (("davidson", Davidson), ("rao-kupper", RaoKupper)):

        def ours(ties=ties):
            return EloRanker(method="batch", ties=ties, scale="logit").fit(
                arena.data, arena.target, sample_weight=arena.sample_weight
            )

        def anchor(anchor_class=anchor_class):
            model = anchor_class(data, k_cov=None, k_tie=0)
            model.train()
            return model

        ours()
        anchor()  # JIT compilation of both, outside the timings
        t_ours, est, t_anchor, model = compare(ours, anchor, repeat)
        order = [int(np.flatnonzero(est.players_ == m)[0]) for m in data["models"]]
        tau = kendalltau(est.ratings_[order], model.param[: len(order)]).statistic
        loss = -est.score(arena.data, arena.target, sample_weight=arena.sample_weight)
        report(
            f"arena fit, ties={ties!r}", t_ours, t_anchor,
            max_seconds=0.1 if ties == "davidson" else None,
            min_speedup=10 if ties == "davidson" else None,
            extra=(f"\n{'':<44} Kendall tau {tau:.6f}; log-loss/vote ours "
                   f"{loss:.10f}, leaderbot {model.loss():.10f}; "
                   f"{est.n_iter_} Newton vs {model._result.nit} BFGS iterations"),
        )


# ---------------------------------------------------------------------------
# 2. style control
# ---------------------------------------------------------------------------
def style_data(n_players, n_matches, seed=0):
    rng = np.random.default_rng(seed)
    strengths = rng.normal(0.0, 1.0, n_players)
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    covariates = rng.normal(0.0, 1.0, (n_matches, 3))
    d = strengths[first] - strengths[second] + covariates @ [0.5, -0.25, 0.1]
    u = rng.uniform(size=n_matches)
    p_win = 1.0 / (1.0 + np.exp(-d))
    y = np.where(u < 0.85 * p_win, 1.0, np.where(u < 0.85, 0.0, 0.5))
    names = np.array([f"model-{k:03d}" for k in range(n_players)], dtype=object)
    return names[first], names[second], first, second, covariates, y


def bench_style(n_players, n_matches, repeat):
    import jax.numpy as jnp
    import pandas as pd
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    from sklearn_eval.pairwise import EloRanker

    a, b, first, second, covariates, y = style_data(n_players, n_matches)
    X = pd.DataFrame({"model_a": a, "model_b": b, "length": covariates[:, 0],
                      "headers": covariates[:, 1], "bold": covariates[:, 2]})
    dataset = ContextualPairDataset(
        competitors=[str(k) for k in range(n_players)],
        pairs=jnp.asarray(np.column_stack([first, second]), dtype=jnp.int32),
        outcomes=jnp.asarray(y), features=jnp.asarray(covariates),
        weights=jnp.ones(n_matches),
    )

    def ours():
        return EloRanker(method="batch", scale="logit").fit(X, y)

    def anchor():
        model = ContextualBradleyTerry(n_players, 3, reg=0.0)
        model.fit(dataset)
        np.asarray(model.params["coeffs"])  # wait for jax
        return model

    ours()
    anchor()
    t_ours, est, t_anchor, model = compare(ours, anchor, repeat)
    gap = np.max(np.abs(est.covariate_coef_ - np.asarray(model.params["coeffs"])))
    report(f"style control, {n_matches:,} matches, 3 covariates", t_ours, t_anchor,
           min_speedup=10, extra=f"\n{'':<44} max |coef difference| {gap:.2e}")


# ---------------------------------------------------------------------------
# 3. bootstrap of the arena with ties
# ---------------------------------------------------------------------------
def bench_bootstrap(n_resamples):
    from sklearn_eval.datasets import load_chatbot_arena
    from sklearn_eval.pairwise import EloRanker, bootstrap_bradley_terry

    arena = load_chatbot_arena()
    est = EloRanker(method="batch", ties="davidson")
    args = (est, arena.data, arena.target, arena.sample_weight)
    start = time.perf_counter()
    bootstrap_bradley_terry(*args, n_resamples=4, frequency_weights=True,
                            random_state=0, n_jobs=2)
    warm_up = time.perf_counter() - start
    start = time.perf_counter()
    result = bootstrap_bradley_terry(*args, n_resamples=n_resamples,
                                     frequency_weights=True, random_state=0,
                                     n_jobs=2)
    elapsed = time.perf_counter() - start
    start = time.perf_counter()
    bootstrap_bradley_terry(*args, n_resamples=100, frequency_weights=True,
                            random_state=0, n_jobs=1)
    serial = (time.perf_counter() - start) / 100
    width = np.median(result.high - result.low)
    report(f"{n_resamples} bootstrap refits, arena, n_jobs=2", elapsed,
           max_seconds=10.0 * n_resamples / 1000,
           extra=(f"\n{'':<44} worker start-up {warm_up:.1f} s; serial "
                  f"{1e3 * serial:.1f} ms per refit; median 95% width "
                  f"{width:.1f} Elo"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n-style", type=int, default=200_000)
    parser.add_argument("--n-players", type=int, default=100)
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--skip-bootstrap", action="store_true")
    options = parser.parse_args()
    print(f"load calibration: {load_calibration():.3f} s for 10 exp over 1e6 "
          f"(about 0.03-0.05 s on an idle core); {os.cpu_count()} CPUs, load "
          f"average {os.getloadavg()[0]:.1f}")
    bench_arena_ties(options.repeat)
    bench_style(options.n_players, options.n_style, options.repeat)
    if not options.skip_bootstrap:
        bench_bootstrap(options.n_resamples)


if __name__ == "__main__":
    main()
