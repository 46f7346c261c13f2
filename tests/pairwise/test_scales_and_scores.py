"""EloRanker at extreme scales, and one score for every tie model.

- Covariates measured in any unit (1e-300 .. 1e300) give the same fit: the
  coefficient and its standard error scale as ``1 / s`` and the predictions
  and ratings do not move (a covariate's unit is arbitrary; user guide,
  "Ties, covariates and a fitted advantage").
- A covariate that separates the outcomes has no finite estimate: its
  standard error is inf (never 0) with a warning.
- Frequency weights are vote counts of any size (1e18 and more): the
  bootstrap stays finite and its intervals shrink as ``1 / sqrt(total)``.
- ``score`` is the same three-outcome log-likelihood per match for every
  ``ties`` setting (Davidson, 1970; Rao and Kupper, 1967), so a grid search
  over ``ties`` chooses by held-out fit.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from sklearn_eval.datasets import make_matches
from sklearn_eval.metrics import three_outcome_log_loss, three_outcome_log_loss_scorer
from sklearn_eval.pairwise import (
    EloRanker,
    bootstrap_bradley_terry,
    bradley_terry_intervals,
)
from tests.pairwise import fixtures_arena as F


def _style(n_covariates=2, seed=4, n_matches=1500):
    first, second, x, y, _ = F.style_matches(seed=seed, n_players=6,
                                             n_matches=n_matches)
    return first, second, x[:, :n_covariates], y


def _frame(first, second, x):
    frame = pd.DataFrame({"a": first, "b": second})
    for k in range(x.shape[1]):
        frame[f"x{k}"] = x[:, k]
    return frame


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # none expected
        return EloRanker(method="batch", **params).fit(X, y)


# ---------------------------------------------------------------------------
# covariate scales
# ---------------------------------------------------------------------------
@settings(max_examples=12, deadline=None)
@given(exponent=st.integers(-300, 300), column=st.integers(0, 1),
       ties=st.sampled_from(["half", "davidson"]))
def test_a_covariate_in_any_unit_gives_the_same_fit(exponent, column, ties):
    first, second, x, y = _style()
    reference = _fit(_frame(first, second, x), y, ties=ties)
    scale = 10.0**exponent
    x_scaled = x.copy()
    x_scaled[:, column] *= scale
    X = _frame(first, second, x_scaled)
    got = _fit(X, y, ties=ties)
    unit = np.ones(2)
    unit[column] = scale
    assert_allclose(got.covariate_coef_ * unit, reference.covariate_coef_, rtol=1e-7)
    assert_allclose(got.covariate_se_ * unit, reference.covariate_se_, rtol=1e-7)
    assert_allclose(got.ratings_, reference.ratings_, atol=1e-6)
    assert_allclose(got.decision_function(X),
                    reference.decision_function(_frame(first, second, x)),
                    atol=1e-8)
    assert np.all(np.isfinite(got.covariate_se_))


def test_a_covariate_too_small_for_its_coefficient_is_a_clear_error():
    first, second, x, y = _style(1)
    X = _frame(first, second, x * 1e-320)  # coefficient ~ 1e320: not a double
    with pytest.raises(ValueError, match=r"'x0' is too small.*largest double"):
        EloRanker(method="batch").fit(X, y)


def _separated(ties):
    first, second, x, y = _style(1)
    decided = y != 0.5
    first, second, y = first[decided], second[decided], y[decided]
    separating = np.where(y == 1.0, 1.0, -1.0)
    if ties != "half":  # tie models need ties: give them a neutral covariate
        first = np.r_[first, first[:50]]
        second = np.r_[second, second[:50]]
        separating = np.r_[separating, np.zeros(50)]
        y = np.r_[y, np.full(50, 0.5)]
    return _frame(first, second, separating[:, None]), y


@pytest.fixture(params=["compiled", "numpy"])
def newton_path(request, monkeypatch):
    """Run a test on the compiled Newton loop and on its numpy twin."""
    from sklearn_eval.pairwise import _tie_kernels

    if request.param == "compiled" and not _tie_kernels.HAVE_NUMBA:
        pytest.skip("numba is not in use")
    monkeypatch.setattr(_tie_kernels, "HAVE_NUMBA", request.param == "compiled")
    monkeypatch.setattr(_tie_kernels, "COMPILED_FROM", 0)  # small data too
    return request.param


def test_a_separating_covariate_reports_an_infinite_standard_error(newton_path):
    X, y = _separated("half")
    with pytest.warns(ConvergenceWarning, match=r"'x0' has no finite estimate"):
        est = EloRanker(method="batch").fit(X, y)
    assert est.covariate_se_[0] == np.inf
    assert np.all(np.isfinite(est.ratings_))


@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
def test_a_separating_covariate_in_a_tie_model_is_a_clear_error(ties, newton_path):
    # the prior holds the ratings only: the tie model's Newton steps find no
    # maximum, and the error names the candidate columns
    X, y = _separated(ties)
    est = EloRanker(method="batch", ties=ties)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"no maximum.*'x0' separates"):
            est.fit(X, y)
    assert not hasattr(est, "ratings_")


# ---------------------------------------------------------------------------
# weights
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
def test_all_zero_weights_are_an_error_for_the_tie_models(ties):
    X, y = make_matches(n_players=4, n_matches=60, draw_rate=0.2, random_state=0)
    with pytest.raises(ValueError, match="sample_weight is zero for every match"):
        EloRanker(method="batch", ties=ties).fit(X, y, sample_weight=np.zeros(60))


def _votes():
    X = np.array([["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"], ["b", "a"]] * 4)
    y = np.array([1.0, 0.0, 1.0, 0.5, 1.0] * 4)
    return X, y


@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_frequency_weights_of_any_size_resample_without_overflow(ties):
    X, y = _votes()
    widths = {}
    for votes in (1e3, 1e18, 1e30):
        result = bootstrap_bradley_terry(
            EloRanker(method="batch", ties=ties), X, y,
            sample_weight=np.full(len(y), votes), frequency_weights=True,
            n_resamples=60, random_state=0,
        )
        assert np.all(np.isfinite(result.low)) and np.all(np.isfinite(result.high))
        widths[votes] = float(np.mean(result.high - result.low))
    # the bootstrap spread shrinks as 1 / sqrt(number of votes)
    for votes in (1e18, 1e30):
        ratio = widths[votes] / widths[1e3] * np.sqrt(votes / 1e3)
        assert 0.5 < ratio < 2.0


@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_all_zero_frequency_weights_are_an_error(ties):
    X, y = _votes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="zero"):
            bootstrap_bradley_terry(
                EloRanker(method="batch", ties=ties), X, y,
                sample_weight=np.zeros(len(y)), frequency_weights=True,
                n_resamples=10, random_state=0,
            )


# ---------------------------------------------------------------------------
# one score for every tie model
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["online", "batch"])
def test_half_predicts_three_outcomes_consistent_with_predict_proba(method):
    X, y = make_matches(n_players=6, n_matches=600, draw_rate=0.25, random_state=1)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    est = EloRanker(method=method).fit(X, y, sample_weight=w)
    share = w[y == 0.5].sum() / w.sum()
    assert est.tie_probability_ == pytest.approx(share, rel=1e-12)
    three = est.predict_outcome_proba(X)
    two = est.predict_proba(X)
    assert_allclose(three.sum(axis=1), 1.0, atol=1e-12)
    assert_allclose(three[:, 1], share)
    # given a decided match, the win probability is predict_proba's
    assert_allclose(three[:, 2] / (three[:, 0] + three[:, 2]), two[:, 1], atol=1e-12)
    assert est.score(X, y) == pytest.approx(-three_outcome_log_loss(y, three))
    assert three_outcome_log_loss_scorer(est, X, y) == pytest.approx(est.score(X, y))


def test_half_tie_share_accumulates_over_partial_fit():
    X, y = make_matches(n_players=5, n_matches=400, draw_rate=0.3, random_state=2)
    whole = EloRanker().fit(X, y)
    parts = EloRanker().partial_fit(X[:150], y[:150]).partial_fit(X[150:], y[150:])
    assert parts.tie_probability_ == pytest.approx(whole.tie_probability_)
    assert_allclose(parts.predict_outcome_proba(X), whole.predict_outcome_proba(X))


@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
def test_tie_models_score_the_same_quantity(ties):
    X, y = make_matches(n_players=5, n_matches=500, draw_rate=0.2, random_state=3)
    est = EloRanker(method="batch", ties=ties).fit(X, y)
    assert_allclose(est.predict_outcome_proba(X), est.predict_proba(X))
    assert est.score(X, y) == pytest.approx(
        -three_outcome_log_loss(y, est.predict_proba(X)))


def test_half_ratings_do_not_depend_on_the_score():
    # the ratings are the half likelihood's: ties enter as half wins
    X, y = make_matches(n_players=5, n_matches=500, draw_rate=0.2, random_state=4)
    est = EloRanker(method="batch").fit(X, y)
    as_weights = EloRanker(method="batch").fit(
        np.r_[X[y != 0.5], X[y == 0.5], X[y == 0.5]],
        np.r_[y[y != 0.5], np.ones((y == 0.5).sum()), np.zeros((y == 0.5).sum())],
        sample_weight=np.r_[np.ones((y != 0.5).sum()), np.full(2 * (y == 0.5).sum(),
                                                               0.5)],
    )
    assert_allclose(est.ratings_, as_weights.ratings_, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("truth", "draw_rate"), [("davidson", 0.3), ("half", 0.0)]
)
def test_grid_search_over_ties_chooses_by_held_out_fit(truth, draw_rate):
    # Davidson data with many ties: a tie model predicts them better than a
    # constant tie share. Without ties all three models coincide in the
    # ratings and "half" (no tie parameter) is never worse.
    if truth == "davidson":
        first, second, _, y, _ = F.style_matches(seed=7, n_players=8,
                                                 n_matches=4000, nu=1.5)
        X = np.column_stack([first, second])
    else:
        X, y = make_matches(n_players=8, n_matches=4000, draw_rate=draw_rate,
                            random_state=7)
    cv = KFold(5, shuffle=True, random_state=0)
    grid = {"ties": ["half", "davidson", "rao-kupper"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(EloRanker(method="batch"), grid, cv=cv).fit(X, y)
        held_out = {
            t: cross_val_score(EloRanker(method="batch", ties=t), X, y, cv=cv,
                               scoring=three_outcome_log_loss_scorer).mean()
            for t in grid["ties"]
        }
    # the default score is the three-outcome scorer's, for every setting
    assert_allclose(search.cv_results_["mean_test_score"],
                    [held_out[t] for t in grid["ties"]], rtol=1e-10)
    assert search.best_params_["ties"] == max(held_out, key=held_out.get)
    if truth == "davidson":
        assert search.best_params_["ties"] != "half"


@pytest.mark.parametrize("exponent", [-300, -100, 100, 300])
@pytest.mark.parametrize("ties", ["half", "davidson"])
def test_rating_intervals_do_not_depend_on_a_covariate_unit(exponent, ties):
    first, second, x, y = _style(1)
    reference = _frame(first, second, x)
    scaled = _frame(first, second, x * 10.0**exponent)
    for X in (reference, scaled):
        sandwich = bradley_terry_intervals(EloRanker(method="batch", ties=ties), X, y)
        boot = bootstrap_bradley_terry(EloRanker(method="batch", ties=ties), X, y,
                                       n_resamples=20, random_state=0)
        if X is reference:
            expected = (sandwich.low, sandwich.high, boot.low, boot.high)
            continue
        got = (sandwich.low, sandwich.high, boot.low, boot.high)
        for a, b in zip(got, expected, strict=True):
            assert np.all(np.isfinite(a))
            assert_allclose(a, b, rtol=1e-8)
