"""The EM kernels of IRT2PL, each checked on its own against brute force,
finite differences or a closed form: E-step posteriors, M-step derivatives and
Newton steps, SQUAREM extrapolation, latent standardisation and Louis'
observed information."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.optimize import minimize
from scipy.special import expit, logsumexp

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import _em as em_module
from sklearn_eval.irt._em import (
    _em_run,
    _EMSettings,
    _squarem_point,
    _standardise_latent,
)
from sklearn_eval.irt._estep import _e_step, _log_normalise
from sklearn_eval.irt._information import _item_information_louis
from sklearn_eval.irt._mstep import (
    _add_priors,
    _item_objective,
    _log_prior,
    _m_step_2pl,
    _m_step_common,
    _slope_intercept_derivatives,
    _to_discrimination_difficulty,
)
from sklearn_eval.irt._quadrature import QuadratureGrid, make_grid
from sklearn_eval.irt._responses import _Responses

_seeds = st.integers(0, 2**31 - 1)


def _random_items(rng, n_items):
    a = rng.normal(1.0, 0.7, n_items)
    a[np.abs(a) < 0.2] = 0.3
    return a, rng.normal(0.0, 1.2, n_items)


def _random_responses(rng, n_agents, n_items, missing=0.25):
    values = (rng.random((n_agents, n_items)) < 0.5).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    values[:, 0] = np.where(np.isnan(values).all(axis=1), 1.0, values[:, 0])
    return values


def _expected_counts(rng, n_nodes, n_items):
    """E-step-like expected counts: 0 <= r <= n per (node, item)."""
    n = rng.uniform(0.5, 20.0, (n_nodes, n_items))
    return n * rng.uniform(0.05, 0.95, (n_nodes, n_items)), n


def _grid_loglik(values, a, b, grid):
    return _e_step(_Responses(values), a, b, grid, counts=False)["loglik"]


# ------------------------------------------------------------------ E-step
def _brute_force_posterior(values, a, b, grid):
    """Bayes' rule node by node, agent by agent, item by item."""
    n_agents, n_items = values.shape
    n_nodes = len(grid)
    log_joint = np.empty((n_agents, n_nodes))
    for i in range(n_agents):
        for k in range(n_nodes):
            total = grid.log_weights[k]
            for j in range(n_items):
                if np.isnan(values[i, j]):
                    continue
                p = expit(a[j] * (grid.nodes[k] - b[j]))
                total += np.log(p if values[i, j] == 1 else 1.0 - p)
            log_joint[i, k] = total
    marginal = logsumexp(log_joint, axis=1)
    return np.exp(log_joint - marginal[:, None]), marginal


@settings(max_examples=30, deadline=None)
@given(seed=_seeds, n_agents=st.integers(1, 7), n_items=st.integers(1, 5),
       n_nodes=st.integers(2, 9), chunk_size=st.integers(1, 8))
def test_e_step_equals_brute_force_bayes(seed, n_agents, n_items, n_nodes,
                                         chunk_size):
    rng = np.random.default_rng(seed)
    values = _random_responses(rng, n_agents, n_items)
    a, b = _random_items(rng, n_items)
    grid = make_grid("rectangular", n_nodes, 4.0)
    out = _e_step(_Responses(values, chunk_size=chunk_size), a, b, grid,
                  moments=True)
    post, marginal = _brute_force_posterior(values, a, b, grid)
    observed = ~np.isnan(values)
    y = np.where(observed, values, 0.0)
    # the same sums in another order: agreement to rounding, ~1e-12 relative
    assert_allclose(out["loglik"], marginal.sum(), rtol=1e-10)
    assert_allclose(out["per_agent"], marginal, rtol=1e-10, atol=1e-12)
    assert_allclose(out["mass"], post.sum(axis=0), rtol=1e-9, atol=1e-12)
    assert_allclose(out["mass"].sum(), n_agents, rtol=1e-12)  # posteriors sum to 1
    assert_allclose(out["r"], post.T @ y, rtol=1e-9, atol=1e-12)
    assert_allclose(out["n"], post.T @ observed, rtol=1e-9, atol=1e-12)
    mean = post @ grid.nodes
    assert_allclose(out["mean"], mean, rtol=1e-9, atol=1e-11)
    sd = np.sqrt(np.maximum(post @ grid.nodes**2 - mean**2, 0.0))
    assert_allclose(out["sd"], sd, rtol=1e-6, atol=1e-7)


@settings(max_examples=30, deadline=None)
@given(seed=_seeds, spread=st.floats(0.0, 800.0))
def test_log_normalise_gives_probability_rows(seed, spread):
    rng = np.random.default_rng(seed)
    table = spread * rng.normal(size=(5, 11))  # up to e^2000: must not overflow
    expected_lse = logsumexp(table, axis=1)
    expected_post = np.exp(table - expected_lse[:, None])
    lse, post = _log_normalise(table.copy())
    assert np.all(np.isfinite(post)) and np.all(post >= 0)
    assert_allclose(post.sum(axis=1), 1.0, rtol=1e-12)
    assert_allclose(lse, expected_lse, rtol=1e-12)
    assert_allclose(post, expected_post, rtol=1e-9, atol=1e-300)


def test_e_step_loglik_is_the_marginal_likelihood_integral():
    """On a fine grid the E-step log-likelihood is the N(0, 1) integral."""
    from scipy.integrate import quad
    from scipy.stats import norm

    rng = np.random.default_rng(1)
    values = _random_responses(rng, 4, 6)
    a, b = _random_items(rng, 6)
    grid = make_grid("rectangular", 2001, 10.0)
    out = _e_step(_Responses(values), a, b, grid, counts=False, moments=True)
    for i, row in enumerate(values):
        seen = ~np.isnan(row)

        def likelihood(t, row=row, seen=seen):
            p = expit(a[seen] * (t - b[seen]))
            return np.prod(np.where(row[seen] == 1, p, 1 - p)) * norm.pdf(t)

        assert_allclose(out["per_agent"][i], np.log(quad(likelihood, -10, 10)[0]),
                        rtol=1e-8)


# ------------------------------------------------------------------ M-step
def _fd_gradient_hessian(f, x, h=1e-3):
    """Central differences of a scalar function of two variables."""
    x = np.asarray(x, dtype=float)
    grad = np.empty(2)
    hess = np.empty((2, 2))
    eye = np.eye(2) * h
    for u in range(2):
        grad[u] = (f(x + eye[u]) - f(x - eye[u])) / (2 * h)
        for v in range(2):
            hess[u, v] = (f(x + eye[u] + eye[v]) - f(x + eye[u] - eye[v])
                          - f(x - eye[u] + eye[v]) + f(x - eye[u] - eye[v])) / (
                4 * h * h)
    return grad, hess


@pytest.mark.parametrize("seed", range(5))
def test_m_step_derivatives_match_finite_differences(seed):
    """Gradient and information in (a, d) and, by the chain rule, in (a, b).

    The objective is linear-logistic in (a, d = -a b), so the information is
    minus the Hessian there; in (a, b) the chain rule drops the curvature of
    d = -a b, which is ``gd`` off the diagonal (zero at an M-step optimum).
    """
    rng = np.random.default_rng(seed)
    nodes = make_grid("rectangular", 15, 5.0).nodes
    r, n = _expected_counts(rng, 15, 3)
    a, b = _random_items(rng, 3)
    grad, info = _slope_intercept_derivatives(a, b, r, n, nodes)
    grad_ab, info_ab = _to_discrimination_difficulty(a, b, grad, info)
    for j in range(3):
        def in_ad(x, j=j):
            return _item_objective(np.array([x[0]]), np.array([-x[1] / x[0]]),
                                   r[:, [j]], n[:, [j]], nodes, None, None)[0]

        def in_ab(x, j=j):
            return _item_objective(np.array([x[0]]), np.array([x[1]]), r[:, [j]],
                                   n[:, [j]], nodes, None, None)[0]

        g, H = _fd_gradient_hessian(in_ad, [a[j], -a[j] * b[j]])
        assert_allclose([grad[0][j], grad[1][j]], g, rtol=1e-6, atol=1e-6)
        assert_allclose([[info[0][j], info[1][j]], [info[1][j], info[2][j]]], -H,
                        rtol=1e-5, atol=1e-5)
        g, H = _fd_gradient_hessian(in_ab, [a[j], b[j]])
        assert_allclose([grad_ab[0][j], grad_ab[1][j]], g, rtol=1e-6, atol=1e-6)
        gd = grad[1][j]
        expected = -H - np.array([[0.0, gd], [gd, 0.0]])
        assert_allclose([[info_ab[0][j], info_ab[1][j]],
                         [info_ab[1][j], info_ab[2][j]]], expected,
                        rtol=1e-5, atol=1e-5)


def test_priors_add_their_gradient_and_curvature():
    a, second = np.array([0.5, 2.0]), np.array([-1.0, 3.0])
    grad = (np.zeros(2), np.zeros(2))
    info = (np.ones(2), np.zeros(2), np.ones(2))
    (ga, g2), (iaa, ia2, i22) = _add_priors(grad, info, a, second, (1.0, 2.0),
                                            (0.0, 0.5))
    assert_allclose(ga, -(a - 1.0) / 4.0)
    assert_allclose(g2, -second / 0.25)
    assert_allclose(iaa, 1.25)
    assert_allclose(i22, 5.0)
    assert_allclose(ia2, 0.0)


def _scipy_item_optimum(r, n, nodes, a_prior, b_prior, start):
    def negative(x):
        return -_item_objective(np.array([x[0]]), np.array([x[1]]), r, n, nodes,
                                a_prior, b_prior)[0]

    return minimize(negative, start, method="Nelder-Mead",
                    options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 20000}).x


@pytest.mark.parametrize("priors", [(None, None), ((1.0, 2.0), None),
                                    ((1.0, 1.0), (0.0, 1.5))])
@pytest.mark.parametrize("seed", range(3))
def test_m_step_2pl_reaches_each_items_optimum(priors, seed):
    rng = np.random.default_rng(seed)
    nodes = make_grid("rectangular", 21, 5.0).nodes
    r, n = _expected_counts(rng, 21, 4)
    a0, b0 = np.ones(4), np.zeros(4)
    start = _item_objective(a0, b0, r, n, nodes, *priors)
    a1, b1 = _m_step_2pl(a0, b0, r, n, nodes, *priors, n_newton=1)
    assert np.all(_item_objective(a1, b1, r, n, nodes, *priors) >= start)
    # under a b prior the step is Fisher scoring in (a, b): linear convergence
    a, b = _m_step_2pl(a0, b0, r, n, nodes, *priors, n_newton=400)
    for j in range(4):
        best = _scipy_item_optimum(r[:, [j]], n[:, [j]], nodes, *priors,
                                   [a[j], b[j]])
        # Nelder-Mead stops where the objective's rounding (1e-14) hides the
        # slope: along a nearly flat b (|a| ~ 0.01) that is a relative 1e-6
        value = _item_objective(a[[j]], b[[j]], r[:, [j]], n[:, [j]], nodes, *priors)
        at_best = _item_objective(best[:1], best[1:], r[:, [j]], n[:, [j]], nodes,
                                  *priors)
        assert value[0] >= at_best[0] - 1e-12 * abs(at_best[0])
        assert_allclose([a[j], b[j]], best, rtol=1e-6, atol=1e-5)
    # the gradient vanishes at the returned point
    grad, info = _slope_intercept_derivatives(a, b, r, n, nodes)
    grad, _ = _to_discrimination_difficulty(a, b, grad, info)
    grad, _ = _add_priors(grad, info, a, b, priors[0], priors[1])
    assert_allclose(np.concatenate(grad), 0.0, atol=1e-7)


@pytest.mark.parametrize("estimate_a", [True, False])
def test_m_step_common_maximises_the_shared_slope_objective(estimate_a):
    rng = np.random.default_rng(11)
    nodes = make_grid("rectangular", 21, 5.0).nodes
    r, n = _expected_counts(rng, 21, 5)
    a0, b0 = np.full(5, 1.0), np.zeros(5)
    a, b = _m_step_common(a0, b0, r, n, nodes, None, (0.0, 3.0), estimate_a,
                          n_newton=80)
    assert np.ptp(a) == 0
    if not estimate_a:
        assert_allclose(a, 1.0)

    def negative(x):
        slope = x[0] if estimate_a else 1.0
        return -_item_objective(np.full(5, slope), x[1:], r, n, nodes, None,
                                (0.0, 3.0)).sum()

    best = minimize(negative, np.concatenate([[a[0]], b]), method="BFGS",
                    options={"gtol": 1e-10}).x
    if estimate_a:
        assert_allclose(a[0], best[0], atol=1e-5)
    assert_allclose(b, best[1:], atol=1e-5)


# ----------------------------------------------------------------- SQUAREM
@pytest.mark.parametrize("use_ab", [True, False])
@pytest.mark.parametrize("rate", [0.3, 0.9, 0.98])
def test_squarem_lands_on_the_fixed_point_of_a_linear_map(use_ab, rate):
    """For x -> x* + rate (x - x*), one S3 step is exact: the step length
    ``-|r| / |w| = -1 / (1 - rate)`` stays within [-64, -1]."""
    rng = np.random.default_rng(0)
    star_a, star_2 = rng.normal(1.0, 0.3, 4), rng.normal(0.0, 1.0, 4)
    to_b = (lambda a, s: s) if use_ab else (lambda a, s: -s / a)

    def em_map(a, s):
        return star_a + rate * (a - star_a), star_2 + rate * (s - star_2)

    a0, s0 = star_a + 0.2, star_2 - 0.4
    a1, s1 = em_map(a0, s0)
    a2, s2 = em_map(a1, s1)
    points = [(x, to_b(x, s)) for x, s in ((a0, s0), (a1, s1), (a2, s2))]
    a, b = _squarem_point(*points, use_ab)
    assert_allclose(a, star_a, atol=1e-10)
    assert_allclose(b, to_b(star_a, star_2), atol=1e-10)


@pytest.mark.parametrize("rate", [-0.5, 0.0])
def test_squarem_step_length_of_minus_one_gives_the_second_em_point(rate):
    """alpha is clipped to <= -1, where S3 is two plain EM steps."""
    star_a, star_b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    x0 = (star_a + 0.3, star_b + 0.2)
    x1 = (star_a + rate * 0.3, star_b + rate * 0.2)
    x2 = (star_a + rate**2 * 0.3, star_b + rate**2 * 0.2)
    a, b = _squarem_point(x0, x1, x2, True)
    assert_allclose(a, x2[0], atol=1e-12)
    assert_allclose(b, x2[1], atol=1e-12)


def test_squarem_declines_degenerate_extrapolations():
    a, b = np.array([1.0, 2.0]), np.array([0.0, 1.0])
    assert _squarem_point((a, b), (a, b), (a, b), True) is None  # a fixed point
    # a constant step (no contraction) has no curvature w to extrapolate on
    assert _squarem_point((a, b), (a + 0.5, b + 0.5), (a + 1.0, b + 1.0),
                          True) is None
    nan = (np.array([np.nan, 1.0]), b)
    assert _squarem_point((a, b), nan, (a, b), True) is None
    # in (a, d) coordinates an extrapolated a of 0 has no difficulty b = -d / a
    halving = [(np.array([x]), np.array([0.5])) for x in (1.0, 0.5, 0.25)]
    assert _squarem_point(*halving, False) is None
    assert _squarem_point(*halving, True) is not None  # fine in (a, b)


def _traced_run(monkeypatch, data, grid, a, b, settings):
    """Run ``_em_run`` and return the penalised objective of every point it
    evaluates: ("em", value) for plain EM points, ("trial", value) for
    SQUAREM extrapolations."""
    events = []
    priors = (settings.a_prior, settings.b_prior)
    e_step, squarem = em_module._e_step, em_module._squarem_point

    def traced_e_step(data_, a_, b_, grid_, **kwargs):
        out = e_step(data_, a_, b_, grid_, **kwargs)
        kind = "trial" if events and events[-1] == "extrapolated" else "em"
        if kind == "trial":
            events.pop()
        value = out["loglik"] + _log_prior(a_, b_, *priors, settings.model)
        events.append((kind, value))
        return out

    def traced_squarem(*args):
        out = squarem(*args)
        if out is not None:
            events.append("extrapolated")
        return out

    monkeypatch.setattr(em_module, "_e_step", traced_e_step)
    monkeypatch.setattr(em_module, "_squarem_point", traced_squarem)
    run = _em_run(data, grid, a, b, settings, *priors)
    return run, events


@pytest.mark.parametrize("priors", [(None, None), ((1.0, 2.0), (0.0, 2.0))])
@pytest.mark.parametrize("model", ["2PL", "1PL"])
def test_accelerated_em_never_lowers_the_objective(monkeypatch, priors, model):
    """Every EM step climbs from the current point (generalised EM), and an
    extrapolation is kept only when it beats the EM step it extends."""
    X = make_irt_responses(150, 8, missing_rate=0.2, random_state=3)
    data = _Responses(X)
    grid = make_grid("rectangular", 41, 6.0)
    settings = _EMSettings(model=model, a_prior=priors[0], b_prior=priors[1],
                           max_iter=60, tol=0.0)
    a0, b0 = np.full(8, 0.4), np.linspace(1.0, -1.0, 8)
    run, events = _traced_run(monkeypatch, data, grid, a0, b0, settings)
    current = [events[0][1]]
    n_kept = 0
    k = 1
    while k < len(events):
        kind, value = events[k]
        assert kind == "em"
        assert value >= current[-1] - 1e-10 * abs(current[-1])  # EM ascent
        step = value
        if k + 1 < len(events) and events[k + 1][0] == "trial":
            trial = events[k + 1][1]
            if np.isfinite(trial) and trial >= value:
                step, n_kept = trial, n_kept + 1
            k += 1
        current.append(step)
        k += 1
    assert n_kept > 0  # the extrapolations do help here
    assert current[-1] > current[0] + 1.0
    final = run.loglik + _log_prior(run.a, run.b, *priors, model)
    assert_allclose(final, current[-1], rtol=1e-14)
    assert run.n_iter == len(events) - 1  # n_iter counts E-steps


def test_acceleration_reaches_the_plain_em_optimum_in_fewer_steps():
    X = make_irt_responses(150, 8, missing_rate=0.2, random_state=3)
    data = _Responses(X)
    grid = make_grid("rectangular", 41, 6.0)
    a0, b0 = np.full(8, 0.4), np.linspace(1.0, -1.0, 8)
    plain = _em_run(data, grid, a0, b0,
                    _EMSettings(max_iter=5000, tol=1e-11, accelerate=False),
                    None, None)
    fast = _em_run(data, grid, a0, b0, _EMSettings(max_iter=5000, tol=1e-11),
                   None, None)
    assert plain.converged and fast.converged
    assert fast.n_iter < plain.n_iter / 2
    assert_allclose(fast.loglik, plain.loglik, rtol=1e-8)
    assert_allclose(fast.b, plain.b, atol=1e-3)


# ---------------------------------------------------- latent standardisation
def _shifted_grid(grid, mu, s):
    return QuadratureGrid(mu + s * grid.nodes, grid.log_weights, grid.kind)


@settings(max_examples=25, deadline=None)
@given(seed=_seeds, mu=st.floats(-2.0, 2.0), log_s=st.floats(-1.0, 1.0))
def test_standardising_the_latent_keeps_the_likelihood(seed, mu, log_s):
    """theta ~ N(mu, s^2) with items (a, b) is theta ~ N(0, 1) with
    (a s, (b - mu) / s): the marginal likelihood is unchanged."""
    rng = np.random.default_rng(seed)
    grid = make_grid("rectangular", 61, 6.0)
    target = np.exp(-0.5 * ((grid.nodes - mu) / np.exp(log_s)) ** 2)
    mass = 37.0 * target / target.sum()  # a pooled posterior, any total
    mean = mass @ grid.nodes / mass.sum()
    sd = np.sqrt(mass @ grid.nodes**2 / mass.sum() - mean**2)
    values = _random_responses(rng, 12, 5)
    a, b = _random_items(rng, 5)
    a_new, b_new = _standardise_latent(a, b, mass, grid.nodes)
    assert_allclose(a_new, a * sd, rtol=1e-10)
    assert_allclose(b_new, (b - mean) / sd, rtol=1e-10, atol=1e-12)
    expanded = _grid_loglik(values, a, b, _shifted_grid(grid, mean, sd))
    assert_allclose(_grid_loglik(values, a_new, b_new, grid), expanded, rtol=1e-10)
    # Rasch: the scale is fixed by a = 1, only the location moves
    a_rasch, b_rasch = _standardise_latent(a, b, mass, grid.nodes, scale=False)
    assert_allclose(a_rasch, a)
    assert_allclose(b_rasch, b - mean, atol=1e-12)
    shifted = _grid_loglik(values, a, b, _shifted_grid(grid, mean, 1.0))
    assert_allclose(_grid_loglik(values, a_rasch, b_rasch, grid), shifted,
                    rtol=1e-10)


def test_standardising_a_standard_latent_changes_nothing():
    grid = make_grid("gauss-hermite", 21)
    mass = 5.0 * np.exp(grid.log_weights)  # mean 0, variance 1 exactly
    a, b = np.array([0.7, -1.2, 2.0]), np.array([0.1, 1.5, -0.4])
    a_new, b_new = _standardise_latent(a, b, mass, grid.nodes)
    assert_allclose(a_new, a, rtol=1e-12)
    assert_allclose(b_new, b, atol=1e-12)
    point = np.zeros(21)
    point[10] = 3.0  # all mass on one node: no scale to estimate
    same = _standardise_latent(a, b, point, grid.nodes)
    assert same[0] is a and same[1] is b


# -------------------------------------------------- Louis' observed information
@pytest.mark.parametrize("priors", [(None, None), ((1.0, 2.0), (0.0, 1.5))])
@pytest.mark.parametrize("seed", range(2))
def test_louis_information_is_minus_the_marginal_hessian(priors, seed):
    """At any point, per item: Louis' (a, b) information plus the dropped
    chain-rule term ``gd`` equals minus the finite-difference Hessian of the
    penalised marginal log-likelihood (other items fixed)."""
    rng = np.random.default_rng(seed)
    values = make_irt_responses(250, 6, missing_rate=0.2, random_state=seed)
    grid = make_grid("rectangular", 61, 6.0)
    a, b = _random_items(rng, 6)
    data = _Responses(values, chunk_size=60)
    iaa, iab, ibb = _item_information_louis(data, a, b, grid, *priors)
    for j in range(6):
        def loglik(x, j=j):
            aa, bb = a.copy(), b.copy()
            aa[j], bb[j] = x
            return _grid_loglik(values, aa, bb, grid)

        def penalised(x, j=j):
            return loglik(x) + _log_prior(np.array([x[0]]), np.array([x[1]]),
                                          *priors, "2PL")

        def in_ad(x, j=j):
            return loglik([x[0], -x[1] / x[0]])

        _, H = _fd_gradient_hessian(penalised, [a[j], b[j]], h=1e-4)
        gd = _fd_gradient_hessian(in_ad, [a[j], -a[j] * b[j]], h=1e-4)[0][1]
        info = np.array([[iaa[j], iab[j]], [iab[j], ibb[j]]])
        expected = -H - np.array([[0.0, gd], [gd, 0.0]])
        assert_allclose(info, expected, rtol=2e-4, atol=2e-4 * np.abs(H).max())
