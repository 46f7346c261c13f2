"""The method advisor: kinds, checks, the noise rule, bad input, outputs.

See the user guide's "Which method fits my data" page.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_eval import Advice, advise
from sklearn_eval.game import NashAverager
from sklearn_eval.irt import IRT
from sklearn_eval.pairwise import EloRanker

from . import corpus


@pytest.fixture(scope="module")
def transitive():
    X, y = corpus.matches("bt", 0, n_players=8, n_votes=3000)
    return X, y, advise(X, y, random_state=0)


def test_transitive_matches_get_plain_bradley_terry(transitive):
    _, _, advice = transitive
    assert isinstance(advice, Advice)
    assert advice.kind == "matches"
    rec = advice.recommendation
    assert isinstance(rec, EloRanker)
    assert rec.get_params()["method"] == "batch"
    assert rec.get_params()["ties"] == "half"
    assert rec.get_params()["first_advantage"] == 0.0
    assert not hasattr(rec, "ratings_")  # unfitted


def test_candidate_table_is_consistent(transitive):
    _, _, advice = transitive
    table = advice.candidates
    assert table["heldout_loglik"].is_monotonic_decreasing
    assert table["recommended"].sum() == 1
    assert table["within_noise"].iloc[0]
    assert (table["heldout_se"] > 0).all() and (table["n_parameters"] > 0).all()
    # the recommendation is the simplest candidate within noise of the best
    plausible = table[table["within_noise"]]
    chosen = table.index[table["recommended"]][0]
    assert table.loc[chosen, "n_parameters"] == plausible["n_parameters"].min()
    # held-out log-likelihood per vote of a binary outcome is above log(1/2)
    # for a model that learnt anything and below 0
    assert -np.log(2) < table.loc[chosen, "heldout_loglik"] < 0


def test_heldout_score_is_the_three_outcome_likelihood(transitive):
    """The recommended model refitted on all votes scores near its CV value."""
    X, y, advice = transitive
    model = advice.recommendation.fit(X, y)
    in_sample = model.score(X, y)
    held = advice.candidates.loc["Bradley-Terry", "heldout_loglik"]
    assert held <= in_sample + 1e-9
    assert in_sample - held < 0.02  # 7 parameters on 3000 votes: tiny optimism


def test_diagnostics_have_the_documented_checks(transitive):
    _, _, advice = transitive
    table = advice.diagnostics
    assert list(table.columns) == ["value", "verdict", "why"]
    for check in ("data kind", "connectivity", "votes per pair", "draw rate",
                  "first-player advantage", "intransitivity",
                  "effective dimension", "reference agents",
                  "ranking stability"):
        assert check in table.index, check
    assert table.loc["connectivity", "verdict"] == "connected"
    assert table.loc["intransitivity", "verdict"] == "within noise"


def test_explanation_names_the_choice_with_numbers(transitive):
    _, _, advice = transitive
    text = advice.explain()
    assert "EloRanker(method='batch')" in text
    score = advice.candidates.loc["Bradley-Terry", "heldout_loglik"]
    assert f"{score:.4f}" in text
    assert "Advice(kind='matches'" in repr(advice)
    page = advice._repr_html_()
    assert "<table" in page and "Bradley-Terry" in page


def test_agreement_is_kendall_tau_with_the_movers(transitive):
    _, _, advice = transitive
    tau = advice.agreement.kendall_tau
    assert np.allclose(tau.to_numpy(), tau.to_numpy().T)
    assert np.allclose(np.diag(tau), 1.0)
    assert (tau.to_numpy() <= 1 + 1e-12).all() and (tau.to_numpy() >= -1).all()
    movers = advice.agreement.movers
    assert movers["rank_spread"].is_monotonic_decreasing
    assert len(movers) == 8


def test_long_match_table_is_read_as_matches():
    X, y = corpus.matches("bt", 1, n_players=6, n_votes=600)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "outcome": y})
    advice = advise(frame, random_state=0)
    assert advice.kind == "matches"
    direct = advise(X, y, random_state=0)
    pd.testing.assert_series_equal(advice.candidates["heldout_loglik"],
                                   direct.candidates["heldout_loglik"])


def test_vote_counts_split_multinomially_match_expanded_rows():
    """Votes as weighted rows and the same votes one per row agree in size."""
    X, y = corpus.matches("bt", 2, n_players=6, n_votes=1500)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y})
    counts = frame.value_counts().reset_index()
    weighted = advise(counts[["a", "b"]].to_numpy(dtype=object),
                      counts["y"].to_numpy(float),
                      sample_weight=counts["count"].to_numpy(float), random_state=0)
    rows = advise(X, y, random_state=0)
    a = weighted.candidates.loc["Bradley-Terry", "heldout_loglik"]
    b = rows.candidates.loc["Bradley-Terry", "heldout_loglik"]
    assert abs(a - b) < 3 * rows.candidates.loc["Bradley-Terry", "heldout_se"]
    assert "1,500 votes" in weighted.diagnostics.loc["shape", "value"]


def test_tiny_data_gets_diagnostics_and_no_recommendation():
    X, y = corpus.matches("bt", 3, n_players=4, n_votes=20)
    with pytest.warns(UserWarning, match="No recommendation"):
        advice = advise(X, y, random_state=0)
    assert advice.recommendation is None and advice.candidates is None
    assert "No recommendation" in advice.explain()
    assert "too few" in advice.explain()
    assert "draw rate" in advice.diagnostics.index


def test_small_data_cannot_tell_and_recommends_the_simplest():
    X, y = corpus.matches("davidson", 4, n_players=6, n_votes=150)
    advice = advise(X, y, random_state=0)
    assert advice.cannot_tell
    assert "Cannot tell" in advice.explain()
    table = advice.candidates
    chosen = table.index[table["recommended"]][0]
    assert table.loc[chosen, "n_parameters"] == table[table["within_noise"]][
        "n_parameters"].min()


def test_disconnected_matches_are_flagged():
    X = np.array([["a", "b"], ["b", "a"], ["c", "d"], ["d", "c"]] * 20, dtype=object)
    y = np.tile([1.0, 0.0, 1.0, 1.0], 20)
    advice = advise(X, y, random_state=0)
    assert advice.diagnostics.loc["connectivity", "verdict"] == "disconnected"
    assert advice.diagnostics.loc["connectivity", "value"].startswith("2 component")


def test_duplicated_tasks_get_nash_averaging():
    advice = advise(corpus.duplicated_tasks(0), random_state=0)
    assert advice.kind == "continuous"
    assert isinstance(advice.recommendation, NashAverager)
    assert advice.diagnostics.loc["redundancy (tasks)", "verdict"] == "redundant"


@pytest.mark.slow
def test_binary_items_compare_irt_models_over_cells():
    X = corpus.items("2PL", 0, n_agents=400, n_items=12)
    advice = advise(X, random_state=0)
    assert advice.kind == "binary"
    assert isinstance(advice.recommendation, IRT)
    assert set(advice.candidates.index) >= {"1PL", "2PL"}
    assert "negative discrimination" in advice.diagnostics.index
    assert "guessing floor" in advice.diagnostics.index
    # 400 agents: too few for a slope per factor, the 2-factor model is not tried
    assert not any("factors" in name for name in advice.candidates.index)


def test_graded_and_continuous_candidates_count_their_parameters():
    """GRM and GPCM: a slope and one parameter per category boundary of each
    item; beta and logit-normal: slope, location and precision (or spread)."""
    X = corpus.graded("GRM", 0, n_agents=300, n_items=5, n_categories=3)
    X[:, 0] = np.minimum(X[:, 0], 1)  # item 0 has two categories
    table = advise(X, random_state=0).candidates
    assert set(table.index) == {"GRM", "GPCM"}
    assert (table["n_parameters"] == 5 + 1 + 4 * 2).all()
    table = advise(corpus.continuous("beta", 0, n_agents=100, n_items=4),
                   random_state=0).candidates
    assert set(table.index) == {"beta", "logit-normal"}
    assert (table["n_parameters"] == 3 * 4).all()


def test_square_game_is_detected_and_advised_without_folds():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(6, 6))
    A = A - A.T
    advice = advise(A)
    assert advice.kind == "game"
    assert advice.candidates is None
    assert isinstance(advice.recommendation, NashAverager)
    assert "intransitivity" in advice.diagnostics.index


@pytest.mark.parametrize("values, kind", [
    (np.array([[0, 1, 2], [2, 1, 0], [1, 1, 2.0]]), "graded"),
    (np.array([[0.1, 0.5], [0.7, 0.2], [0.3, 0.3]]), "continuous"),
    (np.array([[10.0, -5], [3, 4], [1, 2]]), "scores"),
    (np.array([[0, 1], [1, np.nan], [1, 1.0]]), "binary"),
])
def test_kind_detection(values, kind):
    from sklearn_eval.advice._kinds import detect_kind

    assert detect_kind(values) == kind


@pytest.mark.slow
def test_kind_override_is_used():
    X = corpus.items("1PL", 0, n_agents=60, n_items=8)
    advice = advise(X, kind="scores", random_state=0)
    assert advice.kind == "scores"
    assert advice.candidates.index[0].startswith("additive")


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "votes"}, "kind must be"),
    ({"cv": 1}, "cv must be an integer >= 2"),
    ({"cv": 2.5}, "cv must be an integer >= 2"),
    ({"max_factors": 0}, "max_factors must be an integer >= 1"),
    ({"max_factors": 1.5}, "max_factors must be an integer >= 1"),
    ({"max_factors": True}, "max_factors must be an integer >= 1"),
])
def test_bad_parameters_are_refused(kwargs, message):
    X = corpus.items("1PL", 0, n_agents=30, n_items=5)
    with pytest.raises(ValueError, match=message):
        advise(X, **kwargs)


def test_bad_matches_are_refused_with_the_estimators_message():
    X = np.array([["a", "b"], ["b", "c"]], dtype=object)
    with pytest.raises(ValueError) as advisor:
        advise(X, [1.0, 2.0])
    with pytest.raises(ValueError) as estimator:
        EloRanker(method="batch").fit(X, [1.0, 2.0])
    assert str(advisor.value) == str(estimator.value)


def test_matches_without_outcomes_are_refused():
    with pytest.raises(ValueError, match="matches need y"):
        advise(np.array([["a", "b"], ["b", "c"]], dtype=object), kind="matches")


@pytest.mark.slow
def test_same_seed_same_advice():
    X, y = corpus.matches("advantage", 5, n_players=6, n_votes=800)
    a = advise(X, y, random_state=3)
    b = advise(X, y, random_state=3)
    pd.testing.assert_frame_equal(a.candidates, b.candidates)
    assert a.explain() == b.explain()


@pytest.mark.slow
def test_max_factors_one_leaves_out_only_the_multifactor_candidate():
    """A bank of 500 agents compares the 2-factor 2PL by default; with
    ``max_factors=1`` only that candidate goes, the others score the same
    on the same folds."""
    X = corpus.two_factor_items(0, n_agents=500, n_items=8)
    full = advise(X, random_state=0).candidates
    one = advise(X, random_state=0, max_factors=1).candidates
    assert "2PL, 2 factors" in full.index
    assert "2PL, 2 factors" not in one.index
    kept = full.index.drop("2PL, 2 factors")
    assert sorted(one.index) == sorted(kept)
    np.testing.assert_allclose(one.loc[kept, "heldout_loglik"],
                               full.loc[kept, "heldout_loglik"], rtol=0, atol=1e-12)


def _draw_matches(n_votes, draw_share, seed=0):
    """Round-robin votes of 5 players, both orders, ``draw_share`` of them draws."""
    rng = np.random.default_rng(seed)
    players = [f"p{k}" for k in range(5)]
    X = np.array([rng.choice(players, 2, replace=False) for _ in range(n_votes)],
                 dtype=object)
    y = rng.integers(0, 2, n_votes).astype(float)
    y[: round(draw_share * n_votes)] = 0.5
    return X, y


@pytest.mark.parametrize("n_votes", [6, 80])
@pytest.mark.parametrize(("draw_share", "verdict"), [
    (0.0, "no ties"), (0.25, "ties present: tie models compared"),
    (1.0, "all ties: no tie model fits")])
def test_draw_checks_say_in_words_what_the_draws_leave(n_votes, draw_share, verdict):
    # every draw share, with and without enough votes for the folds: the
    # verdict follows the share and no number is NaN
    X, y = _draw_matches(n_votes, draw_share)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        advice = advise(X, y, random_state=0)
    diagnostics = advice.diagnostics
    assert diagnostics.loc["draw rate", "verdict"] == verdict
    first = diagnostics.loc["first-player advantage"]
    if draw_share == 1.0:
        assert first["value"] == "no decided votes (every vote a draw)"
        assert first["verdict"] == "not identified"
    else:
        assert "of decided votes" in first["value"]
    text = " ".join(map(str, diagnostics.to_numpy().ravel())) + advice.explain()
    assert not re.search(r"\bnan\b", text, flags=re.IGNORECASE)


def test_scores_near_the_float_maximum_raise_no_overflow_warning():
    # correlations do not depend on the unit: the checks work at unit scale
    X = pd.DataFrame([[1e300, 0, 1], [0, 5e307, 1], [1, 1e300, -1e308], [2, 3, 4]],
                     dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        advice = advise(X, random_state=0)
    assert len(advice.diagnostics) > 0
