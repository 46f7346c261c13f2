"""Simulated binary responses from the four-parameter logistic model.

One generator for the IRT and selection tests: discriminations
``lognormal(a_mean, 0.3)``, difficulties ``normal(b_mean, 1)``, abilities
``normal(0, 1)``, success probability ``g + (u - g) expit(a (theta - b))``,
then a share ``missing`` of the cells set to NaN (drawn after the responses,
so the responses do not depend on it).
"""

import numpy as np
from scipy.special import expit


def simulate_responses(n, J, *, guessing=0.0, upper=1.0, missing=0.0, seed=0,
                       a_mean=0.2, b_mean=0.0):
    """``(X, (a, b, g, u))`` for ``n`` agents and ``J`` items."""
    rng = np.random.default_rng(seed)
    a = rng.lognormal(a_mean, 0.3, J)
    b = rng.normal(b_mean, 1.0, J)
    g = np.full(J, guessing) if np.isscalar(guessing) else guessing
    u = np.full(J, upper)
    theta = rng.normal(size=n)
    P = g + (u - g) * expit(a * (theta[:, None] - b))
    X = (rng.random((n, J)) < P).astype(float)
    X[rng.random((n, J)) < missing] = np.nan
    return X, (a, b, g, u)


def simulate_graded(n, J, *, K=4, missing=0.0, seed=0):
    """Category codes ``0..K-1`` of a GRM with slopes U(0.8, 2), N(0, 1) thresholds."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a = rng.uniform(0.8, 2.0, J)
    b = np.sort(rng.normal(size=(J, K - 1)), axis=1)
    P = expit(a[None, :, None] * (theta[:, None, None] - b[None]))
    X = (rng.random((n, J, 1)) < P).sum(axis=2).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    return X


def simulate_scores(n, J, *, precision=20.0, missing=0.0, seed=0):
    """Beta scores in (0, 1) with mean ``expit(a (theta - b))`` and ``precision``."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a, b = rng.uniform(0.8, 2.0, J), rng.normal(size=J)
    mu = expit(a * (theta[:, None] - b))
    X = rng.beta(mu * precision, (1 - mu) * precision)
    X[rng.random(X.shape) < missing] = np.nan
    return X


def simulate_loadings(rng, J, *, corr=0.3):
    """Two correlated factors, simple structure plus small cross-loadings.

    Item j loads ``uniform(0.8, 2.0)`` on factor ``j % 2`` and
    ``uniform(-0.2, 0.4)`` on the other. Returns the loadings ``lam`` on
    factors with correlation matrix ``phi`` and the slopes ``A = lam
    chol(phi)`` in the ``theta ~ N(0, I)`` metric (``A theta = lam eta``).
    Draws from ``rng`` in a fixed order, so callers can go on drawing.
    """
    lam = np.zeros((J, 2))
    for j in range(J):
        lam[j, j % 2] = rng.uniform(0.8, 2.0)
        lam[j, (j + 1) % 2] = rng.uniform(-0.2, 0.4)
    phi = np.array([[1.0, corr], [corr, 1.0]])
    return lam, phi, lam @ np.linalg.cholesky(phi)


def assert_rotations_agree(model, other, X):
    """Two rotations of one fitted factor model describe the same model.

    Same likelihood, the same rotation-invariant covariance of the items'
    logits ``L Phi L^T``, the same predictions; ``other`` is orthogonal
    (identity factor correlations).
    """
    assert abs(other.log_likelihood_ - model.log_likelihood_) <= (
        1e-12 * abs(model.log_likelihood_))
    implied = model.discrimination_ @ model.factor_corr_ @ model.discrimination_.T
    implied_other = (other.discrimination_ @ other.factor_corr_
                     @ other.discrimination_.T)
    np.testing.assert_allclose(implied_other, implied, atol=1e-8)
    np.testing.assert_allclose(other.factor_corr_, np.eye(2), atol=1e-10)
    np.testing.assert_allclose(other.predict_proba(X[:20]),
                               model.predict_proba(X[:20]), atol=1e-10)
