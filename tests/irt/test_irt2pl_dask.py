"""IRT2PL on Dask input, the responses kept on the workers (user guide, "More
data than one machine"): the same fit as in memory, traffic per EM iteration of
the size of the item tables, errors computed on the workers."""

import subprocess
import sys
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL
from sklearn_eval.irt._dask_fit import dask_fit_data
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.utils import long_to_result_matrix
from tests.irt.dask_helpers import assert_same_agents, transfer_bytes

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.slow

ITEMS = ("discrimination_", "difficulty_", "discrimination_se_", "difficulty_se_")


def _long(X, shuffle_seed=None):
    """The long table (agent, item, score) of the observed responses of X."""
    rows, columns = np.nonzero(~np.isnan(X))
    table = pd.DataFrame({
        "agent": [f"agent{r:05d}" for r in rows],
        "item": [f"item{c:03d}" for c in columns],
        "score": X[rows, columns],
    })
    if shuffle_seed is not None:
        table = table.sample(frac=1.0, random_state=shuffle_seed)
    return table.reset_index(drop=True)


def _assert_same_fit(distributed_fit, memory_fit):
    """Item parameters, SEs, log-likelihood and abilities agree to 1e-10."""
    for name in ITEMS:
        assert_allclose(getattr(distributed_fit, name), getattr(memory_fit, name),
                        rtol=1e-10, atol=1e-10, err_msg=name)
    assert_allclose(distributed_fit.log_likelihood_, memory_fit.log_likelihood_,
                    rtol=1e-10)
    assert_same_agents(distributed_fit, memory_fit, "success_rate")


# a seeded corpus: complete, a little and mostly missing, ragged chunks
CORPUS = [
    # (n_agents, n_items, missing_rate, chunk rows, seed)
    (300, 25, 0.0, 70, 0),
    (400, 30, 0.2, 150, 1),
    (600, 40, 0.85, 110, 2),
]


@pytest.mark.parametrize("shape", CORPUS)
def test_dask_array_fit_equals_in_memory_fit(dask_client, shape):
    n_agents, n_items, missing, rows, seed = shape
    X = make_irt_responses(n_agents, n_items, missing_rate=missing,
                           random_state=seed)
    params = {"tol": 1e-10, "a_prior": (1.0, 2.0)}  # a finite optimum
    memory_fit = IRT2PL(**params).fit(X)
    fit = IRT2PL(**params).fit(da.from_array(X, chunks=(rows, n_items)))
    _assert_same_fit(fit, memory_fit)
    assert fit.n_features_in_ == n_items
    table = fit.agent_table()  # asked for: the abilities are collected
    assert table.index.tolist() == memory_fit.agent_table().index.tolist()


@pytest.mark.parametrize("shuffle_seed", [None, 3])
@pytest.mark.parametrize("missing", [0.1, 0.8])
def test_long_table_fit_equals_in_memory_fit_by_label(dask_client, missing,
                                                      shuffle_seed):
    """Rows in any order and agents spread over partitions: codes are the
    sorted labels, so the fit aligns with the in-memory one label by label."""
    X = make_irt_responses(350, 30, missing_rate=missing, random_state=4)
    table = _long(X, shuffle_seed)
    params = {"tol": 1e-10, "a_prior": (1.0, 2.0), "ability_method": "eap"}
    memory_fit = IRT2PL(**params).fit(
        long_to_result_matrix(table, task="item", sparse=True))
    fit = IRT2PL(**params).fit(dd.from_pandas(table, npartitions=5, sort=False))
    _assert_same_fit(fit, memory_fit)
    np.testing.assert_array_equal(fit.feature_names_in_, memory_fit.tasks_)


def test_transform_of_dask_input_is_a_dask_array(dask_client):
    X = make_irt_responses(300, 20, missing_rate=0.3, random_state=5)
    model = IRT2PL(tol=1e-9).fit(X)
    new = make_irt_responses(120, 20, missing_rate=0.3, random_state=6)
    out = model.transform(da.from_array(new, chunks=(50, 20)))
    assert isinstance(out, da.Array)
    assert_allclose(out.compute(), model.transform(new), rtol=1e-10, atol=1e-12)
    samples = model.score_samples(da.from_array(new, chunks=(50, 20)))
    assert_allclose(np.asarray(samples), model.score_samples(new), rtol=1e-10)


def test_traffic_per_iteration_is_the_item_tables_at_any_number_of_agents(dask_client):
    """Per EM iteration only (n_nodes x n_items) statistics travel: the bytes
    the workers send (Dask's counter) do not grow with the agents (measured at
    two sizes, 8x apart)."""
    n_items, grid = 40, make_grid("rectangular", 121, 6.0)
    per_iteration = []
    for n_agents in (1_000, 8_000):
        X = make_irt_responses(n_agents, n_items, missing_rate=0.1, random_state=7)
        data, _, summary, _ = dask_fit_data(
            da.from_array(X, chunks=(n_agents // 4, n_items)))
        store = data.store(summary.keep)  # what the fit's EM engine runs on
        a, b = np.ones(store.n_items), np.zeros(store.n_items)
        store.e_step(a, b, grid)
        before = transfer_bytes(dask_client)
        for _ in range(3):
            store.e_step(a, b, grid)
        per_iteration.append((transfer_bytes(dask_client) - before) / 3)
    table = store.n_items * len(grid) * 8
    for value in per_iteration:
        # r and n (n_nodes x n_items) and the node mass from each of 2
        # workers, as double-doubles (two tables each), merged by the driver
        assert 0 < value <= 8 * table + 10_000
    assert per_iteration[1] == per_iteration[0]


def _generated_partition(seed, n_agents=1_000, n_items=50):
    """A partition of a long table made on a worker (never on the driver)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    b = np.linspace(-2, 2, n_items)
    p = 1 / (1 + np.exp(-(theta[:, None] - b)))
    X = (rng.random((n_agents, n_items)) < p).astype(np.float64)
    rows, columns = np.nonzero(rng.random((n_agents, n_items)) < 0.7)
    return pd.DataFrame({"agent": rows + seed * n_agents, "item": columns,
                         "score": X[rows, columns]})


def _driver_peak(table):
    """Peak of the driver's traced allocations during a (3-iteration) fit."""
    tracemalloc.start()
    try:
        with pytest.warns(Warning):  # max_iter: not converged
            model = IRT2PL(max_iter=3, tol=0.0).fit(table)
        return tracemalloc.get_traced_memory()[1], model
    finally:
        tracemalloc.stop()


def test_driver_memory_does_not_grow_with_the_table(dask_client):
    """The driver's peak allocations during a fit of a long table made on the
    workers: at the same number of partitions, 4x the responses add less than a
    tenth of the added table's in-memory size (what grows is the agents'
    labels)."""
    def table(n_agents):
        return dd.from_map(_generated_partition, list(range(6)),
                           n_agents=n_agents)

    row_bytes = 24  # (agent, item, score): int64, int64, float64
    _driver_peak(table(250))  # warm-up
    small, _ = _driver_peak(table(250))
    large, model = _driver_peak(table(1_000))
    assert model.agents_.size == 6_000
    added = 6 * 750 * 50 * 0.7 * row_bytes
    assert large - small < 0.1 * added


def test_driver_memory_stays_below_half_the_table(dask_client):
    """A long table of many partitions, each made on a worker: the driver's
    peak allocations during a fit stay below half the table's in-memory size.
    With many items per partition, a per-partition task that carried its own
    (n_nodes x n_items) tables would break this: the scheduler, in the driver's
    process on a local cluster, keeps a task's arguments while its result is
    held, one copy per partition.

    Traced allocations (tracemalloc), not RSS: they count every array the
    driver's process allocates, scheduler included, and do not depend on the
    allocator returning pages, on earlier peaks of the process or on other
    jobs; the driver runs no compiled code on the responses.
    """
    n_items, per_partition, n_partitions = 1_000, 150, 16

    def table(n):
        return dd.from_map(_generated_partition, list(range(n)),
                           n_agents=per_partition, n_items=n_items)

    _driver_peak(table(2))  # warm-up
    # the lower of two fits: on a loaded machine the scheduler may hold one
    # or two more partitions' (node x item) results at once in one of them
    # (15 MB here; 22 MB once under a full test run), where a copy per
    # partition would be in both
    (peak, model), (again, _) = (_driver_peak(table(n_partitions))
                                 for _ in range(2))
    peak = min(peak, again)
    assert model.agents_.size == n_partitions * per_partition
    # int64 agent and item, float64 score
    table_bytes = 24 * int(table(n_partitions).map_partitions(len).sum().compute())
    assert peak < 0.5 * table_bytes


# ---------------------------------------------------------------- bad input
def _table(**overrides):
    X = make_irt_responses(60, 6, random_state=8)
    table = _long(X)
    for key, value in overrides.items():
        table[key] = value
    return table


def test_repeated_agent_item_rows_name_a_partition_and_rows(dask_client):
    table = _table()
    table = pd.concat([table, table.iloc[[17]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"Partition \d+: repeated \(agent, item\)"
                                         r".*agent00002"):
        IRT2PL().fit(dd.from_pandas(table, npartitions=3, sort=False))


def test_non_binary_scores_name_a_partition_and_row(dask_client):
    table = _table()
    table.loc[200, "score"] = 0.5
    with pytest.raises(ValueError, match=r"Partition 1: scores must be binary.*"
                                         r"row 200 \(agent='agent00033'"):
        IRT2PL().fit(dd.from_pandas(table, npartitions=3, sort=False))


def test_non_numeric_scores_name_a_partition_and_row(dask_client):
    table = _table()
    table["score"] = table["score"].astype(object)
    table.loc[5, "score"] = "yes"
    with pytest.raises(TypeError, match=r"Partition 0: score must be numeric.*"
                                        r"row 5"):
        IRT2PL().fit(dd.from_pandas(table, npartitions=3, sort=False))


def test_unknown_and_missing_columns_are_named(dask_client):
    table = _table(weight=1.0)
    with pytest.raises(ValueError, match=r"unknown column\(s\): \['weight'\]"):
        IRT2PL().fit(dd.from_pandas(table, npartitions=2))
    with pytest.raises(ValueError, match=r"missing: \['score'\]"):
        IRT2PL().fit(dd.from_pandas(table[["agent", "item"]], npartitions=2))


def test_dask_array_errors_name_the_chunk_and_row(dask_client):
    X = make_irt_responses(60, 6, random_state=9)
    bad = X.copy()
    bad[47, 2] = 2.0
    with pytest.raises(ValueError, match=r"Chunk 2: .* row 47, column 2"):
        IRT2PL().fit(da.from_array(bad, chunks=(20, 6)))
    empty = X.copy()
    empty[31] = np.nan
    with pytest.raises(ValueError, match=r"Chunk 1: agent \(row\) 31 has no"):
        IRT2PL().fit(da.from_array(empty, chunks=(20, 6)))


def test_a_failed_dask_fit_leaves_the_fitted_state(dask_client):
    X = make_irt_responses(80, 8, random_state=10)
    model = IRT2PL().fit(X)
    before = model.difficulty_.copy()
    bad = X.copy()
    bad[3, 3] = 7.0
    with pytest.raises(ValueError):
        model.fit(da.from_array(bad, chunks=(40, 8)))
    np.testing.assert_array_equal(model.difficulty_, before)


@pytest.mark.filterwarnings("ignore")
def test_importing_the_library_does_not_import_dask():
    code = ("import sys, sklearn_eval, sklearn_eval.irt, sklearn_eval.pairwise; "
            "print(any(m.split('.')[0] in ('dask', 'distributed') "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"
