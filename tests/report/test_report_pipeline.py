"""One pipeline writes both reports: registered sections with typed inputs.

User guide: "The HTML report" (its sections and how one is added). A
section is one registration; its typed input is built from the analysis
before it renders; a section shown only for some analyses leaves the other
pages unchanged; each rating model of the match report is fitted once per
set of parameters on the matches.
"""

from collections import Counter
from dataclasses import FrozenInstanceError, dataclass

import numpy as np
import pytest

from sklearn_eval.datasets import make_matches
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.report import (
    MATCH_SECTIONS,
    SECTIONS,
    analyze_matches,
    prepare_matches,
    render_report,
)
from sklearn_eval.report._pipeline import page_sections, register_section
from sklearn_eval.report._rank_set_section import (
    register_section as old_register_section,
)

from .pages import parse_sections


@pytest.fixture(scope="module")
def league():
    X, y = make_matches(n_players=6, n_matches=400, random_state=0)
    return analyze_matches(prepare_matches(X, y), n_resamples=0)


@dataclass(frozen=True)
class _Count:
    n_players: int


@pytest.fixture
def restore():
    """Undo test registrations (the tables are module state)."""
    from sklearn_eval.report import _pipeline

    saved = [(table, dict(table)) for kind in _pipeline._TABLES.values()
             for table in kind]
    extras = {k: dict(v) for k, v in _pipeline._EXTRAS.items()}
    conditional = {k: dict(v) for k, v in _pipeline._CONDITIONAL.items()}
    yield
    for table, content in saved:
        table.clear()
        table.update(content)
    for store, content in ((_pipeline._EXTRAS, extras),
                           (_pipeline._CONDITIONAL, conditional)):
        for kind, value in content.items():
            store[kind].clear()
            store[kind].update(value)


def test_the_old_import_registers_in_the_pipeline():
    assert old_register_section is register_section


def test_every_section_of_both_reports_is_a_registered_section(league):
    keys = [s.key for s in page_sections("matches", league)]
    assert keys == list(MATCH_SECTIONS)
    assert list(parse_sections(render_report(league, figures=False))) == keys
    assert [s.key for s in page_sections("benchmark", {})] == list(SECTIONS)
    # the rank-set section reads a typed input built before it renders
    section = {s.key: s for s in page_sections("matches", league)}["rank_sets"]
    data = section.inputs(league)
    with pytest.raises(FrozenInstanceError):
        data.ranking = "other"


def test_a_section_gets_its_typed_input_and_can_be_conditional(league, restore):
    seen = []

    def render(page):
        seen.append(page.input)
        return f"<p>{page.input.n_players} players</p>"

    register_section("matches", "count", "Players", render, after="summary",
                     inputs=lambda a: _Count(len(a.matches.players)),
                     shown=lambda a: a.get("show_count", False))
    page = render_report(league, figures=False)
    assert "count" not in parse_sections(page)  # not shown: page unchanged
    assert "count" not in MATCH_SECTIONS
    league["show_count"] = True
    try:
        page = render_report(league, figures=False)
    finally:
        del league["show_count"]
    keys = list(parse_sections(page))
    assert keys[:2] == ["summary", "count"]
    assert seen == [_Count(6)]
    assert "<p>6 players</p>" in page


def test_a_failing_input_is_an_error_box_of_its_section(league, restore):
    def inputs(analysis):
        raise ValueError("no input")

    register_section("matches", "broken", "Broken", lambda page: "<p>x</p>",
                     inputs=inputs)
    page = render_report(league, figures=False)
    errors = parse_sections(page)["broken"]["errors"]
    assert [e["part"] for e in errors] == ["section"]
    assert "no input" in errors[0]["text"]


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind must be one of"):
        register_section("nope", "x", "X", lambda page: "")


def _params(estimator):
    return tuple(sorted((k, repr(v)) for k, v in estimator.get_params().items()))


@pytest.mark.parametrize("ties", [None, "half"])
def test_each_rating_model_is_fitted_once_on_the_matches(monkeypatch, ties):
    # a small league with draws: every fit of a rating model on all the
    # matches is counted per (class, parameters); the held-out choice of a
    # tie model fits on folds (fewer rows), which are not the matches
    X, y = make_matches(n_players=8, n_matches=600, random_state=1)
    y = np.asarray(y, dtype=float)
    y[::7] = 0.5
    matches = prepare_matches(X, y)
    fits = Counter()
    for cls in (EloRanker, MultiElo):
        original = cls.fit

        def counting(self, X, y=None, sample_weight=None, _original=original,
                     **kwargs):
            if len(y) == len(matches.y):
                fits[(type(self).__name__, _params(self))] += 1
            return _original(self, X, y, sample_weight=sample_weight, **kwargs)

        monkeypatch.setattr(cls, "fit", counting)
    analysis = analyze_matches(matches, n_resamples=50, ties=ties)
    assert not analysis.failures
    # the sandwich intervals and the rank sets read the fitted ratings
    # (prefit=True): no model is fitted twice on the matches
    rating = (type(analysis.ratings.model).__name__,
              _params(analysis.ratings.model))
    assert fits[rating] == 1, dict(fits)
    assert max(fits.values()) == 1, dict(fits)
