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


def number(value, digits=3):
    """A float rounded for the terminal; NaN shows as ``-``."""
    value = float(value)
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.{digits}f}"
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


def csv_paths(path, tables):
    """The CSV file of each table: ``path``, then ``<stem>_<key><suffix>``."""
    stem, suffix = os.path.splitext(path)
    suffix = suffix or ".csv"
    return [path] + [f"{stem}_{table.key}{suffix}" for table in tables[1:]]


def emit(args, out, *tables):
    """Print the tables (a blank line between) and write them to ``--csv``."""
    for position, table in enumerate(tables):
        if position:
            out.write("\n")
        show_table(args, out, table)
    save_csv(args, out, tables)


def save_csv(args, out, tables):
    """Write the tables to ``--csv``: the first to its path, the others beside."""
    path = getattr(args, "csv", None)
    if not path:
        return
    from ..report import write_csv

    for table, target in zip(tables, csv_paths(path, tables), strict=True):
        try:
            write_csv(target, table.header, table.rows)
        except OSError as exc:
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        out.write(f"table written to {target}\n")


def say(args, message):
    """A progress line on stderr (silenced by ``--quiet``)."""
    if not getattr(args, "quiet", False):
        sys.stderr.write(f"[sklearn-eval] {printable(message)}\n")
        sys.stderr.flush()
