"""IRT2PL's E-step in chunks of agents through joblib (user guide, IRT: "How it is
estimated"): n_jobs, chunk_size, and joblib's dask backend."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joblib import parallel_config
from numpy.testing import assert_allclose

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL, _estep, _responses
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.utils.estimator_checks import check_estimator_contract

FITTED = (
    "discrimination_",
    "difficulty_",
    "discrimination_se_",
    "difficulty_se_",
    "abilities_",
    "abilities_sd_",
)


@pytest.fixture(scope="module")
def responses():
    return make_irt_responses(240, 30, missing_rate=0.2, random_state=0)


def _assert_same_fit(left, right, rtol):
    for name in FITTED:
        assert_allclose(getattr(left, name), getattr(right, name), rtol=rtol,
                        atol=1e-12, err_msg=name)
    assert_allclose(left.log_likelihood_, right.log_likelihood_, rtol=rtol)
    assert left.n_iter_ == right.n_iter_


def _fit(X, **params):
    return IRT2PL(**params).fit(X)


@pytest.mark.parametrize("model", ["2PL", "1PL"])
def test_n_jobs_gives_the_serial_fit(responses, model):
    serial = _fit(responses, model=model, chunk_size=17)
    for n_jobs in (1, 2, -1):
        parallel = _fit(responses, model=model, chunk_size=17, n_jobs=n_jobs)
        for name in FITTED:  # partial sums are added in chunk order
            assert_allclose(getattr(parallel, name), getattr(serial, name),
                            rtol=1e-12, atol=1e-14)
        assert_allclose(parallel.log_likelihood_, serial.log_likelihood_, rtol=1e-12)
        assert parallel.n_iter_ == serial.n_iter_


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 239, 240, 10_000])
def test_any_chunking_gives_the_same_fit(responses, chunk_size):
    reference = _fit(responses)  # one chunk: 240 x 30 is far below the default
    _assert_same_fit(_fit(responses, chunk_size=chunk_size, n_jobs=2), reference,
                     rtol=1e-12)


def test_uint8_storage_is_converted_on_the_workers(responses, monkeypatch):
    reference = _fit(responses, chunk_size=31)
    monkeypatch.setattr(_responses, "_DENSE_LIMIT", 100)  # store 0/1 as uint8
    compact = _fit(responses, chunk_size=31, n_jobs=2)
    _assert_same_fit(compact, reference, rtol=1e-12)


def test_prediction_paths_follow_n_jobs(responses):
    serial = _fit(responses, ability_method="eap", chunk_size=20)
    parallel = _fit(responses, ability_method="eap", chunk_size=20, n_jobs=2)
    new = responses[:50]
    assert_allclose(parallel.transform(new), serial.transform(new), rtol=1e-12)
    assert_allclose(parallel.score_samples(new), serial.score_samples(new),
                    rtol=1e-12)
    for method in ("map", "eap"):
        assert_allclose(parallel.estimate_abilities(new, method=method),
                        serial.estimate_abilities(new, method=method), rtol=1e-12)
    # EAP abilities are posterior means: inside the grid, sd positive
    theta, sd = parallel.estimate_abilities(new, method="eap")
    assert np.all(np.abs(theta) < 6) and np.all(sd > 0)


def test_fit_recovers_the_generating_items_in_parallel():
    X, params = make_irt_responses(600, 25, missing_rate=0.2, random_state=4,
                                   return_params=True)
    fit = _fit(X, chunk_size=50, n_jobs=2)
    assert np.corrcoef(fit.difficulty_, params["b"])[0, 1] > 0.97
    assert np.corrcoef(fit.discrimination_, params["a"])[0, 1] > 0.7
    assert np.corrcoef(fit.abilities_, params["theta"])[0, 1] > 0.85  # ~20 items


def test_n_jobs_from_joblib_context_is_used(responses, monkeypatch):
    seen = []
    original = _estep._e_step_block

    def spy(*args):
        import threading

        seen.append(threading.current_thread().name)
        return original(*args)

    monkeypatch.setattr(_estep, "_e_step_block", spy)
    with parallel_config(backend="threading", n_jobs=2):
        in_context = _fit(responses, chunk_size=40)
    assert any(name != "MainThread" for name in seen)
    seen.clear()
    serial = _fit(responses, chunk_size=40)
    assert set(seen) == {"MainThread"}
    _assert_same_fit(in_context, serial, rtol=1e-12)


@pytest.mark.parametrize(
    "params, message",
    [({"n_jobs": "2"}, "n_jobs"), ({"n_jobs": 0}, "n_jobs"),
     ({"chunk_size": 0}, "chunk_size"), ({"chunk_size": 2.5}, "chunk_size")],
)
def test_invalid_parallel_params_are_rejected(responses, params, message):
    with pytest.raises(ValueError, match=message):
        IRT2PL(**params).fit(responses)
    fitted = IRT2PL().fit(responses)
    before = fitted.difficulty_.copy()
    with pytest.raises(ValueError, match=message):
        fitted.set_params(**params).fit(responses[:, ::-1])
    assert_allclose(fitted.difficulty_, before, rtol=0)  # fitted state untouched


def test_contract_suite_with_chunks_and_threads(responses):
    check_estimator_contract(IRT2PL(n_jobs=2, chunk_size=25), responses[:120])


@settings(max_examples=25, deadline=None)
@given(
    n_agents=st.integers(2, 40),
    n_items=st.integers(2, 12),
    chunk_size=st.integers(1, 45),
    seed=st.integers(0, 2**31 - 1),
)
def test_e_step_is_invariant_to_chunking(n_agents, n_items, chunk_size, seed):
    rng = np.random.default_rng(seed)
    values = (rng.random((n_agents, n_items)) < 0.5).astype(float)
    values[rng.random(values.shape) < 0.3] = np.nan
    a = rng.normal(1.0, 1.0, n_items)
    b = rng.normal(0.0, 1.5, n_items)
    grid = make_grid("rectangular", 31, 6.0)
    whole = _estep._e_step(_responses._Responses(values, chunk_size=n_agents), a, b,
                           grid, moments=True)
    chunked = _estep._e_step(_responses._Responses(values, chunk_size=chunk_size), a,
                             b, grid, moments=True)
    for key in ("mass", "r", "n", "mean", "sd", "per_agent"):
        assert_allclose(chunked[key], whole[key], rtol=1e-12, atol=1e-13,
                        err_msg=key)
    assert_allclose(chunked["loglik"], whole["loglik"], rtol=1e-12)
    # the expected observations per item are the observed counts
    assert_allclose(whole["n"].sum(axis=0), (~np.isnan(values)).sum(axis=0))


# ------------------------------------------------------------------- dask
@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None,
        silence_logs=40,
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


# joblib's dask backend sometimes drops a weak-reference key twice while the
# cluster shuts down (a KeyError in a finaliser, not in our code)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_fit_on_dask_matches_n_jobs_1(responses, dask_client):
    from distributed import get_task_stream

    local = _fit(responses, chunk_size=60, n_jobs=1)
    with get_task_stream(dask_client) as stream, parallel_config(backend="dask"):
        remote = _fit(responses, chunk_size=60, n_jobs=-1)
    _assert_same_fit(remote, local, rtol=1e-12)
    # the chunks of the E-steps really ran as tasks on the cluster
    assert sum("e_step_block" in str(task["key"]) for task in stream.data) > 0


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_sparse_fit_on_dask_matches_n_jobs_1(dask_client):
    """Issue 16: the sparse E-step's chunks of agents run as dask tasks."""
    from distributed import get_task_stream
    from scipy import sparse

    values = make_irt_responses(600, 40, missing_rate=0.85, random_state=4)
    observed = ~np.isnan(values)
    rows, columns = np.nonzero(observed)
    X = sparse.csr_array((values[observed], (rows, columns)), shape=values.shape)
    assert np.sum(X.data == 0) > 0  # explicit zeros: wrong answers
    local = _fit(X, algorithm="sparse", chunk_size=50, n_jobs=1)
    with get_task_stream(dask_client) as stream, parallel_config(backend="dask"):
        remote = _fit(X, algorithm="sparse", chunk_size=50, n_jobs=-1)
    _assert_same_fit(remote, local, rtol=1e-12)
    assert_allclose(remote.difficulty_, _fit(values, algorithm="dense").difficulty_,
                    rtol=1e-9)
    keys = [str(task["key"]) for task in stream.data]
    assert sum("posterior_chunk" in key for key in keys) >= 12  # 600 / 50 per E-step


# ------------------------------------------------- validation in row blocks
def test_blockwise_validation_names_the_offending_entry(responses, monkeypatch):
    monkeypatch.setattr(_responses, "_BLOCK_ENTRIES", 30 * 8)  # 8 agents per block
    bad = responses.copy()
    bad[5, 2], bad[130, 7] = 1.0, 0.5  # the bad value sits in block 17
    with pytest.raises(ValueError, match=r"binary.*0\.5.*row 130.*column 7"):
        IRT2PL().fit(bad)
    fitted = IRT2PL(chunk_size=50).fit(responses)
    new = responses[:40].copy()
    new[33, 4] = 2.0
    with pytest.raises(ValueError, match=r"binary.*2\.0.*row 33, column 4"):
        fitted.transform(new)
    empty = responses.copy()
    empty[201] = np.nan
    with pytest.raises(ValueError, match=r"has no observed response \(row 201\)"):
        IRT2PL().fit(empty)


def test_threads_run_without_joblib_and_other_backends_with_it():
    # joblib's threads are run by the library's own pool (joblib's call
    # waits for results in 10 ms steps); any other backend by joblib itself
    from joblib import Parallel

    from sklearn_eval.irt._blocks import ThreadPool
    from sklearn_eval.irt._fit import _executor

    with _executor(2) as pool:
        assert isinstance(pool, ThreadPool)
    with parallel_config(backend="threading", n_jobs=2), _executor(None) as pool:
        assert isinstance(pool, ThreadPool)
    with parallel_config(backend="loky"), _executor(2) as pool:
        assert isinstance(pool, Parallel)
    with _executor(1) as pool:
        assert pool is None


def test_thread_pool_keeps_the_order_and_raises_the_tasks_errors():
    import time
    import warnings

    from sklearn.utils.parallel import delayed

    from sklearn_eval.irt._blocks import ThreadPool

    def task(i):
        time.sleep(0.001 * ((7 * i) % 5))  # finish out of order
        if i == 13:
            raise ValueError("task 13")
        return i

    with ThreadPool(3) as pool, warnings.catch_warnings():
        warnings.simplefilter("error")  # scikit-learn's delayed stays quiet
        assert pool(delayed(task)(i) for i in range(12)) == list(range(12))
        with pytest.raises(ValueError, match="task 13"):
            pool(delayed(task)(i) for i in range(20))


@pytest.mark.parametrize("model", ["3PL", "4PL"])
def test_threads_give_the_serial_fit_of_the_binary_models(model):
    # the dense E-step's blocks (stacked and missing-as-failure) in threads
    from sklearn_eval.irt import IRT

    X, _ = make_irt_responses(600, 20, missing_rate=0.1, random_state=2,
                              return_params=True)
    serial = IRT(model=model, n_options=4, chunk_size=50).fit(X)
    threaded = IRT(model=model, n_options=4, chunk_size=50, n_jobs=2).fit(X)
    assert_allclose(threaded.log_likelihood_, serial.log_likelihood_, rtol=1e-13)
    for name in ("discrimination_", "guessing_", "abilities_", "difficulty_se_"):
        assert_allclose(getattr(threaded, name), getattr(serial, name), rtol=1e-10,
                        atol=1e-12, err_msg=name)


@pytest.mark.parametrize("algorithm", ["dense", "sparse"])
def test_items_in_chunks_on_threads_give_the_serial_3pl_fit(algorithm, monkeypatch):
    # the M-step and the standard errors' per-item pieces spread over threads
    # in chunks of items (forced small here): the serial fit to the bit, in
    # the regime whose M-steps run to their maximum (>= 500 agents, >= 100
    # responses each)
    from sklearn_eval.irt import IRT, _irt_fit

    X, _ = make_irt_responses(600, 120, missing_rate=0.1, random_state=3,
                              return_params=True)
    kwargs = {"model": "3PL", "algorithm": algorithm}
    serial = IRT(**kwargs).fit(X)
    calls = []
    original = _irt_fit._item_chunks

    def counted(parallel, n_items, function):
        out = original(parallel, n_items, function)
        calls.append(len(out))
        return out

    monkeypatch.setattr(_irt_fit, "_MIN_CHUNK_ITEMS", 13)
    monkeypatch.setattr(_irt_fit, "_item_chunks", counted)
    threaded = IRT(n_jobs=2, **kwargs).fit(X)
    assert calls and min(calls) == 8  # every M-step and the SEs in chunks
    assert threaded.n_iter_ == serial.n_iter_
    for name in ("discrimination_", "difficulty_", "guessing_", "abilities_",
                 "discrimination_se_", "guessing_se_", "log_likelihood_"):
        assert np.array_equal(getattr(threaded, name), getattr(serial, name),
                              equal_nan=True), name
