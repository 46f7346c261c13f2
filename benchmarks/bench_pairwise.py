"""Speed of EloRanker and MultiElo against evalica (Rust core) on 1M matches.

What it measures (median of ``--repeat`` runs, wall-clock seconds), on
``--n-matches`` seeded Bradley-Terry matches among ``--n-players``
string-labelled players given as a pandas DataFrame (label coding is
included in every timing, ours and evalica's):

1. online ``EloRanker.fit`` against ``evalica.elo`` (same K), target ratio
   <= 0.5;
2. batch ``EloRanker(method="batch").fit`` against
   ``evalica.bradley_terry``, target ratio <= 0.5, with the Spearman
   correlation of both to the true strengths (ours must be no worse);
3. the compiled online scan alone on integer-coded players, target
   <= 0.05 s per million matches;
4. ``MultiElo(n_components=1)`` online fit against our online Elo fit,
   target ratio <= 2;
5. ``MultiElo(n_components=1, method="batch")`` against our batch
   Bradley-Terry fit, target ratio <= 5 (the mElo likelihood by L-BFGS with
   the compiled loss and gradient, started from the Bradley-Terry ratings);
6. for information: label coding alone, the pure-Python fallback scan, and
   EloRanker.fit on integer labels.

Setup (once; evalica and numba stay out of the package's dependencies)::

    python3 -m venv /work/bench-venvs/evalica
    /work/bench-venvs/evalica/bin/pip install evalica numba numpy scipy \\
        scikit-learn pandas joblib threadpoolctl

Run from the repository root (the package is taken from the checkout)::

    PYTHONPATH=. /work/bench-venvs/evalica/bin/python benchmarks/bench_pairwise.py

Options: ``--n-matches``, ``--n-players``, ``--repeat``, ``--k-factor``.
The first fit compiles the numba kernels (cached on disk afterwards); a
warm-up fit runs before any timing. The machine may be shared: compare
ratios, and repeat when it is quiet.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning


def best_time(func, repeat):
    """Median wall-clock time of ``repeat`` calls, and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def compare(ours, anchor, repeat):
    """Median times of two callables run alternately (fairer on a busy machine)."""
    times_ours, times_anchor = [], []
    result_ours = result_anchor = None
    for _ in range(repeat):
        start = time.perf_counter()
        result_anchor = anchor()
        times_anchor.append(time.perf_counter() - start)
        start = time.perf_counter()
        result_ours = ours()
        times_ours.append(time.perf_counter() - start)
    return (float(np.median(times_ours)), result_ours,
            float(np.median(times_anchor)), result_anchor)


def spearman(a, b):
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


def report(name, ours, anchor=None, target=None, extra=""):
    line = f"{name:<46} ours {ours:8.3f} s"
    if anchor is not None:
        ratio = ours / anchor
        verdict = ""
        if target is not None:
            verdict = "  OK" if ratio <= target else f"  MISSED (target {target})"
        line += f"   anchor {anchor:8.3f} s   ratio {ratio:6.3f}{verdict}"
    print(line + extra, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-matches", type=int, default=1_000_000)
    parser.add_argument("--n-players", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--k-factor", type=float, default=4.0)
    args = parser.parse_args()

    import evalica
    import pandas as pd

    from sklearn_eval.datasets import make_matches
    from sklearn_eval.pairwise import EloRanker, MultiElo, _kernels
    from sklearn_eval.utils import check_and_encode_matches

    X, y, strengths = make_matches(
        n_players=args.n_players, n_matches=args.n_matches, labels="str",
        random_state=0, return_strengths=True,
    )
    frame = pd.DataFrame(X.astype(object), columns=["first", "second"])
    winners = list(np.where(y == 1.0, evalica.Winner.X, evalica.Winner.Y))
    # Sorted labels follow the strength vector's order (zero-padded names).
    truth = strengths
    labels = np.sort(np.unique(X[:, 0].tolist() + X[:, 1].tolist()))
    print(
        f"{args.n_matches:,} matches, {len(labels):,} string-labelled players, "
        f"K = {args.k_factor}, best of {args.repeat}; numba: {_kernels.HAVE_NUMBA}",
        flush=True,
    )
    EloRanker().fit(X[:100], y[:100])  # compile / load the kernels
    MultiElo().fit(X[:100], y[:100])

    def evalica_scores(result):
        return result.scores.reindex(labels).to_numpy()

    # 1. online Elo
    t_us, est, t_ev, res = compare(
        lambda: EloRanker(k_factor=args.k_factor).fit(frame, y),
        lambda: evalica.elo(frame["first"], frame["second"], winners,
                            k=args.k_factor),
        args.repeat,
    )
    rho_ev = spearman(evalica_scores(res), truth)
    rho_us = spearman(est.ratings_, truth)
    report("online Elo fit vs evalica.elo", t_us, t_ev, 0.5,
           f"   rho ours {rho_us:.4f} evalica {rho_ev:.4f}")

    # 2. batch Bradley-Terry
    t_us, est, t_ev, res = compare(
        lambda: EloRanker(method="batch").fit(frame, y),
        lambda: evalica.bradley_terry(frame["first"], frame["second"], winners),
        args.repeat,
    )
    rho_ev = spearman(evalica_scores(res), truth)
    rho_us = spearman(est.ratings_, truth)
    verdict = "OK" if rho_us >= rho_ev - 1e-12 else "WORSE"
    report("batch fit vs evalica.bradley_terry", t_us, t_ev, 0.5,
           f"   rho ours {rho_us:.4f} evalica {rho_ev:.4f} ({verdict}),"
           f" {est.n_iter_} Newton iterations")

    # 3. the compiled scan alone on integer codes
    _, first, second = check_and_encode_matches(frame, y, None)[1:]
    weight = np.ones(len(y))

    def scan():
        ratings = np.zeros(len(labels))
        _kernels.elo_scan(first, second, y, weight, ratings, 0.023, 0.0,
                          _kernels.no_history())
        return ratings

    t_scan, _ = best_time(scan, args.repeat)
    per_million = t_scan * 1e6 / args.n_matches
    print(f"{'online scan on integer codes':<46} ours {t_scan:8.3f} s   "
          f"{per_million:.4f} s per million matches "
          f"({'OK' if per_million <= 0.05 else 'MISSED'}, target 0.05)", flush=True)

    # 4. MultiElo online against our online Elo
    t_melo, _, t_online, _ = compare(
        lambda: MultiElo(1, random_state=0).fit(frame, y),
        lambda: EloRanker(k_factor=args.k_factor).fit(frame, y),
        args.repeat,
    )
    report("MultiElo(1) online fit vs our online Elo fit", t_melo, t_online, 2.0)
    vectors = 0.1 * np.random.RandomState(0).standard_normal((len(labels), 2))

    def melo_scan():
        ratings = np.zeros(len(labels))
        _kernels.melo_scan(first, second, y, weight, ratings, vectors.copy(), 0.023,
                           0.1, 0.0, _kernels.no_history())

    t_melo_scan, _ = best_time(melo_scan, args.repeat)
    report("  (for information, kernels only: mElo vs Elo)", t_melo_scan, t_scan)

    # 5. MultiElo batch against our batch Bradley-Terry
    def melo_batch():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return MultiElo(1, method="batch", random_state=0).fit(frame, y)

    t_melo_batch, melo, t_bt, _ = compare(
        melo_batch, lambda: EloRanker(method="batch").fit(frame, y), args.repeat
    )
    report("MultiElo(1) batch fit vs our batch BT fit", t_melo_batch, t_bt, 5.0,
           f"   {melo.n_iter_} L-BFGS iterations, compiled loss: "
           f"{_kernels.HAVE_NUMBA}")

    # 6. information
    t_codes, _ = best_time(lambda: check_and_encode_matches(frame, y, None),
                           args.repeat)
    report("label checks + coding (DataFrame of str)", t_codes)
    t_codes_u, _ = best_time(lambda: check_and_encode_matches(X, y, None),
                             args.repeat)
    report("label checks + coding (numpy unicode array)", t_codes_u)
    X_int = np.column_stack([first, second])
    t_int, _ = best_time(lambda: EloRanker(k_factor=args.k_factor).fit(X_int, y),
                         args.repeat)
    report("online Elo fit, integer labels", t_int)
    t_int_batch, _ = best_time(lambda: EloRanker(method="batch").fit(X_int, y),
                               args.repeat)
    report("batch fit, integer labels", t_int_batch)
    n_slow = min(args.n_matches, 200_000)

    def python_scan():
        ratings = np.zeros(len(labels))
        _kernels.elo_scan_python(first[:n_slow], second[:n_slow], y[:n_slow],
                                 weight[:n_slow], ratings, 0.023, 0.0,
                                 _kernels.no_history())

    t_py, _ = best_time(python_scan, 1)
    report("pure-Python fallback scan, per million", t_py * 1e6 / n_slow)


if __name__ == "__main__":
    main()
