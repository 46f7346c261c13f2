"""The ordered-category store's two paths: compiled loops and sparse products.

The indicator store (see the IRT user guide, graded models) computes an
E-step either as two sparse products with numpy or by fused per-agent loops
(compiled with numba where available, plain Python otherwise). Both must give
the same posteriors, counts, moments and Louis score products to rounding,
on any indicator matrix: agents with no responses, one response, or every
column; columns nobody used; grids of any size.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from sklearn_eval.irt import IRT, _graded_kernels, _graded_store
from sklearn_eval.irt._graded_store import _CategoricalResponses
from sklearn_eval.irt._quadrature import QuadratureGrid

from .test_graded import simulate


def _indicator_matrix(rng, n_agents, n_items, n_categories, observed):
    """Indicator CSR: one column per (item, category), at most one per item."""
    rows, cols = [], []
    for i in range(n_agents):
        for j in range(n_items):
            if rng.random() < observed:
                rows.append(i)
                cols.append(j * n_categories + rng.integers(n_categories))
    return sparse.csr_array((np.ones(len(rows)), (rows, cols)),
                            shape=(n_agents, n_items * n_categories))


def _grid(n_nodes, rng):
    nodes = np.linspace(-4.0, 4.0, n_nodes)
    log_w = -0.5 * nodes**2 + rng.normal(0.0, 0.1, n_nodes)
    log_w -= np.logaddexp.reduce(log_w)
    return QuadratureGrid(nodes, log_w, "rectangular")


def _stores(csr, n_nodes, monkeypatch, chunk_size=None):
    """The same data in a store of each path."""
    monkeypatch.setattr(_graded_store, "compiled_for", lambda *args: False)
    products = _CategoricalResponses(csr, n_nodes=n_nodes, chunk_size=chunk_size)
    monkeypatch.setattr(_graded_store, "compiled_for", lambda *args: True)
    loops = _CategoricalResponses(csr, n_nodes=n_nodes, chunk_size=chunk_size)
    assert loops.compiled and not products.compiled
    return products, loops


@pytest.fixture(params=["compiled", "python"])
def loop_kind(request, monkeypatch):
    """Run the loops compiled (when numba is there) and as plain Python."""
    if request.param == "python":
        monkeypatch.setattr(_graded_kernels, "HAVE_NUMBA", False)
    return request.param


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_agents=st.integers(1, 40),
       n_items=st.integers(1, 6), n_categories=st.integers(2, 5),
       observed=st.sampled_from([0.0, 0.2, 0.7, 1.0]),
       n_nodes=st.integers(2, 31), chunk_size=st.sampled_from([None, 1, 7]))
def test_loops_equal_sparse_products(seed, n_agents, n_items, n_categories,
                                     observed, n_nodes, chunk_size):
    rng = np.random.default_rng(seed)
    csr = _indicator_matrix(rng, n_agents, n_items, n_categories, observed)
    grid = _grid(n_nodes, rng)
    log_p = np.log(rng.dirichlet(np.ones(n_categories), (n_nodes, n_items)))
    log_p = log_p.reshape(n_nodes, -1)
    g = rng.normal(size=(n_nodes, csr.shape[1], 3))
    with pytest.MonkeyPatch.context() as monkeypatch:
        for python in (False, True):
            if python:
                monkeypatch.setattr(_graded_kernels, "HAVE_NUMBA", False)
            products, loops = _stores(csr, n_nodes, monkeypatch, chunk_size)
            want = products.e_step(log_p, grid, moments=True)
            got = loops.e_step(log_p, grid, moments=True)
            assert got["loglik"] == pytest.approx(want["loglik"], rel=1e-12, abs=1e-12)
            np.testing.assert_allclose(got["r"], want["r"], rtol=1e-12, atol=1e-14)
            for key in ("mean", "sd", "per_agent"):
                np.testing.assert_allclose(got[key], want[key], rtol=1e-11,
                                           atol=1e-12)
            np.testing.assert_allclose(loops.score_products(log_p, grid, g),
                                       products.score_products(log_p, grid, g),
                                       rtol=1e-11, atol=1e-12)


def test_counts_add_up_to_responses(loop_kind, monkeypatch):
    """Each response's posterior sums to one: counts per column = its responses."""
    rng = np.random.default_rng(3)
    csr = _indicator_matrix(rng, 60, 8, 3, 0.6)
    _, loops = _stores(csr, 21, monkeypatch)
    grid = _grid(21, rng)
    log_p = np.log(rng.dirichlet(np.ones(3), (21, 8))).reshape(21, -1)
    r = loops.e_step(log_p, grid)["r"]
    np.testing.assert_allclose(r.sum(axis=0), np.asarray(csr.sum(axis=0)).ravel(),
                               rtol=1e-12)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_fit_is_the_same_on_both_paths(model, loop_kind, monkeypatch):
    """A whole fit (EM, standard errors, abilities) does not depend on the path."""
    X, _, _ = simulate(model, 300, 6, 4, seed=5, missing=0.2)
    fits = {}
    for compiled in (False, True):
        monkeypatch.setattr(_graded_store, "compiled_for",
                            lambda *args, on=compiled: on)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[compiled] = IRT(model=model).fit(X)
    a, b = fits[True], fits[False]
    assert a.n_iter_ == b.n_iter_
    assert a.score(X) == pytest.approx(b.score(X), rel=1e-12)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(a.task_table().filter(like="_se").to_numpy(float),
                               b.task_table().filter(like="_se").to_numpy(float),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.transform(X), b.transform(X), atol=1e-10)


def test_small_stores_keep_the_numpy_path(monkeypatch):
    """Loading compiled loops costs more than small data take (module notes)."""
    monkeypatch.setattr(_graded_kernels, "HAVE_NUMBA", True)
    small = _graded_kernels.COMPILED_FROM // 61 - 1
    assert not _graded_kernels.compiled_for(small, 61)
    assert _graded_kernels.compiled_for(small + 2, 61)
    monkeypatch.setattr(_graded_kernels, "HAVE_NUMBA", False)
    assert not _graded_kernels.compiled_for(10**9, 121)
