"""The continuous models of IRT (beta, logit-normal) on Dask input, the scores
kept on the workers (user guide, "More data than one machine"): the same
clipping, left-out items and fit as in memory, per-agent outputs that stay
Dask arrays, traffic per E-step independent of the number of agents, and
errors computed on the workers that name a partition and a row."""

import copy
import warnings
from functools import partial

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sklearn_eval.irt import IRT
from sklearn_eval.utils import long_to_result_matrix
from tests.irt.dask_helpers import (
    assert_flat_traffic,
    assert_same_agents,
    assert_same_passes,
    library_warnings,
    long_table,
    transfer_per_call,
)
from tests.irt.simulate import simulate_scores

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.slow

_SCALE = {"beta": "precision", "logit-normal": "residual_sd"}


def _scores(n_agents, n_items, missing, seed):
    """Scores in [0, 1] with some exact zeros (clipped), no empty agent."""
    X = simulate_scores(n_agents, n_items, missing=missing, seed=seed)
    X[X < 0.02] = 0.0
    return X[~np.isnan(X).all(axis=1)]


def _assert_same_fit(fit, memory_fit, X_dask, X_memory):
    """Likelihood, item parameters (with the scale parameter: precision,
    residual sd) and their (Louis) standard errors to 1e-10 (measured: within
    2e-12, absolute where a difficulty is near 0). The passes over new data
    (transform, predict, score) to 1e-10 against the in-memory passes at the
    same item parameters."""
    scale = _SCALE[fit.model]
    assert_allclose(fit.log_likelihood_, memory_fit.log_likelihood_, rtol=1e-10)
    assert fit.n_iter_ == memory_fit.n_iter_
    for name in ("discrimination_", "difficulty_", f"{scale}_",
                 "discrimination_se_", "difficulty_se_", f"{scale}_se_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    assert_same_agents(fit, memory_fit, "mean_score")
    memory_fit = copy.deepcopy(memory_fit)
    memory_fit._item_params = fit._item_params.copy()
    _, dask_warnings = library_warnings(fit.transform, X_dask)
    _, memory_warnings = library_warnings(memory_fit.transform, X_memory)
    assert dask_warnings == memory_warnings  # the clipping of new scores
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the clipping, as above
        assert_same_passes(fit, memory_fit, X_dask, X_memory, "predict")


@pytest.mark.parametrize("model", ["beta", "logit-normal"])
@pytest.mark.parametrize(("missing", "rows"), [(0.0, 70), (0.7, 110)])
def test_dask_array_fit_equals_in_memory_fit(dask_client, model, missing, rows):
    X = _scores(300, 15, missing, seed=len(model) + int(10 * missing))
    memory_fit, memory_warnings = library_warnings(IRT(model=model, tol=1e-9).fit, X)
    X_dask = da.from_array(X, chunks=(rows, X.shape[1]))
    fit, dask_warnings = library_warnings(IRT(model=model, tol=1e-9).fit, X_dask)
    assert dask_warnings == memory_warnings
    _assert_same_fit(fit, memory_fit, X_dask, X)


def test_long_table_fit_equals_in_memory_fit_by_label(dask_client):
    """Shuffled rows spread over partitions and an item with one distinct
    score (left out): the same warnings and the same fit, label by label."""
    X = _scores(200, 10, 0.5, seed=5)
    X[~np.isnan(X[:, 4]), 4] = 0.5
    table = long_table(X)
    memory = long_to_result_matrix(table, task="item", sparse=True)
    memory_fit, memory_warnings = library_warnings(IRT(model="beta", tol=1e-9).fit,
                                             memory)
    fit, dask_warnings = library_warnings(
        IRT(model="beta", tol=1e-9).fit,
        dd.from_pandas(table, npartitions=4, sort=False))
    assert dask_warnings == memory_warnings
    assert any("left out" in m and "item004" in m for m in dask_warnings)
    np.testing.assert_array_equal(fit.feature_names_in_, memory_fit.tasks_)
    new = _scores(50, 10, 0.5, seed=6)
    new[~np.isnan(new[:, 4]), 4] = 0.5
    new = long_table(new)
    _assert_same_fit(fit, memory_fit, dd.from_pandas(new, npartitions=2, sort=False),
                     long_to_result_matrix(new, task="item", sparse=True))


def test_traffic_per_e_step_is_the_node_tables_at_any_number_of_agents(dask_client):
    """Per E-step only the (n_nodes x n_items) sums N, S1, S2 and the mass per
    node travel: the bytes the workers send do not grow with the agents (two
    sizes, 8x apart)."""
    from sklearn_eval.irt._dask_continuous import _located_stores
    from sklearn_eval.irt._dask_fit import dask_continuous_fit_data
    from sklearn_eval.irt._quadrature import make_grid

    n_items, grid = 20, make_grid("rectangular", 401, 6.0)
    params = np.column_stack([np.ones(n_items), np.zeros(n_items),
                              np.full(n_items, 2.0)])
    per_e_step = []
    for n_agents in (500, 4_000):
        X = simulate_scores(n_agents, n_items, missing=0.1, seed=7)
        X[:, 0] = np.where(np.isnan(X[:, 0]), 0.5, X[:, 0])  # no empty agent
        _, _, _, (data, dense), keep, _ = dask_continuous_fit_data(
            da.from_array(X, chunks=(n_agents // 4, n_items)), 1e-3)
        store = _located_stores(data, keep, "beta", dense, None, 1e-3)
        tables = store.model.tables(params, grid.nodes)
        per_e_step.append(transfer_per_call(
            dask_client, partial(store.e_step, tables, grid)))
    # N, S1, S2 (n_nodes x n_items) from each of 2 workers, as double-doubles
    # (two tables each), merged by the driver, and the pooled posterior mass
    # per node (for the beta EM's latent standardisation): a 13th table's worth
    assert_flat_traffic(per_e_step, n_items * len(grid) * 8, 13)


def test_scores_outside_the_unit_interval_name_a_partition_and_row(dask_client):
    table = long_table(_scores(60, 6, 0.0, seed=8))
    table.loc[200, "score"] = 1.5
    with pytest.raises(ValueError, match=r"Partition 1: scores must be in \[0, 1\]"
                                         r".*row 200 \(agent="):
        IRT(model="beta").fit(dd.from_pandas(table, npartitions=3, sort=False))
    X = _scores(60, 6, 0.0, seed=9)
    X[47, 2] = -0.5
    with pytest.raises(ValueError, match=r"Chunk 2: X must hold scores in \[0, 1\].*"
                                         r"row 47, column 2 holds -0\.5"):
        IRT(model="logit-normal").fit(da.from_array(X, chunks=(20, 6)))
