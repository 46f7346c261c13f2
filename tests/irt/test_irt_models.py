"""IRT: the 1PL-4PL item response models on the shared EM engine and storage.

The likelihoods are checked against an independent marginal likelihood
(Gauss-Hermite quadrature in plain numpy), the standard errors against a
finite-difference Hessian of that likelihood (Louis 1982), and the fits
against the truth on simulated data (Birnbaum 1968; Barton and Lord 1981).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import sparse
from scipy.special import expit, logsumexp

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT, IRT2PL, _kernels, compare_models
from sklearn_eval.irt import _irt as irt_module
from sklearn_eval.irt._binary_models import (
    FREE,
    log_tables,
    louis_information,
    scores,
)
from sklearn_eval.irt._irt_fit import _em_binary, _em_binary_grid
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import _Responses
from sklearn_eval.irt._sparse_responses import _SparseResponses
from sklearn_eval.utils.estimator_checks import check_estimator_contract
from tests.irt.simulate import simulate_responses

_simulate = simulate_responses


def _to_sparse(X):
    rows, cols = np.nonzero(~np.isnan(X))
    return sparse.csr_array((X[rows, cols], (rows, cols)), shape=X.shape)


def _marginal_loglik(X, a, b, g, u, n_nodes=201, rule="gauss-hermite"):
    """Independent marginal log-likelihood in plain numpy.

    Gauss-Hermite with ``n_nodes`` nodes, or the rectangular rule of R mirt
    (equally spaced nodes on [-6, 6], weights from the normal density).
    """
    if rule == "gauss-hermite":
        x, w = np.polynomial.hermite.hermgauss(n_nodes)
        nodes, log_w = np.sqrt(2.0) * x, np.log(w / np.sqrt(np.pi))
    else:
        nodes = np.linspace(-6.0, 6.0, n_nodes)
        log_w = -0.5 * nodes**2 - logsumexp(-0.5 * nodes**2)
    P = g + (u - g) * expit(a * (nodes[:, None] - b))  # (K, J)
    # u = 1 gives P = 1 at far nodes: keep 0 * log(1 - P) finite
    P = np.clip(P, 1e-300, 1.0 - 1e-16)
    seen = ~np.isnan(X)
    Y = np.where(seen, X, 0.0)
    table = Y @ np.log(P).T + (seen & (Y == 0)) @ np.log1p(-P).T + log_w
    return float(logsumexp(table, axis=1).sum())


@pytest.fixture(scope="module")
def three_pl():
    X, truth = _simulate(1500, 12, guessing=0.2, missing=0.1, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT(model="3PL", n_options=5).fit(X)
    return X, truth, model


# ---------------------------------------------------------------- likelihood
@pytest.mark.parametrize("model, prior", [("1PL", False), ("2PL", False),
                                          ("3PL", True), ("4PL", True),
                                          ("3PL", False), ("4PL", False)])
def test_log_likelihood_is_the_marginal_likelihood_at_the_estimate(model, prior):
    X, _ = _simulate(400, 8, guessing=0.15, upper=0.95, missing=0.15, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = IRT(model=model,
                     upper_prior=(0.95, 0.5) if prior and model == "4PL" else None,
                     guessing_prior=(0.15, 0.5) if prior else None).fit(X)
    # maximum likelihood keeps the asymptotes in order
    assert np.all(fitted.guessing_ < fitted.upper_)
    items = (fitted.discrimination_, fitted.difficulty_, fitted.guessing_,
             fitted.upper_)
    expected = _marginal_loglik(X, *items, n_nodes=len(fitted.quadrature_nodes_),
                                rule="rectangular")
    assert_allclose(fitted.log_likelihood_, expected, rtol=1e-10)
    # and the fitted grid integrates the likelihood as a fine Gauss-Hermite
    if prior:  # steep maximum-likelihood items need the finer grid
        assert_allclose(fitted.log_likelihood_, _marginal_loglik(X, *items),
                        rtol=1e-4)
    # score is the same likelihood per observed response
    n_obs = np.count_nonzero(~np.isnan(X))
    assert fitted.n_observations_ == n_obs
    assert_allclose(fitted.score(X), expected / n_obs, rtol=1e-10)
    criteria = fitted.information_criteria()
    k = {"1PL": 9, "2PL": 16, "3PL": 24, "4PL": 32}[model]
    assert criteria["n_parameters"] == k
    assert_allclose(criteria["aic"], -2 * fitted.log_likelihood_ + 2 * k)
    assert_allclose(criteria["bic"], -2 * fitted.log_likelihood_ + k * np.log(n_obs))


@pytest.mark.parametrize("model", ["1PL", "2PL"])
def test_one_and_two_pl_are_irt2pl(model):
    X = make_irt_responses(200, 8, missing_rate=0.1, random_state=3)
    ours = IRT(model=model).fit(X)
    reference = IRT2PL(model=model).fit(X)
    assert ours.log_likelihood_ == reference.log_likelihood_
    assert_allclose(ours.discrimination_, reference.discrimination_, rtol=0)
    assert_allclose(ours.difficulty_, reference.difficulty_, rtol=0)
    assert_allclose(ours.difficulty_se_, reference.difficulty_se_, rtol=0)
    assert np.all(ours.guessing_ == 0) and np.all(ours.upper_ == 1)


def test_generic_em_reaches_the_two_pl_maximum():
    """The 3PL/4PL EM with both asymptotes fixed is a 2PL EM: same maximum."""
    X = make_irt_responses(300, 8, random_state=4)
    reference = IRT2PL(tol=1e-10).fit(X)
    grid = make_grid("rectangular", 121)
    data = _Responses(X)
    J = X.shape[1]
    start = np.column_stack([np.ones(J), np.zeros(J), np.full(J, -np.inf),
                             np.full(J, np.inf)])
    params, loglik, _, converged, _ = _em_binary(data, grid, start, "2PL", {}, 2000,
                                              1e-10)
    assert converged
    assert_allclose(loglik, reference.log_likelihood_, rtol=1e-9)
    assert_allclose(params[:, 0], reference.discrimination_, atol=1e-4)


@pytest.mark.parametrize("model", ["3PL", "4PL"])
def test_em_never_lowers_the_penalised_likelihood(model):
    X, _ = _simulate(300, 6, guessing=0.2, seed=5)
    grid = make_grid("rectangular", 61)
    data = _Responses(X)
    J = X.shape[1]
    start = np.column_stack([np.ones(J), np.zeros(J), np.full(J, -2.0),
                             np.full(J, 3.0 if model == "4PL" else np.inf)])
    priors = {2: (-1.5, 1.0)}
    # on one grid (the coarse-grid phase of _em_binary changes the objective)
    values = [_em_binary_grid(data, grid, start, model, priors, k, 0.0)[1]
              + _prior(_em_binary_grid(data, grid, start, model, priors, k,
                                       0.0)[0], priors)
              for k in range(1, 12)]
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[:-1]))


def _prior(params, priors):
    mean, sd = priors[2]
    return float(-0.5 * np.sum(((params[:, 2] - mean) / sd) ** 2))


@pytest.mark.parametrize("model", ["3PL", "4PL"])
def test_sparse_and_dense_storage_agree(model):
    X, _ = _simulate(500, 10, guessing=0.2, upper=0.9, missing=0.3, seed=6)
    kwargs = {"model": model, "n_options": 4,
              "upper_prior": (0.9, 0.5) if model == "4PL" else None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = IRT(algorithm="dense", **kwargs).fit(X)
        csr = IRT(algorithm="sparse", **kwargs).fit(_to_sparse(X))
    assert_allclose(csr.log_likelihood_, dense.log_likelihood_, rtol=1e-10)
    for name in ("discrimination_", "difficulty_", "guessing_", "upper_",
                 "guessing_se_", "abilities_"):
        assert_allclose(getattr(csr, name), getattr(dense, name), rtol=1e-6,
                        atol=1e-8, err_msg=name)
    assert_allclose(csr.predict_proba(_to_sparse(X)), dense.predict_proba(X),
                    atol=1e-10)


# ------------------------------------------------------------ standard errors
@pytest.mark.parametrize("model", ["3PL", "4PL"])
def test_louis_information_is_the_hessian_of_the_marginal_likelihood(model):
    X, _ = _simulate(300, 5, guessing=0.2, upper=0.9, seed=7)
    grid = make_grid("gauss-hermite", 41)
    free = FREE[model]
    rng = np.random.default_rng(0)
    params = np.column_stack([rng.uniform(0.8, 1.5, 5), rng.normal(0, 1, 5),
                              np.full(5, -1.4), np.full(5, 2.2 if model == "4PL"
                                                        else np.inf)])
    data = _Responses(X)
    log_p, log_q = log_tables(params, grid.nodes)
    state = data.e_step_tables(log_p, log_q, grid)
    g1, g0 = scores(params, grid.nodes, free)
    outer = data.score_products(log_p, log_q, grid, g1, g0)
    info = louis_information(params, state, outer, grid.nodes, free, {})

    def loglik(p):
        lp, lq = log_tables(p, grid.nodes)
        return data.e_step_tables(lp, lq, grid, counts=False)["loglik"]

    j, h = 2, 1e-4
    numeric = np.empty((len(free), len(free)))
    for i, ci in enumerate(free):
        for k, ck in enumerate(free):
            value = 0.0
            for si, sk, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                p = params.copy()
                p[j, ci] += si * h
                p[j, ck] += sk * h
                value += sign * loglik(p)
            numeric[i, k] = -value / (4 * h * h)
    assert_allclose(info[j], numeric, rtol=2e-4, atol=1e-3)


# ----------------------------------------------------------------- recovery
@pytest.mark.slow
def test_three_pl_recovers_simulated_items():
    X, (a, b, g, _) = _simulate(5000, 15, guessing=0.2, seed=8)
    model = IRT(model="3PL", n_options=5).fit(X)
    assert np.mean(np.abs(model.discrimination_ - a)) < 0.2
    assert np.mean(np.abs(model.difficulty_ - b)) < 0.2
    assert np.mean(np.abs(model.guessing_ - g)) < 0.06
    # the 3PL describes 3PL data better than the 2PL, by far more than chance
    two = IRT(model="2PL").fit(X)
    assert model.log_likelihood_ - two.log_likelihood_ > 30


def test_three_pl_fit_protocol(three_pl):
    X, (a, b, g, _), model = three_pl
    assert np.mean(np.abs(model.guessing_ - g)) < 0.1
    table = model.task_table()
    assert table.columns.tolist() == [
        "discrimination", "discrimination_se", "difficulty", "difficulty_se",
        "guessing", "guessing_se", "success_rate", "left_out"]
    se = table["guessing_se"]
    assert np.all(np.isfinite(se)) and np.all(se > 0)
    agents = model.agent_table()
    assert agents.shape[0] == X.shape[0]
    assert_allclose(model.agent_scores_, model.abilities_)
    assert_allclose(model.transform(X), np.column_stack(
        [model.abilities_, model.abilities_sd_]), atol=1e-12)
    assert np.corrcoef(model.abilities_, np.nanmean(X, axis=1))[0, 1] > 0.8


def test_predict_proba_is_the_posterior_predictive(three_pl):
    X, _, model = three_pl
    rows = X[:20]
    proba = model.predict_proba(rows)
    # the grid the model was fitted on (61 or 121 nodes: see n_quadrature)
    grid = make_grid("rectangular", len(model.quadrature_nodes_))
    P = model.guessing_ + (model.upper_ - model.guessing_) * expit(
        model.discrimination_ * (grid.nodes[:, None] - model.difficulty_))
    seen = ~np.isnan(rows)
    Y = np.where(seen, rows, 0.0)
    table = Y @ np.log(P).T + (seen & (Y == 0)) @ np.log1p(-P).T + grid.log_weights
    post = np.exp(table - logsumexp(table, axis=1, keepdims=True))
    assert_allclose(proba, post @ P, rtol=1e-9)
    assert np.all((proba > 0) & (proba < 1))


# ------------------------------------------------- discrimination prior
def test_discrimination_prior_of_the_2pl_is_irt2pls_a_prior():
    X, _ = _simulate(400, 8, missing=0.1, seed=12)
    ours = IRT(model="2PL", discrimination_prior=(1.0, 2.0)).fit(X)
    reference = IRT2PL(a_prior=(1.0, 2.0)).fit(X)
    assert_allclose(ours.log_likelihood_, reference.log_likelihood_, rtol=1e-12)
    assert_allclose(ours.discrimination_, reference.discrimination_, rtol=1e-10)


def _penalised(X, fitted, prior, model):
    items = (fitted.discrimination_, fitted.difficulty_, fitted.guessing_,
             fitted.upper_)
    value = _marginal_loglik(X, *items, n_nodes=len(fitted.quadrature_nodes_),
                             rule="rectangular")
    mean, sd = prior
    value -= 0.5 * np.sum(((fitted.discrimination_ - mean) / sd) ** 2)
    logit_g = np.log(fitted.guessing_ / (1.0 - fitted.guessing_))
    value -= 0.5 * np.sum(((logit_g - np.log(1.0 / 3.0)) / 0.5) ** 2)  # n_options=4
    if model == "4PL":
        logit_u = np.log(fitted.upper_ / (1.0 - fitted.upper_))
        value -= 0.5 * np.sum(((logit_u - np.log(9.0)) / 0.5) ** 2)
    return value


@pytest.mark.parametrize("model", ["3PL", "4PL"])
def test_discrimination_prior_keeps_separating_items_finite(model):
    # maximum likelihood lets items that (nearly) separate the agents run away
    # (|a| > 100 here, with a warning naming the remedy) and EM crawls along
    # that ridge; the prior's fit is the posterior mode: finite, quick, and
    # above the runaway items on the penalised likelihood
    X, _ = _simulate(500, 10, guessing=0.2, upper=0.9, missing=0.3, seed=6)
    kwargs = {"model": model, "n_options": 4}
    if model == "4PL":
        kwargs["upper_prior"] = (0.9, 0.5)
    with pytest.warns(UserWarning, match="discrimination_prior"):
        ml = IRT(**kwargs).fit(X)
    assert np.max(np.abs(ml.discrimination_)) > 10
    prior = (1.0, 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mode = IRT(discrimination_prior=prior, **kwargs).fit(X)
    assert np.max(np.abs(mode.discrimination_)) < 10
    assert mode.n_iter_ < ml.n_iter_
    assert np.all(np.isfinite(mode.discrimination_se_))
    assert _penalised(X, mode, prior, model) > _penalised(X, ml, prior, model)
    # log_likelihood_ stays the plain marginal likelihood
    items = (mode.discrimination_, mode.difficulty_, mode.guessing_, mode.upper_)
    assert_allclose(mode.log_likelihood_, _marginal_loglik(
        X, *items, n_nodes=len(mode.quadrature_nodes_), rule="rectangular"),
        rtol=1e-10)


def test_steep_item_warning_names_the_estimators_own_prior():
    # the remedy in the warning is a parameter of the estimator the user
    # called: IRT's discrimination_prior, IRT2PL's a_prior
    X, _ = _simulate(300, 8, guessing=0.0, upper=1.0, missing=0.0, seed=3)
    X[:, 0] = (np.nanmean(X, axis=1) > 0.5).astype(float)  # separates the agents
    with pytest.warns(UserWarning, match=r"IRT\(model='2PL', discrimination_prior"):
        IRT(model="2PL").fit(X)
    with pytest.warns(UserWarning, match=r"IRT2PL\(a_prior"):
        IRT2PL().fit(X)


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "params, message",
    [
        ({"model": "3PL", "guessing_prior": (1.2, 0.5)}, r"guessing_prior mean.*1\.2"),
        ({"model": "3PL", "guessing_prior": (0.0, 0.5)}, r"guessing_prior mean.*0\.0"),
        ({"model": "3PL", "guessing_prior": (0.2, -1)}, r"guessing_prior.*sd > 0"),
        ({"model": "4PL", "upper_prior": (0.9, "x")}, r"upper_prior must be"),
        ({"model": "2PL", "n_options": 4}, r"apply to the 3PL and 4PL"),
        ({"model": "3PL", "upper_prior": (0.9, 0.5)}, r"upper_prior applies"),
        ({"model": "3PL", "n_factors": 2}, r"n_factors=2"),
        ({"model": "3PL", "discrimination_prior": (1.0, 0.0)},
         r"discrimination_prior.*sd > 0"),
        ({"model": "4PL", "discrimination_prior": (np.inf, 1.0)},
         r"discrimination_prior.*finite"),
        ({"model": "1PL", "discrimination_prior": (1.0, 2.0)},
         r"discrimination_prior applies.*'1PL'"),
        ({"model": "2PL", "n_factors": 2, "discrimination_prior": (1.0, 2.0)},
         r"discrimination_prior applies.*n_factors=2"),
        ({"model": "GRM", "discrimination_prior": (1.0, 2.0)},
         r"discrimination_prior applies.*'GRM'"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X = make_irt_responses(50, 5, random_state=9)
    model = IRT(**params)
    with pytest.raises(ValueError, match=message):
        model.fit(X)
    assert not hasattr(model, "discrimination_")


@pytest.mark.parametrize(
    "X, message",
    [
        ([[0, 1, 2], [1, 0, 1]], "binary"),
        ([[0, 1, 0.5], [1, 0, 1]], "binary"),
        ([[0, 1, 1], [np.nan, np.nan, np.nan], [1, 0, 1]], "row 1"),
    ],
)
def test_bad_responses_are_named(X, message):
    with pytest.raises(ValueError, match=message):
        IRT(model="3PL").fit(np.asarray(X, dtype=float))


def test_constant_item_is_left_out_with_a_warning():
    X, _ = _simulate(300, 6, guessing=0.2, seed=10)
    X[:, 3] = 1.0
    with pytest.warns(UserWarning, match="1 item"):
        model = IRT(model="3PL", n_options=4).fit(X)
    assert np.isnan(model.guessing_[3]) and np.isnan(model.difficulty_[3])
    assert model.task_table()["left_out"].tolist() == [False] * 3 + [True] + [False] * 2
    assert np.all(model.predict_proba(X)[:, 3] == 1.0)
    assert model.n_parameters_ == 15
    assert np.all(np.isfinite(model.abilities_))


def test_failed_fit_keeps_the_previous_fit(monkeypatch):
    X = make_irt_responses(80, 6, random_state=11)
    model = IRT(model="3PL", n_options=4).fit(X)
    before = model.discrimination_.copy()

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(irt_module, "_fit_irt", boom)
    with pytest.raises(RuntimeError):
        model.fit(make_irt_responses(70, 6, random_state=12))
    assert_allclose(model.discrimination_, before)
    assert model.agents_.shape == (80,)


def test_contract_suite():
    X = make_irt_responses(60, 6, missing_rate=0.1, random_state=13)
    bad = [(X[:0], None), (np.where(np.isnan(X), np.nan, 2 * X), None),
           (X[:, :1], None)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator_contract(IRT(model="3PL", n_options=4), X, bad_inputs=bad)


# --------------------------------------------------------- model comparison
def test_compare_models_scores_every_held_out_response():
    X = make_irt_responses(150, 6, missing_rate=0.1, random_state=14)
    table = compare_models(X, models=["1PL", "2PL"], cv=3, random_state=0)
    assert set(table.index) == {"1PL", "2PL"}
    assert np.all(table["n_heldout"] == np.count_nonzero(~np.isnan(X)))
    assert np.all(table["heldout_loglik_per_response"] < 0)
    assert np.all(table["heldout_loglik_per_response"] > np.log(0.5) - 0.2)
    assert table.loc["2PL", "n_parameters"] == 12
    # deterministic under random_state
    again = compare_models(X, models=["1PL", "2PL"], cv=3, random_state=0)
    assert_allclose(again.to_numpy(dtype=float), table.to_numpy(dtype=float))
    with pytest.raises(ValueError, match="cv must be"):
        compare_models(X, cv=1)


@pytest.mark.slow
def test_compare_models_prefers_three_pl_on_guessing_data():
    X, _ = _simulate(2000, 12, guessing=0.25, seed=15)
    table = compare_models(X, models=["2PL", IRT(model="3PL", n_options=4)], cv=3,
                           random_state=0)
    assert table.index[0] == "3PL"
    assert table.loc["3PL", "aic"] < table.loc["2PL", "aic"]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=4, max_size=4))
def test_log_tables_are_a_distribution_for_any_parameters(row):
    """P + (1 - P) = 1 at every node, also with the asymptotes out of order."""
    params = np.array([row])
    p, q = log_tables(params, np.linspace(-6, 6, 25))
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(q))
    assert_allclose(np.exp(p) + np.exp(q), 1.0, rtol=1e-9)


# ------------------------------------------- compiled == pure Python bodies
@pytest.mark.skipif(not _kernels.HAVE_NUMBA, reason="numba not installed")
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), missing=st.floats(0.0, 0.9))
def test_compiled_table_kernels_run_the_python_bodies(seed, missing):
    X, _ = _simulate(40, 5, guessing=0.1, missing=missing, seed=seed)
    X[0] = np.nan  # an agent with no response
    store = _SparseResponses.from_dense(X)
    grid = make_grid("rectangular", 31)
    params = np.column_stack([np.ones(5), np.zeros(5), np.full(5, -2.0),
                              np.full(5, 3.0)])
    log_p, log_q = log_tables(params, grid.nodes)
    g1, g0 = scores(params, grid.nodes, FREE["4PL"])
    results = {}
    for compiled in (True, False):
        get = _kernels.kernel if compiled else _kernels._PYTHON.__getitem__
        n = store.n_agents
        post, lo, hi = np.zeros((n, 31)), np.zeros(n, np.int64), np.zeros(n, np.int64)
        lse, mean, sd = np.empty(n), np.empty(n), np.empty(n)
        get("posterior_rows_tables")(store.indptr, store.codes,
                                     np.ascontiguousarray(log_p.T),
                                     np.ascontiguousarray(log_q.T), grid.nodes,
                                     grid.log_weights, 37.0, post, lo, hi, lse, mean,
                                     sd)
        outer = np.zeros((5, 4, 4))
        get("score_columns")(store.colptr, store.column_codes, post, lo, hi,
                             np.ascontiguousarray(g1.transpose(1, 0, 2)),
                             np.ascontiguousarray(g0.transpose(1, 0, 2)), outer)
        results[compiled] = (post, lo, hi, lse, mean, sd, outer)
    for fast, slow in zip(results[True], results[False], strict=True):
        assert_allclose(fast, slow, rtol=1e-12, atol=1e-14)
    # and the posteriors are the dense ones
    dense = _Responses(X).e_step_tables(log_p, log_q, grid, counts=False,
                                        moments=True)
    assert_allclose(results[False][3], dense["per_agent"], rtol=1e-12, atol=1e-12)
    assert_allclose(results[False][4], dense["mean"], atol=1e-12)


@pytest.mark.parametrize("algorithm", ["dense", "sparse"])
def test_threads_give_the_serial_fit(algorithm):
    X = make_irt_responses(300, 10, missing_rate=0.5, random_state=16)
    kwargs = {"model": "3PL", "n_options": 4, "algorithm": algorithm,
              "chunk_size": 40}
    serial = IRT(**kwargs).fit(X)
    threads = IRT(n_jobs=2, **kwargs).fit(X)
    assert threads.log_likelihood_ == serial.log_likelihood_
    assert_allclose(threads.guessing_se_, serial.guessing_se_, rtol=0)
