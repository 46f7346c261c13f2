"""``sklearn-eval plan``: items or votes needed for a difference, or the power."""

from __future__ import annotations

from ._inputs import warn_ignored
from ._options import (
    int_at_least,
    number_in,
    open_fraction,
    positive_float,
    positive_int,
)
from ._output import CommandError, Table, emit, fixed

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "plan",
        help="items or votes needed to detect a difference (or the power of n)",
    )
    parser.add_argument(
        "--effect", type=positive_float, required=True,
        help="the difference to detect: accuracy points for items (0.05), "
        "rating points for matches (20 Elo)",
    )
    parser.add_argument(
        "--data", choices=("items", "matches"), default="items",
        help="items: two models on the same items (default); matches: votes",
    )
    parser.add_argument(
        "--power", type=open_fraction, default=0.8, help="target power (0.8)"
    )
    parser.add_argument(
        "--n", type=positive_int, default=None,
        help="print the power of N items or votes instead of the n needed",
    )
    parser.add_argument(
        "--confidence-level", type=open_fraction, default=0.95,
        help="two-sided test at 1 - level (0.95)",
    )
    parser.add_argument(
        "--baseline", type=open_fraction, default=0.5,
        help="items: the weaker model's accuracy (0.5)",
    )
    parser.add_argument(
        "--correlation", type=number_in(-1.0, 1.0), default=0.0,
        help="items: correlation of the two models' item results (0)",
    )
    parser.add_argument(
        "--scale", choices=("elo", "logit"), default="elo",
        help="matches: the scale of --effect (elo)",
    )
    parser.add_argument(
        "--tie-rate", type=number_in(0.0, 1.0, low_closed=True), default=0.0,
        help="matches: share of ties (0)"
    )
    parser.add_argument(
        "--n-agents", type=int_at_least(2), default=2,
        help="matches: 2 head to head, k for a uniform round robin of k agents",
    )
    parser.set_defaults(handler=run)
    return parser


def run(args, out):
    from ..uncertainty import power, sample_size

    if args.data == "items":
        warn_ignored(args, ("scale", "tie_rate", "n_agents"),
                     "it describes votes (--data matches), not items")
    else:
        warn_ignored(args, ("baseline", "correlation"),
                     "it describes items (--data items), not votes")
    keywords = {
        "data": args.data, "confidence_level": args.confidence_level,
        "scale": args.scale, "tie_rate": args.tie_rate, "n_agents": args.n_agents,
        "baseline": args.baseline, "correlation": args.correlation,
    }
    unit = "items" if args.data == "items" else "votes"
    try:
        if args.n is not None:
            value = power(args.n, args.effect, **keywords)
            rows = [[args.effect, args.n, value]]
            header, formats = ["effect", unit, "power"], [None, str, fixed(3)]
        else:
            value = sample_size(args.effect, power=args.power, **keywords)
            rows = [[args.effect, args.power, value]]
            header, formats = ["effect", "power", f"{unit} needed"], [None, None, str]
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    emit(args, out, Table(header, rows, formats, key="plan", ranked=False))
    return 0
