"""Label coding and online Elo at scale: linear growth to 16M matches.

What it measures (medians of ``--repeat`` runs; sizes are run round-robin so
that a change of machine load hits every size alike; every input is measured
in its own process, so that one input's memory does not slow another's
allocations):

1. the growth exponent ``k`` of ``time ~ matches ** k`` of an online
   ``EloRanker.fit`` on string labels from 1M to 16M matches (target
   ``k <= 1.05`` on CPU time, which a busy machine disturbs least; wall time
   printed too), for three string inputs: a numpy unicode array, a
   DataFrame whose cells share one str object per player (as ``read_csv``
   gives) and a DataFrame with one str object per cell (the worst case);
   the compiled scan alone on integer codes for reference;
2. the fit at 1M matches against ``evalica.elo`` on the same DataFrames
   (target ratio <= 0.2), when evalica is installed;
3. the step breakdown of the label coding (``check_and_encode_matches``) at
   the smallest and largest size for strings, integers and categoricals.

Setup: evalica in its own environment (it never becomes a dependency)::

    python3 -m venv /work/bench-venvs/evalica
    /work/bench-venvs/evalica/bin/pip install evalica numba numpy scipy \\
        scikit-learn pandas joblib threadpoolctl

Run from the repository root (the package is taken from the checkout)::

    PYTHONPATH=. /work/bench-venvs/evalica/bin/python benchmarks/bench_labels.py
    PYTHONPATH=. /work/venv/bin/python benchmarks/bench_labels.py --quick

Needs about 5 GB of memory at 16M matches (the one-object-per-cell
DataFrame is about 3 GB). The machine may be shared: read exponents
and ratios, not seconds.
"""

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np


def growth_exponent(sizes, times):
    """Least-squares slope of log(time) against log(size)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def round_robin(runs, sizes, repeat):
    """Median wall and CPU time of every ``runs[name](size)``, sizes interleaved.

    CPU time (user + system, page faults included) does not count the time
    the process waits for a core, so on a shared machine its growth exponent
    is the steadier one.
    """
    wall = {(name, n): [] for name in runs for n in sizes}
    cpu = {(name, n): [] for name in runs for n in sizes}
    for _ in range(repeat):
        for n in sizes:
            for name, run in runs.items():
                gc.collect()
                start, start_cpu = time.perf_counter(), time.process_time()
                run(n)
                wall[name, n].append(time.perf_counter() - start)
                cpu[name, n].append(time.process_time() - start_cpu)
    return ({key: float(np.median(v)) for key, v in wall.items()},
            {key: float(np.median(v)) for key, v in cpu.items()})


STRING_INPUTS = ("numpy unicode array", "DataFrame, one str object per player",
                 "DataFrame, one str object per cell")
OTHER_INPUTS = ("int64 array", "DataFrame of two categoricals")


def build_input(name, X, codes):
    """One container of the matches (``codes``: the same matches as integers)."""
    import pandas as pd

    if name == "numpy unicode array":
        return X
    if name == "DataFrame, one str object per player":
        where = np.zeros(int(codes.max()) + 1, dtype=np.int64)
        where[codes.ravel()] = np.arange(codes.size)  # a cell of every player
        shared = X.ravel()[where].astype(object)  # one str object per player
        return pd.DataFrame({"first": shared[codes[:, 0]],
                             "second": shared[codes[:, 1]]})
    if name == "DataFrame, one str object per cell":
        return pd.DataFrame(X.astype(object), columns=["first", "second"])
    if name == "int64 array":
        return codes
    if name == "DataFrame of two categoricals":
        return pd.DataFrame({"first": pd.Categorical(X[:, 0]),
                             "second": pd.Categorical(X[:, 1])})
    raise ValueError(name)


def head(data, n):
    return data.iloc[:n] if hasattr(data, "iloc") else data[:n]


def fit_scaling(name, data, y, sizes, repeat, k_factor):
    """Print the growth line of one input (its own process: see ``main``)."""
    from sklearn_eval.pairwise import EloRanker, _kernels

    if name == "compiled scan alone (integer codes)":
        def run(n):
            ratings = np.zeros(int(data.max()) + 1)
            _kernels.elo_scan(data[:n, 0], data[:n, 1], y[:n], np.ones(n), ratings,
                              k_factor / 173.72, 0.0, _kernels.no_history())
    else:
        def run(n):
            EloRanker(k_factor=k_factor).fit(head(data, n), y[:n])

    wall, cpu = round_robin({name: run}, sizes, repeat)
    for clock, times in (("cpu", cpu), ("wall", wall)):
        curve = [times[name, n] for n in sizes]
        k = growth_exponent(sizes, curve)
        ends = np.log(curve[-1] / curve[0]) / np.log(sizes[-1] / sizes[0])
        target = "" if name.startswith("compiled") or clock == "wall" else (
            "  OK" if k <= 1.05 else "  MISSED") + " (target 1.05)"
        points = "  ".join(f"{n / 1e6:g}M {t:.3f}s" for n, t in zip(sizes, curve,
                                                                   strict=True))
        print(f"   {name:<40} {clock:>4} {points}   exponent {k:.3f} (end points "
              f"{ends:.3f}){target}", flush=True)


def evalica_ratio(X, codes, y, n, repeat, k_factor):
    try:
        import evalica
    except ImportError:
        print("\n2. evalica is not installed here: no anchor ratio "
              "(run with /work/bench-venvs/evalica/bin/python)")
        return
    from sklearn_eval.pairwise import EloRanker

    winners = list(np.where(y[:n] == 1.0, evalica.Winner.X, evalica.Winner.Y))
    print(f"\n2. online Elo at {n:,} matches against evalica.elo (K={k_factor}, "
          f"median of {repeat}, alternating)")
    for name in STRING_INPUTS[1:]:
        frame = build_input(name, X[:n], codes[:n])
        ours, anchor = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            evalica.elo(frame["first"], frame["second"], winners, k=k_factor)
            anchor.append(time.perf_counter() - start)
            start = time.perf_counter()
            EloRanker(k_factor=k_factor).fit(frame, y[:n])
            ours.append(time.perf_counter() - start)
        ratio = np.median(ours) / np.median(anchor)
        print(f"   {name:<40} ours {np.median(ours):.3f} s   evalica "
              f"{np.median(anchor):.3f} s   ratio {ratio:.3f}  "
              f"{'OK' if ratio <= 0.2 else 'MISSED'} (target 0.2)", flush=True)


def _code_one(values, categorical, split, step):
    """The coding of one column, timing its steps."""
    from sklearn_eval.utils import _coding, _label_kernels

    if categorical:
        return step("categoricals: used category codes", _coding._code_categorical,
                    values)
    if values.dtype.kind != "O":
        return step("fixed width: exact hash coding", _coding._code_column, values,
                    split)
    addresses = step("objects: addresses, sample", _coding._object_addresses, values)
    if not _coding._mostly_shared(addresses):
        return step("objects: by value (pandas.factorize)",
                    _coding._factorize_values, values)
    codes, first_row = step("objects: identity coding (compiled hash)",
                            _label_kernels.code_keys, addresses[:, None], split)
    by_value = step("objects: distinct objects by value",
                    _coding._factorize_values, values[first_row])
    return _coding._Coded(codes, by_value.labels, by_value.codes, split)


def _code_steps(data, y, step):
    """One run of the label coding of ``data``, step by step."""
    from sklearn_eval.utils import _coding
    from sklearn_eval.utils._labels import _label_columns
    from sklearn_eval.utils._validation import check_outcomes

    columns, interleaved = _label_columns(data)
    cats = [_coding._is_categorical(c) for c in columns]
    arrays = [c if cat else _coding._column_values(c)
              for c, cat in zip(columns, cats, strict=True)]
    bounds = None if any(cats) else _coding._table_bounds(arrays)
    if bounds is not None:
        players, position = step("integers: offset table", _coding._offset_table,
                                 arrays, *bounds)
        first, second = step(
            "final positions (gathers)", _coding._gather, position, arrays,
            interleaved, lambda v: _coding._shift(v, bounds[0]))
    else:
        split = 2 if interleaved else 1
        coded = [_code_one(values, cat, split, step)
                 for values, cat in zip(arrays, cats, strict=True)]
        players, lookups = step("merge + sort the distinct labels", _coding._merge,
                                coded)

        def positions():
            return [p for c, lk in zip(coded, lookups, strict=True)
                    for p in _coding._positions(c, lk, interleaved)]

        first, second = step("final positions (in place or gathers)", positions)
    step("checks: missing, self-play",
         lambda: (min(first.min(), second.min()) < 0, (first == second).any()))
    step("outcomes and weights", check_outcomes, y, None, y.shape[0])


def coding_steps(data, y, repeat):
    """Median time of each step of the label coding of ``data``."""
    from sklearn_eval.utils import check_and_encode_matches

    steps = {}

    def step(name, func, *args):
        gc.collect()
        start = time.perf_counter()
        out = func(*args)
        steps.setdefault(name, []).append(time.perf_counter() - start)
        return out

    for _ in range(repeat):
        step("total (check_and_encode_matches)", check_and_encode_matches, data, y,
             None)
        _code_steps(data, y, step)
    return {name: float(np.median(v)) for name, v in steps.items()}


def print_steps(title, data, y, repeat):
    steps = coding_steps(data, y, repeat)
    total = steps.pop("total (check_and_encode_matches)")
    print(f"   {title}: {total:.3f} s")
    for step_name, t in steps.items():
        print(f"      {step_name:<44} {t:7.3f} s  {100 * t / total:4.0f}%", flush=True)


def load(path, n):
    data = np.load(path)
    return data["X"][:n], data["codes"][:n], data["y"][:n]


def child(args):
    """One measurement in this process, on the matches saved by the parent."""
    X, codes, y = load(args.data, args.size)
    if args.part == "fit":
        data = codes if args.input.startswith("compiled") else build_input(
            args.input, X, codes)
        del X
        fit_scaling(args.input, data, y, args.sizes, args.repeat, args.k_factor)
    elif args.part == "evalica":
        evalica_ratio(X, codes, y, args.size, args.repeat, args.k_factor)
    else:
        data = build_input(args.input, X, codes)
        del X
        print_steps(f"{args.size:,} matches, {args.input}", data, y, args.repeat)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="125k to 2M matches instead of 1M to 16M")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n-players", type=int, default=1000)
    parser.add_argument("--k-factor", type=float, default=4.0)
    parser.add_argument("--skip-steps", action="store_true",
                        help="skip the coding step breakdown")
    # internal: one measurement per process
    for name in ("--part", "--input", "--data"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--sizes", type=int, nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.part:
        warnings.simplefilter("ignore")
        from sklearn_eval.pairwise import EloRanker

        EloRanker().fit([["a", "b"]], [1])  # compile / load the kernels
        return child(args)
    from sklearn_eval.datasets import make_matches
    from sklearn_eval.pairwise import _kernels

    sizes = ([125_000, 250_000, 500_000, 1_000_000, 2_000_000] if args.quick else
             [1_000_000, 2_000_000, 4_000_000, 8_000_000, 16_000_000])
    X, y = make_matches(n_players=args.n_players, n_matches=sizes[-1],
                        labels="str", random_state=0)
    # The same matches with integer labels (the strings are zero-padded
    # numbers, so both sort alike).
    codes, _ = make_matches(n_players=args.n_players, n_matches=sizes[-1],
                            labels="int", random_state=0)
    print(f"up to {sizes[-1]:,} matches among {args.n_players:,} string-labelled "
          f"players; numba: {_kernels.HAVE_NUMBA}; every input is measured in "
          "its own process", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "matches.npz")
        np.savez(path, X=X, codes=codes, y=y)
        del X, codes, y

        def run(*extra):
            subprocess.run(
                [sys.executable, __file__, "--data", path, "--repeat",
                 str(args.repeat), "--k-factor", str(args.k_factor), *extra],
                check=True,
            )

        print(f"\n1. online EloRanker.fit, growth exponent from {sizes[0]:,} to "
              f"{sizes[-1]:,} matches (median of {args.repeat}, sizes "
              "interleaved; CPU and wall time)", flush=True)
        for name in (*STRING_INPUTS, "compiled scan alone (integer codes)"):
            run("--part", "fit", "--input", name, "--size", str(sizes[-1]),
                "--sizes", *map(str, sizes))
        run("--part", "evalica", "--size", str(sizes[0] if args.quick else 1_000_000))
        if not args.skip_steps:
            print(f"\n3. label coding steps (median of {args.repeat})", flush=True)
            for n in (sizes[0], sizes[-1]):
                for name in (*STRING_INPUTS, *OTHER_INPUTS):
                    run("--part", "steps", "--input", name, "--size", str(n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
