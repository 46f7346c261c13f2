"""Binning of task difficulties for the generality indicators (private).

Bins are properties of the tasks: they are built once in ``fit`` from the task
difficulties and then shared by every agent. Intervals are right-closed,
``(e_k, e_{k+1}]``, as in R's ``cut`` (the convention of the reference code of
Martinez-Plumed & Hernandez-Orallo, 2018). Quantile bins also close the first
interval on the left so that the easiest task is never lost.
"""

import warnings
from typing import NamedTuple

import numpy as np

from ..utils._stack import find_stack_level

__all__ = [
    "DifficultyBins",
    "assign_right_closed",
    "bin_medians",
    "make_difficulty_bins",
    "merge_small_bins",
    "quantile_edges",
    "unique_value_edges",
]


class DifficultyBins(NamedTuple):
    """Bins of task difficulties.

    Attributes
    ----------
    edges : ndarray of shape (n_bins + 1,)
        Strictly increasing bin edges.
    task_bin : ndarray of shape (n_tasks,), int64
        Bin index of every task, ``-1`` for tasks left out of the bins
        (excluded beforehand, or outside explicit edges).
    counts : ndarray of shape (n_bins,), int64
        Number of tasks in each bin.
    medians : ndarray of shape (n_bins,)
        Median difficulty of the tasks in each bin (NaN for an empty bin).
    n_outside : int
        Number of eligible tasks that fell outside explicit edges.
    """

    edges: np.ndarray
    task_bin: np.ndarray
    counts: np.ndarray
    medians: np.ndarray
    n_outside: int


def assign_right_closed(values, edges, *, include_lowest=False):
    """Bin index of each value for right-closed intervals ``(e_k, e_{k+1}]``.

    Values outside ``(edges[0], edges[-1]]`` get ``-1``. With
    ``include_lowest=True`` the first interval is closed on the left too
    (R's ``cut(..., include.lowest=TRUE)``).

    Examples
    --------
    >>> import numpy as np
    >>> assign_right_closed(np.array([-1.0, 0.0, 0.5, 1.0, 2.0]), np.array([0.0, 1.0]))
    array([-1, -1,  0,  0, -1])
    """
    values = np.asarray(values, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    index = np.searchsorted(edges, values, side="left") - 1
    if include_lowest:
        index[values == edges[0]] = 0
    outside = (index < 0) | (index >= edges.size - 1)
    return np.where(outside, -1, index).astype(np.int64)


def quantile_edges(values, n_bins):
    """Equal-frequency edges of ``values`` that never split tied values.

    The ``n_bins - 1`` interior cuts go to the gaps between distinct sorted
    values nearest to the equal-count positions ``n k / n_bins``, half-way
    across each gap (so ties always share a bin, whatever the closure of the
    intervals); duplicate cuts are dropped. The outer edges are the minimum
    and the maximum. A single distinct value yields the unit-width bin
    ``[v - 0.5, v + 0.5]`` so that widths (and hence areas) stay defined.

    Examples
    --------
    >>> quantile_edges(np.arange(1.0, 9.0), 4).tolist()
    [1.0, 2.5, 4.5, 6.5, 8.0]
    >>> quantile_edges([0.0, 0.0, 0.0, 1.0], 2).tolist()
    [0.0, 0.5, 1.0]
    """
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    breaks = np.flatnonzero(ordered[1:] > ordered[:-1]) + 1
    if breaks.size == 0:
        return np.array([ordered[0] - 0.5, ordered[0] + 0.5])
    targets = ordered.size * np.arange(1, n_bins) / n_bins
    right = np.clip(np.searchsorted(breaks, targets), 0, breaks.size - 1)
    left = np.clip(right - 1, 0, breaks.size - 1)
    use_left = np.abs(breaks[left] - targets) <= np.abs(breaks[right] - targets)
    cuts = np.unique(np.where(use_left, breaks[left], breaks[right]))
    middles = (ordered[cuts - 1] + ordered[cuts]) / 2.0
    return np.concatenate([[ordered[0]], middles, [ordered[-1]]])


def unique_value_edges(values):
    """Edges giving one bin per distinct value (the C-test's integer levels).

    Edges sit half-way between consecutive distinct values; the outer edges
    extend by half the neighbouring gap (by 0.5 for a single value), so
    equally spaced integer difficulties get unit bins centred on them.

    Examples
    --------
    >>> unique_value_edges([1, 2, 2, 3]).tolist()
    [0.5, 1.5, 2.5, 3.5]
    """
    unique = np.unique(np.asarray(values, dtype=np.float64))
    if unique.size == 1:
        return np.array([unique[0] - 0.5, unique[0] + 0.5])
    middles = (unique[:-1] + unique[1:]) / 2.0
    first = unique[0] - (unique[1] - unique[0]) / 2.0
    last = unique[-1] + (unique[-1] - unique[-2]) / 2.0
    return np.concatenate([[first], middles, [last]])


def merge_small_bins(values, edges, min_count, *, include_lowest=True):
    """Merge adjacent bins until each holds at least ``min_count`` values.

    The smallest bin (the first one on ties) is merged with its smaller
    neighbour, by removing the edge between them, until every bin is large
    enough or a single bin is left.

    Examples
    --------
    >>> merge_small_bins(np.arange(10.0), np.array([0, 1, 2, 9.0]), 3).tolist()
    [0.0, 2.0, 9.0]
    """
    edges = np.asarray(edges, dtype=np.float64).copy()
    while edges.size > 2:
        index = assign_right_closed(values, edges, include_lowest=include_lowest)
        counts = np.bincount(index[index >= 0], minlength=edges.size - 1)
        smallest = int(np.argmin(counts))
        if counts[smallest] >= min_count:
            break
        if smallest == 0:
            neighbour = 1
        elif smallest == counts.size - 1:
            neighbour = smallest - 1
        else:
            left, right = counts[smallest - 1], counts[smallest + 1]
            neighbour = smallest - 1 if left <= right else smallest + 1
        edges = np.delete(edges, max(smallest, neighbour))
    return edges


def bin_medians(values, task_bin, n_bins):
    """Median of the values in each bin, NaN for empty bins (vectorised).

    Examples
    --------
    >>> bin_medians(np.array([3.0, 1.0, 2.0, 10.0]), np.array([0, 0, 0, 2]), 3)
    array([ 2., nan, 10.])
    """
    values = np.asarray(values, dtype=np.float64)
    keep = task_bin >= 0
    bins, vals = task_bin[keep], values[keep]
    order = np.lexsort((vals, bins))
    bins, vals = bins[order], vals[order]
    counts = np.bincount(bins, minlength=n_bins)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    medians = np.full(n_bins, np.nan)
    full = counts > 0
    low = starts[full] + (counts[full] - 1) // 2
    high = starts[full] + counts[full] // 2
    medians[full] = (vals[low] + vals[high]) / 2.0
    return medians


def make_difficulty_bins(difficulty, eligible, bins, min_tasks_per_bin):
    """Build the bins shared by every agent.

    Parameters
    ----------
    difficulty : ndarray of shape (n_tasks,)
        Task difficulties (finite where ``eligible``).
    eligible : ndarray of bool, shape (n_tasks,)
        Tasks that may be binned.
    bins : int, "unique" or ndarray of edges
        An int asks for equal-frequency (quantile) bins merged until each has
        at least ``min_tasks_per_bin`` tasks; "unique" gives one bin per
        distinct difficulty; an array gives explicit right-closed edges.
    min_tasks_per_bin : int
        Minimum number of tasks per quantile bin.

    Returns
    -------
    DifficultyBins

    Examples
    --------
    >>> d = np.array([-2.0, -0.5, 0.5, 3.0])
    >>> make_difficulty_bins(d, np.ones(4, bool), np.array([-3, 0, 3]), 1).counts
    array([2, 2])
    """
    values = difficulty[eligible]
    if isinstance(bins, str):
        edges = unique_value_edges(values)
        include_lowest = False
    elif np.ndim(bins) == 0:
        edges = quantile_edges(values, int(bins))
        edges = merge_small_bins(values, edges, min_tasks_per_bin)
        include_lowest = True
    else:
        edges = np.asarray(bins, dtype=np.float64)
        include_lowest = False
    task_bin = np.full(difficulty.shape[0], -1, dtype=np.int64)
    task_bin[eligible] = assign_right_closed(
        values, edges, include_lowest=include_lowest
    )
    n_outside = int(np.sum(task_bin[eligible] < 0))
    n_bins = edges.size - 1
    counts = np.bincount(task_bin[task_bin >= 0], minlength=n_bins)
    medians = bin_medians(difficulty, task_bin, n_bins)
    return DifficultyBins(edges, task_bin, counts, medians, n_outside)


def warn_about_bins(bins, bins_param, min_tasks_per_bin):
    """Warnings for tasks outside explicit edges and fragile bins (a
    ValueError when no task falls inside the edges); ``bins_param``: the
    estimator's ``bins``."""
    if bins.n_outside:
        warnings.warn(
            f"{bins.n_outside} task(s) have a difficulty outside the bin edges "
            f"({bins.edges[0]}, {bins.edges[-1]}] and are left out of the "
            "binned indicators.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
    if not (bins.counts > 0).any():
        raise ValueError(
            "No task falls inside the bin edges "
            f"({bins.edges[0]}, {bins.edges[-1]}]."
        )
    if np.sum(bins.counts > 0) == 1 and bins.counts.sum() > 1:
        warnings.warn(
            "All binned tasks fall in one difficulty bin: generality then "
            "equals the regularity of those tasks and the response curve "
            "is a single point. Use more bins or finer edges.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
    small = (bins.counts > 0) & (bins.counts < min_tasks_per_bin)
    if small.any() and not (np.ndim(bins_param) == 0 and bins_param != "unique"):
        warnings.warn(
            f"{int(small.sum())} bin(s) hold fewer than min_tasks_per_bin="
            f"{min_tasks_per_bin} tasks (counts {bins.counts.tolist()}); "
            "their variances are unstable.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
