"""``sklearn-eval nash``: Nash averaging of agents (and tasks)."""

from __future__ import annotations

import warnings

import numpy as np

from ..utils._ranks import agent_ranks
from ._inputs import read_match_file, read_scores
from ._options import (
    add_match_input,
    add_matrix_input,
    add_table_output,
    clip_fraction,
)
from ._output import CommandError, Table, emit, fixed, say

__all__ = []

# the CLI spelling of NashAverager(normalize=None) is "none"
NORMALIZE = {"minmax": "minmax", "zscore": "zscore", "none": None}


def add_parser(commands):
    parser = commands.add_parser("nash", help="Nash averaging of agents (and tasks)")
    add_matrix_input(parser)
    add_match_input(parser)
    parser.add_argument(
        "--input",
        choices=("scores", "win-rates", "matches"),
        default="scores",
        help="scores: agents x tasks (default); "
        "win-rates: square matrix of P(row beats column); matches: "
        "a matches CSV (unplayed pairs filled by mElo)",
    )
    parser.add_argument(
        "--normalize",
        choices=tuple(NORMALIZE),
        default="minmax",
        help="per-task rescaling of the scores, NashAverager's normalize: "
        "minmax (default, as the paper), zscore, or none (the API's None: "
        "the scores as they are)",
    )
    parser.add_argument(
        "--clip",
        type=clip_fraction,
        default=1e-3,
        help="win rates clipped to [clip, 1 - clip] before the logit",
    )
    add_table_output(parser)
    parser.set_defaults(handler=run)
    return parser


def game_matrix(args):
    """The game: (matrix, row labels, column labels, game)."""
    from ..game import complete_submatrix, fill_win_rates

    if args.input == "matches":
        matches = read_match_file(args)
        say(args, "win rates from the matches (unplayed pairs filled by mElo)")
        P, players, _ = fill_win_rates(matches.X, matches.y, matches.sample_weight)
        return P, players, players, "agent_vs_agent"
    table = read_scores(args)
    if args.input == "win-rates":
        return win_rate_matrix(table), table.agents, table.agents, "agent_vs_agent"
    values, rows, cols = complete_submatrix(table.values, return_masks=True)
    if values.shape[0] < 2 or values.shape[1] < 1:
        raise CommandError(
            f"{args.path} has no complete block of 2 agents x 1 task (results of "
            "the same agents on the same tasks)"
        )
    if not (rows.all() and cols.all()):
        say(
            args,
            f"missing results: using the complete block of {values.shape[0]} "
            f"agents x {values.shape[1]} tasks",
        )
    return values, table.agents[rows], table.tasks[cols], "agent_vs_task"


def win_rate_matrix(table):
    values = table.values
    if values.shape[0] != values.shape[1]:
        raise CommandError(
            f"a win-rate matrix must be square (agents x the same agents); "
            f"{table.source} is {values.shape[0]} x {values.shape[1]}"
        )
    if [str(a) for a in table.agents] != [str(t) for t in table.tasks]:
        raise CommandError(
            f"the columns of {table.source} must name the same agents as its rows, "
            "in the same order"
        )
    values = values.copy()
    np.fill_diagonal(values, 0.5)
    if np.isnan(values).any():
        i, j = np.unravel_index(np.argmax(np.isnan(values)), values.shape)
        raise CommandError(
            f"{table.source}: missing win rate of {table.agents[i]!r} against "
            f"{table.agents[j]!r}; give matches (--input matches) to fill unplayed "
            "pairs with a model"
        )
    return values


def transitive_share(model, game):
    """Transitive share of the solved game (logits, or the AvT flow)."""
    from ..game import avt_embedding, hodge_decomposition

    payoff = model.payoff_
    if game == "agent_vs_task":
        payoff = avt_embedding(payoff).flow
    return hodge_decomposition(payoff).transitive_share


def agent_table(model, labels):
    # the uniform average: mean payoff against all tasks (or all agents)
    uniform = model.payoff_.mean(axis=1)
    ranks = agent_ranks(model)  # the estimator's ranks: ties up to rounding share
    order = np.lexsort((-uniform, ranks))
    rows = [
        [
            int(ranks[a]),
            labels[a],
            float(model.agent_distribution_[a]),
            float(model.agent_skill_[a]),
            float(uniform[a]),
        ]
        for a in order
    ]
    return Table(
        ["rank", "agent", "Nash probability", "Nash average", "uniform average"],
        rows,
        [str, None, fixed(3), fixed(3), fixed(3)],
        title="agents (core agents have p > 0):",
        key="agents",
    )


def core_task_table(model, labels):
    tasks = np.argsort(-model.difficulty_, kind="stable")
    rows = [
        [
            labels[t],
            float(model.task_distribution_[t]),
            float(model.difficulty_[t]),
        ]
        for t in tasks
        if model.task_distribution_[t] > 0
    ]
    return Table(
        ["task", "Nash probability", "Nash difficulty"],
        rows,
        [None, fixed(3), fixed(3)],
        title="core tasks (Nash probability > 0):",
        key="tasks",
    )


def run(args, out):
    from ..game import NashAverager

    matrix, row_labels, col_labels, game = game_matrix(args)
    if game == "agent_vs_agent":
        estimator = NashAverager(game=game, payoff="probability", clip=args.clip)
    else:
        estimator = NashAverager(normalize=NORMALIZE[args.normalize])
    say(
        args,
        f"solving the {game.replace('_', '-')} game ({matrix.shape[0]} x "
        f"{matrix.shape[1]})",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = estimator.fit(matrix)
    # below 1e-12 the digits are rounding noise (they differ between -0.0 and
    # 0.0 inputs); print the bound instead
    gap = model.exploitability_
    gap_text = f"{gap:.1e}" if gap >= 1e-12 else "< 1e-12"
    out.write(f"value {model.value_:.4f}, exploitability {gap_text}\n")
    out.write(f"Hodge transitive share: {transitive_share(model, game):.1%}\n")
    tables = [agent_table(model, row_labels)]
    if game == "agent_vs_task":
        tables.append(core_task_table(model, col_labels))
    emit(args, out, *tables)
    return 0
