"""Agent, task and benchmark names reach the page escaped and the figures literally.

Names come from users' CSV files: ``<script>``, ``&`` or ``$x^$`` must be shown
as text in every section of the HTML (never interpreted as markup) and in
every figure (never parsed as matplotlib math text, which fails to draw).
"""

import numpy as np
import pytest

from sklearn_eval.datasets import make_agent_task_scores
from sklearn_eval.report import (
    SECTIONS,
    _analysis,
    analyze_benchmark,
    prepare_benchmark,
    render_report,
    write_report,
)
from tests.report.pages import parse_sections

HOSTILE = [
    "<b>bold</b>",
    "a&amp;b",
    "$x^$",
    "$\\foo$",
    "\"quoted\" 'x'",
    "<script>alert(1)</script>",
    "$$\\frac{1}{$",
    "50% & #1 ~ _x_ ^y^",
]


def _names(prefix, n):
    return [f"{HOSTILE[k % len(HOSTILE)]} {prefix}{k}" for k in range(n)]


@pytest.fixture(scope="module")
def hostile_benchmark():
    n_agents, n_tasks = 14, 10
    scores = make_agent_task_scores(n_agents, n_tasks, noise=0.8, random_state=5)
    scores[-1] = np.nan  # an agent without results: listed in the summary
    scores[:, -1] = np.nan  # and a task without results
    return prepare_benchmark(
        scores,
        agents=_names("agent", n_agents),
        tasks=_names("task", n_tasks),
        threshold=0.5,
        name="<script>alert('name')</script> $x^$",
    )


@pytest.fixture(scope="module")
def hostile_rendering(hostile_benchmark, tmp_path_factory):
    analysis = analyze_benchmark(hostile_benchmark, n_tasks=3, n_resamples=3)
    path = tmp_path_factory.mktemp("hostile") / "r.html"
    result = write_report(analysis, path)
    return analysis, path.read_text(encoding="utf-8"), result


def test_every_section_shows_names_as_text(hostile_benchmark, hostile_rendering):
    _, page, _ = hostile_rendering
    sections = parse_sections(page)
    every_name = [
        *hostile_benchmark.agents,
        *hostile_benchmark.tasks,
        *hostile_benchmark.dropped_agents,
        *hostile_benchmark.dropped_tasks,
    ]
    for key in SECTIONS:
        text = sections[key]["text"]
        # the parser unescapes entities: a name read back whole was escaped
        assert any(name in text for name in every_name), key
    for raw in ("<b>bold</b>", "<script>alert(", "a&amp;b "):
        assert raw not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "a&amp;amp;b" in page
    assert "&lt;script&gt;alert(&#x27;name&#x27;)&lt;/script&gt;" in page


def test_every_figure_draws_names_with_dollars(hostile_rendering):
    analysis, page, result = hostile_rendering
    assert not analysis.failures
    assert result.ok, result.failures
    sections = parse_sections(page)
    assert sum(len(section["images"]) for section in sections.values()) == 10


def test_failure_reasons_are_escaped(hostile_benchmark, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("<img src=x onerror=alert(1)> $x^$")

    monkeypatch.setattr(_analysis, "_selection", broken)
    analysis = analyze_benchmark(hostile_benchmark, n_tasks=3, n_resamples=0)
    page = render_report(analysis, figures=False)
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt; $x^$" in page
    box = parse_sections(page)["subset"]["errors"][0]
    assert "<img src=x onerror=alert(1)> $x^$" in box["text"]
