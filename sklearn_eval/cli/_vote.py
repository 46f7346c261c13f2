"""``sklearn-eval vote``: every task a voter; social-choice rankings of agents."""

from __future__ import annotations

import warnings

import numpy as np

from ._inputs import read_scores
from ._options import add_matrix_input, add_table_output
from ._output import Table, emit, fixed, printable, say

__all__ = []

METHODS = (
    "kemeny_young", "schulze", "ranked_pairs", "copeland", "borda", "plurality",
    "maximal_lotteries", "sco",
)


def add_parser(commands):
    parser = commands.add_parser(
        "vote",
        help="rank agents by a voting rule, every task a voter (Kemeny-Young, ...)",
    )
    add_matrix_input(parser)
    parser.add_argument(
        "--method",
        choices=METHODS,
        default="kemeny_young",
        help="the voting rule (default kemeny_young, exact); each task ranks "
        "the agents by its scores, missing results are abstentions",
    )
    add_table_output(parser)
    parser.set_defaults(handler=run)
    return parser


def agent_table(model):
    table = model.agent_table()
    rows = [
        [int(row["rank"]), agent, float(row["score"]), int(row["copeland_wins"])]
        for agent, row in table.iterrows()
    ]
    return Table(
        ["rank", "agent", "score", "pairwise majorities won"],
        rows,
        [str, None, fixed(3), str],
        title=f"agents by {model.method.replace('_', '-')}:",
        key="agents",
    )


def run(args, out):
    import pandas as pd

    from ..game import VotingRanker

    table = read_scores(args)
    frame = pd.DataFrame(
        table.values,
        index=pd.Index(np.asarray(table.agents, dtype=object)),
        columns=[str(t) for t in table.tasks],
    )
    say(args, f"{args.method} over {frame.shape[1]} tasks, {frame.shape[0]} agents")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = VotingRanker(method=args.method).fit(frame)
    winner = model.condorcet_winner_
    out.write(
        "Condorcet winner: "
        + ("none (majorities are cyclic)" if winner is None else printable(winner))
        + "\n"
    )
    emit(args, out, agent_table(model))
    return 0
