"""Agreement between two rankings of the same agents.

Both functions take two score vectors over the same agents (higher = better,
ties allowed) and return a rank correlation in [-1, 1]; they follow the
``metric(y_true, y_pred)`` convention so that ``sklearn.metrics.make_scorer``
accepts them.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning

__all__ = ["kendall_tau", "spearman_rho"]


def _check_score_pair(y_true, y_score):
    a = np.asarray(y_true, dtype=np.float64)
    b = np.asarray(y_score, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(
            f"y_true and y_score must be 1-D; got shapes {a.shape} and {b.shape}."
        )
    if a.shape != b.shape:
        raise ValueError(
            f"y_true and y_score must have the same length; got {len(a)} and {len(b)}."
        )
    if len(a) < 2:
        raise ValueError(f"A rank correlation needs at least 2 agents; got {len(a)}.")
    for name, values in (("y_true", a), ("y_score", b)):
        if not np.isfinite(values).all():
            position = int(np.argmax(~np.isfinite(values)))
            raise ValueError(
                f"{name} must be finite; found {values[position]} at position "
                f"{position}."
            )
    return a, b


def _undefined_if_constant(a, b, name):
    constant = [label for label, v in (("y_true", a), ("y_score", b)) if np.ptp(v) == 0]
    if constant:
        warnings.warn(
            f"{name} is undefined because {' and '.join(constant)} is constant; "
            "returning NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return True
    return False


def kendall_tau(y_true, y_score):
    """Kendall's tau-b between two score vectors over the same agents.

    Tau-b corrects for ties in either vector: 1 when the two orders agree on
    every pair, -1 when they are reversed.

    Parameters
    ----------
    y_true : array-like of shape (n_agents,)
        Reference scores (for example, agents' means over all tasks).
    y_score : array-like of shape (n_agents,)
        Scores to compare (for example, means over a subset of tasks).

    Returns
    -------
    tau : float
        NaN, with an ``UndefinedMetricWarning``, if either vector is constant.

    See Also
    --------
    spearman_rho

    Examples
    --------
    >>> from sklearn_eval.metrics import kendall_tau
    >>> round(kendall_tau([1, 2, 3, 4], [10, 20, 40, 30]), 4)
    0.6667
    """
    a, b = _check_score_pair(y_true, y_score)
    if _undefined_if_constant(a, b, "Kendall's tau"):
        return float("nan")
    return float(stats.kendalltau(a, b, variant="b").statistic)


def spearman_rho(y_true, y_score):
    """Spearman's rank correlation between two score vectors (average ranks for ties).

    Parameters
    ----------
    y_true : array-like of shape (n_agents,)
    y_score : array-like of shape (n_agents,)

    Returns
    -------
    rho : float
        NaN, with an ``UndefinedMetricWarning``, if either vector is constant.

    See Also
    --------
    kendall_tau

    Examples
    --------
    >>> from sklearn_eval.metrics import spearman_rho
    >>> round(spearman_rho([1, 2, 3, 4], [10, 20, 40, 30]), 4)
    0.8
    """
    a, b = _check_score_pair(y_true, y_score)
    if _undefined_if_constant(a, b, "Spearman's rho"):
        return float("nan")
    ranks_a = stats.rankdata(a)
    ranks_b = stats.rankdata(b)
    return float(np.corrcoef(ranks_a, ranks_b)[0, 1])
