"""The text of an item file: header, body and the checks that make it self-checking.

An item file (written by :func:`write_items_csv`) is a CSV table of items
after ``# key=value`` header lines::

    # format=sklearn-eval subset-score v2
    # selection=stratified
    # estimator=irt
    # interval_method=posterior
    # fallback_accuracy=0.4544498948843728
    # quadrature_nodes=linspace(-6.0, 6.0, 121)
    # quadrature_weights=normal
    # labels=names
    # cv_residuals=0.0123,-0.004,0.0311,-0.0167,0.0028,
    #   0.0094,-0.0215,0.0402,...
    # rows=2854
    # checksum=sha256:9f2c...
    task,column,selected,order,weight,success_rate,discrimination,...

``rows`` is the number of item rows and ``checksum`` the SHA-256 digest of the
whole file without its checksum line, so that a file cut short or edited is
refused, with an error naming the file and what is wrong. The quadrature grid
is written in a compact form when the form reproduces it exactly
(``linspace(start, stop, n)`` or ``gauss-hermite(n)`` nodes, ``normal``
weights: the N(0, 1) density at the nodes, normalised), else as a list. A long
list (the cross-validated residuals, one per model of the population) goes
on over continuation lines of five values (``#`` and spaces; the line before
ends with a comma), so that every line stays short.
Task names that a spreadsheet would read as a formula get a leading quote
(the package's rule against CSV injection), which the reader removes.

Files of the first version (``v1``: no ``labels``, ``rows`` or ``checksum``)
are read with a warning that they cannot be verified. A calibration with
asymptotes (3PL, 4PL) adds the columns ``guessing`` and ``upper`` and is
version ``v3``, which a reader of ``v2`` refuses instead of reading the items
as a 2PL's.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import math
import re
import warnings

import numpy as np
from scipy.special import logsumexp

from ..utils._spreadsheet import escape_label, unescape_label
from ._subset_models import ESTIMATORS
from ._subset_select import SELECTIONS

__all__ = [
    "ASYMPTOTES",
    "COLUMNS",
    "FORMAT",
    "FORMAT_ASYMPTOTES",
    "ItemFile",
    "format_grid",
    "file_columns",
    "format_item_file",
    "join_numbers",
    "normal_weights",
    "parse_item_file",
]

FORMAT = "sklearn-eval subset-score v2"
FORMAT_ASYMPTOTES = "sklearn-eval subset-score v3"  # COLUMNS + ASYMPTOTES
_LEGACY = "sklearn-eval subset-score v1"
_PREFIX = "sklearn-eval subset-score "
COLUMNS = ("task", "column", "selected", "order", "weight", "success_rate",
           "discrimination", "difficulty", "coefficient")
ASYMPTOTES = ("guessing", "upper")  # a 3PL/4PL calibration's columns (v3)


def file_columns(asymptotes):
    """The columns of an item file: :data:`COLUMNS`, then :data:`ASYMPTOTES`
    for a calibration with asymptotes (format ``v3``)."""
    return COLUMNS + ASYMPTOTES if asymptotes else COLUMNS
_CHECKSUM = re.compile(r"sha256:([0-9a-f]{64})")
_LINSPACE = re.compile(r"linspace\(\s*([^,()]+),\s*([^,()]+),\s*(\d+)\s*\)")
_HERMITE = re.compile(r"gauss-hermite\(\s*(\d+)\s*\)")
_MAX_NODES = 10_000  # a (K x items) table is built from the grid


# --------------------------------------------------------------------------
# numbers and the quadrature grid
# --------------------------------------------------------------------------
def join_numbers(values):
    """Comma-separated shortest round-trip text of floats."""
    return ",".join(repr(float(v)) for v in np.asarray(values).reshape(-1))


def normal_weights(nodes):
    """N(0, 1) density at ``nodes``, normalised to sum to one (as IRT2PL's grid)."""
    log_density = -0.5 * np.asarray(nodes, dtype=np.float64) ** 2
    return np.exp(log_density - logsumexp(log_density))


def _hermite(n_nodes):
    x, w = np.polynomial.hermite.hermgauss(n_nodes)
    return np.sqrt(2.0) * x, np.exp(np.log(w / np.sqrt(np.pi)))


def format_grid(nodes, weights):
    """Text of (quadrature_nodes, quadrature_weights): compact when exact."""
    nodes = np.asarray(nodes, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    n = nodes.size
    if n >= 2:
        spaced = np.linspace(float(nodes[0]), float(nodes[-1]), n)
        if np.array_equal(spaced, nodes):
            text = f"linspace({float(nodes[0])!r}, {float(nodes[-1])!r}, {n})"
            if np.array_equal(normal_weights(nodes), weights):
                return text, "normal"
            return text, join_numbers(weights)
        hermite_nodes, hermite_weights = _hermite(n)
        if np.array_equal(hermite_nodes, nodes):
            if np.array_equal(hermite_weights, weights):
                return f"gauss-hermite({n})", "gauss-hermite"
            return f"gauss-hermite({n})", join_numbers(weights)
    return join_numbers(nodes), join_numbers(weights)


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------
def _cell(value):
    if isinstance(value, str):
        text = escape_label(value)
        if any(char in text for char in ',"\r\n'):
            return '"' + text.replace('"', '""') + '"'
        return text
    if isinstance(value, bool | np.bool_):
        return str(int(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    value = float(value)
    return "" if math.isnan(value) else repr(value)


def _wrap(value, per_line=5):
    """A long comma-separated list over lines of ``per_line`` values."""
    values = value.split(",")
    if len(values) <= per_line:
        return value
    chunks = [",".join(values[k:k + per_line])
              for k in range(0, len(values), per_line)]
    return ",\n#   ".join(chunks)


def _digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def format_item_file(meta, rows, asymptotes=False):
    """The text of an item file: ``meta`` (ordered key -> text) and item rows.

    ``rows`` are sequences in the order of :data:`COLUMNS` (followed by
    :data:`ASYMPTOTES` with ``asymptotes``, the ``v3`` format); the task
    name is neutralised for spreadsheets (reversibly), numbers are written
    in full precision and NaN as an empty cell. The ``format``, ``rows`` and
    ``checksum`` lines are added.
    """
    header = file_columns(asymptotes)
    # quoted by hand: the csv module leaves a lone carriage return unquoted
    body = "".join(",".join(map(_cell, row)) + "\n" for row in [header, *rows])
    lines = [f"# format={FORMAT_ASYMPTOTES if asymptotes else FORMAT}\n"]
    lines += [f"# {key}={_wrap(value)}\n" for key, value in meta.items()]
    lines.append(f"# rows={len(rows)}\n")
    head = "".join(lines)
    return f"{head}# checksum=sha256:{_digest(head + body)}\n{body}"


# --------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------
class ItemFile:
    """A parsed item file: header values (parsed) and item columns (file order).

    Attributes
    ----------
    meta : dict
        Parsed header values by key.
    columns : dict of ndarray
        ``task`` (object), ``column``, ``order`` (int), ``selected`` (bool)
        and the float columns, one entry per row in file order.
    verified : bool
        Whether the file carried a checksum that matched.
    """

    def __init__(self, meta, columns, verified):
        self.meta = meta
        self.columns = columns
        self.verified = verified


def _fail(source, message):
    raise ValueError(f"{source}: {message}")


def _header_lines(text, source):
    """[(key, value, start, end)] of the leading ``#`` lines; and the body start."""
    lines, position = [], 0
    while text.startswith("#", position):
        end = text.find("\n", position)
        if end < 0:
            _fail(source, "the file ends inside its header: it is cut short.")
        line = text[position:end].removesuffix("\r")
        key, equals, value = line[1:].strip().partition("=")
        if not equals and lines and lines[-1][1].endswith(","):
            # a long list goes on over lines "#   v,v,...": the value ends in ","
            key, value, start, _ = lines[-1]
            lines[-1] = (key, value + line[1:].strip(), start, end + 1)
            position = end + 1
            continue
        if not equals or not key.strip():
            _fail(source, f"header line {len(lines) + 1} ({line[:40]!r}) is not "
                          "'# key=value'.")
        key = key.strip()
        if any(key == seen[0] for seen in lines):
            _fail(source, f"the header names {key!r} twice.")
        lines.append((key, value.strip(), position, end + 1))
        position = end + 1
    return lines, position


def _number(source, key, text, *, low=-math.inf, high=math.inf, nan=False):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or (math.isnan(value) and not nan) or math.isinf(value) or (
            not low <= value <= high and not math.isnan(value)):
        bounds = "" if (low, high) == (-math.inf, math.inf) else (
            f" in [{low}, {high}]")
        _fail(source, f"header '{key}' must be a finite number{bounds}; got "
                      f"{text[:40]!r}.")
    return value


def _numbers(source, key, text):
    try:
        values = np.asarray([float(v) for v in text.split(",") if v.strip()],
                            dtype=np.float64)
    except ValueError:
        values = None
    if values is None or not np.all(np.isfinite(values)):
        _fail(source, f"header '{key}' must be a comma-separated list of finite "
                      f"numbers; got {text[:40]!r}...")
    return values


def _nodes(source, text):
    if text.startswith("linspace"):
        match = _LINSPACE.fullmatch(text)
        if match is None:
            _fail(source, "header 'quadrature_nodes' must read "
                          f"'linspace(start, stop, n)'; got {text[:40]!r}.")
        start = _number(source, "quadrature_nodes", match.group(1))
        stop = _number(source, "quadrature_nodes", match.group(2))
        n_nodes = int(match.group(3))
        if not 2 <= n_nodes <= _MAX_NODES:
            _fail(source, f"header 'quadrature_nodes' asks for {n_nodes} nodes; "
                          f"expected 2 to {_MAX_NODES}.")
        nodes = np.linspace(start, stop, n_nodes)
    elif text.startswith("gauss-hermite"):
        match = _HERMITE.fullmatch(text)
        n_nodes = int(match.group(1)) if match else 0
        if not 2 <= n_nodes <= 1000:
            _fail(source, "header 'quadrature_nodes' must read 'gauss-hermite(n)' "
                          f"with 2 <= n <= 1000; got {text[:40]!r}.")
        nodes = _hermite(n_nodes)[0]
    else:
        nodes = _numbers(source, "quadrature_nodes", text)
    if nodes.size < 2 or not np.all(np.diff(nodes) > 0):
        _fail(source, "header 'quadrature_nodes' must hold at least 2 increasing "
                      "nodes.")
    return nodes


def _weights(source, text, nodes):
    if text == "normal":
        return normal_weights(nodes)
    if text == "gauss-hermite":
        weights = _hermite(nodes.size)[1]
        if not np.array_equal(_hermite(nodes.size)[0], nodes):
            _fail(source, "header 'quadrature_weights' is 'gauss-hermite' but the "
                          "nodes are not a Gauss-Hermite rule.")
        return weights
    weights = _numbers(source, "quadrature_weights", text)
    if weights.size != nodes.size:
        _fail(source, f"header 'quadrature_weights' has {weights.size} values for "
                      f"{nodes.size} nodes.")
    if (weights < 0).any() or abs(weights.sum() - 1.0) > 1e-6:
        _fail(source, "header 'quadrature_weights' must be non-negative and sum "
                      "to one.")
    return weights


@functools.lru_cache(maxsize=8)
def _grid(source, nodes_text, weights_text):
    """(nodes, weights) of the header's grid (read-only; the last few cached)."""
    nodes = _nodes(source, nodes_text)
    weights = _weights(source, weights_text, nodes)
    nodes.flags.writeable = weights.flags.writeable = False
    return nodes, weights


def _choice(source, key, text, options):
    if text not in options:
        _fail(source, f"header '{key}' must be one of {sorted(options)}; got "
                      f"{text[:40]!r}.")
    return text


def _parse_meta(raw, source, legacy):
    """Every header value parsed, in a fixed order; errors name the key."""
    required = ["selection", "estimator", "interval_method", "fallback_accuracy",
                "quadrature_nodes", "quadrature_weights", "cv_residuals"]
    if not legacy:
        required += ["labels", "rows", "checksum"]
    kind = raw.get("estimator")
    if kind == "gp-irt":
        required.append("blend_weight")
    if kind == "regression":
        required += ["ability_coefficient", "intercept"]
    for key in required:
        if key not in raw:
            _fail(source, f"the header line '# {key}=...' is missing (the file is "
                          "cut short, edited, or not written by write_items_csv).")
    meta = {
        "selection": _choice(source, "selection", raw["selection"],
                             {*SELECTIONS, "given"}),
        "estimator": _choice(source, "estimator", kind, set(ESTIMATORS)),
        "interval_method": _choice(source, "interval_method",
                                   raw["interval_method"], {"posterior", "conformal"}),
        "fallback_accuracy": _number(source, "fallback_accuracy",
                                     raw["fallback_accuracy"], nan=True),
    }
    nodes, weights = _grid(source, raw["quadrature_nodes"], raw["quadrature_weights"])
    meta["quadrature_nodes"], meta["quadrature_weights"] = nodes.copy(), weights.copy()
    meta["cv_residuals"] = _numbers(source, "cv_residuals", raw["cv_residuals"])
    if "blend_weight" in required:
        meta["blend_weight"] = _number(source, "blend_weight", raw["blend_weight"],
                                       low=0.0, high=1.0)
    if kind == "regression":
        for key in ("ability_coefficient", "intercept"):
            meta[key] = _number(source, key, raw[key])
    if legacy:
        meta["labels"] = None
        return meta
    meta["labels"] = _choice(source, "labels", raw["labels"], {"names", "positions"})
    if not raw["rows"].isdigit() or int(raw["rows"]) < 1:
        _fail(source, f"header 'rows' must be a positive count; got "
                      f"{raw['rows'][:40]!r}.")
    meta["rows"] = int(raw["rows"])
    match = _CHECKSUM.fullmatch(raw["checksum"])
    if match is None:
        _fail(source, "header 'checksum' must read 'sha256:' and 64 hexadecimal "
                      f"digits; got {raw['checksum'][:40]!r}.")
    meta["checksum"] = match.group(1)
    return meta


def _records(body, source):
    try:
        return list(csv.reader(io.StringIO(body, newline="")))
    except csv.Error as exc:
        _fail(source, f"the item table is not valid CSV ({exc}).")


def _verify(text, lines, meta, source):
    """Refuse a file whose checksum does not match; name what is wrong."""
    _, _, start, end = next(line for line in lines if line[0] == "checksum")
    unsigned = text[:start] + text[end:]
    if _digest(unsigned) == meta["checksum"]:
        return text
    if "\r\n" in text:  # line ends converted on the way (e.g. by a mail client)
        converted = text.replace("\r\n", "\n")
        lines_converted, _ = _header_lines(converted, source)
        _, _, start, end = next(li for li in lines_converted if li[0] == "checksum")
        if _digest(converted[:start] + converted[end:]) == meta["checksum"]:
            return converted
    if not text.endswith("\n"):
        _fail(source, "the file does not end with a line break: it is cut short "
                      "(an interrupted write or download).")
    try:
        body = list(csv.reader(io.StringIO(text[lines[-1][3]:], newline="")))
    except csv.Error:
        body = None
    if body is not None and len(body) - 1 < meta["rows"]:
        _fail(source, f"the file holds {max(len(body) - 1, 0)} of its "
                      f"{meta['rows']} item rows: it is cut short (an interrupted "
                      "write or download).")
    _fail(source, "the checksum does not match the content: the file was changed "
                  "after it was written (or is cut short); write it again with "
                  "write_items_csv.")


def _column_values(records, header, source, legacy, names=COLUMNS):
    """Columns of the item table, each value checked; errors name row and column."""
    index = {name: k for k, name in enumerate(header)}
    columns = {name: [] for name in names}
    for number, record in enumerate(records, start=1):
        if len(record) != len(header):
            _fail(source, f"item row {number} has {len(record)} cells; the header "
                          f"has {len(header)}.")
        task = record[index["task"]]
        columns["task"].append(task if legacy else unescape_label(task))
        for name in names[1:]:
            columns[name].append(_cell_value(record[index[name]], name, number,
                                             source))
    out = {"task": np.asarray(columns["task"], dtype=object)}
    for name in ("column", "order"):
        out[name] = np.asarray(columns[name], dtype=np.int64)
    out["selected"] = np.asarray(columns["selected"], dtype=bool)
    for name in names[4:]:
        out[name] = np.asarray(columns[name], dtype=np.float64)
    return out


def _cell_value(text, name, number, source):
    where = f"item row {number}, column '{name}'"
    if name == "selected":
        if text not in ("0", "1"):
            _fail(source, f"{where} must be 0 or 1; got {text[:40]!r}.")
        return text == "1"
    if name in ("column", "order"):
        if not text.isdigit() or not text.isascii():
            _fail(source, f"{where} must be a non-negative integer; got "
                          f"{text[:40]!r}.")
        return int(text)
    if text == "" and name in ("discrimination", "difficulty", "coefficient",
                               *ASYMPTOTES):
        return math.nan
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        _fail(source, f"{where} must be a finite number; got {text[:40]!r}.")
    return value


def _check_table(columns, meta, source):
    n = columns["column"].size
    if "rows" in meta and n != meta["rows"]:
        _fail(source, f"the file holds {n} item rows; its header says "
                      f"{meta['rows']}.")
    if not np.array_equal(np.sort(columns["column"]), np.arange(n)):
        _fail(source, "the column 'column' must number the items 0..n-1, each once.")
    selected = columns["selected"]
    k = int(selected.sum())
    if k == 0:
        _fail(source, "no item is selected (column 'selected').")
    order = columns["order"]
    if not np.array_equal(np.sort(order[selected]), np.arange(1, k + 1)) or (
            order[~selected] != 0).any():
        _fail(source, "the column 'order' must number the selected items 1..k and "
                      "be 0 elsewhere.")
    weight = columns["weight"]
    if (weight < 0).any() or weight[selected].sum() <= 0:
        _fail(source, "the column 'weight' must be non-negative, positive in sum "
                      "over the selected items.")
    rate = columns["success_rate"]
    if ((rate < 0) | (rate > 1)).any():
        _fail(source, "the column 'success_rate' must lie in [0, 1].")
    a, b = columns["discrimination"], columns["difficulty"]
    if (np.isnan(a) != np.isnan(b)).any():
        _fail(source, "'discrimination' and 'difficulty' must be both given or both "
                      "empty on each row.")
    if meta["estimator"] == "regression" and np.isnan(
            columns["coefficient"][selected]).any():
        _fail(source, "a regression item file needs a 'coefficient' on every "
                      "selected item.")
    if "guessing" in columns:
        g, u = columns["guessing"], columns["upper"]
        calibrated = ~np.isnan(a)
        if (np.isnan(g[calibrated]) | np.isnan(u[calibrated])).any():
            _fail(source, "'guessing' and 'upper' must be given on every row with "
                          "a 'discrimination'.")
        with np.errstate(invalid="ignore"):
            bad = calibrated & ~((g >= 0) & (g < u) & (u <= 1))
        if bad.any():
            row = int(np.flatnonzero(bad)[0]) + 1
            _fail(source, f"item row {row}: 'guessing' and 'upper' must satisfy "
                          f"0 <= guessing < upper <= 1; got {g[row - 1]!r} and "
                          f"{u[row - 1]!r}.")


def parse_item_file(text, source):
    """Parse and check the text of an item file; return an :class:`ItemFile`.

    Every check raises a ValueError starting with ``source`` (the file's
    name): not an item file, a header key missing or unparsable (named),
    the checksum or row count not matching, a cell that is not what its
    column holds (row and column named), an inconsistent table. A file of
    the first version (without checksum) gets a UserWarning.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            _fail(source, f"not UTF-8 text (byte {exc.start}): not an item file.")
    text = text.removeprefix("\ufeff")
    if not text.strip():
        _fail(source, "the file is empty: not an item file (or cut short).")
    lines, body_start = _header_lines(text, source)
    if not lines or lines[0][0] != "format" or not lines[0][1].startswith(_PREFIX):
        _fail(source, f"Not a subset-score item file (expected '# format={FORMAT}' "
                      "first).")
    version = lines[0][1]
    if version not in (FORMAT, FORMAT_ASYMPTOTES, _LEGACY):
        _fail(source, f"item file format {version!r} is not one this version reads "
                      f"({FORMAT!r}, {FORMAT_ASYMPTOTES!r}, {_LEGACY!r}).")
    raw = {key: value for key, value, _, _ in lines}
    legacy = version == _LEGACY and "checksum" not in raw
    meta = _parse_meta(raw, source, legacy)
    if legacy:
        warnings.warn(
            f"{source}: an item file of the first version, without a checksum: "
            "it cannot be verified (a cut-short or edited file would go unseen). "
            "Write it again with write_items_csv to make it self-checking.",
            UserWarning,
            stacklevel=4,  # the caller of read_items_csv
        )
    else:
        text = _verify(text, lines, meta, source)
        lines, body_start = _header_lines(text, source)
    records = _records(text[body_start:], source)
    if not records:
        _fail(source, "the item table is missing (the file is cut short).")
    header = records[0]
    names = file_columns(version == FORMAT_ASYMPTOTES)
    missing = [name for name in names if name not in header]
    if missing:
        _fail(source, f"the item table lacks the column(s) {missing}.")
    columns = _column_values(records[1:], header, source, legacy, names)
    _check_table(columns, meta, source)
    return ItemFile(meta, columns, verified=not legacy)
