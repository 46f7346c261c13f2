"""``sklearn-eval score``: full-benchmark accuracy from the items of an item file."""

from __future__ import annotations

import warnings

import numpy as np

from ._inputs import read_scores
from ._options import add_matrix_input, add_table_output, open_fraction
from ._output import CommandError, FileError, Table, emit, fixed, say

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "score",
        help="estimate new models' full-benchmark accuracy from their responses "
        "to the items of an item file (from `sklearn-eval compress`)",
    )
    add_matrix_input(parser)
    parser.add_argument(
        "--items", required=True, help="the item file written by compress"
    )
    parser.add_argument(
        "--confidence", type=open_fraction, default=0.95,
        help="level of the prediction intervals (0.95)",
    )
    add_table_output(parser)
    parser.set_defaults(handler=run)
    return parser


def _read_items(path):
    """The estimator of the ``--items`` file; errors name that file."""
    from ..selection import read_items_csv

    try:
        return read_items_csv(path)
    except FileNotFoundError:
        raise FileError(f"--items {path}: item file not found") from None
    except IsADirectoryError:
        raise FileError(f"--items {path} is a directory, not an item file") from None
    except OSError as exc:
        reason = exc.strerror or exc
        raise FileError(f"--items {path}: cannot read the item file ({reason})") \
            from None
    except ValueError as exc:  # the message starts with the file's name
        raise FileError(f"--items {exc}") from None


def run(args, out):
    import pandas as pd

    if not 0 < args.confidence < 1:
        raise CommandError(f"--confidence must lie in (0, 1); got {args.confidence}")
    est = _read_items(args.items)
    table = read_scores(args)
    names = [str(t) for t in est.feature_names_in_[est.selected_items_]] if hasattr(
        est, "feature_names_in_") else None
    frame = pd.DataFrame(table.values, columns=[str(t) for t in table.tasks])
    if names is not None:
        missing = [n for n in names if n not in frame.columns]
        if missing:
            raise CommandError(
                f"{args.path} lacks {len(missing)} of the item file's items, "
                f"e.g. {missing[:3]}"
            )
        frame = frame[names]
    say(args, f"scoring {frame.shape[0]} models on {frame.shape[1]} items")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        accuracy = est.predict(frame)
        low, high = est.predict_interval(frame, level=args.confidence)
    order = np.argsort(-accuracy, kind="stable")
    rows = [
        [table.agents[k], float(accuracy[k]), float(low[k]), float(high[k])]
        for k in order
    ]
    level = f"{args.confidence:.0%}"
    emit(args, out, Table(
        ["model", "estimated accuracy", f"{level} low", f"{level} high"],
        rows,
        [None, fixed(4), fixed(4), fixed(4)],
        title="estimated full-benchmark accuracy:",
        key="models",
    ))
    return 0
