"""Options carry the API's names and meanings; old spellings still work."""

import re

import numpy as np
import pytest

from sklearn_eval.game import NashAverager

from ._helpers import read_table, run, write_rows, write_wide
from .conftest import MATCH_COLUMNS

OLD_METHODS = {
    "elo": ["--model", "elo", "--method", "online"],
    "bt": ["--model", "elo", "--method", "batch"],
    "melo": ["--model", "melo", "--method", "online"],
    "melo-batch": ["--model", "melo", "--method", "batch"],
}


@pytest.mark.parametrize("old", sorted(OLD_METHODS))
def test_old_method_spellings_are_aliases_with_a_one_line_warning(
    old, matches_csv, tmp_path, capsys
):
    path = matches_csv[0]
    tables = []
    for argv in (["--method", old], OLD_METHODS[old]):
        table = tmp_path / f"t{len(tables)}.csv"
        code, _, err = run(
            ["rank", path, *MATCH_COLUMNS, *argv, "--csv", table, "-q"], capsys
        )
        assert code == 0, err
        tables.append(read_table(table))
        warned = [line for line in err.splitlines() if "old spelling" in line]
        if argv == ["--method", old]:
            new = " ".join(OLD_METHODS[old])
            assert warned == [
                f"sklearn-eval: warning: --method {old} is the old spelling of {new}"
            ]
        else:
            assert warned == []
    assert tables[0] == tables[1]


def test_the_default_is_the_batch_elo_model(matches_csv, tmp_path, capsys):
    path = matches_csv[0]
    outputs = [
        run(["rank", path, *MATCH_COLUMNS, *argv, "-q"], capsys)[1]
        for argv in ([], ["--model", "elo", "--method", "batch"])
    ]
    assert outputs[0] == outputs[1]
    assert "EloRanker (batch)" in outputs[0]


def test_an_old_spelling_contradicting_model_is_a_usage_error(matches_csv, capsys):
    code, out, err = run(
        ["rank", matches_csv[0], *MATCH_COLUMNS, "--model", "melo", "--method", "bt"],
        capsys,
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert (
        "--method bt means --model elo --method batch" in err and "(see --help)" in err
    )


def test_intervals_is_the_old_name_of_n_resamples(matches_csv, tmp_path, capsys):
    path = matches_csv[0]
    tables = []
    for option in ("--n-resamples", "--intervals"):
        table = tmp_path / f"{option[2:]}.csv"
        code, _, _ = run(
            ["rank", path, *MATCH_COLUMNS, option, "8", "--csv", table, "-q"], capsys
        )
        assert code == 0
        tables.append(read_table(table))
    assert tables[0] == tables[1] and tables[0][0][4] == "low"


@pytest.mark.parametrize(
    ("option", "normalize"),
    [("none", None), ("minmax", "minmax"), ("zscore", "zscore")],
)
def test_normalize_none_is_the_api_none(option, normalize, tmp_path, capsys):
    rng = np.random.default_rng(3)
    S = rng.uniform(-50, 50, size=(6, 5))
    path = write_wide(tmp_path / "s.csv", S)
    table = tmp_path / "n.csv"
    code, _, _ = run(
        ["nash", path, "--normalize", option, "--csv", table, "-q"], capsys
    )
    assert code == 0
    model = NashAverager(normalize=normalize).fit(S)
    _, rows = read_table(table)
    got = {row[1]: (float(row[2]), float(row[3])) for row in rows}
    for k in range(6):
        assert got[f"agent{k}"] == pytest.approx(
            (model.agent_distribution_[k], model.agent_skill_[k]), abs=1e-9
        )


@pytest.mark.parametrize(
    ("sep", "char"), [("tab", "\t"), ("\\t", "\t"), (";", ";"), ("|", "|")]
)
def test_sep_takes_one_character_or_its_name(sep, char, tmp_path, capsys):
    path = tmp_path / "s.csv"
    path.write_text(
        f"agent{char}t1{char}t2\na{char}1{char}0\nb{char}0{char}1\nc{char}1{char}1\n"
    )
    code, out, err = run(["nash", path, "--sep", sep, "-q"], capsys)
    assert code == 0, err
    assert re.search(r"^\d\s+c\s", out, flags=re.M)


@pytest.mark.parametrize(
    "argv",
    [
        ["select", "x.csv", "--n-tasks", "0"],
        ["report", "x.csv", "--spread", "-1"],
        ["frobnicate"],
        ["rank"],
        ["rank", "x.csv", "--method", "glicko"],
        ["rank", "x.csv", "--model", "glicko"],
        ["rank", "x.csv", "--alpha", "-1"],
        ["nash", "x.csv", "--normalize", "None"],
        ["nash", "x.csv", "--clip", "0.5"],
        ["nash", "x.csv", "--sep", ";;"],
        ["irt", "x.csv", "--top", "-1"],
        ["generality", "x.csv", "--min-tasks-per-bin", "0"],
    ],
)
def test_usage_errors_exit_2_with_one_line(argv, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "(see --help)" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--low-agent", "agent0"], "give both --low-agent and --high-agent"),
        (["--threshold", "abc"], "--threshold must be a number or 'median'"),
        (["--threshold", "nan"], "--threshold must be a number or 'median'"),
    ],
)
def test_options_that_do_not_fit_together_are_usage_errors(
    argv, message, irt_data, capsys
):
    code, _, err = run(["irt", irt_data[0], *argv, "-q"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and message in err and "(see --help)" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--score-col", "points"],
            "has no column 'task' (--task-col), 'points' (--score-col)",
        ),
        (["--format", "long"], "has no column 'task' (--task-col), 'score'"),
        (["--low-agent", "agent0", "--high-agent", "zzz"], "'zzz' is not an agent"),
    ],
)
def test_bad_columns_name_the_option_and_the_file(argv, message, irt_data, capsys):
    code, _, err = run(["irt", irt_data[0], *argv, "-q"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and message in err and irt_data[0] in err


def test_data_rejected_by_a_method_names_the_file(tmp_path, capsys):
    # two agents: valid CSV, but the report needs three
    path = write_wide(tmp_path / "two.csv", np.array([[1.0, 0.0], [0.0, 1.0]]))
    code, _, err = run(
        ["report", path, "-o", tmp_path / "r.html", "--no-figures", "-q"], capsys
    )
    assert code == 2 and err.count("\n") == 1
    assert f"error: {path}: a benchmark report needs at least 3 agents" in err


# ---------------------------------------------------------------------------
# generality: fewer bins than asked is explained
# ---------------------------------------------------------------------------
def _warnings(err):
    return [
        line for line in err.splitlines() if line.startswith("sklearn-eval: warning")
    ]


def test_fewer_bins_than_asked_names_min_tasks_per_bin(irt_data, capsys):
    code, out, err = run(["generality", irt_data[0], "--bins", "10", "-q"], capsys)
    assert code == 0
    n_bins = int(re.search(r"generality over (\d+) IRT difficulty bins?\b", out)[1])
    assert n_bins < 10
    reason = [line for line in _warnings(err) if "--bins 10 gave" in line]
    assert reason == [
        f"sklearn-eval: warning: --bins 10 gave {n_bins} "
        f"{'bin' if n_bins == 1 else 'bins'}: 12 binned tasks, and a bin under 5 "
        "tasks (--min-tasks-per-bin) is merged into a neighbour (at most 2 bins)"
    ]


def test_min_tasks_per_bin_one_gives_the_bins_asked(irt_data, capsys):
    code, out, err = run(
        ["generality", irt_data[0], "--bins", "6", "--min-tasks-per-bin", "1", "-q"],
        capsys,
    )
    assert code == 0
    assert "generality over 6 IRT difficulty bins" in out
    assert not [line for line in _warnings(err) if "--bins" in line]


def test_tied_difficulties_are_named_as_the_reason(tmp_path, capsys):
    # 12 tasks, only 3 distinct response patterns: 3 distinct difficulties
    rng = np.random.default_rng(0)
    base = (rng.uniform(size=(40, 3)) < [0.2, 0.5, 0.8]).astype(float)
    X = np.repeat(base, 4, axis=1)
    path = write_wide(tmp_path / "tied.csv", X)
    code, _, err = run(
        ["generality", path, "--bins", "10", "--min-tasks-per-bin", "1", "-q"], capsys
    )
    assert code == 0, err
    reason = [line for line in _warnings(err) if "--bins 10 gave" in line]
    assert (
        len(reason) == 1
        and "distinct difficulties (tied tasks share a bin)" in reason[0]
    )


# ---------------------------------------------------------------------------
# progress lines read as sentences
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("threshold", "rule"),
    [
        ([], "the results are already successes (0/1)"),
        (["--threshold", "0.5"], "success = score >= 0.5"),
    ],
)
def test_irt_progress_line_reads(threshold, rule, irt_data, capsys):
    code, _, err = run(["irt", irt_data[0], *threshold], capsys)
    assert code == 0
    assert f"[sklearn-eval] fitting IRT2PL to 150 agents x 12 tasks; {rule}\n" in err


def test_warnings_are_one_line(tmp_path, capsys):
    # an undefeated player: the batch fit warns (ConvergenceWarning) in one line
    path = write_rows(
        tmp_path / "m.csv",
        ["first", "second", "outcome"],
        [["a", "b", 1], ["a", "c", 1], ["b", "c", 1], ["c", "b", 1]],
    )
    code, _, err = run(["rank", path, "-q"], capsys)
    assert code == 0
    lines = err.splitlines()
    assert lines and all(line.startswith("sklearn-eval: warning: ") for line in lines)
