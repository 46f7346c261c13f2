"""``sklearn-eval compress``: the few items that predict the full benchmark."""

from __future__ import annotations

import warnings

import numpy as np

from ._inputs import drop_empty_agents, read_scores
from ._options import (
    add_drop_empty,
    add_matrix_input,
    positive_int,
    seed,
)
from ._output import CommandError, OutputError, number, say

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "compress",
        help="choose the items whose responses predict a model's full-benchmark "
        "accuracy, and write them to an item file",
    )
    add_matrix_input(parser)
    add_drop_empty(parser)
    parser.add_argument(
        "--n-items", type=positive_int, default=100, help="items to keep (100)"
    )
    parser.add_argument(
        "--selection",
        choices=("auto", "random", "stratified", "anchor", "information",
                 "predictive"),
        default="auto",
        help="how items are chosen (auto: by cross-validation, default)",
    )
    parser.add_argument(
        "--method",
        "--estimator",
        dest="method",
        choices=("auto", "mean", "irt", "gp-irt", "regression"),
        default="auto",
        help="how the full accuracy is estimated (auto: by cross-validation); "
        "--estimator is its former name",
    )
    parser.add_argument(
        "--random-state", type=seed, default=0, help="seed (0)"
    )
    parser.add_argument(
        "-o", "--output", default="items.csv",
        help="the item file to write (default items.csv); `sklearn-eval score` "
        "reads it",
    )
    parser.set_defaults(handler=run)
    return parser


def run(args, out):
    from ..selection import SubsetScoreEstimator, write_items_csv

    table = read_scores(args)
    rows = drop_empty_agents(args, table.values, table.agents)
    values, agents = table.values[rows], table.agents[rows]
    observed = values[~np.isnan(values)]
    if observed.size and not np.isin(observed, (0.0, 1.0)).all():
        raise CommandError(
            f"{args.path}: compress needs 0/1 responses (NaN = not run); "
            "binarise scores first"
        )
    if args.n_items >= values.shape[1]:
        raise CommandError(
            f"--n-items {args.n_items} keeps every item of {args.path} "
            f"({values.shape[1]}); choose fewer"
        )
    import pandas as pd

    frame = pd.DataFrame(values, index=agents,
                         columns=[str(t) for t in table.tasks])
    say(args, f"choosing {args.n_items} of {values.shape[1]} items "
              f"({values.shape[0]} models)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = SubsetScoreEstimator(
            n_items=args.n_items, selection=args.selection,
            method=args.method, random_state=args.random_state,
        ).fit(frame)
    try:
        write_items_csv(est, args.output)
    except OSError as exc:
        reason = exc.strerror or exc
        raise OutputError(f"cannot write {args.output}: {reason}") from None
    out.write(
        f"{est.selected_items_.size} items chosen ({est.selection_} selection, "
        f"{est.method_} estimate); cross-validated mean absolute error of the "
        f"full accuracy {number(est.cv_mae_, 4)}\n"
    )
    out.write(f"item file written to {args.output}\n")
    return 0
