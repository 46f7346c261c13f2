"""``score --items``: every problem of the item file is one line naming that file.

The item file checks itself (see the user guide, efficient evaluation): a
directory, a missing file, a file cut short or edited, a file of the first
format version; the data file's path is not put in front of these errors.
Task names a spreadsheet would run as formulas are neutralised in the file
written by ``compress`` and restored when ``score`` reads it.
"""

from pathlib import Path

import numpy as np
import pytest

from sklearn_eval.datasets import make_irt_responses

from ._helpers import run, write_wide

LEGACY = Path(__file__).parents[1] / "selection" / "data" / "legacy_items_v1.csv"
TASKS = ["=HYPERLINK(1)", "+cmd", "-x", "@cmd"] + [f"item {k}" for k in range(4, 12)]


@pytest.fixture(scope="module")
def compressed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("items")
    values = make_irt_responses(60, 12, random_state=3)
    data = write_wide(folder / "responses.csv", values, tasks=TASKS)
    items = folder / "items.csv"
    from sklearn_eval.cli import main

    assert main(["compress", data, "--n-items", "11", "-o", str(items), "-q"]) == 0
    return data, items


def _error_line(err):
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_directory_is_one_line_exit_2(compressed, tmp_path, capsys):
    data, _ = compressed
    code, _, err = run(["score", data, "--items", tmp_path, "-q"], capsys)
    line = _error_line(err)
    assert code == 2
    assert f"--items {tmp_path} is a directory" in line
    assert data not in line


@pytest.mark.parametrize("damage", ["cut", "edit", "missing key", "empty"])
def test_damaged_item_file_is_named_not_the_data_file(compressed, tmp_path, capsys,
                                                       damage):
    data, items = compressed
    text = items.read_text()
    damaged = tmp_path / "damaged.csv"
    if damage == "cut":
        damaged.write_text(text[: len(text) // 2])
    elif damage == "edit":
        damaged.write_text(text.replace(",1,1,", ",1,2,", 1))
    elif damage == "missing key":
        damaged.write_text("".join(line for line in text.splitlines(keepends=True)
                                   if not line.startswith("# estimator=")))
    else:
        damaged.write_text("")
    code, _, err = run(["score", data, "--items", damaged, "-q"], capsys)
    line = _error_line(err)
    assert code == 2
    assert line.startswith(f"sklearn-eval score: error: --items {damaged}: ")
    assert data not in line
    expected = {"cut": "cut short", "edit": "checksum", "missing key": "'# estimator=",
                "empty": "empty"}[damage]
    assert expected in line


def test_formula_task_names_are_neutralised_and_scored(compressed, tmp_path, capsys):
    data, items = compressed
    text = items.read_text()
    for name in TASKS[:4]:
        assert f"\n'{name}," in text
        assert f"\n{name}," not in text
    out_csv = tmp_path / "scores.csv"
    code, out, err = run(["score", data, "--items", items, "-q", "--csv", out_csv],
                         capsys)
    assert code == 0, err
    assert len(out_csv.read_text().splitlines()) == 1 + 60  # every model scored


def test_first_version_file_warns_that_it_cannot_be_verified(tmp_path, capsys):
    values = make_irt_responses(60, 12, random_state=3)
    data = write_wide(tmp_path / "responses.csv", values,
                      tasks=[f"item {k}" for k in range(12)])
    code, out, err = run(["score", data, "--items", LEGACY, "-q"], capsys)
    assert code == 0
    assert "cannot be verified" in err and str(LEGACY) in err
    assert np.isfinite([float(row.split()[1]) for row in out.splitlines()[3:8]]).all()
