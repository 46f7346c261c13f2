"""The compiled M-step sums of the 3PL and 4PL (Birnbaum 1968; Barton and Lord
1981) against the numpy expressions of the same sums, for the compiled loops
and for their Python bodies, over items with asymptotes near 0 and 1, out of
order and absent, and counts with empty nodes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_eval.irt import IRT
from sklearn_eval.irt import _binary_kernels as kernels
from sklearn_eval.irt import _binary_models as models
from sklearn_eval.irt._binary_models import FREE
from tests.irt.simulate import simulate_responses

_CAP = models._LOGIT_CAP


def _items(rng, n_items, model):
    a = rng.uniform(-3.0, 6.0, n_items)
    d = rng.uniform(-8.0, 8.0, n_items)
    gamma = rng.choice([-_CAP, -8.0, -1.0, 0.5, _CAP], n_items) + rng.normal(
        0.0, 0.1, n_items)
    upsilon = np.full(n_items, np.inf)
    if model == "4PL":
        upsilon = rng.choice([-2.0, 1.0, 6.0, _CAP], n_items) + rng.normal(
            0.0, 0.1, n_items)
    return np.column_stack([a, d, np.clip(gamma, -_CAP, _CAP),
                            np.clip(upsilon, -_CAP, np.inf)])


def _numpy_sums(params, r, n, nodes, free, monkeypatch, exact):
    monkeypatch.setattr(models, "HAVE_NUMBA", False)
    tables = models.log_tables(params, nodes)
    value = models.item_objective(params, r, n, nodes, free, {})
    grad, info = models._gradient_information(params, r, n, nodes, free, {},
                                              exact=exact)
    sizes = _term_sizes(params, r, n, nodes, free, exact)
    monkeypatch.undo()
    return tables, value, grad, info, sizes


def _term_sizes(params, r, n, nodes, free, exact):
    """Sums of the terms' absolute values behind the gradient and the
    information: the size rounding errors scale with. Near an asymptote at
    its cap (``P`` or ``1 - P`` about 1e-9) the negated Hessian is a small
    difference of large terms, so two correct summation orders differ by a
    few ulps of the terms, not of the result."""
    log_p, log_q = models.log_tables(params, nodes)
    P, Q = np.exp(log_p), np.exp(log_q)
    dP, pieces = models._first_derivatives(params, nodes, free)
    pq = np.maximum(P * Q, models._TINY)
    resid = np.abs(r - n * P) / pq
    grad = np.einsum("kj,kjc->jc", resid, np.abs(dP))
    if not exact:
        return grad, np.einsum("kj,kjc,kje->jce", n / pq, np.abs(dP), np.abs(dP))
    a = np.abs(dP) / np.maximum(P, models._TINY)[..., None]
    b = np.abs(dP) / np.maximum(Q, models._TINY)[..., None]
    d2P = np.abs(models._second_derivatives(pieces, free))
    return grad, (np.einsum("kj,kjc,kje->jce", r, a, a)
                  + np.einsum("kj,kjc,kje->jce", n - r, b, b)
                  + np.einsum("kj,kjce->jce", resid, d2P))


def _kernel_sums(get, params, r, n, nodes, free, exact):
    shape = (nodes.size, params.shape[0])
    tables = (np.empty(shape), np.empty(shape))
    get("binary_log_tables")(params, nodes, *tables)
    value = np.empty(params.shape[0])
    grad = np.empty((params.shape[0], len(free)))
    info = np.empty((params.shape[0], len(free), len(free)))
    get("binary_objective")(params, r, n, nodes, value)
    get("binary_gradient_information")(params, r, n, nodes,
                                       np.asarray(free, dtype=np.int64), exact,
                                       grad, info)
    return tables, value, grad, info


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), model=st.sampled_from(["3PL", "4PL"]),
       exact=st.booleans())
def test_kernels_give_the_numpy_sums(seed, model, exact):
    # the gradient with the Fisher information or (exact) the negated Hessian
    rng = np.random.default_rng(seed)
    params = _items(rng, 12, model)
    nodes = np.linspace(-6.0, 6.0, 31)
    n = rng.uniform(0.0, 30.0, (31, 12))
    n[rng.random(n.shape) < 0.3] = 0.0  # nodes no posterior reaches
    r = n * rng.uniform(0.0, 1.0, n.shape)
    r[rng.random(n.shape) < 0.1] = 0.0  # no success
    full = rng.random(n.shape) < 0.1
    r[full] = n[full]  # no failure
    free = FREE[model]
    with pytest.MonkeyPatch.context() as patch:
        want = _numpy_sums(params, r, n, nodes, free, patch, exact)
    getters = [kernels._PYTHON.__getitem__]
    if kernels.HAVE_NUMBA:
        getters.append(kernels.kernel)
    for get in getters:
        got = _kernel_sums(get, params, r, n, nodes, free, exact)
        for fast, slow in zip(got[0], want[0], strict=True):  # log P, log(1 - P)
            assert_allclose(fast, slow, rtol=1e-13, atol=1e-13)
        assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-9)
        for fast, slow, size in zip(got[2:], want[2:4], want[4], strict=True):
            # a few hundred ulps of the entry's terms (31 nodes, a few
            # products each): a wrong or missing term is far above that
            assert np.all(np.abs(fast - slow) <= 1e-11 * np.abs(slow) + 1e-13 * size)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), model=st.sampled_from(["3PL", "4PL"]))
def test_exact_hessian_is_the_derivative_of_the_gradient(seed, model):
    # the negated Hessian against central differences of the (compiled)
    # gradient, column by column, at items in the interior and near bounds
    rng = np.random.default_rng(seed)
    params = _items(rng, 6, model)
    params[:, 2:] = np.clip(params[:, 2:], -6.0, 6.0)  # finite differences
    nodes = np.linspace(-6.0, 6.0, 31)
    n = rng.uniform(0.0, 30.0, (31, 6))
    r = n * rng.uniform(0.0, 1.0, n.shape)
    free = FREE[model]
    _, info = models._gradient_information(params, r, n, nodes, free, {},
                                           exact=True)
    for index, column in enumerate(free):
        h = 1e-6 * (1.0 + np.abs(params[:, column]))
        up, down = params.copy(), params.copy()
        up[:, column] += h
        down[:, column] -= h
        g_up, _ = models._gradient_information(up, r, n, nodes, free, {})
        g_down, _ = models._gradient_information(down, r, n, nodes, free, {})
        numeric = -(g_up - g_down) / (2.0 * h[:, None])
        scale = np.abs(info).max(axis=(1, 2))[:, None] + 1.0
        assert np.all(np.abs(info[:, :, index] - numeric) <= 1e-5 * scale)


@pytest.mark.parametrize("model", ["3PL", "4PL"])
def test_fit_with_and_without_the_kernels_reaches_one_fixed_point(model,
                                                                  monkeypatch):
    """Same EM fixed point: likelihoods to 1e-9 relative, predictions close."""
    X, _ = simulate_responses(600, 15, guessing=0.2, upper=0.95, missing=0.3,
                              seed=3)
    kwargs = {"model": model, "n_options": 4, "tol": 1e-9}
    if model == "4PL":
        kwargs["upper_prior"] = (0.95, 0.5)
    fast = IRT(**kwargs).fit(X)
    monkeypatch.setattr(models, "HAVE_NUMBA", False)
    slow = IRT(**kwargs).fit(X)
    assert_allclose(fast.log_likelihood_, slow.log_likelihood_, rtol=1e-9)
    assert_allclose(fast.predict_proba(X), slow.predict_proba(X), atol=1e-4)
