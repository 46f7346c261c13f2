"""IRT(model="GRM"/"GPCM", n_factors=m): multidimensional ordered categories.

Checks the marginal likelihood against an independent numpy computation from
the reported (rotated) items and factor correlations, the rotation
invariance of the model, monotone EM, the analytic scores against finite
differences, recovery of simulated loadings (after an orthogonal Procrustes
rotation to the truth: Reckase, *Multidimensional Item Response Theory*,
2009, ch. 8), dense against sparse input, and the input rules. The models:
Samejima (1969) graded response, Muraki (1992) generalised partial credit,
with slopes ``a_j . theta`` as in R's mirt (Chalmers 2012).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.special import expit, log_softmax, logsumexp

from sklearn_eval.irt import IRT, compare_models
from sklearn_eval.irt._graded import log_probabilities, scores
from tests.irt.simulate import assert_rotations_agree, simulate_loadings


def simulate(model, n, J, *, K=4, corr=0.3, missing=0.0, seed=0,
             response_seed=None):
    """Two correlated factors, simple structure plus small cross-loadings.

    Returns responses 0..K-1 (NaN missing), the slopes ``A`` in the
    ``theta ~ N(0, I)`` metric and the intercepts (GRM ``d_k`` of ``P(X >=
    k)``, decreasing; GPCM steps ``s_k``), about 1.5, 0 and -1.5 for 4
    categories. ``response_seed`` draws new responses from the items of
    ``seed``.
    """
    rng = np.random.default_rng(seed)
    A = simulate_loadings(rng, J, corr=corr)[2]
    # spread intercepts: every category is used by a few hundred agents
    d = np.linspace(1.5, -1.5, K - 1) + rng.normal(0.0, 0.3, (J, K - 1))
    if model == "GRM":
        d = -np.sort(-d, axis=1)
    if response_seed is not None:
        rng = np.random.default_rng(response_seed)
    theta = rng.standard_normal((n, 2))
    P = np.exp(numpy_log_probabilities(model, theta @ A.T, d))
    X = (rng.random((n, J, 1)) > np.cumsum(P, axis=2)[..., :-1]).sum(axis=2)
    X = X.astype(float)
    X[rng.random((n, J)) < missing] = np.nan
    return X, A, d


def numpy_log_probabilities(model, u, d):
    """(n_points, J, K) log category probabilities from ``u = a . theta``.

    Written from the definitions, independently of the package:
    GRM ``P(X = k) = expit(u + d_k) - expit(u + d_{k+1})``; GPCM category
    logits ``sum_{v <= k} (u + s_v)``.
    """
    z = u[:, :, None] + d[None]
    if model == "GRM":
        star = expit(z)
        upper = np.concatenate([np.ones(star.shape[:2] + (1,)), star], axis=2)
        lower = np.concatenate([star, np.zeros(star.shape[:2] + (1,))], axis=2)
        return np.log(upper - lower)
    logits = np.concatenate([np.zeros(z.shape[:2] + (1,)), np.cumsum(z, axis=2)],
                            axis=2)
    return log_softmax(logits, axis=2)


def numpy_loglik(model, X, eta, log_w, loadings, intercepts):
    """Marginal log-likelihood: rotated factors ``eta`` at weights ``log_w``."""
    log_P = numpy_log_probabilities(model, eta @ loadings.T, intercepts)
    table = np.tile(log_w, (X.shape[0], 1))
    for j in range(X.shape[1]):
        seen = ~np.isnan(X[:, j])
        table[seen] += log_P[:, j, X[seen, j].astype(int)].T
    return float(logsumexp(table, axis=1).sum())


def fine_grid(corr, per_dim=81, bound=7.0):
    """Rotated factors ``eta ~ N(0, corr)`` on a fine product grid."""
    axis = np.linspace(-bound, bound, per_dim)
    mesh = np.meshgrid(axis, axis, indexing="ij")
    z = np.column_stack([mesh[0].ravel(), mesh[1].ravel()])
    log_w = -0.5 * np.sum(z**2, axis=1)
    return z @ np.linalg.cholesky(corr).T, log_w - logsumexp(log_w)


def intercepts_of(model):
    column = model.thresholds_ if model.model == "GRM" else model.steps_
    return column


def _fit(model, X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=UserWarning)
        return IRT(model=model, n_factors=2, random_state=0, **params).fit(X)


@pytest.fixture(scope="module", params=["GRM", "GPCM"])
def fits(request):
    """One data set per model fitted with every rotation."""
    X, A, d = simulate(request.param, 600, 8, seed=1)
    models = {rotation: _fit(request.param, X, rotation=rotation)
              for rotation in ("oblimin", "varimax", None)}
    return X, models, (A, d)


def test_likelihood_on_the_fit_grid_is_exact(fits):
    """The reported items, on the fit's own nodes and weights, reproduce it."""
    X, models, _ = fits
    model = models["oblimin"]
    eta = model.quadrature_nodes_ @ model.rotation_matrix_
    value = numpy_loglik(model.model, X, eta, np.log(model.quadrature_weights_),
                         model.discrimination_, intercepts_of(model))
    assert model.log_likelihood_ == pytest.approx(value, rel=1e-10)
    n_obs = np.sum(~np.isnan(X))
    assert model.score(X) == pytest.approx(model.log_likelihood_ / n_obs, rel=1e-12)


def test_likelihood_matches_a_fine_grid(fits):
    """The 21 x 21 fit grid integrates as an 81 x 81 one does (to 1e-5)."""
    X, models, _ = fits
    model = models["oblimin"]
    eta, log_w = fine_grid(model.factor_corr_)
    value = numpy_loglik(model.model, X, eta, log_w, model.discrimination_,
                         intercepts_of(model))
    assert model.log_likelihood_ == pytest.approx(value, rel=1e-5)


@pytest.mark.parametrize("rotation", ["varimax", None])
def test_rotations_describe_the_same_model(fits, rotation):
    X, models, _ = fits
    model, other = models["oblimin"], models[rotation]
    assert_rotations_agree(model, other, X)
    np.testing.assert_allclose(intercepts_of(other), intercepts_of(model),
                               atol=1e-12)
    np.testing.assert_allclose(other.agent_scores_, model.agent_scores_,
                               atol=1e-10)


def test_em_is_monotone_and_converges(fits):
    _, models, _ = fits
    trace = models["oblimin"].log_likelihood_trace_
    assert np.all(np.diff(trace) >= -1e-9 * abs(trace[-1]))
    assert trace[-1] == models["oblimin"].log_likelihood_
    assert trace[-1] - trace[-2] <= 1e-7 * 600


def test_tables_transform_and_predictions(fits):
    X, models, _ = fits
    model = models["oblimin"]
    column = "threshold" if model.model == "GRM" else "step"
    tasks = model.task_table()
    assert tasks.columns[:10].tolist() == [
        "discrimination_1", "discrimination_1_se", "discrimination_2",
        "discrimination_2_se", f"{column}_1", f"{column}_1_se", f"{column}_2",
        f"{column}_2_se", f"{column}_3", f"{column}_3_se"]
    se = tasks.filter(like="_se").to_numpy()
    assert np.all(np.isfinite(se) & (se > 0))
    agents = model.agent_table()
    assert {"mean_category", "factor_1", "factor_2", "factor_2_sd"} <= set(agents)
    out = model.transform(X[:7])
    assert out.shape == (7, 6)
    np.testing.assert_allclose(out[:, 0], model.agent_scores_[:7], atol=1e-12)
    np.testing.assert_allclose(out[:, [2, 4]], model.factor_scores_[:7],
                               atol=1e-12)
    criteria = model.information_criteria()
    # per item 2 slopes and 3 intercepts, less the one anchor constraint
    assert criteria["n_parameters"] == 8 * 5 - 1
    proba = model.predict_proba(X[:5])
    assert proba.shape == (5, 8, 4)
    np.testing.assert_allclose(proba.sum(axis=2), 1.0, atol=1e-12)
    # an agent without responses gets the prior: mean 0, sd 1 on every axis
    empty = model.transform(np.full((1, 8), np.nan))
    np.testing.assert_allclose(empty[0], [0, 1, 0, 1, 0, 1], atol=1e-6)


def test_general_ability_orders_agents_by_their_mean_category(fits):
    X, models, _ = fits
    model = models["oblimin"]
    assert np.corrcoef(model.agent_scores_, np.nanmean(X, axis=1))[0, 1] > 0.9


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), model=st.sampled_from(["GRM", "GPCM"]),
       m=st.integers(1, 3), K=st.integers(2, 5))
def test_scores_are_the_derivatives_of_the_log_probabilities(seed, model, m, K):
    """Analytic scores against central differences, one ability or several."""
    rng = np.random.default_rng(seed)
    J = 3
    d = rng.normal(0.0, 1.0, (J, K - 1))
    if model == "GRM":
        d = -np.sort(-d, axis=1)
    params = np.column_stack([rng.normal(0.5, 0.8, (J, m)), d])
    params[0, m + 1:] = -np.inf  # an item with two categories
    points = rng.normal(0.0, 1.5, (6, m))
    nodes = points[:, 0] if m == 1 else points
    g = scores(model, params, nodes)
    valid = np.isfinite(params)
    for p in range(params.shape[1]):
        h = np.where(valid[:, p], 1e-6, 0.0)
        up, down = params.copy(), params.copy()
        up[:, p] += h
        down[:, p] -= h
        with np.errstate(invalid="ignore"):
            diff = (log_probabilities(model, up, nodes)
                    - log_probabilities(model, down, nodes)) / 2e-6
        seen = np.isfinite(diff) & valid[None, :, p, None]
        # relative too: next to a nearly empty GRM category the score is large
        # (1 / its probability) and so is the differences' truncation error
        np.testing.assert_allclose(g[..., p][seen], diff[seen], rtol=1e-5, atol=1e-5)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000), model=st.sampled_from(["GRM", "GPCM"]),
       missing=st.sampled_from([0.0, 0.3]), K=st.integers(2, 5))
def test_em_monotone_on_random_data(seed, model, missing, K):
    """Any responses (not only the model's): EM never lowers the likelihood."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, K, (100, 6)).astype(float)
    X[:, :3] = np.minimum(X[:, :3] + (rng.random((100, 1)) < 0.5), K - 1)
    gone = rng.random(X.shape) < missing
    gone[:, 0] = False  # every agent answers something
    X[gone] = np.nan
    X[0] = 0.0
    X[1] = K - 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT(model=model, n_factors=2, max_iter=25, random_state=0).fit(X)
    trace = model.log_likelihood_trace_
    assert np.all(np.diff(trace) >= -1e-9 * abs(trace[-1]))
    assert np.isfinite(model.log_likelihood_)
    assert np.all(np.abs(model._item_params[np.isfinite(model._item_params)])
                  <= 30.0)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_dense_and_sparse_agree(model):
    """Converged on both stores: the same maximum (likelihoods, predictions)."""
    X, *_ = simulate(model, 250, 6, missing=0.3, seed=4)
    rows, cols = np.nonzero(~np.isnan(X))
    S = sparse.csr_array((X[rows, cols], (rows, cols)), shape=X.shape)
    dense = _fit(model, X, tol=1e-9)
    sparse_fit = _fit(model, S, tol=1e-9)
    assert sparse_fit.log_likelihood_ == pytest.approx(dense.log_likelihood_,
                                                       rel=1e-9)
    np.testing.assert_allclose(sparse_fit.predict_proba(S[:5]),
                               dense.predict_proba(X[:5]), atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_recovery_of_simulated_loadings(model):
    """3,000 agents x 20 items, 4 categories: loadings and intercepts recovered."""
    X, A, d = simulate(model, 3000, 20, seed=2)
    fit = _fit(model, X)
    A_hat = fit._item_params[:, :2]
    U, _, Vt = np.linalg.svd(A_hat.T @ A)
    assert np.sqrt(np.mean((A_hat @ (U @ Vt) - A) ** 2)) < 0.08
    assert np.sqrt(np.mean((intercepts_of(fit) - d) ** 2)) < 0.08
    # the maximum is at least as likely as the generating items
    eta, log_w = fine_grid(np.eye(2))
    truth = numpy_loglik(model, X, eta, log_w, A, d)
    assert fit.log_likelihood_ >= truth - 1e-5 * abs(truth)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_standard_errors_cover_the_spread(model):
    """Louis SEs against the spread of estimates over replications."""
    estimates = []
    for seed in range(6):
        X, *_ = simulate(model, 400, 8, seed=100, response_seed=seed)
        fit = _fit(model, X)
        estimates.append(intercepts_of(fit))
    spread = np.std(estimates, axis=0, ddof=1)
    se = fit.thresholds_se_ if model == "GRM" else fit.steps_se_
    # the same order of magnitude (6 replications: a loose check)
    assert 0.4 < np.median(se / spread) < 2.5
    assert np.all(fit.discrimination_se_ > 0)


@pytest.mark.slow
def test_compare_models_takes_factor_pairs():
    X, *_ = simulate("GRM", 400, 8, corr=0.0, seed=6)
    table = compare_models(X, models=["GRM", ("GRM", 2)], cv=2, random_state=0)
    assert set(table.index) == {"GRM", "GRM (2 factors)"}
    # two clearly separate factors: held-out responses prefer two
    assert table.index[0] == "GRM (2 factors)"


def test_a_category_nobody_uses_is_collapsed():
    X, *_ = simulate("GPCM", 300, 8, seed=8)
    X[X[:, 0] == 1, 0] = 2  # item 0 never answers 1
    with pytest.warns(UserWarning, match="item 0 category 1"):
        model = IRT(model="GPCM", n_factors=2, random_state=0).fit(X)
    assert model.n_categories_[0] == 3
    assert np.isnan(model.steps_[0, 2]) and np.isfinite(model.steps_[0, 1])
    proba = model.predict_proba(X[:3])
    np.testing.assert_allclose(proba[:, 0, 1], 0.0)
    np.testing.assert_allclose(proba[:, 0].sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize(
    ("params", "shape", "match"),
    [
        ({"n_factors": 3}, (200, 6), "not identifiable"),
        ({"n_factors": 2, "n_options": 4}, (200, 8), "asymptotes"),
    ],
)
@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_bad_parameters(model, params, shape, match):
    X, *_ = simulate(model, *shape, seed=7)
    with pytest.raises(ValueError, match=match):
        IRT(model=model, **params).fit(X)


def test_more_parameters_than_responses():
    # 48 responses, every code of every item used; 12 x 5 - 1 parameters
    X = np.array([[0.0, 1.0, 2.0, 3.0] * 3, [3.0, 2.0, 1.0, 0.0] * 3,
                  [1.0, 0.0, 3.0, 2.0] * 3, [2.0, 3.0, 0.0, 1.0] * 3])
    with pytest.raises(ValueError, match="more parameters than data"):
        IRT(model="GRM", n_factors=2).fit(X)
