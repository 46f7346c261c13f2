"""``sklearn-eval nash``: Nash averaging of agents (and tasks)."""

from __future__ import annotations

import warnings

import numpy as np

from ._inputs import input_format, read_match_file, read_scores
from ._options import (
    add_match_input,
    add_matrix_input,
    add_table_output,
    clip_fraction,
)
from ._output import CommandError, Table, UsageError, emit, fixed, number, say

__all__ = []

# the CLI spelling of NashAverager(normalize=None) is "none"
NORMALIZE = {"minmax": "minmax", "zscore": "zscore", "none": None}


def add_parser(commands):
    parser = commands.add_parser("nash", help="Nash averaging of agents (and tasks)")
    add_matrix_input(parser, matches=True)
    add_match_input(parser, defaults_known=True)
    add_input_kind(parser, "agents x tasks (default)")
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
    add_table_output(parser, beside=("tasks",))
    # its methods work at unit scale or on the order of the scores: any finite
    # span of scores is data (see _inputs.read_scores)
    parser.set_defaults(handler=run, any_score_span=True)
    return parser


def add_input_kind(parser, scores):
    parser.add_argument(
        "--input",
        choices=("scores", "win-rates", "matches"),
        default="scores",
        help=f"scores: {scores}; win-rates: square matrix of P(row beats "
        "column); matches: a matches CSV (unplayed pairs filled by mElo). A "
        "table of matches is also recognised as the report recognises it: "
        "by its player columns, a match column option (--first-col, ...) or "
        "--format matches",
    )


def reads_matches(args):
    """Whether the input is a table of matches (--input, or as the report)."""
    if args.input == "matches":
        return True
    fmt = input_format(args)
    if fmt == "matches" and args.input != "scores":
        raise UsageError(
            f"--input {args.input} reads a matrix, but {args.path} is read as a "
            "table of matches (its player columns, a match column option or "
            "--format matches)"
        )
    return fmt == "matches"


def game_matrix(args):
    """The game: (matrix, row labels, column labels, game)."""
    from ..game import complete_submatrix, fill_win_rates

    if reads_matches(args):
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

    payoff = np.asarray(model.payoff_, dtype=np.float64)
    # the shares do not depend on the unit: payoffs near the float maximum
    # are split at unit scale, where their differences cannot overflow
    scale = np.max(np.abs(payoff), initial=0.0)
    if scale > 0:
        payoff = payoff / scale
    if game == "agent_vs_task":
        payoff = avt_embedding(payoff).flow
    return hodge_decomposition(payoff).transitive_share


def agent_table(model):
    """The estimator's ``agent_table()``, with the uniform average beside it."""
    table = model.agent_table()
    # the uniform average: mean payoff against all tasks (or all agents),
    # summed at unit scale so that payoffs near the float maximum cannot overflow
    payoff = np.asarray(model.payoff_, dtype=np.float64)
    scale = np.max(np.abs(payoff), initial=0.0) or 1.0
    uniform = dict(
        zip(map(str, model.agents_), (payoff / scale).mean(axis=1) * scale,
            strict=True)
    )
    rows = [
        [
            int(row["rank"]),
            agent,
            float(row["mass"]),
            float(row["score"]),
            float(uniform[str(agent)]),
        ]
        for agent, row in table.iterrows()
    ]
    return Table(
        ["rank", "agent", "Nash probability", "Nash average", "uniform average"],
        rows,
        [str, None, fixed(3), fixed(3), fixed(3)],
        title="agents (core agents have p > 0):",
        key="agents",
    )


def core_task_table(model):
    """The core tasks of the estimator's ``task_table()``, hardest first."""
    table = model.task_table()
    table = table[table["mass"] > 0].sort_values(
        "difficulty", ascending=False, kind="stable"
    )
    rows = [
        [task, float(row["mass"]), float(row["difficulty"])]
        for task, row in table.iterrows()
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
    import pandas as pd

    frame = pd.DataFrame(
        matrix,
        index=pd.Index(np.asarray(row_labels, dtype=object)),
        columns=[str(c) for c in col_labels],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = estimator.fit(frame)
    # below 1e-12 the digits are rounding noise (they differ between -0.0 and
    # 0.0 inputs); print the bound instead
    gap = model.exploitability_
    gap_text = f"{gap:.1e}" if gap >= 1e-12 else "< 1e-12"
    out.write(f"value {number(model.value_, 4)}, exploitability {gap_text}\n")
    out.write(f"Hodge transitive share: {transitive_share(model, game):.1%}\n")
    tables = [agent_table(model)]
    if game == "agent_vs_task":
        tables.append(core_task_table(model))
    emit(args, out, *tables)
    return 0
