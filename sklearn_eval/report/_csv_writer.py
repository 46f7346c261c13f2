"""Writing tables to CSV files that are safe to open in a spreadsheet.

A spreadsheet evaluates a text cell that starts with ``=``, ``+``, ``-`` or
``@`` (or a tab or carriage return) as a formula, so an agent named
``=HYPERLINK(...)`` in a benchmark file would run when the output is opened
(CSV or formula injection). :func:`write_csv` neutralises such cells with
OWASP's rule, a leading single quote, which spreadsheets show as text; numbers
stay numbers. Every CSV file the package writes goes through it.
"""

from __future__ import annotations

import csv
import math
import numbers
import os

from ..utils._files import atomic_write
from ..utils._spreadsheet import neutralize_text

__all__ = ["write_csv"]

# the rule lives with the shared tools (item files use it too)
_text_cell = neutralize_text


def _number_cell(value):
    value = float(value)
    if math.isnan(value):
        return ""
    return repr(value)


def _cell(value):
    """One CSV field: numbers in full precision, NaN empty, text neutralised."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return _number_cell(value)
    return _text_cell(str(value))


def write_csv(path, header, rows):
    """Write a table to a CSV file, neutralising spreadsheet formulas.

    Text cells whose first visible character (of any line) is ``=``, ``+``,
    ``-`` or ``@``, or that start with a tab or a carriage return, get a
    leading single quote (OWASP's rule against CSV injection), unless the
    text is a plain number such as ``-35.2``. Numbers are written in full
    precision, NaN and None as empty cells. The file is UTF-8.

    Parameters
    ----------
    path : str, path-like or text file
        The file to write (replaced if it exists, atomically: a reader, or a
        process killed while writing, sees the old file or the whole new
        one, never a partial file), or an open text file (opened with
        ``newline=""``) to write the table to, e.g. one of the files of
        several written together.
    header : sequence of str
        Column names.
    rows : iterable of sequences
        The table's rows, each with as many cells as ``header``; cells are
        numbers, strings or None.

    Returns
    -------
    path : str or file
        The path written (the file itself when given one).

    Raises
    ------
    OSError
        If the file cannot be written.
    ValueError
        If a row does not have as many cells as the header.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.report import write_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = write_csv(path, ["agent", "score"],
    ...               [["=HYPERLINK(1)", -35.2], ["-35.2", float("nan")]])
    >>> print(open(path, encoding="utf-8").read())
    agent,score
    '=HYPERLINK(1),-35.2
    -35.2,
    <BLANKLINE>
    """
    header = [_cell(column) for column in header]
    lines = []
    for number, row in enumerate(rows, start=1):
        cells = [_cell(value) for value in row]
        if len(cells) != len(header):
            raise ValueError(
                f"row {number} has {len(cells)} cells; the header has {len(header)}."
            )
        lines.append(cells)
    if hasattr(path, "write"):
        _write_rows(path, header, lines)
        return path
    name = os.fspath(path)
    with atomic_write(name, newline="") as handle:
        _write_rows(handle, header, lines)
    return name


def _write_rows(handle, header, lines):
    writer = csv.writer(handle)
    writer.writerow(header)
    writer.writerows(lines)
