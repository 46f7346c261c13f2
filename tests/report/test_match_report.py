"""The match report: the library's pairwise analyses, every section, names literal."""

import numpy as np
import pytest

from sklearn_eval.datasets import load_vicuna80
from sklearn_eval.game import NashAverager, fill_win_rates, hodge_decomposition
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.report import (
    MATCH_SECTIONS,
    analyze_matches,
    prepare_matches,
    render_report,
    write_report,
)
from sklearn_eval.uncertainty import ranking_intervals
from tests.report.pages import PNG_MAGIC, decode_png, parse_sections

HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "$x^$ & co",
    '=HYPERLINK("http://evil")',
    "Ünïcødé — naïve",
]


@pytest.fixture(scope="module")
def vicuna():
    votes = load_vicuna80()
    matches = prepare_matches(votes.data, votes.target, name="Vicuna80 votes")
    return votes, analyze_matches(matches, n_resamples=100)


@pytest.fixture(scope="module")
def vicuna_page(vicuna, tmp_path_factory):
    path = tmp_path_factory.mktemp("vicuna") / "vicuna.html"
    result = write_report(vicuna[1], path)
    return path.read_text(encoding="utf-8"), result


def test_vicuna_analyses_are_the_library_estimators(vicuna):
    votes, analysis = vicuna
    X, y = votes.data, votes.target
    assert analysis.failures == {}
    # the votes have ties: the report rates with a tie model (user guide,
    # "Ranking chatbots"), the one with the higher held-out likelihood
    ties = analysis.ratings.ties
    scores = analysis.ratings.tie_scores
    assert set(scores) == {"davidson", "rao-kupper"}
    assert scores[ties] == max(scores.values())
    bt = EloRanker(method="batch", ties=ties).fit(X, y)
    np.testing.assert_allclose(analysis.ratings.ratings, bt.agent_scores_)
    assert analysis.ratings.alpha == 0.0  # every player won and lost
    result = ranking_intervals(
        EloRanker(method="batch", ties=ties),
        X,
        y,
        method="analytic",
        n_resamples=100,
        random_state=0,
    )
    np.testing.assert_allclose(analysis.intervals.low, result.low)
    np.testing.assert_allclose(analysis.intervals.high, result.high)
    assert analysis.intervals.method == "sandwich"
    filler = MultiElo(n_components=1, method="batch", alpha=0.01, random_state=0)
    P, players, filled = fill_win_rates(X, y, estimator=filler)
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    np.testing.assert_allclose(analysis.nash.probability, nash.agent_distribution_)
    np.testing.assert_allclose(analysis.nash.skill, nash.agent_skill_)
    assert analysis.nash.n_filled_pairs == filled.sum() // 2 == 4
    split = hodge_decomposition(nash.payoff_)
    assert analysis.hodge.transitive == pytest.approx(split.transitive_share)
    assert analysis.hodge.transitive + analysis.hodge.cyclic == pytest.approx(1.0)
    assert analysis.hodge.plane_shares.sum() <= analysis.hodge.cyclic + 1e-9
    # records add up: every match counted once for each of its two players
    record = analysis.ratings.record
    assert record.matches.sum() == 2 * len(y)
    np.testing.assert_allclose(
        record.wins + record.draws + record.losses, record.matches
    )
    # the cyclic plane lowers the in-sample log-loss of ratings alone
    assert analysis.melo.log_loss <= analysis.melo.elo_log_loss
    assert str(analysis.ratings.players[np.argmax(analysis.ratings.ratings)]) == "gpt4"


def test_vicuna_page_has_every_section_with_tables_and_figures(vicuna_page):
    page, result = vicuna_page
    assert result.ok and result.failures == ()
    assert page.count("<h1>Match report: Vicuna80 votes</h1>") == 1
    sections = parse_sections(page)
    assert list(sections) == list(MATCH_SECTIONS)
    for key, title in MATCH_SECTIONS.items():
        assert sections[key]["h2"] == title
        assert sections[key]["tables"] >= 1, key
        if key != "summary":
            assert len(sections[key]["images"]) == 1, key
            png = decode_png(sections[key]["images"][0])
            assert png.startswith(PNG_MAGIC) and len(png) > 5000
    ratings = sections["ratings"]["cells"]
    assert ratings[0] == "gpt4" and sum(c in ratings for c in ("bard", "claude")) == 2
    assert "sandwich" in sections["ratings"]["text"]
    assert "held-out likelihood" in sections["ratings"]["text"]


def _hostile_matches(rng, n_rounds=8):
    names = np.array(HOSTILE + ["plain"], dtype=object)
    strengths = np.linspace(-1.0, 1.0, len(names))
    pairs = np.array(
        [(i, j) for i in range(len(names)) for j in range(len(names)) if i != j]
    )
    pairs = np.repeat(pairs, n_rounds, axis=0)
    p = 1 / (1 + np.exp(strengths[pairs[:, 1]] - strengths[pairs[:, 0]]))
    y = (rng.uniform(size=len(pairs)) < p).astype(float)
    return names[pairs], y


def test_hostile_names_are_escaped_in_every_section_and_drawn(tmp_path):
    X, y = _hostile_matches(np.random.default_rng(0))
    analysis = analyze_matches(
        prepare_matches(X, y, name="<b>bold</b> & matches"), n_resamples=50
    )
    result = write_report(analysis, tmp_path / "hostile.html")
    page = (tmp_path / "hostile.html").read_text(encoding="utf-8")
    assert result.ok, result.failures  # every figure drew the names literally
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt; &amp; matches" in page
    sections = parse_sections(page)
    for key in ("ratings", "cyclic", "nash"):
        cells = sections[key]["cells"]
        for name in HOSTILE:
            assert name in cells, (key, name)  # shown, as text
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3


def test_a_failing_analysis_is_an_error_box_and_the_rest_is_written(
    monkeypatch, tmp_path
):
    import sklearn_eval.report._matches as matches_module

    def broken(*args, **kwargs):
        raise RuntimeError("mElo broke")

    monkeypatch.setattr(matches_module, "_melo", broken)
    votes = load_vicuna80()
    analysis = analyze_matches(prepare_matches(votes.data, votes.target), n_resamples=0)
    assert set(analysis.failures) == {"melo"}
    result = write_report(analysis, tmp_path / "r.html", figures=False)
    assert not result.ok and result.failed_sections == ("cyclic",)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    sections = parse_sections(page)
    assert "mElo broke" in sections["cyclic"]["errors"][0]["text"]
    assert sections["ratings"]["tables"] and sections["nash"]["tables"]
    assert "could not be written" in page


def test_disconnected_players_get_a_weak_prior_said_in_the_report():
    # "d" never loses: maximum likelihood has no finite rating for it
    X = np.array([["a", "b"], ["b", "c"], ["c", "a"], ["d", "a"], ["d", "b"]] * 5)
    y = np.tile([1.0, 1.0, 1.0, 1.0, 1.0], 5)
    analysis = analyze_matches(prepare_matches(X, y), n_resamples=50)
    assert analysis.ratings.alpha == 0.01 and analysis.failures == {}
    assert np.all(np.isfinite(analysis.intervals.high))
    page = render_report(analysis, figures=False)
    assert "weak L2 prior (alpha=0.01" in parse_sections(page)["ratings"]["text"]
    # an explicit prior is used as given
    given = analyze_matches(prepare_matches(X, y), alpha=0.5, n_resamples=0)
    assert given.ratings.alpha == 0.5 and given.ratings.note == ""


def test_reference_players_are_left_out_and_shown_apart():
    votes = load_vicuna80()
    apart = prepare_matches(votes.data, votes.target, reference_agents=["bard"])
    assert "bard" not in apart.players and len(apart.players) == 8
    involved = np.any(votes.data == "bard", axis=1)
    assert len(apart.y) == np.sum(~involved)
    assert apart.reference.X.shape[0] == np.sum(involved)
    analysis = analyze_matches(apart, n_resamples=0)
    record = analysis.reference.record
    assert record.matches[0] == np.sum(involved)
    page = render_report(analysis, figures=False)
    assert "Reference players (not rated)" in page
    ranked = prepare_matches(
        votes.data, votes.target, reference_agents=["bard"], include_reference=True
    )
    assert "bard" in ranked.players and ranked.reference_mask.sum() == 1
    page = render_report(analyze_matches(ranked, n_resamples=0), figures=False)
    assert 'bard <span class="tag">reference</span>' in page
    with pytest.raises(ValueError, match="not one of the players"):
        prepare_matches(votes.data, votes.target, reference_agents=["nobody"])


def test_bootstrap_intervals_on_request():
    votes = load_vicuna80()
    analysis = analyze_matches(
        prepare_matches(votes.data, votes.target),
        interval_method="bootstrap",
        n_resamples=30,
    )
    assert analysis.intervals.method == "percentile bootstrap"
    assert analysis.intervals.samples.shape == (30, 9)
    with pytest.raises(ValueError, match="interval_method"):
        analyze_matches(
            prepare_matches(votes.data, votes.target), interval_method="jackknife"
        )


def test_notes_and_captions_follow_the_data():
    from sklearn_eval.datasets import load_international_football

    votes = load_vicuna80()
    small = analyze_matches(prepare_matches(votes.data, votes.target), n_resamples=0)
    page = render_report(small)
    assert len(small.nash.core) == 1
    assert "With a single core player" in parse_sections(page)["nash"]["text"]
    assert "Ratings with intervals</figcaption>" in page  # 9 players: all drawn
    cup = load_international_football("world_cup")
    large = analyze_matches(prepare_matches(cup.data, cup.target), n_resamples=0)
    page = render_report(large)
    assert len(large.nash.core) > 1
    assert "single core player" not in page
    n = len(large.ratings.players)
    assert f"Ratings with intervals (best 40 of {n})</figcaption>" in page
    assert ". Score rate" in page or "No intervals" in page


def _all_draws(n_rounds=6):
    pairs = [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"], ["d", "a"], ["b", "d"]]
    return np.array(pairs * n_rounds, dtype=object), np.full(6 * n_rounds, 0.5)


@pytest.mark.parametrize("interval_method", ["analytic", "bootstrap"])
@pytest.mark.parametrize("ties", [None, "half"])
def test_all_draws_are_said_in_words_and_zero_width_is_no_certainty(
    interval_method, ties
):
    # every match a draw: no tie model applies (the docs' "and the report
    # says which" becomes "says so"), the ratings are all equal, and the
    # intervals of zero width come with a warning, not as certainty
    import re
    import warnings

    X, y = _all_draws()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analysis = analyze_matches(prepare_matches(X, y), ties=ties,
                                   interval_method=interval_method,
                                   n_resamples=30)
    assert analysis.failures == {}
    assert analysis.ratings.ties == "half"
    assert np.ptp(analysis.ratings.ratings) == 0
    assert np.all(analysis.intervals.high == analysis.intervals.low)
    said = [str(w.message) for w in caught]
    assert any("intervals have zero width" in text for text in said), said
    text = parse_sections(render_report(analysis, figures=False))["ratings"]["text"]
    assert "Every match is a draw, so no tie model applies" in text
    assert "intervals have zero width" in text
    assert not re.search(r"\bnan\b", text, flags=re.IGNORECASE)


def test_intervals_of_some_width_bring_no_zero_width_note():
    X, y = _all_draws()
    y = y.copy()
    y[:6] = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analysis = analyze_matches(prepare_matches(X, y), n_resamples=30)
    assert not any("zero width" in str(w.message) for w in caught)
    assert "zero width" not in render_report(analysis, figures=False)
    assert "Every match is a draw" not in analysis.ratings.note
