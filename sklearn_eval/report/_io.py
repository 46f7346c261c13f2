"""Reading benchmark results from CSV files for the command line and the report.

Only the standard library's :mod:`csv` and numpy are used (pandas stays
optional). Every error names the file, the column and the line of the file,
so that the command line can print it as one line.

Three shapes are read:

* a **long** result table: one row per (agent, task, score), repeats allowed
  (repeated scores of a pair are runs: their mean and spread are kept);
* a **wide** result matrix: one row per agent, the agent's name in one column
  and one numeric column per task;
* a **matches** table: one row per game with the two players and the first
  player's outcome (or both players' scores), read by :mod:`._match_io`.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import gzip
import io
import os
import zlib
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..utils import encode_players

__all__ = [
    "CSVError",
    "ResultTable",
    "detect_format",
    "read_csv",
    "read_result_matrix",
]

# Cells that mean "no value": pandas' default markers (any case) and "-". A
# score cell holding one is missing; a label cell holding one is an error.
_MISSING = frozenset(
    {
        "",
        "-",
        "na",
        "n/a",
        "nan",
        "-nan",
        "null",
        "none",
        "<na>",
        "#n/a",
        "#na",
        "#n/a n/a",
        "1.#ind",
        "-1.#ind",
        "1.#qnan",
        "-1.#qnan",
    }
)


class CSVError(ValueError):
    """A problem with a CSV file, described in one line."""


class ResultTable(NamedTuple):
    """An agents x tasks result matrix read from a file.

    ``values`` holds the mean score of every (agent, task) cell (NaN when
    missing); ``stds`` the population standard deviation of repeated scores
    and ``counts`` their number (both None for a wide file, where every cell
    is one score).
    """

    values: np.ndarray
    agents: np.ndarray
    tasks: np.ndarray
    stds: np.ndarray | None
    counts: np.ndarray | None
    source: str


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _read_text(name):
    """The file's text: gunzipped when ``.gz``, UTF-8 or BOM-marked UTF-16."""
    try:
        with open(name, "rb") as handle:
            raw = handle.read()
        if name.endswith(".gz"):
            raw = gzip.decompress(raw)
    except FileNotFoundError:
        raise CSVError(f"file not found: {name}") from None
    except (OSError, EOFError, zlib.error) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise CSVError(f"cannot read {name}: {reason}") from None
    encoding = "utf-8"
    for bom, code in _BOMS:
        if raw.startswith(bom):
            raw, encoding = raw[len(bom) :], code
            break
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CSVError(
            f"{name}, line {line}: not {encoding.upper()} text (byte "
            f"0x{raw[exc.start]:02x}); save the file as UTF-8"
        ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise CSVError(
            f"{name}, line {line}: NUL byte; the file is binary or UTF-16 without "
            "a byte-order mark; save it as UTF-8"
        )
    return text


def read_csv(path, *, sep=None):
    """Read a CSV file into its header and rows of strings.

    Parameters
    ----------
    path : str or path-like
        The file (``.gz`` files are decompressed).
    sep : str or None, default=None
        Field separator; None sniffs it among ``,``, ``;``, tab and ``|``
        (``,`` when unsure).

    Returns
    -------
    header : list of str
    rows : list of list of str
        Data rows, each with as many fields as the header. Blank lines are
        skipped.

    Raises
    ------
    CSVError
        If the file cannot be read, is empty, has no data rows, repeats a
        column name or has a row with the wrong number of fields (the line is
        named).

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.report import read_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("agent,score\\nA,1\\nB,2\\n")
    >>> read_csv(path)
    (['agent', 'score'], [['A', '1'], ['B', '2']])
    """
    with _gc_paused():
        header, rows, _ = _read_csv_lines(path, sep=sep)
    return header, rows


class _LineNumbers:
    """File line number of each data row (for error messages)."""

    def __init__(self, numbers):
        self._numbers = numbers

    def __getitem__(self, row):
        return int(self._numbers[row])


def _is_blank(fields):
    return not fields or (len(fields) == 1 and not fields[0].strip())


@contextlib.contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector while millions of strings are built.

    Parsing allocates one list per row; the collector would otherwise rescan
    them over and over (4-6x slower on a million rows). Nothing here makes
    reference cycles, so pausing it is safe.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _records(text, sep, name):
    """Rows of the file and the physical line number of each row."""
    reader = csv.reader(io.StringIO(text), delimiter=sep, strict=True)
    try:
        if '"' not in text:
            # no quoted field can span lines: row k is on line k + 1
            rows = list(reader)
            return rows, np.arange(1, len(rows) + 1)
        rows, numbers = [], []
        for fields in reader:
            rows.append(fields)
            numbers.append(reader.line_num)
    except csv.Error as exc:
        reason = str(exc)
        if reason == "unexpected end of data":
            reason = "a quoted field is never closed"
        raise CSVError(
            f"{name}, line {reader.line_num}: malformed quoting ({reason})"
        ) from None
    return rows, np.asarray(numbers)


def _read_csv_lines(path, *, sep=None, fast=False):
    """Header, data rows and the file line number of every data row.

    With ``fast=True`` a regular file (no quotes, every line with the header's
    number of fields) is parsed by pandas when it is installed; line numbers
    are then approximate, so callers re-read with ``fast=False`` to report an
    error (see :func:`_with_exact_errors`).
    """
    name = os.fspath(path)
    if os.path.isdir(name):
        raise CSVError(f"{name} is a directory, not a CSV file")
    text = _read_text(name)
    if not text.strip():
        raise CSVError(f"{name} is empty")
    if sep is None:
        sep = _sniff_separator(text)
    if fast:
        parsed = _fast_columns(text, sep)
        if parsed is not None:
            header, columns = parsed
            _check_header(header, name)
            if not len(columns):
                raise CSVError(f"{name} has a header but no data rows")
            return header, columns, _LineNumbers(np.arange(2, len(columns) + 2))
    rows, numbers = _records(text, sep, name)
    first = next((k for k, fields in enumerate(rows) if not _is_blank(fields)), None)
    if first is None:  # e.g. only empty quoted fields
        raise CSVError(f"{name} is empty (no header row)")
    header = [field.strip() for field in rows[first]]
    _check_header(header, name)
    body, numbers = rows[first + 1 :], numbers[first + 1 :]
    lengths = np.fromiter(map(len, body), dtype=np.int64, count=len(body))
    odd = np.flatnonzero(lengths != len(header))
    if odd.size:
        blank = np.array([_is_blank(body[k]) for k in odd], dtype=bool)
        if not blank.all():
            k = int(odd[np.argmin(blank)])
            raise CSVError(
                f"{name}, line {numbers[k]}: {lengths[k]} fields, expected "
                f"{len(header)} as in the header"
            )
        keep = np.ones(len(body), dtype=bool)
        keep[odd] = False
        body = [fields for fields, kept in zip(body, keep, strict=True) if kept]
        numbers = numbers[keep]
    if not body:
        raise CSVError(f"{name} has a header but no data rows")
    return header, _Rows(body), _LineNumbers(numbers)


class _Columns:
    """Data columns parsed by pandas (object arrays of str)."""

    def __init__(self, columns):
        self._columns = columns

    def __len__(self):
        return len(self._columns[0]) if self._columns else 0

    def column(self, index):
        return self._columns[index]


def _fast_columns(text, sep):
    """(header, _Columns) parsed by pandas, or None when not applicable.

    Applicable when pandas is installed, the separator is one character, the
    text has no quote and every non-empty line has the header's number of
    separators: then pandas' C parser gives exactly the fields of the csv
    module, about 5x faster.
    """
    if len(sep) != 1 or '"' in text:
        return None
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    newlines = np.flatnonzero(data == ord("\n"))
    ends = np.append(newlines, data.size)
    starts = np.concatenate([[0], newlines + 1])
    separators = np.concatenate([[0], np.cumsum(data == ord(sep))])
    counts = separators[ends] - separators[starts]
    nonempty = (ends - starts) > (data[np.maximum(ends - 1, 0)] == ord("\r"))
    counts = counts[nonempty]
    if counts.size < 2 or (counts != counts[0]).any():
        return None
    frame = pd.read_csv(
        io.StringIO(text),
        sep=sep,
        header=None,
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        skip_blank_lines=True,
        quoting=csv.QUOTE_NONE,
        engine="c",
    )
    values = [frame[column].to_numpy(dtype=object) for column in frame.columns]
    header = [str(column[0]).strip() for column in values]
    return header, _Columns([column[1:] for column in values])


class _Rows(list):
    """Data rows that also hand out whole columns (transposed once, in C)."""

    _columns = None

    def column(self, index):
        if self._columns is None:
            self._columns = list(zip(*self, strict=True))
        return self._columns[index]


def _column_values(rows, index):
    """One column of the rows as a sequence of strings."""
    if isinstance(rows, (_Rows, _Columns)):
        return rows.column(index)
    return [row[index] for row in rows]


def _sniff_separator(text):
    sample = text[:20000]
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def _check_header(header, name):
    seen = set()
    for position, column in enumerate(header):
        if not column:
            raise CSVError(f"{name}: column {position + 1} of the header has no name")
        if column in seen:
            raise CSVError(f"{name}: column {column!r} appears twice in the header")
        seen.add(column)


def _column(header, column, name, option):
    if column not in header:
        shown = ", ".join(header[:12]) + (", ..." if len(header) > 12 else "")
        raise CSVError(
            f"{name} has no column {column!r} (columns: {shown}); choose one with "
            f"{option}"
        )
    return header.index(column)


def _columns(header, wanted, name):
    """Indices of several columns; one error naming every missing one."""
    missing = [(column, option) for column, option in wanted if column not in header]
    if missing:
        shown = ", ".join(header[:12]) + (", ..." if len(header) > 12 else "")
        names = ", ".join(f"{column!r} ({option})" for column, option in missing)
        raise CSVError(f"{name} has no column {names}; its columns are: {shown}")
    return [header.index(column) for column, _ in wanted]


def _parse_number(text, column, line, name):
    token = text.strip()
    if token.lower() in _MISSING:
        return np.nan
    try:
        value = float(token)
    except ValueError:
        raise CSVError(
            f"{name}, line {line}, column {column!r}: {token!r} is not a number"
        ) from None
    if np.isinf(value):
        if token.lower().lstrip("+-") in ("inf", "infinity"):
            problem = "is infinite"
        else:
            problem = "is too large: it is infinite as a 64-bit float (beyond 1.8e308)"
        raise CSVError(f"{name}, line {line}, column {column!r}: {token!r} {problem}")
    if np.isnan(value):
        return np.nan
    return value


def _numeric_column(rows, index, column, name, lines):
    """Parse one column as floats, naming the file line of a bad cell."""
    cells = _column_values(rows, index)
    try:
        values = np.array(cells, dtype=np.float64)
    except ValueError:
        values = None
    if values is not None and np.isfinite(values).all():
        return values
    # slow path: missing tokens, a bad cell, or an infinite value to report
    values = np.empty(len(cells), dtype=np.float64)
    for k, cell in enumerate(cells):
        values[k] = _parse_number(cell, column, lines[k], name)
    return values


def _label_column(rows, index, column, name, lines):
    """Stripped labels; an empty cell or a missing-value marker is an error."""
    labels = np.array(list(map(str.strip, _column_values(rows, index))), dtype=object)
    # the distinct labels are few: test those, then find the first bad row
    markers = {label for label in set(labels) if label.lower() in _MISSING}
    if markers:
        row = next(k for k, label in enumerate(labels) if label in markers)
        raise CSVError(
            f"{name}, line {lines[row]}, column {column!r}: "
            + _missing_label_problem(labels[row])
        )
    return labels


def _missing_label_problem(label):
    if label == "":
        return "empty label"
    return (
        f"missing label {label!r} (a missing-value marker, not a name; rename "
        "the row's agent, task or player if it is real)"
    )


def _detect_format(header, task_col, score_col):
    if task_col in header and score_col in header:
        return "long"
    return "wide"


def detect_format(
    path,
    *,
    first_col="first",
    second_col="second",
    task_col="task",
    score_col="score",
    sep=None,
):
    """Whether a CSV file holds matches, a long or a wide result table.

    Only the header is looked at: ``"matches"`` when it has the two player
    columns, ``"long"`` when it has the task and score columns, ``"wide"``
    otherwise.

    Parameters
    ----------
    path : str or path-like
    first_col, second_col : str
        The player columns of a table of matches.
    task_col, score_col : str
        The task and score columns of a long table.
    sep : str or None, default=None
        Field separator (sniffed when None).

    Returns
    -------
    {"matches", "long", "wide"}

    Raises
    ------
    CSVError
        If the file cannot be read or is empty.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.report import detect_format
    >>> path = os.path.join(tempfile.mkdtemp(), "m.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("first,second,outcome\\na,b,1\\n")
    >>> detect_format(path)
    'matches'
    """
    name = os.fspath(path)
    if os.path.isdir(name):
        raise CSVError(f"{name} is a directory, not a CSV file")
    text = _read_text(name)
    if not text.strip():
        raise CSVError(f"{name} is empty")
    if sep is None:
        sep = _sniff_separator(text)
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    try:
        header = next(fields for fields in reader if not _is_blank(fields))
    except (StopIteration, csv.Error):
        return "wide"  # the reader of the chosen format names the problem
    header = [field.strip() for field in header]
    if first_col in header and second_col in header:
        return "matches"
    return _detect_format(header, task_col, score_col)


def read_result_matrix(
    path,
    *,
    format="auto",
    agent_col="agent",
    task_col="task",
    score_col="score",
    sep=None,
):
    """Read an agents x tasks result matrix from a long or wide CSV file.

    Parameters
    ----------
    path : str or path-like
    format : {"auto", "long", "wide"}, default="auto"
        ``"long"``: columns ``agent_col``, ``task_col`` and ``score_col``, one
        score per row; repeated (agent, task) rows are runs, averaged (their
        population standard deviation is kept in ``stds``). ``"wide"``: one row
        per agent, ``agent_col`` (or the first column when the file has no
        such column) naming it, every other column a task. ``"auto"`` picks
        long when the task and score columns exist.
    agent_col, task_col, score_col : str
        Column names.
    sep : str or None, default=None
        Field separator (sniffed when None).

    Returns
    -------
    ResultTable

    Raises
    ------
    CSVError
        For a missing file or column, a non-numeric score, an empty file, a
        repeated agent in a wide file, or no score at all.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.report import read_result_matrix
    >>> path = os.path.join(tempfile.mkdtemp(), "long.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("agent,task,score\\nA,t1,1\\nA,t1,3\\nB,t2,5\\n")
    >>> table = read_result_matrix(path)
    >>> table.values.tolist(), table.stds.tolist()
    ([[2.0, nan], [nan, 5.0]], [[1.0, nan], [nan, 0.0]])
    """
    name = os.fspath(path)
    if format not in ("auto", "long", "wide"):
        raise CSVError(f"format must be 'auto', 'long' or 'wide'; got {format!r}")
    return _with_exact_errors(
        _read_result_matrix, name, format, agent_col, task_col, score_col, sep
    )


def _with_exact_errors(reader, *args):
    """Read fast; on any error re-read exactly, for the right line numbers."""
    with _gc_paused():
        try:
            return reader(*args, fast=True)
        except CSVError:
            return reader(*args, fast=False)


def _read_result_matrix(name, format, agent_col, task_col, score_col, sep, *, fast):
    header, rows, lines = _read_csv_lines(name, sep=sep, fast=fast)
    if format == "auto":
        format = _detect_format(header, task_col, score_col)
    if format == "long":
        table = _read_long(header, rows, lines, name, agent_col, task_col, score_col)
    else:
        table = _read_wide(header, rows, lines, name, agent_col)
    if np.isnan(table.values).all():
        raise CSVError(f"{name} has no score (every cell is missing)")
    return table


def _read_long(header, rows, lines, name, agent_col, task_col, score_col):
    agent_index, task_index, score_index = _columns(
        header,
        [
            (agent_col, "--agent-col"),
            (task_col, "--task-col"),
            (score_col, "--score-col"),
        ],
        name,
    )
    agents = _label_column(rows, agent_index, agent_col, name, lines)
    tasks = _label_column(rows, task_index, task_col, name, lines)
    scores = _numeric_column(rows, score_index, score_col, name, lines)
    agent_names, agent_code = _factorize_sorted(agents)
    task_names, task_code = _factorize_sorted(tasks)
    shape = (len(agent_names), len(task_names))
    observed = ~np.isnan(scores)
    cell = (agent_code * shape[1] + task_code)[observed]
    size = shape[0] * shape[1]
    counts = np.bincount(cell, minlength=size).astype(np.float64)
    total = np.bincount(cell, weights=scores[observed], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = total / counts
        squares = np.bincount(cell, weights=scores[observed] ** 2, minlength=size)
        variance = np.maximum(squares / counts - means**2, 0.0)
    means[counts == 0] = np.nan
    stds = np.sqrt(variance)
    stds[counts == 0] = np.nan
    return ResultTable(
        means.reshape(shape),
        agent_names,
        task_names,
        stds.reshape(shape),
        counts.reshape(shape),
        name,
    )


def _factorize_sorted(labels):
    names, codes, _ = encode_players(labels, labels[:0])
    return names.astype(object), codes


def _read_wide(header, rows, lines, name, agent_col):
    agent_index = header.index(agent_col) if agent_col in header else 0
    agents = _label_column(rows, agent_index, header[agent_index], name, lines)
    _, first, counts = np.unique(
        agents.astype(str), return_index=True, return_counts=True
    )
    if (counts > 1).any():
        repeated = np.flatnonzero(counts > 1)[0]
        label = agents[first[repeated]]
        raise CSVError(
            f"{name}: agent {label!r} appears in more than one row of a wide "
            "file; one score per row is a long file (--format long, with "
            "--task-col and --score-col naming its columns)"
        )
    task_indices = [k for k in range(len(header)) if k != agent_index]
    if not task_indices:
        raise CSVError(f"{name} has no task column besides the agent column")
    for k in task_indices:
        if header[k].lower() in _MISSING:
            raise CSVError(
                f"{name}: column {k + 1} of the header is named {header[k]!r}, a "
                "missing-value marker, not a task name"
            )
    values = np.column_stack(
        [_numeric_column(rows, k, header[k], name, lines) for k in task_indices]
    )
    tasks = np.array([header[k] for k in task_indices], dtype=object)
    return ResultTable(values, agents, tasks, None, None, name)
