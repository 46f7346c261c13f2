"""Numerical stress: no overflow, no NaN, warnings where estimates are unreliable.

Near-separable IRT data, 0/1 win rates, nearly duplicated agents, extreme step
sizes, 10,000-player Elo and 5,000-task selection. The heaviest cases are
marked ``slow`` (CI runs them with ``--runslow``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from sklearn_eval import EloRanker, InfoGainSelector, MultiElo, NashAverager
from sklearn_eval.datasets import make_matches
from sklearn_eval.game import fill_win_rates, symmetric_maxent_nash
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.selection import information_gain
from sklearn_eval.utils import matches_to_win_rate


def _finite(values):
    return bool(np.isfinite(np.asarray(values, dtype=np.float64)).all())


def _guttman(n_agents=200, n_items=10, noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(size=n_agents))
    b = np.linspace(-1.5, 1.5, n_items)
    X = (theta[:, None] > b[None, :]).astype(float)
    flip = rng.random(X.shape) < noise
    X[flip] = 1.0 - X[flip]
    return X


# ---------------------------------------------------------------------------
# IRT on (near-)separable data
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("noise", [0.0, 0.01])
@pytest.mark.parametrize("ability_method", ["map", "eap"])
def test_irt_separable_items_warn_and_stay_finite(noise, ability_method):
    X = _guttman(noise=noise)
    with pytest.warns(UserWarning, match=r"\|discrimination\| > 10"):
        model = IRT2PL(ability_method=ability_method).fit(X)
    assert _finite(model.discrimination_) and _finite(model.difficulty_)
    assert _finite(model.abilities_) and _finite(model.abilities_sd_)
    assert _finite(model.transform(X)) and _finite(model.log_likelihood_)
    proba = model.predict_proba(X) if hasattr(model, "predict_proba") else None
    if proba is not None:
        assert _finite(proba) and proba.min() >= 0 and proba.max() <= 1
    # the difficulties still order the items as the data do
    assert np.all(np.diff(model.difficulty_) > 0)


def test_irt_prior_keeps_separable_items_finite_and_quiet():
    X = _guttman()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = IRT2PL(a_prior=(1.0, 2.0)).fit(X)
    assert np.abs(model.discrimination_).max() < 10
    assert np.all(np.diff(model.difficulty_) > 0)


def test_irt_agents_with_all_or_nothing_stay_finite():
    X = _guttman(n_agents=100, noise=0.05, seed=1)
    X[0] = 0.0
    X[1] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT2PL(a_prior=(1.0, 2.0)).fit(X)
    assert _finite(model.abilities_)
    assert model.abilities_[0] == model.abilities_.min()
    assert model.abilities_[1] == model.abilities_.max()


def test_generality_of_perfect_agents_is_infinite_by_design_or_capped():
    X = _guttman(n_agents=30, n_items=12, noise=0.0)
    difficulty = np.linspace(-1.5, 1.5, 12)
    scorer = GeneralityScorer(difficulty=difficulty, bins=4, min_tasks_per_bin=1)
    out = scorer.fit_transform(X)
    names = list(scorer.get_feature_names_out())
    gen = out[:, names.index("generality")]
    assert np.all(gen > 0) and not np.isnan(gen).any()
    capped = GeneralityScorer(
        difficulty=difficulty, bins=4, min_tasks_per_bin=1, max_generality=1e6
    ).fit_transform(X)
    assert _finite(capped[:, names.index("generality")])
    assert _finite(capped[:, names.index("capability")])


# ---------------------------------------------------------------------------
# 0/1 win rates and undefeated players
# ---------------------------------------------------------------------------
def test_nash_on_zero_one_win_rates_is_finite():
    P = np.triu(np.ones((6, 6)), 1)  # i beats every j > i with probability 1
    np.fill_diagonal(P, 0.5)
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    assert _finite(nash.payoff_) and np.abs(nash.payoff_).max() < 7.0
    assert nash.agent_distribution_[0] == pytest.approx(1.0)
    assert _finite(nash.transform(P))
    # the exactness of the clip: logit(1 - 1e-3)
    assert nash.payoff_[0, 1] == pytest.approx(np.log(999.0))


def test_undefeated_player_warns_and_ratings_stay_finite():
    X = np.array([["a", "b"], ["a", "c"], ["b", "c"], ["c", "b"]] * 5)
    y = np.ones(len(X))
    with pytest.warns(ConvergenceWarning, match="undefeated"):
        elo = EloRanker(method="batch").fit(X, y)
    assert _finite(elo.ratings_) and elo.ratings_[0] == elo.ratings_.max()
    with pytest.warns(ConvergenceWarning):
        melo = MultiElo(method="batch", alpha=0.0, random_state=0).fit(X, y)
    assert _finite(melo.ratings_)
    assert _finite(EloRanker(method="batch", alpha=1.0).fit(X, y).ratings_)


def test_zero_one_empirical_win_rates_filled_and_solved():
    X = np.array([["a", "b"], ["b", "c"], ["a", "c"]] * 4)
    y = np.ones(len(X))
    rates, counts, players = matches_to_win_rate(X, y)
    assert np.nanmax(rates) == 1.0 and np.nanmin(rates) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        filled = fill_win_rates(X, y)
    values = np.asarray(filled[0], dtype=float)
    assert _finite(values)
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(values)
    assert _finite(nash.agent_skill_)


# ---------------------------------------------------------------------------
# nearly duplicated agents
# ---------------------------------------------------------------------------
def test_nash_nearly_duplicated_agents_split_the_mass():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(5, 6))
    base = NashAverager().fit(S)
    twin = np.vstack([S, S[0] + 1e-13 * rng.normal(size=6)])
    nash = NashAverager().fit(twin)
    assert _finite(nash.agent_distribution_)
    mass = nash.agent_distribution_[0] + nash.agent_distribution_[5]
    assert mass == pytest.approx(base.agent_distribution_[0], abs=1e-6)
    assert_allclose(nash.difficulty_, base.difficulty_, atol=1e-8)


def test_symmetric_game_with_nearly_duplicated_agents():
    rng = np.random.default_rng(1)
    G = rng.normal(size=(5, 5))
    A = G - G.T
    index = np.r_[np.arange(5), 2]
    B = A[index][:, index]
    B[5, :] += 1e-12
    B[:, 5] -= 1e-12
    B[5, 5] = 0.0
    ne = symmetric_maxent_nash(B)
    assert _finite(ne.row) and ne.row.sum() == pytest.approx(1.0)
    assert np.max(B @ ne.row) <= 1e-8


def test_information_gain_of_identical_agents_is_bounded():
    rng = np.random.default_rng(2)
    means = rng.normal(size=(6, 4)) * 100
    means[5] = means[4] + 1e-14
    stds = np.full_like(means, 1e-3)
    gain = information_gain(means, stds)
    # agents 4 and 5 cannot be told apart: at most log2(n) - 2/n bits
    assert gain <= np.log2(6) - 2 / 6 + 1e-9
    assert gain >= np.log2(6) - 2 / 6 - 1e-6


def test_irt_with_duplicated_agents_and_items():
    X = _guttman(n_agents=80, n_items=6, noise=0.1, seed=3)
    X = np.column_stack([X, X[:, 2]])
    X = np.vstack([X, X[:10]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT2PL(a_prior=(1.0, 2.0)).fit(X)
    assert model.difficulty_[6] == pytest.approx(model.difficulty_[2], abs=1e-6)
    assert_allclose(model.abilities_[80:], model.abilities_[:10], atol=1e-8)


# ---------------------------------------------------------------------------
# extreme step sizes and long streams
# ---------------------------------------------------------------------------
def test_huge_k_factor_gives_extreme_but_finite_probabilities():
    X, y = make_matches(n_players=20, n_matches=2000, random_state=0)
    with pytest.warns(UserWarning, match="single matches dominate"):
        elo = EloRanker(k_factor=1e6).fit(X, y)
    assert _finite(elo.ratings_)
    proba = elo.predict_proba(X)
    assert _finite(proba) and proba.min() >= 0 and proba.max() <= 1
    assert _finite(elo.decision_function(X))
    assert np.isfinite(elo.score(X, y))


def test_diverging_multi_elo_raises_instead_of_returning_nan():
    X, y = make_matches(n_players=20, n_matches=2000, cyclic_strength=2, random_state=0)
    with pytest.raises(FloatingPointError, match="diverged"), pytest.warns(
        UserWarning, match="single matches dominate"
    ):
        MultiElo(k_factor=1e300, lr_vectors=1e300, random_state=0).fit(X, y)


def test_ten_thousand_player_elo():
    X, y = make_matches(n_players=10_000, n_matches=100_000, random_state=0)
    for est in (
        EloRanker(),
        EloRanker(method="batch", alpha=0.1),
        MultiElo(random_state=0),
    ):
        est.fit(X, y)
        assert est.players_.shape == (10_000,)
        assert _finite(est.ratings_)
        assert _finite(est.predict_proba(X[:1000]))
    assert est.ratings_.std() > 0


@pytest.mark.slow
def test_ten_thousand_player_batch_fits_on_a_million_matches():
    X, y = make_matches(n_players=10_000, n_matches=1_000_000, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        elo = EloRanker(method="batch").fit(X, y)
        melo = MultiElo(method="batch", random_state=0, max_iter=50).fit(X, y)
    assert _finite(elo.ratings_) and _finite(melo.ratings_)
    assert elo.ratings_.mean() == pytest.approx(1500.0)


def test_five_thousand_task_selection():
    rng = np.random.default_rng(0)
    means = rng.normal(size=(12, 5000))
    stds = rng.uniform(0.1, 1.0, size=means.shape)
    selector = InfoGainSelector(n_tasks=10, input="agents").fit(means, X_std=stds)
    assert _finite(selector.information_gain_)
    assert selector.information_gain_.max() <= np.log2(12) + 1e-12
    assert selector.cumulative_gain_[-1] <= np.log2(12) + 1e-12
    assert selector.support_.sum() == 10


def test_five_thousand_task_selection_from_runs():
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(40), 5)
    X = rng.normal(size=(200, 5000)) + rng.normal(size=(40, 5000))[y]
    # a fifth of the first runs missing: every agent keeps >= 4 runs per task
    X[(rng.random(X.shape) < 0.2) & (np.arange(200) % 5 == 0)[:, None]] = np.nan
    selector = InfoGainSelector(n_tasks=20).fit(X, y)
    assert _finite(selector.information_gain_)
    assert selector.cumulative_gain_[-1] <= np.log2(40) + 1e-12
