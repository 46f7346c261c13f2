"""Speed of ``sklearn-eval report`` on a league of about 1,900 football matches.

Setup: the development environment (the package installed, matplotlib for
the figures). The data: the last 1,900 matches between the 30 national
teams with the most matches since 1990, from
:func:`sklearn_eval.datasets.load_international_football` (draws, home
advantage, about four matches per pair), written to a temporary CSV (or
``--file``, a match file with ``home`` and ``away`` columns).

Run::

    python benchmarks/bench_match_report.py            # best of 3
    python benchmarks/bench_match_report.py --repeat 1

Each repeat runs the command in a fresh interpreter, as a user does, through
the console script's own entry point (``sklearn_eval.cli.main``), and
times everything it runs from the process start:

* ``start-up``: the interpreter, up to the first line of this script, and
  its exit;
* ``imports``: from there to the start of the match report
  (``sklearn_eval.cli._report.run_matches``): the parser and its command
  modules, parsing the arguments, and detecting the file's format, which
  imports the report package;
* the command's phases as it runs them: reading the file, the advice (the
  held-out comparison of the rating models), the analyses, and the report,
  split into its figures (drawing and PNG encoding) and the rest of the
  page (and the summary lines); modules imported lazily by a phase count in
  that phase;
* ``in-process``: the sum of the command's phases, and ``end to end``: the
  whole child process (the sum of all the rows above).

Each phase is given in wall time and in CPU time (``time.process_time``,
which a busy shared machine inflates less; ``end to end`` CPU from
``getrusage``).

Target (the README install, a quiet 2-core machine): the command in at
most 8 s end to end, i.e. the phases in about 8 s minus the import time.
"""

import time

# the process start, as near as this script can see it (nothing imported yet)
_START = time.perf_counter(), time.process_time()

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

PHASES = (
    "start-up", "imports", "read", "advice", "analyses", "figures", "page",
    "in-process",
)


def league_file(directory, n_teams=30, n_matches=1900):
    """Write the league CSV; return its path."""
    import numpy as np
    import pandas as pd

    from sklearn_eval.datasets import load_international_football

    frame = load_international_football(as_frame=True).frame
    frame = frame[frame.date >= "1990-01-01"]
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


class _Clock:
    """Wall and CPU seconds per phase."""

    def __init__(self):
        self.wall, self.cpu = {}, {}

    @contextlib.contextmanager
    def __call__(self, name):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - wall
            self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu

    def wrap(self, module, name, phase):
        """Time every call of ``module.name`` as ``phase``."""
        function = getattr(module, name)

        def timed(*args, **kwargs):
            with self(phase):
                return function(*args, **kwargs)

        setattr(module, name, timed)


def child(path, output):
    """One run of the command in this (fresh) interpreter; JSON on stdout.

    The command runs through ``sklearn_eval.cli.main``, as the console script
    does; only the match report's entry is wrapped, to start the phase clock.
    """
    clock = _Clock()
    from sklearn_eval.cli import _report, main

    run_matches = _report.run_matches

    def timed_run(args, out, phase=None):
        for times, start, now in (
            (clock.wall, _START[0], time.perf_counter()),
            (clock.cpu, _START[1], time.process_time()),
        ):
            times["imports"] = now - start
        from sklearn_eval.report import _html

        clock.wrap(_html, "draw_figure", "figures")
        clock.wrap(_html, "to_png_base64", "figures")
        with clock("command"):
            return run_matches(args, out, phase=clock)

    _report.run_matches = timed_run
    with open(os.devnull, "w") as out:
        status = main(
            ["report", path, "--first-col", "home", "--second-col", "away",
             "-o", output, "--quiet"],
            out=out,
        )
    for times in (clock.wall, clock.cpu):
        # "command" holds every phase: the page is the rest of the report
        # and the summary lines printed after it
        times.pop("report")
        times["page"] = times.pop("command") - sum(
            times[k] for k in ("read", "advice", "analyses", "figures")
        )
        times["in-process"] = sum(
            times[k] for k in ("read", "advice", "analyses", "figures", "page")
        )
    json.dump({"status": status, "wall": clock.wall, "cpu": clock.cpu}, sys.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--file", help="a match file (home, away, outcome)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory() as directory:
        path = args.file or league_file(directory)
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(
                [sys.executable, __file__, "--child", path,
                 os.path.join(directory, "report.html")],
                check=True, capture_output=True, text=True,
            )
            run = json.loads(done.stdout)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            total = {
                "wall": time.perf_counter() - start,
                "cpu": after.ru_utime + after.ru_stime
                - before.ru_utime - before.ru_stime,
            }
            for clock in ("wall", "cpu"):
                times = run[clock]
                times["end to end"] = total[clock]
                times["start-up"] = total[clock] - times["imports"] - times[
                    "in-process"
                ]
            runs.append(run)
    print(f"{'phase':>12}  {'wall (s)':>9}  {'CPU (s)':>8}   best of {len(runs)}")
    for key in (*PHASES, "end to end"):
        wall = min(run["wall"][key] for run in runs)
        cpu = min(run["cpu"][key] for run in runs)
        print(f"{key:>12}  {wall:9.2f}  {cpu:8.2f}")
    print("target: end to end <= 8 s (each row is its best run; end to end is "
          "the best whole run)")


if __name__ == "__main__":
    main()
