"""rank_sets: simultaneous and marginal rank sets, tiers, for every ranking.

Targets from Mogstad, Romano, Shaikh and Wilhelm (2024), "Inference for
ranks": the simultaneous sets hold jointly (familywise coverage of the true
ranks at the nominal level), the marginal sets each on their own, and the
step-down sets are narrower than the Bonferroni projection of pairwise tests.
See the user guide, "Is the ranking settled?".
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import norm

from sklearn_eval.datasets import (
    make_agent_task_scores,
    make_irt_responses,
    make_matches,
)
from sklearn_eval.game import AlphaRank, NashAverager, VotingRanker
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.uncertainty import rank_sets

# a league with near-ties: pairs 0.05 logits apart next to clear gaps
NEAR_TIES = np.array([1.0, 0.95, 0.6, 0.55, 0.2, 0.0, -0.05, -0.6])


def _league(strength, per_pair, rng, ties=0.0):
    """A round robin as vote counts (rows: pair and outcome, weight: count)."""
    n = strength.shape[0]
    first, second = np.triu_indices(n, k=1)
    p = expit(strength[first] - strength[second])
    win = (1 - ties) * p
    loss = (1 - ties) * (1 - p)
    counts = np.array([rng.multinomial(per_pair, [w, ties, lo])
                       for w, lo in zip(win, loss, strict=True)])
    rows = np.repeat(np.column_stack([first, second]), 3, axis=0)
    y = np.tile([1.0, 0.5, 0.0], first.shape[0])
    keep = counts.ravel() > 0
    return rows[keep], y[keep], counts.ravel()[keep].astype(float)


def _bonferroni(sets, level):
    """Rank sets of Bonferroni-corrected pairwise z-tests (the comparison)."""
    pairs = sets.pairs
    z = norm.ppf(1 - (1 - level) / (2 * len(pairs)))
    separated = (pairs["difference"] / pairs["se"]).to_numpy() > z
    labels = list(sets.labels)
    below = np.zeros(len(labels), int)  # agents confidently above each
    above = np.zeros(len(labels), int)
    for a, b in zip(pairs["agent_a"][separated], pairs["agent_b"][separated],
                    strict=True):
        above[labels.index(a)] += 1
        below[labels.index(b)] += 1
    return 1 + below, len(labels) - above


def _true_ranks(strength):
    return np.argsort(np.argsort(-strength)) + 1


@pytest.mark.slow
def test_coverage_on_leagues_with_near_ties():
    rng = np.random.default_rng(0)
    truth = _true_ranks(NEAR_TIES)
    n_reps = 200
    joint_hits, marginal_hits = 0, np.zeros(NEAR_TIES.shape[0])
    widths = {"joint": 0.0, "marginal": 0.0, "bonferroni": 0.0}
    for rep in range(n_reps):
        X, y, w = _league(NEAR_TIES, 150, rng)
        common = {"sample_weight": w, "frequency_weights": True,
                  "n_resamples": 500, "random_state": rep}
        joint = rank_sets(EloRanker(method="batch", scale="logit"), X, y, **common)
        marginal = rank_sets(EloRanker(method="batch", scale="logit"), X, y,
                             simultaneous=False, **common)
        joint_hits += np.all((joint.rank_low <= truth) & (truth <= joint.rank_high))
        marginal_hits += (marginal.rank_low <= truth) & (truth <= marginal.rank_high)
        low, high = _bonferroni(joint, 0.95)
        widths["joint"] += np.mean(joint.rank_high - joint.rank_low)
        widths["marginal"] += np.mean(marginal.rank_high - marginal.rank_low)
        widths["bonferroni"] += np.mean(high - low)
    mc = 2 * np.sqrt(0.95 * 0.05 / n_reps)
    assert joint_hits / n_reps >= 0.95 - mc
    assert np.mean(marginal_hits / n_reps) >= 0.95 - mc
    assert widths["joint"] < widths["bonferroni"]
    assert widths["marginal"] < widths["joint"]


def test_sets_hold_the_point_ranks_and_frame_is_best_first():
    X, y = make_matches(n_players=7, n_matches=2500, random_state=1)
    sets = rank_sets(EloRanker(method="batch"), X, y, random_state=0)
    frame = sets.to_frame()
    assert list(frame.columns) == ["score", "rank", "rank_low", "rank_high", "tier"]
    assert frame.index.name == "agent"
    assert frame["score"].is_monotonic_decreasing
    assert (frame["rank_low"] <= frame["rank"]).all()
    assert (frame["rank"] <= frame["rank_high"]).all()
    assert frame["tier"].is_monotonic_increasing and frame["tier"].iloc[0] == 1
    # the point leader may be first; every agent in the top set may be first
    top = sets.top_set(1)
    assert frame.index[0] in top
    assert set(top) == set(frame.index[frame["rank_low"] == 1])
    assert set(sets.top_set(3)) >= set(frame.index[:3])
    adjacent = sets.adjacent()
    assert len(adjacent) == 6 and (adjacent["difference"] >= 0).all()


def test_tiers_group_agents_not_separable_from_their_leader():
    rng = np.random.default_rng(3)
    X, y, w = _league(np.array([2.0, 1.95, 1.0, 0.98, 0.0]), 400, rng)
    sets = rank_sets(EloRanker(method="batch"), X, y, sample_weight=w,
                     frequency_weights=True, random_state=0)
    frame = sets.to_frame()
    assert frame["tier"].tolist() == [1, 1, 2, 2, 3]
    separated = {(a, b) for a, b, s in zip(sets.pairs["agent_a"],
                                           sets.pairs["agent_b"],
                                           sets.pairs["separated"], strict=True)
                 if s}
    for tier, members in frame.groupby("tier").groups.items():
        leader = members[0]
        assert not any((leader, m) in separated for m in members[1:]), tier


def test_deterministic_under_random_state_and_bootstrap_agrees():
    X, y = make_matches(n_players=5, n_matches=1500, random_state=2)
    one = rank_sets(EloRanker(method="batch"), X, y, random_state=7)
    two = rank_sets(EloRanker(method="batch"), X, y, random_state=7)
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    boot = rank_sets(EloRanker(method="batch"), X, y, method="bootstrap",
                     n_resamples=300, random_state=7)
    assert "bootstrap" in boot.method
    np.testing.assert_allclose(boot.pairs["se"], one.pairs["se"], rtol=0.25)


def test_groups_change_the_analytic_covariance_to_cluster_robust():
    X, y = make_matches(n_players=5, n_matches=1500, random_state=2)
    groups = np.arange(y.shape[0]) // 15
    sets = rank_sets(EloRanker(method="batch"), X, y, groups=groups,
                     random_state=0)
    assert sets.method.startswith("cluster-robust sandwich")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        tied = rank_sets(EloRanker(method="batch", ties="davidson"), X, y,
                         groups=groups, random_state=0)
        boot = rank_sets(EloRanker(method="batch", ties="davidson"), X, y,
                         groups=groups, method="bootstrap", n_resamples=50,
                         random_state=0)
    assert tied.method.startswith("cluster-robust sandwich")
    assert boot.method.startswith("cluster bootstrap")


def _matrix():
    return make_agent_task_scores(6, 30, random_state=0)


RANKERS = {
    "bt-davidson": (lambda: EloRanker(method="batch", ties="davidson"), "matches"),
    "online-elo": (lambda: EloRanker(), "matches"),
    "melo": (lambda: MultiElo(method="batch", alpha=0.01, random_state=0),
             "matches"),
    "nash": (lambda: NashAverager(), "matrix"),
    "alpharank": (lambda: AlphaRank(game="agent_vs_task", alpha=1.0), "matrix"),
    "voting": (lambda: VotingRanker(method="copeland"), "matrix"),
    "irt": (lambda: IRT2PL(random_state=0), "responses"),
    "generality": (lambda: GeneralityScorer(difficulty="rate", threshold=0.5),
                   "responses"),
    "mean": (lambda: "mean", "responses"),
}


@pytest.mark.parametrize("name", sorted(RANKERS))
def test_every_ranker_gets_rank_sets(name):
    make, data = RANKERS[name]
    if data == "matches":
        X, y = make_matches(n_players=5, n_matches=600, draw_rate=0.1,
                            random_state=0)
        args = (X, y)
    elif data == "matrix":
        args = (_matrix(),)
    else:
        args = (make_irt_responses(12, 30, random_state=0),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sets = rank_sets(make(), *args, n_resamples=30, random_state=0)
    frame = sets.to_frame()
    present = frame["rank"] > 0
    assert (frame["rank_low"][present] <= frame["rank"][present]).all()
    assert (frame["rank"][present] <= frame["rank_high"][present]).all()
    if name == "online-elo":
        assert sets.note.startswith("Online Elo")  # flagged as descriptive


def test_irt_abilities_take_the_analytic_path():
    X = make_irt_responses(30, 40, random_state=1)
    sets = rank_sets(IRT2PL(random_state=0), X, random_state=0)
    assert sets.method.startswith("posterior")


@pytest.mark.parametrize("groups, match", [
    (np.arange(10), "labels but there are"),
    (np.r_[np.nan, np.ones(599)], "missing label"),
    (np.zeros(600), "single cluster"),
])
def test_bad_groups_are_named(groups, match):
    X, y = make_matches(n_players=5, n_matches=600, random_state=0)
    with pytest.raises(ValueError, match=match):
        rank_sets(EloRanker(method="batch"), X, y, groups=groups)
    with pytest.raises(ValueError, match="groups"):
        rank_sets(EloRanker(method="batch"), X, y, groups=groups,
                  method="bootstrap", n_resamples=5)


def test_bad_arguments_are_named():
    X, y = make_matches(n_players=4, n_matches=300, random_state=0)
    with pytest.raises(TypeError, match="__sklearn_eval_intervals__"):
        rank_sets(object(), X, y)
    with pytest.raises(ValueError, match="method must be"):
        rank_sets(EloRanker(method="batch"), X, y, method="exact")
    with pytest.raises(TypeError, match="simultaneous"):
        rank_sets(EloRanker(method="batch"), X, y, simultaneous="yes")
    with pytest.raises(ValueError, match="confidence_level"):
        rank_sets(EloRanker(method="batch"), X, y, confidence_level=1.5)
    sets = rank_sets(EloRanker(method="batch"), X, y, random_state=0)
    with pytest.raises(ValueError, match="k must be"):
        sets.top_set(0)
    with pytest.raises(ValueError, match="groups applies"):
        rank_sets(IRT2PL(random_state=0), make_irt_responses(10, 8, random_state=0),
                  target="difficulty", method="bootstrap", n_resamples=5,
                  groups=np.arange(10) // 5)
