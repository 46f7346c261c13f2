"""A failing analysis, section or figure becomes an error box; the rest is written.

Each analysis of the report, each section and each figure runs on its own.
Whatever fails (a solver on degenerate real data, a benchmark without a
complete block, a Display bug) becomes a visible error box with a one-line
reason in its section, every other section is written, and the result of
:func:`write_report` says what failed (``ok``, ``failures``), which the
command line turns into its exit status.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from sklearn_eval import plotting
from sklearn_eval.datasets import make_agent_task_scores
from sklearn_eval.report import (
    SECTIONS,
    ReportResult,
    SectionFailure,
    _analysis,
    _sections,
    analyze_benchmark,
    prepare_benchmark,
    read_result_matrix,
    write_report,
)
from tests.report.pages import parse_sections

BOOM = "boom <b>&</b>"

# sections that lose their body when an analysis fails ("section" boxes), and
# sections that show the failure in a box beside the rest of their content
LOST = {
    "block": {"rank_sets", "nash", "hodge", "subset"},
    "nash": {"nash"},
    "hodge": {"hodge"},
    "irt": {"ranking", "tasks", "generality"},
    "generality": {"generality"},
    "selection": {"subset"},
    "intervals.uniform": set(),
    "intervals.nash": set(),
    "intervals.ability": set(),
}
BOXED = {
    "block": {"summary"},
    "intervals.uniform": {"ranking"},
    "intervals.nash": {"ranking"},
    "intervals.ability": {"ranking"},
}


def _raise(*args, **kwargs):
    raise RuntimeError(BOOM)


@pytest.fixture(scope="module")
def benchmark():
    scores = make_agent_task_scores(14, 9, noise=0.8, random_state=3)
    scores[1, 2] = np.nan
    return prepare_benchmark(scores, threshold=0.5, name="small")


def _write(analysis, tmp_path, **kwargs):
    messages = []
    result = write_report(
        analysis, tmp_path / "r.html", progress=messages.append, **kwargs
    )
    page = open(result, encoding="utf-8").read()
    return page, result, messages


@pytest.mark.parametrize("step", sorted(LOST))
def test_a_failing_analysis_is_boxed_and_the_rest_is_written(
    step, benchmark, tmp_path, monkeypatch
):
    if step.startswith("intervals."):
        monkeypatch.setitem(_analysis._INTERVALS, step.split(".")[1], _raise)
    else:
        name = "_complete_block" if step == "block" else f"_{step}"
        monkeypatch.setattr(_analysis, name, _raise)
    analysis = analyze_benchmark(benchmark, n_tasks=3, n_resamples=3)
    assert analysis.failures[step] == f"RuntimeError: {BOOM}"
    assert "RuntimeError" in analysis.tracebacks[step]
    # analyses needing the failed one say so; all the others ran
    for other, reason in analysis.failures.items():
        if other != step:
            assert reason.startswith("not run: the "), (other, reason)
    # figures off to keep this fast: failing figures have their own tests
    page, result, _ = _write(analysis, tmp_path, figures=False)
    sections = parse_sections(page)
    assert list(sections) == list(SECTIONS)
    lost = {f.section for f in result.failures if f.part == "section"}
    boxed = {f.section for f in result.failures if f.part != "section"}
    assert lost == LOST[step] and boxed == BOXED.get(step, set())
    assert not result.ok and set(result.failed_sections) == lost | boxed
    for key, section in sections.items():
        assert section["h2"] == SECTIONS[key]
        if key in lost:
            assert section["tables"] == 0 and "not drawn" not in section["text"]
            assert len(section["errors"]) == 1
        else:
            assert section["tables"] >= 1 and "not drawn" in section["text"], key
        for box in section["errors"]:
            assert BOOM in box["text"]  # the reason, shown literally
    assert "boom <b>" not in page  # ... and escaped
    assert plt.get_fignums() == []


def test_every_failure_has_its_box_and_its_traceback(benchmark, tmp_path, monkeypatch):
    monkeypatch.setattr(_analysis, "_hodge", _raise)
    analysis = analyze_benchmark(benchmark, n_tasks=3, n_resamples=0)
    page, result, messages = _write(analysis, tmp_path, figures=False)
    (failure,) = result.failures
    assert failure == SectionFailure(
        "hodge", "section", f"The Hodge decomposition failed: RuntimeError: {BOOM}"
    )
    assert "Traceback" in failure.detail and "RuntimeError" in failure.detail
    assert any("section 'hodge' failed" in m for m in messages)
    sections = parse_sections(page)
    assert sections["hodge"]["errors"][0]["part"] == "section"
    # the page says at the top which sections failed
    top = page.split("<nav>")[0]
    assert 'href="#hodge"' in top and "1 part(s)" in top


@pytest.mark.parametrize(
    ("display", "figure", "section"),
    [
        ("NashDisplay", "nash_distributions", "nash"),
        ("MissingResultsDisplay", "missing", "summary"),
    ],
)
def test_a_failing_figure_is_boxed_in_place(
    display, figure, section, benchmark, tmp_path, monkeypatch
):
    monkeypatch.setattr(getattr(plotting, display), "plot", _raise)
    analysis = analyze_benchmark(benchmark, n_tasks=3, n_resamples=0)
    page, result, messages = _write(analysis, tmp_path)
    failures = {(f.section, f.part) for f in result.failures}
    assert (section, f"figure '{figure}'") in failures
    assert {s for s, _ in failures} == {section}
    sections = parse_sections(page)
    assert sections[section]["tables"] >= 1  # the section itself is written
    assert any(f"figure {figure!r} failed" in m for m in messages)
    assert plt.get_fignums() == []  # the broken figure was closed


def test_a_failing_section_is_boxed(benchmark, tmp_path, monkeypatch):
    monkeypatch.setitem(_sections.SECTION_RENDERERS, "summary", _raise)
    analysis = analyze_benchmark(benchmark, n_tasks=3, n_resamples=0)
    page, result, _ = _write(analysis, tmp_path, figures=False)
    assert [(f.section, f.part) for f in result.failures] == [("summary", "section")]
    assert result.failures[0].reason == f"RuntimeError: {BOOM}"
    assert parse_sections(page)["ranking"]["tables"] == 1


def test_a_benchmark_without_complete_block_gets_irt_and_generality(tmp_path):
    # each agent sees two neighbouring tasks: no two agents share two tasks
    n = 12
    rng = np.random.default_rng(0)
    scores = np.full((n, n), np.nan)
    for i in range(n):
        scores[i, [i, (i + 1) % n]] = rng.uniform(size=2)
    bench = prepare_benchmark(scores, threshold=0.5)
    analysis = analyze_benchmark(bench, n_tasks=3, n_resamples=0)
    assert analysis.block is None and "no complete block" in analysis.failures["block"]
    assert analysis.irt is not None
    page, result, _ = _write(analysis, tmp_path)
    sections = parse_sections(page)
    assert "none" in sections["summary"]["cells"]
    assert "no complete block" in sections["summary"]["errors"][0]["text"]
    assert set(result.failed_sections) == {
        "summary", "rank_sets", "nash", "hodge", "subset"
    }
    assert sections["ranking"]["tables"] == 1 and sections["generality"]["images"]


def test_report_result_reads_like_the_path(tmp_path):
    result = ReportResult(str(tmp_path / "x.html"), ())
    assert result.ok and str(result) == result.path
    failed = ReportResult("x", (SectionFailure("nash", "section", "r"),))
    assert not failed.ok and failed.failed_sections == ("nash",)


# ---------------------------------------------------------------------------
# real data: the ICAR items (psychTools), where the Nash steps fail today
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def icar(shared_dir):
    path = shared_dir / "data" / "irt" / "icar_ability_200x16_complete.csv"
    if not path.exists():
        pytest.skip("the ICAR file is not in the shared data")
    return pd.read_csv(path, index_col=0)


def _report_from_long_csv(frame, path, tmp_path, figures):
    long = frame.rename_axis("agent").reset_index()
    long = long.melt(id_vars="agent", var_name="task", value_name="score")
    long.to_csv(path, index=False)
    table = read_result_matrix(path)
    bench = prepare_benchmark(
        table.values, agents=table.agents, tasks=table.tasks, name="ICAR"
    )
    analysis = analyze_benchmark(bench, n_tasks=4, n_resamples=3, random_state=0)
    return analysis, _write(analysis, tmp_path, figures=figures)


@pytest.mark.parametrize(("rows", "figures"), [(100, True), (200, False)])
def test_icar_long_table_report_is_written(rows, figures, icar, tmp_path):
    analysis, (page, result, _) = _report_from_long_csv(
        icar.iloc[:rows], tmp_path / "icar.csv", tmp_path, figures
    )
    sections = parse_sections(page)
    assert list(sections) == list(SECTIONS)
    assert sections["ranking"]["tables"] == 1
    assert bool(sections["tasks"]["images"]) == figures
    _assert_failures_are_boxed(analysis, result)


def test_icar_with_missing_results_report_is_written(icar, tmp_path):
    rng = np.random.default_rng(0)
    values = icar.to_numpy(dtype=float)
    values[rng.uniform(size=values.shape) < 0.1] = np.nan
    frame = pd.DataFrame(values, index=icar.index, columns=icar.columns)
    analysis, (page, result, _) = _report_from_long_csv(
        frame, tmp_path / "icar_nan.csv", tmp_path, figures=False
    )
    assert analysis.summary.n_missing == int(np.isnan(values).sum())
    assert list(parse_sections(page)) == list(SECTIONS)
    _assert_failures_are_boxed(analysis, result)


def _assert_failures_are_boxed(analysis, result):
    """Each failed analysis shows in a box; no box without a failed analysis."""
    shown = " ".join(f.reason for f in result.failures)
    for step, reason in analysis.failures.items():
        if not reason.startswith("not run"):
            assert reason in shown, step
    assert result.ok == (not analysis.failures)
    assert all(f.part != "section" or "failed" in f.reason for f in result.failures)
