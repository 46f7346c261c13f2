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
