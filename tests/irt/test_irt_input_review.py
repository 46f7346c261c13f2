"""Bad and degenerate input across the IRT family: priors that contradict
each other, grids that cannot integrate the ability prior, items without a
response in the data scored, arguments of the wrong kind, labels.

Each test states the class of input and checks every model it concerns.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT, IRT2PL, compare_models
from sklearn_eval.irt._binary_models import reported_covariance
from sklearn_eval.irt._quadrature import estimator_grid

BINARY = ["1PL", "2PL", "3PL", "4PL"]


def _graded(n=80, J=5, K=3, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n, 1))
    return np.clip(np.round(1 + theta + rng.normal(size=(n, J))), 0, K - 1)


def _continuous(n=80, J=5, seed=0):
    rng = np.random.default_rng(seed)
    mu = 1 / (1 + np.exp(-(rng.normal(size=(n, 1)) + rng.normal(size=(1, J)))))
    return rng.beta(mu * 20, (1 - mu) * 20)


def _data(model):
    if model in ("GRM", "GPCM"):
        return _graded()
    if model in ("beta", "logit-normal"):
        return _continuous()
    return make_irt_responses(80, 5, random_state=0).astype(float)


# ------------------------------------------------------------------ priors
@pytest.mark.parametrize("params, message", [
    ({"guessing_prior": (0.9, 0.5), "upper_prior": (0.1, 0.5)},
     r"guessing prior's centre \(0\.9, from guessing_prior\).*below.*\(0\.1\)"),
    ({"n_options": 2, "upper_prior": (0.3, 0.5)},
     r"guessing prior's centre \(0\.5, from n_options\)"),
    ({"guessing_prior": (0.5, 0.5), "upper_prior": (0.5, 0.5)}, r"below"),
])
def test_4pl_priors_whose_floor_is_above_their_ceiling_are_refused(params, message):
    model = IRT(model="4PL", **params)
    with pytest.raises(ValueError, match=message):
        model.fit(_data("4PL"))
    assert not hasattr(model, "discrimination_")


@settings(max_examples=60, deadline=None)
@given(mean=st.floats(1e-4, 1 - 1e-4), which=st.sampled_from([2, 3]))
def test_the_start_is_inside_whatever_one_prior_says(mean, which):
    # one asymptote's prior anywhere in (0, 1): the other's default start
    # moves so that the curve starts rising (g < u)
    params = {2: "guessing_prior", 3: "upper_prior"}
    model = IRT(model="4PL", **{params[which]: (mean, 0.5)})
    g, u = model._start(model._priors())
    assert 0.0 < g < u < 1.0


def test_4pl_with_only_a_low_upper_prior_ranks_agents_forwards():
    X = make_irt_responses(300, 8, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT(model="4PL", upper_prior=(0.05, 0.5), random_state=0).fit(X)
    assert np.all(model.guessing_ < model.upper_)
    assert np.corrcoef(model.agent_scores_, np.nansum(X, axis=1))[0, 1] > 0.5


@pytest.mark.parametrize("model", ["beta", "logit-normal", "GRM", "GPCM", "1PL"])
@pytest.mark.parametrize("params", [
    {"discrimination_prior": (1.0, 0.5)}, {"guessing_prior": (0.2, 0.5)},
    {"n_options": 4}, {"upper_prior": (0.9, 0.5)}])
def test_priors_a_model_has_no_use_for_are_refused(model, params):
    if model == "1PL" and "discrimination_prior" not in params:
        pass  # asymptote priors of the 1PL: refused like the rest
    with pytest.raises(ValueError, match="appl"):
        IRT(model=model, **params).fit(_data(model))


@pytest.mark.parametrize("estimator", [IRT, IRT2PL])
def test_n_jobs_zero_is_refused_by_the_parameter_check(estimator):
    with pytest.raises(ValueError, match="n_jobs"):
        estimator(n_jobs=0).fit(_data("2PL"))


# ------------------------------------------------------------------- grids
@settings(max_examples=80, deadline=None)
@given(n=st.integers(2, 301), bound=st.floats(0.25, 1e7))
def test_a_rectangular_grid_is_refused_or_carries_the_prior(n, bound):
    try:
        grid = estimator_grid("rectangular", n, bound)
    except ValueError as error:
        assert "n_quadrature" in str(error) and "quadrature_bound" in str(error)
        return
    weights = np.exp(grid.log_weights)
    assert 0.75 <= weights @ grid.nodes**2 <= 4.0 / 3.0


@pytest.mark.parametrize("kind", ["rectangular", "gauss-hermite", "sobol"])
@pytest.mark.parametrize("n_factors", [2, 3, 6])
def test_default_factor_grids_carry_the_prior(kind, n_factors):
    grid = IRT(n_factors=n_factors, quadrature=kind)._factor_grid_for_fit(
        np.random.RandomState(0))
    weights = np.exp(grid.log_weights)
    variances = weights @ grid.points**2
    assert np.all((variances > 0.75) & (variances < 4.0 / 3.0))


@pytest.mark.parametrize("estimator, params", [
    (IRT, {"n_quadrature": 3}),
    (IRT, {"model": "3PL", "quadrature_bound": 1e6}),
    (IRT, {"model": "GRM", "n_quadrature": 4}),
    (IRT, {"model": "beta", "n_quadrature": 2}),
    (IRT, {"n_factors": 2, "n_quadrature": 2}),
    (IRT, {"model": "GRM", "n_factors": 2, "n_quadrature": 2}),
    (IRT2PL, {"quadrature_bound": 1e6}),
])
def test_grids_that_cannot_integrate_the_prior_are_refused_before_em(estimator,
                                                                     params):
    model_name = params.get("model", "2PL")
    X = _data(model_name) if model_name != "2PL" else make_irt_responses(
        100, 8, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no EM ran: no convergence warning
        with pytest.raises(ValueError, match="n_quadrature=.*quadrature_bound="):
            estimator(**params).fit(X)


# ---------------------------------------------------------------- item fit
@pytest.mark.parametrize("model", ["2PL", "3PL", "GRM", "GPCM", "IRT2PL"])
def test_item_fit_of_an_item_nobody_answered_is_nan_with_a_warning(model):
    X = _data("GRM" if model in ("GRM", "GPCM") else "2PL")
    estimator = IRT2PL() if model == "IRT2PL" else IRT(model=model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X)
    Y = X.copy()
    Y[:, 1] = np.nan
    for scored in (Y, sparse.csr_matrix(np.nan_to_num(Y, nan=0.0))
                   if model in ("2PL", "3PL", "IRT2PL") else Y):
        if sparse.issparse(scored):  # absent entries are missing
            scored = sparse.csr_matrix(
                (X[:, [0, 2, 3, 4]].ravel(), (np.repeat(np.arange(X.shape[0]), 4),
                                             np.tile([0, 2, 3, 4], X.shape[0]))),
                shape=X.shape)
        with pytest.warns(UserWarning, match=r"1 item has no response.*\(1\)"):
            statistic, pvalue = estimator.item_fit(scored)
        assert np.isnan(statistic[1]) and np.isnan(pvalue[1])
        others = np.delete(np.arange(X.shape[1]), 1)
        assert np.all(np.isfinite(statistic[others]))


# --------------------------------------------------------- compare_models
@pytest.mark.parametrize("models, error", [
    ("2PL", TypeError), (("2PL", 2), TypeError), ([IRT2PL()], TypeError),
    ([3], TypeError), (IRT(), TypeError)])
def test_compare_models_refuses_models_of_the_wrong_kind(models, error):
    with pytest.raises(error, match="models"):
        compare_models(_data("2PL"), models=models, cv=2)


def test_compare_models_refuses_more_folds_than_responses():
    X = np.full((4, 3), np.nan)
    X[[0, 1, 2, 3, 0], [0, 1, 2, 0, 1]] = [1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="cv=20 folds.*X has 5"):
        compare_models(X, models=["2PL"], cv=20)


# ------------------------------------------------------------------ labels
@pytest.mark.parametrize("model", BINARY + ["GRM", "GPCM", "beta", "logit-normal"])
def test_duplicated_column_names_are_named(model):
    X = pd.DataFrame(_data(model), columns=["a", "a", "b", "c", "d"])
    with pytest.raises(ValueError, match="duplicated column name 'a'"):
        IRT(model=model).fit(X)


@pytest.mark.parametrize("names, error, message", [
    ([1, 2], TypeError, "must be strings"),
    (["a", "a"], ValueError, "'a' twice"),
    ([["a", "b"]], ValueError, "1-dimensional"),
])
def test_published_item_names_are_checked(names, error, message):
    with pytest.raises(error, match=message):
        IRT2PL.from_item_params([1.0, 2.0], [0.0, 1.0], item_names=names)


def test_published_parameters_must_be_one_dimensional():
    with pytest.raises(ValueError, match="discrimination must be 1-dimensional"):
        IRT2PL.from_item_params([[1.0, 2.0]], [[0.0, 1.0]])


@pytest.mark.parametrize("model", BINARY + ["GRM", "beta"])
def test_empty_agent_error_names_the_estimator_and_a_remedy_it_has(model):
    X = _data(model)
    X[3] = np.nan
    with pytest.raises(ValueError, match=r"IRT.*no observed response") as error:
        IRT(model=model).fit(X)
    assert "drop_empty=True" not in str(error.value)
    assert "IRT2PL" not in str(error.value)


def test_messages_show_labels_not_numpy_reprs():
    C = _continuous()
    C[0, 0] = 1.5
    with pytest.raises(ValueError, match=r"item 'c0' has 1\.5 in row 0"):
        IRT(model="beta").fit(pd.DataFrame(C, columns=[f"c{j}" for j in range(5)]))
    X = _data("2PL")
    X[:, 2] = 1.0
    with pytest.warns(UserWarning, match=r"left out of estimation: \[2\]"):
        IRT(model="3PL").fit(X)


# ------------------------------------------------------- standard errors
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(-3.0, 3.0))
def test_reported_variances_are_never_negative(seed, shift):
    # information matrices of every kind (indefinite ones included): the
    # reported variances are non-negative or NaN
    rng = np.random.default_rng(seed)
    raw = rng.normal(size=(20, 3, 3))
    info = raw @ np.swapaxes(raw, 1, 2) + shift * np.eye(3)
    params = np.column_stack([rng.uniform(0.3, 2, 20), rng.normal(size=20),
                              rng.normal(-1.5, 1, 20), np.full(20, np.inf)])
    cov = reported_covariance(params, info, (0, 1, 2))
    variances = np.diagonal(cov, axis1=1, axis2=2)
    assert np.all(np.isnan(variances) | (variances >= 0))
    definite = np.linalg.eigvalsh(info)[:, 0] > 0
    assert np.all(np.isfinite(variances[definite, :3]))


def test_standard_errors_of_a_fit_at_a_strong_prior_leak_no_runtime_warning():
    X = make_irt_responses(100, 6, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        model = IRT(model="3PL", guessing_prior=(0.95, 0.1)).fit(X)
    se = model.guessing_se_
    assert np.all(np.isnan(se) | (se >= 0))


# ------------------------------------------------------------------- score
@pytest.mark.parametrize("model", ["2PL", "3PL", "GRM", "beta"])
def test_score_of_data_without_a_response_is_refused(model):
    X = _data(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = IRT(model=model).fit(X)
    with pytest.raises(ValueError, match="no observed response"):
        fitted.score(np.full((2, X.shape[1]), np.nan))


# ------------------------------------------------------- continuous, flat
def test_continuous_items_that_do_not_follow_the_ability_are_named():
    X = make_irt_responses(60, 5, random_state=0)
    scores = np.where(X == 1, 0.9, 0.1)
    with pytest.warns(UserWarning, match=r"\| < 0\.001.*not identified"):
        model = IRT(model="beta").fit(scores)
    assert np.any(np.abs(model.discrimination_) < 1e-3)


@pytest.mark.parametrize("code", [1e308, 2.0**62, 1e30])
@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_huge_category_codes_are_named_in_a_short_number(code, model):
    X = _graded()
    X[3, 2] = code
    with pytest.raises(ValueError, match=r"too large to index") as error:
        IRT(model=model).fit(X)
    assert len(str(error.value)) < 200
