"""Reading the commands' input files and turning them into a benchmark."""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ._output import CommandError, UsageError, say

__all__ = []


#: options that name the columns or layout of a CSV file
CSV_OPTIONS = ("agent_col", "task_col", "score_col", "sep", "first_col",
               "second_col", "outcome_col", "first_score_col", "second_score_col",
               "weight_col")
#: options of a result table (agents x tasks) and of a table of matches
TABLE_OPTIONS = ("agent_col", "task_col", "score_col")
MATCH_OPTIONS = ("first_col", "second_col", "outcome_col", "first_score_col",
                 "second_score_col", "weight_col")


def harness_tool(args):
    """The evaluation tool whose output ``args.path`` is, or None (a CSV).

    Detected once per run; the options that do not apply to that input are
    warned of then (:func:`warn_ignored`).
    """
    if not hasattr(args, "detected_tool"):
        from ..io import detect_tool

        args.detected_tool = detect_tool(args.path)
        if not os.path.exists(args.path):
            pass  # the reader says so
        elif args.detected_tool is not None:
            warn_ignored(
                args, CSV_OPTIONS,
                f"{args.path} is {args.detected_tool} output, read by its reader, "
                "not a CSV file",
            )
        else:
            warn_ignored(
                args, ("metric",),
                f"{args.path} is a CSV file; --metric picks the metric of an "
                "evaluation tool's output",
            )
    return args.detected_tool


def warn_ignored(args, dests, why):
    """One warning per option given (not left at its default) that ``why`` ignores.

    ``args.option_default`` (set by :func:`~._main.main`) gives each option's
    default; without it (a namespace built otherwise) nothing is said.
    """
    default_of = getattr(args, "option_default", None)
    if default_of is None:
        return
    import warnings

    for dest in dests:
        if not hasattr(args, dest) or getattr(args, dest) == default_of(dest):
            continue
        warnings.warn(
            f"--{dest.replace('_', '-')} is ignored: {why}.", UserWarning,
            stacklevel=2,
        )


def harness_long(args, tool):
    """The tool's long table, restricted to the metric of ``--metric``.

    Without ``--metric`` the output must hold one metric; otherwise the error
    lists the metrics to choose from.
    """
    from ..io import read_results

    long = read_results(args.path, tool)
    metrics = sorted({str(m) for m in long["metric"].unique()})
    metric = getattr(args, "metric", None)
    if metric is None:
        if len(metrics) > 1:
            raise UsageError(
                f"{args.path} ({tool}) holds several metrics; choose one with "
                f"--metric: {', '.join(metrics)}"
            )
        metric = metrics[0]
    elif metric not in metrics:
        raise CommandError(
            f"{args.path} ({tool}) has no metric {metric!r} (--metric); it "
            f"holds {', '.join(metrics)}"
        )
    say(args, f"read {tool} output from {args.path}: metric {metric!r}")
    return long[long["metric"].astype(str) == metric]


def read_harness_scores(args, tool):
    """The models x items result table of an evaluation tool's output."""
    from ..io import to_result_matrix

    long = harness_long(args, tool)
    args.harness_rows = long  # the --groups column comes from these
    frame = to_result_matrix(long, epochs="mean")
    values = frame.to_numpy(dtype=float)
    say(
        args,
        f"read {values.shape[0]} models x {values.shape[1]} items from "
        f"{args.path} ({np.isnan(values).mean():.1%} missing)",
    )
    from ..report import ResultTable

    return ResultTable(
        values, np.asarray(frame.index, dtype=object),
        np.asarray(frame.columns, dtype=object), None, None, str(args.path),
    )


def check_score_range(path, values):
    """Refuse scores whose range overflows a 64-bit float, before any output.

    Methods that take differences of scores (the report's task spreads and
    bootstrap ranks, paired tests) get infinite ones when the scores span
    more than the float maximum (e.g. 1e308 and -1e308 in one table) and
    would fail part-way with numpy overflow warnings.
    """
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return
    low, high = float(finite.min()), float(finite.max())
    with np.errstate(over="ignore"):
        span = high - low
    if not np.isfinite(span):
        raise CommandError(
            f"{path}: the scores range from {low:.4g} to {high:.4g}, so their "
            "differences overflow a 64-bit float (beyond 1.8e308); rescale the "
            "scores (e.g. divide them by 1e10)"
        )


def read_scores(args):
    """The agents x tasks result table of ``args.path`` (long or wide CSV).

    A table whose scores span more than a float can hold is refused
    (:func:`check_score_range`), before any output, unless the command
    declares that its methods take any span (``any_score_span``: they work
    at unit scale or on the order of the scores, e.g. Nash averaging and
    alpha-Rank, documented to accept payoffs up to the float maximum).
    """
    table = _read_scores(args)
    if not getattr(args, "any_score_span", False):
        check_score_range(args.path, table.values)
    return table


def _read_scores(args):
    from ..report import read_result_matrix

    tool = harness_tool(args)
    if tool is not None:
        return read_harness_scores(args, tool)
    warn_ignored(args, MATCH_OPTIONS,
                 f"{args.path} is read as a result table (agents x tasks), not "
                 "as matches")
    fmt = args.format
    if fmt == "auto" and (args.task_col is not None or args.score_col is not None):
        fmt = "long"
    table = read_result_matrix(
        args.path,
        format=fmt,
        agent_col=args.agent_col,
        task_col=args.task_col or "task",
        score_col=args.score_col or "score",
        sep=args.sep,
    )
    say(
        args,
        f"read {table.values.shape[0]} agents x {table.values.shape[1]} tasks from "
        f"{args.path} ({np.isnan(table.values).mean():.1%} missing)",
    )
    return table


class MatchInput(NamedTuple):
    """The matches of a file, as the match estimators take them."""

    X: np.ndarray
    y: np.ndarray
    sample_weight: np.ndarray | None
    source: str
    covariates: object = None  # DataFrame of the --covariates columns

    @property
    def model_X(self):
        """``X`` for ``EloRanker.fit``: the players, then any covariates."""
        if self.covariates is None:
            return self.X
        import pandas as pd

        frame = pd.DataFrame(
            {"first": self.X[:, 0], "second": self.X[:, 1]}, dtype=object
        )
        return pd.concat([frame, self.covariates], axis=1)


def read_covariates(path, columns, sep, n_rows):
    """The numeric ``--covariates`` columns of a match file, as a DataFrame."""
    import pandas as pd

    from ..report import read_csv

    header, rows = read_csv(path, sep=sep)
    if len(set(columns)) != len(columns):
        raise UsageError(f"--covariates names a column twice: {columns}")
    data = {}
    for column in columns:
        if column not in header:
            raise CommandError(
                f"{path}: no column {column!r} (--covariates); the columns are "
                + ", ".join(repr(h) for h in header)
            )
        index = header.index(column)
        values = np.empty(len(rows))
        for k, row in enumerate(rows):
            try:
                values[k] = float(row[index])
            except ValueError:
                values[k] = np.nan
            if not np.isfinite(values[k]):
                raise CommandError(
                    f"{path}, data row {k + 1}, column {column!r} (--covariates): "
                    f"{row[index]!r} is not a finite number"
                )
        data[column] = values
    if len(rows) != n_rows:  # pragma: no cover - both readers skip blank lines
        raise CommandError(f"{path}: the covariate rows do not match the matches")
    return pd.DataFrame(data)


def read_harness_matches(args, tool):
    """The matches of an evaluation tool's output (per item, or as judged)."""
    from ..io import to_matches

    matches = to_matches(harness_long(args, tool)).reset_index(drop=True)
    args.harness_rows = matches  # the --groups column comes from these
    covariates = None
    names = list(getattr(args, "covariates", None) or [])
    if names:
        unknown = [name for name in names if name not in matches.columns
                   or name in ("model_a", "model_b", "y", "weight", "task", "item")]
        if unknown:
            raise CommandError(
                f"{args.path}: no covariate {unknown[0]!r} (--covariates); the "
                "matches of judged comparisons have 'position' and 'length_diff'"
            )
        covariates = matches[names].reset_index(drop=True).astype(float)
    weights = matches["weight"].to_numpy(float) if "weight" in matches else None
    say(args, f"read {len(matches)} matches from {args.path}")
    X = matches[["model_a", "model_b"]].to_numpy(dtype=object)
    return MatchInput(X, matches["y"].to_numpy(float), weights, str(args.path),
                      covariates)


def _group_column(path, column, sep):
    """Header, rows and the index of the ``--groups`` column of a file."""
    from ..report import read_csv

    header, rows = read_csv(path, sep=sep)
    if column not in header:
        raise CommandError(
            f"{path}: no column {column!r} (--groups); the columns are "
            + ", ".join(repr(h) for h in header)
        )
    return header, rows, header.index(column)


def read_groups(args, n_matches=None, tasks=None):
    """The ``--groups`` cluster labels: one per match, or one per task.

    For a matches file, the column gives each match its cluster (a prompt, a
    tournament); for a long result table, each task's cluster (a task's rows
    must agree). A wide table has no room for one: an error says so. None
    when ``--groups`` is not given.
    """
    column = getattr(args, "groups", None)
    if column is None:
        return None
    if harness_tool(args) is not None:
        return _harness_groups(args, column, tasks)
    header, rows, index = _group_column(args.path, column, args.sep)
    labels = np.array([row[index].strip() for row in rows], dtype=object)
    empty = np.flatnonzero(labels == "")
    if empty.size:
        raise CommandError(
            f"{args.path}, data row {int(empty[0]) + 1}, column {column!r} "
            "(--groups): empty cluster label"
        )
    if tasks is None:
        if n_matches is not None and labels.shape[0] != n_matches:
            raise CommandError(  # pragma: no cover - both readers skip blanks
                f"{args.path}: the --groups rows do not match the matches"
            )
        return labels
    task_col = args.task_col or "task"
    if task_col not in header:
        raise UsageError(
            "--groups labels the tasks of a long file (agent, task, score and "
            f"the cluster column); {args.path} has no column {task_col!r}"
        )
    task_of_row = np.array(
        [row[header.index(task_col)].strip() for row in rows], dtype=object
    )
    cluster = {}
    for task, label in zip(task_of_row, labels, strict=True):
        if cluster.setdefault(task, label) != label:
            raise CommandError(
                f"{args.path}, column {column!r} (--groups): task {task!r} is in "
                f"two clusters, {cluster[task]!r} and {label!r}; a task belongs "
                "to one cluster"
            )
    return np.array([cluster[str(task)] for task in tasks], dtype=object)


def _harness_groups(args, column, tasks):
    """The ``--groups`` labels of an evaluation tool's output.

    The column is one of the rows the reader returned (the per-item matches,
    or the long table for a result matrix): ``item`` is an item within its
    task (item ids repeat across tasks), ``task`` its task, any other column
    as it is. For a result matrix each column (``"<task>/<item>"``, see
    :func:`~sklearn_eval.io.to_result_matrix`) takes its rows' one label.
    """
    import pandas as pd

    rows = args.harness_rows
    reserved = {"model", "model_a", "model_b", "y", "score", "metric", "weight"}
    choices = [str(name) for name in rows.columns if name not in reserved]
    if column not in choices:
        raise CommandError(
            f"{args.path} ({args.detected_tool}): no column {column!r} "
            "(--groups); its rows have " + ", ".join(map(repr, choices))
        )
    values = rows[column]
    missing = np.flatnonzero(values.isna().to_numpy())
    if missing.size:
        raise CommandError(
            f"{args.path} ({args.detected_tool}), column {column!r} (--groups): "
            f"{missing.size} of {len(values)} rows have no label"
        )
    # an item within its task, as to_result_matrix labels its columns
    keys = rows["task"].astype(str) + "/" + rows["item"].astype(str)
    labels = keys if column == "item" else values.astype(str)
    if tasks is None:
        return labels.to_numpy(dtype=object)
    per_key = pd.Series(labels.to_numpy(), index=keys.to_numpy()).groupby(level=0)
    split = per_key.nunique()
    if (split > 1).any():
        key = split.index[int(np.argmax(split.to_numpy() > 1))]
        raise CommandError(
            f"{args.path} ({args.detected_tool}), column {column!r} (--groups): "
            f"item {key!r} is in {int(split[key])} clusters; an item belongs to "
            "one cluster"
        )
    first = per_key.first()
    return np.array([first[str(task)] for task in tasks], dtype=object)


def read_match_file(args):
    """The matches of ``args.path``: players, outcomes, weights, covariates."""
    from ..report import read_matches

    tool = harness_tool(args)
    if tool is not None:
        return read_harness_matches(args, tool)
    if (args.first_score_col is None) != (args.second_score_col is None):
        raise UsageError(
            "give both --first-score-col and --second-score-col, or neither"
        )
    warn_ignored(args, TABLE_OPTIONS,
                 f"{args.path} is read as a table of matches (players and "
                 "outcomes), not as a result table")
    table = read_matches(
        args.path,
        first_col=args.first_col or "first",
        second_col=args.second_col or "second",
        outcome_col=args.outcome_col or "outcome",
        first_score_col=args.first_score_col,
        second_score_col=args.second_score_col,
        weight_col=args.weight_col,
        sep=args.sep,
    )
    covariates = None
    if getattr(args, "covariates", None):
        covariates = read_covariates(
            args.path, list(args.covariates), args.sep, len(table.y)
        )
    say(args, f"read {len(table.y)} matches from {args.path}")
    return MatchInput(table.X, table.y, table.sample_weight, table.source, covariates)


def rating_options(args):
    """EloRanker's ties and first_advantage from the command line."""
    params = {}
    if getattr(args, "ties", None) is not None:
        params["ties"] = args.ties
    if getattr(args, "first_advantage", None) is not None:
        params["first_advantage"] = args.first_advantage
    return params


def input_format(args):
    """The input's format: given, implied by the columns named, or detected.

    One rule for every command that reads both result tables and matches:
    naming a match column (``--first-col``, ...) means a table of matches,
    naming ``--task-col`` / ``--score-col`` a long result table; otherwise
    the file's header decides (:func:`~sklearn_eval.report.detect_format`).
    """
    from ..report import detect_format

    tool = harness_tool(args)
    if tool is not None:  # an evaluation tool's output: judged pairs are matches
        if args.format != "auto":
            return "matches" if args.format == "matches" else "long"
        return "matches" if tool == "alpaca_eval" else "long"
    match_columns = (
        args.first_col,
        args.second_col,
        args.outcome_col,
        args.first_score_col,
        args.second_score_col,
        args.weight_col,
        getattr(args, "covariates", None),
    )
    named_match = any(column is not None for column in match_columns)
    named_long = args.task_col is not None or args.score_col is not None
    if args.format != "auto":
        if named_match and args.format != "matches":
            raise UsageError(
                f"--format {args.format} does not read match columns "
                "(--first-col, --outcome-col, ...); use --format matches"
            )
        if named_long and args.format == "matches":
            raise UsageError(
                "--task-col and --score-col name columns of a result table, "
                "not of matches"
            )
        return args.format
    if named_match and named_long:
        raise UsageError(
            "give the columns of either a table of matches (--first-col, ...) or "
            "of a long result table (--task-col, --score-col), not both"
        )
    if named_match:
        return "matches"
    if named_long:
        return "long"
    return detect_format(
        args.path,
        first_col=args.first_col or "first",
        second_col=args.second_col or "second",
        sep=args.sep,
    )


def drop_empty_agents(args, values, agents):
    """The rows to keep under the one rule for agents with no result.

    Raises (exit 2, naming how many and which) unless ``--drop-empty``, which
    leaves them out with a warning naming them
    (:func:`~sklearn_eval.utils.check_empty_agents`).
    """
    from ..utils import check_empty_agents

    return check_empty_agents(
        values, agents, drop_empty=getattr(args, "drop_empty", False),
        what=str(args.path),
        remedy="remove them, or pass --drop-empty to leave them out with a "
        "warning",
    )


def baselines(args, table):
    """Per-task low/high baselines from the rows named by --low/--high-agent."""
    low_name, high_name = args.low_agent, args.high_agent
    if low_name is None and high_name is None:
        return None, None
    if low_name is None or high_name is None:
        raise UsageError("give both --low-agent and --high-agent, or neither")
    agents = [str(a) for a in table.agents]
    rows = []
    for option, name in (("--low-agent", low_name), ("--high-agent", high_name)):
        if name not in agents:
            raise CommandError(f"{option} {name!r} is not an agent of {table.source}")
        rows.append(table.values[agents.index(name)])
    low, high = rows
    bad = np.flatnonzero(np.isnan(low) | np.isnan(high) | (high == low))
    if bad.size:
        raise CommandError(
            f"{table.source}: the baselines {low_name!r} and {high_name!r} are "
            f"missing or equal on task {table.tasks[bad[0]]!r}; baseline "
            "normalisation needs both on every task"
        )
    return low, high


def threshold(args):
    """``--threshold``: None, "median" or a finite number."""
    value = args.threshold
    if value is None or value == "median":
        return value
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not np.isfinite(number):
        raise UsageError(f"--threshold must be a number or 'median'; got {value!r}")
    return number


def reference_agents(args):
    """``{label: kind}`` of the reference agents named on the command line.

    Only commands with ``--reference-agent`` (the report) set reference agents
    apart; there the baselines of ``--low-agent`` / ``--high-agent`` are
    reference agents too.
    """
    if not hasattr(args, "reference_agent"):
        return {}
    kinds = {name: "reference" for name in args.reference_agent}
    if getattr(args, "low_agent", None) is not None:
        kinds[args.low_agent] = "low baseline"
    if getattr(args, "high_agent", None) is not None:
        kinds[args.high_agent] = "high baseline"
    return kinds


def benchmark(args, table):
    """Scores and 0/1 successes of the table (see ``prepare_benchmark``)."""
    from ..report import prepare_benchmark

    rows = drop_empty_agents(args, table.values, table.agents)
    if not rows.all():
        table = _rows_of(table, rows)
    low, high = baselines(args, table)
    repeated = table.counts is not None and (table.counts > 1).any()
    references = reference_agents(args)
    unknown = [name for name in references if name not in set(map(str, table.agents))]
    if unknown:
        raise CommandError(
            f"--reference-agent {unknown[0]!r} is not an agent of {table.source}"
        )
    return prepare_benchmark(
        table.values,
        agents=table.agents,
        tasks=table.tasks,
        low=low,
        high=high,
        threshold=threshold(args),
        stds=table.stds if repeated else None,
        name=args.title or str(args.path),
        reference_agents=references,
        include_reference=getattr(args, "include_reference", False),
    )


def _rows_of(table, rows):
    """The result table restricted to ``rows`` (its agents)."""
    def keep(matrix):
        return None if matrix is None else matrix[rows]

    return table._replace(
        values=table.values[rows],
        agents=table.agents[rows],
        stds=keep(table.stds),
        counts=keep(table.counts),
    )
