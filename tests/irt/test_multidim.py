"""IRT(n_factors=m): the exploratory multidimensional 2PL.

Checks the marginal likelihood against an independent numpy computation from
the reported (rotated) items and factor correlations, the rotation
invariance of the model, monotone EM, recovery of simulated loadings (after
an orthogonal Procrustes rotation to the truth, the usual comparison for
exploratory factor models: Reckase, *Multidimensional Item Response Theory*,
2009, ch. 8) and the input rules.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.special import expit, log_expit, logsumexp

from sklearn_eval.irt import IRT, compare_models
from sklearn_eval.irt._multidim import make_factor_grid
from sklearn_eval.irt._rotation import rotate_loadings
from tests.irt.simulate import assert_rotations_agree, simulate_loadings


def simulate(n, J, *, corr=0.3, missing=0.0, seed=0, response_seed=None):
    """Two correlated factors, simple structure plus small cross-loadings.

    ``response_seed`` draws new responses from the items of ``seed``.
    """
    rng = np.random.default_rng(seed)
    lam, phi, A = simulate_loadings(rng, J, corr=corr)
    d = rng.normal(0.0, 1.0, J)
    if response_seed is not None:
        rng = np.random.default_rng(response_seed)
    theta = rng.standard_normal((n, 2))
    X = (rng.random((n, J)) < expit(theta @ A.T + d)).astype(float)
    X[rng.random((n, J)) < missing] = np.nan
    return X, lam, phi, A, d


def numpy_loglik(X, loadings, intercept, corr, per_dim=81, bound=7.0):
    """Marginal log-likelihood with eta ~ N(0, corr) on a fine product grid."""
    axis = np.linspace(-bound, bound, per_dim)
    mesh = np.meshgrid(axis, axis, indexing="ij")
    z = np.column_stack([mesh[0].ravel(), mesh[1].ravel()])
    log_w = -0.5 * np.sum(z**2, axis=1)
    log_w -= logsumexp(log_w)
    eta = z @ np.linalg.cholesky(corr).T
    logits = eta @ loadings.T + intercept
    seen = ~np.isnan(X)
    Y = np.where(seen, X, 0.0)
    table = Y @ log_expit(logits).T + (seen & (Y == 0)) @ log_expit(-logits).T
    return float(logsumexp(table + log_w, axis=1).sum())


@pytest.fixture(scope="module")
def fits():
    """One data set fitted with every rotation."""
    X, lam, phi, A, d = simulate(1000, 10, seed=1)
    models = {rotation: IRT(n_factors=2, rotation=rotation, random_state=0).fit(X)
              for rotation in ("oblimin", "varimax", None)}
    return X, models, (lam, phi, A, d)


@pytest.fixture(scope="module")
def fitted(fits):
    X, models, truth = fits
    return X, models["oblimin"], truth


def test_likelihood_matches_independent_computation(fitted):
    X, model, _ = fitted
    ours = numpy_loglik(X, model.discrimination_, model.intercept_,
                        model.factor_corr_)
    # the fit integrates on a 21 x 21 grid: agrees with 81 x 81 to 1e-5
    assert model.log_likelihood_ == pytest.approx(ours, rel=1e-5)
    n_obs = np.sum(~np.isnan(X))
    assert model.score(X) == pytest.approx(model.log_likelihood_ / n_obs, rel=1e-12)


def test_likelihood_on_the_fit_grid_is_exact(fitted):
    """On the fit's own nodes and weights, the reported items reproduce it."""
    X, model, _ = fitted
    eta = model.quadrature_nodes_ @ model.rotation_matrix_
    logits = eta @ model.discrimination_.T + model.intercept_
    table = X @ log_expit(logits).T + (1 - X) @ log_expit(-logits).T
    value = logsumexp(table + np.log(model.quadrature_weights_), axis=1).sum()
    assert model.log_likelihood_ == pytest.approx(value, rel=1e-10)


@pytest.mark.parametrize("rotation", ["varimax", None])
def test_rotations_describe_the_same_model(fits, rotation):
    X, models, _ = fits
    model, other = models["oblimin"], models[rotation]
    assert_rotations_agree(model, other, X)
    assert numpy_loglik(X, other.discrimination_, other.intercept_,
                        other.factor_corr_) == pytest.approx(
        model.log_likelihood_, rel=1e-5)


def test_general_ability_does_not_depend_on_the_rotation(fits):
    X, models, _ = fits
    model, other = models["oblimin"], models["varimax"]
    np.testing.assert_allclose(other.agent_scores_, model.agent_scores_, atol=1e-10)
    # a general ability: it orders the agents as their success rates nearly do
    rate = np.nanmean(X, axis=1)
    assert np.corrcoef(model.agent_scores_, rate)[0, 1] > 0.9


def test_rotation_recovers_simple_structure(fitted):
    _, model, (lam, phi, _, _) = fitted
    # oblimin finds the generating simple structure (up to sampling error)
    rmse = np.sqrt(np.mean((model.discrimination_ - lam) ** 2))
    assert rmse < 0.2
    assert abs(model.factor_corr_[0, 1] - phi[0, 1]) < 0.15


def test_rotation_unit_exact_structure():
    """With exact simple structure, oblimin returns it and its correlation."""
    rng = np.random.default_rng(3)
    lam = np.zeros((10, 2))
    lam[:5, 0] = rng.uniform(1, 2, 5)
    lam[5:, 1] = rng.uniform(1, 2, 5)
    phi = np.array([[1.0, 0.5], [0.5, 1.0]])
    A = lam @ np.linalg.cholesky(phi)
    A = A @ np.linalg.qr(rng.standard_normal((2, 2)))[0]  # any orientation
    T = rotate_loadings(A, "oblimin")
    order = np.argsort(-np.sum(lam**2, axis=0))  # factors by decreasing size
    np.testing.assert_allclose(A @ np.linalg.inv(T).T, lam[:, order], atol=1e-5)
    np.testing.assert_allclose(T.T @ T, phi, atol=1e-5)


def test_em_is_monotone_and_converges(fitted):
    _, model, _ = fitted
    trace = model.log_likelihood_trace_
    assert np.all(np.diff(trace) >= -1e-9 * abs(trace[-1]))
    assert model.n_iter_ < model.max_iter
    assert trace[-1] == pytest.approx(model.log_likelihood_, rel=1e-12)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), missing=st.sampled_from([0.0, 0.2]),
       J=st.integers(7, 10))
def test_em_monotone_on_random_data(seed, missing, J):
    X, *_ = simulate(150, J, missing=missing, seed=seed)
    X = X[~np.isnan(X).all(axis=1)]  # an agent without a response is refused
    keep = np.nanstd(X, axis=0) > 0
    if keep.sum() < 7:
        return
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = IRT(n_factors=2, max_iter=60, random_state=0).fit(X)
    trace = model.log_likelihood_trace_
    assert np.all(np.diff(trace) >= -1e-9 * abs(trace[-1]))
    assert np.all(np.isfinite(model.discrimination_[keep]))
    assert np.isfinite(model.log_likelihood_)


def test_dense_and_sparse_agree():
    X, *_ = simulate(300, 8, missing=0.3, seed=4)
    seen = ~np.isnan(X)
    rows, cols = np.nonzero(seen)
    S = sparse.csr_array((X[rows, cols], (rows, cols)), shape=X.shape)
    dense = IRT(n_factors=2, algorithm="dense", random_state=0).fit(X)
    sparse_fit = IRT(n_factors=2, algorithm="sparse", random_state=0).fit(S)
    assert sparse_fit.log_likelihood_ == pytest.approx(dense.log_likelihood_,
                                                       rel=1e-6)
    np.testing.assert_allclose(sparse_fit.predict_proba(S[:5]),
                               dense.predict_proba(X[:5]), atol=1e-4)


@pytest.mark.slow
def test_recovery_of_simulated_loadings():
    """Loadings and intercepts of 5,000 agents x 20 items within sampling error."""
    X, _, _, A, d = simulate(5000, 20, seed=2)
    model = IRT(n_factors=2, random_state=0).fit(X)
    A_hat = model._item_params[:, :2]
    U, _, Vt = np.linalg.svd(A_hat.T @ A)
    assert np.sqrt(np.mean((A_hat @ (U @ Vt) - A) ** 2)) < 0.08
    assert np.sqrt(np.mean((model.intercept_ - d) ** 2)) < 0.06
    # the maximum is at least as likely as the generating items
    truth = numpy_loglik(X, A, d, np.eye(2))
    assert model.log_likelihood_ >= truth - 1e-5 * abs(truth)


@pytest.mark.slow
def test_standard_errors_cover_the_spread():
    """Louis SEs against the spread of estimates over replications."""
    estimates = []
    for seed in range(6):
        X, *_ = simulate(400, 8, seed=100, response_seed=seed)
        model = IRT(n_factors=2, random_state=0).fit(X)
        estimates.append(model.intercept_)
    spread = np.std(estimates, axis=0, ddof=1)
    # the same order of magnitude (6 replications: a loose check)
    ratio = np.median(model.intercept_se_ / spread)
    assert 0.4 < ratio < 2.5
    assert np.all(model.discrimination_se_ > 0)


def test_tables_and_transform(fitted):
    X, model, _ = fitted
    tasks = model.task_table()
    assert tasks.columns[:6].tolist() == [
        "discrimination_1", "discrimination_1_se", "discrimination_2",
        "discrimination_2_se", "intercept", "intercept_se"]
    agents = model.agent_table()
    assert {"factor_1", "factor_2", "factor_1_sd", "score_se"} <= set(agents)
    out = model.transform(X[:7])
    assert out.shape == (7, 6)
    assert model.get_feature_names_out().tolist() == [
        "ability", "ability_sd", "factor_1", "factor_1_sd", "factor_2",
        "factor_2_sd"]
    np.testing.assert_allclose(out[:, 0], model.agent_scores_[:7], atol=1e-12)
    np.testing.assert_allclose(out[:, 2], model.factor_scores_[:7, 0], atol=1e-12)
    criteria = model.information_criteria()
    assert criteria["n_parameters"] == 10 * 3 - 1
    proba = model.predict_proba(X[:3])
    assert proba.shape == (3, 10) and np.all((proba > 0) & (proba < 1))


def test_agent_without_responses_gets_the_prior(fitted):
    X, model, _ = fitted
    empty = np.full((1, X.shape[1]), np.nan)
    out = model.transform(empty)
    np.testing.assert_allclose(out[0, [0, 1]], [0.0, 1.0], atol=1e-6)
    # a rotated factor's prior sd is its own: 1 (unit-variance factors)
    np.testing.assert_allclose(out[0, [3, 5]], [1.0, 1.0], atol=1e-6)


@pytest.mark.slow
def test_sobol_grid_is_seeded_and_agrees():
    X, *_ = simulate(300, 8, seed=5)
    a = IRT(n_factors=2, quadrature="sobol", n_quadrature=1024, random_state=3).fit(X)
    b = IRT(n_factors=2, quadrature="sobol", n_quadrature=1024, random_state=3).fit(X)
    assert a.log_likelihood_ == b.log_likelihood_
    product = IRT(n_factors=2, random_state=0).fit(X)
    assert a.log_likelihood_ == pytest.approx(product.log_likelihood_, rel=2e-3)
    grid = make_factor_grid("sobol", 3, 1000, rng=0)
    assert grid.points.shape == (1024, 3)
    assert np.exp(grid.log_weights).sum() == pytest.approx(1.0)


def test_three_factors_product_grid():
    grid = make_factor_grid("rectangular", 3)
    weights = np.exp(grid.log_weights)
    # a rule for N(0, I): unit second moments, no cross moments
    np.testing.assert_allclose(grid.points.T @ (weights[:, None] * grid.points),
                               np.eye(3), atol=1e-6)
    with pytest.raises(ValueError, match="sobol"):
        make_factor_grid("rectangular", 8, 9)


@pytest.mark.slow
def test_compare_models_takes_factor_pairs():
    X, *_ = simulate(300, 8, corr=0.0, seed=6)
    table = compare_models(X, models=["2PL", ("2PL", 2)], cv=2, random_state=0)
    assert set(table.index) == {"2PL", "2PL (2 factors)"}
    # two clearly separate factors: held-out responses prefer two
    assert table.index[0] == "2PL (2 factors)"
    with pytest.raises(ValueError, match="n_factors"):
        compare_models(X, models=[("2PL", "two")], cv=2)


@pytest.mark.parametrize(
    ("params", "shape", "match"),
    [
        ({"n_factors": 3}, (200, 6), "not identifiable"),
        ({"n_factors": 2, "model": "3PL"}, (200, 8), "model='2PL'"),
        ({"n_factors": 2, "n_options": 4}, (200, 8), "asymptotes"),
        ({"quadrature": "sobol"}, (200, 8), "n_factors > 1"),
    ],
)
def test_bad_parameters(params, shape, match):
    X, *_ = simulate(*shape, seed=7)
    with pytest.raises(ValueError, match=match):
        IRT(**params).fit(X)


def test_more_parameters_than_responses():
    X = np.array([[1.0] * 10, [0.0] * 10])  # 20 responses, 29 parameters
    with pytest.raises(ValueError, match="more parameters than data"):
        IRT(n_factors=2).fit(X)


def test_item_targets_are_refused_for_several_factors():
    with pytest.raises(ValueError, match="one ability"):
        IRT(n_factors=2).__sklearn_eval_intervals__("difficulty")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_separating_items_stop_at_the_cap_with_a_warning():
    """Deterministic responses: no finite maximum, a documented cap and a warning."""
    rng = np.random.default_rng(9)
    theta = rng.standard_normal((40, 2))
    A = rng.normal(0.0, 1.0, (8, 2))
    X = (theta @ A.T + rng.normal(0.0, 0.5, 8) > 0).astype(float)
    with pytest.warns(UserWarning, match="nearly separate"):
        model = IRT(n_factors=2, max_iter=40, random_state=0).fit(X)
    keep = ~model.task_table()["left_out"].to_numpy()
    assert np.all(np.abs(model._item_params) <= 30.0)
    assert np.all(np.isfinite(model.discrimination_[keep]))
    assert np.isfinite(model.log_likelihood_)


@pytest.mark.parametrize("seed", range(4))
def test_principal_slopes_are_those_of_the_svd(seed):
    """The start's components (exact eigenvectors of ``Z^T Z``, a sum over the
    agents) are the right singular vectors of ``Z`` (numpy's SVD), signed by
    their largest entry; the slopes follow the documented formula."""
    from sklearn_eval.irt._multidim import principal_slopes

    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((150, 9)) @ rng.standard_normal((9, 9))
    Z[rng.random(Z.shape) < 0.3] = 0.0
    n = rng.integers(50, 150, 9).astype(float)
    slopes, unique = principal_slopes(sparse.csr_array(Z), n, 2)
    _, S, Vt = np.linalg.svd(Z, full_matrices=False)
    V = Vt[:2].T * np.sign(Vt[:2].T[np.argmax(np.abs(Vt[:2].T), axis=0), [0, 1]])
    lam = V * S[:2] / np.sqrt(n.mean())
    h2 = np.sum(lam**2, axis=1)
    lam *= np.sqrt(np.minimum(1.0, 0.8 / h2))[:, None]
    expected_unique = np.sqrt(1.0 - np.sum(lam**2, axis=1))
    np.testing.assert_allclose(unique, expected_unique, rtol=1e-10)
    np.testing.assert_allclose(slopes, 1.702 * lam / expected_unique[:, None],
                               rtol=1e-9, atol=1e-12)
