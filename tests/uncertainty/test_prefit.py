"""A fitted ranker's intervals and rank sets without fitting it again.

``ranking_intervals(..., prefit=True)`` and ``rank_sets(..., prefit=True)``
take the ranker already fitted on the data (user guide, "Uncertainty": the
report fits its ratings once and reads them). The analytic path (the
Bradley-Terry sandwich with any tie model, advantage, covariates, prior or
clusters; the IRT posterior) must give what fitting a copy gives, and fit
nothing; the bootstrap refits copies on the resamples and leaves the given
model as it was.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from sklearn_eval.datasets import make_irt_responses, make_matches
from sklearn_eval.irt import IRT2PL
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.uncertainty import rank_sets, ranking_intervals

TOL = 1e-10


def _league(seed, n_players=6, n_matches=600, draws=True, covariate=False):
    """Matches with draws (every 5th), weights and, optionally, a covariate."""
    X, y = make_matches(n_players=n_players, n_matches=n_matches,
                        random_state=seed)
    y = np.asarray(y, dtype=np.float64)
    if draws:
        y[::5] = 0.5
    rng = np.random.default_rng(seed)
    weight = rng.uniform(0.5, 2.0, y.shape[0])
    if covariate:
        frame = pd.DataFrame(np.asarray(X, dtype=object), columns=["a", "b"])
        frame["home"] = rng.integers(0, 2, y.shape[0]).astype(np.float64)
        X = frame
    return X, y, weight


def _same_result(refit, prefit):
    for name in ("estimate", "low", "high", "covariance"):
        np.testing.assert_allclose(getattr(prefit, name), getattr(refit, name),
                                   rtol=0, atol=TOL, err_msg=name)
    np.testing.assert_array_equal(prefit.rank_low, refit.rank_low)
    np.testing.assert_array_equal(prefit.rank_high, refit.rank_high)
    np.testing.assert_array_equal(np.asarray(prefit.labels),
                                  np.asarray(refit.labels))


def _same_sets(refit, prefit):
    np.testing.assert_allclose(prefit.score, refit.score, rtol=0, atol=TOL)
    for name in ("rank", "rank_low", "rank_high", "tier"):
        np.testing.assert_array_equal(getattr(prefit, name), getattr(refit, name))
    np.testing.assert_allclose(prefit.pairs["se"], refit.pairs["se"], rtol=0,
                               atol=TOL)


@pytest.fixture
def count_fits(monkeypatch):
    """Count every fit of the match raters (on any data)."""
    fits = []
    for cls in (EloRanker, MultiElo):
        original = cls.fit

        def counting(self, *args, _original=original, **kwargs):
            fits.append(type(self).__name__)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "fit", counting)
    return fits


MODELS = [
    {},
    {"ties": "davidson"},
    {"ties": "rao-kupper", "first_advantage": "fit"},
    {"alpha": 0.1},
    {"first_advantage": 0.3},
]


@pytest.mark.parametrize("params", MODELS)
def test_sandwich_of_the_fitted_model_is_the_refitted_one(params):
    X, y, w = _league(0)
    model = EloRanker(method="batch", **params).fit(X, y, sample_weight=w)
    refit = ranking_intervals(clone(model), X, y, sample_weight=w,
                              method="analytic", random_state=0)
    prefit = ranking_intervals(model, X, y, sample_weight=w, method="analytic",
                               random_state=0, prefit=True)
    _same_result(refit, prefit)
    np.testing.assert_allclose(prefit.estimate, model.agent_scores_, rtol=0,
                               atol=TOL)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), params=st.sampled_from(MODELS),
       covariate=st.booleans(), clustered=st.booleans())
def test_prefit_rank_sets_and_intervals_equal_the_refit_ones(
    seed, params, covariate, clustered
):
    X, y, w = _league(seed, n_players=5, n_matches=400, covariate=covariate)
    groups = np.arange(y.shape[0]) // 4 if clustered else None
    model = EloRanker(method="batch", **params).fit(X, y, sample_weight=w)
    common = dict(sample_weight=w, groups=groups, random_state=seed)
    _same_result(
        ranking_intervals(clone(model), X, y, method="analytic", **common),
        ranking_intervals(model, X, y, method="analytic", prefit=True, **common),
    )
    _same_sets(
        rank_sets(clone(model), X, y, n_resamples=200, **common),
        rank_sets(model, X, y, n_resamples=200, prefit=True, **common),
    )


def test_the_analytic_path_fits_nothing(count_fits):
    X, y, w = _league(1)
    model = EloRanker(method="batch", ties="davidson").fit(X, y, sample_weight=w)
    count_fits.clear()
    ranking_intervals(model, X, y, sample_weight=w, method="analytic",
                      random_state=0, prefit=True)
    rank_sets(model, X, y, sample_weight=w, random_state=0, prefit=True)
    assert count_fits == []
    # the unfitted form fits a copy each time
    ranking_intervals(EloRanker(method="batch", ties="davidson"), X, y,
                      sample_weight=w, method="analytic", random_state=0)
    assert count_fits == ["EloRanker"]


def test_irt_abilities_of_the_fitted_model_are_the_refitted_ones():
    X = make_irt_responses(40, 12, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a separating item
        model = IRT2PL(random_state=0).fit(X)
        refit = ranking_intervals(clone(model), X, method="analytic",
                                  random_state=0)
        prefit = ranking_intervals(model, X, method="analytic", random_state=0,
                                   prefit=True)
        _same_sets(rank_sets(clone(model), X, random_state=0),
                   rank_sets(model, X, random_state=0, prefit=True))
    for name in ("estimate", "low", "high"):
        np.testing.assert_allclose(getattr(prefit, name), getattr(refit, name),
                                   rtol=0, atol=TOL)


@pytest.mark.parametrize("estimator", [
    EloRanker(method="batch"), MultiElo(method="batch", random_state=0),
])
def test_the_bootstrap_refits_copies_and_keeps_the_model(estimator):
    X, y, w = _league(2, n_players=5, n_matches=300)
    model = clone(estimator).fit(X, y, sample_weight=w)
    before = np.array(model.agent_scores_, copy=True)
    common = dict(sample_weight=w, method="bootstrap", n_resamples=30,
                  random_state=0)
    refit = ranking_intervals(clone(model), X, y, **common)
    prefit = ranking_intervals(model, X, y, prefit=True, **common)
    np.testing.assert_allclose(prefit.low, refit.low, rtol=0, atol=TOL)
    np.testing.assert_allclose(prefit.high, refit.high, rtol=0, atol=TOL)
    np.testing.assert_array_equal(model.agent_scores_, before)


def test_an_unfitted_estimator_with_prefit_is_refused():
    X, y, w = _league(3, n_players=4, n_matches=100)
    for function in (ranking_intervals, rank_sets):
        with pytest.raises(NotFittedError, match="prefit=True needs a fitted"):
            function(EloRanker(method="batch"), X, y, prefit=True)


def test_prefit_must_be_a_bool_and_an_estimator():
    X, y, _ = _league(3, n_players=4, n_matches=100)
    model = EloRanker(method="batch").fit(X, y)
    with pytest.raises(TypeError, match="prefit must be a bool"):
        ranking_intervals(model, X, y, prefit="yes")
    with pytest.raises(TypeError, match="fitted estimator instance"):
        rank_sets("mean", np.ones((3, 4)), prefit=True)
