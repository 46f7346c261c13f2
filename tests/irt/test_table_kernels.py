"""The item-by-item posterior pass of the binary item models (any curve,
Birnbaum 1968; Barton and Lord 1981) against the agent-by-agent one it
replaces and against the dense store's matrix products: same posteriors,
log-normalisers and moments, for the compiled loops and their Python bodies,
over guessing near 0 and large, upper asymptotes, agents with no, one, few and
many responses, and chunks of agents of any size."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_eval.irt import _kernels, _table_kernels
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
