"""Reader of lm-evaluation-harness results and per-sample logs."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ._files import claim_run, input_files, read_json, score_of
from ._long import LONG_COLUMNS, check_long_table

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
_BLOCK = 1 << 22  # bytes of lines read and parsed at a time (streaming, in blocks)
_MISSING = object()


def _fast_fields(text):
    """``(doc_id, target, rest, filter, doc_hash)`` of a line, the doc not parsed.

    lm-evaluation-harness writes every line with ``json.dumps`` in one key
    order: ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``,
    ``filtered_resps``, ``filter``, ``metrics``, ``doc_hash``,
    ``prompt_hash``, ``target_hash``, then the metric values. A key with its
    quotes (``"filter": ``) cannot occur inside a JSON string, whose quotes
    are escaped, so the top-level ``filter`` is the last one. A target, filter
    and hashes that are plain strings (no quote or backslash inside) are
    sliced out; ``rest``, the text of the object's remaining fields (the
    metric values, or the whole object from ``filter`` on when the hashes are
    not in that order, ``filter`` and ``doc_hash`` then None), is parsed with
    the rest of the block's lines. Anything unexpected returns None, and the
    line is parsed whole.
    """
    if not text.startswith(_HEAD) or text.count(_HEAD) != 1:
        return None  # e.g. a line cut short and another appended to it
    comma = text.find(",", 11)
    cut = text.rfind(', "filter": ')
    arguments = text.rfind(', "arguments": ', 0, cut)
    start = text.rfind('"target": ', 0, arguments) + 10
    if comma < 0 or cut < 0 or arguments < 0 or start < 10:
        return None
    try:
        doc_id = int(text[11:comma])
        if (text[start] == '"' and text.find('"', start + 1) == arguments - 1
                and "\\" not in text[start:arguments]):
            target = text[start + 1:arguments - 1]
        else:
            target, end = _DECODE(text, start)
            if end != arguments:
                return None
    except ValueError:
        return None
    if text.startswith('"', cut + 12):  # "filter": "<name>", ... "doc_hash": "<hash>"
        end = text.find('"', cut + 13)
        hashed = text.find(', "doc_hash": "', end)
        if end > 0 and hashed > 0 and "\\" not in text[cut + 13:end]:
            last = text.find(', "target_hash": "', hashed)
            stop = text.find('"', last + 18) if last > 0 else -1
            if stop > 0 and text.startswith(", ", stop + 1):
                doc_hash = text[hashed + 15:text.find('"', hashed + 15)]
                return (doc_id, target, text[stop + 3:].rstrip(),
                        text[cut + 13:end], doc_hash)
    return doc_id, target, text[cut + 2:].rstrip(), None, None


def _whole_line(file, number, line):
    """``(doc_id, target, sample)`` of a line parsed whole, or the error."""
    try:
        sample = json.loads(line)
    except ValueError as exc:
        raise ValueError(f"{file}: line {number} is not valid JSON ({exc})") from None
    if not isinstance(sample, dict) or "doc_id" not in sample:
        raise ValueError(
            f"{file}: line {number} lacks the field 'doc_id' (not an "
            "lm-evaluation-harness sample, or a format this reader "
            "does not understand)"
        )
    return sample["doc_id"], sample.get("target"), sample


def _blocks(file):
    """Blocks of ``(line numbers, lines as text)``; a last line cut short is named."""
    number = 0
    with open(file, "rb") as handle:
        while lines := handle.readlines(_BLOCK):
            last = lines[-1]
            if not last.endswith(b"\n") and last.strip():
                try:
                    json.loads(last)
                except ValueError:
                    raise ValueError(
                        f"{file}: line {number + len(lines)} is truncated (the "
                        "file ends in the middle of a sample: was the run "
                        "stopped while writing?); delete the partial line or "
                        "rerun"
                    ) from None
            numbers = [number + k for k, line in enumerate(lines, 1) if line.strip()]
            number += len(lines)
            yield numbers, [line.decode("utf-8") for line in lines if line.strip()]


def _parsed_block(file, numbers, lines):
    """``(doc_ids, targets, filters, hashes, samples)`` of a block of lines.

    ``samples`` are the parsed ``rest`` of :func:`_fast_fields` (the metric
    values), all the block's parsed as one JSON array; when that fails (a
    line not in the harness's layout, or broken), the block is parsed line by
    line, which names the line.
    """
    fast = [_fast_fields(line) for line in lines]
    if None not in fast:
        try:
            samples = json.loads("[{" + ",{".join(f[2] for f in fast) + "]")
        except ValueError:
            samples = None
        if samples is not None and len(samples) == len(fast) and all(
            type(sample) is dict for sample in samples
        ):
            names = [f[3] if f[3] is not None else s.get("filter", _MISSING)
                     for f, s in zip(fast, samples, strict=True)]
            hashes = [f[4] if f[3] is not None else s.get("doc_hash")
                      for f, s in zip(fast, samples, strict=True)]
            return ([f[0] for f in fast], [f[1] for f in fast], names, hashes,
                    samples)
    parsed = [_whole_line(file, number, line)
              for number, line in zip(numbers, lines, strict=True)]
    samples = [p[2] for p in parsed]
    return ([p[0] for p in parsed], [p[1] for p in parsed],
            [s.get("filter", _MISSING) for s in samples],
            [s.get("doc_hash") for s in samples], samples)


def _scores(file, numbers, rows, samples, metric, task, skipped):
    """Scores of ``metric`` on the ``rows`` of a block; None when not per-sample."""
    if isinstance(rows, range):
        values = [sample.get(metric, _MISSING) for sample in samples]
    else:
        values = [samples[k].get(metric, _MISSING) for k in rows]
    if all(type(value) is float for value in values):
        return values
    scores = []
    for k, value in zip(rows, values, strict=True):
        if value is _MISSING:
            raise ValueError(
                f"{file}: line {numbers[k]} lacks the metric {metric!r} that "
                "the results file reports"
            )
        if isinstance(value, list | tuple | dict):
            skipped.add(f"{task}:{metric}")  # a corpus-level metric's parts
            return None
        scores.append(score_of(value, f"{file}: line {numbers[k]}, metric {metric!r}"))
    return scores


def _read_samples(file, task, filters, skipped):
    """Columns (items, targets, hashes, metrics, scores) of a samples file.

    Rows are in the file's order, line by line, the metrics of a line in the
    order the results file lists them.
    """
    items, targets, hashes, metrics_out, scores, order = [], [], [], [], [], []
    seen = 0
    for numbers, lines in _blocks(file):
        doc_ids, block_targets, names, block_hashes, samples = _parsed_block(
            file, numbers, lines
        )
        first = names[0]
        if all(name == first for name in names):  # one filter: no regrouping
            groups = {first: range(len(names))}
        else:
            groups = {}
            for k, name in enumerate(names):
                groups.setdefault(name, []).append(k)
        for name, rows in groups.items():
            if name is _MISSING:
                raise ValueError(
                    f"{file}: line {numbers[rows[0]]} lacks the field 'filter' "
                    "(not an lm-evaluation-harness sample, or a format this "
                    "reader does not understand)"
                )
            metrics = filters.get(name) if isinstance(name, str) else None
            if metrics is None:
                raise ValueError(
                    f"{file}: line {numbers[rows[0]]} has filter {name!r}, which "
                    "the results file does not report for task "
                    f"{task!r} (it has {sorted(filters)}): the files are of "
                    "different runs"
                )
            if isinstance(rows, range):
                row_targets, row_items = block_targets, doc_ids
                row_hashes = block_hashes
            else:
                row_targets = [block_targets[k] for k in rows]
                row_items = [doc_ids[k] for k in rows]
                row_hashes = [block_hashes[k] for k in rows]
            if not all(type(t) is str for t in row_targets):
                row_targets = [t if t is None or type(t) is str else str(t)
                               for t in row_targets]
            for metric in metrics:
                values = _scores(file, numbers, rows, samples, metric, task, skipped)
                if values is None:
                    continue
                items.extend(row_items)
                targets.extend(row_targets)
                hashes.extend(row_hashes)
                metrics_out.append((f"{metric},{name}", len(rows)))
                scores.extend(values)
                order.append(np.asarray(rows, dtype=np.int64) + seen)
        seen += len(lines)
    labels = [label for label, n in metrics_out for _ in range(n)]
    whole = all(type(item) is int for item in items)
    columns = [np.asarray(items, dtype=np.int64) if whole else _objects(items),
               _objects(targets), _objects(hashes),
               _objects(labels), np.asarray(scores, dtype=np.float64)]
    order = np.concatenate(order) if order else np.zeros(0, dtype=np.int64)
    if len(order) and (np.diff(order) < 0).any():  # back to the file's order
        rank = np.argsort(order, kind="stable")  # a line's metrics keep theirs
        columns = [column[rank] for column in columns]
    return columns


def _objects(values):
    column = np.empty(len(values), dtype=object)
    column[:] = values
    return column


def _read_run(results_file, skipped):
    results = read_json(results_file, "lm-evaluation-harness results file")
    if not isinstance(results, dict):
        raise ValueError(f"{results_file}: the top level is not an object")
    model = _model_name(results, results_file)
    tasks = _task_metrics(results, results_file)
    versions = results.get("versions") or {}
    stamp = results_file.stem[len("results_"):]
    parts, read, absent = [], 0, []
    for task, filters in tasks.items():
        file = _samples_file(results_file.parent, task, stamp)
        if not file.is_file():
            absent.append(task)
            continue
        items, targets, hashes, metrics, scores = _read_samples(
            file, task, filters, skipped
        )
        if not len(items) and not skipped:
            raise ValueError(f"{file}: the samples file has no samples")
        n = len(items)
        parts.append(pd.DataFrame({
            "model": np.full(n, model, dtype=object),
            "task": np.full(n, task, dtype=object),
            "item": items,
            "epoch": np.ones(n, dtype=np.int64),
            "metric": metrics,
            "score": np.asarray(scores, dtype=np.float64),
            "target": targets,
            "doc_hash": hashes,
            "file": np.full(n, file.name, dtype=object),
        }))
        read += 1
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
    present = [task for task in tasks if task not in absent]
    return model, {task: versions.get(task) for task in present}, parts


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
    parts, skipped, seen, versions = [], set(), {}, {}
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
    if skipped:
        warnings.warn(
            f"metric(s) {sorted(skipped)} have no per-sample score (the parts "
            "of a corpus-level metric); they are left out.",
            UserWarning,
            stacklevel=2,
        )
    if not parts:
        raise ValueError(f"{path}: no per-sample score in the runs")
    return check_long_table(pd.concat(parts, ignore_index=True)[_COLUMNS])
