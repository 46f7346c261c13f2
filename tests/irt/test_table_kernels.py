"""The item-by-item posterior pass of the binary item models (any curve,
Birnbaum 1968; Barton and Lord 1981) against the agent-by-agent one it
replaces and against the dense store's matrix products: same posteriors,
log-normalisers and moments, for the compiled loops and their Python bodies,
over guessing near 0 and large, upper asymptotes, agents with no, one, few and
many responses, and chunks of agents of any size."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_eval.irt import _estep, _kernels, _table_kernels
from sklearn_eval.irt._binary_models import _LOGIT_CAP, log_tables
from sklearn_eval.irt._estep import _table_posteriors
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import _Responses
from sklearn_eval.irt._sparse_responses import _SparseResponses


def _case(seed, n_agents, n_items):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.2, 4.0, n_items)
    d = rng.normal(0.0, 2.0, n_items)
    gamma = rng.choice([-_LOGIT_CAP, -6.0, -1.4, 0.0, 2.0], n_items)
    upsilon = rng.choice([np.inf, _LOGIT_CAP, 3.0, 1.5], n_items)
    params = np.column_stack([a, d, gamma, np.maximum(upsilon, gamma + 0.5)])
    # responses per agent from none to all items
    density = rng.choice([0.0, 0.02, 0.2, 1.0], n_agents)
    seen = rng.random((n_agents, n_items)) < density[:, None]
    seen[1, :] = False
    seen[1, rng.integers(n_items)] = True  # one response
    X = np.where(seen, (rng.random(seen.shape) < 0.6).astype(float), np.nan)
    return X, params


def _by_agent(store, log_p, log_q, grid, get):
    n, K = store.n_agents, len(grid)
    out = (np.zeros((n, K)), np.empty(n, np.int64), np.empty(n, np.int64),
           np.empty(n), np.empty(n), np.empty(n))
    get("posterior_rows_tables")(store.indptr, store.codes,
                                 np.ascontiguousarray(log_p.T),
                                 np.ascontiguousarray(log_q.T), grid.nodes,
                                 grid.log_weights, 37.0, *out)
    return out


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), chunk=st.integers(1, 70),
       n_nodes=st.sampled_from([31, 121]))
def test_item_by_item_pass_gives_the_agent_by_agent_posteriors(seed, chunk,
                                                               n_nodes):
    X, params = _case(seed, 60, 40)
    grid = make_grid("rectangular", n_nodes)
    log_p, log_q = log_tables(params, grid.nodes)
    store = _SparseResponses.from_dense(X, chunk_size=chunk)
    modes = [False, True] if _kernels.HAVE_NUMBA else [False]
    for compiled in modes:
        get = _kernels.kernel if compiled else _kernels._PYTHON.__getitem__
        table_get = (_table_kernels.kernel if compiled
                     else _table_kernels._PYTHON.__getitem__)
        want = _by_agent(store, log_p, log_q, grid, get)
        n, K = store.n_agents, len(grid)
        got = (np.zeros((n, K)), np.empty(n, np.int64), np.empty(n, np.int64),
               np.empty(n), np.empty(n), np.empty(n))
        for start, stop in store.row_chunks:
            cursor = np.empty(store.n_items, np.int64)
            table_get("column_cursors")(store.colptr, store.column_codes, start,
                                        cursor)
            table_get("posterior_rows_by_item")(
                store.rows(start, stop)[0], store.colptr, store.column_codes,
                cursor, start, np.ascontiguousarray(log_p.T),
                np.ascontiguousarray(log_q.T), grid.nodes, grid.log_weights, 37.0,
                np.empty((stop - start, K)), *(part[start:stop] for part in got))
        for fast, slow in zip(got, want, strict=True):
            assert_array_equal(fast, slow)  # the same sums in the same order


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_sparse_posteriors_are_the_dense_ones(seed):
    X, params = _case(seed, 50, 30)
    grid = make_grid("rectangular", 61)
    log_p, log_q = log_tables(params, grid.nodes)
    got = _table_posteriors(_SparseResponses.from_dense(X, chunk_size=7), log_p,
                            log_q, grid)
    dense = _Responses(X).e_step_tables(log_p, log_q, grid, counts=False,
                                        moments=True)
    assert_allclose(got.lse, dense["per_agent"], rtol=1e-12, atol=1e-12)
    assert_allclose(got.mean, dense["mean"], atol=1e-10)
    assert_allclose(got.sd, dense["sd"], atol=1e-10)
    assert np.all(got.lse[np.isnan(X).all(axis=1)] == 0.0)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_rows=st.integers(1, 40),
       n_nodes=st.sampled_from([1, 2, 31, 61]),
       scale=st.sampled_from([1.0, 50.0, 700.0]))
def test_one_pass_normalisation_is_the_numpy_one(seed, n_rows, n_nodes, scale):
    # log-likelihood rows from mild to far below exp's range (large
    # negative values: agents with thousands of responses)
    rng = np.random.default_rng(seed)
    table = rng.normal(-scale, scale, (n_rows, n_nodes))
    if n_nodes > 1:
        table[0, rng.integers(n_nodes)] = -np.inf  # a node ruled out
    log_w = np.log(rng.dirichlet(np.ones(n_nodes)))
    want = table + log_w
    want_lse, want_post = _estep._log_normalise(want)
    modes = [False, True] if _kernels.HAVE_NUMBA else [False]
    for compiled in modes:
        get = (_table_kernels.kernel if compiled
               else _table_kernels._PYTHON.__getitem__)
        post = table.copy()
        lse, mass = np.empty(n_rows), np.zeros(n_nodes)
        nothing = np.empty((0, n_nodes))
        get("normalise_rows")(post, log_w, np.zeros(n_rows + 1, np.int64),
                              np.empty(0, np.int64), nothing, 37.0, lse, mass,
                              nothing)
        # weights more than 37 nats below the mode's are 0: below rounding
        assert_allclose(lse, want_lse, rtol=1e-14, atol=1e-12)
        assert_allclose(post, want_post, rtol=1e-13, atol=1e-16)
        assert np.all(post[want_post < 1e-17 * want_post.max(axis=1,
                                                             keepdims=True)] == 0)
        assert_allclose(post.sum(axis=1), 1.0, rtol=1e-14)
        assert_allclose(mass, want_post.sum(axis=0), rtol=1e-13, atol=1e-15)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), chunk=st.sampled_from([None, 1, 7, 50]),
       missing=st.sampled_from([0.001, 0.05, 0.3, 0.9]),
       share=st.sampled_from([0.0, 1.0]))
def test_stacked_e_step_is_the_two_product_one(seed, chunk, missing, share):
    # the [successes | failures] blocks and the "missing as a failure, then
    # taken off" blocks (any size; share 1.0 forces the latter where numba
    # runs it) give the sums of the two-product pass over the store's blocks
    rng = np.random.default_rng(seed)
    _, params = _case(seed, 2, 30)
    X = np.where(rng.random((50, 30)) < missing, np.nan,
                 (rng.random((50, 30)) < 0.6).astype(float))
    X[0, 0] = np.nan  # some response missing: these passes apply
    X[1] = np.nan  # an agent with no response
    grid = make_grid("rectangular", 31)
    log_p, log_q = log_tables(params, grid.nodes)
    store = _Responses(X, chunk_size=chunk)
    saved = _estep.COMPLEMENT_SHARE
    try:
        _estep.COMPLEMENT_SHARE = share
        got = store.e_step_tables(log_p, log_q, grid, moments=True)
    finally:
        _estep.COMPLEMENT_SHARE = saved
    want = _estep._dense_table_e_step(store, log_p - log_q, log_q, grid,
                                      moments=True)
    assert_allclose(got["loglik"], want["loglik"], rtol=1e-13)
    for key in ("r", "n", "mass", "mean", "sd", "per_agent"):
        assert_allclose(got[key], want[key], rtol=1e-11, atol=1e-11)
    assert np.all(got["n"] >= got["r"])


@pytest.mark.skipif(not _kernels.HAVE_NUMBA, reason="the compiled loop")
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_rows=st.integers(1, 30))
def test_missing_correction_python_body_is_the_compiled_loop(seed, n_rows):
    rng = np.random.default_rng(seed)
    n_items, n_nodes = 12, 31
    missing = rng.random((n_rows, n_items)) < 0.3
    agent, item = np.nonzero(missing)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(agent, minlength=n_rows))])
    log_q = np.log(rng.uniform(0.01, 0.99, (n_items, n_nodes)))
    start = rng.normal(-30.0, 10.0, (n_rows, n_nodes))
    log_w = np.log(rng.dirichlet(np.ones(n_nodes)))
    outs = []
    for get in (_table_kernels.kernel, _table_kernels._PYTHON.__getitem__):
        out = (start.copy(), np.empty(n_rows), np.zeros(n_nodes),
               np.zeros((n_items, n_nodes)))
        get("normalise_rows")(out[0], log_w, ptr, item.astype(np.int64),
                              log_q, 37.0, out[1], out[2], out[3])
        outs.append(out)
    for fast, slow in zip(*outs, strict=True):
        assert_allclose(fast, slow, rtol=1e-14, atol=1e-300)
    # the taken-off rows are those of the missing items
    want = start - missing.astype(float) @ log_q
    want_lse, want_post = _estep._log_normalise(want + log_w)
    # the log-normaliser is a sum of terms of size |want| that may nearly
    # cancel (seed 925: -5.3e-4 from terms of about -30): its rounding is
    # relative to the terms, not to the result
    assert_allclose(outs[0][1], want_lse, rtol=1e-13,
                    atol=1e-14 * float(np.max(np.abs(want + log_w))))
    assert_allclose(outs[0][3], missing.T.astype(float) @ want_post,
                    rtol=1e-12, atol=1e-15)
