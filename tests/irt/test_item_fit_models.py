"""Item fit of the 1PL-4PL models (Orlando and Thissen 2000; Yen 1981).

The S-X2-type statistic on rest-of-test posteriors, computed from any binary
model's log tables: the 2PL's numbers from its tables, dense and sparse
storage agree, a 2PL misfits data with a guessing floor where the 3PL fits,
and ``compare_models`` reports it per model and item.
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import sparse

from sklearn_eval.irt import IRT, compare_models
from sklearn_eval.irt._binary_models import log_tables
from sklearn_eval.irt._item_fit import _item_fit, item_fit_tables
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import _Responses
from sklearn_eval.irt._sparse_responses import _SparseResponses
from tests.irt.simulate import simulate_responses


def _simulate(n, J, *, guessing, missing=0.0, seed=0, b_mean=0.0):
    X, (a, b, _, _) = simulate_responses(n, J, guessing=guessing, missing=missing,
                                         seed=seed, a_mean=0.3, b_mean=b_mean)
    return X, (a, b)


def test_tables_give_the_2pl_statistic():
    X, (a, b) = _simulate(300, 10, guessing=0.0, missing=0.2, seed=1)
    grid = make_grid("rectangular", 61, 6.0)
    params = np.column_stack([a, -a * b, np.full(10, -np.inf), np.full(10, np.inf)])
    data = _Responses(X)
    expected, groups = _item_fit(X, a, b, grid)
    got, got_groups = item_fit_tables(data, *log_tables(params, grid.nodes), grid)
    assert got_groups == groups
    assert_allclose(got, expected, rtol=1e-8)


@pytest.mark.parametrize("seed", range(3))
def test_dense_and_sparse_item_fit_agree(seed):
    X, (a, b) = _simulate(250, 12, guessing=0.2, missing=0.4, seed=seed)
    rng = np.random.default_rng(seed)
    params = np.column_stack([a, -a * b, rng.normal(-1.5, 0.3, 12),
                              rng.normal(3.0, 0.3, 12)])
    grid = make_grid("rectangular", 121, 6.0)
    tables = log_tables(params, grid.nodes)
    rows, cols = np.nonzero(~np.isnan(X))
    csr = sparse.csr_array((X[rows, cols], (rows, cols)), shape=X.shape)
    dense = item_fit_tables(_Responses(X), *tables, grid)
    sparse_fit = item_fit_tables(_SparseResponses.from_csr(csr), *tables, grid)
    assert dense[1] == sparse_fit[1]
    assert_allclose(sparse_fit[0], dense[0], rtol=1e-7)


@pytest.fixture(scope="module")
def guessing_data():
    # hard items (b around 1) show the floor: measured 2PL p-values from 0
    # (the 3PL's smallest 0.19)
    X, _ = _simulate(3000, 15, guessing=0.3, seed=7, b_mean=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table, fits = compare_models(X, models=["2PL", "3PL"], cv=2,
                                     random_state=0, return_item_fit=True)
    return X, table, fits


def test_a_2pl_misfits_a_guessing_floor_the_3pl_fits(guessing_data):
    _, table, fits = guessing_data
    assert table.loc["2PL", "n_misfit_items"] > table.loc["3PL", "n_misfit_items"]
    # under the true model the p-values are not concentrated near 0
    three = fits.loc["3PL"]
    assert np.mean(three["pvalue"] < 0.05) <= 0.25
    assert np.median(fits.loc["2PL", "pvalue"]) < np.median(three["pvalue"])


def test_compare_models_item_fit_table(guessing_data):
    X, table, fits = guessing_data
    assert list(fits.columns) == ["statistic", "pvalue", "misfit"]
    assert fits.shape[0] == 2 * X.shape[1]
    assert fits["pvalue"].between(0, 1).all()
    for model in ("2PL", "3PL"):
        assert fits.loc[model, "misfit"].sum() == table.loc[model, "n_misfit_items"]


def test_item_fit_of_the_estimator_leaves_out_constant_items():
    X, _ = _simulate(400, 8, guessing=0.2, seed=3)
    X[:, 2] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT(model="3PL", n_options=4).fit(X)
    statistic, pvalue = model.item_fit(X)
    assert np.isnan(statistic[2]) and np.isnan(pvalue[2])
    keep = np.arange(8) != 2
    assert np.all(np.isfinite(statistic[keep])) and np.all(statistic[keep] >= 0)


@pytest.mark.parametrize("alpha", [0.0, 1.0, "0.1", -0.5])
def test_misfit_alpha_must_be_a_probability(alpha):
    X, _ = _simulate(50, 4, guessing=0.0, seed=0)
    with pytest.raises(ValueError, match="misfit_alpha"):
        compare_models(X, models=["1PL"], misfit_alpha=alpha)
