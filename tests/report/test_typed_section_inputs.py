"""The match report's older sections read frozen typed inputs, computed once.

User guide: "The HTML report". The data summary and the Hodge section get
their input (a frozen dataclass) from the analysis once per page, before they
render, and read nothing else: the section is the same whether the analysis
still holds the raw results or only the input, and a failed analysis is the
section's error box, as before. Their place in the page is unchanged.
"""

from dataclasses import FrozenInstanceError

import numpy as np
import pytest
from sklearn.utils import Bunch

from sklearn_eval.datasets import load_international_football, load_vicuna80
from sklearn_eval.report import MATCH_SECTIONS, analyze_matches, prepare_matches
from sklearn_eval.report import _html as html_module
from sklearn_eval.report._match_inputs import (
    HodgeInput,
    SummaryInput,
    hodge_input,
    summary_input,
)
from sklearn_eval.report._pipeline import page_sections

from .pages import parse_sections

TYPED = {"summary": (summary_input, SummaryInput),
         "hodge": (hodge_input, HodgeInput)}


@pytest.fixture(scope="module")
def world_cup():
    wc = load_international_football("world_cup")
    return analyze_matches(prepare_matches(wc.data, wc.target), n_resamples=0)


@pytest.fixture(scope="module")
def with_reference():
    """Chatbot votes, weighted, with one model set apart as a reference."""
    votes = load_vicuna80()
    weight = np.where(np.arange(len(votes.target)) % 3 == 0, 2.0, 1.0)
    matches = prepare_matches(votes.data, votes.target, weight,
                              reference_agents=["guanaco-7b"])
    return analyze_matches(matches, n_resamples=0)


def _section(analysis, key):
    return parse_sections(html_module.render_report(analysis, figures=False))[key]


@pytest.mark.parametrize("key", sorted(TYPED))
def test_the_sections_keep_their_place_and_have_inputs(world_cup, key):
    sections = page_sections("matches", world_cup)
    keys = [section.key for section in sections]
    base = [k for k in keys if k in MATCH_SECTIONS]
    assert base == list(MATCH_SECTIONS)  # the base order is unchanged
    (section,) = [s for s in sections if s.key == key]
    assert section.inputs is TYPED[key][0]


@pytest.mark.parametrize("key", sorted(TYPED))
def test_inputs_are_frozen(world_cup, with_reference, key):
    build, cls = TYPED[key]
    for analysis in (world_cup, with_reference):
        data = build(analysis)
        assert isinstance(data, cls)
        with pytest.raises(FrozenInstanceError):
            data.__setattr__(next(iter(data.__dataclass_fields__)), None)


def test_each_input_is_built_once_per_page(world_cup, monkeypatch):
    from sklearn_eval.report import _pipeline

    calls = []
    for key in TYPED:
        inputs, shown = _pipeline._EXTRAS["matches"][key]

        def counting(analysis, _build=inputs, _key=key):
            calls.append(_key)
            return _build(analysis)

        monkeypatch.setitem(_pipeline._EXTRAS["matches"], key, (counting, shown))
    html_module.render_report(world_cup, figures=False)
    assert sorted(calls) == sorted(TYPED)


@pytest.mark.parametrize("fixture", ["world_cup", "with_reference"])
def test_sections_read_only_their_input(fixture, request):
    # the page of an analysis stripped of what the inputs were built from
    # shows the same sections: they read the frozen input and nothing else
    analysis = request.getfixturevalue(fixture)
    full = parse_sections(html_module.render_report(analysis, figures=False))
    built = {key: build(analysis) for key, (build, _) in TYPED.items()}
    stripped = Bunch(**analysis)
    stripped["summary"] = Bunch(name=analysis.summary.name)
    stripped["reference"] = None
    stripped["hodge"] = Bunch()

    from sklearn_eval.report import _pipeline

    saved = {key: _pipeline._EXTRAS["matches"][key] for key in TYPED}
    try:
        for key in TYPED:
            _pipeline._EXTRAS["matches"][key] = (
                lambda _analysis, _data=built[key]: _data, None)
        again = parse_sections(html_module.render_report(stripped, figures=False))
    finally:
        _pipeline._EXTRAS["matches"].update(saved)
    for key in TYPED:
        assert again[key] == full[key]


def test_summary_shows_the_counts_of_the_matches(with_reference):
    data = summary_input(with_reference)
    matches = with_reference.matches
    assert data.n_matches == matches.X.shape[0]
    assert data.n_players == len(matches.players)
    assert data.weighted and data.total_weight == pytest.approx(
        matches.sample_weight.sum())
    assert data.reference_agents == ("guanaco-7b",)
    ref = data.reference
    assert ref.agents == ("guanaco-7b",) and not ref.included
    # every match of the reference player is in its record, weighted
    involved = with_reference.matches.reference
    assert ref.matches[0] == pytest.approx(involved.sample_weight.sum())
    section = _section(with_reference, "summary")
    assert "guanaco-7b" in str(section)


def test_a_failed_hodge_split_is_the_sections_error_box(world_cup):
    failed = Bunch(**world_cup)
    failed["hodge"] = None
    failed["failures"] = {**world_cup.failures, "hodge": "it broke"}
    section = _section(failed, "hodge")
    errors = section["errors"]
    assert [e["part"] for e in errors] == ["section"]
    assert "it broke" in errors[0]["text"]
