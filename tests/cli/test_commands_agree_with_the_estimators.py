"""Each command prints (and writes to CSV) what the Python API computes."""

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sklearn_eval.cli import main
from sklearn_eval.game import NashAverager, hodge_decomposition
from sklearn_eval.irt import IRT, IRT2PL
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.report import SECTIONS, analyze_benchmark, prepare_benchmark

from ._helpers import (
    read_table,
    run,
    run_irt_and_fit,
    write_long,
    write_rows,
    write_wide,
)
from .conftest import MATCH_COLUMNS


# ---------------------------------------------------------------------------
# rank
# ---------------------------------------------------------------------------
def test_rank_batch_matches_bradley_terry(matches_csv, tmp_path, capsys):
    path, X, y = matches_csv
    table = tmp_path / "ratings.csv"
    code, text, _ = run(["rank", path, *MATCH_COLUMNS, "--csv", table, "-q"], capsys)
    assert code == 0
    assert "EloRanker (batch) ratings of 8 players from 600 matches" in text
    header, rows = read_table(table)
    assert header == ["rank", "player", "rating", "games"]
    model = EloRanker(method="batch").fit(X.astype(str), y)
    expected = dict(zip(model.players_, model.ratings_, strict=True))
    got = {row[1]: float(row[2]) for row in rows}
    assert got == pytest.approx(expected, abs=1e-9)  # the CSV has full precision
    ratings = [float(row[2]) for row in rows]
    assert ratings == sorted(ratings, reverse=True)
    assert sum(int(row[3]) for row in rows) == 2 * 600


@pytest.mark.parametrize(
    ("argv", "estimator"),
    [
        (["--method", "online", "--k-factor", "24"], EloRanker(k_factor=24)),
        (
            ["--model", "melo", "--method", "batch"],
            MultiElo(method="batch", random_state=0),
        ),
        (["--model", "melo", "--method", "online"], MultiElo(random_state=0)),
    ],
    ids=["elo-online", "melo-batch", "melo-online"],
)
def test_rank_models_and_methods(argv, estimator, matches_csv, tmp_path, capsys):
    path, X, y = matches_csv
    table = tmp_path / "r.csv"
    code, _, _ = run(
        ["rank", path, *MATCH_COLUMNS, *argv, "--csv", table, "-q"], capsys
    )
    assert code == 0
    model = estimator.fit(X.astype(str), y)
    header, rows = read_table(table)
    got = {row[1]: float(row[2]) for row in rows}
    assert got == pytest.approx(dict(zip(model.players_, model.ratings_, strict=True)))
    if isinstance(estimator, MultiElo):
        assert header[-1] == "transitive rating"


def test_rank_intervals_contain_the_estimates(matches_csv, tmp_path, capsys):
    path, _, _ = matches_csv
    table = tmp_path / "ci.csv"
    code, _, err = run(
        ["rank", path, *MATCH_COLUMNS, "--n-resamples", "30", "--csv", table], capsys
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
            "online",
            "--csv",
            table,
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
    assert got == pytest.approx(dict(zip(model.players_, model.ratings_, strict=True)))


# ---------------------------------------------------------------------------
# nash
# ---------------------------------------------------------------------------
def test_nash_reproduces_the_reference_example(tmp_path, capsys):
    # NashAverager's documented example: p = (0.606, 0, 0.394), value 85.061
    S = np.array([[89.0, 93, 76], [85, 85, 85], [79, 74, 99]])
    path = write_wide(tmp_path / "s.csv", S, agents=["x", "y", "z"])
    table = tmp_path / "nash.csv"
    code, text, _ = run(
        ["nash", path, "--normalize", "none", "--csv", table, "-q"], capsys
    )
    assert code == 0
    assert "value 85.0606" in text  # 85.061 to 3 decimals
    _, rows = read_table(table)
    probability = {row[1]: float(row[2]) for row in rows}
    assert probability == pytest.approx({"x": 0.606, "y": 0.0, "z": 0.394}, abs=5e-4)
    # the core tasks go to a second file beside the first
    header, tasks = read_table(tmp_path / "nash_tasks.csv")
    assert header == ["task", "Nash probability", "Nash difficulty"]
    assert tasks and all(float(row[1]) > 0 for row in tasks)


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
        ["nash", path, "--input", "win-rates", "--csv", table, "-q"], capsys
    )
    assert code == 0
    share = float(text.split("Hodge transitive share: ")[1].split("%")[0]) / 100
    logits = np.log(P / (1 - P))
    assert share == pytest.approx(
        hodge_decomposition(logits).transitive_share, abs=5e-4
    )
    assert share < 0.5  # a cycle plus a copy: far from transitive
    _, rows = read_table(table)
    probability = {row[1]: float(row[2]) for row in rows}
    assert probability == pytest.approx(
        {"rock": 1 / 3, "paper": 1 / 3, "scissors": 1 / 6, "scissors2": 1 / 6},
        abs=1e-6,
    )


def test_nash_uses_the_complete_block_of_missing_data(tmp_path, capsys):
    rng = np.random.default_rng(1)
    S = rng.uniform(size=(6, 5))
    S[0, 4] = S[1, 4] = np.nan  # the peel drops task4 (2/6 missing > 1/5)
    path = write_wide(tmp_path / "s.csv", S)
    table = tmp_path / "nash.csv"
    code, _, err = run(["nash", path, "--csv", table], capsys)
    assert code == 0
    assert "complete block of 6 agents x 4 tasks" in err
    model = NashAverager(normalize="minmax").fit(S[:, :4])
    _, rows = read_table(table)
    got = {row[1]: float(row[3]) for row in rows}
    assert got == pytest.approx(
        {f"agent{k}": model.agent_skill_[k] for k in range(6)}, abs=1e-9
    )


def test_nash_from_matches_is_a_symmetric_zero_sum_game(matches_csv, capsys):
    path, _, _ = matches_csv
    code, text, _ = run(
        ["nash", path, "--input", "matches", *MATCH_COLUMNS, "-q"], capsys
    )
    assert code == 0
    assert "value 0.0000" in text


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


# ---------------------------------------------------------------------------
# irt, generality, select
# ---------------------------------------------------------------------------
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
        code, text, _ = run([*argv, "--csv", table, "-q"], capsys)
        assert code == 0
        assert "already successes (0/1)" in text
        tables.append(read_table(table)[1])
    # long and wide give the same fit
    assert [row[0] for row in tables[0]] == [row[0] for row in tables[1]]
    np.testing.assert_allclose(
        [[float(v) for v in row[1:]] for row in tables[0]],
        [[float(v) for v in row[1:]] for row in tables[1]],
        rtol=1e-9,
    )
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
            table,
            "-q",
        ],
        capsys,
    )
    assert code == 0
    assert "success = baseline-normalised score >= 100" in text
    _, rows = read_table(table)
    rate = {row[0]: float(row[3]) for row in rows}
    expected = (scores >= 50.0).mean(axis=0)
    assert rate == pytest.approx({f"task{j}": expected[j] for j in range(6)})


def test_generality_table_holds_the_agents_mean_scores(irt_data, tmp_path, capsys):
    wide, _, X, _ = irt_data
    table = tmp_path / "gen.csv"
    code, text, _ = run(
        ["generality", wide, "--bins", "2", "--csv", table, "-q"], capsys
    )
    assert code == 0
    assert "generality over 2 IRT difficulty bins" in text
    header, rows = read_table(table)
    assert header[:3] == ["agent", "ability", "generality"]
    mean_score = {row[0]: float(row[-1]) for row in rows}
    assert mean_score == pytest.approx(
        {f"agent{i}": X[i].mean() for i in range(len(X))}
    )
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
        ["select", path, "--n-tasks", "2", "--csv", table, "-q"], capsys
    )
    assert code == 0
    assert "spreads of the repeated runs" in text
    _, selected = read_table(table)
    assert [row[1] for row in selected] == ["separates", "halves"]
    gains = [float(row[3]) for row in selected]
    assert gains[0] <= gains[1] <= np.log2(5) + 1e-9


@pytest.mark.parametrize("repeated", [False, True], ids=["one-run", "repeated-runs"])
def test_select_recommends_the_report_subset(repeated, tmp_path, capsys):
    rng = np.random.default_rng(4)
    values = rng.uniform(0, 1, size=(8, 9))
    values[2, 7] = np.nan  # a complete block smaller than the matrix
    if repeated:
        runs = [values + rng.normal(0, 0.05, values.shape) for _ in range(3)]
        rows = [
            [f"a{i}", f"t{j}", float(run_[i, j])]
            for run_ in runs
            for i in range(8)
            for j in range(9)
            if not np.isnan(run_[i, j])
        ]
        path = write_rows(tmp_path / "s.csv", ["agent", "task", "score"], rows)
    else:
        path = write_wide(tmp_path / "s.csv", values)
    table = tmp_path / "sel.csv"
    code, text, err = run(
        ["select", path, "--n-tasks", "4", "--csv", table, "-q"], capsys
    )
    assert code == 0, err
    from sklearn_eval.report import read_result_matrix

    read = read_result_matrix(path)
    stds = read.stds if repeated else None
    bench = prepare_benchmark(
        read.values, agents=read.agents, tasks=read.tasks, stds=stds
    )
    analysis = analyze_benchmark(bench, n_tasks=4, n_resamples=0)
    expected = analysis.block.tasks[analysis.selection.order].tolist()
    assert [row[1] for row in read_table(table)[1]] == expected
    tau = analysis.selection.agreement.kendall_tau
    assert f"Kendall tau {tau:.3f}" in text


# ---------------------------------------------------------------------------
# report and demo
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
            output,
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
    # every section, opened by the advice
    assert output.read_text(encoding="utf-8").count("<section") == len(SECTIONS) + 1


def test_report_unwritable_output_is_one_line_exit_1(irt_data, tmp_path, capsys):
    code, _, err = run(
        [
            "report",
            irt_data[0],
            "-o",
            tmp_path / "no" / "such.html",
            "--n-resamples",
            "0",
            "--no-figures",
            "-q",
        ],
        capsys,
    )
    assert code == 1
    assert err.count("\n") == 1 and "cannot write" in err


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("demo")
    path = directory / "atari.html"
    out = io.StringIO()
    code = main(
        [
            "demo",
            "-o",
            str(path),
            "--n-resamples",
            "10",
            "-q",
            "--csv",
            str(directory / "demo.csv"),
        ],
        out=out,
    )
    return code, out.getvalue(), path, directory


def test_demo_summarises_builtin_data(demo_run):
    code, text, _, directory = demo_run
    assert code == 0
    assert "atari_noop_matrix" in text and "32x57" in text
    assert "vicuna80" in text and "MIT" in text
    assert "Agents as the report ranks them (IRT ability)" in text
    assert "... 19 more rows (--top 0 shows all)" in text  # --top 10 by default
    header, agents = read_table(directory / "demo.csv")
    # the human and random reference rows are not ranked
    assert header == ["#", "agent", "IRT ability", "mean rank"] and len(agents) == 29
    # the terminal names the agents in the report's order (highest ability first)
    abilities = [float(row[2]) for row in agents]
    assert abilities == sorted(abilities, reverse=True)
    best = text.split("Highest IRT abilities: ")[1].split(",")[:2]
    assert [name.split(" (")[0].strip() for name in best] == [
        agents[0][1], agents[1][1]
    ]
    assert not {"human@dqn", "human@dudqn", "random@dqn"} & {row[1] for row in agents}
    assert "human@dqn, human@dudqn, random@dqn" in text
    _, datasets = read_table(directory / "demo_datasets.csv")
    assert [row[0] for row in datasets][:2] == ["atari_noop_matrix", "atari_long"]


def test_demo_writes_the_atari_report(demo_run):
    code, text, path, _ = demo_run
    assert code == 0
    assert f"report written to {path}" in text
    page = path.read_text(encoding="utf-8")
    for key, title in SECTIONS.items():
        start = page.index(f'<section id="{key}"><h2>{title}</h2>')
        section = page[start : page.index("</section>", start)]
        assert "<table " in section and "<td" in section, key
        assert '<img alt="' in section and "data:image/png;base64," in section, key
    # the reference agents are shown apart: no human tops a ranking
    core_line = next(line for line in text.splitlines() if "Nash core agents" in line)
    ability_line = next(line for line in text.splitlines() if "IRT abilities" in line)
    assert "human@" not in core_line and "human@" not in ability_line
    assert 'data-table="reference"' in page
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


@pytest.mark.parametrize("argv, make", [
    (["--model", "1PL"], lambda: IRT2PL(model="1PL", a_prior=(1.0, 2.0),
                                        b_prior=(0.0, 2.0))),
    (["--model", "3PL"], lambda: IRT(model="3PL", discrimination_prior=(1.0, 2.0))),
    (["--model", "3PL", "--no-prior"], lambda: IRT(model="3PL")),
    (["--model", "3PL", "--n-options", "4"],
     lambda: IRT(model="3PL", n_options=4, discrimination_prior=(1.0, 2.0))),
    (["--model", "4PL", "--n-options", "4"],
     lambda: IRT(model="4PL", n_options=4, discrimination_prior=(1.0, 2.0))),
    (["--model", "4PL", "--no-prior"], lambda: IRT(model="4PL")),
])
def test_irt_model_option_equals_the_estimator(irt_data, tmp_path, capsys, argv,
                                               make):
    wide, _, X, _ = irt_data
    text, table, model = run_irt_and_fit(wide, tmp_path, capsys, argv, make, X)
    assert f"IRT {model.model}: log-likelihood {model.log_likelihood_:.2f}" in text
    header, rows = read_table(table)
    extra = {"1PL": [], "3PL": ["guessing"], "4PL": ["guessing", "upper"]}
    assert header == ["task", "difficulty", "discrimination",
                      *extra[model.model], "success rate"]
    got = {row[0]: [float(v) for v in row[1:-1]] for row in rows}
    for j in range(X.shape[1]):
        expected = [model.difficulty_[j], model.discrimination_[j]] + [
            getattr(model, name + "_")[j] for name in extra[model.model]]
        np.testing.assert_allclose(got[f"task{j}"], expected, rtol=1e-9)
    agents_header, agents = read_table(tmp_path / "irt_agents.csv")
    ability = {row[0]: float(row[1]) for row in agents}
    np.testing.assert_allclose([ability[f"agent{i}"] for i in range(X.shape[0])],
                               model.abilities_, rtol=1e-9, atol=1e-12)


def test_irt_n_options_needs_a_guessing_model(irt_data, capsys):
    wide, _, _, _ = irt_data
    code, _, err = run(["irt", wide, "--n-options", "4", "-q"], capsys)
    assert code != 0
    assert "--n-options applies to --model 3PL or 4PL" in err
