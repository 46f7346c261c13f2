"""A Git LFS pointer in place of a results file is named as such.

Results repositories often keep their large files (samples, logs, details
tables) in Git LFS; cloned without ``git lfs pull`` each holds a small text
pointer instead. Every reader names the pointer file and says what to do,
instead of reporting invalid JSON, zip or parquet.
"""

import shutil
from pathlib import Path

import pytest

from sklearn_eval.io import (
    read_alpaca_eval,
    read_helm,
    read_inspect,
    read_leaderboard_details,
    read_lm_eval,
    read_results,
)

DATA = Path(__file__).parent / "data"
# the pointer as Git LFS writes it (the one of a real samples file)
POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:a5587a4562c745ad75b429b60f1e14c8885a13505b7c76abd95f9502c3191efa\n"
    "size 6900387\n"
)
CASES = [
    (read_lm_eval, "lm_eval", "samples_*.jsonl"),
    (read_lm_eval, "lm_eval", "results_*.json"),
    (read_inspect, "inspect/eval", "*.eval"),
    (read_inspect, "inspect/json", "*.json"),
    (read_helm, "helm", "per_instance_stats.json"),
    (read_alpaca_eval, "alpaca_eval", "annotations.json"),
    (read_leaderboard_details, "leaderboard_details/v1", "*.parquet"),
    (read_leaderboard_details, "leaderboard_details/v2", "*.parquet"),
]


@pytest.mark.parametrize(("read", "source", "pattern"), CASES)
@pytest.mark.parametrize("detect", [False, True])
def test_lfs_pointer_is_named(tmp_path, read, source, pattern, detect):
    folder = tmp_path / "copy"
    shutil.copytree(DATA / source, folder)
    file = sorted(folder.rglob(pattern))[0]
    file.write_text(POINTER)
    with pytest.raises(ValueError, match="Git LFS pointer") as info:
        (read_results if detect else read)(folder)
    assert str(file) in str(info.value)
    assert "git lfs pull" in str(info.value)


def test_invalid_json_is_not_called_a_pointer(tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(DATA / "lm_eval", folder)
    file = sorted(folder.rglob("samples_*.jsonl"))[0]
    file.write_text("version 1\n")
    with pytest.raises(ValueError, match="not valid JSON") as info:
        read_lm_eval(folder)
    assert "LFS" not in str(info.value)
