"""Ordered-category item response models: GRM and GPCM.

References: Samejima (1969), Estimation of latent ability using a response
pattern of graded scores, Psychometrika Monograph 17; Muraki (1992), A
generalized partial credit model, Applied Psychological Measurement 16;
Louis (1982), JRSS B 44. The likelihoods here are computed independently of
the package (category probabilities from the reported thresholds/steps,
Gauss-Hermite quadrature).
"""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.polynomial.hermite_e import hermegauss
from scipy import sparse
from scipy.special import expit, log_softmax, logsumexp

from sklearn_eval.irt import IRT, compare_models
from sklearn_eval.irt._graded import log_probabilities, scores

MODELS = ["GRM", "GPCM"]


def category_probabilities(model, a, b, theta):
    """(len(theta), J, K) probabilities from discrimination and thresholds/steps.

    NaN thresholds (an item with fewer categories) give probability 0.
    """
    b = np.asarray(b, dtype=float)
    z = a[None, :, None] * (theta[:, None, None] - b[None])
    if model == "GRM":
        star = np.where(np.isnan(z), 0.0, expit(z))
        ones = np.ones(star.shape[:2] + (1,))
        upper = np.concatenate([ones, star], axis=2)
        lower = np.concatenate([star, 0.0 * ones], axis=2)
        return upper - lower
    cumulative = np.concatenate([np.zeros(z.shape[:2] + (1,)),
                                 np.cumsum(z, axis=2)], axis=2)
    cumulative = np.where(np.isnan(cumulative), -np.inf, cumulative)
    return np.exp(log_softmax(cumulative, axis=2))


def simulate(model, n, J, K, seed, missing=0.0):
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.2, 0.3, J)
    b = rng.normal(0.0, 1.0, (J, K - 1))
    if model == "GRM":
        b = np.sort(b, axis=1)
    theta = rng.normal(size=n)
    P = category_probabilities(model, a, b, theta)
    X = (rng.random((n, J, 1)) > np.cumsum(P, axis=2)[..., :-1]).sum(axis=2)
    X = X.astype(float)
    X[rng.random((n, J)) < missing] = np.nan
    return X, a, b


def marginal_loglik(model, X, a, b, nodes, log_w):
    """Sum over agents of log sum_q w_q prod_j P_j(X_ij | node q)."""
    log_P = np.log(np.maximum(category_probabilities(model, a, b, nodes), 1e-300))
    table = np.tile(log_w, (X.shape[0], 1))
    for j in range(X.shape[1]):
        seen = ~np.isnan(X[:, j])
        table[seen] += log_P[:, j, X[seen, j].astype(int)].T
    return float(logsumexp(table, axis=1).sum())


def gauss_hermite(n_nodes=151):
    nodes, weights = hermegauss(n_nodes)
    return nodes, np.log(weights / weights.sum())


def recoded(fitted, X):
    """``X`` in the fitted items' categories (unobserved ones collapsed)."""
    out = X.copy()
    for j, codes in enumerate(fitted.categories_):
        seen = ~np.isnan(X[:, j])
        out[seen, j] = np.searchsorted(codes, X[seen, j])
    return out


def item_b(model, fitted):
    return fitted.thresholds_ if model == "GRM" else fitted.steps_


def fit(model, X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IRT(model=model, **params).fit(X)


@pytest.mark.parametrize("model", MODELS)
def test_log_likelihood_matches_an_independent_gauss_hermite_computation(model):
    X, _, _ = simulate(model, 500, 8, 4, seed=1, missing=0.1)
    fitted = fit(model, X)
    reference = marginal_loglik(model, recoded(fitted, X), fitted.discrimination_,
                                item_b(model, fitted), *gauss_hermite())
    assert fitted.log_likelihood_ == pytest.approx(reference, rel=1e-8)
    # score: the same likelihood per observed response
    assert fitted.score(X) == pytest.approx(reference / np.sum(~np.isnan(X)),
                                            rel=1e-8)


@pytest.mark.parametrize("model", MODELS)
def test_em_never_lowers_the_likelihood(model):
    X, _, _ = simulate(model, 300, 6, 4, seed=2, missing=0.2)
    logliks = [fit(model, X, max_iter=k).log_likelihood_ for k in range(1, 12)]
    assert np.all(np.diff(logliks) >= -1e-9 * abs(logliks[0]))
    assert logliks[-1] > logliks[0]


@pytest.mark.parametrize("model", MODELS)
def test_two_categories_are_the_2pl(model):
    """With K = 2 both models reduce to the 2PL (Samejima 1969; Muraki 1992)."""
    X, _, _ = simulate(model, 400, 8, 2, seed=3, missing=0.1)
    graded = fit(model, X, tol=1e-10)
    binary = fit("2PL", X, tol=1e-10)
    assert graded.log_likelihood_ == pytest.approx(binary.log_likelihood_, rel=1e-8)
    np.testing.assert_allclose(graded.discrimination_, binary.discrimination_,
                               rtol=1e-4)
    np.testing.assert_allclose(item_b(model, graded)[:, 0], binary.difficulty_,
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(graded.predict_proba(X)[:, :, 1],
                               binary.predict_proba(X), atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_recovers_the_simulated_items(model):
    X, a, b = simulate(model, 3000, 15, 4, seed=4, missing=0.1)
    fitted = fit(model, X)
    a_error = np.sqrt(np.mean((fitted.discrimination_ - a) ** 2))
    b_error = np.sqrt(np.mean((item_b(model, fitted) - b) ** 2))
    assert a_error < 0.1
    assert b_error < 0.15
    # the truth is within a few standard errors (SEs are calibrated)
    z = (fitted.discrimination_ - a) / fitted.discrimination_se_
    assert np.mean(np.abs(z) < 2.5) > 0.85
    # the estimate's likelihood is at least the truth's
    nodes, log_w = gauss_hermite()
    assert (marginal_loglik(model, X, fitted.discrimination_, item_b(model, fitted),
                            nodes, log_w)
            >= marginal_loglik(model, X, a, b, nodes, log_w))


@pytest.mark.parametrize("model", MODELS)
def test_sparse_input_and_storage_agree_with_dense(model):
    X, _, _ = simulate(model, 300, 6, 4, seed=5, missing=0.3)
    rows, cols = np.nonzero(~np.isnan(X))
    csr = sparse.csr_array((X[rows, cols], (rows, cols)), shape=X.shape)
    dense = fit(model, X, algorithm="dense")
    for other in (fit(model, csr), fit(model, X, algorithm="sparse"),
                  fit(model, csr, algorithm="dense")):
        assert other.log_likelihood_ == pytest.approx(dense.log_likelihood_,
                                                      rel=1e-10)
        np.testing.assert_allclose(other.discrimination_, dense.discrimination_,
                                   rtol=1e-7)
        np.testing.assert_allclose(item_b(model, other), item_b(model, dense),
                                   rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(other.abilities_, dense.abilities_, atol=1e-9)
    np.testing.assert_allclose(dense.predict_proba(csr), dense.predict_proba(X),
                               atol=1e-12)


@pytest.mark.parametrize("model", MODELS)
def test_standard_errors_match_the_numerical_hessian(model):
    """Louis' information of an item equals minus the Hessian of the marginal
    log-likelihood in that item's parameters (the others held fixed)."""
    X, _, _ = simulate(model, 400, 5, 3, seed=6, missing=0.1)
    fitted = fit(model, X, tol=1e-11)
    nodes = fitted.quadrature_nodes_
    log_w = np.log(fitted.quadrature_weights_)
    a, b = fitted.discrimination_.copy(), item_b(model, fitted).copy()
    for j in range(2):
        theta0 = np.concatenate([[a[j]], b[j]])

        def loglik(theta, j=j):
            a2, b2 = a.copy(), b.copy()
            a2[j], b2[j] = theta[0], theta[1:]
            return marginal_loglik(model, recoded(fitted, X), a2, b2, nodes, log_w)

        p = theta0.size
        hessian = np.empty((p, p))
        h = 1e-4
        for u in range(p):
            for v in range(p):
                e_u, e_v = np.eye(p)[u] * h, np.eye(p)[v] * h
                hessian[u, v] = (loglik(theta0 + e_u + e_v) - loglik(theta0 + e_u - e_v)
                                 - loglik(theta0 - e_u + e_v)
                                 + loglik(theta0 - e_u - e_v)) / (4 * h * h)
        se = np.sqrt(np.diag(np.linalg.inv(-hessian)))
        reported = np.concatenate([[fitted.discrimination_se_[j]],
                                   getattr(fitted, ("thresholds_se_" if model == "GRM"
                                                    else "steps_se_"))[j]])
        np.testing.assert_allclose(reported, se, rtol=2e-3)


@pytest.mark.parametrize("model", MODELS)
def test_predict_proba_gives_category_probabilities(model):
    X, _, _ = simulate(model, 300, 5, 4, seed=7, missing=0.1)
    X[:, 0] = np.minimum(X[:, 0], 1.0)  # item 0 has two categories
    X[-1] = np.nan  # an agent without responses: the marginal probabilities
    with pytest.raises(ValueError, match="no observed response"):
        IRT(model=model).fit(X)
    fitted = fit(model, X[:-1])
    proba = fitted.predict_proba(X)
    assert proba.shape == (300, 5, 4)
    assert np.all(np.isnan(proba[:, 0, 2:]))
    np.testing.assert_allclose(np.nansum(proba, axis=2), 1.0, atol=1e-12)
    nodes = fitted.quadrature_nodes_
    marginal = np.einsum("q,qjk->jk", fitted.quadrature_weights_,
                         category_probabilities(model, fitted.discrimination_,
                                                item_b(model, fitted), nodes))
    np.testing.assert_allclose(np.nan_to_num(proba[-1]), marginal, atol=1e-12)
    # an agent who answered gets more mass on categories near its answers
    assert fitted.transform(X).shape == (300, 2)


def test_task_table_names_the_model_parameters():
    X, _, _ = simulate("GRM", 200, 4, 3, seed=8)
    grm = fit("GRM", X).task_table()
    gpcm = fit("GPCM", X).task_table()
    for table, name in ((grm, "threshold"), (gpcm, "step")):
        assert {"discrimination", "discrimination_se", f"{name}_1", f"{name}_2",
                f"{name}_1_se", f"{name}_2_se", "difficulty",
                "n_categories"} <= set(table.columns)
    # GRM thresholds are ordered
    assert np.all(np.diff(grm[["threshold_1", "threshold_2"]].to_numpy()) > 0)


@pytest.mark.parametrize("bad, message", [
    (1.5, r"item 'q2' \(column 2\) has 1.5 at row 3"),
    (-1.0, r"item 'q2' \(column 2\) has -1 at row 3"),
])
@pytest.mark.parametrize("model", MODELS)
def test_non_category_values_are_refused_naming_item_and_value(model, bad, message):
    import pandas as pd

    X, _, _ = simulate(model, 50, 4, 3, seed=9)
    X[3, 2] = bad
    frame = pd.DataFrame(X, columns=["q0", "q1", "q2", "q3"])
    with pytest.raises(ValueError, match=message):
        IRT(model=model).fit(frame)


@pytest.mark.parametrize("model", MODELS)
def test_unobserved_category_is_collapsed_with_a_warning(model):
    X, _, _ = simulate(model, 300, 5, 3, seed=10)
    recoded = X.copy()
    X[X[:, 1] == 2, 1] = 3  # item 1 never uses category 2
    with pytest.warns(UserWarning, match="item 1 category 2"):
        gapped = IRT(model=model).fit(X)
    assert gapped.log_likelihood_ == pytest.approx(fit(model, recoded).log_likelihood_,
                                                   rel=1e-9)
    proba = gapped.predict_proba(X)
    assert proba.shape[2] == 4 and np.all(proba[:, 1, 2] == 0)
    assert np.all(np.isnan(proba[:, 0, 3]))
    X[0, 1] = 2  # a category the item never had in fit
    with pytest.raises(ValueError, match="item 1 has category 2,"):
        gapped.score(X)


@pytest.mark.parametrize("model", MODELS)
def test_an_item_in_one_category_is_left_out_with_a_warning(model):
    X, _, _ = simulate(model, 200, 5, 3, seed=11)
    X[:, 4] = 2.0
    with pytest.warns(UserWarning, match="one category only"):
        fitted = IRT(model=model).fit(X)
    table = fitted.task_table()
    assert table["left_out"].tolist() == [False] * 4 + [True]
    assert np.isnan(fitted.discrimination_[4])
    # its responses carry no information: the same fit without the item
    assert fitted.log_likelihood_ == pytest.approx(
        fit(model, X[:, :4]).log_likelihood_, rel=1e-12)
    X[:, :3] = 1.0
    with pytest.raises(ValueError, match="at least 2 items"):
        fit(model, X)


@pytest.mark.parametrize("model", MODELS)
def test_asymptote_priors_are_refused(model):
    X, _, _ = simulate(model, 50, 4, 3, seed=12)
    with pytest.raises(ValueError, match="no asymptotes"):
        IRT(model=model, n_options=4).fit(X)


@pytest.mark.parametrize("model", MODELS)
def test_information_criteria_count_one_parameter_per_category(model):
    X, _, _ = simulate(model, 200, 5, 4, seed=13)
    X[:, 0] = np.minimum(X[:, 0], 2)
    criteria = fit(model, X).information_criteria()
    assert criteria["n_parameters"] == 3 + 4 * 4
    assert criteria["aic"] == pytest.approx(-2 * criteria["log_likelihood"]
                                            + 2 * criteria["n_parameters"])


@pytest.mark.slow
def test_compare_models_prefers_the_generating_model():
    for truth, other in (("GRM", "GPCM"), ("GPCM", "GRM")):
        X, _, _ = simulate(truth, 1500, 10, 4, seed=14, missing=0.1)
        table = compare_models(X, models=[other, truth], cv=3, random_state=0)
        assert table.index[0] == truth
        assert np.all(np.isfinite(table["heldout_loglik_per_response"]))
        assert table.loc[truth, "log_likelihood"] == pytest.approx(
            fit(truth, X).log_likelihood_)


def test_compare_models_runs_on_graded_data():
    X, _, _ = simulate("GRM", 200, 5, 4, seed=15, missing=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models(X, models=["GRM", "GPCM"], cv=3, random_state=0)
    assert set(table.index) == {"GRM", "GPCM"}
    assert np.all(table["heldout_loglik_per_response"].between(-np.log(4) - 1, 0))
    assert np.all(table["n_heldout"] > 0.9 * np.sum(~np.isnan(X)))


@st.composite
def items(draw):
    n_items = draw(st.integers(1, 4))
    n_max = draw(st.integers(2, 6))
    params = np.full((n_items, n_max), -np.inf)
    for j in range(n_items):
        K = draw(st.integers(2, n_max))
        params[j, 0] = draw(st.floats(-3, 3).filter(lambda a: abs(a) > 0.05))
        d = draw(st.lists(st.floats(-6, 6), min_size=K - 1, max_size=K - 1,
                          unique=True))
        d = np.sort(d)[::-1]
        assume(np.all(np.diff(d) < -1e-3))  # finite differences stay ordered
        params[j, 1:K] = d
    return params


@settings(max_examples=40, deadline=None)
@given(items(), st.sampled_from(MODELS))
def test_category_probabilities_and_scores(params, model):
    """Probabilities sum to 1 over an item's categories; the analytic scores
    equal central differences of the log probabilities."""
    nodes = np.linspace(-4, 4, 9)
    log_p = log_probabilities(model, params, nodes)
    valid = np.isfinite(params)
    valid[:, 0] = True
    np.testing.assert_allclose(np.exp(log_p).sum(axis=2), 1.0, atol=1e-12)
    assert np.all(np.isneginf(log_p[:, ~valid]))
    g = scores(model, params, nodes)
    for p in range(params.shape[1]):
        h = 1e-6
        shift = np.zeros_like(params)
        shift[:, p] = np.where(valid[:, p], h, 0.0)
        up = log_probabilities(model, params + shift, nodes)
        down = log_probabilities(model, params - shift, nodes)
        with np.errstate(invalid="ignore"):
            numeric = np.where(valid[None], (up - down) / (2 * h), 0.0)
        usable = np.exp(log_p) > 1e-8  # away from underflow
        np.testing.assert_allclose(np.where(usable, g[..., p], 0.0),
                                   np.where(usable, numeric, 0.0),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("model", MODELS)
def test_blocks_and_threads_do_not_change_the_fit(model):
    X, _, _ = simulate(model, 300, 6, 4, seed=16, missing=0.2)
    serial = fit(model, X)
    blocked = fit(model, X, chunk_size=40, n_jobs=2)
    assert blocked.log_likelihood_ == pytest.approx(serial.log_likelihood_, rel=1e-12)
    np.testing.assert_allclose(blocked.discrimination_se_, serial.discrimination_se_,
                               rtol=1e-9)
    np.testing.assert_allclose(blocked.transform(X), serial.transform(X), atol=1e-12)


def test_default_grid_is_coarse_only_for_short_tests():
    """61 rectangular nodes where posteriors are wide, 121 where agents answer
    many category boundaries; the coarse grid loses no likelihood."""
    short, _, _ = simulate("GPCM", 400, 10, 4, seed=17)
    coarse = fit("GPCM", short)
    assert coarse.quadrature_nodes_.size == 61
    fine = fit("GPCM", short, n_quadrature=121)
    assert coarse.log_likelihood_ == pytest.approx(fine.log_likelihood_, rel=1e-7)
    long, _, _ = simulate("GRM", 60, 60, 4, seed=18)
    assert fit("GRM", long, max_iter=2).quadrature_nodes_.size == 121
