"""Text cells that are safe to open in a spreadsheet, and back.

A spreadsheet evaluates a text cell that starts with ``=``, ``+``, ``-`` or
``@`` (or a tab or carriage return) as a formula, so an agent named
``=HYPERLINK(...)`` in a benchmark file would run when the output is opened
(CSV or formula injection). OWASP's rule neutralises such a cell with a
leading single quote, which spreadsheets show as text; plain numbers such as
``-35.2`` stay as they are. :func:`neutralize_text` applies the rule to every
line of a cell (some importers read a quoted line break as a new row); every
CSV file the package writes uses it.

Files that are also read back by the package (item files) need the rule to
be undone exactly: :func:`escape_label` quotes every line the rule would
quote and, so that the quoting is reversible, every line that already
starts with a quote; :func:`unescape_label` removes one leading quote from
each line.
"""

from __future__ import annotations

import re

__all__ = ["escape_label", "neutralize_text", "unescape_label"]

_TRIGGERS = frozenset("=+-@")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


def _neutralize_line(line):
    # spreadsheets skip leading blanks (also no-break spaces) before a formula
    stripped = line.lstrip()
    if line[:1] in ("\t", "\r"):
        return "'" + line
    if stripped[:1] in _TRIGGERS and not _NUMBER.fullmatch(stripped):
        return "'" + line
    return line


def neutralize_text(text):
    """Text a spreadsheet shows as text: a quote before each formula line.

    Each line of a multi-line cell is checked, since some spreadsheet
    importers read a quoted line break as a new row.

    Examples
    --------
    >>> from sklearn_eval.utils._spreadsheet import neutralize_text
    >>> neutralize_text("=HYPERLINK(1)"), neutralize_text("-35.2")
    ("'=HYPERLINK(1)", '-35.2')
    """
    parts = _LINE_BREAK.split(text)
    parts[::2] = [_neutralize_line(line) for line in parts[::2]]
    cell = "".join(parts)
    return "'" + cell if cell.startswith("\r") else cell


def escape_label(text):
    """``text`` neutralised for a spreadsheet, reversibly.

    Each line the rule of :func:`neutralize_text` would quote, and each line
    that starts with a quote already, gets one leading quote (a first line
    that is empty before a carriage return too); :func:`unescape_label`
    undoes it.

    Examples
    --------
    >>> from sklearn_eval.utils._spreadsheet import escape_label, unescape_label
    >>> [escape_label(t) for t in ("=1+1", "'=1+1", "-35.2", "plain")]
    ["'=1+1", "''=1+1", '-35.2', 'plain']
    >>> unescape_label(escape_label("'=1+1"))
    "'=1+1"
    """
    parts = _LINE_BREAK.split(text)
    lines = parts[::2]
    for k, line in enumerate(lines):
        if line.startswith("'") or _neutralize_line(line) != line:
            lines[k] = "'" + line
    if not lines[0] and len(parts) > 1 and parts[1].startswith("\r"):
        lines[0] = "'"
    parts[::2] = lines
    return "".join(parts)


def unescape_label(text):
    """Undo :func:`escape_label`: one leading quote off each line."""
    parts = _LINE_BREAK.split(text)
    parts[::2] = [line[1:] if line.startswith("'") else line for line in parts[::2]]
    return "".join(parts)
