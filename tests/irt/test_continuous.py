"""IRT for continuous scores in [0, 1]: the Beta and logit-normal models.

Beta-IRT (Chen, Silva Filho, Prudencio, Diethe and Flach 2019) with a
mean-precision Beta response (Ferrari and Cribari-Neto 2004), and the
logit-normal model, i.e. Samejima's (1973) continuous response model in the
parameterisation of Wang and Zeng (1998). The marginal likelihoods are
checked against independent computations (plain-numpy quadrature of the Beta
density; the closed-form multivariate-normal marginal of the logit-normal
model), the grid against a much finer one, the standard errors against a
finite-difference Hessian (Louis 1982) and the fits against the truth.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import sparse, stats
from scipy.special import expit, logit, logsumexp

from sklearn_eval.irt import IRT, compare_models
from sklearn_eval.irt._continuous import ScoreStore, _cells, louis_covariance
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.utils.estimator_checks import check_estimator_contract

MODELS = ["beta", "logit-normal"]


def _simulate(n, J, *, model="beta", missing=0.0, seed=0):
    """Scores from the model itself: ``mu = expit(a (theta - b))``."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a = rng.uniform(0.5, 2.0, J)
    b = rng.normal(size=J)
    if model == "beta":
        phi = rng.uniform(5.0, 50.0, J)
        mu = expit(a * (theta[:, None] - b))
        X = rng.beta(mu * phi, (1.0 - mu) * phi)
        scale = phi
    else:
        sigma = rng.uniform(0.3, 1.0, J)
        X = expit(a * (theta[:, None] - b) + sigma * rng.normal(size=(n, J)))
        scale = sigma
    X = np.clip(X, 1e-9, 1.0 - 1e-9)  # keep exact 0/1 out of the simulation
    X[rng.random((n, J)) < missing] = np.nan
    return X, (theta, a, b, scale)


def _to_sparse(X):
    rows, cols = np.nonzero(~np.isnan(X))
    return sparse.csr_array((X[rows, cols], (rows, cols)), shape=X.shape)


def _beta_loglik(X, params, n_nodes=4001):
    """Marginal log-likelihood by brute-force quadrature of the Beta density."""
    nodes = np.linspace(-8, 8, n_nodes)
    log_w = stats.norm.logpdf(nodes) + np.log(nodes[1] - nodes[0])
    a, d, s = params.T
    mu = expit(np.outer(nodes, a) + d)
    phi = np.exp(s)
    total = 0.0
    for row in X:
        seen = ~np.isnan(row)
        dens = stats.beta.logpdf(row[seen], mu[:, seen] * phi[seen],
                                 (1 - mu[:, seen]) * phi[seen]).sum(axis=1)
        total += logsumexp(dens + log_w)
    return total


def _logit_normal_loglik(X, params):
    """Closed form: logit scores are multivariate normal, plus the Jacobian."""
    a, d, s = params.T
    total = 0.0
    for row in X:
        seen = ~np.isnan(row)
        z = logit(row[seen])
        cov = np.outer(a[seen], a[seen]) + np.diag(np.exp(2 * s[seen]))
        total += stats.multivariate_normal.logpdf(z, d[seen], cov)
        total -= np.sum(np.log(row[seen]) + np.log1p(-row[seen]))
    return total


@pytest.mark.parametrize("model", MODELS)
def test_log_likelihood_matches_an_independent_computation(model):
    X, _ = _simulate(150, 6, model=model, missing=0.15, seed=3)
    est = IRT(model=model).fit(X)
    reference = (_beta_loglik if model == "beta" else _logit_normal_loglik)(
        X, est._item_params)
    assert_allclose(est.log_likelihood_, reference, rtol=1e-8)
    n_obs = np.isfinite(X).sum()
    assert_allclose(est.score(X), reference / n_obs, rtol=1e-8)
    assert est.n_observations_ == n_obs
    crit = est.information_criteria()
    assert crit["n_parameters"] == 18
    assert_allclose(crit["aic"], -2 * reference + 36, rtol=1e-8)
    assert_allclose(crit["bic"], -2 * reference + 18 * np.log(n_obs), rtol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_default_grid_resolves_narrow_posteriors(model):
    # 3000 agents x 40 items: posterior sd ~0.06; the default 401-node grid
    # gives the log-likelihood of a 4001-node grid, Gauss-Hermite rules do not
    X, _ = _simulate(3000, 40, model=model, seed=1)
    est = IRT(model=model, tol=1e-5).fit(X)
    n_obs = X.size
    default = est.score(X) * n_obs
    assert_allclose(default, est.log_likelihood_, rtol=1e-12)
    fine = est.set_params(n_quadrature=4001).score(X) * n_obs
    assert abs(default - fine) < 1e-3
    coarse = est.set_params(quadrature="gauss-hermite", n_quadrature=61).score(X)
    assert fine - coarse * n_obs > 100


@pytest.mark.slow
def test_default_grid_matches_a_finer_grid_on_a_small_case():
    X, _ = _simulate(400, 30, seed=4)
    est = IRT(model="beta", tol=1e-5).fit(X)
    default = est.score(X)
    fine = est.set_params(n_quadrature=2001).score(X)
    assert abs(default - fine) * X.size < 1e-4


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_recovers_simulated_items(model):
    X, (theta, a, b, scale) = _simulate(2000, 12, model=model, missing=0.1,
                                        seed=7)
    est = IRT(model=model).fit(X)
    name = "precision" if model == "beta" else "residual_sd"
    table = est.task_table()
    assert {"discrimination", "difficulty", name, f"{name}_se"} <= set(table)
    assert np.max(np.abs(est.discrimination_ / a - 1)) < 0.15
    assert np.max(np.abs(est.difficulty_ - b)) < 0.2
    assert np.max(np.abs(getattr(est, f"{name}_") / scale - 1)) < 0.2
    assert np.corrcoef(est.abilities_, theta)[0, 1] > 0.95
    # the likelihood at the estimate is at least the one at the truth
    truth = np.column_stack([a, -a * b, np.log(scale)])
    at_truth = (_beta_loglik(X, truth, n_nodes=1601) if model == "beta"
                else _logit_normal_loglik(X, truth))
    assert est.log_likelihood_ >= at_truth


@pytest.mark.parametrize("model", MODELS)
def test_standard_errors_are_louis_information(model):
    # Louis' per-item information equals the finite-difference Hessian of the
    # marginal log-likelihood in that item's (a, d, s)
    X, _ = _simulate(300, 5, model=model, missing=0.1, seed=2)
    est = IRT(model=model, tol=1e-12, max_iter=5000).fit(X)
    grid = make_grid("rectangular", 401, 6.0)
    store = ScoreStore(_cells(X), X.shape[0], np.ones(5, bool), model)
    p0 = est._item_params

    def loglik(p):
        return store.e_step(store.model.tables(p, grid.nodes), grid,
                            stats=False)["loglik"]

    cov = louis_covariance(store, grid, p0)
    h = 1e-4
    for j in (0, 3):
        hess = np.empty((3, 3))
        for u in range(3):
            for v in range(3):
                def f(du, dv, u=u, v=v, j=j):
                    p = p0.copy()
                    p[j, u] += du
                    p[j, v] += dv
                    return loglik(p)
                hess[u, v] = (f(h, h) - f(h, -h) - f(-h, h) + f(-h, -h)) / (4 * h * h)
        assert_allclose(np.linalg.inv(cov[j]), -hess, rtol=1e-4, atol=1e-3)
    assert np.all(np.isfinite(est.discrimination_se_))
    assert np.all(est.difficulty_se_ > 0)


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), missing=st.sampled_from([0.0, 0.3, 0.8]),
       model=st.sampled_from(MODELS))
def test_sparse_and_dense_storage_agree(seed, missing, model):
    X, _ = _simulate(60, 8, model=model, missing=missing, seed=seed)
    if (np.isfinite(X).sum(axis=1) == 0).any():
        X[:, 0] = np.where(np.isfinite(X).sum(axis=1) == 0, 0.5, X[:, 0])
    # Fitted to a tight tolerance: stopped early, the two stores (which sum in
    # another order) can take other SQUAREM steps and stop at other points of
    # a flat ridge (80% missing leaves items with a handful of scores, whose
    # precision is barely identified), 1e-6 apart in likelihood.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [IRT(model=model, algorithm=alg, max_iter=5000, tol=1e-12).fit(data)
                for alg, data in (("dense", X), ("sparse", X),
                                  ("auto", _to_sparse(X)))]
    for other in fits[1:]:
        # the likelihood is identified: equal to the solver's precision
        assert_allclose(other.log_likelihood_, fits[0].log_likelihood_, rtol=1e-9)
        # predictions and abilities move along the ridge (up to ~6e-6 seen
        # over 150 seeded cases)
        assert_allclose(other.predict(X), fits[0].predict(X), atol=1e-4)
        assert_allclose(other.transform(_to_sparse(X)), fits[0].transform(X),
                        atol=1e-4)


@pytest.mark.parametrize("model", MODELS)
def test_sparse_and_dense_storage_agree_on_one_case(model):
    X, _ = _simulate(80, 6, model=model, missing=0.3, seed=12)
    dense = IRT(model=model, algorithm="dense").fit(X)
    sparse_fit = IRT(model=model, algorithm="sparse").fit(_to_sparse(X))
    assert_allclose(sparse_fit.log_likelihood_, dense.log_likelihood_, rtol=1e-10)
    assert_allclose(sparse_fit.predict(X), dense.predict(X), rtol=1e-8)


@pytest.mark.parametrize("model", MODELS)
def test_predict_is_the_posterior_expected_score(model):
    X, _ = _simulate(300, 8, model=model, seed=5)
    est = IRT(model=model).fit(X)
    pred = est.predict(X)
    assert pred.shape == X.shape and np.all((pred > 0) & (pred < 1))
    # expected scores track the observed ones far better than item means
    resid = np.mean((pred - X) ** 2)
    assert resid < 0.6 * np.mean((X - X.mean(axis=0)) ** 2)
    assert not hasattr(est, "predict_proba")
    ranked = est.agent_table()
    assert ranked.shape[0] == 300 and np.all(np.isfinite(est.agent_scores_))


@pytest.mark.slow
def test_logit_normal_is_better_on_logit_normal_data_and_beta_on_beta_data():
    for truth in MODELS:
        X, _ = _simulate(200, 8, model=truth, seed=11)
        table = compare_models(X, models=MODELS, cv=3, random_state=0)
        assert table.index[0] == truth
        assert np.all(np.isfinite(table["heldout_loglik_per_response"]))


def test_exact_zero_and_one_are_clipped_with_a_warning_naming_the_items():
    X, _ = _simulate(100, 5, seed=1)
    X[3, 2], X[7, 4] = 0.0, 1.0
    with pytest.warns(UserWarning, match=r"2 score\(s\) exactly 0 or 1.*items: 2, 4$"):
        est = IRT(model="beta", score_clip=0.01).fit(X)
    assert np.isfinite(est.log_likelihood_)
    clipped = X.copy()
    clipped[3, 2], clipped[7, 4] = 0.01, 0.99
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_allclose(est.score(X), est.score(clipped), rtol=1e-12)


@pytest.mark.parametrize("bad", [1.5, -0.2, np.inf])
def test_scores_outside_the_unit_interval_name_item_and_value(bad):
    X, _ = _simulate(50, 4, seed=1)
    X[6, 3] = bad
    import pandas as pd
    frame = pd.DataFrame(X, columns=["w", "x", "y", "z"])
    with pytest.raises(ValueError, match=r"item 'z'.*row 6|inf"):
        IRT(model="beta").fit(frame)


def test_degenerate_items_are_left_out_with_a_warning():
    X, _ = _simulate(80, 5, seed=1)
    X[:, 1] = 0.4
    with pytest.warns(UserWarning, match="one distinct score"):
        est = IRT(model="logit-normal").fit(X)
    assert np.isnan(est.discrimination_[1]) and est.task_table()["left_out"][1]
    assert_allclose(est.predict(X)[:, 1], 0.4)


def test_bad_parameters_are_refused():
    X, _ = _simulate(50, 4, seed=1)
    with pytest.raises(ValueError, match="n_options"):
        IRT(model="beta", n_options=4).fit(X)
    with pytest.raises(ValueError, match="n_factors"):
        IRT(model="beta", n_factors=2).fit(X)
    with pytest.raises(ValueError, match="mixes"):
        compare_models(X, models=["beta", "2PL"])


def test_a_failed_fit_keeps_the_fitted_state():
    X, _ = _simulate(60, 5, seed=1)
    est = IRT(model="beta").fit(X)
    before = est._item_params.copy()
    bad = X.copy()
    bad[0, 0] = 2.0
    with pytest.raises(ValueError):
        est.fit(bad)
    assert_allclose(est._item_params, before)


@pytest.mark.parametrize("model", MODELS)
def test_contract(model):
    X, _ = _simulate(40, 5, model=model, missing=0.1, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator_contract(IRT(model=model), X)


def test_threads_and_blocks_give_the_same_fit():
    X, _ = _simulate(90, 6, missing=0.2, seed=21)
    serial = IRT(model="beta").fit(X)
    threaded = IRT(model="beta", n_jobs=2, chunk_size=25).fit(X)
    assert_allclose(threaded.log_likelihood_, serial.log_likelihood_, rtol=1e-10)
    assert_allclose(threaded.transform(X), serial.transform(X), rtol=1e-8,
                    atol=1e-12)


def test_deterministic_and_orientation_follows_scores():
    X, _ = _simulate(120, 6, seed=9)
    one = IRT(model="beta").fit(X)
    two = IRT(model="beta").fit(X)
    assert_allclose(one._item_params, two._item_params, rtol=0, atol=0)
    mean = np.nanmean(X, axis=1)
    assert np.corrcoef(one.abilities_, mean)[0, 1] > 0.9


def test_trigamma_matches_scipy():
    from scipy.special import polygamma

    from sklearn_eval.irt._continuous_models import trigamma

    x = np.concatenate([np.logspace(-17, 5, 2000),
                        np.random.default_rng(0).uniform(0, 40, 2000)])
    assert_allclose(trigamma(x), polygamma(1, x), rtol=1e-12)


def test_a_grid_that_misses_the_posteriors_is_a_clear_error_not_nan():
    # Continuous scores give narrow ability posteriors (user guide): on a
    # Gauss-Hermite rule the marginal likelihood underflows. The fit says so
    # instead of returning NaN, and keeps the previous fit.
    from sklearn_eval.datasets import load_leaderboard

    X = load_leaderboard("helm_lite").data
    est = IRT(model="beta").fit(X)
    before = est.log_likelihood_
    assert np.isfinite(before)
    with pytest.raises(ValueError, match=r"not finite on this grid.*rectangular"):
        est.set_params(quadrature="gauss-hermite").fit(X)
    assert est.log_likelihood_ == before


def test_items_near_the_floor_and_ceiling_are_recovered():
    # The start regresses each item's logit score on the agents' mean logit
    # score; where scores crowd at 0 (or 1) their logits are mostly noise and
    # the start's slope is far too steep (here a = 16 against 1.75 for the
    # item whose mean score is 0.08). The M-step then meets a Hessian that
    # is not negative definite and must still climb out: before, it froze
    # three such items at a ~ 0 and a precision ~ 1.4, 16,000 log-likelihood
    # units below the fit that recovers them.
    import copy

    from tests.irt.simulate import simulate_scores

    X = simulate_scores(3000, 40, seed=1)  # 248 exact 0 and 1, clipped
    rng = np.random.default_rng(1)
    rng.normal(size=3000)
    a, b = rng.uniform(0.8, 2.0, 40), rng.normal(size=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the clipping
        est = IRT(model="beta").fit(X)
        truth = copy.deepcopy(est)
        truth._item_params = np.column_stack([a, -a * b, np.full(40, np.log(20.0))])
        at_truth = truth.score(X) * est.n_observations_
    assert np.max(np.abs(est.discrimination_ / a - 1)) < 0.1
    assert np.max(np.abs(est.difficulty_ - b)) < 0.1
    assert np.max(np.abs(est.precision_ / 20.0 - 1)) < 0.1
    assert est.log_likelihood_ >= at_truth


def _item_statistics(model, truth, n, seed, nodes):
    """One item's complete-data sums (N, S1, S2) per node: known abilities."""
    from sklearn_eval.irt._continuous_models import MODELS as SPECS

    rng = np.random.default_rng(seed)
    k = np.clip(np.searchsorted(nodes, rng.normal(size=n)), 0, nodes.size - 1)
    a, d, s = truth
    eta = a * nodes[k] + d
    if model == "beta":
        mu = expit(eta)
        x = rng.beta(np.exp(s) * mu, np.exp(s) * (1.0 - mu))
    else:
        x = expit(eta + np.exp(s) * rng.normal(size=n))
    t1, t2, _ = SPECS[model].statistics(np.clip(x, 1e-9, 1.0 - 1e-9))
    K = nodes.size
    return {"N": np.bincount(k, minlength=K)[:, None].astype(float),
            "S1": np.bincount(k, weights=t1, minlength=K)[:, None],
            "S2": np.bincount(k, weights=t2, minlength=K)[:, None]}


@settings(max_examples=25, deadline=None)
@given(model=st.sampled_from(MODELS), seed=st.integers(0, 2**16),
       a=st.floats(0.3, 3.0), d=st.floats(-4.0, 4.0), s=st.floats(-1.0, 4.0),
       start=st.tuples(st.floats(-20.0, 20.0), st.floats(-10.0, 10.0),
                       st.floats(-3.0, 5.0)))
def test_m_step_climbs_to_the_item_maximum_from_any_start(model, seed, a, d, s,
                                                         start):
    # Each M-step never lowers an item's objective, and repeated from any
    # start in the box (also where the objective is not concave) it reaches
    # the item's maximum, as found by a bounded quasi-Newton solver started
    # at the truth and at the start
    from scipy.optimize import minimize

    from sklearn_eval.irt._continuous_models import MODELS as SPECS
    from sklearn_eval.irt._continuous_models import item_objective, m_step

    spec, nodes = SPECS[model], np.linspace(-6.0, 6.0, 401)
    if model == "logit-normal":
        s = min(s, 0.5)  # a residual sd up to 1.6 on the logit scale
    stats_ = _item_statistics(model, (a, d, s), 300, seed, nodes)

    def value(p):
        return float(item_objective(spec, np.asarray(p)[None, :], nodes, stats_)[0])

    params = np.array([start])
    values = [value(params[0])]
    for _ in range(200):
        params = m_step(spec, params, nodes, stats_)
        values.append(value(params[0]))
    assert np.all(np.diff(values) >= -1e-12 * np.abs(values[:-1]))
    bounds = [(-50.0, 50.0), (-50.0, 50.0), (-10.0, 15.0)]
    best = max(-minimize(lambda p: -value(p), x0, method="L-BFGS-B",
                         bounds=bounds).fun for x0 in ((a, d, s), start))
    assert values[-1] >= best - 1e-7 * abs(best)
