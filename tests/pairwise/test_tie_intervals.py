"""Intervals of the extended batch fit (tie models, covariates, fitted advantage)
and frequency weights (vote counts) in the sandwich and the fast bootstrap."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import norm

from sklearn_eval.datasets import make_matches
from sklearn_eval.pairwise import (
    EloRanker,
    bootstrap_bradley_terry,
    bradley_terry_covariance,
    bradley_terry_intervals,
)
from sklearn_eval.pairwise._extended_intervals import (
    ExtendedRows,
    Resampler,
    extended_parameter_covariance,
    refit_extended,
)
from sklearn_eval.uncertainty import ranking_intervals
from tests.pairwise import fixtures_arena as F


def style_data(seed=0, n_players=8, n_matches=3000, n_covariates=2):
    first, second, x, y, strengths = F.style_matches(
        seed=seed, n_players=n_players, n_matches=n_matches,
        beta=F.STYLE_BETA[:n_covariates],
    )
    X = np.column_stack([first, second, x]) if n_covariates else np.column_stack(
        [first, second]
    )
    return X, y, strengths


def aggregate(X, y):
    """Distinct rows of (X, y) with their counts."""
    table = np.column_stack([X, y])
    rows, counts = np.unique(table, axis=0, return_counts=True)
    return rows[:, :-1], rows[:, -1], counts.astype(float)


ESTIMATORS = {
    "half": lambda: EloRanker(method="batch"),
    "davidson": lambda: EloRanker(method="batch", ties="davidson"),
    "rao-kupper,advantage": lambda: EloRanker(method="batch", ties="rao-kupper",
                                              first_advantage="fit"),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("covariance", ["sandwich", "observed"])
def test_frequency_weights_equal_expanded_rows_in_the_sandwich(name, covariance):
    # integer-valued covariates so that identical matches repeat
    X, y = make_matches(n_players=6, n_matches=4000, draw_rate=0.2, random_state=5)
    if name != "half":
        X = np.column_stack([X, np.random.default_rng(0).integers(-1, 2, len(y))])
    rows, outcomes, counts = aggregate(X, y)
    assert rows.shape[0] < X.shape[0] / 10
    est = ESTIMATORS[name]()
    expanded = est.fit(X, y)
    cov_expanded = bradley_terry_covariance(expanded, X, y, covariance=covariance)
    aggregated = ESTIMATORS[name]().fit(rows, outcomes, sample_weight=counts)
    assert_allclose(aggregated.ratings_, expanded.ratings_, atol=1e-8)
    cov_counts = bradley_terry_covariance(aggregated, rows, outcomes, counts,
                                          covariance=covariance,
                                          frequency_weights=True)
    assert_allclose(cov_counts, cov_expanded, rtol=1e-6, atol=1e-10)
    # read as importance weights, the rows are far fewer observations
    if covariance == "sandwich":
        cov_rows = bradley_terry_covariance(aggregated, rows, outcomes, counts)
        assert np.all(np.diag(cov_rows) > 2 * np.diag(cov_counts))


def test_covariate_se_is_the_coefficient_block_of_the_full_sandwich():
    X, y, _ = style_data()
    w = 1.0 + (X[:, 0] % 3)
    est = EloRanker(method="batch", ties="davidson", first_advantage="fit").fit(
        X, y, sample_weight=w
    )
    cov = extended_parameter_covariance(est, X, y, w, covariance="sandwich",
                                        frequency_weights=False)
    n = est.players_.shape[0]
    se = np.sqrt(np.diag(cov)) * est._units_per_logit()
    assert est.first_advantage_se_ == pytest.approx(se[n], rel=1e-8)
    assert_allclose(est.covariate_se_, se[n + 1: n + 3], rtol=1e-8)


@pytest.mark.parametrize("frequency", [False, True])
def test_one_fast_resample_is_the_estimator_refit_on_the_counts(frequency):
    X, y, _ = style_data(n_covariates=0 if frequency else 2)
    w = np.ones(len(y)) if frequency else 1.0 + (X[:, 1] % 2)
    if frequency:
        X, y, w = aggregate(X, y)
    full = EloRanker(method="batch", ties="rao-kupper").fit(X, y, sample_weight=w)
    rows = ExtendedRows(full, X, y, w, frequency)
    resampler = Resampler(rows, full)
    counts = rows.draw(np.random.default_rng(3))
    fast = resampler.refit(counts)
    general = refit_extended(rows, counts, full, resampler.init)
    used = counts > 0
    if rows.covariates is None:
        Xr = np.column_stack([rows.first[used], rows.second[used]])
    else:
        Xr = np.column_stack([rows.first[used], rows.second[used],
                              rows.covariates[used]])
    refit = EloRanker(method="batch", ties="rao-kupper").fit(
        Xr, rows.y[used], sample_weight=counts[used] * rows.weight[used]
    )
    assert_allclose(fast, refit.ratings_, atol=1e-6)
    assert_allclose(general, refit.ratings_, atol=1e-6)


def test_bootstrap_agrees_with_the_sandwich_and_is_reproducible_across_jobs():
    X, y, _ = style_data(n_players=10, n_matches=6000)
    est = EloRanker(method="batch", ties="davidson")
    boot = bootstrap_bradley_terry(est, X, y, n_resamples=120, random_state=0)
    again = bootstrap_bradley_terry(est, X, y, n_resamples=120, random_state=0,
                                    n_jobs=2)
    assert_array_equal(boot.samples, again.samples)
    sandwich = bradley_terry_intervals(est, X, y, random_state=0)
    ratio = np.nanstd(boot.samples, axis=0) / np.sqrt(np.diag(sandwich.covariance))
    assert 0.85 < np.median(ratio) < 1.15
    assert np.all((ratio > 0.7) & (ratio < 1.4))


def test_frequency_bootstrap_resamples_votes_not_rows():
    X, y = make_matches(n_players=6, n_matches=6000, draw_rate=0.25, random_state=7)
    rows, outcomes, counts = aggregate(X, y)
    est = EloRanker(method="batch", ties="davidson")
    votes = bootstrap_bradley_terry(est, rows, outcomes, counts, n_resamples=300,
                                    random_state=1, frequency_weights=True)
    expanded = bootstrap_bradley_terry(est, X, y, n_resamples=300, random_state=2)
    as_rows = bootstrap_bradley_terry(est, rows, outcomes, counts, n_resamples=300,
                                      random_state=1)
    sd_votes = np.std(votes.samples, axis=0)
    sd_expanded = np.std(expanded.samples, axis=0)
    assert 0.85 < np.median(sd_votes / sd_expanded) < 1.15
    assert np.median(np.nanstd(as_rows.samples, axis=0) / sd_votes) > 2
    # the plain Bradley-Terry path reads frequency weights the same way
    plain = bootstrap_bradley_terry(EloRanker(method="batch"), rows, outcomes,
                                    counts, n_resamples=300, random_state=1,
                                    frequency_weights=True)
    plain_expanded = bootstrap_bradley_terry(EloRanker(method="batch"), X, y,
                                             n_resamples=300, random_state=2)
    assert 0.85 < np.median(np.std(plain.samples, axis=0)
                            / np.std(plain_expanded.samples, axis=0)) < 1.15


def test_frequency_weights_must_be_whole_numbers_and_the_flag_a_bool():
    X, y = make_matches(n_players=4, n_matches=200, draw_rate=0.2, random_state=0)
    w = np.full(len(y), 1.5)
    for est in (EloRanker(method="batch"), EloRanker(method="batch", ties="davidson")):
        with pytest.raises(ValueError, match="whole numbers"):
            bootstrap_bradley_terry(est, X, y, w, n_resamples=5,
                                    frequency_weights=True)
        with pytest.raises(ValueError, match="whole numbers"):
            bradley_terry_intervals(est, X, y, w, frequency_weights=True)
        with pytest.raises(TypeError, match="frequency_weights must be a bool"):
            bootstrap_bradley_terry(est, X, y, n_resamples=5, frequency_weights=1)


@pytest.mark.parametrize("method", ["bootstrap", "analytic"])
def test_ranking_intervals_through_the_plan(method):
    X, y, _ = style_data()
    res = ranking_intervals(EloRanker(method="batch", ties="rao-kupper"), X, y,
                            method=method, n_resamples=60, random_state=0)
    est = EloRanker(method="batch", ties="rao-kupper").fit(X, y)
    assert_array_equal(res.labels, est.players_)
    assert_allclose(res.estimate, est.ratings_)
    assert np.all(res.low < res.estimate) and np.all(res.estimate < res.high)


def test_covariate_intervals_cover_the_truth():
    hits = []
    z = norm.ppf(0.975)
    for seed in range(60):
        X, y, _ = style_data(seed=100 + seed, n_players=6, n_matches=1500,
                             n_covariates=3)
        est = EloRanker(method="batch", ties="davidson", scale="logit").fit(X, y)
        hits.append(np.abs(est.covariate_coef_ - F.STYLE_BETA)
                    <= z * est.covariate_se_)
    coverage = np.mean(hits)
    assert 0.88 <= coverage <= 0.99
