"""Expected scores, Fisher information and response likelihoods of graded and
continuous IRT models (the curves adaptive testing and subset scoring read).

Checked against formulas written out here from the models' definitions
(Samejima 1969 for the GRM, Muraki 1992 for the GPCM, Beta-IRT of Chen et al.
2019, the logit-normal model) and against finite differences; the Fisher
information of the continuous models against numerical integration of the
squared score of theta over the response density.
"""

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import integrate, stats
from scipy.special import betaln, expit, log_expit, logit

from sklearn_eval.irt import IRT
from sklearn_eval.irt._curves_scored import scored_information
from tests.irt.simulate import simulate_graded, simulate_scores

THETA = np.linspace(-3.0, 3.0, 13)


def _fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IRT(model=model).fit(X)


@pytest.fixture(scope="module")
def fitted():
    return {"GRM": _fit("GRM", simulate_graded(300, 8)),
            "GPCM": _fit("GPCM", simulate_graded(300, 8, seed=1)),
            "beta": _fit("beta", simulate_scores(300, 8)),
            "logit-normal": _fit("logit-normal", simulate_scores(300, 8, seed=1))}


# ------------------------------------------------ independent formulas
def _category_probabilities(model, irt, theta):
    """P(x = k | theta) per (theta, item, k) from the reported parameters."""
    a = irt.discrimination_
    b = irt.thresholds_ if model == "GRM" else irt.steps_
    J, K = b.shape[0], b.shape[1] + 1
    out = np.zeros((theta.size, J, K))
    for j in range(J):
        bj = b[j][np.isfinite(b[j])]
        if model == "GRM":
            above = np.column_stack([np.ones(theta.size), expit(
                a[j] * (theta[:, None] - bj)), np.zeros(theta.size)])
            out[:, j, :bj.size + 1] = above[:, :-1] - above[:, 1:]
        else:
            steps = np.cumsum(a[j] * (theta[:, None] - bj), axis=1)
            logits = np.column_stack([np.zeros(theta.size), steps])
            out[:, j, :bj.size + 1] = np.exp(logits - logits.max(1, keepdims=True))
            out[:, j] /= out[:, j].sum(axis=1, keepdims=True)
    return out


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_graded_expected_score_and_variance(fitted, model):
    irt = fitted[model]
    P = _category_probabilities(model, irt, THETA)
    top = np.array([c[-1] for c in irt.categories_], dtype=float)
    codes = np.zeros(P.shape[1:])
    for j, c in enumerate(irt.categories_):
        codes[j, :c.size] = c / top[j]
    mean, variance = irt.expected_score(THETA, return_variance=True)
    expected = (P * codes).sum(axis=2)
    assert_allclose(mean, expected, atol=1e-10)
    assert_allclose(variance, (P * codes**2).sum(axis=2) - expected**2, atol=1e-10)
    assert np.all((mean >= 0) & (mean <= 1))
    # increasing in theta for positive discriminations
    assert np.all(np.diff(irt.expected_score(np.linspace(-4, 4, 41)), axis=0) > 0)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_graded_information_is_the_finite_difference_formula(fitted, model):
    irt = fitted[model]
    h = 1e-5
    dP = (_category_probabilities(model, irt, THETA + h)
          - _category_probabilities(model, irt, THETA - h)) / (2 * h)
    P = _category_probabilities(model, irt, THETA)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(P > 0, dP**2 / P, 0.0).sum(axis=2)
    assert_allclose(irt.item_information(THETA), expected, rtol=1e-6, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["GRM", "GPCM"]))
def test_graded_information_equals_the_variance_of_the_score_of_theta(seed, model):
    # Fisher information = Var(d log P(X | theta) / d theta) for any item
    rng = np.random.default_rng(seed)
    J, K = 5, 5
    a = rng.uniform(0.3, 3.0, J)
    d = -np.sort(rng.normal(scale=2.0, size=(J, K - 1)), axis=1)
    if model == "GPCM":
        d = rng.normal(scale=2.0, size=(J, K - 1))
    n_cat = rng.integers(2, K + 1, J)
    d[np.arange(K - 1)[None, :] >= (n_cat - 1)[:, None]] = -np.inf
    params = np.column_stack([a, d])
    theta = rng.uniform(-4, 4, 7)
    from sklearn_eval.irt._graded import log_probabilities

    h = 1e-5
    with np.errstate(invalid="ignore"):  # -inf - -inf for absent categories
        slope = (log_probabilities(model, params, theta + h)
                 - log_probabilities(model, params, theta - h)) / (2 * h)
    P = np.exp(log_probabilities(model, params, theta))
    with np.errstate(invalid="ignore"):
        expected = np.where(P > 0, P * slope**2, 0.0).sum(axis=2)
    assert_allclose(scored_information(model, params, theta), expected,
                    rtol=1e-5, atol=1e-10)


def _beta_information(a, d, phi, theta):
    """Var of d log Beta(x; phi mu, phi (1 - mu)) / d theta, by quadrature.

    The score is ``phi mu' (t - E t)`` with ``t = logit(x)``; integrated over
    ``t``, where the density has no singularity. Each half-line is
    integrated to infinity (quad maps it onto a finite interval): with
    ``q = phi (1 - mu)`` near 0 the right tail decays as ``exp(-q t)`` over
    thousands of units, which a finite interval cut at ``60 / q`` missed.
    """
    mu = expit(a * theta + d)
    dmu = a * mu * (1 - mu)
    p, q = phi * mu, phi * (1 - mu)

    def density(t):  # of t = logit(x), x ~ Beta(p, q)
        return np.exp(p * log_expit(t) + q * log_expit(-t) - betaln(p, q))

    def expectation(f):
        return sum(integrate.quad(lambda t: density(t) * f(t), low, high,
                                  limit=400)[0]
                   for low, high in ((-np.inf, 0.0), (0.0, np.inf)))

    mean = expectation(lambda t: t)
    return expectation(lambda t: (phi * dmu * (t - mean)) ** 2)


@settings(max_examples=10, deadline=None)
@given(st.floats(0.3, 3.0), st.floats(-2.0, 2.0), st.floats(2.0, 60.0),
       st.floats(-2.5, 2.5))
@example(2.0, 2.0, 2.0, 2.0)  # q = 0.005: a right tail 12,000 units long
def test_beta_information_is_the_variance_of_the_score(a, d, phi, theta):
    params = np.array([[a, d, np.log(phi)]])
    got = scored_information("beta", params, np.array([theta]))[0, 0]
    assert got == pytest.approx(_beta_information(a, d, phi, theta), rel=1e-5)


@settings(max_examples=10, deadline=None)
@given(st.floats(0.3, 3.0), st.floats(-2.0, 2.0), st.floats(0.2, 2.0),
       st.floats(-2.5, 2.5))
def test_logit_normal_information_is_the_variance_of_the_score(a, d, sigma, theta):
    eta = a * theta + d
    # score of theta: a (z - eta) / sigma^2 with z = logit(x) ~ N(eta, sigma^2)
    expected = integrate.quad(lambda z: stats.norm.pdf(z, eta, sigma)
                              * (a * (z - eta) / sigma**2) ** 2,
                              eta - 12 * sigma, eta + 12 * sigma)[0]
    params = np.array([[a, d, np.log(sigma)]])
    got = scored_information("logit-normal", params, np.array([theta]))[0, 0]
    assert got == pytest.approx(expected, rel=1e-7)


def test_continuous_expected_score_and_variance(fitted):
    beta = fitted["beta"]
    mu = expit(beta.discrimination_ * (THETA[:, None] - beta.difficulty_))
    mean, variance = beta.expected_score(THETA, return_variance=True)
    assert_allclose(mean, mu, atol=1e-12)
    assert_allclose(variance, mu * (1 - mu) / (beta.precision_ + 1), atol=1e-12)
    ln = fitted["logit-normal"]
    mean, variance = ln.expected_score(THETA, return_variance=True)
    for j in (0, 3):
        eta = ln.discrimination_[j] * (THETA - ln.difficulty_[j])
        for t, e in enumerate(eta):
            dist = stats.norm(e, ln.residual_sd_[j])
            m1 = dist.expect(expit)
            m2 = dist.expect(lambda z: expit(z) ** 2)
            # the model integrates with 32 Gauss-Hermite nodes (error ~1e-7)
            assert mean[t, j] == pytest.approx(m1, abs=1e-6)
            assert variance[t, j] == pytest.approx(m2 - m1**2, abs=1e-6)


# ------------------------------------------------ response likelihoods
def test_graded_response_log_likelihood_is_the_category_probability(fitted):
    for model in ("GRM", "GPCM"):
        irt = fitted[model]
        X = simulate_graded(20, 8, seed=5)
        rows, cols = np.nonzero(~np.isnan(X))
        table = irt.response_log_likelihood(THETA, cols, X[rows, cols])
        P = _category_probabilities(model, irt, THETA)
        index = np.array([np.searchsorted(irt.categories_[j], x)
                          for j, x in zip(cols, X[rows, cols], strict=True)])
        assert_allclose(table, np.log(P[:, cols, index]).T, atol=1e-9)


def test_continuous_response_log_likelihood_is_the_density(fitted):
    X = simulate_scores(20, 8, seed=5)
    rows, cols = np.nonzero(~np.isnan(X))
    x = X[rows, cols]
    x[:3] = [0.0, 1.0, 0.5]
    # exact 0 and 1 are moved to score_clip (densities live on (0, 1))
    clipped = np.where((x == 0) | (x == 1), np.clip(x, 1e-3, 1 - 1e-3), x)
    beta = fitted["beta"]
    # the model bounds the linear predictor to [-35, 35] (finite tables)
    mu = expit(np.clip(beta.discrimination_[cols]
                       * (THETA[:, None] - beta.difficulty_[cols]), -35, 35))
    phi = beta.precision_[cols]
    expected = stats.beta.logpdf(clipped, mu * phi, (1 - mu) * phi)
    assert_allclose(beta.response_log_likelihood(THETA, cols, x), expected.T,
                    rtol=1e-9)
    ln = fitted["logit-normal"]
    eta = ln.discrimination_[cols] * (THETA[:, None] - ln.difficulty_[cols])
    expected = (stats.norm.logpdf(logit(clipped), eta, ln.residual_sd_[cols])
                - np.log(clipped) - np.log1p(-clipped))
    assert_allclose(ln.response_log_likelihood(THETA, cols, x), expected.T,
                    rtol=1e-9)


@pytest.mark.parametrize("model", ["GRM", "GPCM", "beta", "logit-normal", "3PL"])
def test_posterior_from_the_response_likelihoods_is_the_models_own(fitted, model):
    # the EAP ability from the summed table on the fitted grid equals transform
    if model == "3PL":
        X = (np.nan_to_num(simulate_graded(300, 8, seed=2), nan=0) >= 2).astype(float)
        irt = _fit(model, X)
    else:
        irt = fitted[model]
        X = (simulate_graded if model in ("GRM", "GPCM") else simulate_scores)(
            30, 8, seed=7, missing=0.2)
    nodes = irt.quadrature_nodes_
    table = irt.response_log_likelihood(nodes, None, X[:30])
    table += np.log(irt.quadrature_weights_)
    post = np.exp(table - table.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_allclose(post @ nodes, irt.transform(X[:30])[:, 0], atol=1e-8)


def test_item_scores_of_graded_codes(fitted):
    irt = fitted["GRM"]
    top = np.array([c[-1] for c in irt.categories_], dtype=float)
    X = simulate_graded(10, 8, seed=3, missing=0.3)
    scores = irt.item_scores(None, X)
    assert_allclose(scores, X / top, equal_nan=True)
    assert_allclose(irt.item_scores(np.array([1, 2]), X[:2, 1:3]),
                    X[:2, 1:3] / top[1:3], equal_nan=True)


# ------------------------------------------------ refusals and edge cases
def test_bad_responses_name_the_item_and_value(fitted):
    with pytest.raises(ValueError, match=r"item 2 has category 7,"):
        fitted["GRM"].response_log_likelihood(THETA, [2], [7.0])
    with pytest.raises(ValueError, match=r"item 1 has 1\.5"):
        fitted["beta"].item_scores([1], [1.5])
    with pytest.raises(ValueError, match="column positions"):
        fitted["beta"].item_scores([99], [0.5])


def test_several_factors_are_refused_naming_n_factors():
    rng = np.random.default_rng(0)
    X = (rng.random((200, 10)) < expit(rng.normal(size=(200, 1))
                                       + rng.normal(size=(1, 10)))).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        irt = IRT(model="2PL", n_factors=2, max_iter=30).fit(X)
    for method in (irt.expected_score, irt.item_information, irt.icc):
        with pytest.raises(ValueError, match="n_factors=2"):
            method(THETA)


def test_left_out_items_carry_nothing():
    X = simulate_graded(200, 6, seed=4)
    X[:, 5] = 2.0  # one category: left out, scores 1
    X[:, 4] = 0.0  # one category 0: scores 0
    irt = _fit("GPCM", X)
    mean, variance = irt.expected_score(THETA, return_variance=True)
    assert_allclose(mean[:, 5], 1.0)
    assert_allclose(mean[:, 4], 0.0)
    assert_allclose(variance[:, 4:], 0.0)
    assert_allclose(irt.item_information(THETA)[:, 4:], 0.0)
    assert_allclose(irt.response_log_likelihood(THETA, [4, 5], [0.0, 2.0]), 0.0)


def test_a_response_matrix_sums_its_rows_cells(fitted):
    X = simulate_scores(25, 8, seed=9, missing=0.3)
    rows, cols = np.nonzero(~np.isnan(X))
    by_row = fitted["beta"].response_log_likelihood(THETA, None, X)
    by_cell = fitted["beta"].response_log_likelihood(THETA, cols, X[rows, cols])
    assert_allclose(by_row, np.array([by_cell[rows == i].sum(axis=0)
                                      for i in range(X.shape[0])]))
    columns = fitted["beta"].response_log_likelihood(THETA, [2, 5], X[:, [2, 5]])
    assert_allclose(columns, fitted["beta"].response_log_likelihood(
        THETA, None, np.where(np.isin(np.arange(8), [2, 5]), X, np.nan)))


def test_compare_models_counts_the_misfits_of_graded_models():
    from sklearn_eval.irt import compare_models

    X = simulate_graded(150, 6, seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table, fits = compare_models(X, models=["GRM", "GPCM"], cv=2,
                                     random_state=0, return_item_fit=True)
    for model in ("GRM", "GPCM"):
        assert fits.loc[model, "misfit"].sum() == table.loc[model, "n_misfit_items"]
        assert np.isfinite(fits.loc[model, "pvalue"]).all()
    assert np.isfinite(table["heldout_loglik_per_response"]).all()
