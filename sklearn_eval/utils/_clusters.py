"""Cluster labels for resampling: validation and cluster bootstrap draws.

When outcomes are correlated within clusters (a prompt judged several
times, a question with its variants, an epoch of repeats), the cluster, not
the row, is the independent unit: the bootstrap draws clusters with
replacement and keeps every row of a drawn cluster; sandwich covariances
sum the scores within a cluster before their outer product.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ClusterCounts", "check_groups", "cluster_members"]


def check_groups(groups, n_units, what):
    """Codes ``0 .. G-1`` of the cluster labels; errors name ``groups``.

    Parameters
    ----------
    groups : array-like of shape (n_units,)
        One label per unit (match or task); any hashable labels.
    n_units : int
    what : str
        The unit, for the messages ("matches (rows of X)", "tasks").

    Returns
    -------
    codes : ndarray of shape (n_units,) of int
    n_groups : int
    """
    if isinstance(groups, pd.Series | pd.Index):
        values = groups.to_numpy()
    else:
        values = np.asarray(groups)
    if values.ndim != 1:
        raise ValueError(
            f"groups must be 1-D, one label per {what}; got shape {values.shape}."
        )
    if values.shape[0] != n_units:
        raise ValueError(
            f"groups has {values.shape[0]} labels but there are {n_units} "
            f"{what}: give one label per {what}."
        )
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(
            f"groups has {int(missing.sum())} missing label(s) (NaN/None), e.g. "
            f"at position {int(np.flatnonzero(missing)[0])}: every {what} needs "
            "a cluster."
        )
    codes, uniques = pd.factorize(values, sort=True)
    if uniques.shape[0] < 2:
        raise ValueError(
            "groups has a single cluster: resampling one cluster gives no "
            "variation; give at least two (more than a few dozen for reliable "
            "intervals)."
        )
    return codes.astype(np.intp), int(uniques.shape[0])


def cluster_members(codes, n_groups):
    """The unit indices of each cluster (a list of arrays)."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
    return [order[bounds[g]:bounds[g + 1]] for g in range(n_groups)]


class ClusterCounts:
    """Bootstrap counts of resampling units when whole clusters are drawn.

    Each row of the data belongs to one cluster and to one unit of a fast
    path (a distinct outcome row, say) and stands for ``base`` of that
    unit's count. A resample draws G clusters with replacement; a unit's
    count is the sum over its rows of ``base`` times how often the row's
    cluster was drawn.

    Parameters
    ----------
    codes : ndarray of shape (n_rows,)
        Cluster codes ``0 .. G-1``.
    n_groups : int
    row_unit : ndarray of shape (n_rows,)
        The unit of each row.
    base : ndarray of shape (n_rows,)
        The count each row contributes (1, or its frequency weight).
    n_units : int
    """

    def __init__(self, codes, n_groups, row_unit, base, n_units):
        key = codes.astype(np.int64) * n_units + row_unit.astype(np.int64)
        keys, inverse = np.unique(key, return_inverse=True)
        self.base = np.bincount(inverse, weights=base)
        self.group = keys // n_units
        self.unit = keys % n_units
        self.n_groups = n_groups
        self.n_units = n_units

    def draw(self, rng):
        """Counts of the units in one cluster-bootstrap resample."""
        times = np.bincount(rng.integers(0, self.n_groups, size=self.n_groups),
                            minlength=self.n_groups)
        return np.bincount(self.unit, weights=times[self.group] * self.base,
                           minlength=self.n_units).astype(np.float64)
