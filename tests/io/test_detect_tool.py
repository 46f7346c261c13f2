"""Which tool wrote a file or folder, and reading it with its reader.

On the readers' fixtures (real output of each tool, see data/): every
fixture folder and file is detected as its tool, and read_results equals
the tool's own reader.
"""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from sklearn_eval.io import (
    detect_tool,
    read_alpaca_eval,
    read_helm,
    read_inspect,
    read_leaderboard_details,
    read_lm_eval,
    read_results,
)

DATA = Path(__file__).parent / "data"
CASES = [
    ("lm_eval", DATA / "lm_eval", read_lm_eval),
    ("inspect", DATA / "inspect" / "eval", read_inspect),
    ("inspect", DATA / "inspect" / "json", read_inspect),
    ("helm", DATA / "helm", read_helm),
    ("alpaca_eval", DATA / "alpaca_eval" / "results" / "alpaca-7b", read_alpaca_eval),
    ("leaderboard_details", DATA / "leaderboard_details" / "v1",
     read_leaderboard_details),
    ("leaderboard_details", DATA / "leaderboard_details" / "v2",
     read_leaderboard_details),
]


@pytest.mark.parametrize(("tool", "folder", "reader"), CASES)
def test_folders_and_their_files_are_detected_and_read(tool, folder, reader):
    assert detect_tool(folder) == tool
    pd.testing.assert_frame_equal(read_results(folder), reader(folder))
    pd.testing.assert_frame_equal(read_results(folder, tool=tool), reader(folder))
    for file in folder.rglob("*"):
        if file.is_file() and file.suffix in (".json", ".eval", ".parquet"):
            assert detect_tool(file) == tool, file


def test_other_files_are_no_tool(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("agent,task,score\na,t,1\n")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"a": 1}))
    assert detect_tool(csv) is None and detect_tool(other) is None
    assert detect_tool(tmp_path) is None
    assert detect_tool(tmp_path / "missing") is None
    with pytest.raises(ValueError, match="not the output of a tool"):
        read_results(csv)
    with pytest.raises(ValueError, match="tool must be one of"):
        read_results(csv, tool="mlflow")


def test_a_folder_with_two_tools_is_refused(tmp_path):
    shutil.copytree(DATA / "helm", tmp_path / "helm")
    shutil.copytree(DATA / "inspect" / "eval", tmp_path / "inspect")
    with pytest.raises(ValueError, match="several tools.*helm.*inspect"):
        detect_tool(tmp_path)


def _nest(folder, into):
    """A copy of ``folder`` whose every entry sits one subfolder deeper."""
    for k, entry in enumerate(sorted(folder.iterdir())):
        target = into / f"batch{k}" / entry.name
        target.parent.mkdir(parents=True)
        (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, target)
    return into


def _key_rows(long):
    rows = long[["model", "task", "item", "epoch", "metric", "score"]]
    return sorted(map(tuple, rows.astype(str).itertuples(index=False)))


@pytest.mark.parametrize(("tool", "folder", "reader"), CASES)
def test_a_folder_is_read_with_its_subfolders(tool, folder, reader, tmp_path):
    # detection searches subfolders, so reading must too: the runs of one
    # folder moved one level deeper read as the same table
    deep = _nest(folder, tmp_path / "deep")
    assert detect_tool(deep) == tool
    assert _key_rows(reader(deep)) == _key_rows(reader(folder))
    assert _key_rows(read_results(deep)) == _key_rows(reader(folder))
