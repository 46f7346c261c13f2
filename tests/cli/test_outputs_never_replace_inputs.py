"""No command writes over its own input (command line guide, "Tables").

Every output path (``-o``, ``--csv`` and the tables ``--csv`` writes beside
it) is checked against every input (the data file or folder, ``--items``)
before the command runs: an output that is an input file, by any spelling
(a link, a hard link, a relative path), or that lies in an input folder of
logs is refused with one line and exit code 2, and the input is untouched.
"""

import os
import shutil
from pathlib import Path

import pytest

from sklearn_eval.cli._main import build_parser
from sklearn_eval.cli._output import csv_paths
from sklearn_eval.datasets import make_irt_responses, make_matches

from ._helpers import assert_one_error_line, run, write_matches, write_wide

DATA = Path(__file__).parents[1] / "io" / "data"

#: (command, how its input is made, its options besides the input and output)
COMMANDS = {
    "rank": ("matches", []),
    "nash": ("results", []),
    "alpharank": ("results", []),
    "vote": ("results", ["--method", "borda"]),
    "irt": ("results", []),
    "generality": ("results", []),
    "select": ("results", ["--n-tasks", "3"]),
    "compare": ("results", []),
    "advise": ("results", ["--cv", "2"]),
    "report": ("results", ["--no-figures", "--n-resamples", "0"]),
    "compress": ("results", ["--n-items", "3", "--selection", "random",
                             "--method", "mean"]),
}


def _outputs(command):
    """The output options of a command (the ones its parser has)."""
    parser = build_parser()
    args = parser.parse_args(_args(command, "in.csv"))
    return [option for option, name in (("-o", "output"), ("--csv", "csv"))
            if hasattr(args, name)]


def _args(command, path):
    return [command, str(path), "-q", *COMMANDS[command][1]]


def _write_input(kind, path):
    if kind == "matches":
        X, y = make_matches(n_players=5, n_matches=60, random_state=0)[:2]
        return write_matches(path, X, y)
    return write_wide(path, make_irt_responses(20, 8, random_state=0))


CASES = [(command, option) for command in COMMANDS for option in _outputs(command)]


def _assert_refused(code, out, err, command, *names):
    assert_one_error_line(err, command, code)
    assert out == ""
    assert "destroy the input" in err or "folder read would change" in err
    for name in names:
        assert str(name) in err


@pytest.mark.parametrize(("command", "option"), CASES)
@pytest.mark.parametrize("spelling", ["same", "relative", "symlink", "hardlink"])
def test_an_output_naming_the_input_is_refused(
    command, option, spelling, tmp_path, capsys, monkeypatch
):
    data = Path(_write_input(COMMANDS[command][0], tmp_path / "data.csv"))
    before = data.read_bytes()
    output = data
    if spelling == "relative":
        (tmp_path / "sub").mkdir()
        monkeypatch.chdir(tmp_path / "sub")
        output = Path("..") / "data.csv"
    elif spelling == "symlink":
        output = tmp_path / "link.csv"
        output.symlink_to(data)
    elif spelling == "hardlink":
        output = tmp_path / "hard.csv"
        os.link(data, output)
    code, out, err = run([*_args(command, data), option, output], capsys)
    _assert_refused(code, out, err, command, output)
    assert data.read_bytes() == before


@pytest.mark.parametrize(
    ("command", "key"), [("irt", "agents"), ("nash", "tasks"), ("advise", "candidates")]
)
def test_a_table_written_beside_csv_may_not_be_the_input(command, key, tmp_path,
                                                         capsys):
    data = Path(_write_input("results", tmp_path / f"out_{key}.csv"))
    before = data.read_bytes()
    code, out, err = run([*_args(command, data), "--csv", tmp_path / "out.csv"],
                         capsys)
    _assert_refused(code, out, err, command, data)
    assert data.read_bytes() == before
    assert not (tmp_path / "out.csv").exists()


def test_rank_tiers_table_beside_csv_may_not_be_the_input(tmp_path, capsys):
    data = Path(_write_input("matches", tmp_path / "out_tiers.csv"))
    code, out, err = run(["rank", data, "-q", "--tiers", "--n-resamples", "20",
                          "--csv", tmp_path / "out.csv"], capsys)
    _assert_refused(code, out, err, "rank", data)


def test_the_items_file_of_score_is_an_input(tmp_path, capsys):
    data = _write_input("results", tmp_path / "data.csv")
    items = tmp_path / "items.csv"
    code, _, err = run(["compress", data, "-q", "-o", items, "--n-items", "3",
                        "--selection", "random", "--method", "mean"], capsys)
    assert code == 0, err
    before = items.read_bytes()
    code, out, err = run(["score", data, "-q", "--items", items, "--csv", items],
                         capsys)
    _assert_refused(code, out, err, "score", items)
    assert items.read_bytes() == before


@pytest.mark.parametrize("tool", ["lm_eval", "helm", "inspect"])
@pytest.mark.parametrize("option", ["-o", "--csv"])
def test_an_output_inside_an_input_folder_of_logs_is_refused(
    tool, option, tmp_path, capsys
):
    folder = tmp_path / tool
    shutil.copytree(DATA / tool, folder)
    listing = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    target = next(p for p in folder.rglob("*") if p.is_file()) if option == "-o" \
        else folder / "new.csv"
    before = target.read_bytes() if target.exists() else None
    command = "report" if option == "-o" else "irt"
    code, out, err = run([command, folder, "-q", option, target], capsys)
    _assert_refused(code, out, err, command, folder)
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == listing
    if before is not None:
        assert target.read_bytes() == before


def test_two_outputs_of_one_run_may_not_be_one_file(tmp_path, capsys):
    path = tmp_path / "both.csv"
    code, out, err = run(["demo", "-q", "-o", path, "--csv", path,
                          "--no-figures"], capsys)
    assert_one_error_line(err, "demo", code)
    assert "same file" in err and out == ""
    assert not path.exists()


@pytest.mark.parametrize(
    ("command", "extra"),
    [("irt", []), ("nash", []), ("advise", ["--cv", "2"]),
     ("rank", ["--tiers", "--n-resamples", "20"]), ("select", ["--n-tasks", "3"])],
)
def test_the_tables_written_beside_csv_are_the_declared_ones(
    command, extra, tmp_path, capsys
):
    # the check before the run reads the tables a command declares; a table
    # it writes without declaring would escape that check
    kind = "matches" if command == "rank" else "results"
    data = _write_input(kind, tmp_path / "data.csv")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    argv = [command, data, "-q", *extra, "--csv", out_dir / "t.csv"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    args = build_parser().parse_args([str(a) for a in argv])
    declared = {Path(p).name for p in csv_paths(str(out_dir / "t.csv"),
                                                 args.csv_beside)}
    written = {p.name for p in out_dir.iterdir()}
    assert written == declared


def test_an_unrelated_output_is_written(tmp_path, capsys):
    data = _write_input("results", tmp_path / "data.csv")
    code, _, err = run(["nash", data, "-q", "--csv", tmp_path / "data2.csv"], capsys)
    assert code == 0, err
    assert (tmp_path / "data2.csv").read_text().startswith("rank,agent,")
