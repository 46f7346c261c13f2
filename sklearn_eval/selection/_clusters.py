"""Exploratory clustering of tasks by how they separate agents (paper section IV)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.cluster.hierarchy import fcluster, leaves_list, linkage
from scipy.spatial.distance import squareform
from sklearn.utils import Bunch

from ..utils import check_result_matrix

__all__ = ["task_clusters"]

_DISTANCES = ("correlation", "abs_correlation")
_LINKAGES = ("average", "complete", "single", "ward", "weighted")
_CRITERIA = ("distance", "maxclust")


def _task_correlation(values):
    """Pearson correlation between tasks over agents; constant tasks give 0."""
    centred = values - values.mean(axis=0)
    norm = np.sqrt((centred**2).sum(axis=0))
    constant = norm == 0
    scaled = centred / np.where(constant, 1.0, norm)
    corr = scaled.T @ scaled
    corr[constant, :] = 0.0
    corr[:, constant] = 0.0
    np.fill_diagonal(corr, 1.0)
    return np.clip(corr, -1.0, 1.0)


def task_clusters(
    X, *, distance="correlation", method="average", threshold=0.8, criterion="distance"
):
    """Cluster tasks by the pattern of agents' results (exploratory).

    The paper's "dimensions of variance" analysis (Stephenson et al., 2020,
    section IV, Fig. 1): tasks whose agents' mean results correlate strongly
    separate the agents in the same way. Tasks are clustered hierarchically on
    a correlation distance. The paper's exact distance, linkage and threshold
    are not specified, so this only approximates its Fig. 1: use it to explore,
    not as a reproduction.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
        Agents' mean result on every task (complete).
    distance : {"correlation", "abs_correlation"}, default="correlation"
        ``1 - r`` (anti-correlated tasks are far apart) or ``1 - |r|``, with
        ``r`` the Pearson correlation between two tasks over agents. A
        constant task has no correlation; it is treated as ``r = 0``.
    method : {"average", "complete", "single", "ward", "weighted"}, default="average"
        Linkage of :func:`scipy.cluster.hierarchy.linkage`.
    threshold : float or int, default=0.8
        Cut of the dendrogram, passed to :func:`scipy.cluster.hierarchy.fcluster`
        as ``t``: a distance, a finite number >= 0 (``criterion="distance"``),
        or the number of clusters, an integer >= 1 (``criterion="maxclust"``:
        the default 0.8 is a distance, so pass ``threshold=k``).
    criterion : {"distance", "maxclust"}, default="distance"

    Raises
    ------
    ValueError
        On a ``threshold`` the ``criterion`` cannot read (a negative or
        non-finite distance, a number of clusters that is not an integer
        >= 1), an unknown option, fewer than 2 agents or tasks, or data the
        result-matrix check refuses.

    Returns
    -------
    result : Bunch
        ``labels`` (cluster of every task, 0-based, numbered in dendrogram
        order), ``order`` (task indices in dendrogram leaf order, to reorder a
        correlation plot), ``correlation`` (n_tasks x n_tasks), ``linkage`` (the
        scipy linkage matrix) and ``tasks`` (column labels or None).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.selection import task_clusters
    >>> skill = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    >>> speed = np.array([3.0, 0.0, 4.0, 1.0, 2.0])
    >>> X = np.column_stack([skill, 2 * skill + 1, speed, speed - 1])
    >>> task_clusters(X, threshold=0.5).labels
    array([0, 0, 1, 1])
    """
    values, _, tasks = check_result_matrix(X)
    if distance not in _DISTANCES:
        raise ValueError(f"distance must be one of {_DISTANCES}; got {distance!r}.")
    if method not in _LINKAGES:
        raise ValueError(f"method must be one of {_LINKAGES}; got {method!r}.")
    if criterion not in _CRITERIA:
        raise ValueError(f"criterion must be one of {_CRITERIA}; got {criterion!r}.")
    _check_threshold(threshold, criterion)
    if values.shape[0] < 2:
        raise ValueError("task_clusters needs at least 2 agents (rows).")
    n_tasks = values.shape[1]
    if n_tasks < 2:
        raise ValueError("task_clusters needs at least 2 tasks (columns).")
    corr = _task_correlation(values)
    dist = 1.0 - (np.abs(corr) if distance == "abs_correlation" else corr)
    np.fill_diagonal(dist, 0.0)
    tree = linkage(squareform(np.clip(dist, 0.0, None), checks=False), method=method)
    raw = fcluster(tree, t=threshold, criterion=criterion)
    order = leaves_list(tree)
    _, first = np.unique(raw[order], return_index=True)
    renumber = np.empty(raw.max() + 1, dtype=np.int64)
    renumber[raw[order][np.sort(first)]] = np.arange(len(first))
    return Bunch(
        labels=renumber[raw],
        order=order,
        correlation=corr,
        linkage=tree,
        tasks=tasks,
    )


def _check_threshold(threshold, criterion):
    """``threshold`` as ``criterion`` reads it: a distance or a count."""
    if criterion == "maxclust":
        if not isinstance(threshold, Integral) or isinstance(threshold, bool) or (
                threshold < 1):
            raise ValueError(
                "criterion='maxclust' reads threshold as the number of clusters, "
                f"an integer >= 1; got {threshold!r} (the default 0.8 is a "
                "distance cut: pass threshold=k).")
        return
    if (not isinstance(threshold, Real) or isinstance(threshold, bool)
            or not np.isfinite(threshold) or threshold < 0):
        raise ValueError(
            "criterion='distance' reads threshold as a distance cut, a finite "
            f"number >= 0 (1 - r lies in [0, 2]); got {threshold!r}.")
