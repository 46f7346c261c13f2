"""Shared helpers of the command line tests: run the CLI, write and read CSV."""

import csv
import io
import warnings

import numpy as np

from sklearn_eval.cli import main

RESULT_COMMANDS = ("nash", "irt", "generality", "select", "report")
MATCH_COMMANDS = ("rank", "nash-matches", "report-matches")
ALL_INPUT_COMMANDS = RESULT_COMMANDS + MATCH_COMMANDS


def run(argv, capsys):
    """Run the CLI in process; return (exit code, stdout text, stderr text)."""
    out = io.StringIO()
    code = main([str(arg) for arg in argv], out=out)
    return code, out.getvalue(), capsys.readouterr().err


def command_argv(command, path, tmp_path):
    """Arguments running ``command`` on ``path`` quietly and quickly."""
    if command == "nash-matches":
        return ["nash", path, "--input", "matches", "-q"]
    if command == "report-matches":
        return [
            "report",
            path,
            "--format",
            "matches",
            "-q",
            "-o",
            tmp_path / "r.html",
            "--no-figures",
            "--n-resamples",
            "0",
        ]
    argv = [command, path, "-q"]
    if command == "report":
        argv += ["-o", tmp_path / "r.html", "--no-figures", "--n-resamples", "0"]
    return argv


def write_rows(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


def read_table(path):
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def write_wide(path, values, agents=None, tasks=None, agent_header="agent"):
    n, m = values.shape
    agents = agents or [f"agent{i}" for i in range(n)]
    tasks = tasks or [f"task{j}" for j in range(m)]
    rows = [
        [agents[i]] + ["" if np.isnan(v) else repr(float(v)) for v in values[i]]
        for i in range(n)
    ]
    return write_rows(path, [agent_header, *tasks], rows)


def write_long(
    path, values, *, columns=("agent", "task", "score"), agents=None, tasks=None
):
    n, m = values.shape
    agents = agents or [f"agent{i}" for i in range(n)]
    tasks = tasks or [f"task{j}" for j in range(m)]
    rows = [
        [agents[i], tasks[j], repr(float(values[i, j]))]
        for i in range(n)
        for j in range(m)
        if not np.isnan(values[i, j])
    ]
    return write_rows(path, columns, rows)


def write_matches(path, X, y, *, header=("first", "second", "outcome")):
    rows = [[a, b, repr(float(o))] for (a, b), o in zip(X, y, strict=True)]
    return write_rows(path, header, rows)


def assert_one_error_line(err, command, code, expected_code=2):
    """One line on stderr, the command's error prefix, no traceback."""
    assert code == expected_code, err
    assert err.count("\n") == 1, err
    assert err.startswith(f"sklearn-eval {command}: error: "), err
    assert "Traceback" not in err


def run_irt_and_fit(wide, tmp_path, capsys, argv, make, X):
    """Run ``irt`` on ``wide`` with ``argv`` and fit ``make()`` on ``X``.

    Returns the command's output, the path of its task table and the fitted
    estimator (its warnings silenced, as the command's are with ``-q``).
    """
    table = tmp_path / "irt.csv"
    code, text, _ = run(["irt", wide, *argv, "--csv", table, "-q"], capsys)
    assert code == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(X)
    return text, table, model
