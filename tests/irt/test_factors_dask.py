"""The multidimensional 2PL, GRM and GPCM of IRT (``n_factors > 1``) on Dask
input, the responses kept on the workers (user guide, "More data than one
machine"; Reckase 2009, "Multidimensional Item Response Theory"): the same
start, fit,
rotation, standard errors and factor scores as in memory, per-agent outputs
that stay Dask arrays, traffic per E-step independent of the number of
agents, and errors computed on the workers that name a partition and a row."""

from functools import partial

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit

from sklearn_eval.irt import IRT
from sklearn_eval.utils import long_to_result_matrix
from tests.irt.dask_helpers import (
    assert_flat_traffic,
    library_warnings,
    long_table,
    transfer_per_call,
)
from tests.irt.simulate import simulate_graded, simulate_loadings

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.slow


def _responses(n_agents, n_items, missing, seed):
    """Two correlated factors (simple structure), no empty agent."""
    rng = np.random.default_rng(seed)
    _, _, A = simulate_loadings(rng, n_items)
    d = rng.normal(0.0, 1.0, n_items)
    theta = rng.standard_normal((n_agents, 2))
    X = (rng.random((n_agents, n_items)) < expit(theta @ A.T + d)).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    return X[~np.isnan(X).all(axis=1)]


def _assert_same_fit(fit, memory_fit, X_dask, X_memory):
    """Log-likelihood, rotated loadings, intercepts, factor correlations,
    standard errors, abilities and factor scores to 1e-10 (measured: within
    1e-11; the in-memory fit adds its blocks of agents in another order than
    the partitions' exact sums)."""
    assert_allclose(fit.log_likelihood_, memory_fit.log_likelihood_, rtol=1e-10)
    assert fit.n_iter_ == memory_fit.n_iter_
    assert fit.bic_ == pytest.approx(memory_fit.bic_, rel=1e-10)
    for name in ("discrimination_", "intercept_", "factor_corr_",
                 "rotation_matrix_", "general_direction_", "discrimination_se_",
                 "intercept_se_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    for name in ("abilities_", "abilities_sd_", "factor_scores_",
                 "factor_scores_sd_"):
        value = getattr(fit, name)
        assert isinstance(value, da.Array), name  # stays on the workers
        assert_allclose(value.compute(), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    np.testing.assert_array_equal(fit.agents_, memory_fit.agents_)
    table, memory_table = fit.agent_table(), memory_fit.agent_table()
    assert_allclose(table.loc[memory_table.index, "factor_2"],
                    memory_table["factor_2"], rtol=1e-10, atol=1e-10)
    out = fit.transform(X_dask)
    assert isinstance(out, da.Array)
    assert out.shape[1] == 6  # ability, factor 1, factor 2 and their sds
    assert_allclose(out.compute(), memory_fit.transform(X_memory), rtol=1e-10,
                    atol=1e-10)
    assert_allclose(fit.score(X_dask), memory_fit.score(X_memory), rtol=1e-10)


def _long_table_fits(X, params):
    """Fits of X's shuffled long table on Dask (4 partitions) and in memory:
    ``(fit, memory_fit, warnings)``, the same warnings and item labels."""
    table = long_table(X)
    memory_fit, memory_warnings = library_warnings(
        IRT(**params).fit, long_to_result_matrix(table, task="item", sparse=True))
    fit, dask_warnings = library_warnings(
        IRT(**params).fit, dd.from_pandas(table, npartitions=4, sort=False))
    assert dask_warnings == memory_warnings
    np.testing.assert_array_equal(fit.feature_names_in_, memory_fit.tasks_)
    return fit, memory_fit, dask_warnings


@pytest.mark.parametrize(("missing", "rows", "quadrature"), [
    (0.0, 70, "rectangular"), (0.5, 110, "sobol"),
])
def test_dask_array_fit_equals_in_memory_fit(dask_client, missing, rows,
                                             quadrature):
    X = _responses(300, 10, missing, seed=int(10 * missing))
    params = {"n_factors": 2, "tol": 1e-6, "quadrature": quadrature,
              "random_state": 0}
    if quadrature == "sobol":
        params["n_quadrature"] = 256
    memory_fit, memory_warnings = library_warnings(IRT(**params).fit, X)
    X_dask = da.from_array(X, chunks=(rows, X.shape[1]))
    fit, dask_warnings = library_warnings(IRT(**params).fit, X_dask)
    assert dask_warnings == memory_warnings
    new = _responses(40, 10, missing, seed=99)
    _assert_same_fit(fit, memory_fit, da.from_array(new, chunks=(15, 10)), new)


def test_long_table_fit_equals_in_memory_fit_by_label(dask_client):
    """Shuffled rows spread over partitions and an item answered by all
    agents alike (left out, with the same warning): the same fit, label by
    label."""
    X = _responses(260, 9, 0.4, seed=5)
    X[~np.isnan(X[:, 4]), 4] = 1.0
    fit, memory_fit, warned = _long_table_fits(X, {"n_factors": 2, "tol": 1e-6})
    assert any("item004" in m for m in warned)
    assert np.isnan(fit.discrimination_[4]).all()
    new = long_table(_responses(40, 9, 0.4, seed=6))
    _assert_same_fit(fit, memory_fit, dd.from_pandas(new, npartitions=2, sort=False),
                     long_to_result_matrix(new, task="item", sparse=True))


@pytest.mark.parametrize("chunks", [1, 3, 7])
def test_distributed_start_equals_the_in_memory_start(dask_client, chunks):
    """The Gram matrix of the standardised responses summed over 1 to 7
    partitions gives the in-memory start to rounding."""
    from sklearn_eval.irt._dask_fit import dask_fit_data
    from sklearn_eval.irt._multidim import _distributed_start, principal_start

    X = _responses(210, 8, 0.3, seed=chunks)
    data, _, summary, _ = dask_fit_data(
        da.from_array(X, chunks=(-(-X.shape[0] // chunks), 8)))
    assert_allclose(_distributed_start(data, summary.keep, 2),
                    principal_start(X, summary.keep, 2), rtol=1e-12, atol=1e-12)


def test_traffic_per_e_step_is_the_point_tables_at_any_number_of_agents(
        dask_client):
    """Per E-step only the (n_points x n_items) statistics travel, the grid's
    points in two dimensions in place of the nodes of one: the bytes the
    workers send (Dask's counter) do not grow with the agents (two sizes, 8x
    apart)."""
    from sklearn_eval.irt._dask_fit import dask_fit_data
    from sklearn_eval.irt._multidim import factor_log_tables, make_factor_grid

    n_items, grid = 20, make_factor_grid("rectangular", 2)
    per_e_step = []
    for n_agents in (500, 4_000):
        X = _responses(n_agents, n_items, 0.1, seed=7)
        data, _, summary, _ = dask_fit_data(
            da.from_array(X, chunks=(n_agents // 4, n_items)))
        store = data.store(summary.keep)  # what the fit's EM runs on
        params = np.column_stack([np.ones((store.n_items, 2)),
                                  np.zeros(store.n_items)])
        tables = factor_log_tables(params, grid.points)
        per_e_step.append(transfer_per_call(
            dask_client, partial(store.e_step_tables, *tables, grid.axis())))
    # r and n (n_points x n_items) and the points' mass from each of 2
    # workers, as double-doubles (two tables each), merged by the driver
    assert_flat_traffic(per_e_step, store.n_items * len(grid) * 8, 9)


def test_bad_input_names_a_partition_and_row(dask_client):
    table = long_table(_responses(60, 6, 0.0, seed=8))
    table.loc[200, "score"] = 2.0
    with pytest.raises(ValueError, match=r"Partition 1: scores must be binary"
                                         r".*row 200 \(agent="):
        IRT(n_factors=2).fit(dd.from_pandas(table, npartitions=3, sort=False))
    X = _responses(60, 6, 0.0, seed=9)
    X[47, 2] = 0.5
    with pytest.raises(ValueError, match=r"Chunk 2: X must hold binary responses.*"
                                         r"row 47, column 2 holds 0\.5"):
        IRT(n_factors=2).fit(da.from_array(X, chunks=(20, 6)))


def _graded_codes(n_agents, n_items, missing, seed):
    """Category codes 0..3 without empty agents."""
    X = simulate_graded(n_agents, n_items, K=4, missing=missing, seed=seed)
    return X[~np.isnan(X).all(axis=1)]


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
@pytest.mark.parametrize(("missing", "rows"), [(0.0, 70), (0.5, 110)])
def test_graded_factor_fit_equals_in_memory_fit(dask_client, model, missing, rows):
    """Log-likelihood, rotated loadings, intercepts, factor correlations,
    abilities, factor scores, ``transform``, ``predict_proba``, ``score``
    and the (Louis) standard errors to 1e-10 (measured: parameters bit for
    bit, standard errors within 2e-12, also for the items of a barely
    identified loading, standard error 21). The start's Gram matrix, the
    E-step's counts and the score products are exact sums on fixed grids, so
    both fits add the very same numbers; before, they agreed to rounding,
    which the information's inverse amplified to 9e-7."""
    X = _graded_codes(300, 10, missing, seed=int(10 * missing) + len(model))
    params = {"model": model, "n_factors": 2, "tol": 1e-6}
    column = "thresholds" if model == "GRM" else "steps"
    memory_fit, memory_warnings = library_warnings(IRT(**params).fit, X)
    fit, dask_warnings = library_warnings(
        IRT(**params).fit, da.from_array(X, chunks=(rows, X.shape[1])))
    assert dask_warnings == memory_warnings
    assert_allclose(fit.log_likelihood_, memory_fit.log_likelihood_, rtol=1e-10)
    assert fit.n_iter_ == memory_fit.n_iter_
    assert fit.n_observations_ == memory_fit.n_observations_
    for name in ("discrimination_", f"{column}_", "factor_corr_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    for name in ("discrimination_se_", f"{column}_se_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        err_msg=name)
    for name in ("abilities_", "factor_scores_", "factor_scores_sd_"):
        value = getattr(fit, name)
        assert isinstance(value, da.Array), name  # stays on the workers
        assert_allclose(value.compute(), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    new = X[:40]  # categories seen in fit
    new_dask = da.from_array(new, chunks=(15, 10))
    for method in ("transform", "predict_proba"):
        out = getattr(fit, method)(new_dask)
        assert isinstance(out, da.Array), method
        assert_allclose(out.compute(), getattr(memory_fit, method)(new),
                        rtol=1e-10, atol=1e-10, err_msg=method)
    assert_allclose(fit.score(new_dask), memory_fit.score(new), rtol=1e-10)


def test_graded_factor_long_table_fit_equals_in_memory_fit_by_label(dask_client):
    """Shuffled rows spread over partitions, an unobserved category below an
    item's highest (collapsed, with the same warning): the same fit, label by
    label."""
    X = _graded_codes(300, 10, 0.4, seed=17)  # no item separates the agents
    X[X[:, 2] == 1, 2] = 2
    fit, memory_fit, warned = _long_table_fits(
        X, {"model": "GPCM", "n_factors": 2, "tol": 1e-6})
    assert any("item 'item002' category 1" in m for m in warned)
    assert fit.n_observations_ == memory_fit.n_observations_
    assert_allclose(fit.log_likelihood_, memory_fit.log_likelihood_, rtol=1e-10)
    for name in ("discrimination_", "steps_", "factor_corr_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    assert_allclose(fit.factor_scores_.compute(), memory_fit.factor_scores_,
                    rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("chunks", [1, 4])
def test_graded_distributed_start_equals_the_in_memory_start(dask_client, chunks):
    """The Gram matrix of the standardised codes and the category counts
    summed over the partitions give the in-memory start bit for bit: the
    moment sums and the Gram matrix are exact sums (grids), whatever the
    partitions."""
    from sklearn_eval.irt._dask_fit import dask_graded_fit_data
    from sklearn_eval.irt._dask_graded import (
        _largest_code,
        _part_code_gram,
        _part_counts,
        _part_moment_sums,
        _stores,
    )
    from sklearn_eval.irt._graded_factors import (
        code_moments,
        code_quantum,
        factor_start,
        start_from_gram,
    )
    from sklearn_eval.irt._graded_fit import _cells, make_coding

    X = _graded_codes(200, 8, 0.3, seed=chunks)
    data, labels, codes, keep, _ = dask_graded_fit_data(
        da.from_array(X, chunks=(-(-X.shape[0] // chunks), 8)), "GRM")
    coding = make_coding(codes, keep)
    largest, n_agents = _largest_code(codes), X.shape[0]
    moments = code_moments(data.summed(_part_moment_sums, largest, n_agents), coding)
    gram = data.summed(_part_code_gram, code_quantum(moments, largest, n_agents),
                       shared=(coding, moments))
    store = _stores(data, coding, "IRT", labels, None, 21)
    counts = store._map_reduce(_part_counts, coding)
    start, fixed = start_from_gram(gram, moments[0], counts, "GRM", 2)
    expected, expected_fixed = factor_start(_cells(X, "IRT")[0], coding, "GRM", 2)
    np.testing.assert_array_equal(start, expected)
    np.testing.assert_array_equal(fixed, expected_fixed)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
@pytest.mark.parametrize(("n_agents", "n_items", "missing", "n_factors"), [
    (60, 6, 0.0, 3),    # 2m items or fewer: no exploratory solution
    (12, 9, 0.8, 2),    # ... once the items in one category are left out
    (3, 9, 0.0, 2),     # more item parameters than observed responses
    (3, 12, 0.0, 2),
])
def test_graded_factors_not_identified_fails_before_work_on_the_cluster(
        dask_client, monkeypatch, model, n_agents, n_items, missing, n_factors):
    """Too many factors for the items or the responses (Reckase 2009, ch. 4):
    the in-memory fit's ValueError, raised from the coding alone (kept items,
    their categories and observed responses), before any sum over the
    partitions or any store is made on the workers."""
    from sklearn_eval.irt import _dask_graded, _dask_input

    rng = np.random.default_rng(n_items)
    X = rng.integers(0, 3, size=(n_agents, n_items)).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    X = X[~np.isnan(X).all(axis=1)]
    params = {"model": model, "n_factors": n_factors}
    with pytest.raises(ValueError, match="n_factors=") as memory_error:
        IRT(**params).fit(X)

    def no_work(*args, **kwargs):
        raise AssertionError("distributed work before the identifiability check")

    monkeypatch.setattr(_dask_input._DaskInput, "summed", no_work)
    monkeypatch.setattr(_dask_graded, "_stores", no_work)
    with pytest.raises(ValueError) as dask_error:
        IRT(**params).fit(da.from_array(X, chunks=(-(-X.shape[0] // 3), n_items)))
    assert str(dask_error.value) == str(memory_error.value)
