"""The GRM and GPCM of IRT on Dask input, the responses kept on the workers
(user guide, "More data than one machine"; Samejima 1969, Muraki 1992): the
same category coding, warnings and fit as in memory, per-agent outputs that
stay Dask arrays, traffic per E-step independent of the number of agents,
and errors computed on the workers that name a partition and a row."""


import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from sklearn_eval.irt import IRT
from sklearn_eval.utils import long_to_result_matrix
from tests.irt.dask_helpers import (
    assert_same_agents,
    assert_same_passes,
    library_warnings,
    long_table,
    transfer_bytes,
)
from tests.irt.simulate import simulate_graded

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.slow


def _graded(n_agents, n_items, missing, seed, K=4):
    """Category codes 0..K-1 without empty agents."""
    X = simulate_graded(n_agents, n_items, K=K, missing=missing, seed=seed)
    return X[~np.isnan(X).all(axis=1)]


def _fit_recording(params, X):
    """The fitted model and the messages of the warnings of its fit."""
    return library_warnings(IRT(**params).fit, X)


def _column(model):
    return "thresholds_" if model.model == "GRM" else "steps_"


def _assert_same_fit(fit, memory_fit, X_dask, X_memory):
    """Likelihood, abilities, predictions, item parameters and their (Louis)
    standard errors to 1e-10 (measured: item parameters bit for bit,
    standard errors within 1e-15, also for an item with a collapsed category,
    whose information nearly cancels). Every sum over agents behind the
    parameters (the starting values' moments, the E-step's counts, the
    score products) is exact on fixed grids, so the in-memory blocks and the
    partitions add the very same numbers; before, they agreed to rounding,
    which that item's inverse information amplified to 5e-10."""
    assert_allclose(fit.log_likelihood_, memory_fit.log_likelihood_, rtol=1e-10)
    assert fit.n_iter_ == memory_fit.n_iter_
    assert fit.bic_ == pytest.approx(memory_fit.bic_, rel=1e-10)
    for name in ("discrimination_", "difficulty_", _column(fit)):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-12, err_msg=name)
    for name in ("discrimination_se_", "difficulty_se_", _column(fit)[:-1] + "_se_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        err_msg=name)
    assert_same_agents(fit, memory_fit, "mean_category")
    np.testing.assert_array_equal(fit.n_categories_, memory_fit.n_categories_)
    for ours, theirs in zip(fit.categories_, memory_fit.categories_, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert_same_passes(fit, memory_fit, X_dask, X_memory, "predict_proba")


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
@pytest.mark.parametrize(("missing", "rows"), [(0.0, 90), (0.6, 130)])
def test_dask_array_fit_equals_in_memory_fit(dask_client, model, missing, rows):
    X = _graded(400, 20, missing, seed=len(model) + int(10 * missing))
    memory_fit = IRT(model=model, tol=1e-9).fit(X)
    X_dask = da.from_array(X, chunks=(rows, X.shape[1]))
    fit = IRT(model=model, tol=1e-9).fit(X_dask)
    _assert_same_fit(fit, memory_fit, X_dask, X)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_long_table_fit_equals_in_memory_fit_by_label(dask_client, model):
    """Shuffled rows spread over partitions, an unobserved category below an
    item's highest (collapsed) and an item in one category (left out): the
    same coding, the same warnings and the same fit, label by label."""
    def recoded(X):
        X[X[:, 3] == 1, 3] = 2  # category 1 of item 3 never observed
        X[~np.isnan(X[:, 7]), 7] = 2  # item 7 in one category
        return X

    table = long_table(recoded(_graded(300, 12, 0.5, seed=11)))
    memory = long_to_result_matrix(table, task="item", sparse=True)
    params = {"model": model, "tol": 1e-9}
    memory_fit, memory_warnings = _fit_recording(params, memory)
    table_dask = dd.from_pandas(table, npartitions=4, sort=False)
    fit, dask_warnings = _fit_recording(params, table_dask)
    assert dask_warnings == memory_warnings
    assert any("item 'item003' category 1" in m for m in dask_warnings)
    assert any("'item007'" in m and "left out" in m for m in dask_warnings)
    np.testing.assert_array_equal(fit.feature_names_in_, memory_fit.tasks_)
    # new agents' long table, against the same responses in memory
    new = long_table(recoded(_graded(60, 12, 0.5, seed=12)))
    new_memory = long_to_result_matrix(new, task="item", sparse=True)
    _assert_same_fit(fit, memory_fit, dd.from_pandas(new, npartitions=2, sort=False),
                     new_memory)


@pytest.mark.parametrize("seed", range(6))
def test_category_coding_equals_the_in_memory_coding(dask_client, seed):
    """A seeded corpus of category sets with gaps, items in one category and
    codes past 9, cut into 1 to 5 chunks: the codes and the estimated items
    of the distributed pass are the in-memory ones."""
    from sklearn_eval.irt._dask_fit import dask_graded_fit_data
    from sklearn_eval.irt._graded_fit import check_graded_fit

    rng = np.random.default_rng(seed)
    n_agents, n_items = 60, 8
    X = rng.choice([0.0, 1.0, 3.0, 4.0, 12.0], size=(n_agents, n_items))
    X[:, rng.integers(n_items)] = 2.0  # one category only
    X[rng.random(X.shape) < 0.4] = np.nan
    X[:, 0] = rng.integers(0, 2, n_agents)  # no empty agent
    n_chunks = int(rng.integers(1, 6))
    (_, _, codes, keep, _), expected = library_warnings(check_graded_fit, X, "GPCM")
    (_, _, dask_codes, dask_keep, _), got = library_warnings(
        dask_graded_fit_data,
        da.from_array(X, chunks=(-(-n_agents // n_chunks), n_items)), "GPCM")
    assert got == expected
    np.testing.assert_array_equal(dask_keep, keep)
    for ours, theirs in zip(dask_codes, codes, strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_traffic_per_e_step_is_the_category_table_at_any_number_of_agents(
        dask_client):
    """Per E-step only (n_nodes x indicator columns) counts travel: the bytes
    the workers send (Dask's counter) do not grow with the agents (measured
    at two sizes, 8x apart)."""
    from sklearn_eval.irt._dask_fit import dask_graded_fit_data
    from sklearn_eval.irt._dask_graded import _stores
    from sklearn_eval.irt._graded import start_values
    from sklearn_eval.irt._graded_fit import make_coding, tables
    from sklearn_eval.irt._quadrature import make_grid

    n_items, grid = 30, make_grid("rectangular", 61, 6.0)
    per_e_step = []
    for n_agents in (1_000, 8_000):
        X = simulate_graded(n_agents, n_items, K=4, missing=0.1, seed=7)
        X[:, 0] = np.where(np.isnan(X[:, 0]), 1.0, X[:, 0])  # no empty agent
        data, labels, codes, keep, _ = dask_graded_fit_data(
            da.from_array(X, chunks=(n_agents // 4, n_items)), "GRM")
        coding = make_coding(codes, keep)
        store = _stores(data, coding, "GRM", labels, None, len(grid))
        counts = np.ones(coding.valid.shape)
        log_p = tables("GRM", start_values("GRM", counts), coding, grid.nodes)
        store.e_step(log_p, grid)
        before = transfer_bytes(dask_client)
        for _ in range(3):
            store.e_step(log_p, grid)
        per_e_step.append((transfer_bytes(dask_client) - before) / 3)
    table = int(coding.n_categories.sum()) * len(grid) * 8
    for value in per_e_step:
        # the expected counts (n_nodes x columns) from each of 2 workers, as
        # double-doubles (two tables each), merged by the driver
        assert 0 < value <= 4 * table + 10_000
    assert per_e_step[1] == per_e_step[0]


def _table(**overrides):
    table = long_table(_graded(60, 6, 0.0, seed=8))
    for key, value in overrides.items():
        table[key] = value
    return table


@pytest.mark.parametrize(("bad", "message"), [
    (0.5, r"Partition 1: scores must be ordered categories coded 0, 1, 2, .*"
          r"row 200 \(agent="),
    (-1.0, r"Partition 1: scores must be ordered categories .*score=-1\.0"),
])
def test_non_category_scores_name_a_partition_and_row(dask_client, bad, message):
    table = _table()
    table.loc[200, "score"] = bad
    with pytest.raises(ValueError, match=message):
        IRT(model="GRM").fit(dd.from_pandas(table, npartitions=3, sort=False))


def test_non_numeric_scores_name_a_partition_and_row(dask_client):
    table = _table()
    table["score"] = table["score"].astype(object)
    table.loc[5, "score"] = "good"
    with pytest.raises(TypeError, match=r"Partition 0: score must be numeric "
                                        r"\(0, 1, 2, \.\.\. or NaN\); row 5"):
        IRT(model="GPCM").fit(dd.from_pandas(table, npartitions=3, sort=False))


def test_repeated_agent_item_rows_name_a_partition_and_rows(dask_client):
    table = _table()
    table = pd.concat([table, table.iloc[[17]]], ignore_index=True)
    agent = table.loc[17, "agent"]
    with pytest.raises(ValueError, match=r"Partition \d+: repeated \(agent, item\)"
                                         rf".*{agent}"):
        IRT(model="GPCM").fit(dd.from_pandas(table, npartitions=3, sort=False))


def test_dask_array_errors_name_the_chunk_and_row(dask_client):
    X = _graded(60, 6, 0.0, seed=9)
    bad = X.copy()
    bad[47, 2] = 1.5
    with pytest.raises(ValueError, match=r"Chunk 2: .*ordered categories.* row 47, "
                                         r"column 2 holds 1\.5"):
        IRT(model="GRM").fit(da.from_array(bad, chunks=(20, 6)))
    empty = X.copy()
    empty[31] = np.nan
    with pytest.raises(ValueError, match=r"Chunk 1: agent \(row\) 31 has no"):
        IRT(model="GRM").fit(da.from_array(empty, chunks=(20, 6)))


def test_a_category_new_to_an_item_names_the_partition(dask_client):
    table = _table()
    model = IRT(model="GRM").fit(dd.from_pandas(table, npartitions=2, sort=False))
    new = table.copy()
    item = new.loc[10, "item"]
    new.loc[10, "score"] = 9.0
    with pytest.raises(ValueError, match=rf"Partition \d+: IRT\(model='GRM'\): "
                                         rf"item '{item}' has category 9"):
        model.transform(dd.from_pandas(new, npartitions=2, sort=False))


def test_a_failed_dask_fit_leaves_the_fitted_state(dask_client):
    X = _graded(80, 6, 0.0, seed=10)
    model = IRT(model="GPCM").fit(da.from_array(X, chunks=(40, 6)))
    before = model.log_likelihood_
    bad = X.copy()
    bad[5, 1] = -2.0
    with pytest.raises(ValueError, match="Chunk 0"):
        model.fit(da.from_array(bad, chunks=(40, 6)))
    assert model.log_likelihood_ == before
    assert isinstance(model.abilities_, da.Array)


def test_item_fit_of_dask_input_says_it_needs_the_data_in_memory(dask_client):
    """The item fit groups every response of an item at once (user guide,
    "More data than one machine"): refused on Dask input, as for the binary
    models, rather than collecting the data."""
    X = _graded(80, 6, 0.0, seed=13)
    model = IRT(model="GRM").fit(X)
    with pytest.raises(NotImplementedError, match="not offered on Dask input"):
        model.item_fit(da.from_array(X, chunks=(40, 6)))


def test_partitions_run_the_loops_of_the_whole_fit(dask_client):
    """Every partition's store runs the loops (compiled or numpy) that the
    in-memory store of all the responses runs, even where a partition alone
    is below the size from which the compiled loops pay off; its E-step sums
    equal the in-memory ones."""
    from sklearn_eval.irt._dask_fit import dask_graded_fit_data
    from sklearn_eval.irt._dask_graded import _stores
    from sklearn_eval.irt._graded import start_values
    from sklearn_eval.irt._graded_fit import (
        check_graded_fit,
        indicators,
        make_coding,
        tables,
    )
    from sklearn_eval.irt._graded_kernels import compiled_for
    from sklearn_eval.irt._graded_store import _CategoricalResponses
    from sklearn_eval.irt._quadrature import make_grid

    grid = make_grid("rectangular", 61, 6.0)
    X = simulate_graded(3_000, 25, K=4, missing=0.0, seed=11)  # 75,000 responses
    data, labels, codes, keep, _ = dask_graded_fit_data(
        da.from_array(X, chunks=(500, 25)), "GRM")  # 12,500 per partition
    coding = make_coding(codes, keep)
    store = _stores(data, coding, "GRM", labels, None, len(grid))
    cells, memory_labels = check_graded_fit(X, "GRM")[:2]
    memory = _CategoricalResponses(indicators(cells, coding, "GRM", memory_labels),
                                   n_nodes=len(grid))
    flags = dask_client.gather([dask_client.submit(lambda s: s.compiled, part)
                                for part in store.stores])
    assert flags == [memory.compiled] * len(store.stores)
    assert memory.compiled == compiled_for(75_000, len(grid))
    assert not compiled_for(12_500, len(grid))
    log_p = tables("GRM", start_values("GRM", np.ones(coding.valid.shape)), coding,
                   grid.nodes)
    ours, theirs = store.e_step(log_p, grid), memory.e_step(log_p, grid)
    assert_allclose(ours["loglik"], theirs["loglik"], rtol=1e-13)
    assert_allclose(ours["r"], theirs["r"], rtol=1e-12, atol=1e-12)
