"""Reading the commands' input files and turning them into a benchmark."""

from __future__ import annotations

import numpy as np

from ._output import CommandError, UsageError, say

__all__ = []


def read_scores(args):
    """The agents x tasks result table of ``args.path`` (long or wide CSV)."""
    from ..report import read_result_matrix

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


def read_match_file(args):
    """The matches of ``args.path``: players, outcomes and weights."""
    from ..report import read_matches

    if (args.first_score_col is None) != (args.second_score_col is None):
        raise UsageError(
            "give both --first-score-col and --second-score-col, or neither"
        )
    table = read_matches(
        args.path,
        first_col=args.first_col,
        second_col=args.second_col,
        outcome_col=args.outcome_col,
        first_score_col=args.first_score_col,
        second_score_col=args.second_score_col,
        weight_col=args.weight_col,
        sep=args.sep,
    )
    say(args, f"read {len(table.y)} matches from {args.path}")
    return table


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


def benchmark(args, table):
    """Scores and 0/1 successes of the table (see ``prepare_benchmark``)."""
    from ..report import prepare_benchmark

    low, high = baselines(args, table)
    repeated = table.counts is not None and (table.counts > 1).any()
    return prepare_benchmark(
        table.values,
        agents=table.agents,
        tasks=table.tasks,
        low=low,
        high=high,
        threshold=threshold(args),
        stds=table.stds if repeated else None,
        name=args.title or str(args.path),
    )
