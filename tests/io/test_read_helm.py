"""HELM run folders read into the long table.

The fixtures under data/helm are real ``helm-run`` output (make_fixtures.py
beside them, version in VERSION.txt): HELM's tutorial scenarios
``simple_mcqa`` (three train trials) and ``simple_classification`` run
offline on three models, each run folder's ``run_spec.json`` and
``per_instance_stats.json`` as HELM wrote them.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from sklearn_eval.io import read_helm, to_result_matrix

from ._helpers import assert_refused_naming

DATA = Path(__file__).parent / "data" / "helm"
RUNS = sorted(p.parent for p in DATA.rglob("run_spec.json"))


def _raw(run):
    """The rows of a run folder, parsed independently of the reader."""
    spec = json.loads((run / "run_spec.json").read_text())
    model = spec["adapter_spec"]["model"]
    task = spec["name"].replace(f"model={model.replace('/', '_')}", "")
    task = task.replace(":,", ":").rstrip(":,")
    rows = set()
    for entry in json.loads((run / "per_instance_stats.json").read_text()):
        for stat in entry["stats"]:
            mean = stat.get("mean")
            rows.add((model, task, entry["instance_id"],
                      entry["train_trial_index"] + 1, stat["name"]["name"],
                      "nan" if mean is None else mean))
    return rows


def _rows(long):
    return {
        (m, t, i, e, k, "nan" if np.isnan(s) else s)
        for m, t, i, e, k, s in long[["model", "task", "item", "epoch", "metric",
                                      "score"]].itertuples(index=False)
    }


def test_rows_and_scores_equal_what_the_runs_hold():
    long = read_helm(DATA)
    expected = set().union(*(_raw(run) for run in RUNS))
    assert _rows(long) == expected and len(long) == len(expected)
    assert set(long["model"]) == {f"fixture/model-{x}" for x in "abc"}
    assert set(long["task"]) == {"simple_mcqa:num_train_trials=3",
                                 "simple_classification"}
    mcqa = long[long["task"].str.startswith("simple_mcqa")]
    assert sorted(mcqa["epoch"].unique()) == [1, 2, 3]
    assert set(long["split"]) == {"test"}


def test_one_run_folder_is_one_model_and_task():
    long = read_helm(RUNS[0])
    assert long[["model", "task"]].drop_duplicates().shape[0] == 1
    assert set(long["run"]) == {RUNS[0].name}


def test_the_result_matrix_of_a_metric_averages_the_trials():
    long = read_helm(DATA)
    matrix = to_result_matrix(long, metric="exact_match")
    assert matrix.shape == (3, 12)
    rows = long[(long["metric"] == "exact_match")
                & (long["model"] == "fixture/model-b")]
    means = rows.groupby(["task", "item"])["score"].mean()
    for (task, item), mean in means.items():
        assert matrix.loc["fixture/model-b", f"{task}/{item}"] == mean


def _copy(tmp_path):
    shutil.copytree(DATA / "runs", tmp_path / "runs")
    return sorted(p.parent for p in (tmp_path / "runs").rglob("run_spec.json"))


def test_a_run_lacking_some_instances_gets_nan_with_a_warning(tmp_path):
    runs = _copy(tmp_path)
    path = runs[1] / "per_instance_stats.json"
    entries = json.loads(path.read_text())
    path.write_text(json.dumps(entries[:-1]))
    with pytest.warns(UserWarning, match="lack scores on some items"):
        matrix = to_result_matrix(read_helm(tmp_path), metric="exact_match")
    assert np.isnan(matrix.to_numpy()).sum() == 1


def test_two_runs_of_one_model_and_task_are_refused(tmp_path):
    runs = _copy(tmp_path)
    shutil.copytree(runs[0], tmp_path / "runs" / "again")
    with pytest.raises(ValueError, match="both hold model 'fixture/model-a'"):
        read_helm(tmp_path)


def test_runs_without_instances_are_refused(tmp_path):
    runs = _copy(tmp_path)
    (runs[2] / "per_instance_stats.json").unlink()
    with pytest.raises(ValueError, match="no per_instance_stats.json"):
        read_helm(tmp_path)
    (runs[2] / "per_instance_stats.json").write_text("[]")
    with pytest.raises(ValueError, match="has no instances"):
        read_helm(tmp_path)


@pytest.mark.parametrize("lost", [0, 2, 5, "all"])
@pytest.mark.parametrize("level", ["top", "suite"])
def test_a_run_folder_without_its_run_spec_is_refused_naming_it(tmp_path, lost,
                                                                 level):
    # its stats cannot be attributed to a model: never left out silently
    runs = _copy(tmp_path)
    gone = runs if lost == "all" else [runs[lost]]
    for run in gone:
        (run / "run_spec.json").unlink()
    folder = tmp_path if level == "top" else runs[0].parent
    assert_refused_naming(read_helm, folder, gone[0], "no run_spec.json")
    with pytest.raises(ValueError, match="no run_spec.json"):
        read_helm(gone[0])


def _corrupt(rng, runs):
    run = runs[rng.integers(len(runs))]
    kind = rng.choice(["drop-entry-field", "drop-stat-name", "text-mean",
                       "not-a-list", "cut", "spec-no-adapter"])
    if kind == "spec-no-adapter":
        path = run / "run_spec.json"
        spec = json.loads(path.read_text())
        del spec["adapter_spec"]
        path.write_text(json.dumps(spec))
        return kind, path
    path = run / "per_instance_stats.json"
    text = path.read_text()
    entries = json.loads(text)
    k = int(rng.integers(len(entries)))
    if kind == "drop-entry-field":
        del entries[k][["instance_id", "train_trial_index", "stats"][rng.integers(3)]]
    elif kind == "drop-stat-name":
        del entries[k]["stats"][int(rng.integers(len(entries[k]["stats"])))]["name"]
    elif kind == "text-mean":
        entries[k]["stats"][0]["mean"] = "high"
    elif kind == "not-a-list":
        entries = {"instances": entries}
    else:
        path.write_text(text[: len(text) // 2])
        return kind, path
    path.write_text(json.dumps(entries))
    return kind, path


@pytest.mark.parametrize("seed", range(10))
def test_corrupted_runs_are_refused_naming_the_file(tmp_path, seed):
    kind, path = _corrupt(np.random.default_rng(seed), _copy(tmp_path))
    assert_refused_naming(read_helm, tmp_path, path, kind)


def test_a_perturbed_instance_names_its_perturbation(tmp_path):
    runs = _copy(tmp_path)
    path = runs[0] / "per_instance_stats.json"
    entries = json.loads(path.read_text())
    perturbed = json.loads(json.dumps(entries[0]))
    perturbed["perturbation"] = {"name": "typos", "robustness": True}
    path.write_text(json.dumps([*entries, perturbed]))
    long = read_helm(runs[0])
    assert "exact_match@typos" in set(long["metric"])
    assert (long["metric"] == "exact_match@typos").sum() == 1
