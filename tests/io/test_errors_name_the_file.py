"""Every reader's errors about a sample name the file it came from.

A score that is not finite (JSON's ``Infinity``, a number beyond the float
range) is refused by every reader naming the file and the line, sample or
instance, and showing the value as ``inf`` (not a numpy repr), on both
parsing paths; the same sample read twice (a log copied within a folder, a
run read twice) names both files, as the user guide promises.
"""

import json
import re
import shutil
import warnings
from pathlib import Path

import pytest

from sklearn_eval.io import (
    _files,
    check_long_table,
    read_alpaca_eval,
    read_helm,
    read_inspect,
    read_leaderboard_details,
    read_lm_eval,
)

DATA = Path(__file__).parent / "data"
TOKENS = ["Infinity", "-Infinity", "1e309"]


def _lm_eval(tmp_path, token):
    folder = tmp_path / "lm_eval"
    shutil.copytree(DATA / "lm_eval", folder)
    file = sorted(folder.rglob("samples_*.jsonl"))[0]
    lines = file.read_text().splitlines()
    lines[2] = re.sub(r'"acc": [0-9.]+', f'"acc": {token}', lines[2], count=1)
    file.write_text("\n".join(lines) + "\n")
    return read_lm_eval, folder, file, "line 3"


def _json_with_token(tmp_path, name, source, pattern, place, token):
    """A copy of the fixture ``source`` whose first ``pattern`` JSON file has
    ``token`` (raw JSON text) where ``place(data)`` puts the marker."""
    folder = tmp_path / name
    shutil.copytree(DATA / source, folder)
    file = sorted(folder.rglob(pattern))[0]
    data = json.loads(file.read_text())
    place(data, "__SCORE__")
    file.write_text(json.dumps(data).replace('"__SCORE__"', token))
    return folder, file, data


def _inspect(tmp_path, token):
    folder, file, log = _json_with_token(
        tmp_path, "inspect", "inspect/json", "*.json",
        lambda log, mark: log["samples"][1]["scores"]["match"].update(value=mark),
        token)
    return read_inspect, folder, file, f"sample {log['samples'][1]['id']!r}"


def _helm(tmp_path, token):
    folder, file, _ = _json_with_token(
        tmp_path, "helm", "helm", "per_instance_stats.json",
        lambda entries, mark: entries[1]["stats"][0].update(mean=mark), token)
    return read_helm, folder, file, "instance 1"


def _alpaca(tmp_path, token):
    folder, file, _ = _json_with_token(
        tmp_path, "alpaca", "alpaca_eval/results", "annotations.json",
        lambda annotations, mark: annotations[1].update(preference=mark), token)
    return read_alpaca_eval, folder, file, "annotation 1"


def _details(tmp_path, token):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "details"
    shutil.copytree(DATA / "leaderboard_details" / "v2", folder)
    file = sorted(folder.rglob("samples_*.parquet"))[0]
    table = pq.read_table(file)
    acc = table.column("acc").to_pylist()
    acc[1] = float(token.replace("1e309", "inf").replace("Infinity", "inf"))
    table = table.set_column(table.schema.get_field_index("acc"), "acc",
                             pa.array(acc, pa.float64()))
    pq.write_table(table, file)
    return read_leaderboard_details, folder, file, "'item': 1"


WRITERS = {"lm_eval": _lm_eval, "inspect": _inspect, "helm": _helm,
           "alpaca_eval": _alpaca, "leaderboard_details": _details}


@pytest.mark.parametrize("arrow", [True, False], ids=["pyarrow", "stdlib"])
@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("tool", sorted(WRITERS))
def test_an_infinite_score_names_the_file_and_the_sample(tool, token, arrow,
                                                         tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "USE_ARROW", arrow)
    read, folder, file, locator = WRITERS[tool](tmp_path, token)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError) as info:
            read(folder)
    message = str(info.value)
    assert str(file) in message and locator in message, message
    assert re.search(r"(?<![\w.])-?inf\b", message), message
    assert "np." not in message and "float64" not in message, message


def _copy_of_one_run(tool, tmp_path):
    """A folder of the fixture plus a copy of one of its runs; (folder, paths)."""
    if tool == "inspect":
        folder = tmp_path / "logs"
        shutil.copytree(DATA / "inspect" / "json", folder)
        log = sorted(folder.glob("*.json"))[0]
        copy = folder / "again" / log.name
        copy.parent.mkdir()
        shutil.copy(log, copy)
        return read_inspect, folder, (log, copy)
    if tool == "inspect-eval":
        folder = tmp_path / "logs"
        shutil.copytree(DATA / "inspect" / "eval", folder)
        log = sorted(folder.glob("*.eval"))[0]
        copy = folder / f"copy-{log.name}"
        shutil.copy(log, copy)
        return read_inspect, folder, (log, copy)
    if tool == "alpaca_eval":
        folder = tmp_path / "results"
        shutil.copytree(DATA / "alpaca_eval" / "results", folder)
        run = folder / "alpaca-7b"
        shutil.copytree(run, folder / "alpaca-7b-rerun")
        first = sorted(run.rglob("annotations.json"))[0]
        return read_alpaca_eval, folder, (
            first, folder / "alpaca-7b-rerun" / first.relative_to(run))
    if tool == "leaderboard_details":  # the model is its folder's: a rerun
        folder = tmp_path / "details"
        shutil.copytree(DATA / "leaderboard_details" / "v2", folder)
        table = sorted(folder.rglob("samples_capitals_*.parquet"))[0]
        copy = table.with_name("samples_capitals_2027-01-01T00-00-00.000000.parquet")
        shutil.copy(table, copy)
        return read_leaderboard_details, folder, (table, copy)
    reader, source, pattern = {
        "lm_eval": (read_lm_eval, DATA / "lm_eval", "results_*.json"),
        "helm": (read_helm, DATA / "helm", "per_instance_stats.json"),
    }[tool]
    folder = tmp_path / "out"
    shutil.copytree(source, folder)
    run = sorted(folder.rglob(pattern))[0].parent
    copy = run.parent / f"{run.name}_copy"
    shutil.copytree(run, copy)
    return reader, folder, (run, copy)


@pytest.mark.parametrize(
    "tool", ["inspect", "inspect-eval", "alpaca_eval", "lm_eval", "helm",
             "leaderboard_details"])
def test_the_same_run_read_twice_names_both_files(tool, tmp_path):
    if tool == "leaderboard_details":
        pytest.importorskip("pyarrow")
    read, folder, (first, second) = _copy_of_one_run(tool, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError) as info:
            read(folder)
    message = str(info.value)
    assert str(first) in message and str(second) in message, message
    assert "np." not in message and "rows [" not in message, message


def test_the_long_table_check_shows_plain_values():
    import numpy as np
    import pandas as pd

    long = pd.DataFrame({"model": "m", "task": "t", "item": [1, 2], "epoch": 1,
                         "metric": "acc", "score": [1.0, np.inf]})
    with pytest.raises(ValueError, match=r"row 1 has inf\.$"):
        check_long_table(long)
    long["score"] = [1.0, 0.0]
    long["item"] = np.int64(1)
    with pytest.raises(ValueError, match=r"'item': 1,"):
        check_long_table(long)
