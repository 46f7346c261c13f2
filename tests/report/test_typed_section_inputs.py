"""Every section of both reports reads a frozen typed input, computed once.

User guide: "The HTML report". Each section of the benchmark and the match
report gets its input (a frozen dataclass) from the analysis once per page,
before it renders, and reads nothing else: the page is the same whether the
analysis still holds the raw results or only the inputs, and a failed
analysis is the section's error box. Checked on the shipped data and on a
seeded corpus of benchmarks and leagues, each also with every analysis
failed in turn.
"""

import ast
import dataclasses
import inspect
import textwrap
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import Bunch

from sklearn_eval.datasets import (
    load_international_football,
    load_vicuna80,
    make_agent_task_scores,
    make_irt_responses,
    make_matches,
)
from sklearn_eval.report import (
    MATCH_SECTIONS,
    SECTIONS,
    _pipeline,
    analyze_benchmark,
    analyze_matches,
    prepare_benchmark,
    prepare_matches,
)
from sklearn_eval.report import _html as html_module
from sklearn_eval.report._analysis import _NEEDS, STEPS
from sklearn_eval.report._match_inputs import (
    HodgeInput,
    RatingsInput,
    SummaryInput,
    hodge_input,
    ratings_input,
    summary_input,
)
from sklearn_eval.report._matches import MATCH_NEEDS, MATCH_STEPS
from sklearn_eval.report._pipeline import page_sections, registered_sections

from .pages import parse_sections


# ---------------------------------------------------------------------------
# The analyses: shipped data and a seeded corpus
# ---------------------------------------------------------------------------
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
    return analyze_matches(matches, n_resamples=20)


def _league(seed):
    """A small league: draws, a covariate, a reference player, intervals."""
    rng = np.random.default_rng(seed)
    X, y = make_matches(n_players=5 + seed, n_matches=150 + 50 * seed,
                        random_state=seed)
    y = np.asarray(y, dtype=float)
    y[rng.random(y.size) < 0.1 * (seed % 2)] = 0.5
    options = {}
    if seed % 2:
        options["covariates"] = rng.normal(size=(y.size, 1))
    if seed >= 2:
        options["reference_agents"] = [str(np.asarray(X)[0, 0])]
        options["include_reference"] = seed == 3
    matches = prepare_matches(X, y, **options)
    return analyze_matches(
        matches, n_resamples=8 * (seed % 3),
        interval_method="bootstrap" if seed == 2 else "analytic",
        first_advantage="fit" if seed == 1 else None, random_state=seed,
    )


def _benchmark(seed):
    """A small benchmark: missing results, references, spreads, 0/1 data."""
    rng = np.random.default_rng(seed)
    if seed == 3:
        scores = make_irt_responses(9, 7, random_state=seed).astype(float)
    else:
        scores = make_agent_task_scores(8 + seed, 6 + seed, random_state=seed)
    scores[rng.random(scores.shape) < 0.08 * seed] = np.nan
    options = {"threshold": None if seed == 3 else 0.5, "name": f"corpus {seed}"}
    if seed == 2:
        options["stds"] = np.full(scores.shape, 0.1)
    if seed >= 1:
        options["reference_agents"] = {"agent1": "human"}
        options["include_reference"] = seed == 3
    return analyze_benchmark(prepare_benchmark(scores, **options), n_tasks=3,
                             n_resamples=4 * (seed % 2), random_state=seed)


@pytest.fixture(scope="module")
def corpus(world_cup, with_reference, atari, atari_with_reference, synthetic):
    """(name, kind, analysis) for the shipped data and the seeded corpus."""
    found = [
        ("world cup", "matches", world_cup),
        ("vicuna with reference", "matches", with_reference),
        ("atari", "benchmark", atari),
        ("atari with reference", "benchmark", atari_with_reference),
        ("synthetic", "benchmark", synthetic[0]),
    ]
    found += [(f"league {s}", "matches", _league(s)) for s in range(4)]
    found += [(f"benchmark {s}", "benchmark", _benchmark(s)) for s in range(4)]
    return found


def _failed(analysis, kind, step):
    """``analysis`` with ``step`` failed, and the steps that need it not run."""
    needs = MATCH_NEEDS if kind == "matches" else _NEEDS
    out = Bunch(**analysis)
    out["failures"] = dict(analysis.failures)
    out["tracebacks"] = dict(analysis.get("tracebacks", {}))
    for name in [step] + [k for k, v in needs.items() if step in v]:
        if name.startswith("intervals."):
            if out.intervals is None:
                continue
            out["intervals"] = Bunch(**out.intervals)
            out.intervals[name.split(".")[1]] = None
        else:
            out[name] = None
        out.failures[name] = f"ValueError: {name} broke"
        out.tracebacks[name] = "Traceback: planted"
    return out


def _variants(corpus):
    """Every analysis of the corpus, then each with every step failed in turn."""
    for name, kind, analysis in corpus:
        yield name, kind, analysis
        steps = MATCH_STEPS if kind == "matches" else STEPS
        for step in steps:
            yield f"{name} without {step}", kind, _failed(analysis, kind, step)


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["benchmark", "matches"])
def test_every_registered_section_has_a_typed_input(kind):
    sections = registered_sections(kind)
    base = SECTIONS if kind == "benchmark" else MATCH_SECTIONS
    assert set(base) <= {s.key for s in sections}
    assert "advice" in {s.key for s in sections}  # the conditional one too
    for section in sections:
        assert callable(section.inputs), section.key


@pytest.mark.parametrize("kind", ["benchmark", "matches"])
def test_no_renderer_reads_the_analysis(kind):
    # on the source: a renderer reads page.input, never page.analysis (its
    # figures are drawn by the page from the analysis)
    for section in registered_sections(kind):
        tree = ast.parse(textwrap.dedent(inspect.getsource(section.render)))
        reads = [
            node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "analysis"
        ]
        assert not reads, (section.key, reads)


def test_the_base_sections_keep_their_place(world_cup, atari):
    for kind, analysis, base in (("matches", world_cup, MATCH_SECTIONS),
                                 ("benchmark", atari, SECTIONS)):
        keys = [s.key for s in page_sections(kind, analysis)]
        assert [k for k in keys if k in base] == list(base)


def test_registered_sections_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        registered_sections("tables")


# ---------------------------------------------------------------------------
# The inputs
# ---------------------------------------------------------------------------
def _no_raw_dict(value, where):
    """A typed input holds arrays, tuples, frames and typed records, no dict.

    The report's own records are frozen; results of the library (rank sets)
    are held as they are.
    """
    assert not isinstance(value, dict), where
    own = type(value).__module__.startswith("sklearn_eval.report")
    if dataclasses.is_dataclass(value) and own:
        assert value.__dataclass_params__.frozen, where
        for field in dataclasses.fields(value):
            _no_raw_dict(getattr(value, field.name), f"{where}.{field.name}")
    elif isinstance(value, (tuple, list)):
        for k, item in enumerate(value):
            _no_raw_dict(item, f"{where}[{k}]")


def test_inputs_are_frozen_typed_records(corpus):
    built = 0
    for name, kind, analysis in _variants(corpus):
        for section in page_sections(kind, analysis):
            try:
                data = section.inputs(analysis)
            except Exception:  # a failed analysis: the error box, tested below
                continue
            assert dataclasses.is_dataclass(data), (name, section.key)
            _no_raw_dict(data, f"{name}: {section.key}")
            first = dataclasses.fields(data)[0].name
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(data, first, None)
            built += 1
    assert built > 100


@contextmanager
def _inputs_only(kind, analysis):
    """Sections fed the inputs built from ``analysis``, findings as found."""
    saved = dict(_pipeline._EXTRAS[kind])
    saved_kind = html_module._KINDS[kind]
    findings = saved_kind.degeneracies(analysis)
    for key, (inputs, shown) in saved.items():
        try:
            data, error = inputs(analysis), None
        except Exception as exc:
            data, error = None, exc

        def frozen(_analysis, _data=data, _error=error):
            if _error is not None:
                raise _error
            return _data

        visible = None if shown is None else (lambda _a, _s=shown: _s(analysis))
        _pipeline._EXTRAS[kind][key] = (frozen, visible)
    html_module._KINDS[kind] = dataclasses.replace(
        saved_kind, degeneracies=lambda _analysis: findings)
    try:
        yield
    finally:
        _pipeline._EXTRAS[kind].clear()
        _pipeline._EXTRAS[kind].update(saved)
        html_module._KINDS[kind] = saved_kind


def test_sections_read_only_their_input(corpus):
    # the page of an analysis stripped of everything but its title is the
    # same page when each section gets the input built from the full one
    for name, kind, analysis in _variants(corpus):
        full = html_module.render_report(analysis, figures=False)
        stripped = Bunch(kind=kind, summary=Bunch(name=analysis.summary.name))
        with _inputs_only(kind, analysis):
            again = html_module.render_report(stripped, figures=False)
        assert again == full, name


def test_each_input_is_built_once_per_page(corpus, monkeypatch):
    calls = []
    for kind in ("benchmark", "matches"):
        for key, (inputs, shown) in list(_pipeline._EXTRAS[kind].items()):

            def counting(analysis, _build=inputs, _key=(kind, key)):
                calls.append(_key)
                return _build(analysis)

            monkeypatch.setitem(_pipeline._EXTRAS[kind], key, (counting, shown))
    for _, kind, analysis in corpus:
        calls.clear()
        html_module.render_report(analysis, figures=False)
        shown = [(kind, s.key) for s in page_sections(kind, analysis)]
        assert sorted(calls) == sorted(shown)


def test_a_failed_analysis_is_the_error_box_of_the_sections_needing_it(corpus):
    # each section whose input needs the failed analysis shows one error box
    # naming it; the others are written
    for name, kind, analysis in _variants(corpus):
        if "without" not in name:
            continue
        sections = parse_sections(html_module.render_report(analysis,
                                                            figures=False))
        for section in page_sections(kind, analysis):
            try:
                section.inputs(analysis)
            except Exception as exc:
                errors = sections[section.key]["errors"]
                assert [e["part"] for e in errors] == ["section"], name
                assert str(exc)[:20].lower() in errors[0]["text"].lower(), name
            else:
                assert sections[section.key]["text"], (name, section.key)


# ---------------------------------------------------------------------------
# What the inputs hold
# ---------------------------------------------------------------------------
def test_summary_shows_the_counts_of_the_matches(with_reference):
    data = summary_input(with_reference)
    assert isinstance(data, SummaryInput)
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
    section = parse_sections(html_module.render_report(
        with_reference, figures=False))["summary"]
    assert "guanaco-7b" in str(section)


def test_ratings_input_is_the_estimators_protocol(with_reference):
    # labels, scores and ranks are the fitted ratings' agents_,
    # agent_scores_ and agent_table() ranks; the intervals follow the labels
    data = ratings_input(with_reference)
    assert isinstance(data, RatingsInput)
    model = with_reference.ratings.model
    table = model.agent_table()
    assert list(data.agents) == list(model.agents_)
    np.testing.assert_array_equal(data.scores, model.agent_scores_)
    np.testing.assert_array_equal(
        data.ranks, table.loc[list(data.agents), "rank"].to_numpy())
    result = with_reference.intervals
    position = {str(label): i for i, label in enumerate(result.labels)}
    for k, label in enumerate(data.agents):
        i = position[str(label)]
        assert (data.low[k], data.high[k]) == (result.low[i], result.high[i])
        assert data.low[k] <= data.scores[k] <= data.high[k]


def test_ranking_input_spreads_the_block_over_every_agent(corpus):
    # uniform and Nash averages exist exactly for the complete block's agents
    for name, kind, analysis in corpus:
        if kind != "benchmark" or analysis.block is None:
            continue
        section = {s.key: s for s in page_sections(kind, analysis)}["ranking"]
        data = section.inputs(analysis)
        inside = analysis.block.agent_mask
        assert np.isfinite(data.uniform[inside]).all(), name
        assert np.isnan(data.uniform[~inside]).all(), name
        means = pd.Series(data.uniform[inside], index=data.agents[inside])
        expected = analysis.block.scaled.mean(axis=1)
        np.testing.assert_allclose(means.to_numpy(), expected)


def test_a_failed_hodge_split_is_the_sections_error_box(world_cup):
    failed = _failed(world_cup, "matches", "hodge")
    with pytest.raises(Exception, match="hodge broke"):
        hodge_input(failed)
    errors = parse_sections(html_module.render_report(
        failed, figures=False))["hodge"]["errors"]
    assert [e["part"] for e in errors] == ["section"]
    assert "hodge broke" in errors[0]["text"]
    assert isinstance(hodge_input(world_cup), HodgeInput)
