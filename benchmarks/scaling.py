"""Scaling curves: time against problem size per family, with growth exponents.

For every family it times the main fit at 4 or more sizes (median of
``--repeat`` wall-clock runs, the sizes of a curve run round-robin so that a
change of machine load hits them alike) and prints the exponent ``k`` of the
fitted power law ``time ~ size ** k`` (least squares on log time vs log
size), so cost growth is visible at a glance: k ~ 1 is linear in the size
measure named on the curve, k ~ 2 quadratic. A closing table lists every
curve's exponent.

It also measures the issue-9 target: 1000 bootstrap Bradley-Terry refits on
100,000 matches among 100 players with ``n_jobs=2`` in <= 15 s
(``--target-only`` runs just that, as ``run_all.py`` does). Run with the
pairwise anchor environment's python (``/work/bench_pairwise_venv``, which
has evalica) it also times evalica's percentile bootstrap of its
Bradley-Terry fit on the same data (100 resamples, scaled to 1000).

Setup: none beyond the development environment (no anchors are needed)::

    /work/venv/bin/python benchmarks/scaling.py            # all curves
    /work/venv/bin/python benchmarks/scaling.py --quick    # smaller sizes
    /work/venv/bin/python benchmarks/scaling.py --family irt --family game
    /work/venv/bin/python benchmarks/scaling.py --target-only
    PYTHONPATH=. /work/bench_pairwise_venv/bin/python benchmarks/scaling.py \
        --target-only                                   # with the evalica anchor

The machine may be shared: the exponents are robust to a constant slowdown
and, with interleaved sizes, to most load changes; repeat when in doubt.
The online Elo curve on string labels goes to 16M matches (about 2 GB).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

FAMILIES = ("pairwise", "uncertainty", "game", "irt", "generality", "selection")


def growth_exponent(sizes, times):
    """Slope of log(time) against log(size)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


EXPONENTS = []


def curve(name, size_label, sizes, make_run, repeat):
    """Time ``make_run(size)()`` at every size and print the curve.

    Every size is run once to warm up (compilation, caches), then the sizes
    are run round-robin ``repeat`` times; the median is kept. A run may
    return a number of work units (e.g. EM iterations): the time is then
    divided by it (time per unit).
    """
    runs = [make_run(size) for size in sizes]
    for run in runs:
        run()
    samples = [[] for _ in sizes]
    for _ in range(repeat):
        for run, times in zip(runs, samples, strict=True):
            start = time.perf_counter()
            units = run()
            elapsed = time.perf_counter() - start
            if isinstance(units, (int, np.integer)) and units > 0:
                elapsed /= units
            times.append(elapsed)
    times = [float(np.median(t)) for t in samples]
    exponent = growth_exponent(sizes, times)
    EXPONENTS.append((name, size_label, sizes[0], sizes[-1], exponent))
    points = "  ".join(f"{s:,}: {t:.3f}s" for s, t in zip(sizes, times, strict=True))
    print(f"{name:<44} [{size_label}] {points}   exponent {exponent:.2f}",
          flush=True)
    return exponent


def print_exponents():
    """The closing table: every curve's growth exponent."""
    print("\n== growth exponents (time ~ size ** k) ==")
    for name, size_label, low, high, exponent in EXPONENTS:
        print(f"{name:<44} k = {exponent:5.2f}   ({size_label} {low:,} to {high:,})")


def pairwise_curves(quick, repeat):
    from sklearn_eval.datasets import make_matches
    from sklearn_eval.pairwise import EloRanker, MultiElo

    sizes = [125_000, 250_000, 500_000, 1_000_000] if quick else [
        250_000, 500_000, 1_000_000, 2_000_000, 4_000_000]
    data = {n: make_matches(n_players=1000, n_matches=n, random_state=0)
            for n in sizes}

    def fit(estimator, matches, per_iteration=False):
        def make(n):
            def run():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    estimator.fit(*matches[n])
                return estimator.n_iter_ if per_iteration else None

            return run

        return make

    curve("EloRanker online fit", "matches", sizes, fit(EloRanker(), data), repeat)
    curve("EloRanker batch (Bradley-Terry) fit", "matches", sizes,
          fit(EloRanker(method="batch"), data), repeat)
    curve("MultiElo(1) online fit", "matches", sizes,
          fit(MultiElo(random_state=0), data), repeat)
    batch_sizes = sizes[:3] if quick else sizes[:4]
    # L-BFGS needs far more iterations when each player has few matches
    # (632 at 125k, 56 at 500k): the cost of an iteration is what grows
    curve("MultiElo(1) batch fit, time per iteration", "matches", batch_sizes,
          fit(MultiElo(method="batch", random_state=0), data, per_iteration=True),
          max(1, repeat - 1))
    del data
    # String labels up to 16M matches: the label coding must stay linear.
    str_sizes = [250_000, 500_000, 1_000_000, 2_000_000] if quick else [
        1_000_000, 2_000_000, 4_000_000, 8_000_000, 16_000_000]
    X, y = make_matches(n_players=1000, n_matches=str_sizes[-1], labels="str",
                        random_state=0)
    views = {n: (X[:n], y[:n]) for n in str_sizes}
    curve("EloRanker online fit, str labels", "matches", str_sizes,
          fit(EloRanker(), views), repeat)


def uncertainty_curves(quick, repeat):
    from sklearn_eval.datasets import make_matches
    from sklearn_eval.pairwise import EloRanker, bootstrap_bradley_terry
    from sklearn_eval.uncertainty import ranking_intervals

    sizes = [12_500, 25_000, 50_000, 100_000] if quick else [
        25_000, 50_000, 100_000, 200_000, 400_000]

    def boot(n):
        X, y = make_matches(n_players=100, n_matches=n, random_state=0)
        return lambda: bootstrap_bradley_terry(
            EloRanker(method="batch"), X, y, n_resamples=100, random_state=0,
            n_jobs=1)

    curve("BT bootstrap, 100 resamples, 100 players", "matches", sizes, boot,
          repeat)
    players = [25, 50, 100, 200] if quick else [25, 50, 100, 200, 400]

    def boot_players(n):
        X, y = make_matches(n_players=n, n_matches=100_000, random_state=0)
        return lambda: bootstrap_bradley_terry(
            EloRanker(method="batch"), X, y, n_resamples=50, random_state=0,
            n_jobs=1)

    curve("BT bootstrap, 50 resamples, 100k matches", "players", players,
          boot_players, repeat)

    def sandwich(n):
        X, y = make_matches(n_players=n, n_matches=50 * n, random_state=0)
        return lambda: ranking_intervals(EloRanker(method="batch"), X, y,
                                         method="analytic", random_state=0)

    curve("BT sandwich intervals, 50 matches/player", "players", players,
          sandwich, repeat)


def bootstrap_target(repeat=1):
    """1000 bootstrap BT refits, 100k matches, 100 players, n_jobs=2 (<= 15 s)."""
    from sklearn_eval.datasets import make_matches
    from sklearn_eval.pairwise import EloRanker, bootstrap_bradley_terry

    X, y = make_matches(n_players=100, n_matches=100_000, random_state=0)

    def run():
        return bootstrap_bradley_terry(EloRanker(method="batch"), X, y,
                                       n_resamples=1000, random_state=0, n_jobs=2)

    run()  # start the joblib workers once, as a session would
    best = np.inf
    cpu = np.inf
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        res = run()
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    width = float(np.median(res.high - res.low))
    verdict = "OK" if best <= 15.0 else "MISSED"
    anchor = _evalica_bootstrap_time(X, y)
    anchor_text = "" if anchor is None else (
        f", anchor evalica.bootstrap(bradley_terry, percentile) {anchor:.1f} s "
        "(1 process, extrapolated from 100 resamples)"
    )
    print(f"TARGET bootstrap BT 1000 refits 100k matches 100 players n_jobs=2: "
          f"ours {best:.2f} s (parent cpu {cpu:.2f} s), median 95% width "
          f"{width:.1f} Elo  [{verdict}, target 15 s]{anchor_text}", flush=True)
    return best


def _evalica_bootstrap_time(X, y, n_resamples=100):
    """Time of evalica's percentile bootstrap of Bradley-Terry, per 1000 resamples.

    Only when evalica is installed (the pairwise anchor environment).
    """
    try:
        import evalica
    except ImportError:
        return None
    winners = list(np.where(y == 1.0, evalica.Winner.X, evalica.Winner.Y))
    first, second = [str(v) for v in X[:, 0]], [str(v) for v in X[:, 1]]
    start = time.perf_counter()
    evalica.bootstrap(evalica.bradley_terry, first, second, winners,
                      n_resamples=n_resamples, bootstrap_method="percentile",
                      random_state=0)
    return (time.perf_counter() - start) * 1000 / n_resamples


def game_curves(quick, repeat):
    from sklearn_eval.datasets import make_cyclic_game
    from sklearn_eval.game import NashAverager

    rng = np.random.default_rng(0)
    sizes = [100, 200, 400, 800] if quick else [100, 200, 400, 800, 1600]

    def avt(n):
        S = rng.uniform(size=(n, n))
        return lambda: NashAverager(normalize="minmax").fit(S)

    def ava(n):
        A = make_cyclic_game(n, transitive_scale=0.1, cyclic_rank=n // 2 - 1,
                             random_state=0)
        return lambda: NashAverager(game="agent_vs_agent").fit(A)

    curve("NashAverager agent vs task (n x n)", "n", sizes, avt, repeat)
    curve("NashAverager agent vs agent, strongly cyclic", "n", sizes[:4], ava,
          repeat)


def irt_curves(quick, repeat):
    from sklearn_eval.datasets import make_irt_responses
    from sklearn_eval.irt import IRT2PL

    agents = [1000, 2000, 4000, 8000] if quick else [2000, 4000, 8000, 16000,
                                                     32000]

    def fit(n):
        X = make_irt_responses(n, 100, random_state=0)

        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return int(IRT2PL().fit(X).n_iter_)

        return run

    curve("IRT2PL fit, 100 items, time per E-step", "agents", agents, fit,
          max(1, repeat - 1))


def generality_curves(quick, repeat):
    from sklearn_eval.irt import GeneralityScorer

    sizes = [1000, 2000, 4000, 8000] if quick else [1000, 2000, 4000, 8000, 16000]
    rng = np.random.default_rng(0)

    def transform(n):
        difficulty = rng.normal(size=1000)
        X = (rng.random((n, 1000)) < 0.5).astype(float)
        scorer = GeneralityScorer(difficulty=difficulty, bins=10).fit(X)
        return lambda: scorer.transform(X)

    curve("GeneralityScorer.transform, 1000 tasks", "agents", sizes, transform,
          repeat)


def selection_curves(quick, repeat):
    from sklearn_eval.selection import InfoGainSelector

    sizes = [50, 100, 200, 400] if quick else [50, 100, 200, 400, 800]
    rng = np.random.default_rng(0)

    def select(n):
        means = rng.normal(size=(n, 200))
        stds = rng.uniform(0.2, 1.0, size=(n, 200))
        selector = InfoGainSelector(n_tasks=10, input="agents")
        return lambda: selector.fit(means, X_std=stds)

    curve("InfoGainSelector, 200 tasks, pick 10", "agents", sizes, select, repeat)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--family", action="append", choices=FAMILIES,
                        help="only these families (repeatable)")
    parser.add_argument("--target-only", action="store_true",
                        help="only the 1000-refit bootstrap target")
    args = parser.parse_args(argv)
    if args.target_only:
        bootstrap_target(args.repeat)
        return 0
    runners = {
        "pairwise": pairwise_curves,
        "uncertainty": uncertainty_curves,
        "game": game_curves,
        "irt": irt_curves,
        "generality": generality_curves,
        "selection": selection_curves,
    }
    for family in args.family or FAMILIES:
        print(f"== {family} ==", flush=True)
        runners[family](args.quick, args.repeat)
    if not args.family or "uncertainty" in args.family:
        bootstrap_target(args.repeat)
    print_exponents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
