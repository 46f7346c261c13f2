"""Item fit of the ordered-category models: the generalised S-X2 type statistic.

References: Orlando & Thissen (2000), Likelihood-based item-fit indices for
dichotomous item response theory models, APM 24; Kang & Chen (2008),
Performance of the generalized S-X2 item fit index for polytomous IRT models,
JEM 45. User Guide: "Item fit of ordered categories".
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.special import expit
from scipy.stats import kstest

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT
from sklearn_eval.irt._graded_item_fit import _group_term, _merge

from .test_graded import category_probabilities, simulate

MODELS = ["GRM", "GPCM"]


def _fit(model, X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IRT(model=model, **params).fit(X)


def test_two_categories_give_the_binary_statistic():
    """With two categories the GRM is the 2PL and the statistic is the
    binary models' one (where no category is merged: the same df)."""
    X = make_irt_responses(400, 12, missing_rate=0.1, random_state=3)
    binary = _fit("2PL", X, n_quadrature=61, tol=1e-10).task_table(X)
    graded = _fit("GRM", X, n_quadrature=61, tol=1e-10).task_table(X)
    same = binary["item_fit_df"] == graded["item_fit_df"]
    assert same.sum() >= 10
    np.testing.assert_allclose(graded["item_fit"][same], binary["item_fit"][same],
                               rtol=1e-5)
    np.testing.assert_allclose(graded["item_fit_pvalue"][same],
                               binary["item_fit_pvalue"][same], rtol=1e-4)


@pytest.mark.parametrize("model", MODELS)
def test_dense_and_sparse_input_agree(model):
    X, _, _ = simulate(model, 300, 6, 4, seed=5, missing=0.3)
    rows, cols = np.nonzero(~np.isnan(X))
    csr = sparse.csr_array((X[rows, cols], (rows, cols)), shape=X.shape)
    fitted = _fit(model, X)
    dense, sparse_ = fitted.task_table(X), fitted.task_table(csr)
    for column in ("item_fit", "item_fit_df", "item_fit_pvalue"):
        np.testing.assert_allclose(sparse_[column], dense[column], rtol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_p_values_are_uniform_on_data_from_the_model(model):
    """Seeded corpus of data simulated from the fitted model's family: the
    item p-values are close to uniform (the df subtract the item's
    parameters, which are estimated)."""
    pvalues = []
    for seed in range(6):
        X, _, _ = simulate(model, 1000, 10, 4, seed=100 + seed, missing=0.1)
        pvalues.append(_fit(model, X).item_fit(X)[1])
    pvalues = np.concatenate(pvalues)
    assert kstest(pvalues, "uniform").pvalue > 0.01
    assert np.mean(pvalues < 0.05) < 0.12


def _with_a_non_monotone_item(model, seed, n=1000, J=10, K=4):
    """Data from the model, except item 0: its categories follow |theta|."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a = rng.lognormal(0.2, 0.3, J)
    b = rng.normal(0.0, 1.0, (J, K - 1))
    b = np.sort(b, axis=1) if model == "GRM" else b
    P = category_probabilities(model, a, b, theta)
    X = (rng.random((n, J, 1)) > np.cumsum(P, axis=2)[..., :-1]).sum(axis=2)
    X = X.astype(float)
    cut = np.array([-0.5, 0.3, 1.0])
    above = expit(2.0 * (np.abs(theta)[:, None] - cut))  # P(x >= k), k = 1..3
    X[:, 0] = (rng.random((n, 1)) < above).sum(axis=1)
    return X


@pytest.mark.parametrize("model", MODELS)
def test_flags_an_item_from_another_model(model):
    X = _with_a_non_monotone_item(model, seed=21)
    _, pvalue = _fit(model, X).item_fit(X)
    assert pvalue[0] < 1e-6
    assert np.median(pvalue[1:]) > 0.05


def test_left_out_items_have_no_statistic():
    X, _, _ = simulate("GRM", 300, 5, 3, seed=11)
    X[:, 2] = 1.0  # one category only: left out with a warning
    table = _fit("GRM", X).task_table(X)
    assert np.isnan(table.loc[2, ["item_fit", "item_fit_df",
                                  "item_fit_pvalue"]].astype(float)).all()
    assert np.isfinite(table.drop(index=2)["item_fit_pvalue"]).all()


@pytest.mark.parametrize("params", [{"model": "beta"},
                                    {"model": "GRM", "n_factors": 2}])
def test_models_without_the_statistic_are_refused(params):
    if params["model"] == "beta":
        X = np.clip(np.random.default_rng(0).beta(2, 2, (80, 6)), 0.01, 0.99)
    else:
        X, _, _ = simulate("GRM", 200, 6, 3, seed=13)
    fitted = _fit(X=X, **params)
    with pytest.raises(ValueError, match="one-ability binary and graded"):
        fitted.task_table(X)
    assert "item_fit" not in fitted.task_table().columns


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 5.0), min_size=2, max_size=8),
       st.floats(0.5, 3.0))
def test_merged_categories_expect_enough(expected, min_expected):
    expected = np.asarray(expected)
    label = _merge(expected, min_expected)
    assert label[0] == 0 and np.all(np.diff(label) >= 0)  # adjacent runs
    assert np.all(np.diff(label) <= 1)
    sums = np.bincount(label, weights=expected)
    if sums.size > 1:
        assert sums.min() >= min_expected


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(5, 60))
def test_group_term_is_the_pearson_statistic_of_a_binary_group(seed, K, n):
    """K = 2: (O - E)^2 / sum p (1 - p); any K: non-negative with at most
    K - 1 degrees of freedom."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(K), size=n)
    observed = np.array([rng.choice(K, p=row) for row in p])
    value, df = _group_term(observed, p, 0.0)
    assert value >= 0 and 0 <= df <= K - 1
    if K == 2:
        expected = (np.sum(observed == 1) - p[:, 1].sum()) ** 2 / np.sum(
            p[:, 0] * p[:, 1])
        assert value == pytest.approx(expected, rel=1e-8)
