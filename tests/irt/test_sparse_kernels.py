"""The sparse passes of IRT2PL, each against its dense counterpart or a direct
computation: windowed posteriors (and that the window drops only weights below
rounding), expected counts, Louis' sums, rest-of-test moments, MAP abilities,
the storage of the codes; the compiled kernels against their pure-Python
bodies."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from scipy.special import expit, log_expit, logsumexp

from sklearn_eval.irt import _kernels
from sklearn_eval.irt import _sparse_responses as storage
from sklearn_eval.irt._abilities import _ability_estimates
from sklearn_eval.irt._estep import _compute_posteriors, _e_step
from sklearn_eval.irt._information import _item_information_louis
from sklearn_eval.irt._item_fit import _item_fit, _sparse_item_fit
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import _Responses
from sklearn_eval.irt._sparse_responses import (
    _SparseResponses,
    codes_from_csr,
    codes_from_dense,
    sparse_column_counts,
    sparse_row_counts,
)
from sklearn_eval.irt._starts import _initial_items

_seeds = st.integers(0, 2**31 - 1)
_grids = st.sampled_from([("rectangular", 121), ("rectangular", 31),
                          ("gauss-hermite", 21), ("gauss-hermite", 7)])


def _problem(seed, n_agents, n_items, density, n_nodes=121, kind="rectangular"):
    rng = np.random.default_rng(seed)
    a = rng.normal(1.0, 0.8, n_items)
    a[np.abs(a) < 0.1] = 0.3  # negative discriminations included
    b = rng.normal(0.0, 1.5, n_items)
    theta = rng.normal(size=n_agents)
    values = (rng.random((n_agents, n_items))
              < expit(a * (theta[:, None] - b))).astype(float)
    values[rng.random(values.shape) > density] = np.nan
    grid = make_grid(kind, n_nodes, 6.0)
    return values, a, b, grid


def _both(values, chunk_size=None):
    return (_Responses(values),
            _SparseResponses.from_dense(values, chunk_size=chunk_size))


@settings(max_examples=40, deadline=None)
@given(seed=_seeds, n_agents=st.integers(1, 40), n_items=st.integers(1, 300),
       density=st.floats(0.0, 1.0), grid=_grids, chunk_size=st.integers(1, 50))
# a posterior so narrow (sd 2e-8) that the truncated nodes' mass decides it
@example(seed=243, n_agents=2, n_items=241, density=1.0,
         grid=("gauss-hermite", 7), chunk_size=1)
def test_sparse_e_step_is_the_dense_e_step(seed, n_agents, n_items, density, grid,
                                           chunk_size):
    """Up to 300 items per agent: posteriors from wide to a few nodes."""
    values, a, b, grid = _problem(seed, n_agents, n_items, density, grid[1], grid[0])
    dense, compact = _both(values, chunk_size)
    expected = _e_step(dense, a, b, grid, moments=True)
    for _ in range(2):  # the second pass starts from the first's modes
        out = _e_step(compact, a, b, grid, moments=True)
        assert_allclose(out["loglik"], expected["loglik"], rtol=1e-12, atol=1e-12)
        for key in ("per_agent", "mean"):
            assert_allclose(out[key], expected[key], rtol=1e-10, atol=1e-10,
                            err_msg=key)
        # the sparse posterior drops nodes below exp(-TAIL_NATS) of the peak: the
        # variance may move by that mass times the grid's squared span
        span = float(np.ptp(grid.nodes))
        assert_allclose(out["sd"] ** 2, expected["sd"] ** 2, rtol=1e-10,
                        atol=np.exp(-_kernels.TAIL_NATS) * span**2, err_msg="variance")
        scale = max(1.0, float(np.max(expected["n"])))
        for key in ("mass", "r", "n"):
            assert_allclose(out[key], expected[key], rtol=1e-10,
                            atol=1e-13 * scale, err_msg=key)


@settings(max_examples=30, deadline=None)
@given(seed=_seeds, n_items=st.integers(1, 400), grid=_grids)
def test_window_drops_only_weights_below_rounding(seed, n_items, grid):
    """Against the full posterior by brute force: every node kept, every node
    dropped weighs less than e^-37 of the mode, whatever the starting node."""
    values, a, b, grid = _problem(seed, 6, n_items, 0.8, grid[1], grid[0])
    observed = ~np.isnan(values)
    logits = a * (grid.nodes[:, None] - b)
    table = np.array([
        [np.sum(np.where(values[i, observed[i]] == 1,
                         log_expit(logits[k, observed[i]]),
                         log_expit(-logits[k, observed[i]])))
         for k in range(len(grid))] for i in range(values.shape[0])
    ]) + grid.log_weights
    full = np.exp(table - logsumexp(table, axis=1, keepdims=True))
    data = _SparseResponses.from_dense(values)
    reference = None
    for start in (-1, 0, len(grid) - 1, len(grid) // 3):
        data.hint[:] = start
        posteriors = _compute_posteriors(data, a, b, grid, _kernels.TAIL_NATS)
        window = np.zeros_like(full)
        for i, (low, high) in enumerate(zip(posteriors.lo, posteriors.hi,
                                            strict=True)):
            window[i, low:high + 1] = posteriors.post[i, :high - low + 1]
        dropped = window == 0
        mode = full.max(axis=1, keepdims=True)
        assert np.all(full[dropped] <= np.exp(-_kernels.TAIL_NATS + 1e-9)
                      * np.broadcast_to(mode, full.shape)[dropped])
        assert_allclose(window, full, rtol=1e-11, atol=1e-15)
        assert_allclose(posteriors.lse, logsumexp(table, axis=1), rtol=1e-12,
                        atol=1e-13)
        if reference is None:
            reference = posteriors
        else:  # the starting node changes the work, never the result
            assert_array_equal(posteriors.post, reference.post)
            assert_array_equal(posteriors.lse, reference.lse)


@settings(max_examples=25, deadline=None)
@given(seed=_seeds, n_agents=st.integers(2, 40), n_items=st.integers(2, 120),
       density=st.floats(0.05, 1.0), priors=st.booleans())
def test_sparse_louis_information_is_the_dense_one(seed, n_agents, n_items,
                                                   density, priors):
    values, a, b, grid = _problem(seed, n_agents, n_items, density)
    dense, compact = _both(values, chunk_size=7)
    a_prior, b_prior = ((1.0, 2.0), (0.0, 2.0)) if priors else (None, None)
    expected = _item_information_louis(dense, a, b, grid, a_prior, b_prior)
    out = _item_information_louis(compact, a, b, grid, a_prior, b_prior)
    for got, want in zip(out, expected, strict=True):
        scale = max(1.0, float(np.max(np.abs(want))))
        assert_allclose(got, want, rtol=1e-9, atol=1e-12 * scale)


@settings(max_examples=25, deadline=None)
@given(seed=_seeds, n_agents=st.integers(2, 40), n_items=st.integers(1, 150),
       density=st.floats(0.0, 1.0), method=st.sampled_from(["map", "eap"]))
def test_sparse_abilities_are_the_dense_ones(seed, n_agents, n_items, density,
                                             method):
    values, a, b, grid = _problem(seed, n_agents, n_items, density)
    dense, compact = _both(values, chunk_size=5)
    theta, sd = _ability_estimates(compact, a, b, grid, method)
    expected_theta, expected_sd = _ability_estimates(dense, a, b, grid, method)
    assert_allclose(theta, expected_theta, rtol=1e-10, atol=1e-12)
    assert_allclose(sd, expected_sd, rtol=1e-10, atol=1e-12)
    if method == "map":  # the mode: the log-posterior's derivative is 0
        observed = ~np.isnan(values)
        P = expit(a * (theta[:, None] - b))
        grad = np.where(observed, (np.nan_to_num(values) - P) * a, 0).sum(1) - theta
        assert_allclose(grad, 0.0, atol=1e-8)


def _assert_map_is_the_mode(values, a, b, start):
    dense, compact = _both(values)
    for data in (compact, dense):
        theta, sd = data.map_abilities(a, b, start.copy())
        observed = ~np.isnan(values)
        P = expit(a * (theta[:, None] - b))
        grad = np.where(observed, (np.nan_to_num(values) - P) * a, 0).sum(1) - theta
        curvature = np.where(observed, P * (1 - P) * a * a, 0).sum(1) + 1.0
        # the Newton step left at the result is below rounding of the mode
        assert_allclose(grad / curvature, 0.0, atol=1e-9)
        assert_allclose(sd, 1.0 / np.sqrt(curvature), rtol=1e-6)


def test_map_ability_on_one_steep_item():
    """One success on an item of a = 28.5 (a maximum-likelihood item that
    separates the agents), from 0: Newton steps cycled between 0.002 and 0.53,
    each inside the bracket of the mode (0.2598)."""
    values = np.array([[1.0]])
    _assert_map_is_the_mode(values, np.array([28.51545653]),
                            np.array([0.09535206]), np.array([0.0]))


@settings(max_examples=60, deadline=None)
@given(seed=_seeds, n_agents=st.integers(1, 30), n_items=st.integers(1, 4),
       log_steepness=st.floats(0.0, 7.0), missing=st.floats(0.0, 0.5))
def test_map_abilities_reach_the_mode_on_steep_items(seed, n_agents, n_items,
                                                    log_steepness, missing):
    """Few responses to items as steep as a = 1000: the sparse pass's
    safeguarded Newton and the dense pass's backtracking Newton end at the
    mode, from any start."""
    rng = np.random.default_rng(seed)
    a = np.exp(rng.uniform(-1.0, log_steepness, n_items)) * rng.choice([-1, 1],
                                                                        n_items)
    b = rng.normal(0.0, 1.0, n_items)
    values = (rng.random((n_agents, n_items)) < 0.5).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    values[:, 0] = np.where(np.isnan(values[:, 0]), 1.0, values[:, 0])
    _assert_map_is_the_mode(values, a, b, rng.uniform(-3.0, 3.0, n_agents))


@settings(max_examples=20, deadline=None)
@given(seed=_seeds, n_agents=st.integers(10, 60), n_items=st.integers(2, 40),
       density=st.floats(0.2, 1.0))
def test_sparse_item_fit_is_the_dense_one(seed, n_agents, n_items, density):
    values, a, b, grid = _problem(seed, n_agents, n_items, density)
    values[0] = np.where(np.isnan(values[0]), 1.0, values[0])  # no empty row
    statistic, groups = _sparse_item_fit(_SparseResponses.from_dense(values), a, b,
                                         grid)
    expected, expected_groups = _item_fit(values, a, b, grid)
    assert groups == expected_groups
    assert_allclose(statistic, expected, rtol=1e-8, atol=1e-9)


# ---------------------------------------------------------------- storage
@settings(max_examples=40, deadline=None)
@given(seed=_seeds, n_agents=st.integers(1, 30), n_items=st.integers(1, 20),
       density=st.floats(0.0, 1.0), use_keep=st.booleans(),
       chunk=st.integers(1, 50))
def test_codes_hold_the_observed_responses(seed, n_agents, n_items, density,
                                           use_keep, chunk):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(storage, "_CHUNK_RESPONSES", chunk)
        _check_codes(seed, n_agents, n_items, density, use_keep)


def _check_codes(seed, n_agents, n_items, density, use_keep):
    rng = np.random.default_rng(seed)
    values = (rng.random((n_agents, n_items)) < 0.5).astype(float)
    values[rng.random(values.shape) > density] = np.nan
    keep = rng.random(n_items) < 0.7 if use_keep else None
    rows, columns = np.nonzero(~np.isnan(values) | (rng.random(values.shape) < 0.1))
    X = sparse.csr_array((values[rows, columns], (rows, columns)), shape=values.shape)
    indptr, codes, n_kept = codes_from_csr(X, keep)
    kept = values if keep is None else values[:, keep]
    assert n_kept == kept.shape[1]
    dense_indptr, dense_codes, _ = codes_from_dense(values, keep)
    assert_array_equal(indptr, dense_indptr)
    assert_array_equal(codes, dense_codes)
    for i in range(n_agents):  # each agent's observed (item, response), in order
        row = codes[indptr[i]:indptr[i + 1]]
        items = np.flatnonzero(~np.isnan(kept[i]))
        assert_array_equal(row >> 1, items)
        assert_array_equal(row & 1, kept[i, items])
    data = _SparseResponses(indptr, codes, n_kept)
    for j in range(n_kept):  # and each item's (agent, response)
        column = data.column_codes[data.colptr[j]:data.colptr[j + 1]]
        agents = np.flatnonzero(~np.isnan(kept[:, j]))
        assert_array_equal(column >> 1, agents)
        assert_array_equal(column & 1, kept[agents, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.nansum(kept, axis=1) / (~np.isnan(kept)).sum(axis=1)
    assert_allclose(data.success_rate(), rate, equal_nan=True)
    assert_allclose(data.item_counts()[1], (~np.isnan(kept)).sum(axis=0))
    assert_allclose(sparse_row_counts(X)[1], (~np.isnan(values)).sum(axis=1))
    assert_allclose(sparse_column_counts(X)[0], np.nansum(values, axis=0))


def test_starting_values_do_not_depend_on_the_storage():
    values, _, _, _ = _problem(3, 200, 15, 0.4)
    dense, compact = _both(values, chunk_size=33)
    for model in ("2PL", "Rasch"):
        for got, want in zip(_initial_items(compact, model),
                             _initial_items(dense, model), strict=True):
            assert_allclose(got, want, rtol=1e-12)


# ------------------------------------------- compiled == pure Python bodies
@pytest.mark.skipif(not _kernels.HAVE_NUMBA, reason="numba not installed")
def test_compiled_kernels_run_the_python_bodies():
    values, a, b, grid = _problem(11, 12, 9, 0.6, 15)
    data = _SparseResponses.from_dense(values)
    log_fail = log_expit(-(a * (grid.nodes[:, None] - b)))
    outputs = {}
    for compiled in (True, False):
        get = (_kernels.kernel if compiled else _kernels._PYTHON.__getitem__)
        n, K = data.n_agents, len(grid)
        post, lo, hi = np.zeros((n, K)), np.zeros(n, np.int64), np.zeros(n, np.int64)
        lse, mean, sd = np.zeros(n), np.zeros(n), np.zeros(n)
        hint = np.full(n, -1)
        get("posterior_rows")(data.indptr, data.codes, log_fail, a, b, grid.nodes,
                              grid.log_weights, 37.0, hint, post, lo, hi, lse, mean,
                              sd)
        r, m = np.zeros((K, data.n_items)), np.zeros((K, data.n_items))
        get("count_columns")(data.colptr, data.column_codes, post, lo, hi, r, m)
        theta, theta_sd = mean.copy(), np.zeros(n)
        get("map_rows")(data.indptr, data.codes, a, b, theta, theta_sd, 100)
        objective = np.zeros(a.size)
        get("item_objective")(a, b, r, m, grid.nodes, objective)
        derivatives = np.zeros((5, a.size))
        get("item_derivatives")(a, b, r, m, grid.nodes, derivatives)
        colptr = np.zeros(data.n_items + 1, np.int64)
        column_codes = np.empty_like(data.codes)
        get("transpose_codes")(data.indptr, data.codes, colptr, column_codes)
        outputs[compiled] = (post, lo, hi, lse, mean, sd, r, m, theta, theta_sd,
                             objective, derivatives, colptr, column_codes)
    for got, want in zip(outputs[True], outputs[False], strict=True):
        assert_allclose(got, want, rtol=1e-13, atol=1e-15)
