"""alpha-Rank over the whole double range: scale families 1e-300 .. 1.7e308.

alpha-Rank depends on the payoffs only through ``alpha * gain``, so scaling a
game by ``s`` and ``alpha`` by ``1 / s`` leaves every distribution unchanged
(scale equivariance of ``alpha``); ``alpha=np.inf``, ``alpha="auto"`` and
the normalised agent-vs-task games are scale invariant outright
(Omidshafiei et al., 2019; user guide, "Game-theoretic and social-choice
rankings").
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_eval.datasets import make_cyclic_game
from sklearn_eval.game import AlphaRank

EXPONENTS = st.integers(min_value=-300, max_value=307)


def _logits(seed, n=5):
    A = make_cyclic_game(n, cyclic_rank=1, random_state=seed)
    return A / np.max(np.abs(A))  # max |A| = 1: A * 1.7e308 stays finite


def _scores(seed, shape=(4, 3)):
    S = np.random.default_rng(seed).normal(size=shape)
    return S / np.max(np.abs(S))


def _fit(X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return AlphaRank(**params).fit(X)


def _check_distribution(pi):
    assert np.all(np.isfinite(pi)) and np.all(pi >= 0)
    assert pi.sum() == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 50), exponent=EXPONENTS,
       payoff=st.sampled_from(["logit", "payoff"]))
def test_scaling_the_game_scales_alpha(seed, exponent, payoff):
    A = _logits(seed)
    if payoff == "payoff":  # a general symmetric game: no antisymmetry
        A = A + 0.5 * np.abs(_logits(seed + 1))
    scale = 10.0**exponent
    for alpha in (0.5, 5.0):
        ref = _fit(A, alpha=alpha, payoff=payoff).agent_distribution_
        got = _fit(A * scale, alpha=alpha / scale, payoff=payoff)
        _check_distribution(got.agent_distribution_)
        assert_allclose(got.agent_distribution_, ref, atol=1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 50), exponent=EXPONENTS)
def test_infinite_and_auto_alpha_are_scale_invariant(seed, exponent):
    A = _logits(seed)
    scale = 10.0**exponent
    for alpha in (np.inf, "auto"):
        ref = _fit(A, alpha=alpha, payoff="logit")
        got = _fit(A * scale, alpha=alpha, payoff="logit")
        _check_distribution(got.agent_distribution_)
        assert_allclose(got.agent_distribution_, ref.agent_distribution_, atol=1e-9)
        if alpha == "auto":  # the swept alphas scale as 1 / s
            assert_allclose(got.alphas_ * scale, ref.alphas_, rtol=1e-9)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("scale", [1.7e308, 1e300, 1e-300, 5e-324])
def test_transitive_logits_at_the_ends_of_the_range(scale, sign):
    # agent 0 beats 1 beats 2 (or the reverse): the limit is all on the best
    L = sign * np.array([[0.0, 1.0, 1.0], [-1.0, 0.0, 1.0], [-1.0, -1.0, 0.0]])
    best = 0 if sign > 0 else 2
    for alpha in (np.inf, "auto"):
        pi = _fit(L * scale, alpha=alpha, payoff="logit").agent_distribution_
        _check_distribution(pi)
        assert np.argmax(pi) == best
    pi = _fit(L * scale, alpha=np.inf, payoff="logit").agent_distribution_
    assert pi[best] == 1.0


@pytest.mark.parametrize("normalize", ["minmax", "zscore"])
@pytest.mark.parametrize("scale", [1.7e308, -1.7e308, 1e300, 1e-300, -1e-300])
def test_normalised_tasks_are_scale_invariant(normalize, scale):
    # minmax and zscore are invariant under x -> s x for s > 0; s < 0 flips
    # every task, which is the game on -S
    S = _scores(0)
    reference = S if scale > 0 else -S
    for alpha in (1.0, 1e308, np.inf, "auto"):
        params = dict(game="agent_vs_task", normalize=normalize, alpha=alpha)
        got = _fit(S * scale, **params)
        ref = _fit(reference, **params)
        _check_distribution(got.agent_distribution_)
        assert_allclose(got.agent_distribution_, ref.agent_distribution_,
                        atol=1e-9)
        assert np.all(np.isfinite(got.payoff_))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("game", ["agent_vs_agent", "agent_vs_task"])
def test_alpha_up_to_the_largest_double_is_continuous(seed, game):
    # from alpha * gain ~ 1e300 on, the chain is solved in leading order; the
    # distribution must not jump there and must agree with the limit once
    # every fixation is saturated (no near-ties in these games)
    if game == "agent_vs_agent":
        X, params = _logits(seed), {"payoff": "logit"}
    else:
        X, params = _scores(seed), {"game": "agent_vs_task"}
    alphas = [1e4, 1e100, 1e290, 1e299, 1e300, 1e302, 1e307, 1e308,
              np.finfo(np.float64).max]
    fits = [_fit(X, alpha=a, **params) for a in alphas]
    limit = fits[0].limit_distribution_
    for fit in fits:
        _check_distribution(fit.agent_distribution_)
        assert_allclose(fit.agent_distribution_, limit, atol=1e-9)
    assert {fit.solver_ for fit in fits[-3:]} == {"leading-order"}


@pytest.mark.parametrize("value", [1e-300, 1e-16, 1.0 - 1e-16])
def test_probabilities_at_their_bounds(value):
    P = np.full((3, 3), 0.5)
    P[0, 1], P[1, 0] = 1.0 - value, value
    P[0, 2], P[2, 0] = value, 1.0 - value
    P[1, 2], P[2, 1] = 0.5, 0.5
    for alpha in (1.0, 1e308, np.inf, "auto"):
        fit = _fit(P, alpha=alpha, payoff="probability")
        _check_distribution(fit.agent_distribution_)


def test_sweep_at_huge_alpha_matches_fit():
    A = _logits(3) * 1e300
    fit = _fit(A, alpha=1e-300, payoff="logit")
    path = fit.sweep([1e-300, 1e8, 1.7e308, np.inf])
    assert np.all(np.isfinite(path))
    assert_allclose(path[0], fit.agent_distribution_, atol=1e-12)
    assert_allclose(path[2], fit.limit_distribution_, atol=1e-9)
