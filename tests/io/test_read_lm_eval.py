"""lm-evaluation-harness per-sample logs read into the long table.

The fixtures under data/lm_eval are real lm-evaluation-harness output
(make_fixtures.py beside them, versions in VERSION.txt): its ``dummy`` model
run three times (three "models") with ``--log_samples`` on two local tasks,
``capitals`` (multiple choice: ``acc``, ``acc_norm``) and ``echo``
(generation: ``exact_match`` under the filters ``none`` and ``first-word``).
"""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.io import read_lm_eval, to_result_matrix

from ._helpers import assert_refused_naming

DATA = Path(__file__).parent / "data" / "lm_eval"
RESULTS = sorted(DATA.rglob("results_*.json"))


def _raw(results_file):
    """The rows of a run, computed from its files independently of the reader."""
    results = json.loads(results_file.read_text())
    stamp = results_file.stem.removeprefix("results_")
    rows = set()
    for samples in results_file.parent.glob(f"samples_*_{stamp}.jsonl"):
        task = samples.name.removeprefix("samples_").removesuffix(f"_{stamp}.jsonl")
        for line in samples.read_text().splitlines():
            sample = json.loads(line)
            for metric in sample["metrics"]:
                rows.add((results["model_name"], task, sample["doc_id"],
                          f"{metric},{sample['filter']}", sample[metric]))
    return rows


def _rows(long):
    columns = ["model", "task", "item", "metric", "score"]
    return {tuple(row) for row in long[columns].itertuples(index=False)}


def test_rows_and_scores_equal_what_the_files_hold():
    long = read_lm_eval(DATA)
    expected = set().union(*(_raw(file) for file in RESULTS))
    assert _rows(long) == expected and len(long) == len(expected) == 3 * 18
    assert (long["epoch"] == 1).all()
    assert long["score"].dtype == np.float64
    assert set(long["model"]) == {"model-a", "model-b", "model-c"}


def test_per_sample_means_equal_the_harness_aggregates():
    long = read_lm_eval(DATA)
    for file in RESULTS:
        results = json.loads(file.read_text())
        model = results["model_name"]
        for task, table in results["results"].items():
            for key, value in table.items():
                if "," not in key or "_stderr" in key:
                    continue
                rows = long[(long["model"] == model) & (long["task"] == task)
                            & (long["metric"] == key)]
                assert len(rows) == results["n-samples"][task]["effective"]
                assert rows["score"].mean() == pytest.approx(value, abs=1e-12)


def test_a_results_file_is_one_run_and_the_same_item_has_one_hash():
    long = read_lm_eval(RESULTS[0])
    assert long["model"].nunique() == 1
    every = read_lm_eval(DATA)
    hashes = every.groupby(["task", "item"])["doc_hash"].nunique()
    assert (hashes == 1).all()


def test_the_result_matrix_is_models_by_documents():
    matrix = to_result_matrix(read_lm_eval(DATA), metric="acc,none")
    assert matrix.shape == (3, 5)
    assert matrix.columns.tolist() == [f"capitals/{k}" for k in range(5)]


def test_a_run_lacking_some_items_gets_nan_with_a_warning(tmp_path):
    shutil.copytree(DATA / "runs", tmp_path / "runs")
    samples = next((tmp_path / "runs" / "model-b").rglob("samples_capitals_*"))
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text("".join(lines[:3]))
    with pytest.warns(UserWarning, match="lack scores on some items"):
        matrix = to_result_matrix(read_lm_eval(tmp_path), metric="acc,none")
    assert np.isnan(matrix.loc["model-b"]).tolist() == [False] * 3 + [True] * 2
    assert not np.isnan(matrix.drop(index="model-b")).any(axis=None)


def _copy(tmp_path):
    shutil.copytree(DATA / "runs", tmp_path / "runs")
    return sorted((tmp_path / "runs").rglob("results_*.json"))


def _samples(results_file, task):
    stamp = results_file.stem.removeprefix("results_")
    return results_file.parent / f"samples_{task}_{stamp}.jsonl"


def test_a_truncated_last_line_names_file_and_line(tmp_path):
    results = _copy(tmp_path)
    samples = _samples(results[1], "echo")
    text = samples.read_bytes()
    samples.write_bytes(text[: len(text) - 40])
    last = text.count(b"\n")  # 4 documents x 2 filters
    with pytest.raises(ValueError, match=rf"line {last} is truncated") as info:
        read_lm_eval(tmp_path)
    assert str(samples) in str(info.value)


def test_a_run_without_samples_is_refused(tmp_path):
    results = _copy(tmp_path)
    for task in ("capitals", "echo"):
        _samples(results[2], task).unlink()
    with pytest.raises(ValueError, match="no samples files.*--log_samples"):
        read_lm_eval(tmp_path)
    _samples(results[0], "echo").write_text("")
    with pytest.raises(ValueError, match="has no samples"):
        read_lm_eval(results[0])


def test_a_run_missing_one_samples_file_is_read_with_a_warning(tmp_path):
    results = _copy(tmp_path)
    _samples(results[0], "echo").unlink()
    with pytest.warns(UserWarning, match=r"no samples file for task\(s\) \['echo'\]"):
        long = read_lm_eval(tmp_path)
    model = json.loads(results[0].read_text())["model_name"]
    assert set(long.loc[long["model"] == model, "task"]) == {"capitals"}


def test_two_runs_of_one_model_are_refused_naming_both(tmp_path):
    _copy(tmp_path)
    shutil.copytree(tmp_path / "runs" / "model-a", tmp_path / "runs" / "again")
    with pytest.raises(ValueError, match="both hold model 'model-a' on task"):
        read_lm_eval(tmp_path)


def test_mixed_task_versions_are_refused(tmp_path):
    results = _copy(tmp_path)
    data = json.loads(results[1].read_text())
    data["versions"]["echo"] = 3.0
    results[1].write_text(json.dumps(data))
    with pytest.raises(ValueError, match="task 'echo' is version 3.0"):
        read_lm_eval(tmp_path)


def _corrupt(rng, results):
    """One random corruption of a copied run: (what, file it names)."""
    file = results[rng.integers(len(results))]
    task = ["capitals", "echo"][rng.integers(2)]
    samples = _samples(file, task)
    lines = samples.read_text().splitlines(keepends=True)
    k = int(rng.integers(len(lines)))
    sample = json.loads(lines[k])
    kind = rng.choice(["cut", "garbage", "drop-field", "bad-score",
                       "unknown-filter", "no-config", "not-json"])
    if kind == "cut":  # the last line cut short
        text = "".join(lines)
        samples.write_text(text[: len(text) - int(rng.integers(2, 30))])
        return kind, samples
    if kind == "garbage":
        lines[k] = "{not json\n"
    elif kind == "drop-field":
        del sample[["doc_id", "filter", sample["metrics"][0]][rng.integers(3)]]
        lines[k] = json.dumps(sample) + "\n"
    elif kind == "bad-score":
        sample[sample["metrics"][0]] = "high"
        lines[k] = json.dumps(sample) + "\n"
    elif kind == "unknown-filter":
        sample["filter"] = "other"
        lines[k] = json.dumps(sample) + "\n"
    else:
        data = json.loads(file.read_text())
        if kind == "no-config":
            del data["config"]
            file.write_text(json.dumps(data))
        else:
            file.write_text(json.dumps(data)[:-20])
        return kind, file
    samples.write_text("".join(lines))
    return kind, samples


@pytest.mark.parametrize("seed", range(12))
def test_corrupted_runs_are_refused_naming_the_file(tmp_path, seed):
    rng = np.random.default_rng(seed)
    kind, file = _corrupt(rng, _copy(tmp_path))
    assert_refused_naming(read_lm_eval, tmp_path, file, kind)


def test_a_folder_without_results_and_a_missing_path(tmp_path):
    with pytest.raises(ValueError, match="no lm-evaluation-harness results"):
        read_lm_eval(tmp_path)
    with pytest.raises(ValueError, match="no such file or folder"):
        read_lm_eval(tmp_path / "nothing")


def test_a_corpus_level_metric_is_left_out_with_a_warning(tmp_path):
    results = _copy(tmp_path)
    data = json.loads(results[0].read_text())
    data["results"]["echo"]["bleu,none"] = 12.0
    results[0].write_text(json.dumps(data))
    samples = _samples(results[0], "echo")
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    for line in lines:
        line["bleu"] = [line["target"], "lol"]
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.warns(UserWarning, match="echo:bleu"):
        long = read_lm_eval(results[0])
    assert "bleu,none" not in set(long["metric"])


_TRICKY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12)
    | st.sampled_from(['", "filter": "x', '"target": 1, "arguments": {',
                       '{"doc_id": 1, ', "\\", "\n"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["filter", "target", "doc_id", "arguments", "q"]),
        inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.tuples(_TRICKY, _TRICKY, st.floats(0, 1)), min_size=1,
                     max_size=6))
def test_lines_in_the_harness_layout_read_as_parsed_whole(tmp_path_factory, docs):
    """Whatever the documents and targets hold, the scores are the logged ones."""
    folder = tmp_path_factory.mktemp("run")
    results = {"results": {"t": {"acc,none": 0.5}}, "configs": {"t": {}},
               "versions": {"t": 1}, "config": {"model": "dummy"},
               "model_name": "m"}
    (folder / "results_x.json").write_text(json.dumps(results))
    with open(folder / "samples_t_x.jsonl", "w") as handle:
        for k, (doc, target, acc) in enumerate(docs):
            handle.write(json.dumps({
                "doc_id": k, "doc": doc, "target": target,
                "arguments": {"gen_args_0": {"arg_0": str(doc)}},
                "resps": [[str(doc)]], "filtered_resps": [str(doc)],
                "filter": "none", "metrics": ["acc"], "doc_hash": f"h{k}",
                "acc": acc}) + "\n")
    long = read_lm_eval(folder)
    assert long["item"].tolist() == list(range(len(docs)))
    assert long["score"].tolist() == [acc for _, _, acc in docs]
    assert long["doc_hash"].tolist() == [f"h{k}" for k in range(len(docs))]
    expected = [None if t is None else t if isinstance(t, str) else str(t)
                for _, t, _ in docs]
    got = [t if isinstance(t, str) else None for t in long["target"].tolist()]
    assert got == expected


def test_a_line_cut_short_with_the_next_appended_is_refused(tmp_path):
    results = _copy(tmp_path)
    samples = _samples(results[0], "capitals")
    lines = samples.read_text().splitlines(keepends=True)
    lines[1] = lines[1][:60] + lines[2]
    samples.write_text("".join(lines))
    with pytest.raises(ValueError, match="line 2 is not valid JSON"):
        read_lm_eval(tmp_path)
