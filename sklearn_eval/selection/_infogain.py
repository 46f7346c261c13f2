"""Continuous information gain and the InfoGainSelector.

Implements Stephenson et al., "A Continuous Information Gain Measure to Find the
Most Discriminatory Problems for AI Benchmarking" (CEC 2020): how well a task
(or a set of tasks) identifies which agent produced an observed mean result,
given the agents' means and run-to-run spreads, and greedy forward selection of
the tasks that together tell the agents apart best. Spec:
``spec/information_gain.md``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import (
    _get_feature_names,
    check_array,
    check_is_fitted,
)

from ..utils._validation import _label_missing_mask
from . import _kernels

__all__ = [
    "InfoGainSelector",
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


def _check_scale(scale):
    if scale not in _SCALES:
        raise ValueError(f"scale must be one of {sorted(_SCALES)}; got {scale!r}.")


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


def confusion_matrix(means, stds, *, scale="sum_std", prob_floor=None):
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
    scale : {"sum_std", "pooled"}, default="sum_std"
        ``s_ij = sigma_i + sigma_j`` (the paper) or ``sqrt(sigma_i**2 +
        sigma_j**2)``.
    prob_floor : float or None, default=None
        If set, entries that underflow to exactly 0.0 are replaced by this value
        without renormalising (the reference implementation's convention).

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
    _check_scale(scale)
    _check_floor(prob_floor)
    _check_positive_spread(stds)
    kernel = _kernels.set_log_kernel(means, stds, scale)
    return _kernels.confusion_from_log_kernel(kernel, prob_floor)


def information_gain(means, stds, *, scale="sum_std", prob_floor=None):
    """Continuous information gain (bits) of a task or set of measures (Eq. 3).

    ``IG = log2(n) - (1/n) sum_i H2(C[i, :])`` with ``C`` from
    :func:`confusion_matrix`; ``0 <= IG <= log2(n)``. It is the paper's quantity:
    an upper bound on the channel's mutual information (the prior entropy is
    taken as ``log2 n``). It is neither monotone nor sub-additive in the set of
    measures (spec section 1.3).

    Parameters
    ----------
    means : array-like of shape (n_agents,) or (n_agents, n_measures)
    stds : array-like of the same shape
        Final spreads (> 0).
    scale : {"sum_std", "pooled"}, default="sum_std"
    prob_floor : float or None, default=None
        Reference convention (spec section 1.6): underflowed confusion entries
        count as ``prob_floor``; the result is clipped at 0.

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
    _check_scale(scale)
    _check_floor(prob_floor)
    _check_positive_spread(stds)
    kernel = _kernels.set_log_kernel(means, stds, scale)
    return float(_kernels.gains_from_log_kernels(kernel, prob_floor))


def discrete_information_gain(means, *, bin_width=0.01):
    """Binned information gain (bits), the baseline the paper rejects (spec 1.1).

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
    scale="sum_std",
    prob_floor=None,
    bin_width=0.01,
    tol=0.0,
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
    scale, prob_floor : see :func:`information_gain`
    bin_width : float, default=0.01
        Bin width of ``method="discrete"``.
    tol : float, default=0.0
        Minimal rise of the gain for ``n_tasks="auto"``.

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
    _check_scale(scale)
    _check_floor(prob_floor)
    _check_positive_spread(stds)
    bank = _kernels.KernelBank(
        means, stds, column_task, n_groups, scale, prob_floor=prob_floor
    )
    order, cumulative, _, _ = _kernels.greedy_forward(bank, n_select, tol=tol)
    return order, cumulative


# ----------------------------------------------------------------------------
# Run-level statistics
# ----------------------------------------------------------------------------


def _check_agent_labels(y, n_runs):
    if y is None:
        raise ValueError(
            "InfoGainSelector requires y to be passed, but the target y is None: "
            "with input='runs' y is the agent of every run (pass input='agents' to "
            "fit agent-level means)."
        )
    y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=False)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (one agent label per run); got {y.shape}.")
    if len(y) != n_runs:
        raise ValueError(f"y has {len(y)} labels but X has {n_runs} runs (rows).")
    missing = _label_missing_mask(y)
    if missing.any():
        raise ValueError(
            f"y contains a missing agent label (NaN or None) at row "
            f"{int(np.argmax(missing))}."
        )
    try:
        classes, y_index = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise TypeError(
            "y mixes agent labels of types that cannot be sorted together."
        ) from exc
    return classes, y_index.ravel()


def _run_statistics(X, y_index, n_agents):
    """Per (agent, column): number of non-NaN runs, mean, population std."""
    n_runs = X.shape[0]
    observed = ~np.isnan(X)
    filled = np.where(observed, X, 0.0)
    onehot = sp.csr_matrix(
        (np.ones(n_runs), (y_index, np.arange(n_runs))), shape=(n_agents, n_runs)
    )
    counts = np.asarray(onehot @ observed.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.asarray(onehot @ filled) / counts
        deviation = np.where(observed, X - means[y_index], 0.0)
        stds = np.sqrt(np.asarray(onehot @ deviation**2) / counts)
    return counts, means, stds


def _first_cell(mask):
    return tuple(int(k) for k in np.argwhere(mask)[0])


# ----------------------------------------------------------------------------
# Estimator
# ----------------------------------------------------------------------------


class InfoGainSelector(SelectorMixin, BaseEstimator):
    """Select the tasks that best tell agents apart (continuous information gain).

    For every task the selector estimates each agent's mean result and spread
    over repeated runs, and measures how well observing a mean result on the
    task identifies the agent that produced it (Stephenson et al., 2020, Eq. 1-3;
    bits, between 0 and ``log2(n_agents)``). Tasks are then chosen by greedy
    forward selection: each step adds the task that gives the enlarged set the
    largest combined gain (Eq. 4); ties go to the lowest task index. The gain
    of a set is neither monotone nor sub-additive, so adding a task can lower
    it; ``n_tasks="auto"`` stops there.

    This is the one estimator of the library whose rows are *runs*: with
    ``input="runs"`` (default) each row of ``X`` is one run of agent ``y[i]``
    and columns are tasks (or measures of tasks, see ``groups``); NaN marks a
    task not run in that row. With ``input="agents"`` rows are agents, ``X``
    holds their mean results and the spreads are passed as ``fit(X,
    X_std=...)``.

    Read more in the spec ``information_gain.md``.

    Parameters
    ----------
    n_tasks : int, float or "auto", default=10
        Number of tasks to select (the paper uses 10); a float in (0, 1] is a
        fraction of the tasks (at least one); ``"auto"`` stops when the best
        candidate no longer raises the gain by more than ``tol``. More tasks
        than available is an error.
    tol : float, default=0.0
        Minimal rise of the gain (bits) for ``n_tasks="auto"``.
    input : {"runs", "agents"}, default="runs"
        Whether rows of ``X`` are runs (``y`` = agent of each run) or agents
        (``X`` = means, spreads from ``X_std``).
    groups : array-like of shape (n_features,) or None, default=None
        Task label of every column. Columns sharing a label are several
        measures of one task (for example win rate and score of a game,
        paper section V-B); they are combined as independent measures and
        selected together. ``n_tasks`` then counts tasks, not columns.
    method : {"continuous", "discrete"}, default="continuous"
        ``"discrete"`` is the binned baseline the paper rejects (spec 1.1): means
        rounded to multiples of ``bin_width``; spreads are not used.
    std_offset : float, default=1e-3
        Added to every spread (the reference convention): zero spreads become
        valid, and a constant task adds exactly no information. Pass 0 for
        exact affine invariance (then every spread must be > 0).
    scale : {"sum_std", "pooled"}, default="sum_std"
        Spread of a pair: ``sigma_i + sigma_j`` (the paper) or
        ``sqrt(sigma_i**2 + sigma_j**2)``.
    prob_floor : float or None, default=None
        None computes the entropy exactly in log space. ``1e-5`` reproduces the
        reference implementation (and Table II of the paper) bit for bit:
        confusion entries that underflow to 0.0 count as the floor.
    bin_width : float, default=0.01
        Bin width of ``method="discrete"``.
    search : {"greedy", "exhaustive"}, default="greedy"
        ``"greedy"`` is the paper's forward selection (ties go to the lowest
        task index). ``"exhaustive"`` evaluates every subset of ``n_tasks``
        tasks (continuous method, an int or fraction ``n_tasks`` only) to find
        the best one; for small problems and for checking the greedy choice.
    max_subsets : int, default=100_000
        Largest number of subsets ``search="exhaustive"`` may evaluate.

    Attributes
    ----------
    classes_ : ndarray of shape (n_agents,)
        Agent labels (sorted ``y`` labels; the DataFrame index or
        ``0 .. n_agents - 1`` with ``input="agents"``).
    tasks_ : ndarray of shape (n_tasks_total,)
        Task labels: the ``groups`` labels in order of first appearance, or the
        column names (indices) without groups.
    means_ : ndarray of shape (n_agents, n_features)
        Mean result of every agent on every column.
    stds_ : ndarray of shape (n_agents, n_features)
        Final spreads used (population std of the runs plus ``std_offset``).
    n_runs_ : ndarray of shape (n_agents, n_features) or None
        Number of runs behind every mean (``input="runs"``).
    information_gain_ : ndarray of shape (n_tasks_total,)
        Gain of every task alone (its measures combined).
    scores_ : ndarray of shape (n_features,)
        ``information_gain_`` of the task of every column.
    selection_order_ : ndarray of int
        Indices into ``tasks_`` in greedy pick order (with
        ``search="exhaustive"``: the best subset in ascending order).
    cumulative_gain_ : ndarray of float
        Gain of the selected set after each pick (of each prefix of
        ``selection_order_``); the last entry is the gain of the selection.
    max_information_ : float
        ``log2(n_agents)``, the largest possible gain.
    information_fraction_ : float
        ``cumulative_gain_[-1] / max_information_``.
    confusion_matrix_ : ndarray of shape (n_agents, n_agents)
        Confusion matrix of the selected set.
    support_ : ndarray of bool of shape (n_features,)
        Selected columns.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    information_gain, greedy_select, task_clusters, subset_agreement

    Notes
    -----
    Spreads are standard deviations of individual runs, not standard errors:
    passing standard errors inflates the gain toward ``log2(n_agents)``. The
    independence assumption double counts measures of one task that carry the
    same information (spec 1.4).

    Cost: each greedy step evaluates every remaining task with the selected
    set, ``O(n_tasks * n_agents**2)``. In exact mode (``prob_floor=None``) the
    per-task factors ``exp(L_t)`` are cached (two arrays of ``n_tasks *
    n_agents**2`` floats, 640 MB for 1000 tasks and 200 agents) and a step is a
    batched matrix product; with ``prob_floor`` a log-space cache of half that
    size is used; beyond 1 GiB the kernels are recomputed block by block. The
    gain is not submodular, so lazy-greedy shortcuts would be unsound and are
    not used.

    References
    ----------
    M. Stephenson, D. Anderson, A. Khalifa, J. Levine, J. Renz, J. Togelius and
    C. Salge, "A Continuous Information Gain Measure to Find the Most
    Discriminatory Problems for AI Benchmarking", IEEE CEC 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.selection import InfoGainSelector
    >>> rng = np.random.default_rng(0)
    >>> agents = np.repeat(["a", "b", "c", "d"], 30)
    >>> skill = np.repeat([0.0, 1.0, 2.0, 3.0], 30)
    >>> X = np.column_stack([
    ...     skill + rng.normal(0, 0.3, 120),           # separates all agents
    ...     rng.normal(0, 1.0, 120),                   # noise
    ...     (skill > 1.5) + rng.normal(0, 0.3, 120),   # separates two groups
    ... ])
    >>> selector = InfoGainSelector(n_tasks=1).fit(X, agents)
    >>> selector.selection_order_
    array([0])
    >>> selector.transform(X).shape
    (120, 1)
    """

    _parameter_constraints: dict = {
        "n_tasks": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            StrOptions({"auto"}),
        ],
        "tol": [Interval(Real, None, None, closed="neither")],
        "input": [StrOptions({"runs", "agents"})],
        "groups": ["array-like", None],
        "method": [StrOptions({"continuous", "discrete"})],
        "std_offset": [Interval(Real, 0, None, closed="left")],
        "scale": [StrOptions(_SCALES)],
        "prob_floor": [Interval(Real, 0, 1, closed="neither"), None],
        "bin_width": [Interval(Real, 0, None, closed="neither")],
        "search": [StrOptions({"greedy", "exhaustive"})],
        "max_subsets": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_tasks=10,
        *,
        tol=0.0,
        input="runs",
        groups=None,
        method="continuous",
        std_offset=1e-3,
        scale="sum_std",
        prob_floor=None,
        bin_width=0.01,
        search="greedy",
        max_subsets=100_000,
    ):
        self.n_tasks = n_tasks
        self.tol = tol
        self.input = input
        self.groups = groups
        self.method = method
        self.std_offset = std_offset
        self.scale = scale
        self.prob_floor = prob_floor
        self.bin_width = bin_width
        self.search = search
        self.max_subsets = max_subsets

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        runs = self.input == "runs"
        tags.target_tags.required = runs
        tags.input_tags.allow_nan = runs
        return tags

    # -- validation --------------------------------------------------------

    def _validate_runs(self, X, y, columns):
        classes, y_index = _check_agent_labels(y, X.shape[0])
        if len(classes) < 2:
            raise ValueError(
                f"InfoGainSelector needs at least 2 agents; y has {len(classes)} "
                "class(es)."
            )
        counts, means, stds = _run_statistics(X, y_index, len(classes))
        if (counts == 0).any():
            row, col = _first_cell(counts == 0)
            raise ValueError(
                f"Agent {_plain(classes[row])!r} has no run (all NaN) of column "
                f"{_plain(columns[col])!r}; every agent needs results on every task."
            )
        if self.method == "continuous" and (counts < 2).any():
            row, col = _first_cell(counts < 2)
            raise ValueError(
                f"Agent {_plain(classes[row])!r} has a single run of column "
                f"{_plain(columns[col])!r}: its spread cannot be estimated. The "
                "continuous gain needs at least 2 runs per agent and task (or pass "
                "agent-level means and spreads with input='agents')."
            )
        return classes, means, stds, counts

    def _validate_agents(self, X, X_std, index):
        if X.shape[0] < 2:
            raise ValueError(
                f"InfoGainSelector needs at least 2 agents (rows); X has "
                f"{X.shape[0]} sample(s)."
            )
        if X_std is None:
            stds = np.zeros_like(X)
        else:
            stds = check_array(X_std, dtype=np.float64, input_name="X_std")
            stds = _check_stds(stds, X.shape, name="X_std")
        classes = np.asarray(index) if index is not None else np.arange(X.shape[0])
        return classes, X.copy(), stds, None

    def _resolve_n_tasks(self, n_groups):
        if self.n_tasks == "auto":
            return None
        if isinstance(self.n_tasks, Integral):
            if self.n_tasks > n_groups:
                raise ValueError(
                    f"n_tasks={self.n_tasks} is larger than the number of tasks "
                    f"({n_groups})."
                )
            return int(self.n_tasks)
        return max(1, int(self.n_tasks * n_groups))

    # -- fit -----------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, X_std=None):
        """Estimate every agent's means and spreads and select tasks greedily.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Run-level results (``input="runs"``: rows = runs, NaN = task not run
            in that row) or agent-level means (``input="agents"``: rows =
            agents). Columns are tasks, or measures of tasks (see ``groups``).
        y : array-like of shape (n_samples,)
            Agent label of every run; required with ``input="runs"``, ignored
            with ``input="agents"``.
        X_std : array-like of shape (n_agents, n_features), default=None
            Agent-level spreads (population std of the runs) with
            ``input="agents"``; None means zero spread (``std_offset`` only).

        Returns
        -------
        self : InfoGainSelector
        """
        runs = self.input == "runs"
        names = _get_feature_names(X)
        index = getattr(X, "index", None) if hasattr(X, "iloc") else None
        X = check_array(
            X,
            dtype=np.float64,
            ensure_all_finite="allow-nan" if runs else True,
            input_name="X",
        )
        columns = names if names is not None else np.arange(X.shape[1])
        if runs:
            if X_std is not None:
                raise ValueError("X_std is only used with input='agents'.")
            classes, means, stds, counts = self._validate_runs(X, y, columns)
        else:
            classes, means, stds, counts = self._validate_agents(X, X_std, index)
        column_task, labels = _encode_groups(self.groups, X.shape[1])
        stds = stds + self.std_offset
        if self.method == "continuous":
            _check_positive_spread(stds, classes, columns)
        n_groups = int(column_task.max()) + 1
        n_select = self._resolve_n_tasks(n_groups)
        if self.search == "exhaustive" and (
            n_select is None or self.method != "continuous"
        ):
            raise ValueError(
                "search='exhaustive' needs method='continuous' and a fixed n_tasks "
                "(an int or a fraction), not 'auto'."
            )
        result = self._select(means, stds, column_task, n_groups, n_select)
        order, cumulative, single, confusion = result
        self.n_features_in_ = X.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        if labels is None:
            labels = columns
        self.classes_ = classes
        self.tasks_ = np.asarray(labels)
        self.means_ = means
        self.stds_ = stds
        self.n_runs_ = counts
        self.information_gain_ = single
        self.scores_ = single[column_task]
        self.selection_order_ = order
        self.cumulative_gain_ = cumulative
        self.max_information_ = float(np.log2(len(classes)))
        self.information_fraction_ = float(cumulative[-1] / self.max_information_)
        self.confusion_matrix_ = confusion
        self.support_ = np.isin(column_task, order)
        return self

    def _select(self, means, stds, column_task, n_groups, n_select):
        if self.method == "discrete":
            bins = _kernels.bin_labels(means, self.bin_width)
            labels = _kernels.dense_task_labels(bins, column_task, n_groups)
            order, cumulative, single, cells = _kernels.greedy_discrete(
                labels, n_select, tol=self.tol
            )
            same = cells[:, None] == cells[None, :]
            confusion = same / same.sum(axis=1, keepdims=True)
            return order, cumulative, single, confusion
        bank = _kernels.KernelBank(
            means, stds, column_task, n_groups, self.scale, prob_floor=self.prob_floor
        )
        order, cumulative, single, kernel = _kernels.greedy_forward(
            bank, 1 if self.search == "exhaustive" else n_select, tol=self.tol
        )
        if self.search == "exhaustive":
            order, kernel, cumulative = self._exhaustive(bank, n_select)
        confusion = _kernels.confusion_from_log_kernel(kernel, self.prob_floor)
        return order, cumulative, single, confusion

    def _exhaustive(self, bank, n_select):
        subset, _ = _kernels.exhaustive_best(bank, n_select, self.max_subsets)
        prefixes = np.cumsum(bank.block(0, bank.n_tasks)[subset], axis=0)
        cumulative = _kernels.gains_from_log_kernels(prefixes, self.prob_floor)
        return subset, prefixes[-1], np.asarray(cumulative, dtype=np.float64)

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_
