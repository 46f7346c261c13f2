"""Reader of lm-evaluation-harness results and per-sample logs."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ._files import (
    all_finite_or_nan,
    arrow_column,
    arrow_json_lines,
    claim_run,
    constant_column,
    input_files,
    long_table,
    ordered_map,
    read_json,
    score_of,
)
from ._lfs import check_not_lfs_pointer
from ._long import LONG_COLUMNS, part_sources

__all__ = ["read_lm_eval"]

_COLUMNS = [*LONG_COLUMNS, "target", "doc_hash", "file"]


def _model_name(results, path):
    config = results.get("config")
    if not isinstance(config, dict) or "model" not in config:
        raise ValueError(
            f"{path}: field 'config' lacks 'model' (not an lm-evaluation-harness "
            "results file)"
        )
    name = results.get("model_name")
    if isinstance(name, str) and name:
        return name
    args = config.get("model_args")
    if isinstance(args, dict):
        args = ",".join(f"{k}={v}" for k, v in args.items())
    return f"{config['model']}({args})" if args else str(config["model"])


def _task_metrics(results, path):
    """``{task: {filter: [metric, ...]}}`` of the tasks with per-sample logs."""
    tables, configs = results.get("results"), results.get("configs")
    if not isinstance(tables, dict) or not isinstance(configs, dict):
        raise ValueError(
            f"{path}: fields 'results' and 'configs' are missing or not objects "
            "(not an lm-evaluation-harness results file)"
        )
    tasks = {}
    for task in configs:  # the tasks that ran (groups have no config)
        table = tables.get(task)
        if not isinstance(table, dict):
            raise ValueError(f"{path}: field 'results' has no entry for task {task!r}")
        filters = {}
        for key in table:
            metric, comma, name = key.partition(",")
            if comma and not metric.endswith("_stderr"):
                filters.setdefault(name, []).append(metric)
        tasks[task] = filters
    return tasks


def _samples_file(folder, task, stamp):
    name = f"samples_{task}_{stamp}.jsonl"
    return folder / name


_DECODE = json.JSONDecoder().raw_decode
_HEAD = '{"doc_id": '


def _fast_fields(text):
    """``(doc_id, target, tail)`` of a samples line without parsing the doc.

    lm-evaluation-harness writes every line with ``json.dumps`` in one key
    order: ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``,
    ``filtered_resps``, ``filter``, then the hashes and metric values. A key
    with its quotes (``"filter": ``) cannot occur inside a JSON string, whose
    quotes are escaped, so the top-level ``filter`` is the last one, and the
    object from it to the end is parsed alone (the document is not parsed).
    Anything unexpected returns None, and the line is parsed whole: so does
    a tail without ``doc_hash`` or with a second ``doc_id`` or ``target``
    (keys in another order: the whole line's values may differ), and a
    metric missing from the tail is looked for in the whole line (see
    :func:`_parsed_lines`).
    """
    if not text.startswith(_HEAD) or text.count(_HEAD) != 1:
        return None  # e.g. a line cut short and another appended to it
    comma = text.find(",", 11)
    cut = text.rfind(', "filter": ')
    arguments = text.rfind(', "arguments": ', 0, cut)
    start = text.rfind('"target": ', 0, arguments)
    if comma < 0 or cut < 0 or arguments < 0 or start < 0:
        return None
    try:
        doc_id = int(text[11:comma])
        target, end = _DECODE(text, start + 10)
        tail, stop = _DECODE("{" + text[cut + 2:].rstrip())
    except ValueError:
        return None
    if end != arguments or stop != len(text) - cut - 1 - (
        len(text) - len(text.rstrip())
    ) or "doc_hash" not in tail or "doc_id" in tail or "target" in tail:
        return None
    return doc_id, target, tail


def _parsed_lines(file, metrics_of):
    """``(line number, doc_id, target, fields)`` of every line of a samples file.

    ``metrics_of(fields)``: the metrics the line must have (None: the line's
    filter is refused); a line whose tail lacks one is parsed whole, as the
    metric may come before the ``filter`` key.
    """
    for number, line in _lines(file):
        fast = _fast_fields(line)
        if fast is not None and any(
            metric not in fast[2] for metric in metrics_of(fast[2]) or ()
        ):
            fast = None
        if fast is None:
            try:
                sample = json.loads(line)
            except ValueError as exc:
                if number == 1:
                    check_not_lfs_pointer(file)
                raise ValueError(
                    f"{file}: line {number} is not valid JSON ({exc})"
                ) from None
            if not isinstance(sample, dict) or "doc_id" not in sample:
                raise ValueError(
                    f"{file}: line {number} lacks the field 'doc_id' (not an "
                    "lm-evaluation-harness sample, or a format this reader "
                    "does not understand)"
                )
            fast = sample["doc_id"], sample.get("target"), sample
        yield (number, *fast)


def _lines(file):
    """Non-blank lines as text; a last line cut short is named as such."""
    with open(file, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n") and line.strip():
                try:
                    json.loads(line)
                except ValueError:
                    raise ValueError(
                        f"{file}: line {number} is truncated (the file ends in "
                        "the middle of a sample: was the run stopped while "
                        "writing?); delete the partial line or rerun"
                    ) from None
            if line.strip():
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(
                        f"{file}: line {number} is not UTF-8 text ({exc})"
                    ) from None
                yield number, text


_KEPT = ("doc_id", "target", "filter", "doc_hash")


def _arrow_samples(file, filters):
    """The columns of :func:`_read_samples` parsed by pyarrow; None when unusual.

    Only the fields the table needs are parsed (never the document, the
    arguments or the responses). The common case (integer ``doc_id``, text
    ``target`` and ``doc_hash``, a reported ``filter`` on every line, every
    metric of the line's filter a number) is read column by column; anything
    else (a missing or null field, a value of another type, a corpus-level
    metric's parts) returns None and the file is read line by line, which
    gives the same table or names the line at fault.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    metrics = list(dict.fromkeys(m for names in filters.values() for m in names))
    if not filters or set(metrics) & set(_KEPT):
        return None
    fields = {"doc_id": pa.int64(), "target": pa.string(), "filter": pa.string(),
              "doc_hash": pa.string(), **dict.fromkeys(metrics, pa.float64())}
    table = arrow_json_lines(file, fields)
    if table is None or table.column("doc_id").null_count \
            or table.column("filter").null_count:
        return None
    names = list(filters)
    code = pc.index_in(table.column("filter"), value_set=pa.array(names))
    if code.null_count:  # a filter the results file does not report
        return None
    code = code.to_numpy()
    counts = np.array([len(filters[name]) for name in names])[code]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    n_rows = int(counts.sum())
    line_of = np.repeat(np.arange(len(code)), counts)
    label_names, label_codes = [], np.empty(n_rows, dtype=np.int64)
    scores = np.empty(n_rows, dtype=np.float64)
    for k, name in enumerate(names):
        lines = np.flatnonzero(code == k)
        for j, metric in enumerate(filters[name]):
            column = table.column(metric).take(lines)
            if column.null_count:  # missing or null: the line-by-line read decides
                return None
            rows = starts[lines] + j
            label_codes[rows] = len(label_names)
            label_names.append(f"{metric},{name}")
            scores[rows] = column.to_numpy()
    if not all_finite_or_nan(scores):  # the line-by-line read names the line
        return None
    line_of = pa.array(line_of)
    return _ArrowPart(table.column("doc_id").to_numpy()[line_of.to_numpy()],
                      table.column("target").take(line_of),
                      table.column("doc_hash").take(line_of),
                      label_codes, label_names, scores)


class _ArrowPart(tuple):
    """The columns of a samples file read by pyarrow, not yet a frame.

    ``(items, targets, hashes, label codes, label names, scores)``: numpy
    items and scores, Arrow text targets and hashes, the metric of each row
    coded in the file's own label names. The parts of a run's files are
    joined into one frame (see :func:`_arrow_frame`), not one per file.
    """

    __slots__ = ()

    def __new__(cls, *columns):
        return super().__new__(cls, columns)


def _arrow_frame(model, parts):
    """The rows of consecutive ``(task, file, part)`` read by pyarrow, one frame.

    The same frame as one per file concatenated: text columns become the
    pandas dtype of text, but for a file whose targets or hashes are all
    null (a column of ``None`` objects on its own, see
    :func:`~sklearn_eval.io._files.arrow_column`), when the files' frames
    are built one by one as the line-by-line reader builds them.
    """
    import pyarrow as pa

    if len(parts) > 1 and any(
        len(part[1]) == part[1].null_count or len(part[2]) == part[2].null_count
        for _, _, part in parts
    ):
        return pd.concat([_arrow_frame(model, [one]) for one in parts],
                         ignore_index=True)
    sizes = np.array([len(part[0]) for _, _, part in parts])
    of_file = pa.array(np.repeat(np.arange(len(parts)), sizes))

    def per_file(values):  # a text constant per file, as a column of rows
        return arrow_column(pa.DictionaryArray.from_arrays(
            of_file, pa.array(values, pa.string())).dictionary_decode())

    def text(k):  # the files' Arrow text column k, joined
        return pa.chunked_array([chunk for _, _, part in parts
                                 for chunk in part[k].chunks], pa.string())

    offsets = np.cumsum([0, *(len(part[4]) for _, _, part in parts[:-1])])
    codes = np.concatenate([part[3] + offset
                            for (_, _, part), offset in zip(parts, offsets,
                                                            strict=True)])
    labels = pa.array([name for _, _, part in parts for name in part[4]],
                      pa.string())
    n = int(sizes.sum())
    return pd.DataFrame({
        "model": constant_column(model, n),
        "task": per_file([task for task, _, _ in parts]),
        "item": np.concatenate([part[0] for _, _, part in parts]),
        "epoch": np.ones(n, dtype=np.int64),
        "metric": arrow_column(pa.DictionaryArray.from_arrays(
            pa.array(codes), labels).dictionary_decode()),
        "score": np.concatenate([part[5] for _, _, part in parts]),
        "target": arrow_column(text(1)),
        "doc_hash": arrow_column(text(2)),
        "file": per_file([file.name for _, file, _ in parts]),
    })


def _read_samples(file, task, filters, skipped):
    """Columns of a samples file: an :class:`_ArrowPart`, or lists of the rows.

    The lists: items, targets, hashes, metrics and scores.
    """
    fast = _arrow_samples(file, filters)
    if fast is not None and len(fast[0]):
        return fast
    items, targets, hashes, metrics_out, scores = [], [], [], [], []
    for number, item, target, fields in _parsed_lines(
        file, lambda fields: filters.get(fields.get("filter"))
    ):
        name = fields.get("filter")
        if name is None:
            raise ValueError(
                f"{file}: line {number} lacks the field 'filter' (not an "
                "lm-evaluation-harness sample, or a format this reader does "
                "not understand)"
            )
        metrics = filters.get(name)
        if metrics is None:
            raise ValueError(
                f"{file}: line {number} has filter {name!r}, which the results "
                f"file does not report for task {task!r} (it has "
                f"{sorted(filters)}): the files are of different runs"
            )
        if target is not None and not isinstance(target, str):
            target = str(target)
        doc_hash = fields.get("doc_hash")
        for metric in metrics:
            value = fields.get(metric, _MISSING)
            if type(value) is float and value - value == 0.0:  # finite
                score = value
            elif value is _MISSING:
                raise ValueError(
                    f"{file}: line {number} lacks the metric {metric!r} that "
                    "the results file reports"
                )
            elif isinstance(value, list | tuple | dict):
                skipped.add(f"{task}:{metric}")  # a corpus-level metric's parts
                continue
            else:
                score = score_of(value, f"{file}: line {number}, metric {metric!r}")
            items.append(item)
            targets.append(target)
            hashes.append(doc_hash)
            metrics_out.append(f"{metric},{name}")
            scores.append(score)
    return items, targets, hashes, metrics_out, scores


_MISSING = object()


def _read_run(results_file, skipped):
    results = read_json(results_file, "lm-evaluation-harness results file")
    if not isinstance(results, dict):
        raise ValueError(f"{results_file}: the top level is not an object")
    model = _model_name(results, results_file)
    tasks = _task_metrics(results, results_file)
    versions = results.get("versions") or {}
    stamp = results_file.stem[len("results_"):]
    parts, read, absent, present = [], 0, [], []
    for task, filters in tasks.items():
        file = _samples_file(results_file.parent, task, stamp)
        if file.is_file():
            present.append((task, filters, file))
        else:
            absent.append(task)

    def read_task(entry):  # a task's samples file, its own skipped metrics
        task, filters, file = entry
        own = set()
        return _read_samples(file, task, filters, own), own

    fast = []  # files read by pyarrow, framed together

    def frame_fast():
        if fast:
            parts.append(_arrow_frame(model, fast))
            fast.clear()

    for (task, _, file), (columns, own) in zip(
        present, ordered_map(read_task, present), strict=True
    ):
        skipped |= own
        read += 1
        if isinstance(columns, _ArrowPart):  # never empty
            fast.append((task, file, columns))
            continue
        frame_fast()
        items, targets, hashes, metrics, scores = columns
        if not len(items) and not skipped:
            raise ValueError(f"{file}: the samples file has no samples")
        n = len(items)
        parts.append(pd.DataFrame({
            "model": constant_column(model, n),
            "task": constant_column(task, n),
            "item": items,
            "epoch": np.ones(n, dtype=np.int64),
            "metric": metrics,
            "score": np.asarray(scores, dtype=np.float64),
            "target": targets,
            "doc_hash": hashes,
            "file": constant_column(file.name, n),
        }))
    frame_fast()
    if read == 0:
        raise ValueError(
            f"{results_file}: the run has no samples files "
            f"(samples_<task>_{stamp}.jsonl beside it); rerun lm_eval with "
            "--log_samples"
        )
    if absent:
        warnings.warn(
            f"{results_file}: no samples file for task(s) {absent} of the run "
            "(deleted or not written); the run's other tasks are read.",
            UserWarning,
            stacklevel=3,
        )
    return model, {task: versions.get(task) for task, _, _ in present}, parts


def read_lm_eval(path):
    """Read lm-evaluation-harness per-sample logs into a long table.

    lm-evaluation-harness run with ``--output_path`` and ``--log_samples``
    writes, per run, a ``results_<date>.json`` and beside it one
    ``samples_<task>_<date>.jsonl`` per task (one line per document and
    filter). Each run is one model, named as its results file records it
    (``model_name``, else the ``config``'s model and model_args). The results
    file says which metrics each task has; their per-sample values are read
    line by line from the samples files. A folder is read run by run (every
    ``results_*.json`` under it).

    Scores are taken as logged. Metrics whose per-sample values are not
    numbers (the parts of a corpus-level metric such as BLEU or perplexity,
    aggregated only over the whole task) have no per-sample score and are
    left out with a warning.

    With pyarrow installed the JSON is parsed by pyarrow, only the fields
    the table needs; anything it cannot read as expected is read with the
    standard library, which gives the same table or names the problem (see
    the user guide's "Reading speed").

    Parameters
    ----------
    path : str or path-like
        A ``results_*.json`` file (its samples files beside it) or a folder.

    Returns
    -------
    DataFrame
        The columns of :data:`~sklearn_eval.io.LONG_COLUMNS` (``item`` is the
        ``doc_id``, ``epoch`` 1, ``metric`` lm-evaluation-harness's
        ``"<metric>,<filter>"`` key as in its results file, e.g.
        ``"acc,none"``) plus ``target``, ``doc_hash`` (the document's hash:
        the same item of two runs has the same hash) and ``file`` (the
        samples file's name).

    Warns
    -----
    UserWarning
        For a run whose samples file of some task is missing (the other
        tasks are read), and for metrics without per-sample scores.

    Raises
    ------
    ValueError
        Naming the file (and the line or field): a file that is not a results
        file, a run without samples files (``--log_samples`` not given), a
        samples line that is truncated or lacks a field, a score that is not
        a number, two runs of one model and task, or one task in two versions
        (its ``versions`` entry) in the folder.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from sklearn_eval.io import read_lm_eval
    >>> folder = tempfile.mkdtemp()
    >>> results = {"results": {"qa": {"acc,none": 0.5}}, "configs": {"qa": {}},
    ...            "versions": {"qa": 1.0}, "config": {"model": "dummy"},
    ...            "model_name": "m"}
    >>> with open(os.path.join(folder, "results_2024.json"), "w") as f:
    ...     json.dump(results, f)
    >>> with open(os.path.join(folder, "samples_qa_2024.jsonl"), "w") as f:
    ...     for doc_id, acc in enumerate([1.0, 0.0]):
    ...         _ = f.write(json.dumps({"doc_id": doc_id, "filter": "none",
    ...                                 "target": "x", "acc": acc}) + "\\n")
    >>> long = read_lm_eval(folder)
    >>> long[["model", "task", "item", "metric", "score"]].values.tolist()
    [['m', 'qa', 0, 'acc,none', 1.0], ['m', 'qa', 1, 'acc,none', 0.0]]
    """
    files = input_files(
        path,
        lambda p: p.name.startswith("results_") and p.suffix == ".json",
        "lm-evaluation-harness results_*.json file",
    )
    parts, skipped, seen, versions, folders = [], set(), {}, {}, []
    for file in files:
        file = Path(file)
        if not (file.name.startswith("results_") and file.suffix == ".json"):
            raise ValueError(
                f"{file}: not an lm-evaluation-harness results file "
                "(results_<date>.json)"
            )
        model, task_versions, found = _read_run(file, skipped)
        for task, version in task_versions.items():
            claim_run(seen, model, task, file)
            first = versions.setdefault(task, (version, file))
            if first[0] != version:
                raise ValueError(
                    f"{file}: task {task!r} is version {version!r} but "
                    f"{first[1]} has version {first[0]!r}: scores of different "
                    "task versions are not comparable item by item"
                )
        parts.extend(found)
        folders.extend([file.parent] * len(found))
    folder_of = part_sources(parts, folders)

    def where(long, row):  # the samples file of the row
        return str(Path(folder_of(long, row)) / str(long["file"].iloc[row]))

    return long_table(parts, skipped, _COLUMNS,
                      f"{path}: no per-sample score in the runs", where)
