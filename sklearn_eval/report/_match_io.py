"""Reading tables of matches (two players and an outcome) from CSV files.

Every error names the file, the column and the line, as the result-table
readers of :mod:`._io` do (pandas parses; the checks are shared with them).
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ..utils._outcomes import OUTCOME_WORDS
from ._io import (
    CSVError,
    _column,
    _column_values,
    _columns,
    _label_column,
    _numeric_column,
    _parse_number,
    _read_csv_lines,
)

__all__ = ["MatchTable", "read_matches"]

# the outcome vocabulary of the API (check_matches accepts the same words)
_OUTCOME_WORDS = OUTCOME_WORDS


class MatchTable(NamedTuple):
    """Matches read from a file: players, first player's outcome, weights."""

    X: np.ndarray
    y: np.ndarray
    sample_weight: np.ndarray | None
    source: str


def _parse_outcome(text, column, line, name):
    token = text.strip().lower()
    if token in _OUTCOME_WORDS:
        return _OUTCOME_WORDS[token]
    try:
        value = _parse_number(token, column, line, name)
    except CSVError:
        value = np.inf  # not a number: reported below as a bad outcome
    if np.isnan(value):
        raise CSVError(f"{name}, line {line}, column {column!r}: missing value")
    if value not in (0.0, 0.5, 1.0):
        raise CSVError(
            f"{name}, line {line}, column {column!r}: outcome {text.strip()!r} is "
            "not 1 (win), 0 (loss) or 0.5 (draw)"
        )
    return value


def _outcome_column(rows, index, column, name, lines):
    """Outcomes of a column: each distinct token is parsed once."""
    cells = _column_values(rows, index)
    mapping = {}
    for token in set(cells):
        try:
            mapping[token] = _parse_outcome(token, column, 0, name)
        except CSVError:
            bad = int(np.flatnonzero(np.asarray(cells, dtype=object) == token)[0])
            _parse_outcome(token, column, lines[bad], name)  # raises with the line
    if len(mapping) > 20:
        return np.fromiter(map(mapping.__getitem__, cells), np.float64, len(cells))
    tokens = np.array(cells)
    values = np.empty(len(cells), dtype=np.float64)
    for token, value in mapping.items():
        values[tokens == token] = value
    return values


def read_matches(
    path,
    *,
    first_col="first",
    second_col="second",
    outcome_col="outcome",
    first_score_col=None,
    second_score_col=None,
    weight_col=None,
    sep=None,
):
    """Read a table of matches (two players and an outcome) from a CSV file.

    Parameters
    ----------
    path : str or path-like
    first_col, second_col : str
        Columns holding the two players' labels.
    outcome_col : str, default="outcome"
        Outcome for the first player: 1, 0 or 0.5, or the words win / loss /
        draw (also w, l, d, tie, 1-0, 0-1, 1/2-1/2). Not used when both score
        columns are given.
    first_score_col, second_score_col : str or None, default=None
        Columns with the two players' scores (e.g. goals); the outcome is
        then 1, 0.5 or 0 as the first score is above, equal to or below the
        second.
    weight_col : str or None, default=None
        Optional column of non-negative match weights, not all zero.
    sep : str or None, default=None

    Returns
    -------
    MatchTable

    Raises
    ------
    CSVError
        For a missing file or column, a bad outcome, a missing player or
        score, a negative weight, or a player against itself (the line is
        named), and for weights that are all zero or whose sum overflows.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.report import read_matches
    >>> path = os.path.join(tempfile.mkdtemp(), "m.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("first,second,outcome\\nA,B,win\\nB,C,0.5\\n")
    >>> table = read_matches(path)
    >>> table.X.tolist(), table.y.tolist()
    ([['A', 'B'], ['B', 'C']], [1.0, 0.5])
    """
    name = os.fspath(path)
    return _read_matches(
        name,
        first_col,
        second_col,
        outcome_col,
        first_score_col,
        second_score_col,
        weight_col,
        sep,
    )


def _read_matches(
    name,
    first_col,
    second_col,
    outcome_col,
    first_score_col,
    second_score_col,
    weight_col,
    sep,
):
    header, rows, lines = _read_csv_lines(name, sep=sep)
    first_index, second_index = _columns(
        header, [(first_col, "--first-col"), (second_col, "--second-col")], name
    )
    first = _label_column(rows, first_index, first_col, name, lines)
    second = _label_column(rows, second_index, second_col, name, lines)
    same = np.flatnonzero(first == second)
    if same.size:
        raise CSVError(
            f"{name}, line {lines[int(same[0])]}: player {first[same[0]]!r} plays "
            "against itself"
        )
    if (first_score_col is None) != (second_score_col is None):
        raise CSVError("give both --first-score-col and --second-score-col, or neither")
    if first_score_col is not None:
        y = _outcomes_from_scores(
            header, rows, lines, name, first_score_col, second_score_col
        )
    else:
        index = _column(header, outcome_col, name, "--outcome-col")
        y = _outcome_column(rows, index, outcome_col, name, lines)
    weights = None
    if weight_col is not None:
        index = _column(header, weight_col, name, "--weight-col")
        weights = _numeric_column(rows, index, weight_col, name, lines)
        _reject_missing(weights, weight_col, name, lines)
        negative = np.flatnonzero(weights < 0)
        if negative.size:
            raise CSVError(
                f"{name}, line {lines[int(negative[0])]}, column {weight_col!r}: "
                "negative weight"
            )
        with np.errstate(over="ignore"):
            total = float(np.sum(weights))
        if total == 0:
            raise CSVError(
                f"{name}, column {weight_col!r}: every weight is 0: the weights "
                "sum to 0, so no match would count"
            )
        if not np.isfinite(total):
            raise CSVError(
                f"{name}, column {weight_col!r}: the weights sum to more than a "
                "float can hold; rescale them (only their ratios matter)"
            )
    X = np.column_stack([first, second])
    return MatchTable(X, y, weights, name)


def _reject_missing(values, column, name, lines):
    missing = np.flatnonzero(np.isnan(values))
    if missing.size:
        raise CSVError(
            f"{name}, line {lines[int(missing[0])]}, column {column!r}: missing value"
        )


def _outcomes_from_scores(header, rows, lines, name, first_score_col, second_score_col):
    columns = []
    for column, option in (
        (first_score_col, "--first-score-col"),
        (second_score_col, "--second-score-col"),
    ):
        index = _column(header, column, name, option)
        values = _numeric_column(rows, index, column, name, lines)
        _reject_missing(values, column, name, lines)
        columns.append(values)
    return 0.5 + 0.5 * np.sign(columns[0] - columns[1])
