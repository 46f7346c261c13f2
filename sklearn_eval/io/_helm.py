"""Reader of HELM run folders (``run_spec.json`` and ``per_instance_stats.json``)."""

import math

import numpy as np
import pandas as pd

from ._files import (
    all_finite_or_nan,
    arrow_column,
    arrow_records,
    arrow_records_file,
    claim_run,
    constant_column,
    input_files,
    ordered_map,
    read_json,
    score_of,
)
from ._long import LONG_COLUMNS, checked_long_table, part_sources

__all__ = ["read_helm"]

_COLUMNS = [*LONG_COLUMNS, "split", "run"]
_RUN_FILES = ("run_spec.json", "per_instance_stats.json")
_MODEL_ARGS = ("model", "model_deployment")


def _run_spec(folder):
    path = folder / "run_spec.json"
    spec = read_json(path, "HELM run_spec.json")
    if not isinstance(spec, dict):
        raise ValueError(f"{path}: the top level is not an object")
    adapter = spec.get("adapter_spec")
    name = spec.get("name")
    if not isinstance(adapter, dict) or not isinstance(name, str):
        raise ValueError(
            f"{path}: fields 'name' and 'adapter_spec' are missing (not a HELM "
            "run spec)"
        )
    model = adapter.get("model") or adapter.get("model_deployment")
    if not isinstance(model, str) or not model:
        raise ValueError(f"{path}: field 'adapter_spec' names no 'model'")
    return name, model


def task_of(run_name):
    """The run's name without its model: the same task for every model.

    >>> task_of("mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2")
    'mmlu:subject=anatomy,method=multiple_choice_joint'
    """
    scenario, colon, args = run_name.partition(":")
    if not colon:
        return run_name
    kept = [a for a in args.split(",") if a.partition("=")[0] not in _MODEL_ARGS]
    return f"{scenario}:{','.join(kept)}" if kept else scenario


def _perturbation(entry):
    perturbation = entry.get("perturbation")
    if not perturbation:
        return ""
    if not isinstance(perturbation, dict) or "name" not in perturbation:
        raise ValueError("field 'perturbation' has no 'name'")
    return f"@{perturbation['name']}"


def _read_run(folder):
    name, model = _run_spec(folder)
    task = task_of(name)
    path = folder / "per_instance_stats.json"
    if not path.is_file():
        raise ValueError(
            f"{folder}: the run has no per_instance_stats.json (HELM writes it "
            "from version 0.2; a run that did not finish has none)"
        )
    try:
        fast = _arrow_columns(path)
        if fast is not None:
            return model, task, _frame(model, task, folder, *fast)
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ValueError(f"{path}: not a readable HELM per_instance_stats.json "
                         f"({exc})") from exc
    entries = read_json(path, "HELM per_instance_stats.json", data)
    if not isinstance(entries, list):
        raise ValueError(f"{path}: the top level is not a list of instances")
    if not entries:
        raise ValueError(f"{path}: the run has no instances")
    items, epochs, metrics, scores, splits = [], [], [], [], []
    for k, entry in enumerate(entries):
        try:
            item, trial, stats = (
                entry["instance_id"], entry["train_trial_index"], entry["stats"]
            )
            suffix = _perturbation(entry)
            for stat in stats:
                stat_name = stat["name"]
                metric = stat_name["name"] + suffix
                mean = stat.get("mean")
                if type(mean) is not float or math.isinf(mean):
                    where = f"{path}: instance {k} ({item!r}), stat {metric!r}"
                    mean = score_of(mean, where)
                items.append(item)
                epochs.append(trial + 1)
                metrics.append(metric)
                scores.append(mean)
                splits.append(stat_name.get("split"))
        except (KeyError, TypeError) as exc:
            raise ValueError(
                f"{path}: instance {k} lacks the field {exc} (not HELM "
                "per-instance stats, or a format this reader does not "
                "understand)"
            ) from None
        except ValueError as exc:
            if str(path) in str(exc):
                raise
            raise ValueError(f"{path}: instance {k}: {exc}") from None
    epochs = np.asarray(epochs, dtype=np.int64) if items else np.ones(0, np.int64)
    return model, task, _frame(model, task, folder, items, epochs, metrics,
                               scores, splits)


def _frame(model, task, folder, items, epochs, metrics, scores, splits):
    n = len(items)
    return pd.DataFrame({
        "model": constant_column(model, n),
        "task": constant_column(task, n),
        "item": items,
        "epoch": epochs,
        "metric": metrics,
        "score": np.asarray(scores, dtype=np.float64),
        "split": splits,
        "run": constant_column(folder.name, n),
    })


def _arrow_columns(source):
    """The columns of a per_instance_stats.json parsed by pyarrow; None when unusual.

    ``source``: the file's path (read in pieces by parallel threads, see
    :func:`~._files.arrow_records_file`) or its bytes.

    Only the fields the table needs are parsed (instance id, trial,
    perturbation name, each stat's name, split and mean; never the other
    stats fields). The common case (text ids and names, integer trials, a
    number or null mean) is read column by column; anything else returns
    None and the entries are read one by one, which gives the same table or
    names the instance at fault.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    stat = pa.struct([("name", pa.struct([("name", pa.string()),
                                          ("split", pa.string())])),
                      ("mean", pa.float64())])
    entry = pa.struct([("instance_id", pa.string()),
                       ("train_trial_index", pa.int64()),
                       ("perturbation", pa.struct([("name", pa.string())])),
                       ("stats", pa.list_(stat))])
    if isinstance(source, bytes | bytearray):
        columns = arrow_records(source, entry)
    else:
        columns = arrow_records_file(source, entry)
    if columns is None:
        return None
    item, trial, perturbation, stats = columns
    if item.null_count or trial.null_count or stats.null_count:
        return None
    if perturbation.null_count < len(perturbation):
        name = perturbation.flatten()[0]
        if name.null_count > perturbation.null_count:  # no name: refused below
            return None
        suffix = pc.fill_null(pc.binary_join_element_wise("@", name, ""), "")
    else:
        suffix = None
    values = stats.flatten()
    if values.null_count:
        return None
    stat_name, mean = values.flatten()
    if stat_name.null_count:
        return None
    metric, split = stat_name.flatten()
    if metric.null_count:
        return None
    if not all_finite_or_nan(mean.to_numpy(zero_copy_only=False)):
        return None  # read entry by entry, which names the instance
    parent = pc.list_parent_indices(stats)
    if suffix is not None:
        metric = pc.binary_join_element_wise(metric, suffix.take(parent), "")
    return (arrow_column(item.take(parent)),
            trial.take(parent).to_numpy() + 1,
            arrow_column(metric),
            mean.to_numpy(zero_copy_only=False),
            arrow_column(split))


def read_helm(path):
    """Read HELM run folders into a long table of per-instance stats.

    HELM (``helm-run``) writes one folder per run, ``runs/<suite>/<run
    name>/``, holding ``run_spec.json`` (the model in its ``adapter_spec``,
    the scenario in its name) and ``per_instance_stats.json`` (one entry per
    instance and train trial, with every stat HELM computed on it). A folder
    is read run by run (every folder under it that holds a
    ``run_spec.json`` or a ``per_instance_stats.json``; a run folder needs
    both). Every stat is a metric (``exact_match``,
    ``quasi_exact_match``, ``num_output_tokens``, ...): pick one with
    ``metric=`` downstream. Stats of a perturbed instance (robustness and
    fairness runs) are named ``"<stat>@<perturbation>"``. Scores are the
    stats' ``mean`` as logged.

    With pyarrow installed the JSON is parsed by pyarrow, only the fields
    the table needs; anything it cannot read as expected is read with the
    standard library, which gives the same table or names the problem (see
    the user guide's "Reading speed").

    Parameters
    ----------
    path : str or path-like
        A run folder, or a folder of run folders (a suite, or HELM's whole
        ``benchmark_output``).

    Returns
    -------
    DataFrame
        The columns of :data:`~sklearn_eval.io.LONG_COLUMNS` (``model`` the
        run spec's model, ``task`` the run's name without its ``model=``,
        ``item`` the instance id, ``epoch`` the train trial index + 1,
        ``metric`` the stat's name) plus ``split`` and ``run`` (the run
        folder's name).

    Raises
    ------
    ValueError
        Naming the file or folder (and the instance or field): a run folder
        without a run spec (its per-instance stats would be left out), a run
        without per-instance stats or instances, a missing field, a stat that
        is not a number or infinite, or two runs of one model and task.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from sklearn_eval.io import read_helm
    >>> run = os.path.join(tempfile.mkdtemp(), "qa:model=m")
    >>> os.mkdir(run)
    >>> spec = {"name": "qa:model=m", "adapter_spec": {"model": "m"}}
    >>> stats = [{"instance_id": "id1", "train_trial_index": 0, "stats": [
    ...     {"name": {"name": "exact_match", "split": "test"}, "count": 1,
    ...      "sum": 1.0, "mean": 1.0}]}]
    >>> for name, data in (("run_spec.json", spec),
    ...                    ("per_instance_stats.json", stats)):
    ...     with open(os.path.join(run, name), "w") as f:
    ...         json.dump(data, f)
    >>> long = read_helm(run)
    >>> long[["model", "task", "item", "epoch", "metric", "score"]].values.tolist()
    [['m', 'qa', 'id1', 1, 'exact_match', 1.0]]
    """
    folders = sorted({
        file.parent for file in input_files(
            path, lambda p: p.name in _RUN_FILES, "HELM run (run_spec.json)"
        )
    })
    for folder in folders:  # a run's stats without its spec: no model to name
        if not (folder / "run_spec.json").is_file():
            raise ValueError(
                f"{folder}: the run has per_instance_stats.json but no "
                "run_spec.json, which names its model and scenario (copied "
                "without it?); restore it or remove the folder"
            )
    parts, seen = [], {}
    for folder, (model, task, found) in zip(
        folders, ordered_map(_read_run, folders), strict=True
    ):
        claim_run(seen, model, task, folder)
        parts.append(found)
    return checked_long_table(
        pd.concat(parts, ignore_index=True)[_COLUMNS],
        part_sources(parts, [folder / "per_instance_stats.json"
                             for folder in folders]),
    )
