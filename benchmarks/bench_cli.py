"""Speed of the command line: CSV reading, ``rank`` end to end, the Atari report.

Setup: none beyond the development environment (numpy, scikit-learn, pandas,
matplotlib, the package installed in editable mode), e.g. ``/work/venv``.
pandas is the anchor for CSV parsing. The CLI parses every file with pandas
(its C parser for files quoted as the standard says, its Python parser with a
strict dialect otherwise) and checks the columns with numpy.

Run (on a quiet machine; timings are the best of ``--repeat`` runs)::

    python benchmarks/bench_cli.py                 # 1M matches, 3 repeats
    python benchmarks/bench_cli.py --n-matches 200000 --repeat 1

It prints, for each case, our time, the anchor's time and their ratio:

* ``read_matches`` against ``pandas.read_csv`` on the same file (parsing
  only; ours also validates every row: outcomes, empty labels, self-play);
* ``sklearn-eval rank --method elo`` (read + validate + online Elo + table)
  against ``pandas.read_csv`` + ``EloRanker().fit`` (the same fit);
* ``sklearn-eval demo`` (the full Atari report, 100 bootstrap resamples and
  all figures; the target is well under 60 s on a 2-core machine), with no
  anchor.
"""

import argparse
import io
import os
import tempfile
import time

import numpy as np


def best_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def write_matches(path, n_matches, n_players=1000, seed=0):
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=n_players)
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    p = 1.0 / (1.0 + np.exp(-(strength[first] - strength[second])))
    outcome = (rng.random(n_matches) < p).astype(int)
    with open(path, "w") as handle:
        handle.write("first,second,outcome\n")
        handle.write(
            "\n".join(
                f"player{a},player{b},{o}"
                for a, b, o in zip(first, second, outcome, strict=True)
            )
        )
        handle.write("\n")


def report(name, ours, anchor):
    if anchor is None:
        print(f"{name:<44} ours {ours:8.2f} s")
    else:
        print(
            f"{name:<44} ours {ours:8.2f} s   anchor {anchor:8.2f} s   "
            f"ratio {ours / anchor:6.2f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-matches", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-demo", action="store_true")
    args = parser.parse_args()

    import pandas as pd

    from sklearn_eval.cli import main as cli
    from sklearn_eval.pairwise import EloRanker
    from sklearn_eval.report import read_matches

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "matches.csv")
        write_matches(path, args.n_matches)
        print(f"{args.n_matches} matches, 1000 players, best of {args.repeat}")

        ours = best_time(lambda: read_matches(path), args.repeat)
        anchor = best_time(lambda: pd.read_csv(path), args.repeat)
        report("read_matches vs pandas.read_csv", ours, anchor)

        def pandas_elo():
            frame = pd.read_csv(path)
            X = frame[["first", "second"]].to_numpy()
            EloRanker().fit(X, frame["outcome"].to_numpy(dtype=float))

        def cli_rank():
            cli(["rank", path, "--method", "elo", "--quiet"], out=io.StringIO())

        ours = best_time(cli_rank, args.repeat)
        anchor = best_time(pandas_elo, args.repeat)
        report("rank --method elo vs pandas + EloRanker", ours, anchor)

        if not args.skip_demo:
            output = os.path.join(directory, "report.html")
            ours = best_time(
                lambda: cli(["demo", "-o", output, "--quiet"], out=io.StringIO()),
                1,
            )
            report("demo (Atari report, 100 resamples, figures)", ours, None)


if __name__ == "__main__":
    main()
