"""inspect_ai logs read into the long table.

The fixtures under data/inspect are real inspect_ai output (make_fixtures.py
beside them, version in VERSION.txt): two mock models, four arithmetic
samples, two epochs, the ``match`` and ``includes`` scorers, written as
``.eval`` archives (zstandard members) and as ``.json`` logs.
"""

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import zstandard

from sklearn_eval.io import read_inspect, to_result_matrix

DATA = Path(__file__).parent / "data" / "inspect"
TARGETS = {"q1": "2", "q2": "4", "q3": "6", "q4": "8"}
# the canned answers of make_fixtures.py: model -> epoch -> answers q1..q4
ANSWERS = {
    "mockllm/good": [["2", "4", "6", "8"], ["2", "4", "6", "9"]],
    "mockllm/poor": [["2", "5", "7", "8"], ["3", "5", "6", "8"]],
}


def _expected():
    rows = set()
    for model, epochs in ANSWERS.items():
        for epoch, answers in enumerate(epochs, start=1):
            for (item, target), answer in zip(TARGETS.items(), answers, strict=True):
                for metric in ("match", "includes"):
                    score = float(answer == target)
                    rows.add((model, "arithmetic", item, epoch, metric, score, answer))
    return rows


def _rows(long):
    columns = ["model", "task", "item", "epoch", "metric", "score", "answer"]
    return {tuple(row) for row in long[columns].itertuples(index=False)}


@pytest.mark.parametrize("folder", ["eval", "json"])
def test_rows_and_scores_equal_what_the_logs_hold(folder):
    long = read_inspect(DATA / folder)
    assert len(long) == 2 * 4 * 2 * 2
    assert _rows(long) == _expected()
    assert (long["target"] == long["item"].map(TARGETS)).all()
    assert long["score"].dtype == np.float64 and long["epoch"].dtype == np.int64


def test_a_single_file_is_one_model():
    log = sorted((DATA / "eval").glob("*.eval"))[0]
    long = read_inspect(log)
    assert long["model"].nunique() == 1 and len(long) == 16
    assert set(long["log"]) == {log.name}


def test_the_result_matrix_averages_the_epochs():
    matrix = to_result_matrix(read_inspect(DATA / "eval"), metric="match")
    assert matrix.columns.tolist() == [f"arithmetic/{q}" for q in TARGETS]
    targets = list(TARGETS.values())
    expected = [
        [np.mean([a[k] == t for a in ANSWERS[m]]) for k, t in enumerate(targets)]
        for m in sorted(ANSWERS)
    ]
    np.testing.assert_array_equal(matrix.to_numpy(), expected)


def _deflate_copy(source, target, keep=lambda name: True):
    """The archive re-written with deflate members, as older releases did."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(
        target, "w", compression=zipfile.ZIP_DEFLATED
    ) as out:
        for info in archive.infolist():
            if not keep(info.filename):
                continue
            with open(source, "rb") as handle:
                handle.seek(info.header_offset + 26)
                n, e = np.frombuffer(handle.read(4), dtype="<u2")
                handle.seek(info.header_offset + 30 + int(n) + int(e))
                raw = handle.read(info.compress_size)
            data = zstandard.ZstdDecompressor().decompress(
                raw, max_output_size=info.file_size
            )
            out.writestr(info.filename, data)


def test_deflate_archives_read_the_same(tmp_path):
    for log in (DATA / "eval").glob("*.eval"):
        _deflate_copy(log, tmp_path / log.name)
    assert _rows(read_inspect(tmp_path)) == _expected()


@pytest.mark.parametrize(
    "keep",
    [
        lambda name: name != "summaries.json",  # the journal's summaries
        lambda name: "summaries" not in name,  # the sample members
    ],
)
def test_summaries_journal_and_members_give_the_same_table(tmp_path, keep):
    for log in (DATA / "eval").glob("*.eval"):
        _deflate_copy(log, tmp_path / log.name, keep)
    assert _rows(read_inspect(tmp_path)) == _expected()


def _json_log():
    return json.loads(sorted((DATA / "json").glob("*.json"))[0].read_text())


def _write(tmp_path, log, name="run.json"):
    path = tmp_path / name
    path.write_text(json.dumps(log))
    return path


def test_unknown_format_version_is_refused(tmp_path):
    log = _json_log()
    log["version"] = 1
    with pytest.raises(ValueError, match=r"run.json: field 'version' is 1"):
        read_inspect(_write(tmp_path, log))


def test_truncated_logs_are_refused_naming_the_file(tmp_path):
    text = sorted((DATA / "json").glob("*.json"))[0].read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match="cut.json: not a readable JSON log"):
        read_inspect(path)
    archive = sorted((DATA / "eval").glob("*.eval"))[0].read_bytes()
    (tmp_path / "cut.eval").write_bytes(archive[: len(archive) // 2])
    with pytest.raises(ValueError, match="cut.eval: not a readable .eval"):
        read_inspect(tmp_path / "cut.eval")


def test_a_run_without_samples_is_refused(tmp_path):
    log = _json_log()
    log["samples"] = []
    with pytest.raises(ValueError, match="run.json: the log has no samples"):
        read_inspect(_write(tmp_path, log))


def test_an_unfinished_run_is_read_with_a_warning(tmp_path):
    log = _json_log()
    log["status"] = "cancelled"
    log["samples"] = log["samples"][:3]
    with pytest.warns(UserWarning, match="status is 'cancelled'"):
        long = read_inspect(_write(tmp_path, log))
    assert len(long) == 3 * 2
    # beside the other model's complete run, the missing samples are NaN
    other = sorted((DATA / "json").glob("*.json"))[1]
    shutil.copy(other, tmp_path / other.name)
    with pytest.warns(UserWarning, match="status is 'cancelled'"):
        both = read_inspect(tmp_path)
    with pytest.warns(UserWarning, match="has 3 of 8"):
        matrix = to_result_matrix(both, metric="match", epochs="all")
    assert matrix.shape == (2, 8) and int(matrix.isna().to_numpy().sum()) == 5


def test_the_same_run_twice_is_a_duplicate(tmp_path):
    log = sorted((DATA / "json").glob("*.json"))[0]
    shutil.copy(log, tmp_path / "a.json")
    shutil.copy(log, tmp_path / "b.json")
    with pytest.raises(ValueError, match="both hold the sample") as info:
        read_inspect(tmp_path)
    assert str(tmp_path / "a.json") in str(info.value)
    assert str(tmp_path / "b.json") in str(info.value)


@pytest.mark.parametrize(
    "value, scores",
    [
        (0.25, {"s": 0.25}),
        ("P", {"s": 0.5}),
        (True, {"s": 1.0}),
        ("no", {"s": 0.0}),
        ({"a": 1, "b": "I"}, {"s/a": 1.0, "s/b": 0.0}),
    ],
)
def test_score_values_are_taken_as_logged(tmp_path, value, scores):
    log = {"version": 2, "status": "success", "eval": {"model": "m", "task": "t"},
           "samples": [{"id": 7, "epoch": 1, "scores": {"s": {"value": value}}}]}
    long = read_inspect(_write(tmp_path, log))
    assert dict(zip(long["metric"], long["score"], strict=True)) == scores


def test_a_score_that_is_not_a_number_names_the_sample(tmp_path):
    log = {"version": 2, "status": "success", "eval": {"model": "m", "task": "t"},
           "samples": [{"id": 7, "epoch": 2, "scores": {"s": {"value": "maybe"}}}]}
    with pytest.raises(ValueError, match="sample 7 epoch 2 scorer 's'"):
        read_inspect(_write(tmp_path, log))


def test_files_that_are_not_logs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no .eval or .json log"):
        read_inspect(tmp_path)
    with pytest.raises(ValueError, match="no such file"):
        read_inspect(tmp_path / "absent.eval")
    with pytest.raises(ValueError, match="lacks 'model' or 'task'"):
        read_inspect(_write(tmp_path, {"version": 2, "eval": {}}))


def _manifest(folder):
    """inspect_ai's logs.json for the logs of ``folder``: names -> headers."""
    headers = {}
    for log in sorted(folder.iterdir()):
        first = read_inspect(log).iloc[0]
        headers[log.name] = {"version": 2, "status": "success",
                             "eval": {"model": first["model"],
                                      "task": first["task"]}}
    return headers


@pytest.mark.parametrize("folder", ["eval", "json"])
@pytest.mark.parametrize("nested", [False, True])
def test_the_folder_manifest_is_not_a_log(folder, nested, tmp_path):
    # inspect_ai's write_log_dir_manifest writes logs.json beside the logs
    logs = tmp_path / "logs"
    shutil.copytree(DATA / folder, logs / "run" if nested else logs)
    (logs / "logs.json").write_text(json.dumps(_manifest(DATA / folder)))
    expected = read_inspect(DATA / folder)
    long = read_inspect(logs)
    assert _rows(long) == _rows(expected)
    assert "logs.json" not in set(long["log"])
    with pytest.raises(ValueError, match="manifest .* not a log; read the folder"):
        read_inspect(logs / "logs.json")


def test_a_log_named_like_the_manifest_is_still_a_log(tmp_path):
    log = {"version": 2, "status": "success", "eval": {"model": "m", "task": "t"},
           "samples": [{"id": 1, "epoch": 1, "scores": {"s": {"value": 1}}}]}
    (tmp_path / "logs.json").write_text(json.dumps(log))
    assert read_inspect(tmp_path)["score"].tolist() == [1.0]


def test_logs_in_subfolders_are_named_by_their_path(tmp_path):
    for k, log in enumerate(sorted((DATA / "eval").glob("*.eval"))):
        (tmp_path / f"run{k}").mkdir()
        shutil.copy(log, tmp_path / f"run{k}" / log.name)
    long = read_inspect(tmp_path)
    assert _rows(long) == _rows(read_inspect(DATA / "eval"))
    assert sorted(set(long["log"])) == sorted(
        f"run{k}/{log.name}" for k, log in
        enumerate(sorted((DATA / "eval").glob("*.eval"))))
