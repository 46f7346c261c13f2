"""A visible note when, and only when, a ranking or an equilibrium is degenerate.

The conditions are checked on the data here (min-max scaled block, identical
rows, identical columns), independently of the report's own checks, over
random matrices made degenerate or not.
"""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sklearn_eval.report import (
    analyze_benchmark,
    analyze_matches,
    prepare_benchmark,
    prepare_matches,
    render_report,
)
from tests.report.pages import parse_sections


def _scaled(X):
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return np.where(high > low, (X - low) / span, 0.0)


def _notes(page):
    """{key: section id} of the degenerate notes of a page."""
    found = {}
    for chunk in page.split('data-degenerate="')[1:]:
        key = chunk[: chunk.index('"')]
        start = page.index(f'data-degenerate="{key}"')
        section = page.rfind('<section id="', 0, start) + len('<section id="')
        found[key] = page[section : page.index('"', section)]
    return found


def _expected(X, analysis):
    """The degenerate findings a benchmark should be noted for, from the data."""
    expected = {}
    scaled = _scaled(X)
    means = scaled.mean(axis=1)
    if np.sum(np.abs(means - means.max()) <= 1e-9) >= 2:
        expected["tie-uniform"] = "ranking"
    if np.all(np.abs(scaled - scaled[:, :1]) <= 1e-9):
        expected["tasks-equal"] = "nash"
    support = analysis.nash.core_agents
    rows = scaled[support]
    same = np.all(np.abs(rows[:, None, :] - rows[None, :, :]) <= 1e-9, axis=2)
    if (same.sum(axis=1) >= 2).any():
        expected["support-copies"] = "nash"
    ability = analysis.irt.ability
    if np.sum(ability >= ability.max() - 1e-6) >= 2:
        expected["tie-irt"] = "ranking"
    return expected


@settings(max_examples=25, deadline=None)
@example(  # an item of negative discrimination: the perfect agents are not first
    seed=1, n_agents=5, n_tasks=3, copy_best=False, tasks_equal=False, n_perfect=2
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_agents=st.integers(4, 7),
    n_tasks=st.integers(3, 5),
    copy_best=st.booleans(),
    tasks_equal=st.booleans(),
    n_perfect=st.sampled_from([0, 1, 2, 4]),
)
def test_benchmark_notes_match_the_degenerate_conditions(
    seed, n_agents, n_tasks, copy_best, tasks_equal, n_perfect
):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, (n_agents, n_tasks))
    if tasks_equal:
        X = np.repeat(X[:, :1], n_tasks, axis=1)
    if copy_best:
        best = np.argmax(_scaled(X).mean(axis=1))
        X = np.vstack([X, X[best]])
    if n_perfect:
        X = np.vstack([X, np.full((n_perfect, n_tasks), 2.0)])
    analysis = analyze_benchmark(
        prepare_benchmark(X, threshold="median"), n_tasks=2, n_resamples=0
    )
    page = render_report(analysis, figures=False)
    expected = _expected(X, analysis)
    assert _notes(page) == expected
    # a summary line under the title exactly when something is noted
    assert ("Degenerate data:" in page) == bool(expected)
    # the constructions that must be flagged are
    if tasks_equal:
        assert "tasks-equal" in expected
    if n_perfect >= 2:
        assert {"tie-uniform", "support-copies"} <= set(expected)
        # all-success agents top the IRT ranking when every item discriminates
        # positively; an item with a < 0 can put a less successful agent first
        a = analysis.irt.discrimination
        if np.all(a[np.isfinite(a)] > 0):
            assert "tie-irt" in expected
    if copy_best and not tasks_equal and not n_perfect:
        assert "tie-uniform" in expected


def test_generic_scores_have_no_note():
    # enough tasks that no two agents share their successes
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 20))
    analysis = analyze_benchmark(
        prepare_benchmark(X, threshold="median"), n_tasks=2, n_resamples=0
    )
    page = render_report(analysis, figures=False)
    assert 'class="degenerate"' not in page and "Degenerate" not in page
    # with few tasks, two agents can solve the same ones: a real tie, noted
    X = np.random.default_rng(0).normal(size=(12, 6))
    responses = (X >= np.median(X, axis=0)).astype(float)
    analysis = analyze_benchmark(
        prepare_benchmark(X, threshold="median"), n_tasks=2, n_resamples=0
    )
    best = np.argsort(-analysis.irt.ability, kind="stable")[:2]
    np.testing.assert_array_equal(responses[best[0]], responses[best[1]])
    assert 'data-degenerate="tie-irt"' in render_report(analysis, figures=False)


def test_four_perfect_agents_on_equal_tasks_are_flagged_in_their_sections():
    levels = np.r_[np.ones(4), np.linspace(0.1, 0.9, 6)]
    X = np.tile(levels[:, None], (1, 8))
    analysis = analyze_benchmark(
        prepare_benchmark(X, threshold=0.5), n_tasks=3, n_resamples=0
    )
    page = render_report(analysis, figures=False)
    sections = parse_sections(page)
    assert (
        "4 agents tie at the top of the uniform average" in sections["ranking"]["text"]
    )
    assert "All 8 tasks of the complete block" in sections["nash"]["text"]
    assert "splits its mass over 4 agents" in sections["nash"]["text"]
    assert "Degenerate data:" in page


def _matches(strengths, n_rounds, rng):
    n = len(strengths)
    pairs = np.array([(i, j) for i in range(n) for j in range(n) if i != j])
    pairs = np.repeat(pairs, n_rounds, axis=0)
    p = 1 / (1 + np.exp(strengths[pairs[:, 1]] - strengths[pairs[:, 0]]))
    y = (rng.uniform(size=len(pairs)) < p).astype(float)
    names = np.array([f"p{k}" for k in range(n)], dtype=object)
    return names[pairs], y


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_players=st.integers(3, 6))
def test_match_notes_match_the_degenerate_conditions(seed, n_players):
    rng = np.random.default_rng(seed)
    X, y = _matches(rng.normal(size=n_players) * 2, 6, rng)
    analysis = analyze_matches(prepare_matches(X, y), n_resamples=0)
    page = render_report(analysis, figures=False)
    ratings = analysis.ratings.ratings
    expected = {}
    if np.sum(ratings >= ratings.max() - 1e-6 * 400 / np.log(10)) >= 2:
        expected["tie-ratings"] = "ratings"
    A = analysis.nash.model.payoff_
    core = analysis.nash.core
    rows = A[core]
    same = np.all(np.abs(rows[:, None] - rows[None]) <= 1e-9 * np.abs(A).max(), axis=2)
    if (same.sum(axis=1) >= 2).any():
        expected["support-copies"] = "nash"
    assert _notes(page) == expected


def test_all_draws_are_flagged_and_the_report_still_completes(tmp_path):
    from sklearn_eval.report import write_report

    X = np.array([["a", "b"], ["b", "c"], ["c", "a"], ["a", "d"], ["d", "b"]] * 4)
    analysis = analyze_matches(prepare_matches(X, np.full(len(X), 0.5)))
    result = write_report(analysis, tmp_path / "draws.html")
    page = (tmp_path / "draws.html").read_text(encoding="utf-8")
    assert result.ok  # degenerate, not broken
    assert _notes(page) == {"tie-ratings": "ratings", "players-equal": "nash"}
    assert "4 agents tie at the top" in page
