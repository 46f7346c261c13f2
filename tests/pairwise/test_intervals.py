"""Intervals for batch Bradley-Terry ratings: fast bootstrap and sandwich."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from sklearn_eval.pairwise import (
    EloRanker,
    bootstrap_bradley_terry,
    bootstrap_online_elo,
    bradley_terry_covariance,
    bradley_terry_intervals,
)
from sklearn_eval.pairwise._intervals import (
    _draw_counts,
    _encode,
    _fit_counts,
    _fit_full,
    _logit_ratings,
)
from sklearn_eval.uncertainty import (
    bootstrap_ranking,
    ranking_intervals,
    summarize_samples,
)


def _simulate(seed, n_players=12, n_matches=2000, sd=1.0, draw_rate=0.0,
              labels=True):
    """Bradley-Terry matches; draws keep E[y] = sigmoid(s_i - s_j)."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(scale=sd, size=n_players)
    i = rng.integers(0, n_players, n_matches)
    j = (i + rng.integers(1, n_players, n_matches)) % n_players
    p = expit(strength[i] - strength[j])
    win = np.clip((p - 0.5 * draw_rate) / (1.0 - draw_rate), 0.0, 1.0)
    y = (rng.random(n_matches) < win).astype(float)
    y[rng.random(n_matches) < draw_rate] = 0.5
    names = np.array([f"p{k:02d}" for k in range(n_players)])
    X = np.column_stack([names[i], names[j]]) if labels else np.column_stack([i, j])
    return X, y, strength - strength.mean()


@pytest.mark.parametrize(
    "params, weighted",
    [
        ({}, False),
        ({"alpha": 0.5}, False),
        ({"first_advantage": 30.0}, True),
        ({"scale": "logit", "initial_rating": 2.0}, True),
    ],
)
def test_one_fast_resample_is_the_estimator_refit_on_the_counts(params, weighted):
    X, y, _ = _simulate(0, n_players=8, n_matches=600, draw_rate=0.2)
    weight = np.random.default_rng(1).choice([0.5, 1.0, 2.0], len(y)) if weighted \
        else None
    estimator = EloRanker(method="batch", **params)
    full = _fit_full(estimator, X, y, weight)
    outcomes = _encode(full, X, y, weight)
    counts = _draw_counts(outcomes, np.random.default_rng(3))
    fast = _fit_counts(outcomes, counts, full, _logit_ratings(full))
    # the same resample as explicit weighted matches, fitted from scratch
    players = full.players_
    X_u = np.column_stack([players[outcomes.first], players[outcomes.second]])
    keep = counts > 0
    refit = EloRanker(method="batch", **params).fit(
        X_u[keep], outcomes.y[keep],
        sample_weight=(counts * outcomes.weight)[keep],
    )
    np.testing.assert_allclose(fast, refit.ratings_, rtol=0, atol=1e-7)


def test_both_count_draws_are_bootstrap_counts():
    X, y, _ = _simulate(0, n_players=4, n_matches=5000)
    full = _fit_full(EloRanker(method="batch"), X, y, None)
    outcomes = _encode(full, X, y, None)
    # 4 players: 12 ordered pairs x 2 outcomes <= 24 categories << 5000 matches
    assert outcomes.count.shape[0] <= 24
    assert outcomes.count.sum() == 5000
    draws = np.array([_draw_counts(outcomes, np.random.default_rng(s))
                      for s in range(400)])
    assert np.all(draws.sum(axis=1) == 5000)
    expected = outcomes.count
    np.testing.assert_allclose(draws.mean(axis=0), expected,
                               atol=4 * np.sqrt(expected.max() / 400) + 1)
    # the index-draw branch (few matches per category) has the same law
    X2, y2, _ = _simulate(1, n_players=30, n_matches=300)
    full2 = _fit_full(EloRanker(method="batch", alpha=1.0), X2, y2, None)
    outcomes2 = _encode(full2, X2, y2, None)
    draws2 = np.array([_draw_counts(outcomes2, np.random.default_rng(s))
                       for s in range(200)])
    assert np.all(draws2.sum(axis=1) == 300)
    np.testing.assert_allclose(draws2.mean(axis=0), outcomes2.count, atol=0.5)


def test_fast_path_matches_refitting_resampled_rows_in_distribution():
    X, y, _ = _simulate(2, n_players=6, n_matches=1500)
    kwargs = dict(statistic="ratings_", resample="matches", n_resamples=300,
                  random_state=0)
    fast = bootstrap_ranking(EloRanker(method="batch"), X, y, **kwargs)
    slow = bootstrap_ranking(EloRanker(method="batch"), X, y, fast=False, **kwargs)
    np.testing.assert_allclose(fast.estimate, slow.estimate)
    sd_fast = np.nanstd(fast.samples, axis=0)
    sd_slow = np.nanstd(slow.samples, axis=0)
    np.testing.assert_allclose(sd_fast, sd_slow, rtol=0.2)
    np.testing.assert_allclose(fast.samples.mean(axis=0), slow.samples.mean(axis=0),
                               atol=0.3 * sd_slow.max())


def test_fast_bootstrap_is_reproducible_across_n_jobs():
    X, y, _ = _simulate(3, n_players=10, n_matches=3000)
    kwargs = dict(n_resamples=40, random_state=11)
    one = bootstrap_bradley_terry(EloRanker(method="batch"), X, y, n_jobs=1,
                                  **kwargs)
    two = bootstrap_bradley_terry(EloRanker(method="batch"), X, y, n_jobs=2,
                                  **kwargs)
    np.testing.assert_allclose(one.samples, two.samples, rtol=1e-12)
    other = bootstrap_bradley_terry(EloRanker(method="batch"), X, y, n_jobs=1,
                                    n_resamples=40, random_state=12)
    assert not np.allclose(one.samples, other.samples)


def test_bootstrap_and_sandwich_agree_and_rank_intervals_are_sensible():
    X, y, truth = _simulate(4, n_players=8, n_matches=4000)
    boot = ranking_intervals(EloRanker(method="batch"), X, y, n_resamples=400,
                             random_state=0)
    wald = ranking_intervals(EloRanker(method="batch"), X, y, method="analytic",
                             random_state=0)
    assert boot.method == "percentile bootstrap" and wald.method == "sandwich"
    np.testing.assert_allclose(boot.estimate, wald.estimate)
    np.testing.assert_allclose(boot.high - boot.low, wald.high - wald.low, rtol=0.2)
    for res in (boot, wald):
        assert np.all(res.rank_low <= res.rank) and np.all(res.rank <= res.rank_high)
        np.testing.assert_allclose(res.prob_above + res.prob_above.T, 1.0)
        best, worst = np.argmax(res.estimate), np.argmin(res.estimate)
        assert res.prob_above[best, worst] > 0.99
    np.testing.assert_allclose(boot.prob_above, wald.prob_above, atol=0.1)
    # the estimate tracks the truth (Elo scale)
    assert np.corrcoef(wald.estimate, truth)[0, 1] > 0.95


def test_covariance_gauge_and_draws():
    X, y, _ = _simulate(5, draw_rate=0.4, sd=0.4)
    full = EloRanker(method="batch", scale="logit").fit(X, y)
    sandwich = bradley_terry_covariance(full, X, y)
    observed = bradley_terry_covariance(full, X, y, covariance="observed")
    for cov in (sandwich, observed):
        np.testing.assert_allclose(cov, cov.T)
        # mean-zero ratings: the covariance annihilates the constant vector
        np.testing.assert_allclose(cov.sum(axis=1), 0.0, atol=1e-12)
        assert np.all(np.linalg.eigvalsh(cov) > -1e-12)
    # draws carry less variance than a win/loss: the sandwich is tighter
    assert np.all(np.diag(sandwich) < np.diag(observed))
    # with a prior the covariance is full rank and shrinks
    shrunk = bradley_terry_covariance(
        EloRanker(method="batch", scale="logit", alpha=50.0).fit(X, y), X, y
    )
    assert np.all(np.diag(shrunk) < np.diag(sandwich))
    elo = bradley_terry_covariance(EloRanker(method="batch").fit(X, y), X, y)
    np.testing.assert_allclose(elo, sandwich * (400 / np.log(10)) ** 2, rtol=1e-6)


def test_absent_player_is_nan_in_that_resample():
    X = np.array([["a", "b"], ["b", "a"], ["b", "c"], ["c", "b"], ["a", "c"],
                  ["c", "a"], ["d", "a"], ["a", "d"]])
    y = np.array([1, 1, 1, 0, 0, 1, 1, 0], float)
    res = bootstrap_bradley_terry(EloRanker(method="batch", alpha=0.1), X, y,
                                  n_resamples=60, random_state=0)
    missing = np.isnan(res.samples)
    assert missing.any() and not missing.all(axis=0).any()
    present = ~missing
    # each resample's ratings are anchored over the players it contains
    means = np.nanmean(res.samples, axis=1)
    assert present.all(axis=1).sum() > 0
    np.testing.assert_allclose(means[present.all(axis=1)], 1500.0, atol=1e-6)


def test_errors():
    X, y, _ = _simulate(6, n_players=4, n_matches=200)
    with pytest.raises(TypeError, match="method='batch'"):
        bootstrap_bradley_terry(EloRanker(), X, y)
    with pytest.raises(ValueError, match="covariance must be one of"):
        bradley_terry_covariance(EloRanker(method="batch").fit(X, y), X, y,
                                 covariance="hc3")
    with pytest.raises(ValueError, match="No analytic intervals"):
        ranking_intervals(EloRanker(), X, y, method="analytic")
    with pytest.raises(ValueError, match="need y"):
        ranking_intervals(EloRanker(method="batch"), X)
    with pytest.raises(ValueError, match="target must be one of"):
        ranking_intervals(EloRanker(method="batch"), X, y, target="vectors")
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_bradley_terry(EloRanker(method="batch"), X, y, n_resamples=1)


def test_online_elo_bootstrap_keeps_match_order_and_says_it_is_descriptive():
    # a player who wins early and loses late: the online rating depends on
    # the order, and every resample must keep the chronological order
    X = np.array([["a", "b"]] * 40 + [["b", "a"]] * 40)
    y = np.ones(80)
    seen = []

    class Spy(EloRanker):
        def fit(self, X, y, sample_weight=None):
            first = np.asarray(X)[:, 0]
            seen.append(np.all(np.diff((first == "b").astype(int)) >= 0))
            return super().fit(X, y, sample_weight)

    res = bootstrap_ranking(Spy(), X, y, statistic="ratings_", resample="matches",
                            n_resamples=20, random_state=0)
    assert all(seen)
    assert res.rank.tolist() == [2, 1]  # b won the last 40
    online = ranking_intervals(EloRanker(), X, y, n_resamples=10, random_state=0)
    assert "not confidence intervals" in online.note


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n_items=st.integers(2, 6),
    higher=st.booleans(),
)
def test_summary_invariants(seed, n_items, higher):
    rng = np.random.default_rng(seed)
    samples = rng.normal(size=(50, n_items)).round(1)  # ties happen
    samples[rng.random(samples.shape) < 0.1] = np.nan
    estimate = rng.normal(size=n_items)
    res = summarize_samples(np.arange(n_items), estimate, samples,
                            higher_is_better=higher)
    ok = ~np.isnan(res.low)
    assert np.all(res.low[ok] <= res.high[ok])
    assert np.all((res.rank_low <= res.rank_high) | np.isnan(res.rank_low))
    assert sorted(res.rank.tolist()) == list(range(1, n_items + 1))
    both = ~np.isnan(res.prob_above)
    assert np.all((res.prob_above[both] >= 0) & (res.prob_above[both] <= 1))
    np.testing.assert_allclose((res.prob_above + res.prob_above.T)[both], 1.0)
    flipped = summarize_samples(np.arange(n_items), -estimate, -samples,
                                higher_is_better=not higher)
    np.testing.assert_array_equal(flipped.rank, res.rank)
    np.testing.assert_allclose(flipped.prob_above, res.prob_above)


def _coverage(covariance, draw_rate, n_reps=200):
    hits = []
    for seed in range(n_reps):
        X, y, truth = _simulate(seed, n_players=20, n_matches=3000,
                                sd=1.0 if draw_rate == 0 else 0.4,
                                draw_rate=draw_rate, labels=False)
        res = bradley_terry_intervals(
            EloRanker(method="batch", scale="logit"), X, y,
            covariance=covariance, n_draws=10, random_state=seed,
        )
        hits.append(np.mean((res.low <= truth) & (truth <= res.high)))
    return float(np.mean(hits))


@pytest.mark.slow
def test_sandwich_coverage_of_true_strengths():
    """95% sandwich intervals cover the centred true strengths 92-98% of the time.

    200 seeded replications of 3000 matches among 20 players; the second
    case has 40% draws generated so that E[y] is still the Bradley-Terry
    probability: the sandwich stays calibrated where the model-based
    (observed information) intervals over-cover.
    """
    assert 0.92 <= _coverage("sandwich", 0.0) <= 0.98
    assert 0.92 <= _coverage("sandwich", 0.4) <= 0.98
    assert _coverage("observed", 0.4, n_reps=50) > 0.98


@pytest.mark.parametrize("weighted", [False, True])
def test_online_fast_path_equals_refitting_resampled_rows(weighted):
    X, y, _ = _simulate(7, n_players=9, n_matches=400, draw_rate=0.1)
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None
    fit_params = {} if weight is None else {"sample_weight": weight}
    kwargs = dict(statistic="ratings_", resample="matches", n_resamples=25,
                  random_state=4, fit_params=fit_params)
    estimator = EloRanker(k_factor=24, first_advantage=10.0)
    fast = bootstrap_ranking(estimator, X, y, **kwargs)
    slow = bootstrap_ranking(estimator, X, y, fast=False, **kwargs)
    np.testing.assert_allclose(fast.samples, slow.samples, rtol=1e-12)
    np.testing.assert_array_equal(np.isnan(fast.samples), np.isnan(slow.samples))
    two = bootstrap_online_elo(estimator, X, y, weight, n_resamples=25,
                               random_state=4, n_jobs=2)
    np.testing.assert_allclose(two.samples, fast.samples, rtol=1e-12)
    with pytest.raises(TypeError, match="method='online'"):
        bootstrap_online_elo(EloRanker(method="batch"), X, y)


@pytest.mark.parametrize("covariance", ["sandwich", "observed"])
@pytest.mark.parametrize("groups", [False, True])
@pytest.mark.parametrize("draw_share", [1.0, 0.9])
def test_zero_width_analytic_intervals_warn_instead_of_claiming_certainty(
    covariance, groups, draw_share
):
    # every match a draw: under ties="half" each outcome equals its fitted
    # probability, so the sandwich has no variance; zero width is said, and
    # intervals of some width are not
    pairs = np.array([["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]] * 10,
                     dtype=object)
    y = np.full(len(pairs), 0.5)
    y[: round((1 - draw_share) * len(y))] = [1.0, 0.0] * round(
        (1 - draw_share) * len(y) / 2)
    options = {"groups": np.arange(len(y)) // 4} if groups else {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = bradley_terry_intervals(EloRanker(method="batch"), pairs, y,
                                      covariance=covariance, random_state=0,
                                      **options)
    zero = not np.any(res.high > res.low)
    said = [str(w.message) for w in caught if "zero width" in str(w.message)]
    assert bool(said) == zero
    assert ("zero width" in res.note) == zero
    if covariance == "sandwich" and draw_share == 1.0:
        assert zero
    if draw_share < 1.0:
        assert not zero
