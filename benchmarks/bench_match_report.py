"""Speed of the match report on a league of about 1,900 football matches.

Setup: the development environment (the package installed, matplotlib for
the figures). The data: the last 1,900 matches between the 30 national
teams with the most matches since 1990, from
:func:`sklearn_eval.datasets.load_international_football` (draws, home
advantage, about four matches per pair), written to a temporary CSV.

Run::

    python benchmarks/bench_match_report.py            # best of 3
    python benchmarks/bench_match_report.py --repeat 1

It prints the time of each phase of ``sklearn-eval report`` run in-process:
reading the file, the analyses (:func:`~sklearn_eval.report.analyze_matches`)
and writing the HTML with its figures
(:func:`~sklearn_eval.report.write_report`); the target is at most 8 s in
all on a 2-core machine (the interpreter's start-up and imports excluded:
``python -X importtime`` measures those).
"""

import argparse
import os
import tempfile
import time

import numpy as np


def league_file(directory, n_teams=30, n_matches=1900):
    """Write the league CSV; return its path."""
    from sklearn_eval.datasets import load_international_football

    frame = load_international_football(as_frame=True).frame
    frame = frame[frame.date >= "1990-01-01"]
    import pandas as pd

    counts = pd.concat([frame.home_team, frame.away_team]).value_counts()
    teams = set(counts.index[:n_teams])
    frame = frame[frame.home_team.isin(teams) & frame.away_team.isin(teams)]
    frame = frame.tail(n_matches)
    out = pd.DataFrame(
        {
            "home": frame.home_team,
            "away": frame.away_team,
            "outcome": np.where(
                frame.y == 1, "win", np.where(frame.y == 0, "loss", "draw")
            ),
            "home_ground": (~frame.neutral).astype(int),
        }
    )
    path = os.path.join(directory, "league.csv")
    out.to_csv(path, index=False)
    return path


def run_once(path, output):
    from sklearn_eval.report import (
        analyze_matches,
        prepare_matches,
        read_matches,
        write_report,
    )

    times = {}
    start = time.perf_counter()
    table = read_matches(path, first_col="home", second_col="away")
    times["read"] = time.perf_counter() - start
    start = time.perf_counter()
    analysis = analyze_matches(
        prepare_matches(table.X, table.y, name="league"), n_resamples=100
    )
    times["analyses"] = time.perf_counter() - start
    start = time.perf_counter()
    write_report(analysis, output)
    times["html and figures"] = time.perf_counter() - start
    times["total"] = sum(times.values())
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = league_file(directory)
        runs = [
            run_once(path, os.path.join(directory, "report.html"))
            for _ in range(args.repeat)
        ]
    for key in runs[0]:
        best = min(run[key] for run in runs)
        print(f"{key:>18}: {best:6.2f} s (best of {len(runs)})")
    print("target: total <= 8 s")


if __name__ == "__main__":
    main()
