"""Abilities with the items fixed: EAP against direct quadrature of the
posterior, MAP against direct optimisation of the log-posterior."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.integrate import quad
from scipy.optimize import minimize_scalar
from scipy.special import expit, log_expit
from scipy.stats import norm
from sklearn.utils.parallel import Parallel

from sklearn_eval.irt._abilities import _ability_estimates, _map_block
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import _Responses


def _case(seed, n_agents=6, n_items=8, missing=0.3):
    rng = np.random.default_rng(seed)
    a = rng.normal(1.2, 0.6, n_items)
    b = rng.normal(0.0, 1.0, n_items)
    values = (rng.random((n_agents, n_items)) < 0.5).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values, a, b


def _log_posterior(theta, row, a, b):
    seen = ~np.isnan(row)
    logits = a[seen] * (theta - b[seen])
    return float(np.sum(row[seen] * logits + log_expit(-logits))) + norm.logpdf(theta)


@pytest.mark.parametrize("seed", range(4))
def test_eap_is_the_posterior_mean_and_sd(seed):
    values, a, b = _case(seed)
    grid = make_grid("rectangular", 241, 8.0)
    theta, sd = _ability_estimates(_Responses(values), a, b, grid, "eap")
    for i, row in enumerate(values):
        peak = _log_posterior(0.0, row, a, b)

        def moment(k, row=row, peak=peak):
            return quad(lambda t: t**k * np.exp(_log_posterior(t, row, a, b) - peak),
                        -10, 10, epsabs=1e-13, epsrel=1e-12, limit=200)[0]

        m0, m1, m2 = moment(0), moment(1), moment(2)
        assert_allclose(theta[i], m1 / m0, atol=1e-7)
        assert_allclose(sd[i], np.sqrt(m2 / m0 - (m1 / m0) ** 2), rtol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_map_is_the_posterior_mode_with_curvature_sd(seed):
    values, a, b = _case(seed)
    grid = make_grid("rectangular", 121, 6.0)
    theta, sd = _ability_estimates(_Responses(values), a, b, grid, "map")
    h = 1e-4
    for i, row in enumerate(values):
        best = minimize_scalar(lambda t, row=row: -_log_posterior(t, row, a, b),
                               bounds=(-10, 10), method="bounded",
                               options={"xatol": 1e-12})
        assert_allclose(theta[i], best.x, atol=1e-7)
        curvature = -(_log_posterior(theta[i] + h, row, a, b)
                      - 2 * _log_posterior(theta[i], row, a, b)
                      + _log_posterior(theta[i] - h, row, a, b)) / h**2
        assert_allclose(sd[i], 1 / np.sqrt(curvature), rtol=1e-5)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), start=st.floats(-20, 20))
def test_map_newton_converges_from_any_start(seed, start):
    """The log-posterior is concave: safeguarded Newton reaches the mode from
    far outside the data's range (steep and negative items included)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, 4.0, 6)
    b = rng.normal(0.0, 3.0, 6)
    Y = (rng.random((3, 6)) < 0.5).astype(float)
    from_start, _ = _map_block(Y, None, a, b, np.full(3, start))
    from_zero, _ = _map_block(Y, None, a, b, np.zeros(3))
    assert_allclose(from_start, from_zero, atol=1e-7)
    grad = ((Y - expit(a * (from_zero[:, None] - b))) * a).sum(axis=1) - from_zero
    assert_allclose(grad, 0.0, atol=1e-8)


def test_agents_without_responses_get_the_prior():
    values = np.full((2, 4), np.nan)
    values[1, 2] = 1.0
    a, b = np.ones(4), np.zeros(4)
    grid = make_grid("rectangular", 121, 6.0)
    for method in ("map", "eap"):
        theta, sd = _ability_estimates(_Responses(values), a, b, grid, method)
        assert_allclose([theta[0], sd[0]], [0.0, 1.0], atol=1e-6)
        assert theta[1] > 0 and sd[1] < 1


@pytest.mark.parametrize("method", ["map", "eap"])
def test_blocks_and_workers_do_not_change_abilities(method):
    values, a, b = _case(5, n_agents=50, n_items=10)
    grid = make_grid("rectangular", 121, 6.0)
    whole = _ability_estimates(_Responses(values), a, b, grid, method)
    with Parallel(n_jobs=2, prefer="threads") as parallel:
        data = _Responses(values, chunk_size=7, parallel=parallel)
        blocked = _ability_estimates(data, a, b, grid, method)
    assert_allclose(blocked, whole, rtol=1e-12, atol=1e-14)
