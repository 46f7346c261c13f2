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
