"""HTML building blocks of the report's sections: tables, notes, numbers.

Every table is written in full (no scroll box: printing shows every row) and
is sortable in the browser: each header holds a button, the page's inline
script sorts the rows when it is clicked (numbers numerically, text
alphabetically) and sets ``aria-sort`` on the header. A numeric column's cells
carry their raw value in ``data-sort`` so that "86%", "[0.1, 0.4]" or "—"
sort by the number they stand for ("—", a missing value, sorts last). Every
user string goes through :func:`html.escape`.
"""

from __future__ import annotations

import html
from typing import NamedTuple

import numpy as np

__all__ = []

DASH = "—"


class Cell(NamedTuple):
    """A table cell: the text shown and the number it sorts by (NaN: last)."""

    text: str
    key: float


def fmt(value, digits=3):
    """A number for a table cell: rounded, ``—`` for None or NaN, ``∞``."""
    if value is None:
        return DASH
    if isinstance(value, (str, np.str_)):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    value = float(value)
    if np.isnan(value):
        return DASH
    if np.isinf(value):
        return "∞" if value > 0 else "-∞"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def num(value, digits=3):
    """A numeric cell: :func:`fmt` text, sorted by the value itself."""
    key = np.nan if value is None else float(value)
    return Cell(fmt(value, digits), key)


def percent(value, digits=0):
    """A share shown as a percentage (``—`` when NaN), sorted by the share."""
    value = float(value)
    text = DASH if not np.isfinite(value) else f"{value:.{digits}%}"
    return Cell(text, value)


def interval(result, index, digits=3):
    """``[low, high]`` of a BootstrapResult's item, sorted by its lower bound."""
    if result is None or index < 0:
        return Cell(DASH, np.nan)
    low, high = result.low[index], result.high[index]
    if np.isnan(low) or np.isnan(high):
        return Cell(DASH, np.nan)
    return Cell(f"[{low:.{digits}f}, {high:.{digits}f}]", float(low))


def rank_cell(rank):
    """A rank (from :func:`~sklearn_eval.utils.rank_scores`), ``—`` when NaN."""
    rank = float(rank)
    return Cell(DASH, np.nan) if np.isnan(rank) else Cell(str(int(rank)), rank)


def rank_range(low, high):
    """``2–5`` (or ``3``) for a rank interval, sorted by its best rank."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return Cell(DASH, np.nan)
    low, high = int(round(low)), int(round(high))
    return Cell(str(low) if low == high else f"{low}–{high}", float(low))


def _is_numeric(cells):
    """A column is numeric when every cell is a Cell or a number."""
    return all(
        isinstance(c, (Cell, int, float, np.integer, np.floating))
        and not isinstance(c, bool)
        for c in cells
    )


def _cell_html(cell, label, numeric):
    if isinstance(cell, Cell):
        key = "" if np.isnan(cell.key) else repr(float(cell.key))
        text = cell.text
    else:
        text = str(cell)
        key = text if numeric else None
    css = ' class="label"' if label else ""
    sort = f' data-sort="{html.escape(key)}"' if numeric and key is not None else ""
    return f"<td{css}{sort}>{html.escape(text)}</td>"


def table(header, rows, *, labels=1, caption=None, tags=None, key=None):
    """A sortable HTML table; the first ``labels`` columns are text.

    Cells are strings, numbers or :class:`Cell`; a column after the first
    ``labels`` whose cells are all numbers or Cells sorts numerically and is
    right-aligned, any other column sorts alphabetically and is
    left-aligned. ``tags`` (one string or None per row) adds a small marker
    after the row's first cell (e.g. "reference"). ``key`` becomes the
    table's ``data-table`` attribute.
    """
    rows = [list(row) for row in rows]
    numeric = [
        k >= labels and bool(rows) and _is_numeric([row[k] for row in rows])
        for k in range(len(header))
    ]
    text = [not numeric[k] for k in range(len(header))]
    head = "".join(
        "<th"
        + (' class="label"' if text[k] else "")
        + (' data-type="number"' if numeric[k] else "")
        + f' scope="col" data-label="{html.escape(h)}">'
        + f'<button type="button">{html.escape(h)}</button></th>'
        for k, h in enumerate(header)
    )
    tags = tags or [None] * len(rows)
    body = []
    for row, tag in zip(rows, tags, strict=True):
        cells = [_cell_html(cell, text[k], numeric[k]) for k, cell in enumerate(row)]
        if tag:
            cells[0] = cells[0].replace(
                "</td>", f' <span class="tag">{html.escape(tag)}</span></td>', 1
            )
        body.append(f"<tr>{''.join(cells)}</tr>")
    title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    name = f' data-table="{html.escape(key)}"' if key else ""
    return (
        f'<table class="sortable"{name}>{title}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def paragraph(text):
    return f"<p>{html.escape(text)}</p>"


def note(text):
    return f'<p class="note">{html.escape(text)}</p>'


def heading(text):
    return f"<h3>{html.escape(text)}</h3>"


def degenerate_box(finding):
    """The visible note of a :class:`~._degenerate.Degeneracy`."""
    return (
        f'<div class="degenerate" role="note" data-degenerate="'
        f'{html.escape(finding.key)}"><strong>Degenerate:</strong> '
        f"{html.escape(finding.message)}</div>"
    )
