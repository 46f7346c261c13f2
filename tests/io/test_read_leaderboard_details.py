"""Open LLM Leaderboard style per-sample details tables (parquet), read.

The fixtures under data/leaderboard_details follow the tools' layouts
(make_fixtures.py beside them says where each comes from): ``v1/`` lighteval's
details tables (a ``metrics`` struct column, one row per document) of three
models in the leaderboard's and lighteval's folder layouts, one of them a run
cut after four of five documents; ``v2/`` the real lm-evaluation-harness
``--log_samples`` records of data/lm_eval as parquet.
"""

import json
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.io import (
    detect_tool,
    read_leaderboard_details,
    read_lm_eval,
    read_results,
    to_result_matrix,
)

from ._helpers import assert_refused_naming

DATA = Path(__file__).parent / "data" / "leaderboard_details"
V1, V2 = DATA / "v1", DATA / "v2"
ARC = "harness|arc:challenge|25"
MODEL_OF = {"details_org-a__model-a": "org-a/model-a",
            "details_org-b__model-b": "org-b/model-b", "model-c": "org-c/model-c"}


def _v1_raw():
    """The rows of the v1 tables, computed from the parquet records directly."""
    rows = set()
    for file in V1.rglob("*.parquet"):
        model = MODEL_OF[file.parent.parent.name]
        task = file.name.removeprefix("details_").rsplit("_", 1)[0]
        for k, record in enumerate(pq.read_table(file).to_pylist()):
            for metric, value in record["metrics"].items():
                rows.add((model, task, k, metric, float(value)))
    return rows


def _rows(long):
    columns = ["model", "task", "item", "metric", "score"]
    return {tuple(row) for row in long[columns].itertuples(index=False)}


def test_lighteval_rows_and_scores_equal_what_the_tables_hold():
    long = read_leaderboard_details(V1)
    expected = _v1_raw()
    assert _rows(long) == expected and len(long) == len(expected) == 37
    assert (long["epoch"] == 1).all() and long["score"].dtype == np.float64
    assert set(long["model"]) == set(MODEL_OF.values())
    gold = long[(long["task"] == ARC) & (long["item"] == 0)]["target"]
    assert set(gold) == {"carbon dioxide"}


def test_lighteval_means_equal_the_results_file():
    long = read_leaderboard_details(V1)
    results_file = next(V1.rglob("results_*.json"))
    results = json.loads(results_file.read_text())
    model = results["config_general"]["model_name"]
    for task, table in results["results"].items():
        for metric, value in table.items():
            rows = long[(long["model"] == model) & (long["task"] == task)
                        & (long["metric"] == metric)]
            assert rows["score"].mean() == pytest.approx(value, abs=1e-12)


def test_a_cut_run_lacks_items_and_gets_nan_with_a_warning():
    with pytest.warns(UserWarning, match="lack scores on some items"):
        matrix = to_result_matrix(read_leaderboard_details(V1), metric="acc")
    assert np.isnan(matrix.loc["org-c/model-c", f"{ARC}/4"])
    assert matrix.notna().sum().sum() == 3 * 8 - 1


def test_harness_samples_as_parquet_read_as_the_jsonl_records():
    parquet = read_leaderboard_details(V2)
    jsonl = read_lm_eval(DATA.parent / "lm_eval")
    jsonl["model"] = "fixture/" + jsonl["model"].astype(str)
    columns = ["model", "task", "item", "epoch", "metric", "score", "target",
               "doc_hash"]
    order = ["model", "task", "metric", "item"]
    left = parquet[columns].sort_values(order).reset_index(drop=True)
    right = jsonl[columns].sort_values(order).reset_index(drop=True)
    pd.testing.assert_frame_equal(left, right, check_dtype=False)
    assert len(left) == 3 * 18


def test_folders_and_tables_are_detected_and_read_alike():
    for folder in (V1, V2):
        assert detect_tool(folder) == "leaderboard_details"
        pd.testing.assert_frame_equal(read_results(folder),
                                      read_leaderboard_details(folder))
    for file in DATA.rglob("*"):
        if file.suffix in (".parquet", ".json"):
            assert detect_tool(file) == "leaderboard_details", file
    one = next(V2.rglob("samples_capitals_*.parquet"))
    assert set(read_results(one)["model"]) == {"fixture/model-a"}


def test_the_model_argument_names_a_table_downloaded_alone(tmp_path):
    source = next(V1.rglob(f"details_{ARC}_*.parquet"))
    shutil.copy(source, tmp_path / source.name)
    assert_refused_naming(read_leaderboard_details, tmp_path, tmp_path / source.name,
                          "unknown model")
    long = read_leaderboard_details(tmp_path, model="mine")
    assert set(long["model"]) == {"mine"}
    with pytest.raises(ValueError, match="model must be"):
        read_leaderboard_details(tmp_path, model="")


def test_without_pyarrow_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r"sklearn-eval\[parquet\]"):
        read_leaderboard_details(V1)


# ---------------------------------------------------------------- bad input
def _copy(tmp_path, which):
    shutil.copytree(which, tmp_path / which.name)
    return tmp_path / which.name


def _rewrite(file, change):
    records = pq.read_table(file).to_pylist()
    table = change(records)
    if not isinstance(table, pa.Table):
        table = pa.Table.from_pylist(table)
    pq.write_table(table, file)


def _drop_column(name):
    return lambda records: pa.Table.from_pylist(records).drop_columns([name])


def _lose_metric(records):
    del records[1]["metrics"]["acc_norm"]
    return records


def _swap_rows(records):
    return [records[1], records[0], *records[2:]]


def _other_metrics(records):
    for record in records:
        record["metrics"]["f1"] = 0.5
    return records


def _list_other_metrics(records):
    records[2]["metrics"] = ["acc"]
    return records


def _list_absent_metric(records):
    for record in records:
        record["metrics"] = [*record["metrics"], "brier"]
    return records


def _no_rows(records):
    return pa.Table.from_pylist(records).slice(0, 0)


V1_CORRUPTIONS = {
    "no metrics column": (_drop_column("metrics"), "lacks the column 'metrics'"),
    "a row lacking a metric": (_lose_metric, "mixed metrics in one table"),
    "rows in another order": (_swap_rows, "not aligned"),
    "other metrics than the other models": (_other_metrics, "mixed metrics"),
    "no rows": (_no_rows, "no samples"),
}
V2_CORRUPTIONS = {
    "no doc_id column": (_drop_column("doc_id"), "lacks the column 'doc_id'"),
    "a row listing other metrics": (_list_other_metrics, "mixed metrics"),
    "a listed metric without its column": (_list_absent_metric, "no such column"),
}


@pytest.mark.parametrize("kind", sorted(V1_CORRUPTIONS))
def test_corrupted_lighteval_tables_are_refused_naming_the_file(tmp_path, kind):
    change, message = V1_CORRUPTIONS[kind]
    folder = _copy(tmp_path, V1)
    file = next((folder / "details_org-b__model-b").rglob(f"details_{ARC}_*"))
    _rewrite(file, change)
    assert_refused_naming(read_leaderboard_details, folder, file, kind)
    with pytest.raises(ValueError, match=message):
        read_leaderboard_details(folder)


@pytest.mark.parametrize("kind", sorted(V2_CORRUPTIONS))
def test_corrupted_samples_tables_are_refused_naming_the_file(tmp_path, kind):
    change, message = V2_CORRUPTIONS[kind]
    folder = _copy(tmp_path, V2)
    file = next((folder / "fixture__model-b").glob("samples_capitals_*"))
    _rewrite(file, change)
    assert_refused_naming(read_leaderboard_details, folder, file, kind)
    with pytest.raises(ValueError, match=message):
        read_leaderboard_details(folder)


@pytest.mark.parametrize("seed", range(8))
def test_broken_bytes_are_refused_naming_the_file(tmp_path, seed):
    folder = _copy(tmp_path, V1)
    files = sorted(folder.rglob("*.parquet"))
    rng = np.random.default_rng(seed)
    file = files[rng.integers(len(files))]
    data = bytearray(file.read_bytes())
    cut = int(rng.integers(4, len(data) - 4))
    file.write_bytes(bytes(data[:cut]) if seed % 2 else b"PAR1" + bytes(cut))
    assert_refused_naming(read_leaderboard_details, folder, file, "broken bytes")


def test_two_runs_of_one_model_and_task_are_refused_naming_both(tmp_path):
    folder = _copy(tmp_path, V1)
    run = next((folder / "details_org-b__model-b").iterdir())
    later = run.parent / "2023-12-01T00-00-00.000000"
    later.mkdir()
    for file in run.iterdir():
        shutil.copy(file, later / file.name.replace(run.name, later.name))
    with pytest.raises(ValueError, match="counted twice") as info:
        read_leaderboard_details(folder)
    assert str(run) in str(info.value) and str(later) in str(info.value)


def test_a_folder_without_tables_and_a_missing_path(tmp_path):
    (tmp_path / "notes.parquet").write_bytes(b"")
    with pytest.raises(ValueError, match="no details table"):
        read_leaderboard_details(tmp_path)
    with pytest.raises(ValueError, match="not a details table"):
        read_leaderboard_details(tmp_path / "notes.parquet")
    with pytest.raises(ValueError, match="no such file"):
        read_leaderboard_details(tmp_path / "missing")


def test_a_corpus_level_metric_is_left_out_with_a_warning(tmp_path):
    folder = _copy(tmp_path, V1)
    for file in folder.rglob(f"details_{ARC}_*"):
        def add_bleu(records):
            for record in records:
                record["metrics"]["bleu"] = [record["example"], "reference"]
            return records
        _rewrite(file, add_bleu)
    with pytest.warns(UserWarning, match="bleu"):
        long = read_leaderboard_details(folder)
    assert _rows(long) == _v1_raw()


# ------------------------------------------------------- classes of tables
_METRIC = st.sampled_from(["acc", "acc_norm", "em", "f1", "pass@1"])
# a metric's values are of one kind: 0/1 integers, booleans or floats
_KIND = st.sampled_from([st.integers(0, 1), st.booleans(),
                         st.floats(allow_infinity=False, allow_nan=True)])


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(metrics=st.lists(_METRIC, min_size=1, max_size=3, unique=True),
       n_rows=st.integers(1, 20), data=st.data(),
       as_text=st.booleans())
def test_any_metrics_struct_reads_back_as_written(tmp_path_factory, metrics,
                                                  n_rows, data, as_text):
    """lighteval writes ``metrics`` as a struct, or as text when a value is nested."""
    run = tmp_path_factory.mktemp("h") / "details" / "m" / "2024-01-01T00-00-00"
    run.mkdir(parents=True)
    kinds = {m: data.draw(_KIND) for m in metrics}
    records = [{"example": f"q{k}", "gold": [str(k)],
                "metrics": {m: data.draw(kinds[m]) for m in metrics}}
               for k in range(n_rows)]
    written = [{**r, "metrics": str(r["metrics"])} for r in records] if as_text \
        else records
    pq.write_table(pa.Table.from_pylist(written),
                   run / "details_lb|t|0_2024-01-01T00-00-00.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        long = read_leaderboard_details(run)
    assert (long["model"] == "m").all()
    for k, record in enumerate(records):
        for metric, value in record["metrics"].items():
            score = long[(long["item"] == k) & (long["metric"] == metric)]["score"]
            assert len(score) == 1
            np.testing.assert_equal(score.iloc[0], float(value))


_GOLD = st.one_of(
    st.none(), st.text(max_size=5),
    st.lists(st.one_of(st.text(max_size=3), st.none()), max_size=3),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_GOLD, min_size=1, max_size=6), st.booleans())
def test_targets_are_joined_in_arrow_as_in_python(golds, large):
    # the gold answers of a table: text, lists of text (joined by " | "), nulls
    from sklearn_eval.io._details import _target_text, _text

    try:
        column = pa.chunked_array([pa.array(golds)])
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # text and lists mixed
        return
    if large and pa.types.is_list(column.type):
        column = column.cast(pa.large_list(pa.large_string()))
    expected = _text(golds)
    assert _target_text(column).tolist() == expected
