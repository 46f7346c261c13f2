"""ActiveSampler: which pairs to vote on next, and the stopping rule.

The stopping rule is the simultaneous rank sets of Mogstad et al. (2024);
the sampling rule spends votes on the unsettled pairs that matter for the
goal (see the user guide, "Is the ranking settled?"). On leagues of 16
agents, active sampling settles the top-1 with far fewer votes than uniform
pairing under the same rule.
"""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.exceptions import NotFittedError

from sklearn_eval.datasets import make_matches
from sklearn_eval.pairwise import ActiveSampler, EloRanker

LEAGUE = np.r_[[1100.0, 1060.0, 1040.0, 1030.0], np.linspace(900.0, 1000.0, 12)]


def _vote(pairs, truth, rng):
    p = expit((truth[pairs[:, 0]] - truth[pairs[:, 1]]) * np.log(10) / 400)
    return (rng.random(pairs.shape[0]) < p).astype(float)


def _run(strategy, seed, truth, batch=200, budget=24_000, target="top-1"):
    rng = np.random.default_rng(seed)
    first, second = np.triu_indices(truth.shape[0], k=1)
    start = np.repeat(np.column_stack([first, second]), 3, axis=0)
    sampler = ActiveSampler(strategy=strategy, random_state=seed)
    sampler.fit(start, _vote(start, truth, rng))
    total = start.shape[0]
    while total < budget and not sampler.is_settled(target):
        pairs = sampler.next_pairs(batch).astype(int)
        sampler.partial_fit(pairs, _vote(pairs, truth, rng))
        total += batch
    return total, sampler


@pytest.mark.slow
def test_active_sampling_settles_the_top_with_far_fewer_votes():
    ratios = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(5):
            active, sampler = _run("top-k", seed, LEAGUE)
            uniform, _ = _run("uniform", seed, LEAGUE)
            ratios.append(active / uniform)
            if sampler.is_settled("top-1"):  # a settled top-1 is the true best
                assert sampler.agents_[np.argmax(sampler.agent_scores_)] == 0
                assert sampler.rank_low_[np.argmax(sampler.agent_scores_)] == 1
    assert np.median(ratios) <= 0.4


@pytest.mark.slow
def test_ranking_strategy_is_no_worse_than_uniform_on_rank_set_width():
    truth = np.linspace(1200.0, 900.0, 16)
    widths = {"ranking": [], "uniform": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(4):
            for strategy in widths:
                _, sampler = _run(strategy, seed, truth, budget=6000,
                                  target="ranking")
                widths[strategy].append(
                    np.mean(sampler.rank_high_ - sampler.rank_low_))
    assert np.median(widths["ranking"]) <= np.median(widths["uniform"])


def test_partial_fit_equals_a_fit_on_all_votes():
    X, y = make_matches(n_players=6, n_matches=900, random_state=0)
    whole = ActiveSampler(random_state=0).fit(X, y)
    parts = ActiveSampler(random_state=0).fit(X[:400], y[:400])
    parts.partial_fit(X[400:], y[400:])
    np.testing.assert_allclose(parts.agent_scores_, whole.agent_scores_,
                               atol=1e-6)
    np.testing.assert_array_equal(parts.next_pairs(5), whole.next_pairs(5))
    ref = EloRanker(method="batch").fit(X, y)
    np.testing.assert_allclose(whole.agent_scores_, ref.ratings_, atol=1e-6)
    assert whole.n_votes_ == 900


def test_next_pairs_name_agents_and_target_the_undecided_top():
    rng = np.random.default_rng(0)
    truth = np.array([1300.0, 1290.0, 1000.0, 900.0, 800.0])
    first, second = np.triu_indices(5, k=1)
    X = np.repeat(np.column_stack([first, second]), 60, axis=0)
    sampler = ActiveSampler(random_state=0).fit(X, _vote(X, truth, rng))
    pairs = sampler.next_pairs(10)
    assert pairs.shape == (10, 2)
    assert set(pairs.ravel()) <= set(sampler.agents_)
    # only the two contenders for first place are left to compare
    assert {frozenset(p) for p in pairs.tolist()} == {frozenset((0, 1))}
    assert not sampler.is_settled("top-1")
    assert sampler.is_settled("top-k", k=2)


def test_a_separated_league_is_settled():
    rng = np.random.default_rng(1)
    truth = np.array([1600.0, 1300.0, 1000.0, 700.0])
    first, second = np.triu_indices(4, k=1)
    X = np.repeat(np.column_stack([first, second]), 100, axis=0)
    sampler = ActiveSampler(random_state=0).fit(X, _vote(X, truth, rng))
    assert sampler.is_settled("ranking") and sampler.is_settled("top-1")
    assert (sampler.rank_low_ == sampler.rank_high_).all()


def test_bad_input_is_named():
    X, y = make_matches(n_players=4, n_matches=200, random_state=0)
    with pytest.raises(NotFittedError):
        ActiveSampler().next_pairs(2)
    sampler = ActiveSampler().fit(X, y)
    with pytest.raises(ValueError, match="n must be"):
        sampler.next_pairs(0)
    with pytest.raises(ValueError, match="target must be"):
        sampler.is_settled("top-2")
    with pytest.raises(ValueError, match="k must be"):
        sampler.is_settled("top-k", k=9)
    with pytest.raises(ValueError, match="estimator must be"):
        ActiveSampler(EloRanker()).fit(X, y)
    with pytest.raises(ValueError, match="strategy"):
        ActiveSampler(strategy="greedy").fit(X, y)
