"""Reading benchmark results from CSV files for the command line and the report.

pandas parses the files (its C engine, or its Python engine with a strict
dialect when the file quotes fields); the rows are then checked column by
column with numpy. Every error names the file, the column and the line of the
file, so that the command line can print it as one line.

Three shapes are read:

* a **long** result table: one row per (agent, task, score), repeats allowed
  (repeated scores of a pair are runs: their mean and spread are kept);
* a **wide** result matrix: one row per agent, the agent's name in one column
  and one numeric column per task;
* a **matches** table: one row per game with the two players and the first
  player's outcome (or both players' scores), read by :mod:`._match_io`.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import warnings
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
    if _is_json(name, text):
        raise CSVError(
            f"{name} is a JSON file, not a CSV file, and not the output of an "
            "evaluation tool that is read (lm-evaluation-harness, inspect_ai, "
            "HELM, AlpacaEval annotations, Open LLM Leaderboard details); "
            "write its results as a CSV file"
        )
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise CSVError(
            f"{name}, line {line}: NUL byte; the file is binary or UTF-16 without "
            "a byte-order mark; save it as UTF-8"
        )
    return text


def _is_json(name, text):
    """A ``.json``/``.jsonl`` file (gzipped or not) holding an object or array."""
    stem = name.lower().removesuffix(".gz")
    return stem.endswith((".json", ".jsonl")) and text.lstrip()[:1] in ("{", "[")


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
    header, rows, _ = _read_csv_lines(path, sep=sep)
    return header, rows.frame.to_numpy(dtype=object).tolist()


class _Rows:
    """The data rows parsed by pandas: columns as object arrays of str."""

    def __init__(self, frame):
        self.frame = frame

    def __len__(self):
        return len(self.frame)

    def column(self, index):
        return self.frame.iloc[:, index].to_numpy(dtype=object)


def _strict_dialect(sep):
    """The csv dialect of the quoted-file parser: a stray quote is an error."""
    return type(
        "_Strict",
        (csv.excel,),
        {"delimiter": sep, "strict": True, "skipinitialspace": False},
    )


_SKIPPED = re.compile(r"Skipping line (\d+): ([^\n]*)")
_FIELDS = re.compile(r"[Ee]xpected (\d+) fields(?: in line \d+)?, saw (\d+)")


def _parse(text, sep, name, offset=0):
    """All records of ``text`` (header first), their file lines, field counts.

    pandas parses. Its C engine reads every file whose quotes follow the
    standard (a quote opens a field or closes it, ``""`` inside a quoted
    field); the records' lines and field counts then come from the quote
    layout (:func:`_layout`). Any other file (a stray quote, a quoted field
    never closed, bare carriage returns) is read by pandas' Python engine
    with a strict dialect, which names the problem. Blank lines stay records
    (so that every record's line is known) and are dropped by the caller.

    Returns the frame (records with too many fields left out), the line and
    field count of every record, and (line, CSVError) of the first record
    the strict reader rejected, or None.
    """
    layout = _layout(text, sep)
    if layout is None:
        return _parse_strictly(text, sep, name, offset)
    starts, fields = layout
    try:
        # rows with too many fields are found from the layout
        frame, _ = _records(
            text, name, sep=sep, na_filter=False, engine="c",
            quoting=csv.QUOTE_MINIMAL if '"' in text else csv.QUOTE_NONE,
        )
    except pd.errors.ParserError:
        return _parse_strictly(text, sep, name, offset)
    if len(frame) != np.count_nonzero(fields <= fields[0]):
        return _parse_strictly(text, sep, name, offset)
    return frame, 1 + offset + starts, fields, None


def _records(text, name, **options):
    """Every record as strings (blank lines kept), and pandas' skip warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(
                io.StringIO(text), header=None, dtype=str, skip_blank_lines=False,
                on_bad_lines="warn", **options,
            )
        except pd.errors.EmptyDataError:
            raise CSVError(f"{name} is empty (no header row)") from None
    return frame, caught


def _layout(text, sep):
    """(lines before, fields) of each record, or None for a nonstandard text.

    Vectorized over the positions of the quotes, separators and line breaks:
    one of these is structural when an even number of quotes precede it.
    That holds exactly when each quote that would open a field starts one
    and each quote that would close one ends it (or doubles a quote), which
    is checked here.
    """
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    returns = np.flatnonzero(data == ord("\r"))
    if returns.size and (np.append(data, 0)[returns + 1] != ord("\n")).any():
        return None  # a bare carriage return ends a line
    quotes = np.flatnonzero(data == ord('"'))
    newlines = np.flatnonzero(data == ord("\n"))
    separators = np.flatnonzero(data == ord(sep[0]))
    if quotes.size:
        if quotes.size % 2:
            return None  # a quoted field is never closed
        boundary = np.zeros(256, dtype=bool)
        boundary[[ord(sep[0]), ord("\n"), ord("\r"), ord('"')]] = True
        padded = np.concatenate([[ord("\n")], data, [ord("\n")]])
        # quotes alternate: even ones would open a field, odd ones close it
        if not boundary[padded[quotes[0::2]]].all():
            return None  # a quote inside an unquoted field
        if not boundary[padded[quotes[1::2] + 2]].all():
            return None  # text after a closing quote
        newlines = newlines[np.searchsorted(quotes, newlines) % 2 == 0]
        separators = separators[np.searchsorted(quotes, separators) % 2 == 0]
    every_newline = np.flatnonzero(data == ord("\n")) if quotes.size else newlines
    ends = newlines
    if ends.size and ends[-1] == data.size - 1:
        ends = ends[:-1]  # the final line break ends the last record
    record_starts = np.concatenate([[0], ends + 1])
    bounds = np.searchsorted(separators, np.append(record_starts, data.size))
    fields = np.diff(bounds) + 1
    lines_before = np.searchsorted(every_newline, record_starts)
    return lines_before, fields


def _parse_strictly(text, sep, name, offset):
    """pandas' Python engine with a strict csv dialect (slower, exact)."""
    try:
        frame, caught = _records(
            text, name, engine="python", dialect=_strict_dialect(sep),
            keep_default_na=False,
        )
    except pd.errors.ParserError as exc:  # pragma: no cover - pandas' own
        raise CSVError(f"{name}: {' '.join(str(exc).split())}") from None
    breaks = np.zeros(len(frame), dtype=np.int64)
    for column in frame.columns:
        breaks += frame[column].fillna("").str.count("\n").to_numpy(dtype=np.int64)
    # line of each record, and of the one after the last
    lines = 1 + offset + np.arange(len(frame) + 1)
    lines += np.concatenate([[0], np.cumsum(breaks)])
    fields = frame.notna().to_numpy().sum(axis=1)
    skipped = _first_skipped(caught, lines, name)
    return frame.fillna(""), lines[:-1], fields, skipped


def _first_skipped(caught, lines, name):
    """(line, error) of the first record pandas skipped, or None."""
    skipped = [
        (int(match.group(1)), match.group(2).strip())
        for warning in caught
        for match in _SKIPPED.finditer(str(warning.message))
    ]
    if not skipped:
        return None
    record, reason = min(skipped)
    # the records before the first skipped one are all in the frame
    line = int(lines[record - 1])
    fields = _FIELDS.search(reason)
    if fields:
        expected, seen = fields.groups()
        return line, CSVError(
            f"{name}, line {line}: {seen} fields, expected {expected} as in the "
            "header"
        )
    if reason == "unexpected end of data":
        reason = "a quoted field is never closed"
    return line, CSVError(f"{name}, line {line}: malformed quoting ({reason})")


_LEADING_BLANK = re.compile(r"\A(?:[ \t]*\r?\n)+")


def _read_csv_lines(path, *, sep=None):
    """Header, data rows (a :class:`_Rows`) and the file line of every row."""
    name = os.fspath(path)
    if os.path.isdir(name):
        raise CSVError(f"{name} is a directory, not a CSV file")
    text = _read_text(name)
    if not text.strip():
        raise CSVError(f"{name} is empty")
    if sep is None:
        sep = _sniff_separator(text)
    leading = _LEADING_BLANK.match(text)
    offset = 0
    if leading:
        offset = leading.group(0).count("\n")
        text = text[leading.end() :]
    frame, lines, fields, skipped = _parse(text, sep, name, offset)
    header = [str(cell).strip() for cell in frame.iloc[0]]
    if len(header) == 1 and not header[0]:
        raise CSVError(f"{name} is empty (no header row)")
    _check_header(header, name)
    width = len(header)
    # records up to the first with too many fields are rows of the frame
    long_rows = np.flatnonzero(fields > width)
    aligned = int(long_rows[0]) if long_rows.size else len(fields)
    all_fields, all_lines = fields, lines
    fields = fields[:aligned]
    lines = lines[:aligned]
    maybe_blank = np.flatnonzero(fields[1:] <= 1) + 1
    blank = np.zeros(aligned, dtype=bool)
    first = frame.iloc[maybe_blank, 0].astype(object).str.strip()
    blank[maybe_blank] = (first == "").to_numpy()
    bad = np.flatnonzero((fields != width) & ~blank)
    bad = bad[bad > 0]
    problems = []
    if bad.size:
        k = int(bad[0])
        problems.append(
            (
                lines[k],
                CSVError(
                    f"{name}, line {lines[k]}: {fields[k]} fields, expected "
                    f"{width} as in the header"
                ),
            )
        )
    if long_rows.size:
        k = int(long_rows[0])
        problems.append(
            (
                all_lines[k],
                CSVError(
                    f"{name}, line {all_lines[k]}: {all_fields[k]} fields, "
                    f"expected {width} as in the header"
                ),
            )
        )
    if skipped is not None:
        problems.append(skipped)
    if problems:
        raise min(problems, key=lambda problem: problem[0])[1]
    keep = np.flatnonzero(~blank[1:]) + 1
    if not keep.size:
        raise CSVError(f"{name} has a header but no data rows")
    body = frame.iloc[keep].reset_index(drop=True)
    body.columns = range(body.shape[1])
    return header, _Rows(body), _LineNumbers(lines[keep])


class _LineNumbers:
    """File line number of each data row (for error messages)."""

    def __init__(self, numbers):
        self._numbers = numbers

    def __getitem__(self, row):
        return int(self._numbers[row])


def _column_values(rows, index):
    """One column of the rows as an object array of strings."""
    return rows.column(index)


_SEPARATORS = ",\t;|"


def _sniff_separator(text):
    """The field separator: sniffed from whole lines, else the header's.

    The sample ends at a line break, so a file whose lines are longer than
    the sample does not end it with a cut line. When the sniffer finds no
    consistent separator (rows one field longer than a header without a
    row-label column, ragged rows) the separator is the candidate found most
    often in the header line, ``","`` when none is: a tab-separated file is
    never read as one column, which the readers would then report as a file
    without task columns instead of naming the ragged line.
    """
    sample = text[:20000]
    cut = sample.rfind("\n")
    if len(text) > len(sample) and cut > 0:
        sample = sample[:cut]
    try:
        return csv.Sniffer().sniff(sample, delimiters=_SEPARATORS).delimiter
    except csv.Error:
        pass
    header = next((line for line in sample.splitlines() if line.strip()), "")
    counts = [header.count(sep) for sep in _SEPARATORS]
    return _SEPARATORS[int(np.argmax(counts))] if max(counts) else ","


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
        values = np.asarray(cells, dtype=np.float64)
    except ValueError:
        values = None
    if values is not None and np.isfinite(values).all():
        return values
    # missing tokens, a bad cell, or an infinite value to report
    stripped = pd.Series(cells, dtype=object).str.strip()
    missing = stripped.str.lower().isin(_MISSING).to_numpy()
    values = np.array(
        pd.to_numeric(stripped.where(~missing), errors="coerce"), dtype=np.float64
    )
    values[missing] = np.nan
    for k in np.flatnonzero(~missing & ~np.isfinite(values)):
        # raises, naming the line (or parses a form pandas does not read)
        values[k] = _parse_number(cells[k], column, lines[int(k)], name)
    return values


def _label_column(rows, index, column, name, lines):
    """Stripped labels; an empty cell or a missing-value marker is an error."""
    # labels repeat: strip each distinct one once
    codes, distinct = pd.factorize(_column_values(rows, index))
    stripped = np.array([label.strip() for label in distinct], dtype=object)
    labels = stripped[codes]
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
    leading = _LEADING_BLANK.match(text)
    if leading:
        text = text[leading.end() :]
    try:
        first = pd.read_csv(
            io.StringIO(text), sep=sep, header=None, nrows=1, dtype=str,
            na_filter=False,
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError):
        return "wide"  # the reader of the chosen format names the problem
    header = [str(field).strip() for field in first.iloc[0]]
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
    return _read_result_matrix(name, format, agent_col, task_col, score_col, sep)


def _read_result_matrix(name, format, agent_col, task_col, score_col, sep):
    header, rows, lines = _read_csv_lines(name, sep=sep)
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
        raise CSVError(
            f"{name} has a single column, the agents', and no task column: no "
            "field separator (',', ';', tab or '|') is in its header line; "
            "name the separator if it is another (sep=, --sep on the command "
            "line)"
        )
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
