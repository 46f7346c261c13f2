"""``sklearn-eval compare``: is agent A really ahead of agent B? Paired tests."""

from __future__ import annotations

import numpy as np

from ._inputs import (
    drop_empty_agents,
    harness_tool,
    input_format,
    read_groups,
    read_match_file,
    read_scores,
    warn_ignored,
)
from ._options import (
    add_drop_empty,
    add_groups,
    add_match_input,
    add_matrix_input,
    add_resampling,
    add_table_output,
    non_negative_float,
    open_fraction,
)
from ._output import CommandError, Table, emit, fixed, number, say

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "compare",
        help="paired tests of agents' differences, with Holm/BH adjustment",
    )
    add_matrix_input(parser, matches=True)
    add_match_input(parser, defaults_known=True)
    parser.add_argument(
        "--input", choices=("scores", "matches"), default=None,
        help="scores: agents x items, agents compared by their mean, paired on "
        "the items; matches: a matches CSV, batch Bradley-Terry ratings. "
        "Default: matches when the file is recognised as the report "
        "recognises it (its player columns, a match column option such as "
        "--first-col, or --format matches), else scores",
    )
    add_drop_empty(parser)
    parser.add_argument(
        "--alpha",
        type=non_negative_float,
        default=None,
        help="matches: L2 prior of the Bradley-Terry fit (default the "
        "estimator's, 0; needed for undefeated players, as in rank)",
    )
    parser.add_argument(
        "--pairs", choices=("adjacent", "all"), default="adjacent",
        help="neighbours in the ranking (default) or every pair",
    )
    parser.add_argument(
        "--pair", action="append", default=[], metavar="A,B",
        help="compare these two agents (repeatable; replaces --pairs)",
    )
    parser.add_argument(
        "--correction", choices=("holm", "bh", "none"), default="holm",
        help="p-value adjustment: holm (familywise, default), bh (false "
        "discovery rate) or none",
    )
    parser.add_argument(
        "--confidence-level", type=open_fraction, default=0.95,
        help="level of each difference's interval (0.95)",
    )
    parser.add_argument(
        "--method", choices=("auto", "analytic", "bootstrap"), default="auto",
        help="analytic covariance where one exists (auto) or the bootstrap",
    )
    add_groups(
        parser, what="of a matches file: one label per match; of a long scores "
        "file: one label per task, e.g. a question with its variants",
    )
    add_resampling(parser, default=1000, what="the items or matches")
    add_table_output(parser)
    parser.set_defaults(handler=run)
    return parser


def _pairs(args):
    if not args.pair:
        return args.pairs
    pairs = []
    for text in args.pair:
        parts = text.split(",")
        if len(parts) != 2 or not all(parts):
            raise CommandError(f"--pair takes two agents as A,B; got {text!r}")
        pairs.append((parts[0], parts[1]))
    return pairs


def _reads_matches(args):
    """--input matches, or a CSV file recognised as matches as the report
    recognises it (an evaluation tool's output stays a score table unless
    --input matches says otherwise)."""
    if args.input is not None:
        return args.input == "matches"
    return harness_tool(args) is None and input_format(args) == "matches"


def run(args, out):
    import pandas as pd

    from ..pairwise import EloRanker
    from ..uncertainty import compare_agents

    if not 0 < args.confidence_level < 1:
        raise CommandError(
            f"--confidence-level must lie in (0, 1); got {args.confidence_level}"
        )
    common = {
        "pairs": _pairs(args),
        "correction": None if args.correction == "none" else args.correction,
        "confidence_level": args.confidence_level, "method": args.method,
        "n_resamples": max(args.n_resamples, 2), "random_state": args.random_state,
        "n_jobs": args.n_jobs,
    }
    if _reads_matches(args):
        matches = read_match_file(args)
        X = np.asarray(matches.X, dtype=object).astype(str)
        groups = read_groups(args, n_matches=len(matches.y))
        params = {} if args.alpha is None else {"alpha": args.alpha}
        table = compare_agents(EloRanker(method="batch", **params), X, matches.y,
                               sample_weight=matches.sample_weight, groups=groups,
                               **common)
        what = "rating"
    else:
        warn_ignored(args, ("alpha",), "it is the prior of the ratings of matches")
        scores = read_scores(args)
        rows = drop_empty_agents(args, scores.values, scores.agents)
        frame = pd.DataFrame(scores.values[rows],
                             index=[str(a) for a in scores.agents[rows]])
        groups = read_groups(args, tasks=scores.tasks)
        table = compare_agents("mean", frame, groups=groups, **common)
        what = "mean score"
    say(args, f"{len(table)} comparison(s), {args.correction} adjustment")
    clusters = ""
    if groups is not None:
        clusters = f", clustered by {args.groups} ({len(set(groups))} clusters)"
    rows = [
        [row.agent_a, row.agent_b, float(row.difference), float(row.se),
         float(row.low), float(row.high), number(row.p_value),
         number(row.p_adjusted)]
        for row in table.itertuples()
    ]
    level = f"{args.confidence_level:.0%}"
    emit(args, out, Table(
        ["agent a", "agent b", "difference", "se", f"{level} low", f"{level} high",
         "p-value", "p adjusted"],
        rows,
        [None, None, fixed(4), fixed(4), fixed(4), fixed(4), None, None],
        title=f"paired differences of {what} (a minus b{clusters}):",
        key="comparisons",
    ))
    return 0
