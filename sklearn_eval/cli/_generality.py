"""``sklearn-eval generality``: agent ability, generality and response curves."""

from __future__ import annotations

import numpy as np

from ._inputs import benchmark, read_scores
from ._irt import fit_irt
from ._options import (
    add_matrix_input,
    add_success_options,
    add_table_output,
    positive_int,
)
from ._output import Table, emit, fixed

__all__ = []

COLUMNS = ("generality", "capability", "spread", "normalized_generality", "mean_score")


def add_parser(commands):
    parser = commands.add_parser(
        "generality", help="agent ability, generality and response curves"
    )
    add_matrix_input(parser)
    add_success_options(parser)
    parser.add_argument(
        "--bins",
        type=positive_int,
        default=10,
        help="at most this many equal-frequency bins of IRT difficulty "
        "(default 10); fewer when tasks are few or tied",
    )
    parser.add_argument(
        "--min-tasks-per-bin",
        type=positive_int,
        default=5,
        help="adjacent bins are merged until each holds this many tasks (default 5)",
    )
    add_table_output(parser)
    # its methods work at unit scale or on the order of the scores: any finite
    # span of scores is data (see _inputs.read_scores)
    parser.set_defaults(handler=run, any_score_span=True)
    return parser


def _count(n, noun):
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def fewer_bins_reason(scorer, asked):
    """Why the scorer has fewer bins than asked (None when it has them all)."""
    n_bins = scorer.bin_counts_.size
    if n_bins >= asked:
        return None
    binned = scorer.task_bin_ >= 0
    n_binned = int(binned.sum())
    n_distinct = np.unique(scorer.difficulty_[binned]).size
    least = scorer.min_tasks_per_bin
    reasons = []
    if n_distinct < asked:
        noun = "difficulty" if n_distinct == 1 else "difficulties"
        reasons.append(
            f"the tasks have {n_distinct} distinct {noun} (tied tasks share a bin)"
        )
    if n_binned < asked * least:
        reasons.append(
            f"{_count(n_binned, 'binned task')}, and a bin under {least} tasks "
            "(--min-tasks-per-bin) is merged into a neighbour (at most "
            f"{_count(max(1, n_binned // least), 'bin')})"
        )
    excluded = len(scorer.excluded_tasks_)
    if excluded:
        verb = "is" if excluded == 1 else "are"
        reasons.append(
            f"{_count(excluded, 'task')} {verb} left out (negative discrimination or "
            "no finite difficulty)"
        )
    return f"--bins {asked} gave {_count(n_bins, 'bin')}: " + "; ".join(reasons)


def generality_table(scorer, irt, bench, title):
    values = scorer.transform(bench.responses)
    names = list(scorer.get_feature_names_out())
    columns = [names.index(column) for column in COLUMNS]
    order = np.argsort(-irt.abilities_, kind="stable")
    rows = [
        [bench.agents[a], float(irt.abilities_[a])]
        + [float(values[a, k]) for k in columns]
        for a in order
    ]
    return Table(
        ["agent", "ability", *COLUMNS],
        rows,
        [None, fixed(2)] + [fixed(3)] * len(COLUMNS),
        title=title,
        key="agents",
    )


def run(args, out):
    import warnings

    from sklearn.frozen import FrozenEstimator

    from ..irt import GeneralityScorer

    bench = benchmark(args, read_scores(args))
    irt = fit_irt(args, bench)
    scorer = GeneralityScorer(
        difficulty=FrozenEstimator(irt),
        bins=args.bins,
        min_tasks_per_bin=args.min_tasks_per_bin,
    ).fit(bench.responses)
    title = (
        f"generality over {_count(scorer.bin_counts_.size, 'IRT difficulty bin')} "
        f"({bench.response_rule}):"
    )
    reason = fewer_bins_reason(scorer, args.bins)
    if reason is not None:
        warnings.warn(reason, UserWarning, stacklevel=2)
    emit(args, out, generality_table(scorer, irt, bench, title))
    return 0
