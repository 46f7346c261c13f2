"""Tests of the benchmark report: readers, analyses, HTML and a real browser."""

import base64
import html.parser
import os
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.cli._demo import atari_benchmark
from sklearn_eval.datasets import make_agent_task_scores
from sklearn_eval.game import NashAverager
from sklearn_eval.report import (
    SECTIONS,
    CSVError,
    analyze_benchmark,
    prepare_benchmark,
    read_csv,
    read_matches,
    read_result_matrix,
    render_report,
    write_report,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------
# A small HTML parser: per section, its heading, tables and images
# ---------------------------------------------------------------------------
class _Sections(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections = {}
        self._current = None
        self._in_h2 = False
        self._in_cell = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._current = attrs["id"]
            self.sections[self._current] = {
                "h2": "",
                "tables": 0,
                "images": [],
                "rows": 0,
                "cells": [],
            }
        elif self._current is None:
            return
        elif tag == "h2":
            self._in_h2 = True
        elif tag == "table":
            self.sections[self._current]["tables"] += 1
        elif tag == "tr":
            self.sections[self._current]["rows"] += 1
        elif tag == "td":
            self._in_cell = True
        elif tag == "img":
            self.sections[self._current]["images"].append(attrs.get("src", ""))

    def handle_endtag(self, tag):
        if tag == "section":
            self._current = None
        elif tag == "h2":
            self._in_h2 = False
        elif tag == "td":
            self._in_cell = False

    def handle_data(self, data):
        if self._current is None:
            return
        if self._in_h2:
            self.sections[self._current]["h2"] += data
        if self._in_cell:
            self.sections[self._current]["cells"].append(data)


def parse_sections(page):
    parser = _Sections()
    parser.feed(page)
    return parser.sections


def decode_png(src):
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix)
    return base64.b64decode(src[len(prefix) :])


# ---------------------------------------------------------------------------
# Fixtures: the Atari analysis (built-in data) and a synthetic one
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def atari():
    return analyze_benchmark(atari_benchmark(), n_resamples=10, random_state=0)


@pytest.fixture(scope="module")
def atari_rendering(atari):
    pytest.importorskip("matplotlib")
    messages = []
    return render_report(atari, progress=messages.append), messages


@pytest.fixture(scope="module")
def atari_page(atari_rendering):
    return atari_rendering[0]


@pytest.fixture(scope="module")
def synthetic():
    scores, params = make_agent_task_scores(
        25, 16, noise=0.8, random_state=0, return_params=True
    )
    bench = prepare_benchmark(scores, threshold=0.5, name="synthetic")
    return analyze_benchmark(bench, n_tasks=5, n_resamples=8, random_state=0), params


# ---------------------------------------------------------------------------
# The report on Atari: every section with heading, table and figure
# ---------------------------------------------------------------------------
def test_atari_report_has_every_section_with_table_and_figure(atari_page):
    sections = parse_sections(atari_page)
    assert list(sections) == list(SECTIONS)
    for key, title in SECTIONS.items():
        section = sections[key]
        assert section["h2"] == title
        assert section["tables"] >= 1, key
        assert section["rows"] >= 3, key
        assert section["images"], key
        for src in section["images"]:
            png = decode_png(src)
            assert png.startswith(PNG_MAGIC)
            assert len(png) > 5000  # a drawn figure, not an empty canvas


def test_atari_figures_are_drawn_by_the_displays(atari_rendering):
    _, messages = atari_rendering
    assert sum(message.startswith("figure: ") for message in messages) == 9
    assert not [m for m in messages if "Display failed" in m or "unavailable" in m]


def test_atari_report_is_self_contained(atari_page):
    assert atari_page.startswith("<!DOCTYPE html>")
    assert "http://" not in atari_page and "https://" not in atari_page
    assert 'src="data:image/png;base64,' in atari_page
    assert "<link" not in atari_page


def test_atari_report_content(atari, atari_page):
    sections = parse_sections(atari_page)
    summary = " ".join(sections["summary"]["cells"])
    assert "32" in summary and "57" in summary and "75 (4.1%)" in summary
    assert "31 x 46" in summary
    assert "success = baseline-normalised score >= 100" in summary
    ranking = sections["ranking"]["cells"]
    # one row per agent, led by the most able one
    assert ranking[0] == atari.benchmark.agents[np.argmax(atari.irt.ability)]
    assert sum(cell in set(atari.benchmark.agents) for cell in ranking) == 32
    tasks = sections["tasks"]["cells"]
    assert sum(cell in set(atari.benchmark.tasks) for cell in tasks) == 57
    subset = sections["subset"]["cells"]
    chosen = atari.block.tasks[atari.selection.order]
    assert all(task in subset for task in chosen)


def test_atari_analysis_reference_checks(atari):
    s = atari.summary
    assert (s.n_agents, s.n_tasks, s.n_missing) == (32, 57, 75)
    assert (s.complete_agents, s.complete_tasks) == (31, 46)
    nash = atari.nash
    # the checks the Nash spec gives for the Atari experiment (section 5.1)
    assert nash.agent_probability.sum() == pytest.approx(1.0)
    assert nash.task_probability.sum() == pytest.approx(1.0)
    assert np.all(nash.agent_nash <= nash.value + 1e-9)
    assert np.all(nash.task_nash <= -nash.value + 1e-9)
    assert np.allclose(nash.agent_nash[nash.core_agents], nash.value, atol=1e-7)
    assert nash.exploitability < 1e-7
    # human ties with the best agents: it is in the Nash core (paper's conclusion)
    core = set(atari.block.agents[nash.core_agents])
    assert any(agent.startswith("human@") for agent in core)
    # the game value is close to the paper's 0.354 on its 20 x 54 matrix
    assert 0.3 < nash.value < 0.4
    # the uniform average favours Ape-X (largest mean min-max score), Nash does not
    uniform_top = atari.block.agents[np.argmax(nash.agent_uniform)]
    assert uniform_top == "ape_x_dqn@ape_x_dqn"
    irt = atari.irt
    agents = list(atari.benchmark.agents)
    assert irt.ability[agents.index("random@dqn")] == irt.ability.min()
    # human@dudqn beats the dqn_zoo human reference on every game it reports
    human = agents.index("human@dudqn")
    assert np.nanmean(atari.benchmark.responses[human]) > 0.9
    assert irt.ability[human] == irt.ability.max()
    h = atari.hodge
    assert h.transitive + h.cyclic == pytest.approx(1.0)
    assert 0.5 < h.transitive < 1.0
    sel = atari.selection
    assert len(sel.order) == 10 and len(set(sel.order)) == 10
    assert np.all(np.diff(sel.cumulative_gain) >= -1e-9)
    assert sel.cumulative_gain[-1] <= np.log2(31) + 1e-9
    assert sel.agreement.kendall_tau > 0.6


def test_atari_bootstrap_intervals(atari):
    for key, estimate in (
        ("uniform", atari.nash.agent_uniform),
        ("nash", atari.nash.agent_nash),
        ("ability", atari.irt.ability),
    ):
        result = atari.intervals[key]
        assert result.samples.shape[0] == 10
        assert np.allclose(result.estimate, estimate)
        assert np.all(result.low <= result.high)


# ---------------------------------------------------------------------------
# Properties of the analyses
# ---------------------------------------------------------------------------
def test_synthetic_analysis_recovers_the_truth(synthetic):
    analysis, params = synthetic
    ability = analysis.irt.ability
    assert np.corrcoef(ability, params["ability"])[0, 1] > 0.9
    difficulty = analysis.irt.difficulty
    finite = np.isfinite(difficulty)
    assert np.corrcoef(difficulty[finite], params["difficulty"][finite])[0, 1] > 0.8
    assert analysis.summary.missing_share == 0.0
    assert analysis.block.scaled.shape == (25, 16)
    assert analysis.intervals.uniform.samples.shape == (8, 25)


def test_duplicating_a_task_keeps_nash_averages(synthetic):
    analysis, _ = synthetic
    scores = analysis.benchmark.scores
    doubled = np.column_stack([scores, scores[:, [3, 3, 3]]])
    copy = analyze_benchmark(
        prepare_benchmark(doubled, threshold=0.5), n_tasks=5, n_resamples=0
    )
    assert np.allclose(copy.nash.agent_nash, analysis.nash.agent_nash, atol=1e-6)
    assert np.allclose(
        copy.nash.agent_probability, analysis.nash.agent_probability, atol=1e-6
    )
    # whereas the uniform average moves towards task 3
    assert not np.allclose(copy.nash.agent_uniform, analysis.nash.agent_uniform)


def test_nash_section_equals_the_estimator(synthetic):
    analysis, _ = synthetic
    scores = analysis.benchmark.scores
    model = NashAverager(normalize="minmax").fit(scores)
    assert np.allclose(analysis.nash.agent_nash, model.agent_skill_, atol=1e-9)
    assert analysis.nash.value == pytest.approx(model.value_)


def test_hodge_of_an_additive_benchmark_is_transitive():
    # S = skill_i - difficulty_j exactly: no residual, no cycle
    rng = np.random.default_rng(0)
    skill, difficulty = rng.normal(size=8), rng.normal(size=6)
    scores = skill[:, None] - difficulty[None, :]
    analysis = analyze_benchmark(prepare_benchmark(scores), n_tasks=2, n_resamples=0)
    assert analysis.hodge.transitive == pytest.approx(1.0)
    assert np.allclose(analysis.hodge.agent_residual, 0.0, atol=1e-12)
    # Hodge skills order the agents as the true skills
    assert np.array_equal(np.argsort(analysis.hodge.agent_skill), np.argsort(skill))


def test_hodge_plane_shares_equal_the_schur_planes_of_the_flow(synthetic):
    from sklearn_eval.game import schur_embedding

    analysis, _ = synthetic
    h = analysis.hodge
    schur = schur_embedding(h.flow, n_components=2)
    expected = 2 * schur.eigenvalues**2 / np.sum(h.flow**2)
    assert np.allclose(h.plane_shares, expected, atol=1e-10)
    assert h.plane_shares.sum() <= h.cyclic + 1e-12


def test_progress_lines_go_to_the_given_stream(synthetic):
    import io

    analysis, _ = synthetic
    stream = io.StringIO()
    analyze_benchmark(analysis.benchmark, n_tasks=2, n_resamples=0, progress=stream)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 6 and all(line.startswith("[sklearn-eval") for line in lines)


def test_report_without_figures_has_notes_instead(synthetic, tmp_path):
    analysis, _ = synthetic
    path = write_report(analysis, tmp_path / "r.html", figures=False)
    page = open(path, encoding="utf-8").read()
    sections = parse_sections(page)
    assert all(not section["images"] for section in sections.values())
    assert "matplotlib is not installed" in page
    assert os.path.isabs(path)


def test_report_without_matplotlib(synthetic, monkeypatch):
    import sklearn_eval.report._html as report_html

    analysis, _ = synthetic
    messages = []
    monkeypatch.setattr(report_html, "import_pyplot", lambda: None)
    page = render_report(analysis, progress=messages.append)
    assert "<img" not in page and page.count("matplotlib is not installed") == 9
    assert messages == ["matplotlib is not installed: the report has no figures"]


def test_labels_are_escaped(tmp_path):
    scores = np.arange(12, dtype=float).reshape(4, 3) % 5
    bench = prepare_benchmark(
        scores, agents=["<b>a</b>", "b&c", "c", "d"], name="<script>alert(1)</script>"
    )
    page = render_report(
        analyze_benchmark(bench, n_tasks=2, n_resamples=0), figures=False
    )
    assert "<b>a</b>" not in page and "&lt;b&gt;a&lt;/b&gt;" in page
    assert "<script>alert" not in page


# ---------------------------------------------------------------------------
# prepare_benchmark
# ---------------------------------------------------------------------------
def test_prepare_benchmark_success_rules():
    scores = np.array([[0.0, 10.0], [5.0, 20.0], [10.0, np.nan], [2.0, 30.0]])
    median = prepare_benchmark(scores)  # medians 3.5 and 20 (NaN skipped)
    assert np.array_equal(
        median.responses, [[0, 0], [1, 1], [1, np.nan], [0, 1]], equal_nan=True
    )
    assert "median" in median.response_rule
    fixed = prepare_benchmark(scores, threshold=5.0)
    assert fixed.responses[:, 0].tolist() == [0.0, 1.0, 1.0, 0.0]
    baseline = prepare_benchmark(
        scores, low=[0.0, 10.0], high=[10.0, 30.0], threshold=50.0
    )
    assert baseline.normalized[:, 0].tolist() == [0.0, 50.0, 100.0, 20.0]
    assert baseline.responses[:, 1].tolist()[:2] == [0.0, 1.0]
    binary = prepare_benchmark(np.array([[0, 1], [1, 1], [0, 0.0]]))
    assert "already successes" in binary.response_rule


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": np.ones((2, 3))}, "at least 3 agents"),
        ({"scores": np.ones((3, 1))}, "at least 2 tasks"),
        ({"scores": [[1, np.inf], [1, 2], [2, 2]]}, "infinite value at row 0"),
        ({"scores": np.ones((3, 2)), "low": 0.0}, "both low and high"),
        ({"scores": np.ones((3, 2)), "threshold": "mean"}, "'median'"),
        ({"scores": np.ones((3, 2)), "stds": np.ones((2, 2))}, "shape of the scores"),
        ({"scores": np.ones((3, 2)), "agents": ["a"]}, "expected 3 agent labels"),
    ],
)
def test_prepare_benchmark_errors(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        prepare_benchmark(**kwargs)


def test_agents_and_tasks_without_results_are_left_out():
    rng = np.random.default_rng(0)
    scores = rng.uniform(size=(6, 5))
    scores[2] = np.nan
    scores[:, 4] = np.nan
    bench = prepare_benchmark(scores, threshold=0.5)
    assert bench.scores.shape == bench.responses.shape == (5, 4)
    assert bench.dropped_agents.tolist() == ["agent2"]
    assert bench.dropped_tasks.tolist() == ["task4"]
    page = render_report(
        analyze_benchmark(bench, n_tasks=2, n_resamples=0), figures=False
    )
    assert "agents without any result (left out)" in page and "agent2" in page
    with pytest.raises(ValueError, match="at least 2 tasks with a result"):
        prepare_benchmark(np.column_stack([scores[:, 0], np.full(6, np.nan)]))


def test_no_complete_block_is_an_error():
    scores = np.array(
        [[1.0, np.nan, np.nan], [np.nan, 1.0, np.nan], [np.nan, np.nan, 1.0]]
    )
    with pytest.raises(ValueError, match="no complete block"):
        analyze_benchmark(prepare_benchmark(scores), n_resamples=0)


# ---------------------------------------------------------------------------
# CSV readers
# ---------------------------------------------------------------------------
def test_read_csv_separator_blank_lines_and_gzip(tmp_path):
    import gzip

    path = tmp_path / "t.csv"
    path.write_text("agent;score\n\nA;1\nB;2\n")
    assert read_csv(path) == (["agent", "score"], [["A", "1"], ["B", "2"]])
    packed = tmp_path / "t.csv.gz"
    with gzip.open(packed, "wt") as handle:
        handle.write("agent\tscore\nA\t1\n")
    assert read_csv(packed) == (["agent", "score"], [["A", "1"]])


def test_read_long_means_and_spreads(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("agent,task,score\nB,t1,1\nB,t1,3\nA,t2,5\nA,t1,\nB,t2,NA\n")
    table = read_result_matrix(path)
    assert table.agents.tolist() == ["A", "B"] and table.tasks.tolist() == ["t1", "t2"]
    assert np.array_equal(table.values, [[np.nan, 5.0], [2.0, np.nan]], equal_nan=True)
    assert np.array_equal(table.stds, [[np.nan, 0.0], [1.0, np.nan]], equal_nan=True)
    assert table.counts.tolist() == [[0, 1], [2, 0]]


def test_read_wide_uses_the_agent_column_anywhere(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("t1,name,t2\n1,A,2\n3,B,\n")
    table = read_result_matrix(path, agent_col="name")
    assert table.agents.tolist() == ["A", "B"]
    assert table.tasks.tolist() == ["t1", "t2"]
    assert np.array_equal(table.values, [[1, 2], [3, np.nan]], equal_nan=True)
    assert table.stds is None


def test_read_wide_rejects_repeated_agents(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("agent,t1\nA,1\nA,2\n")
    with pytest.raises(CSVError, match="agent 'A' appears in more than one row"):
        read_result_matrix(path)


def test_read_matches_outcome_words(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(
        "first,second,outcome,w\na,b,W,1\nb,c,draw,2\nc,a,0-1,0\na,c,0.5,1.5\n"
    )
    table = read_matches(path, weight_col="w")
    assert table.X.tolist() == [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]]
    assert table.y.tolist() == [1.0, 0.5, 0.0, 0.5]
    assert table.sample_weight.tolist() == [1.0, 2.0, 0.0, 1.5]


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    data=st.data(),
)
def test_wide_csv_round_trip(shape, data, tmp_path_factory):
    n, m = shape
    values = np.array(
        data.draw(
            st.lists(
                st.one_of(st.none(), st.floats(-1e9, 1e9, allow_nan=False)),
                min_size=n * m,
                max_size=n * m,
            )
        ),
        dtype=object,
    ).reshape(n, m)
    values = np.where(values == None, np.nan, values).astype(float)  # noqa: E711
    if np.isnan(values).all():
        values[0, 0] = 1.0
    path = tmp_path_factory.mktemp("rt") / "w.csv"
    lines = ["agent," + ",".join(f"t{j}" for j in range(m))]
    for i in range(n):
        cells = ["" if np.isnan(v) else repr(float(v)) for v in values[i]]
        lines.append(f"a{i}," + ",".join(cells))
    path.write_text("\n".join(lines) + "\n")
    table = read_result_matrix(path)
    assert np.array_equal(table.values, values, equal_nan=True)
    assert table.agents.tolist() == [f"a{i}" for i in range(n)]


# ---------------------------------------------------------------------------
# The report in a real browser (headless Chromium; skipped without one)
# ---------------------------------------------------------------------------
def _find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_report_renders_in_headless_chromium(tmp_path, request):
    browser = _find_browser()
    if browser is None:
        pytest.skip("no Chromium/Chrome browser installed")
    atari_page = request.getfixturevalue("atari_page")
    path = tmp_path / "report.html"
    path.write_text(atari_page, encoding="utf-8")
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--virtual-time-budget=5000",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom",
        path.as_uri(),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    n_images = atari_page.count("<figure ")
    n_tables = atari_page.count("<table>")
    # the page's script ran after load: every embedded PNG decoded
    assert f'data-images-loaded="{n_images}"' in dom
    assert f'data-tables="{n_tables}"' in dom
    sections = parse_sections(dom)
    assert list(sections) == list(SECTIONS)
    # and a screenshot is not blank
    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [
            *command[:-2],
            f"--screenshot={shot}",
            "--window-size=1200,3000",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and shot.is_file()
    assert shot.read_bytes().startswith(PNG_MAGIC) and shot.stat().st_size > 20000


def test_error_lines_count_blank_lines_and_quoted_newlines(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('agent,task,score\n\n"multi\nline",t1,1\n   \nB,t1,oops\n')
    with pytest.raises(CSVError, match=r"line 6, column 'score': 'oops'"):
        read_result_matrix(path)
    path.write_text("agent,task,score\n\nA,t1,1\n   \nB,t1,oops\n")
    with pytest.raises(CSVError, match=r"line 5, column 'score': 'oops'"):
        read_result_matrix(path)
    path.write_text("agent,task,score\nA,t1,1\n   \nB,t1,2\n")
    assert read_result_matrix(path).agents.tolist() == ["A", "B"]


def test_many_outcome_tokens_and_bad_token_line(tmp_path):
    path = tmp_path / "m.csv"
    rows = [
        f"p{k},q{k},{['win', 'loss', 'draw', '1', '0', '0.5'][k % 6]}"
        for k in range(60)
    ]
    rows[41] = "p41,q41,maybe"
    path.write_text("first,second,outcome\n" + "\n".join(rows) + "\n")
    with pytest.raises(CSVError, match=r"line 43, column 'outcome': outcome 'maybe'"):
        read_matches(path)
    rows[41] = "p41,q41,1"
    path.write_text("first,second,outcome\n" + "\n".join(rows) + "\n")
    table = read_matches(path)
    expected = [[1.0, 0.0, 0.5, 1.0, 0.0, 0.5][k % 6] for k in range(60)]
    expected[41] = 1.0
    assert table.y.tolist() == expected


_CELL = st.one_of(
    st.sampled_from(["", "NA", "nan", " 1 ", "0.5", "x y", "-3e2", "win", "  "]),
    st.text(alphabet="abc019.;\t -", max_size=4),
)


@settings(max_examples=60, deadline=None)
@given(
    header=st.lists(
        st.sampled_from(["agent", "task", "score", "t1", "t2"]),
        min_size=2,
        max_size=4,
        unique=True,
    ),
    rows=st.lists(st.lists(_CELL, min_size=1, max_size=5), min_size=0, max_size=6),
    blank=st.booleans(),
    crlf=st.booleans(),
)
def test_fast_and_exact_readers_agree(header, rows, blank, crlf, tmp_path_factory):
    """The pandas fast path gives the same tables and errors as the csv module."""
    from sklearn_eval.report import _io

    lines = [",".join(header)] + [",".join(row) for row in rows]
    if blank:
        lines.insert(min(2, len(lines)), "")
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    path = tmp_path_factory.mktemp("fast") / "f.csv"
    path.write_bytes(text.encode())
    args = (str(path), "auto", "agent", "task", "score", ",")
    outcomes = []
    for fast in (True, False):
        try:
            table = _io._read_result_matrix(*args, fast=fast)
            outcomes.append(
                (
                    "ok",
                    table.values.tobytes(),
                    table.agents.tolist(),
                    table.tasks.tolist(),
                )
            )
        except _io.CSVError as exc:
            outcomes.append(("error", str(exc)))
    if outcomes[0][0] == "ok":
        assert outcomes[0] == outcomes[1]
    # the public reader falls back to the exact reader on any error
    try:
        table = read_result_matrix(path, sep=",")
        public = (
            "ok",
            table.values.tobytes(),
            table.agents.tolist(),
            table.tasks.tolist(),
        )
    except CSVError as exc:
        public = ("error", str(exc))
    assert public == outcomes[1]
