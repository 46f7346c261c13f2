"""Fisher information of a four-parameter logistic item (shared by its readers)."""

import numpy as np
from scipy.special import expit


def four_pl_information(a, z, g, u):
    """``P'(theta)^2 / (P (1 - P))`` of items ``P = g + (u - g) expit(z)``.

    ``z = a (theta - b)`` per (ability, item) and ``P' = (u - g) a s (1 - s)``
    with ``s = expit(z)``; 0 where ``P`` is 0 or 1 (Birnbaum 1968).
    """
    s = expit(z)
    P = g + (u - g) * s
    with np.errstate(divide="ignore", invalid="ignore"):
        info = ((u - g) * a * s * (1.0 - s)) ** 2 / (P * (1.0 - P))
    return np.where(np.isfinite(info), info, 0.0)
