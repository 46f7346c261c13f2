"""``sklearn-eval alpharank``: alpha-Rank, ranking by long-run evolutionary survival."""

from __future__ import annotations

import warnings

import numpy as np

from ._nash import add_input_kind, game_matrix
from ._options import (
    add_match_input,
    add_matrix_input,
    add_table_output,
    int_at_least,
    positive_float,
)
from ._output import Table, emit, fixed, say

__all__ = []


def alpha_value(text):
    """``auto``, ``inf`` or a positive number."""
    if text in ("auto", "inf"):
        return text
    return positive_float(text)


def add_parser(commands):
    parser = commands.add_parser(
        "alpharank", help="alpha-Rank: rank agents by long-run evolutionary survival"
    )
    add_matrix_input(parser, matches=True)
    add_match_input(parser, defaults_known=True)
    add_input_kind(parser, "agents x tasks, two populations (default)")
    parser.add_argument(
        "--alpha",
        type=alpha_value,
        default="auto",
        help="ranking intensity: auto (sweep until the ranking settles, "
        "default), inf (the exact limit from the response graph's sinks) or "
        "a positive number",
    )
    parser.add_argument(
        "--population-size", type=int_at_least(2), default=50,
        help="population size m, at least 2 (50)"
    )
    add_table_output(parser)
    # its methods work at unit scale or on the order of the scores: any finite
    # span of scores is data (see _inputs.read_scores)
    parser.set_defaults(handler=run, any_score_span=True)
    return parser


def agent_table(model):
    table = model.agent_table()
    rows = [
        [int(row["rank"]), agent, float(row["score"]), float(row["limit"]),
         "yes" if row["in_sink"] else ""]
        for agent, row in table.iterrows()
    ]
    return Table(
        ["rank", "agent", "mass", "mass at alpha=inf", "in a sink"],
        rows,
        [str, None, fixed(4), fixed(4), None],
        title="agents by stationary mass:",
        key="agents",
    )


def run(args, out):
    import pandas as pd

    from ..game import AlphaRank

    matrix, rows, columns, game = game_matrix(args)
    alpha = np.inf if args.alpha == "inf" else args.alpha
    estimator = AlphaRank(
        game=game,
        alpha=alpha,
        population_size=args.population_size,
        normalize="minmax" if game == "agent_vs_task" else None,
    )
    say(
        args,
        f"alpha-Rank on the {game.replace('_', '-')} game ({matrix.shape[0]} x "
        f"{matrix.shape[1]})",
    )
    frame = pd.DataFrame(matrix, index=pd.Index(np.asarray(rows, dtype=object)),
                         columns=[str(c) for c in columns])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = estimator.fit(frame)
    out.write(
        f"alpha {model.alpha_:.4g}; {len(model.sink_components_)} sink "
        "component(s) in the response graph\n"
    )
    emit(args, out, agent_table(model))
    return 0
