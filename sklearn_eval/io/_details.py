"""Reader of per-sample "details" tables in parquet (Open LLM Leaderboard style).

Two layouts, told apart by the file's name and columns:

* lighteval's (the Open LLM Leaderboard's first version): per run a folder
  ``details/<model name>/<date>/`` with one ``details_<task>_<date>.parquet``
  per task, one row per document in the task's order, the per-sample scores
  in a ``metrics`` struct column (``acc``, ``acc_norm``, ...) beside
  ``example``, ``full_prompt``, ``predictions``, ``gold``, ``choices``, ...;
  the leaderboard's details repositories hold the same files under
  ``<date>/`` with the run's ``results_<date>.json`` beside the folder.
* lm-evaluation-harness's ``--log_samples`` records as parquet (the
  leaderboard's second version): ``samples_<task>_<date>.parquet`` in a
  folder named after the model (``<org>__<name>``), one row per document
  and filter with ``doc_id``, ``doc``, ``target``, ``resps``, the hashes,
  and one column per metric (listed per row in ``metrics`` by recent
  releases).
"""

import ast
import json
import re

import numpy as np
import pandas as pd

from ._files import (
    arrow_joined_text,
    claim_run,
    constant_column,
    input_files,
    long_table,
)
from ._lfs import check_not_lfs_pointer
from ._long import LONG_COLUMNS, part_sources

__all__ = ["is_details_file", "read_leaderboard_details"]

_COLUMNS = [*LONG_COLUMNS, "target", "doc_hash", "file"]
_NAME = re.compile(
    r"^(details|samples)_(.+)_(\d{4}-\d{2}-\d{2}T[0-9.\-]+|latest)\.parquet$"
)
_NOT_LITERAL = re.compile(r"(?<![\w'\"])-?(?:nan|inf)\b")
# the columns of an lm-evaluation-harness sample that are not metrics
_SAMPLE_FIELDS = {"doc_id", "doc", "target", "arguments", "resps",
                  "filtered_resps", "filter", "metrics", "doc_hash",
                  "prompt_hash", "target_hash"}


def is_details_file(path):
    """Whether the file's name is that of a parquet details table."""
    return _NAME.match(path.name) is not None


def _parquet():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            "Reading parquet details tables needs pyarrow, an optional "
            "dependency: pip install 'sklearn-eval[parquet]'."
        ) from None
    return pa, pq


def _results_model(path):
    """The model a lighteval or lm-evaluation-harness results file names."""
    try:
        with open(path, "rb") as handle:
            results = json.loads(handle.read())
    except (ValueError, OSError) as exc:
        check_not_lfs_pointer(path)
        raise ValueError(f"{path}: not a readable results file ({exc})") from exc
    general = results.get("config_general") if isinstance(results, dict) else None
    name = general.get("model_name") if isinstance(general, dict) else None
    if name is None and isinstance(results, dict):
        name = results.get("model_name")
    return name if isinstance(name, str) and name else None


def _model_of(file, layout, date):
    """The run's model: its results file, else the folders the tools write."""
    folder = file.parent
    for results in (folder.parent / f"results_{date}.json",
                    folder / f"results_{date}.json"):
        if results.is_file():
            name = _results_model(results)
            if name:
                return name
    if layout == "samples":  # <output>/<org>__<name>/samples_<task>_<date>
        return folder.name.replace("__", "/")
    if folder.name == date:
        owner = folder.parent.name  # the hub: details_<org>__<name>/<date>/
        if owner.startswith("details_") and len(owner) > len("details_"):
            return owner[len("details_"):].replace("__", "/")
        above = folder.parts[:-1]
        if "details" in above:  # lighteval: details/<org>/<name>/<date>/
            start = len(above) - above[::-1].index("details")
            if start < len(above):
                return "/".join(above[start:])
    raise ValueError(
        f"{file}: cannot tell the model of this details table (no "
        f"results_{date}.json beside its folder, and not in lighteval's "
        "details/<model>/<date>/ layout); pass model="
    )


def _numeric(pa, column):
    kind = column.type
    return (pa.types.is_integer(kind) or pa.types.is_floating(kind)
            or pa.types.is_boolean(kind) or pa.types.is_null(kind))


def _floats(column):
    """float64 array of a numeric arrow column, nulls as NaN."""
    values = column.to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=np.float64) if values.dtype != object else (
        np.array([np.nan if v is None else float(v) for v in values])
    )


def _text(values):
    """Targets as text: lists joined by " | ", None kept."""
    out = []
    for value in values:
        if isinstance(value, list | tuple):
            value = " | ".join(map(str, value))
        elif value is not None and not isinstance(value, str):
            value = str(value)
        out.append(value)
    return out


def _target_text(column):
    """:func:`_text` of an arrow column, as an object array (text joined in arrow)."""
    column = column.combine_chunks()
    text = arrow_joined_text(column)
    if text is None:
        return np.asarray(_text(column.to_pylist()), dtype=object)
    return text.to_numpy(zero_copy_only=False)


def _metric_fields(pa, file, metrics):
    """``{metric: arrow array}`` of the ``metrics`` column of a lighteval table."""
    if pa.types.is_struct(metrics.type):
        metrics = metrics.combine_chunks()
        if metrics.null_count:
            row = int(np.flatnonzero(metrics.is_null().to_numpy(
                zero_copy_only=False))[0])
            raise ValueError(f"{file}: row {row} has no metrics")
        return {metrics.type.field(k).name: metrics.field(k)
                for k in range(metrics.type.num_fields)}
    # written with every value cast to text (lighteval's fallback for nested
    # values), or as a map: one dict per row
    rows = []
    for row, value in enumerate(metrics.to_pylist()):
        if isinstance(value, str):
            try:  # Python's text of a dict; nan and inf are not literals
                value = ast.literal_eval(_NOT_LITERAL.sub("None", value))
            except (ValueError, SyntaxError):
                value = None
        elif isinstance(value, list):  # a map column: (key, value) pairs
            value = dict(value)
        if not isinstance(value, dict):
            raise ValueError(
                f"{file}: row {row}: column 'metrics' holds {value!r}, not a "
                "mapping of metric names to scores"
            )
        rows.append(value)
    names = sorted({name for value in rows for name in value}, key=str)
    return {name: _text_metric(pa, [value.get(name, _ABSENT) for value in rows])
            for name in names}


_ABSENT = object()


def _text_metric(pa, values):
    """Arrow array of one metric parsed from text: absent = null, None = NaN."""
    if all(v is _ABSENT or v is None or isinstance(v, bool | int | float)
           for v in values):
        return pa.array([None if v is _ABSENT else np.nan if v is None else float(v)
                         for v in values], type=pa.float64())
    return pa.array([None if v is _ABSENT else repr(v) for v in values])


def _check_complete(pa, file, name, values, rows=None):
    """Refuse a metric logged on some rows and missing (null) on others."""
    nulls = values.is_null().to_numpy(zero_copy_only=False)
    if rows is not None:
        nulls = nulls & rows
    if nulls.any():
        row = int(np.flatnonzero(nulls)[0])
        raise ValueError(
            f"{file}: the metric {name!r} is missing at row {row} but logged "
            "on other rows: mixed metrics in one table (rows of different "
            "tasks or configurations?)"
        )


def _read_lighteval(pa, pq, file, names, skipped, task):
    if "metrics" not in names:
        raise ValueError(
            f"{file}: lacks the column 'metrics' (lighteval's details tables "
            "hold the per-sample scores there); it has "
            f"{sorted(names)}"
        )
    table = pq.read_table(
        file, columns=[c for c in ("metrics", "gold", "example") if c in names]
    )
    n = table.num_rows
    fields = _metric_fields(pa, file, table.column("metrics"))
    metrics, scores = [], []
    for name, values in fields.items():
        if not _numeric(pa, values):
            skipped.add(f"{task}:{name}")  # a corpus-level metric's parts
            continue
        _check_complete(pa, file, name, values)
        metrics.append(name)
        scores.append(_floats(values))
    target = _target_text(table.column("gold")) if "gold" in names \
        else np.full(n, None, dtype=object)
    example = (table.column("example").to_numpy(zero_copy_only=False)
               if "example" in names else None)
    k = len(metrics)
    return {
        "item": np.tile(np.arange(n, dtype=np.int64), k),
        "metric": np.repeat(np.asarray(metrics, dtype=object), n),
        "score": np.concatenate(scores) if k else np.zeros(0),
        "target": np.tile(target, k),
        "doc_hash": np.full(n * k, None, dtype=object),
    }, example, metrics


def _row_metrics(file, table, names):
    """Per row, the metrics it lists (recent lm-evaluation-harness releases)."""
    filters = (table.column("filter").to_pylist() if "filter" in names
               else [None] * table.num_rows)
    if "metrics" not in names:
        return filters, None
    listed = {}
    for row, (name, metrics) in enumerate(
        zip(filters, table.column("metrics").to_pylist(), strict=True)
    ):
        metrics = tuple(metrics or ())
        first = listed.setdefault(name, (metrics, row))
        if first[0] != metrics:
            raise ValueError(
                f"{file}: row {row} lists the metrics {list(metrics)} but row "
                f"{first[1]} (filter {name!r}) lists {list(first[0])}: mixed "
                "metrics in one table"
            )
    return filters, {name: metrics for name, (metrics, _) in listed.items()}


def _read_samples(pa, pq, file, names, skipped, task):
    if "doc_id" not in names:
        raise ValueError(
            f"{file}: lacks the column 'doc_id' (an lm-evaluation-harness "
            f"samples table has it); it has {sorted(names)}"
        )
    schema = pq.read_schema(file)
    head = [c for c in ("doc_id", "filter", "metrics", "target", "doc_hash")
            if c in names]
    table = pq.read_table(file, columns=head)
    filters, listed = _row_metrics(file, table, names)
    if listed is None:  # older releases: every numeric column is a metric
        candidates = [f.name for f in schema if f.name not in _SAMPLE_FIELDS
                      and _numeric(pa, f)]
        listed = {None: tuple(candidates)}
        filters = [None] * table.num_rows
    wanted = sorted({m for metrics in listed.values() for m in metrics})
    missing = [m for m in wanted if m not in names]
    if missing:
        raise ValueError(
            f"{file}: the rows list the metric(s) {missing} but the table has "
            "no such column"
        )
    values = pq.read_table(file, columns=wanted) if wanted else None
    filters = np.asarray(filters, dtype=object)
    doc_id = table.column("doc_id").to_numpy(zero_copy_only=False)
    target = _target_text(table.column("target")) \
        if "target" in names else np.full(len(doc_id), None, dtype=object)
    doc_hash = table.column("doc_hash").to_numpy(zero_copy_only=False) \
        if "doc_hash" in names else np.full(len(doc_id), None, dtype=object)
    parts, metric_names = [], []
    for name in wanted:
        column = values.column(name)
        if not _numeric(pa, column):
            skipped.add(f"{task}:{name}")
            continue
        rows = np.array([name in listed[f] for f in filters], dtype=bool) \
            if len(listed) > 1 else np.full(len(doc_id), name in listed[
                next(iter(listed))], dtype=bool)
        _check_complete(pa, file, name, column.combine_chunks(), rows)
        score = _floats(column)[rows]
        label = np.array(
            [name if f is None else f"{name},{f}" for f in filters[rows]], dtype=object
        ) if rows.any() else np.zeros(0, dtype=object)
        parts.append((doc_id[rows], label, score, target[rows], doc_hash[rows]))
        metric_names.append(name)
    if not parts:
        return None, None, metric_names
    return {
        "item": np.concatenate([p[0] for p in parts]),
        "metric": np.concatenate([p[1] for p in parts]),
        "score": np.concatenate([p[2] for p in parts]),
        "target": np.concatenate([p[3] for p in parts]),
        "doc_hash": np.concatenate([p[4] for p in parts]),
    }, None, metric_names


def _check_aligned(aligned, task, file, example, metrics):
    """Refuse files of one task whose rows hold other documents or metrics."""
    first = aligned.setdefault(task, (file, example, metrics))
    if first[0] == file:
        return
    if sorted(first[2]) != sorted(metrics):
        raise ValueError(
            f"{file} has the metrics {sorted(metrics)} for task {task!r} but "
            f"{first[0]} has {sorted(first[2])}: mixed metrics (runs of "
            "different task versions or configurations)"
        )
    if example is None or first[1] is None:
        return
    n = min(len(example), len(first[1]))
    differ = np.asarray(example[:n], dtype=object) != np.asarray(
        first[1][:n], dtype=object)
    if differ.any():
        row = int(np.flatnonzero(differ)[0])
        raise ValueError(
            f"{file}: row {row} holds another example of task {task!r} than "
            f"row {row} of {first[0]}: the rows (the items) are not aligned; "
            "the tables come from different task versions or orders"
        )


def read_leaderboard_details(path, *, model=None):
    """Read Open LLM Leaderboard style per-sample details tables (parquet).

    A details table is one parquet file per (model, task) run with one row
    per document. Two layouts are read, told apart by the name:

    * ``details_<task>_<date>.parquet``, written by lighteval (the
      Open LLM Leaderboard's first version; lighteval's
      ``details/<model>/<date>/`` folders or the leaderboard's details
      repositories): the scores are the numeric entries of the ``metrics``
      column, ``item`` is the row's position (the document's index in the
      task, the order lighteval writes), ``target`` the ``gold`` answer(s).
      Files of one task must hold the same ``example`` on the same row:
      tables whose rows hold other documents are refused, never aligned by
      position.
    * ``samples_<task>_<date>.parquet``, lm-evaluation-harness's
      ``--log_samples`` records as parquet (the leaderboard's second
      version): ``item`` is the ``doc_id``, the scores are the metric
      columns (those each row lists in ``metrics``, else every column that
      is not one of the sample's fields), named ``"<metric>,<filter>"`` when
      the table has a ``filter`` column, as :func:`read_lm_eval` names them.

    The model is the one the run's ``results_<date>.json`` names (beside
    the date folder, or beside the samples table), else the folder the tool
    writes (``details/<org>/<name>/<date>/``, ``details_<org>__<name>/``
    or ``<org>__<name>/``), else ``model``. Scores are taken as logged;
    metrics whose per-sample values are not numbers (the parts of a
    corpus-level metric) are left out with a warning. Reading needs pyarrow
    (``pip install 'sklearn-eval[parquet]'``).

    Parameters
    ----------
    path : str or path-like
        A details table or a folder (every ``details_*.parquet`` and
        ``samples_*.parquet`` under it).
    model : str, default=None
        The model of every table read, overriding the results files and
        folder names (e.g. for a table downloaded alone).

    Returns
    -------
    DataFrame
        The columns of :data:`~sklearn_eval.io.LONG_COLUMNS` (``task`` from
        the file's name, e.g. ``"leaderboard|arc:challenge|25"``, ``epoch``
        1) plus ``target``, ``doc_hash`` (lm-evaluation-harness's document
        hash; None in lighteval's tables) and ``file`` (the table's name).

    Raises
    ------
    ImportError
        When pyarrow is not installed.
    ValueError
        Naming the file (and the row or column): a name of neither layout,
        a missing column (``metrics``, ``doc_id``, a listed metric), a
        metric missing on some rows (mixed metrics in a table), tables of
        one task with different metrics or with other examples on the same
        rows, an unknown model, or two runs of one model and task.

    Warns
    -----
    UserWarning
        For metrics without per-sample scores.

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from sklearn_eval.io import read_leaderboard_details
    >>> date = "2024-01-01T00-00-00"
    >>> run = os.path.join(tempfile.mkdtemp(), "details", "org", "m", date)
    >>> os.makedirs(run)
    >>> table = pa.Table.from_pylist([
    ...     {"example": "2+2=", "gold": ["4"], "metrics": {"acc": 1}},
    ...     {"example": "3+3=", "gold": ["6"], "metrics": {"acc": 0}}])
    >>> pq.write_table(table, os.path.join(run, f"details_lb|sums|0_{date}.parquet"))
    >>> long = read_leaderboard_details(run)
    >>> long[["model", "task", "item", "metric", "score"]].values.tolist()
    [['org/m', 'lb|sums|0', 0, 'acc', 1.0], ['org/m', 'lb|sums|0', 1, 'acc', 0.0]]
    """
    if model is not None and (not isinstance(model, str) or not model):
        raise ValueError(f"model must be a non-empty string or None; got {model!r}.")
    pa, pq = _parquet()
    files = input_files(
        path, is_details_file,
        "details table (details_<task>_<date>.parquet or "
        "samples_<task>_<date>.parquet)",
    )
    parts, skipped, seen, aligned, read_from = [], set(), {}, {}, []
    for file in files:
        match = _NAME.match(file.name)
        if match is None:
            raise ValueError(
                f"{file}: not a details table (details_<task>_<date>.parquet or "
                "samples_<task>_<date>.parquet)"
            )
        layout, task, date = match.groups()
        try:
            names = set(pq.read_schema(file).names)
        except (OSError, pa.ArrowException) as exc:
            check_not_lfs_pointer(file)
            raise ValueError(f"{file}: not a readable parquet file ({exc})") from exc
        name = model if model is not None else _model_of(file, layout, date)
        claim_run(seen, name, task, file)
        read = _read_lighteval if layout == "details" else _read_samples
        columns, example, metrics = read(pa, pq, file, names, skipped, task)
        _check_aligned(aligned, task, file, example, metrics)
        if columns is None:  # only metrics without per-sample scores
            continue
        if len(columns["item"]) == 0:
            raise ValueError(f"{file}: the table has no samples")
        n = len(columns["item"])
        parts.append(pd.DataFrame({
            "model": constant_column(name, n),
            "task": constant_column(task, n),
            "item": columns["item"],
            "epoch": np.ones(n, dtype=np.int64),
            "metric": columns["metric"],
            "score": np.asarray(columns["score"], dtype=np.float64),
            "target": columns["target"],
            "doc_hash": columns["doc_hash"],
            "file": constant_column(file.name, n),
        }))
        read_from.append(file)
    return long_table(parts, skipped, _COLUMNS,
                      f"{path}: no per-sample score in the details tables",
                      part_sources(parts, read_from))
