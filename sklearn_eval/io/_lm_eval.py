"""Reader of lm-evaluation-harness results and per-sample logs."""

import warnings
from pathlib import Path

import pandas as pd

from ._files import input_files, iter_jsonl, read_json, score_of
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


def _read_samples(file, model, task, filters, skipped):
    rows = []
    append = rows.append
    where = f"{file}"
    for number, sample in iter_jsonl(file):
        try:
            item, name = sample["doc_id"], sample["filter"]
        except (KeyError, TypeError) as exc:
            raise ValueError(
                f"{file}: line {number} lacks the field {exc} (not an "
                "lm-evaluation-harness sample, or a format this reader does "
                "not understand)"
            ) from None
        metrics = filters.get(name)
        if metrics is None:
            raise ValueError(
                f"{file}: line {number} has filter {name!r}, which the results "
                f"file does not report for task {task!r} (it has "
                f"{sorted(filters)}): the files are of different runs"
            )
        target, doc_hash = sample.get("target"), sample.get("doc_hash")
        if target is not None and not isinstance(target, str):
            target = str(target)
        for metric in metrics:
            value = sample.get(metric)
            if isinstance(value, list | tuple | dict):
                skipped.add(f"{task}:{metric}")  # a corpus-level metric's parts
                continue
            if metric not in sample:
                raise ValueError(
                    f"{file}: line {number} lacks the metric {metric!r} that "
                    "the results file reports"
                )
            score = score_of(value, f"{where}: line {number}, metric {metric!r}")
            append((model, task, item, 1, f"{metric},{name}", score, target,
                    doc_hash, file.name))
    return rows


def _read_run(results_file, skipped):
    results = read_json(results_file, "lm-evaluation-harness results file")
    if not isinstance(results, dict):
        raise ValueError(f"{results_file}: the top level is not an object")
    model = _model_name(results, results_file)
    tasks = _task_metrics(results, results_file)
    versions = results.get("versions") or {}
    stamp = results_file.stem[len("results_"):]
    rows, read = [], 0
    for task, filters in tasks.items():
        file = _samples_file(results_file.parent, task, stamp)
        if not file.is_file():
            continue
        found = _read_samples(file, model, task, filters, skipped)
        if not found:
            raise ValueError(f"{file}: the samples file has no samples")
        rows.extend(found)
        read += 1
    if read == 0:
        raise ValueError(
            f"{results_file}: the run has no samples files "
            f"(samples_<task>_{stamp}.jsonl beside it); rerun lm_eval with "
            "--log_samples"
        )
    return model, {task: versions.get(task) for task in tasks}, rows


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
    rows, skipped, seen, versions = [], set(), {}, {}
    for file in files:
        file = Path(file)
        if not (file.name.startswith("results_") and file.suffix == ".json"):
            raise ValueError(
                f"{file}: not an lm-evaluation-harness results file "
                "(results_<date>.json)"
            )
        model, task_versions, found = _read_run(file, skipped)
        for task, version in task_versions.items():
            if (model, task) in seen:
                raise ValueError(
                    f"{file} and {seen[model, task]} both hold task {task!r} of "
                    f"model {model!r}: the same samples would be counted twice; "
                    "keep one run"
                )
            seen[model, task] = file
            first = versions.setdefault(task, (version, file))
            if first[0] != version:
                raise ValueError(
                    f"{file}: task {task!r} is version {version!r} but "
                    f"{first[1]} has version {first[0]!r}: scores of different "
                    "task versions are not comparable item by item"
                )
        rows.extend(found)
    if skipped:
        warnings.warn(
            f"metric(s) {sorted(skipped)} have no per-sample score (the parts "
            "of a corpus-level metric); they are left out.",
            UserWarning,
            stacklevel=2,
        )
    return check_long_table(pd.DataFrame(rows, columns=_COLUMNS))
