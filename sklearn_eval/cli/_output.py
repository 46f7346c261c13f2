"""What the commands print: aligned tables, their CSV copies, progress lines.

Tables hold raw values (labels, floats, ints); they are formatted for the
terminal (rounded numbers, control characters escaped so that a hostile label
cannot drive the terminal) and written to ``--csv`` in full precision through
:func:`sklearn_eval.report.write_csv`, which neutralises spreadsheet formulas.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field

__all__ = []


#: the exit codes of every command, with what they mean (``--help`` lists them)
EXIT_OK = 0
EXIT_FAILED = 1  # the input was fine but the command could not finish
EXIT_BAD_INPUT = 2  # bad options, an unreadable or malformed file, rejected data
EXIT_PARTIAL = 3  # the report was written, but some of its sections failed
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_FAILED: "the input was accepted but the command could not finish (e.g. "
    "an output file cannot be written)",
    EXIT_BAD_INPUT: "bad input: a usage error, a missing or malformed file, or "
    "data a method rejects",
    EXIT_PARTIAL: "report and demo: the report was written, but some of its "
    "sections or figures failed and show an error box",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}


class CommandError(Exception):
    """An error in the user's input (a file or the data), shown as one line."""


class FileError(CommandError):
    """An error about a file its message names (another than the input file).

    Shown as it is: the input file's path is not prefixed.
    """

    names_its_file = True


class UsageError(Exception):
    """Options that do not fit together, shown as one line with "(see --help)"."""


class OutputError(Exception):
    """An output file that cannot be written."""


def printable(text):
    """``text`` with control and format characters shown as escapes."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def one_line(message):
    """A message on one printable line (whitespace runs become one space)."""
    text = " ".join(str(message).split()) or type(message).__name__
    return printable(text)


# From here on a float prints in scientific notation: its fixed-point digits
# would run to hundreds of characters (payoffs may reach the float maximum)
# and past 16 significant digits they are not the value's anyway.
_SCIENTIFIC = 1e10


def number(value, digits=3):
    """A float rounded for the terminal; NaN shows as ``-``.

    ``digits`` decimals, or ``digits`` decimals of the mantissa from 1e10 up
    (``1.235e+200``).
    """
    value = float(value)
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.{digits}f}"
    if abs(float(text)) >= _SCIENTIFIC:  # 9999999999.9996 rounds up to 1e10
        return f"{value:.{max(digits, 1)}e}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def fixed(digits):
    """A column format: floats with ``digits`` decimals."""
    return lambda value: number(value, digits)


@dataclass
class Table:
    """A table to print and to write as CSV.

    ``formats`` gives, per column, how a raw value prints (None: as text);
    ``ranked`` tables are cut to ``--top`` rows on the terminal (the CSV
    always holds every row); ``key`` names the CSV file of a second table.
    """

    header: list
    rows: list
    formats: list = field(default_factory=list)
    title: str | None = None
    key: str = "table"
    ranked: bool = True

    def formatted(self, rows):
        formats = self.formats or [None] * len(self.header)
        return [
            [
                printable(value) if fmt is None else fmt(value)
                for value, fmt in zip(row, formats, strict=True)
            ]
            for row in rows
        ]


def format_table(header, rows):
    """Align text rows under a header and a dashed rule."""
    table = [[str(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[k]) for row in table) for k in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))

    lines = [line(table[0]), line(["-" * w for w in widths])]
    lines += [line(row) for row in table[1:]]
    return "\n".join(text.rstrip() for text in lines)


def show_table(args, out, table):
    """Print a table, cut to ``--top`` rows when it is a ranking."""
    if table.title:
        out.write(table.title + "\n")
    top = getattr(args, "top", 0) or 0
    shown = table.rows[:top] if top and table.ranked else table.rows
    out.write(format_table(table.header, table.formatted(shown)) + "\n")
    if len(shown) < len(table.rows):
        out.write(f"... {len(table.rows) - len(shown)} more rows (--top 0 shows all)\n")


def csv_paths(path, keys):
    """The CSV files of ``--csv PATH``: ``path``, then ``<stem>_<key><suffix>``.

    ``keys`` name the tables written beside the first one.
    """
    stem, suffix = os.path.splitext(path)
    suffix = suffix or ".csv"
    return [path] + [f"{stem}_{key}{suffix}" for key in keys]


def emit(args, out, *tables):
    """Print the tables (a blank line between) and write them to ``--csv``."""
    for position, table in enumerate(tables):
        if position:
            out.write("\n")
        show_table(args, out, table)
    save_csv(args, out, tables)


def save_csv(args, out, tables):
    """Write the tables to ``--csv``: the first to its path, the others beside.

    The files are written together, all or none: each to a temporary file
    first, then renamed over its target; when one cannot be written, none
    of the targets changes (:func:`~sklearn_eval.utils._files.atomic_write_all`).
    """
    path = getattr(args, "csv", None)
    if not path:
        return
    keys = [table.key for table in tables[1:]]
    check_outputs(args, keys)
    from ..report import write_csv
    from ..utils._files import atomic_write_all

    targets = csv_paths(path, keys)
    try:
        with atomic_write_all(targets, newline="") as handles:
            for table, handle in zip(tables, handles, strict=True):
                write_csv(handle, table.header, table.rows)
    except OSError as exc:
        spelled = {os.path.abspath(t): t for t in targets}
        target = spelled.get(os.path.abspath(str(exc.filename or "")),
                             ", ".join(targets))
        raise OutputError(
            f"cannot write {target}: {exc.strerror or exc}; no table file was "
            "written"
        ) from None
    for target in targets:
        out.write(f"table written to {target}\n")


# ---------------------------------------------------------------------------
# No output may be an input
# ---------------------------------------------------------------------------
# A command writes its outputs (``-o``, ``--csv`` and the tables written beside
# it) after reading its inputs, so an output path naming the input (or a file
# inside an input folder of logs) would replace the data by the result.
# check_outputs runs before every command (_main) on the paths its options
# name, and again in save_csv on the files actually written.


def input_paths(args):
    """``(option, path)`` of the files and folders a command reads."""
    found = []
    if getattr(args, "path", None) is not None:
        found.append(("the input", args.path))
    if getattr(args, "items", None) is not None:
        found.append(("the --items", args.items))
    return found


def output_paths(args, keys=None):
    """``(option, path)`` of the files a command writes.

    ``keys`` are the names of the tables written beside ``--csv``
    (:func:`._output.csv_paths`); None takes the ones the command declares
    (``add_table_output(..., beside=...)``).
    """
    found = []
    if getattr(args, "output", None) is not None:
        found.append(("-o", args.output))
    csv = getattr(args, "csv", None)
    if csv:
        if keys is None:
            keys = getattr(args, "csv_beside", ())
        found.extend(("--csv", path) for path in csv_paths(csv, keys))
    return found


def _real(path):
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def _same_file(output, source):
    """Whether writing ``output`` replaces ``source`` or a file in it."""
    if os.path.isdir(source):
        folder = _real(source)
        target = _real(output)
        return target == folder or target.startswith(folder.rstrip(os.sep) + os.sep)
    if not (os.path.exists(output) and os.path.exists(source)):
        return False
    try:
        return os.path.samefile(output, source)
    except OSError:  # pragma: no cover - a file that vanished meanwhile
        return False


def check_outputs(args, keys=None):
    """Refuse a run whose outputs would replace an input or each other.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    keys : sequence of str or None, default=None
        The tables written beside ``--csv`` (None: those the command
        declares).

    Raises
    ------
    UsageError
        If an output file is an input file (by :func:`os.path.samefile`, so
        also through a link), lies in an input folder, or two outputs are
        the same file.
    """
    sources = input_paths(args)
    outputs = output_paths(args, keys)
    main = {option: path for option, path in reversed(outputs)}
    for option, path in outputs:
        for what, source in sources:
            if not _same_file(path, source):
                continue
            head = f"{option} {main[option]}"
            if os.fspath(path) != os.fspath(main[option]):
                head += f" would write {path}, which"
            if not os.path.isdir(source):
                where = f"is {what} file {source}: writing it would destroy the input"
            else:
                where = (
                    f"is in {what} folder {source}: the folder read would "
                    "change"
                )
            raise UsageError(f"{head} {where}; write the output to another path")
    seen = {}
    for option, path in outputs:
        real = _real(path)
        if real in seen:
            raise UsageError(
                f"{seen[real][0]} {seen[real][1]} and {option} {path} are the same "
                "file; give each output its own path"
            )
        seen[real] = (option, path)

def say(args, message):
    """A progress line on stderr (silenced by ``--quiet``)."""
    if not getattr(args, "quiet", False):
        sys.stderr.write(f"[sklearn-eval] {printable(message)}\n")
        sys.stderr.flush()
