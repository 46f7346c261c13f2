"""``sklearn-eval vote``: every task a voter; social-choice rankings of agents."""

from __future__ import annotations

import warnings

import numpy as np

from ._inputs import drop_empty_agents, input_format, read_match_file, read_scores
from ._options import (
    add_drop_empty,
    add_match_input,
    add_matrix_input,
    add_table_output,
    positive_float,
)
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
    add_matrix_input(parser, matches=True)
    add_match_input(parser, defaults_known=True)
    parser.add_argument(
        "--method",
        choices=METHODS,
        default="kemeny_young",
        help="the voting rule (default kemeny_young, exact); each task ranks "
        "the agents by its scores, missing results are abstentions. On a "
        "table of matches (recognised as the report recognises it) each "
        "player is a voter ranking its opponents by their win rate against "
        "it; pairs that never met are abstentions",
    )
    parser.add_argument(
        "--time-limit", type=positive_float, default=300.0, metavar="SECONDS",
        help="kemeny_young only: seconds the exact search may take (default "
        "300); past them the command stops with an error naming the "
        "polynomial rules (schulze, ranked_pairs). The search is NP-hard: 86 "
        "teams of a football results file take about a minute",
    )
    add_drop_empty(parser)
    add_table_output(parser)
    # its methods work at unit scale or on the order of the scores: any finite
    # span of scores is data (see _inputs.read_scores)
    parser.set_defaults(handler=run, any_score_span=True)
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

    if input_format(args) == "matches":
        frame = match_voters(read_match_file(args))
        voters = "players as voters"
    else:
        table = read_scores(args)
        rows = drop_empty_agents(args, table.values, table.agents)
        frame = pd.DataFrame(
            table.values[rows],
            index=pd.Index(np.asarray(table.agents, dtype=object)[rows]),
            columns=[str(t) for t in table.tasks],
        )
        voters = "tasks"
    say(args, f"{args.method} over {frame.shape[1]} {voters}, {frame.shape[0]} agents")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = VotingRanker(method=args.method,
                             time_limit=args.time_limit).fit(frame)
    winner = model.condorcet_winner_
    out.write(
        "Condorcet winner: "
        + ("none (majorities are cyclic)" if winner is None else printable(winner))
        + "\n"
    )
    emit(args, out, agent_table(model))
    return 0


def match_voters(matches):
    """Players x voters: each player's win rate against each voter.

    Column ``j`` holds every player's empirical win rate against player
    ``j`` (draws count half); a player does not vote on itself and pairs
    that never met are abstentions (NaN).
    """
    import pandas as pd

    from ..utils import matches_to_win_rate

    rates, counts, players = matches_to_win_rate(
        matches.X, matches.y, matches.sample_weight
    )
    rates = np.where(counts > 0, rates, np.nan)
    np.fill_diagonal(rates, np.nan)
    labels = np.asarray(players, dtype=object)
    return pd.DataFrame(
        rates, index=pd.Index(labels), columns=[str(p) for p in labels]
    )
