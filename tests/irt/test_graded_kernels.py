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


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_agents=st.integers(2, 60),
       n_items=st.integers(1, 6), n_categories=st.integers(2, 5),
       observed=st.sampled_from([0.2, 0.7, 1.0]), n_nodes=st.integers(2, 31),
       chunk_size=st.sampled_from([1, 3, 7]), data=st.data())
def test_sums_do_not_depend_on_how_agents_are_grouped(
        seed, n_agents, n_items, n_categories, observed, n_nodes, chunk_size, data):
    """On each path, the expected counts and the score products are the same
    bit for bit whatever the blocks, the order of the agents, or a split of
    them into stores whose sums are added (as Dask partitions are): they are
    exact sums on fixed grids set by the agents of the whole fit."""
    rng = np.random.default_rng(seed)
    csr = _indicator_matrix(rng, n_agents, n_items, n_categories, observed)
    grid = _grid(n_nodes, rng)
    log_p = np.log(rng.dirichlet(np.ones(n_categories), (n_nodes, n_items)))
    log_p = log_p.reshape(n_nodes, -1)
    g = rng.normal(size=(n_nodes, csr.shape[1], 3)) * 10.0 ** rng.integers(-3, 4)
    order = np.array(data.draw(st.permutations(range(n_agents))))
    split = data.draw(st.integers(1, n_agents - 1))
    with pytest.MonkeyPatch.context() as monkeypatch:
        for python in (False, True):
            if python:
                monkeypatch.setattr(_graded_kernels, "HAVE_NUMBA", False)
            for store in _stores(csr, n_nodes, monkeypatch):
                whole_r = store.e_step(log_p, grid)["r"]
                whole_g = store.score_products(log_p, grid, g)
                compiled = store.compiled
                monkeypatch.setattr(_graded_store, "compiled_for",
                                    lambda *args, c=compiled: c)
                other = _CategoricalResponses(csr[order], n_nodes=n_nodes,
                                              chunk_size=chunk_size)
                np.testing.assert_array_equal(other.e_step(log_p, grid)["r"], whole_r)
                np.testing.assert_array_equal(
                    other.score_products(log_p, grid, g), whole_g)
                parts = [_CategoricalResponses(csr[rows], n_nodes=n_nodes,
                                               n_terms=n_agents)
                         for rows in (order[:split], order[split:])]
                r = sum((part.e_step_sums(log_p, grid)["r"] for part in parts[1:]),
                        parts[0].e_step_sums(log_p, grid)["r"])
                products = sum((part.score_product_sums(log_p, grid, g)
                                for part in parts[1:]),
                               parts[0].score_product_sums(log_p, grid, g))
                np.testing.assert_array_equal(r.value(), whole_r)
                np.testing.assert_array_equal(products.value(), whole_g)


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


@pytest.mark.parametrize(("model", "n_factors"), [("GRM", 1), ("GPCM", 1),
                                                 ("GRM", 2)])
def test_fit_does_not_depend_on_blocks_threads_or_agent_order(model, n_factors,
                                                             loop_kind):
    """Item parameters and their standard errors are the same bit for bit
    with any block size, on threads, and with the agents in another order:
    every sum over agents behind them is exact (the user guide's promise that
    a Dask fit equals the in-memory one rests on it). The log-likelihood is a
    plain sum, equal to rounding."""
    X, _, _ = simulate(model, 300, 6, 4, seed=5, missing=0.2)
    order = np.random.default_rng(0).permutation(X.shape[0])
    params = {"model": model, "n_factors": n_factors, "tol": 1e-6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [IRT(**params).fit(X), IRT(**params, chunk_size=7).fit(X),
                IRT(**params, chunk_size=50, n_jobs=2).fit(X),
                IRT(**params).fit(X[order])]
    column = "thresholds" if model == "GRM" else "steps"
    names = ("discrimination_", f"{column}_", "discrimination_se_", f"{column}_se_")
    for fit in fits[1:]:
        assert fit.log_likelihood_ == pytest.approx(fits[0].log_likelihood_,
                                                    rel=1e-13)
        assert fit.n_iter_ == fits[0].n_iter_
        for name in names:
            np.testing.assert_array_equal(getattr(fit, name), getattr(fits[0], name),
                                          err_msg=name)


def test_small_stores_keep_the_numpy_path(monkeypatch):
    """Loading compiled loops costs more than small data take (module notes)."""
    monkeypatch.setattr(_graded_kernels, "HAVE_NUMBA", True)
    small = _graded_kernels.COMPILED_FROM // 61 - 1
    assert not _graded_kernels.compiled_for(small, 61)
    assert _graded_kernels.compiled_for(small + 2, 61)
    monkeypatch.setattr(_graded_kernels, "HAVE_NUMBA", False)
    assert not _graded_kernels.compiled_for(10**9, 121)
