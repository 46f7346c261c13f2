"""The match report's model choices: the prior, the tie model, the cyclic null.

The prior follows the existence of the maximum-likelihood ratings (user
guide, "Pairwise ratings"); the cyclic share of the win-rate game is judged
against leagues simulated from the fitted ratings on the same schedule (a
parametric bootstrap), so that sampling noise, which is mostly cyclic when
each pair meets a few times (Balduzzi et al., 2018), is not called a cycle.
"""

import numpy as np
import pytest

from sklearn_eval.pairwise import EloRanker, maximum_likelihood_exists
from sklearn_eval.report import analyze_matches, prepare_matches


def _league(rng, strength_of, n_players=12, meetings=4, draw=0.25):
    """Every pair meets ``meetings`` times; outcome probabilities from
    ``strength_of(i, j)`` (logit of the first player's win), draws thrown
    in at rate ``draw``."""
    pairs = np.array(
        [(i, j) for i in range(n_players) for j in range(n_players) if i < j]
    )
    pairs = np.repeat(pairs, meetings, axis=0)
    swap = rng.random(len(pairs)) < 0.5
    pairs[swap] = pairs[swap][:, ::-1]
    d = np.array([strength_of(i, j) for i, j in pairs])
    p = 1.0 / (1.0 + np.exp(-d))
    u = rng.random(len(pairs))
    y = np.where(u < draw, 0.5, (rng.random(len(pairs)) < p).astype(float))
    names = np.array([f"team{k:02d}" for k in range(n_players)], dtype=object)
    return names[pairs], y


def _transitive(rng):
    skill = rng.normal(0.0, 1.0, 12)
    return lambda i, j: skill[i] - skill[j]


def _cyclic(rng):
    # three groups in rock-paper-scissors, plus a small transitive part
    group = np.arange(12) % 3
    skill = rng.normal(0.0, 0.3, 12)

    def strength(i, j):
        beats = (group[i] - group[j]) % 3
        return skill[i] - skill[j] + (2.5 if beats == 1 else -2.5 if beats == 2 else 0)

    return strength


@pytest.mark.parametrize("seed", range(4))
def test_noise_of_a_transitive_league_is_not_called_cyclic(seed):
    rng = np.random.default_rng(seed)
    X, y = _league(rng, _transitive(rng))
    analysis = analyze_matches(prepare_matches(X, y), n_resamples=0)
    hodge = analysis.hodge
    # a few games per pair: noise alone gives a large cyclic share ...
    assert hodge.cyclic > 0.2
    # ... which the simulated transitive leagues reproduce
    assert not hodge.beyond_noise
    assert hodge.null.p_value > 0.01
    assert hodge.null.cutoff >= hodge.null.mean > 0.0


@pytest.mark.parametrize("seed", range(3))
def test_a_rock_paper_scissors_league_is_called_cyclic(seed):
    rng = np.random.default_rng(100 + seed)
    X, y = _league(rng, _cyclic(rng))
    analysis = analyze_matches(prepare_matches(X, y), n_resamples=0)
    assert analysis.hodge.beyond_noise
    assert analysis.hodge.cyclic > analysis.hodge.null.cutoff


def test_prior_follows_the_existence_of_the_maximum_likelihood_ratings():
    rng = np.random.default_rng(7)
    X, y = _league(rng, _transitive(rng))
    assert maximum_likelihood_exists(X, y)
    analysis = analyze_matches(prepare_matches(X, y), n_resamples=0, ties="half")
    assert analysis.ratings.alpha == 0.0
    # an undefeated newcomer: the maximum-likelihood ratings are infinite
    newcomer = np.array([["newcomer", label] for label in X[:5, 0]], dtype=object)
    X2, y2 = np.vstack([X, newcomer]), np.concatenate([y, np.ones(5)])
    assert not maximum_likelihood_exists(X2, y2)
    analysis = analyze_matches(prepare_matches(X2, y2), n_resamples=0, ties="half")
    assert analysis.ratings.alpha == 0.01
    assert "weak L2 prior" in analysis.ratings.note
    expected = EloRanker(method="batch", alpha=0.01).fit(X2, y2)
    np.testing.assert_allclose(analysis.ratings.ratings, expected.agent_scores_)


def test_without_draws_the_ratings_are_bradley_terry():
    rng = np.random.default_rng(3)
    X, y = _league(rng, _transitive(rng), draw=0.0)
    analysis = analyze_matches(prepare_matches(X, y), n_resamples=0)
    assert analysis.ratings.ties == "half" and analysis.ratings.tie_scores == {}
    expected = EloRanker(method="batch").fit(X, y)
    np.testing.assert_allclose(analysis.ratings.ratings, expected.agent_scores_)
