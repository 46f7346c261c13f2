"""Command line interface: ``sklearn-eval`` and ``python -m sklearn_eval``.

Every command prints its result on stdout; errors in the user's input are one
line on stderr and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import __version__

__all__ = ["main"]


class CommandError(Exception):
    """An error in the user's input, reported as one line."""


def _format_table(header, rows):
    table = [[str(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[k]) for row in table) for k in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))

    lines = [line(table[0]), line(["-" * w for w in widths])]
    lines += [line(row) for row in table[1:]]
    return "\n".join(text.rstrip() for text in lines)


def _demo(args, out):
    from .datasets import describe_datasets, load_atari

    out.write(f"sklearn-eval {__version__}: built-in benchmark data\n\n")
    rows = [
        (d["name"], "x".join(str(s) for s in d["shape"]), d["kind"], d["licence"])
        for d in describe_datasets()
    ]
    out.write(_format_table(("dataset", "shape", "kind", "licence"), rows) + "\n\n")
    atari = load_atari()
    scores = np.asarray(atari.data, dtype=np.float64)
    agents = list(atari.agent_names)
    complete = ~np.isnan(scores).any(axis=0)
    out.write(
        f"Atari (rldb, no-op starts): {len(agents)} agents x {scores.shape[1]} games, "
        f"{np.isnan(scores).mean():.1%} missing, {complete.sum()} games scored by "
        "every agent.\n"
    )
    ranks = np.argsort(np.argsort(-scores[:, complete], axis=0), axis=0) + 1
    mean_rank = ranks.mean(axis=1)
    order = np.argsort(mean_rank)[:10]
    rows = [(k + 1, agents[a], f"{mean_rank[a]:.1f}") for k, a in enumerate(order)]
    out.write("Top 10 agents by mean per-game rank (uniform average over games):\n")
    out.write(_format_table(("#", "agent", "mean rank"), rows) + "\n")
    return 0


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="sklearn-eval",
        description="Evaluate the evaluators: rankings and diagnostics for "
        "benchmark results.",
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo", help="summarise and analyse the built-in benchmark data"
    )
    demo.set_defaults(handler=_demo)
    return parser


def main(argv=None, out=None):
    """Run the command line interface; return the exit code.

    Examples
    --------
    >>> import io
    >>> from sklearn_eval.cli import main
    >>> main(["demo"], out=io.StringIO())
    0
    """
    out = sys.stdout if out is None else out
    parser = _build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(out)
        return 2
    try:
        return args.handler(args, out)
    except (CommandError, ValueError, TypeError, OSError) as exc:
        sys.stderr.write(f"sklearn-eval {args.command}: error: {exc}\n")
        return 1
