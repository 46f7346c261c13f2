"""The report says whether its ranking is settled: rank sets, tiers, separable pairs.

User guide: "Is the ranking settled?" (simultaneous rank sets of Mogstad et
al. 2024, the leader rule for tiers). Each model of the match report is
fitted once for the point estimates; the rank sets come from the same
parameters through their analytic path.
"""

import numpy as np
import pytest

from sklearn_eval.datasets import load_vicuna80, make_agent_task_scores
from sklearn_eval.pairwise import EloRanker
from sklearn_eval.report import (
    MATCH_SECTIONS,
    SECTIONS,
    analyze_benchmark,
    analyze_matches,
    prepare_benchmark,
    prepare_matches,
    render_report,
)
from sklearn_eval.report._rank_set_section import register_section
from sklearn_eval.uncertainty import rank_sets


@pytest.fixture(scope="module")
def vicuna():
    votes = load_vicuna80()
    return votes, analyze_matches(prepare_matches(votes.data, votes.target),
                                  n_resamples=0)


def test_match_report_shows_the_rank_sets_of_its_ratings(vicuna):
    votes, analysis = vicuna
    assert list(MATCH_SECTIONS)[:3] == ["summary", "ratings", "rank_sets"]
    expected = rank_sets(EloRanker(**analysis.ratings.model.get_params()),
                         votes.data, votes.target, random_state=0).to_frame()
    shown = analysis.rank_sets.sets.to_frame()
    assert shown[["rank_low", "rank_high", "tier"]].equals(
        expected[["rank_low", "rank_high", "tier"]])
    page = render_report(analysis, figures=False)
    section = page.split('<section id="rank_sets">')[1].split("</section>")[0]
    for label in expected.index:
        assert f">{label}<" in section
    separated = int(analysis.rank_sets.adjacent["separated"].sum())
    assert f"{separated} of {len(expected) - 1} adjacent pairs are separable" in section


def test_benchmark_report_shows_the_rank_sets_of_the_mean():
    scores = make_agent_task_scores(15, 20, random_state=1)
    analysis = analyze_benchmark(prepare_benchmark(scores, threshold=0.5),
                                 n_tasks=3, n_resamples=0)
    assert "rank_sets" in SECTIONS
    frame = analysis.rank_sets.sets.to_frame()
    assert ((frame["rank_low"] <= frame["rank"])
            & (frame["rank"] <= frame["rank_high"])).all()
    page = render_report(analysis, figures=False)
    assert '<section id="rank_sets">' in page
    assert page.index('id="ranking"') < page.index('id="rank_sets"')


def test_each_rating_model_is_fitted_once(monkeypatch):
    """The ratings are fitted once; the rank sets and intervals reuse them."""
    fits = []
    original = EloRanker.fit

    def counting_fit(self, *args, **kwargs):
        fits.append(self.get_params()["method"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(EloRanker, "fit", counting_fit)
    votes = load_vicuna80()
    analyze_matches(prepare_matches(votes.data, votes.target), n_resamples=50,
                    ties="half", alpha=0.01)
    # one fit of the ratings: the sandwich intervals and rank sets read it
    # (prefit), mElo reuses it (same prior); Nash and Hodge refit nothing
    assert fits.count("batch") == 1


def test_a_section_is_one_registration(vicuna):
    _, analysis = vicuna
    titles = dict(MATCH_SECTIONS)
    try:
        register_section("matches", "advisor", "Which method fits this data",
                         lambda page: "<p>advice</p>", before="summary")
        page = render_report(analysis, figures=False)
        assert page.index('id="advisor"') < page.index('id="summary"')
        assert "<p>advice</p>" in page
    finally:
        from sklearn_eval.report._match_sections import MATCH_SECTION_RENDERERS

        MATCH_SECTIONS.clear()
        MATCH_SECTIONS.update(titles)
        MATCH_SECTION_RENDERERS.pop("advisor", None)
    assert np.all([key != "advisor" for key in MATCH_SECTIONS])
