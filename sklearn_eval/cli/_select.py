"""``sklearn-eval select``: a reduced task subset by information gain.

The selection runs on the largest complete block of the scores, min-max
scaled per task, as in the benchmark report (so ``select`` and ``report``
recommend the same subset).
"""

from __future__ import annotations

import warnings

import numpy as np

from ._inputs import benchmark, read_scores
from ._options import (
    add_drop_empty,
    add_matrix_input,
    add_selection_options,
    add_table_output,
)
from ._output import CommandError, Table, emit, fixed, say

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "select", help="reduced task subset by information gain"
    )
    add_matrix_input(parser)
    add_selection_options(parser)
    add_drop_empty(parser)
    parser.add_argument(
        "--include-flagged-tasks",
        action="store_true",
        help="let the subset hold flagged tasks (0%% or 100%% success, negative "
        "IRT discrimination), left out by default as in the report",
    )
    add_table_output(parser)
    # any finite span of scores is data (see _inputs.read_scores)
    parser.set_defaults(handler=run, threshold=None, low_agent=None, high_agent=None,
                        any_score_span=True)
    return parser


def complete_block(args, bench):
    """Masks of the largest complete block and its min-max scaled scores."""
    from ..game import complete_submatrix
    from ..utils import minmax_normalize

    _, agents, tasks = complete_submatrix(bench.scores, return_masks=True)
    if agents.sum() < 2 or tasks.sum() < 2:
        raise CommandError(
            f"{args.path} has no complete block of at least 2 agents x 2 tasks "
            "(results of the same agents on the same tasks)"
        )
    raw = bench.scores[np.ix_(agents, tasks)]
    with warnings.catch_warnings():
        # a constant task scales to 0 everywhere: it separates no agent
        warnings.simplefilter("ignore", UserWarning)
        scaled = minmax_normalize(raw)
    return agents, tasks, raw, scaled


def run_to_run_spread(args, bench, agents, tasks, raw):
    """(stds or None, std_offset, rule): the spread information gain assumes."""
    if bench.stds is None:
        rule = (
            f"assumed run-to-run spread {args.spread:g} on the min-max scale of "
            "every task (the data have one score per agent and task)"
        )
        return None, float(args.spread), rule
    span = raw.max(axis=0) - raw.min(axis=0)
    stds = bench.stds[np.ix_(agents, tasks)] / np.where(span > 0, span, 1.0)
    rule = "spreads of the repeated runs (min-max scaled) + 0.001"
    return np.nan_to_num(stds), 1e-3, rule


def candidate_tasks(args, bench, tasks):
    """Block columns the selection may recommend: the report's rule.

    Tasks the report flags (0% or 100% success, negative IRT discrimination)
    are left out unless --include-flagged-tasks; when fewer than 2 would be
    left, all are candidates.
    """
    from ..report import flag_tasks

    every = np.arange(int(tasks.sum()))
    if args.include_flagged_tasks:
        return every
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            flags = flag_tasks(bench)[tasks]
    except ValueError:  # no IRT model for these data: nothing is flagged
        return every
    keep = np.flatnonzero(flags == "")
    if keep.size < 2:
        return every
    if keep.size < every.size:
        left = ", ".join(
            f"{bench.tasks[tasks][t]} ({flags[t]})" for t in every if flags[t]
        )
        say(args, f"left out as flagged (--include-flagged-tasks keeps them): {left}")
    return keep


def run(args, out):
    from ..selection import InfoGainSelector, subset_agreement

    bench = benchmark(args, read_scores(args))
    agents, tasks, raw, scaled = complete_block(args, bench)
    say(
        args,
        f"information gain on the complete block {scaled.shape[0]} x {scaled.shape[1]}",
    )
    stds, offset, rule = run_to_run_spread(args, bench, agents, tasks, raw)
    candidates = candidate_tasks(args, bench, tasks)
    selector = InfoGainSelector(
        n_tasks=min(args.n_tasks, candidates.size), input="agents", std_offset=offset
    ).fit(scaled[:, candidates], None, None if stds is None else stds[:, candidates])
    labels = bench.tasks[tasks][candidates]
    order = np.asarray(selector.selection_order_)
    rows = [
        [
            step,
            labels[t],
            float(selector.information_gain_[t]),
            float(selector.cumulative_gain_[step - 1]),
        ]
        for step, t in enumerate(order, start=1)
    ]
    title = (
        f"selected {len(rows)} of {scaled.shape[1]} tasks "
        f"(max {selector.max_information_:.3f} bits; {rule}):"
    )
    table = Table(
        ["step", "task", "gain alone (bits)", "cumulative gain (bits)"],
        rows,
        [str, None, fixed(3), fixed(3)],
        title=title,
        key="selection",
    )
    emit(args, out, table)
    if scaled.shape[0] >= 3:
        agreement = subset_agreement(scaled, candidates[order])
        out.write(
            f"agreement with the full benchmark: Kendall tau "
            f"{agreement.kendall_tau:.3f}, Spearman rho "
            f"{agreement.spearman_rho:.3f}\n"
        )
    return 0
