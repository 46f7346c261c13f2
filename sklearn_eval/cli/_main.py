"""The ``sklearn-eval`` parser, and how errors become one line and an exit code."""

from __future__ import annotations

import importlib
import sys
import warnings

from .. import __version__
from ._options import Parser, add_common
from ._output import (
    EXIT_BAD_INPUT,
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    CommandError,
    OutputError,
    UsageError,
    check_outputs,
    one_line,
)

__all__ = ["main"]

# one module per command, imported when the parser is built (numpy and the
# estimators are not needed to answer --version)
COMMANDS = (
    "_rank", "_nash", "_alpharank", "_vote", "_irt", "_generality", "_select",
    "_compress", "_score", "_report", "_demo", "_compare", "_plan", "_advise",
)


def exit_code_help():
    """The exit codes as one paragraph, for the epilog of every ``--help``."""
    return "exit codes: " + "; ".join(
        f"{code} {meaning}" for code, meaning in EXIT_CODES.items()
    ) + "."


def build_parser():
    parser = Parser(
        prog="sklearn-eval",
        description="Evaluate the evaluators: rankings and diagnostics for "
        "benchmark results.",
        epilog=exit_code_help(),
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=Parser
    )
    parser.commands = {}
    for name in COMMANDS:
        command = importlib.import_module(f".{name}", __package__)
        sub = command.add_parser(commands)
        sub.epilog = exit_code_help()
        add_common(sub)
        parser.commands[sub.prog.rsplit(" ", 1)[-1]] = sub
    return parser


def _naming_the_file(args, message):
    """The message, prefixed by the input file unless it names it already."""
    path = getattr(args, "path", None)
    if path is None or str(path) in message:
        return message
    return f"{path}: {message}"


def _fail(args, message, code):
    sys.stderr.write(f"sklearn-eval {args.command}: error: {message}\n")
    return code


def _call(args, out):
    """The command, once its outputs are known not to replace its inputs."""
    check_outputs(args)
    return args.handler(args, out)


def _run(args, out):
    """Run the command; every error becomes one line on stderr and an exit code."""
    try:
        return _call(args, out)
    except KeyboardInterrupt:
        sys.stderr.write(f"sklearn-eval {args.command}: interrupted\n")
        return EXIT_INTERRUPTED
    except UsageError as exc:
        return _fail(args, f"{one_line(exc)} (see --help)", EXIT_BAD_INPUT)
    except OutputError as exc:
        return _fail(args, one_line(exc), EXIT_FAILED)
    except (CommandError, ValueError, TypeError) as exc:
        # CSVError is a ValueError; the library's ValueErrors reject the data
        message = one_line(exc)
        if not getattr(exc, "names_its_file", False):  # e.g. the --items file
            message = _naming_the_file(args, message)
        return _fail(args, message, EXIT_BAD_INPUT)
    except Exception as exc:  # never a traceback: one line, details on --debug
        message = f"{type(exc).__name__}: {one_line(exc)}"
        return _fail(
            args,
            f"{_naming_the_file(args, message)} (rerun with --debug for details)",
            EXIT_FAILED,
        )


def _warning_printer():
    """A ``showwarning`` that prints each distinct warning once, on one line.

    The same condition met by several analyses of one run (e.g. intervals of
    zero width, by the ratings and their rank sets) is said once.
    """
    shown = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = one_line(message)
        if text not in shown:
            shown.add(text)
            sys.stderr.write(f"sklearn-eval: warning: {text}\n")

    return show


def main(argv=None, out=None):
    """Run the command line interface; return the exit code.

    Parameters
    ----------
    argv : list of str or None, default=None
        Arguments (``sys.argv[1:]`` when None).
    out : file-like or None, default=None
        Where results are printed (stdout when None). Progress, warnings and
        errors go to stderr.

    Returns
    -------
    int
        0 on success; 2 for bad input (options, an unreadable or malformed
        file, data a method rejects), with one line on stderr naming the file
        and the problem; 1 when a command cannot finish otherwise (e.g. its
        output cannot be written); 3 when ``report`` or ``demo`` wrote the
        report but some of its sections or figures failed (they show an
        error box, and stderr names them); 130 when interrupted.

    Examples
    --------
    >>> import io, os, tempfile
    >>> from sklearn_eval.cli import main
    >>> path = os.path.join(tempfile.mkdtemp(), "m.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("first,second,outcome\\na,b,1\\nb,c,1\\nc,a,0\\na,c,0.5\\n")
    >>> out = io.StringIO()
    >>> main(["rank", path, "--model", "elo", "--method", "online", "--quiet"],
    ...      out=out)
    0
    >>> print(out.getvalue().splitlines()[3])
    1     a       1514.9  3
    """
    out = sys.stdout if out is None else out
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:
        out.write(f"{__version__}\n")
        return EXIT_OK
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version or a usage error
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if getattr(args, "handler", None) is None:
        parser.print_help(out)
        return EXIT_BAD_INPUT
    # each option's default: an option given that the input does not use is
    # warned of (_inputs.warn_ignored)
    args.option_default = parser.commands[args.command].get_default
    with warnings.catch_warnings():
        warnings.showwarning = _warning_printer()
        if args.debug:
            return _call(args, out)
        return _run(args, out)
