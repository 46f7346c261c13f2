"""Tests of the command line interface (``sklearn-eval``)."""

import csv
import io
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sklearn_eval import __version__
from sklearn_eval.cli import main
from sklearn_eval.datasets import make_irt_responses, make_matches
from sklearn_eval.game import NashAverager
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.report import SECTIONS


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def run(argv, capsys):
    """Run the CLI; return (exit code, stdout text, stderr text)."""
    out = io.StringIO()
    code = main(argv, out=out)
    captured = capsys.readouterr()
    return code, out.getvalue(), captured.err


def write_rows(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


def read_table(path):
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def write_wide(path, values, agents=None, tasks=None, agent_header="agent"):
    n, m = values.shape
    agents = agents or [f"agent{i}" for i in range(n)]
    tasks = tasks or [f"task{j}" for j in range(m)]
    rows = [
        [agents[i]] + ["" if np.isnan(v) else repr(float(v)) for v in values[i]]
        for i in range(n)
    ]
    return write_rows(path, [agent_header, *tasks], rows)


def write_long(path, values, *, columns=("agent", "task", "score")):
    rows = [
        [f"agent{i}", f"task{j}", repr(float(values[i, j]))]
        for i in range(values.shape[0])
        for j in range(values.shape[1])
        if not np.isnan(values[i, j])
    ]
    return write_rows(path, columns, rows)


@pytest.fixture(scope="module")
def matches_csv(tmp_path_factory):
    X, y = make_matches(n_players=8, n_matches=600, random_state=0)[:2]
    words = {1.0: "win", 0.0: "loss", 0.5: "draw"}
    path = tmp_path_factory.mktemp("matches") / "matches.csv"
    rows = [[a, b, words[o]] for (a, b), o in zip(X, y, strict=True)]
    return write_rows(path, ["home", "away", "result"], rows), X, y


MATCH_COLUMNS = [
    "--first-col",
    "home",
    "--second-col",
    "away",
    "--outcome-col",
    "result",
]


# ---------------------------------------------------------------------------
# demo (built-in Atari data) and entry points
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "atari.html"
    out = io.StringIO()
    code = main(["demo", "-o", str(path), "--n-resamples", "10", "-q"], out=out)
    return code, out.getvalue(), path


def test_demo_summarises_builtin_data(demo_run):
    code, text, _ = demo_run
    assert code == 0
    assert "atari_noop_matrix" in text and "32x57" in text
    assert "vicuna80" in text and "MIT" in text
    assert "Top 10 agents" in text


def test_demo_writes_the_atari_report(demo_run):
    pytest.importorskip("matplotlib")
    code, text, path = demo_run
    assert code == 0
    assert f"report written to {path}" in text
    page = path.read_text(encoding="utf-8")
    for key, title in SECTIONS.items():
        start = page.index(f'<section id="{key}"><h2>{title}</h2>')
        section = page[start : page.index("</section>", start)]
        assert "<table>" in section and "<td" in section, key
        assert '<img alt="' in section and "data:image/png;base64," in section, key
    # the paper's conclusion on Atari: human is in the Nash core (a tie at the top)
    core_line = next(line for line in text.splitlines() if "Nash core agents" in line)
    assert "human@" in core_line
    assert "Kendall tau with the full benchmark" in text


def test_demo_default_output_is_in_the_current_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, text, err = run(["demo", "--n-resamples", "0", "--no-figures"], capsys)
    assert code == 0
    written = tmp_path / "sklearn-eval-report.html"
    assert written.is_file()
    assert str(written) in text
    # progress goes to stderr, not to the results
    assert "[sklearn-eval" in err and "[sklearn-eval" not in text


def test_no_command_prints_help_and_fails(capsys):
    out = io.StringIO()
    assert main([], out=out) == 2
    assert "usage: sklearn-eval" in out.getvalue()


def test_python_dash_m_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_eval", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == __version__


def test_bad_file_in_a_subprocess_is_one_line_without_traceback(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_eval", "report", str(tmp_path / "nope.csv")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert "file not found" in done.stderr


# ---------------------------------------------------------------------------
# rank
# ---------------------------------------------------------------------------
def test_rank_bt_matches_the_estimator(matches_csv, tmp_path, capsys):
    path, X, y = matches_csv
    table = tmp_path / "ratings.csv"
    code, text, _ = run(
        ["rank", path, *MATCH_COLUMNS, "--method", "bt", "--csv", str(table), "-q"],
        capsys,
    )
    assert code == 0
    assert "EloRanker (bt) ratings of 8 players from 600 matches" in text
    header, rows = read_table(table)
    assert header == ["rank", "player", "rating", "games"]
    model = EloRanker(method="batch").fit(X.astype(str), y)
    expected = dict(zip(model.players_, model.ratings_, strict=True))
    got = {row[1]: float(row[2]) for row in rows}
    assert set(got) == set(expected)
    for player, rating in got.items():
        assert rating == pytest.approx(expected[player], abs=0.051)
    ratings = [float(row[2]) for row in rows]
    assert ratings == sorted(ratings, reverse=True)
    assert sum(int(row[3]) for row in rows) == 2 * 600


def test_rank_online_elo_and_melo(matches_csv, tmp_path, capsys):
    path, X, y = matches_csv
    table = tmp_path / "elo.csv"
    code, _, _ = run(
        [
            "rank",
            path,
            *MATCH_COLUMNS,
            "--method",
            "elo",
            "--k-factor",
            "24",
            "--csv",
            str(table),
            "-q",
        ],
        capsys,
    )
    assert code == 0
    model = EloRanker(k_factor=24).fit(X.astype(str), y)
    _, rows = read_table(table)
    top = model.players_[np.argmax(model.ratings_)]
    assert rows[0][1] == top
    assert float(rows[0][2]) == pytest.approx(model.ratings_.max(), abs=0.051)

    table = tmp_path / "melo.csv"
    code, _, _ = run(
        [
            "rank",
            path,
            *MATCH_COLUMNS,
            "--method",
            "melo-batch",
            "--csv",
            str(table),
            "-q",
        ],
        capsys,
    )
    assert code == 0
    header, rows = read_table(table)
    assert header[-1] == "transitive rating"
    melo = MultiElo(method="batch", random_state=0).fit(X.astype(str), y)
    assert rows[0][1] == melo.players_[np.argmax(melo.ratings_)]


def test_rank_intervals_contain_the_estimates(matches_csv, tmp_path, capsys):
    path, _, _ = matches_csv
    table = tmp_path / "ci.csv"
    code, _, err = run(
        ["rank", path, *MATCH_COLUMNS, "--intervals", "30", "--csv", str(table)], capsys
    )
    assert code == 0
    assert "bootstrap: 30 resamples" in err
    header, rows = read_table(table)
    assert header[4:] == ["low", "high", "rank range"]
    for row in rows:
        low, rating, high = float(row[4]), float(row[2]), float(row[5])
        assert low < high
        assert low - 60 < rating < high + 60
        first, last = (int(v) for v in row[6].split("-"))
        assert first <= int(row[0]) + 3 and last >= int(row[0]) - 3


def test_rank_outcome_from_score_columns(tmp_path, capsys):
    path = write_rows(
        tmp_path / "football.csv",
        ["home_team", "away_team", "home_score", "away_score"],
        [
            ["A", "B", 2, 0],
            ["B", "C", 1, 1],
            ["C", "A", 0, 3],
            ["A", "C", 1, 2],
            ["B", "A", 0, 0],
            ["C", "B", 2, 1],
        ],
    )
    table = tmp_path / "out.csv"
    code, _, _ = run(
        [
            "rank",
            path,
            "--first-col",
            "home_team",
            "--second-col",
            "away_team",
            "--first-score-col",
            "home_score",
            "--second-score-col",
            "away_score",
            "--method",
            "elo",
            "--csv",
            str(table),
            "-q",
        ],
        capsys,
    )
    assert code == 0
    X = np.array(
        [["A", "B"], ["B", "C"], ["C", "A"], ["A", "C"], ["B", "A"], ["C", "B"]]
    )
    y = np.array([1.0, 0.5, 0.0, 0.0, 0.5, 1.0])
    model = EloRanker().fit(X, y)
    _, rows = read_table(table)
    got = {row[1]: float(row[2]) for row in rows}
    for player, rating in zip(model.players_, model.ratings_, strict=True):
        assert got[player] == pytest.approx(rating, abs=0.051)


# ---------------------------------------------------------------------------
# nash
# ---------------------------------------------------------------------------
def test_nash_reproduces_the_reference_example(tmp_path, capsys):
    # NashAverager's documented example: p = (0.606, 0, 0.394), value 85.061
    S = np.array([[89.0, 93, 76], [85, 85, 85], [79, 74, 99]])
    path = write_wide(tmp_path / "s.csv", S, agents=["x", "y", "z"])
    table = tmp_path / "nash.csv"
    code, text, _ = run(
        ["nash", path, "--normalize", "none", "--csv", str(table), "-q"], capsys
    )
    assert code == 0
    assert "value 85.0606" in text  # 85.061 to 3 decimals
    _, rows = read_table(table)
    probability = {row[1]: float(row[2]) for row in rows}
    assert probability == pytest.approx({"x": 0.606, "y": 0.0, "z": 0.394}, abs=5e-4)


def test_nash_win_rates_rock_paper_scissors_with_a_copy(tmp_path, capsys):
    P = np.array(
        [
            [0.5, 0.9, 0.1, 0.1],
            [0.1, 0.5, 0.9, 0.9],
            [0.9, 0.1, 0.5, 0.5],
            [0.9, 0.1, 0.5, 0.5],
        ]
    )
    names = ["rock", "paper", "scissors", "scissors2"]
    path = write_wide(tmp_path / "p.csv", P, agents=names, tasks=names)
    table = tmp_path / "nash.csv"
    code, text, _ = run(
        ["nash", path, "--input", "win-rates", "--csv", str(table), "-q"], capsys
    )
    assert code == 0
    # the game is a cycle plus a copy: far from transitive
    share = float(text.split("Hodge transitive share: ")[1].split("%")[0]) / 100
    from sklearn_eval.game import hodge_decomposition

    logits = np.log(P / (1 - P))
    assert share == pytest.approx(
        hodge_decomposition(logits).transitive_share, abs=5e-4
    )
    assert share < 0.5
    _, rows = read_table(table)
    probability = {row[1]: float(row[2]) for row in rows}
    assert probability == pytest.approx(
        {"rock": 1 / 3, "paper": 1 / 3, "scissors": 1 / 6, "scissors2": 1 / 6},
        abs=5e-4,
    )


def test_nash_uses_the_complete_block_of_missing_data(tmp_path, capsys):
    rng = np.random.default_rng(1)
    S = rng.uniform(size=(6, 5))
    S[0, 4] = S[1, 4] = np.nan  # the peel drops task4 (2/6 missing > 1/5)
    path = write_wide(tmp_path / "s.csv", S)
    table = tmp_path / "nash.csv"
    code, _, err = run(["nash", path, "--csv", str(table)], capsys)
    assert code == 0
    assert "complete block of 6 agents x 4 tasks" in err
    model = NashAverager(normalize="minmax").fit(S[:, :4])
    _, rows = read_table(table)
    got = {row[1]: float(row[3]) for row in rows}
    for k in range(6):
        assert got[f"agent{k}"] == pytest.approx(model.agent_skill_[k], abs=5e-4)


def test_nash_from_matches(matches_csv, capsys):
    path, _, _ = matches_csv
    code, text, _ = run(
        ["nash", path, "--input", "matches", *MATCH_COLUMNS, "-q"], capsys
    )
    assert code == 0
    assert "value 0.0000" in text


# ---------------------------------------------------------------------------
# irt, generality, select
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def irt_data(tmp_path_factory):
    X, params = make_irt_responses(150, 12, random_state=3, return_params=True)
    directory = tmp_path_factory.mktemp("irt")
    return (
        write_wide(directory / "wide.csv", X),
        write_long(directory / "long.csv", X, columns=("model", "item", "correct")),
        X,
        params,
    )


def test_irt_recovers_difficulties_from_long_and_wide(irt_data, tmp_path, capsys):
    wide, long, _, params = irt_data
    tables = []
    for argv in (
        ["irt", wide],
        [
            "irt",
            long,
            "--agent-col",
            "model",
            "--task-col",
            "item",
            "--score-col",
            "correct",
        ],
    ):
        table = tmp_path / f"irt{len(tables)}.csv"
        code, text, _ = run([*argv, "--csv", str(table), "-q"], capsys)
        assert code == 0
        assert "already successes (0/1)" in text
        tables.append(read_table(table)[1])
    assert tables[0] == tables[1]  # long and wide give the same fit
    difficulty = {row[0]: float(row[1]) for row in tables[0]}
    estimated = [difficulty[f"task{j}"] for j in range(12)]
    assert np.corrcoef(estimated, params["b"])[0, 1] > 0.95


def test_irt_threshold_and_baselines(tmp_path, capsys):
    rng = np.random.default_rng(0)
    scores = rng.uniform(0, 100, size=(12, 6))
    scores[0], scores[1] = 0.0, 50.0  # "random" and "human" rows
    path = write_wide(tmp_path / "s.csv", scores)
    table = tmp_path / "out.csv"
    code, text, _ = run(
        [
            "irt",
            path,
            "--low-agent",
            "agent0",
            "--high-agent",
            "agent1",
            "--threshold",
            "100",
            "--csv",
            str(table),
            "-q",
        ],
        capsys,
    )
    assert code == 0
    assert "success = baseline-normalised score >= 100" in text
    _, rows = read_table(table)
    rate = {row[0]: float(row[3]) for row in rows}
    expected = (scores >= 50.0).mean(axis=0)
    for j in range(6):
        assert rate[f"task{j}"] == pytest.approx(expected[j], abs=0.005)


def test_generality_table(irt_data, tmp_path, capsys):
    wide, _, X, _ = irt_data
    table = tmp_path / "gen.csv"
    code, text, _ = run(
        ["generality", wide, "--bins", "3", "--csv", str(table), "-q"], capsys
    )
    assert code == 0
    assert "generality over" in text
    header, rows = read_table(table)
    assert header[:3] == ["agent", "ability", "generality"]
    mean_score = {row[0]: float(row[-1]) for row in rows}
    for i in range(X.shape[0]):
        assert mean_score[f"agent{i}"] == pytest.approx(X[i].mean(), abs=5e-4)
    abilities = [float(row[1]) for row in rows]
    assert abilities == sorted(abilities, reverse=True)


def test_select_picks_the_separating_task_first(tmp_path, capsys):
    rng = np.random.default_rng(0)
    rows = []
    for agent in range(5):
        for _run in range(4):
            rows.append([f"a{agent}", "separates", agent + rng.normal(0, 0.1)])
            rows.append([f"a{agent}", "noise", rng.normal(0, 1.0)])
            rows.append([f"a{agent}", "halves", (agent > 2) + rng.normal(0, 0.1)])
    path = write_rows(tmp_path / "runs.csv", ["agent", "task", "score"], rows)
    table = tmp_path / "sel.csv"
    code, text, _ = run(
        ["select", path, "--n-tasks", "2", "--csv", str(table), "-q"], capsys
    )
    assert code == 0
    assert "spreads of the repeated runs" in text
    _, selected = read_table(table)
    assert [row[1] for row in selected] == ["separates", "halves"]
    gains = [float(row[3]) for row in selected]
    assert gains[0] <= gains[1] <= np.log2(5) + 1e-9


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------
def test_report_on_a_long_csv(irt_data, tmp_path, capsys):
    _, long, _, _ = irt_data
    output = tmp_path / "r.html"
    code, text, err = run(
        [
            "report",
            long,
            "--agent-col",
            "model",
            "--task-col",
            "item",
            "--score-col",
            "correct",
            "-o",
            str(output),
            "--n-resamples",
            "5",
            "--n-tasks",
            "4",
        ],
        capsys,
    )
    assert code == 0
    assert output.is_file() and f"report written to {output}" in text
    assert "bootstrap intervals (5 resamples" in err
    assert "Reduced subset (4 tasks)" in text
    assert output.read_text(encoding="utf-8").count("<section") == len(SECTIONS)


def test_report_unwritable_output_is_one_line(irt_data, tmp_path, capsys):
    wide = irt_data[0]
    code, _, err = run(
        [
            "report",
            wide,
            "-o",
            str(tmp_path / "no" / "such.html"),
            "--n-resamples",
            "0",
            "--no-figures",
            "-q",
        ],
        capsys,
    )
    assert code == 1
    assert err.count("\n") == 1 and "cannot write" in err


# ---------------------------------------------------------------------------
# bad input: one line on stderr, non-zero exit, never a traceback
# ---------------------------------------------------------------------------
BAD_FILES = {
    "missing_file": (None, "file not found"),
    "empty": ("", "is empty"),
    "header_only": ("agent,task,score\n", "header but no data rows"),
    "non_numeric": (
        "agent,task,score\nA,t1,1\nB,t1,abc\n",
        "line 3, column 'score': 'abc' is not a number",
    ),
    "ragged": ("agent,task,score\nA,t1,1\nB,t1\n", "line 3: 2 fields, expected 3"),
    "duplicate_column": ("agent,t1,t1\nA,1,2\n", "appears twice"),
    "all_missing": ("agent,t1,t2\nA,,\nB,nan,NA\n", "no score"),
    "wide_non_numeric": (
        "agent,t1,t2\nA,1,2\nB,3,x\n",
        "line 3, column 't2': 'x' is not a number",
    ),
    "infinite": ("agent,t1,t2\nA,1,inf\nB,1,2\nC,2,2\n", "is infinite"),
}


@pytest.mark.parametrize("command", ["report", "nash", "irt", "generality", "select"])
@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_result_files_fail_with_one_line(command, case, tmp_path, capsys):
    content, message = BAD_FILES[case]
    path = tmp_path / f"{case}.csv"
    if content is not None:
        path.write_text(content)
    code, out, err = run([command, str(path), "-q"], capsys)
    assert code == 1
    assert err.count("\n") == 1, err
    assert message in err
    assert err.startswith(f"sklearn-eval {command}: error: ")
    assert "Traceback" not in err and out == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--score-col", "points"],
            "has no column 'task' (--task-col), 'points' (--score-col)",
        ),
        (["--format", "long"], "has no column 'task' (--task-col), 'score'"),
        (["--low-agent", "agent0"], "give both --low-agent and --high-agent"),
        (["--low-agent", "agent0", "--high-agent", "zzz"], "'zzz' is not an agent"),
        (["--threshold", "abc"], "--threshold must be a number or 'median'"),
    ],
)
def test_bad_columns_and_options_fail_with_one_line(argv, message, irt_data, capsys):
    wide = irt_data[0]
    code, _, err = run(["irt", wide, *argv, "-q"], capsys)
    assert code == 1
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        ("a,b,r\nx,y,1\n", [], "has no column 'first' (--first-col), 'second'"),
        ("first,second,outcome\nx,y,2\n", [], "outcome '2' is not 1 (win)"),
        (
            "first,second,outcome\nx,y,1\n\nz,z,0\n",
            [],
            "line 4: player 'z' plays against itself",
        ),
        ("first,second,outcome\nx,,1\n", [], "line 2, column 'second': empty label"),
        ("first,second,outcome\nx,y,\n", [], "missing value"),
        (
            "first,second,g1,g2\nx,y,1,a\n",
            ["--first-score-col", "g1", "--second-score-col", "g2"],
            "'a' is not a number",
        ),
        ("first,second,g1\nx,y,1\n", ["--first-score-col", "g1"], "give both"),
        (
            "first,second,outcome,w\nx,y,1,-1\n",
            ["--weight-col", "w"],
            "negative weight",
        ),
    ],
)
def test_bad_match_files_fail_with_one_line(content, argv, message, tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text(content)
    code, _, err = run(["rank", str(path), *argv, "-q"], capsys)
    assert code == 1
    assert err.count("\n") == 1, err
    assert message in err


def test_bad_win_rate_matrices(tmp_path, capsys):
    path = write_wide(tmp_path / "p.csv", np.full((3, 2), 0.5))
    code, _, err = run(["nash", str(path), "--input", "win-rates", "-q"], capsys)
    assert code == 1 and "must be square" in err
    P = np.array([[0.5, 0.7, np.nan], [0.3, 0.5, 0.6], [np.nan, 0.4, 0.5]])
    names = ["a", "b", "c"]
    path = write_wide(tmp_path / "q.csv", P, agents=names, tasks=names)
    code, _, err = run(["nash", str(path), "--input", "win-rates", "-q"], capsys)
    assert code == 1 and "missing win rate of 'a' against 'c'" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["select", "x.csv", "--n-tasks", "0"],
        ["report", "x.csv", "--spread", "-1"],
        ["frobnicate"],
        ["rank"],
        ["rank", "x.csv", "--method", "glicko"],
    ],
)
def test_usage_errors_exit_2_with_one_line(argv, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1 and "(see --help)" in err


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


@settings(max_examples=15, deadline=None)
@given(
    values=hnp.arrays(
        np.float64,
        st.tuples(st.integers(3, 5), st.integers(2, 4)),
        elements=st.floats(-1e6, 1e6, allow_nan=False, width=32),
    )
)
def test_wide_and_long_csv_give_the_same_nash_table(values, tmp_path_factory):
    # -0.0 + 0.0 is 0.0: the long reader's aggregation turns -0.0 into 0.0,
    # which moves solver output by rounding noise and can reorder exact ties
    S = np.array(values, dtype=np.float64) + 0.0
    directory = tmp_path_factory.mktemp("prop")
    wide = write_wide(directory / "w.csv", S)
    long = write_long(directory / "l.csv", S)
    outputs = []
    for path in (wide, long):
        out = io.StringIO()
        assert main(["nash", path, "-q"], out=out) == 0
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
