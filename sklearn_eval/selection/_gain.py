"""Continuous information gain of tasks and greedy task selection (functions).

Stephenson et al., "A Continuous Information Gain Measure to Find the Most
Discriminatory Problems for AI Benchmarking" (CEC 2020): how well a task (or a
set of tasks) identifies which agent produced an observed mean result, given
the agents' means and run-to-run spreads. :class:`InfoGainSelector` wraps these
functions as a scikit-learn selector.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from ..utils._protocol import deprecated_alias
from ..utils._validation import _label_missing_mask
from . import _kernels

__all__ = [
    "confusion_matrix",
    "discrete_information_gain",
    "greedy_select",
    "information_gain",
]

_SCALES = {"sum_std", "pooled"}


# ----------------------------------------------------------------------------
# Validation helpers
# ----------------------------------------------------------------------------


def _as_columns(values, name, *, allow_nan=False):
    """A 1-D (one measure) or 2-D (agents x measures) float64 array."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2 or array.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D (agents) or 2-D (agents x measures) "
            f"array; got shape {np.shape(values)}."
        )
    bad = ~np.isfinite(array) if not allow_nan else np.isinf(array)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} must be finite; found {array[row, col]} at row {row}, "
            f"column {col}."
        )
    return array


def _check_stds(stds, shape, name="stds"):
    stds = _as_columns(stds, name)
    if stds.shape != shape:
        raise ValueError(
            f"{name} must have the same shape as the means {shape}; got {stds.shape}."
        )
    if (stds < 0).any():
        row, col = np.argwhere(stds < 0)[0]
        raise ValueError(
            f"{name} must be >= 0; found {stds[row, col]} at row {row}, column {col}."
        )
    return stds


def _check_positive_spread(stds, agents=None, columns=None):
    """Zero final spread gives an infinite density: name where, suggest a fix."""
    zero = stds == 0
    if zero.any():
        row, col = np.argwhere(zero)[0]
        agent = _plain(agents[row]) if agents is not None else row
        column = _plain(columns[col]) if columns is not None else col
        raise ValueError(
            f"The spread of agent {agent!r} on column {column!r} is 0, which makes "
            "the Gaussian kernel degenerate. Use std_offset > 0 (the reference "
            "adds 1e-3 to every spread)."
        )


def _plain(label):
    """A label as a plain Python value, for readable error messages."""
    return label.item() if isinstance(label, np.generic) else label


def _check_pair_spread(pair_spread, scale="deprecated"):
    """The pair spread to use; ``scale`` is its deprecated former name."""
    if not (isinstance(scale, str) and scale == "deprecated"):
        deprecated_alias("scale", "pair_spread")
        pair_spread = scale
    if pair_spread not in _SCALES:
        raise ValueError(
            f"pair_spread must be one of {sorted(_SCALES)}; got {pair_spread!r}."
        )
    return pair_spread


def _check_floor(prob_floor):
    if prob_floor is not None and not 0 < prob_floor < 1:
        raise ValueError(f"prob_floor must be in (0, 1) or None; got {prob_floor!r}.")


def _encode_groups(groups, n_columns):
    """Task index of every column and the task labels (first-appearance order)."""
    if groups is None:
        return np.arange(n_columns), None
    groups = np.asarray(groups)
    if groups.ndim != 1 or len(groups) != n_columns:
        raise ValueError(
            f"groups must give one task label per column ({n_columns}); got shape "
            f"{groups.shape}."
        )
    if _label_missing_mask(groups).any():
        raise ValueError("groups contains a missing label (None or NaN).")
    _, first, inverse = np.unique(groups, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    column_task = rank[inverse.ravel()]
    labels = groups[np.sort(first)]
    return column_task, labels


# ----------------------------------------------------------------------------
# Pure functions
# ----------------------------------------------------------------------------


def confusion_matrix(
    means, stds, *, pair_spread="sum_std", prob_floor=None, scale="deprecated"
):
    """Confusion ("channel") matrix of a task or set of measures (Eq. 1, 2, 4).

    ``C[i, j]`` is the probability of explaining agent ``i``'s observed mean by
    agent ``j``: the normal density with mean ``mu_j`` and standard deviation
    ``s_ij = sigma_i + sigma_j`` at ``mu_i``, multiplied over measures and
    normalised per row.

    Parameters
    ----------
    means : array-like of shape (n_agents,) or (n_agents, n_measures)
        Mean result of every agent on each measure; all measures are combined
        as independent (Eq. 4).
    stds : array-like of the same shape
        Final spreads (population standard deviation of the runs, any offset
        already added); must be > 0 wherever a pair's spread would be 0.
    pair_spread : {"sum_std", "pooled"}, default="sum_std"
        ``s_ij = sigma_i + sigma_j`` (the paper) or ``sqrt(sigma_i**2 +
        sigma_j**2)``.
    prob_floor : float or None, default=None
        If set, entries that underflow to exactly 0.0 are replaced by this value
        without renormalising (the reference implementation's convention).
    scale : str, default="deprecated"
        Former name of ``pair_spread`` (deprecated in 0.2, removed in 0.3).

    Returns
    -------
    C : ndarray of shape (n_agents, n_agents)
        Rows are true agents; each row sums to 1 (up to the floor).

    Examples
    --------
    >>> from sklearn_eval.selection import confusion_matrix
    >>> confusion_matrix([0.0, 2.0], [1.0, 1.0]).round(4)
    array([[0.6225, 0.3775],
           [0.3775, 0.6225]])
    """
    means = _as_columns(means, "means")
    stds = _check_stds(stds, means.shape)
    pair_spread = _check_pair_spread(pair_spread, scale)
    _check_floor(prob_floor)
    _check_positive_spread(stds)
    kernel = _kernels.set_log_kernel(means, stds, pair_spread)
    return _kernels.confusion_from_log_kernel(kernel, prob_floor)


def information_gain(
    means, stds, *, pair_spread="sum_std", prob_floor=None, scale="deprecated"
):
    """Continuous information gain (bits) of a task or set of measures (Eq. 3).

    ``IG = log2(n) - (1/n) sum_i H2(C[i, :])`` with ``C`` from
    :func:`confusion_matrix`; ``0 <= IG <= log2(n)``. It is the paper's quantity:
    an upper bound on the channel's mutual information (the prior entropy is
    taken as ``log2 n``). It is neither monotone nor sub-additive in the set of
    measures (see the user guide's task selection page).

    Parameters
    ----------
    means : array-like of shape (n_agents,) or (n_agents, n_measures)
    stds : array-like of the same shape
        Final spreads (> 0).
    pair_spread : {"sum_std", "pooled"}, default="sum_std"
    prob_floor : float or None, default=None
        Reference convention (Stephenson et al.'s code): underflowed confusion entries
        count as ``prob_floor``; the result is clipped at 0.
    scale : str, default="deprecated"
        Former name of ``pair_spread`` (deprecated in 0.2, removed in 0.3).

    Returns
    -------
    gain : float

    Examples
    --------
    >>> from sklearn_eval.selection import information_gain
    >>> round(information_gain([0.0, 2.0], [1.0, 1.0]), 10)
    0.0437134606
    >>> round(information_gain([0.0, 0.0], [1.0, 2.0]), 10)  # equal means
    0.0219106348
    """
    means = _as_columns(means, "means")
    stds = _check_stds(stds, means.shape)
    pair_spread = _check_pair_spread(pair_spread, scale)
    _check_floor(prob_floor)
    _check_positive_spread(stds)
    kernel = _kernels.set_log_kernel(means, stds, pair_spread)
    return float(_kernels.gains_from_log_kernels(kernel, prob_floor))


def discrete_information_gain(means, *, bin_width=0.01):
    """Binned information gain (bits), the baseline the paper rejects.

    Every agent's mean is rounded to the nearest multiple of ``bin_width`` (per
    measure; the bins of several measures form a tuple). With ``m(a)`` the number
    of agents sharing agent ``a``'s bin, ``IG = log2 n - (1/n) sum_a log2 m(a)``.

    Parameters
    ----------
    means : array-like of shape (n_agents,) or (n_agents, n_measures)
    bin_width : float, default=0.01

    Returns
    -------
    gain : float

    Examples
    --------
    >>> from sklearn_eval.selection import discrete_information_gain
    >>> discrete_information_gain([0.1, 0.1, 0.9, 0.9])
    1.0
    """
    means = _as_columns(means, "means")
    if not bin_width > 0:
        raise ValueError(f"bin_width must be > 0; got {bin_width!r}.")
    bins = _kernels.bin_labels(means, bin_width)
    labels = _kernels.dense_task_labels(bins, np.zeros(bins.shape[1], int), 1)
    current = np.zeros(means.shape[0], dtype=np.int64)
    return float(_kernels.discrete_gains(current, labels)[0])


def greedy_select(
    means,
    stds=None,
    n_tasks=10,
    *,
    groups=None,
    method="continuous",
    pair_spread="sum_std",
    prob_floor=None,
    bin_width=0.01,
    tol=0.0,
    scale="deprecated",
):
    """Greedy forward selection of tasks by information gain (paper section V-C).

    Start with the task of largest gain, then repeatedly add the task that
    gives the largest gain of the enlarged set (Eq. 4). Ties go to the lowest
    task index (gains within 1e-12 bits of the best count as tied, so that
    rounding does not decide).

    Parameters
    ----------
    means : array-like of shape (n_agents, n_columns)
    stds : array-like of the same shape or None
        Final spreads; required for ``method="continuous"``.
    n_tasks : int or "auto", default=10
        Number of tasks to pick, or ``"auto"``: stop when the best candidate no
        longer raises the gain by more than ``tol``.
    groups : array-like of shape (n_columns,) or None
        Task label of every column: columns sharing a label are measures of one
        task (for example win rate and score of a game) and are picked together.
    method : {"continuous", "discrete"}, default="continuous"
    pair_spread, prob_floor : see :func:`information_gain`
    bin_width : float, default=0.01
        Bin width of ``method="discrete"``.
    tol : float, default=0.0
        Minimal rise of the gain for ``n_tasks="auto"``.
    scale : str, default="deprecated"
        Former name of ``pair_spread`` (deprecated in 0.2, removed in 0.3).

    Returns
    -------
    order : ndarray of int
        Task indices (into the tasks in order of first appearance) in pick order.
    cumulative : ndarray of float
        Gain of the selected set after each pick.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.selection import greedy_select
    >>> means = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 1]], float)
    >>> order, cumulative = greedy_select(means, np.full((4, 3), 0.1), 2)
    >>> order.tolist(), cumulative.round(4).tolist()  # columns 0 and 1 tie
    ([0, 1], [0.9999, 1.9999])
    """
    means = _as_columns(means, "means")
    column_task, _ = _encode_groups(groups, means.shape[1])
    n_groups = int(column_task.max()) + 1
    if n_tasks == "auto":
        n_select = None
    elif isinstance(n_tasks, Integral) and 1 <= n_tasks <= n_groups:
        n_select = int(n_tasks)
    else:
        raise ValueError(
            f"n_tasks must be 'auto' or an int in [1, {n_groups}]; got {n_tasks!r}."
        )
    if method == "discrete":
        bins = _kernels.bin_labels(means, bin_width)
        labels = _kernels.dense_task_labels(bins, column_task, n_groups)
        order, cumulative, _, _ = _kernels.greedy_discrete(labels, n_select, tol=tol)
        return order, cumulative
    if method != "continuous":
        raise ValueError(f"method must be 'continuous' or 'discrete'; got {method!r}.")
    if stds is None:
        raise ValueError("stds is required for method='continuous'.")
    stds = _check_stds(stds, means.shape)
    pair_spread = _check_pair_spread(pair_spread, scale)
    _check_floor(prob_floor)
    _check_positive_spread(stds)
    bank = _kernels.KernelBank(
        means, stds, column_task, n_groups, pair_spread, prob_floor=prob_floor
    )
    order, cumulative, _, _ = _kernels.greedy_forward(bank, n_select, tol=tol)
    return order, cumulative
