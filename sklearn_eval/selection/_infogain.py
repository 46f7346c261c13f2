"""Continuous information gain and the InfoGainSelector.

Implements Stephenson et al., "A Continuous Information Gain Measure to Find the
Most Discriminatory Problems for AI Benchmarking" (CEC 2020): how well a task
(or a set of tasks) identifies which agent produced an observed mean result,
given the agents' means and run-to-run spreads, and greedy forward selection of
the tasks that together tell the agents apart best (user guide: task
selection).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ..base import FitTemplateMixin, TaskTableMixin
from ..utils._protocol import (
    deprecated_alias,
    row_labels,
)
from ..utils._resampling import IntervalPlan, unknown_target
from ..utils._sklearn_compat import (
    Hidden,
    Interval,
    RealNotInt,
    StrOptions,
    _get_feature_names,
)
from ..utils._validation import _label_missing_mask
from . import _kernels
from ._gain import (
    _SCALES,
    _check_pair_spread,
    _check_positive_spread,
    _check_stds,
    _encode_groups,
    _plain,
)

__all__ = ["InfoGainSelector"]

INFOGAIN_NOTE = (
    "Runs are resampled within each agent; the information gain of a task "
    "is bounded by log2(n_agents), and near that bound the percentile "
    "intervals are descriptive."
)
_RUNS_NEEDED = (
    "InfoGainSelector intervals resample runs within agents: use "
    "input='runs' and pass y, the agent of each run."
)


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
    """Per (agent, column): number of non-NaN runs, mean, population std.

    Computed on each column divided by its largest magnitude, so that sums
    and squares of results near 1e308 cannot overflow.
    """
    n_runs = X.shape[0]
    observed = ~np.isnan(X)
    size = np.max(np.abs(np.where(observed, X, 0.0)), axis=0)
    # only where squares could overflow: ordinary data stay bit for bit
    size = np.where(size > 1e150, size, 1.0)
    X = X / size
    filled = np.where(observed, X, 0.0)
    onehot = sp.csr_matrix(
        (np.ones(n_runs), (y_index, np.arange(n_runs))), shape=(n_agents, n_runs)
    )
    counts = np.asarray(onehot @ observed.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.asarray(onehot @ filled) / counts
        deviation = np.where(observed, X - means[y_index], 0.0)
        stds = np.sqrt(np.asarray(onehot @ deviation**2) / counts)
    return counts, means * size, stds * size


def _first_cell(mask):
    return tuple(int(k) for k in np.argwhere(mask)[0])


# ----------------------------------------------------------------------------
# Estimator
# ----------------------------------------------------------------------------


class InfoGainSelector(TaskTableMixin, SelectorMixin, FitTemplateMixin, BaseEstimator):
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

    Read more in the user guide's task selection page.

    Parameters
    ----------
    n_tasks : int, float or "auto", default=10
        Number of tasks to select (the paper uses 10); a float in (0, 1] is a
        fraction of the tasks (at least one); ``"auto"`` stops when the best
        candidate no longer raises the gain by more than ``min_gain``. More
        tasks than available is an error.
    min_gain : float, default=0.0
        Minimal rise of the information gain, in bits, for
        ``n_tasks="auto"`` (a gain threshold, not a solver tolerance).
    input : {"runs", "agents"}, default="runs"
        Whether rows of ``X`` are runs (``y`` = agent of each run) or agents
        (``X`` = means, spreads from ``X_std``).
    groups : array-like of shape (n_features,) or None, default=None
        Task label of every column. Columns sharing a label are several
        measures of one task (for example win rate and score of a game,
        paper section V-B); they are combined as independent measures and
        selected together. ``n_tasks`` then counts tasks, not columns.
    method : {"continuous", "discrete"}, default="continuous"
        ``"discrete"`` is the binned baseline the paper rejects: means
        rounded to multiples of ``bin_width``; spreads are not used.
    std_offset : float, default=1e-3
        Added to every spread (the reference convention): zero spreads become
        valid, and a constant task adds exactly no information. Pass 0 for
        exact affine invariance (then every spread must be > 0).
    pair_spread : {"sum_std", "pooled"}, default="sum_std"
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
    scale : str, default="deprecated"
        Former name of ``pair_spread`` (deprecated in 0.2, removed in 0.3).
    tol : float, default="deprecated"
        Former name of ``min_gain`` (deprecated in 0.2, removed in 0.3).

    Attributes
    ----------
    agents_ : ndarray of shape (n_agents,)
        Agent labels (sorted ``y`` labels; the DataFrame index or
        ``0 .. n_agents - 1`` with ``input="agents"``). Formerly ``classes_``
        (a deprecated alias until 0.3).
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
    same information.

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
        "min_gain": [Interval(Real, None, None, closed="neither")],
        "tol": [Interval(Real, None, None, closed="neither"),
                Hidden(StrOptions({"deprecated"}))],
        "input": [StrOptions({"runs", "agents"})],
        "groups": ["array-like", None],
        "method": [StrOptions({"continuous", "discrete"})],
        "std_offset": [Interval(Real, 0, None, closed="left")],
        "pair_spread": [StrOptions(_SCALES)],
        "scale": [StrOptions(_SCALES), Hidden(StrOptions({"deprecated"}))],
        "prob_floor": [Interval(Real, 0, 1, closed="neither"), None],
        "bin_width": [Interval(Real, 0, None, closed="neither")],
        "search": [StrOptions({"greedy", "exhaustive"})],
        "max_subsets": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_tasks=10,
        *,
        min_gain=0.0,
        input="runs",
        groups=None,
        method="continuous",
        std_offset=1e-3,
        pair_spread="sum_std",
        prob_floor=None,
        bin_width=0.01,
        search="greedy",
        max_subsets=100_000,
        scale="deprecated",
        tol="deprecated",
    ):
        self.n_tasks = n_tasks
        self.min_gain = min_gain
        self.input = input
        self.groups = groups
        self.method = method
        self.std_offset = std_offset
        self.pair_spread = pair_spread
        self.prob_floor = prob_floor
        self.bin_width = bin_width
        self.search = search
        self.max_subsets = max_subsets
        self.scale = scale
        self.tol = tol

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
        return super().fit(X, y, X_std=X_std)

    def _check_fit_data(self, X, y=None, X_std=None):
        runs = self.input == "runs"
        names = _get_feature_names(X)
        index = row_labels(X, np.shape(X)[0]) if hasattr(X, "iloc") else None
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
        return (X, names, classes, means, stds, counts, columns, labels,
                column_task, n_groups, n_select)

    def _solve(self, checked):
        (X, names, classes, means, stds, counts, columns, labels,
         column_task, n_groups, n_select) = checked
        result = self._select(means, stds, column_task, n_groups, n_select)
        order, cumulative, single, confusion = result
        if labels is None:
            labels = columns
        fitted = {
            "n_features_in_": X.shape[1],
            "agents_": classes,
            "tasks_": np.asarray(labels),
            "means_": means,
            "stds_": stds,
            "n_runs_": counts,
            "information_gain_": single,
            "scores_": single[column_task],
            "selection_order_": order,
            "cumulative_gain_": cumulative,
            "max_information_": float(np.log2(len(classes))),
            "information_fraction_": float(cumulative[-1] / np.log2(len(classes))),
            "confusion_matrix_": confusion,
            "support_": np.isin(column_task, order),
        }
        if names is not None:
            fitted["feature_names_in_"] = names
        return fitted

    # -- protocol ------------------------------------------------------------

    @property
    def classes_(self):
        """Deprecated alias of ``agents_`` (removed in 0.3)."""
        check_is_fitted(self, "agents_")
        deprecated_alias("InfoGainSelector.classes_", "agents_")
        return self.agents_

    def _task_columns(self):
        n_tasks = self.tasks_.shape[0]
        pick = np.full(n_tasks, 0, dtype=np.int64)
        pick[self.selection_order_] = np.arange(1, self.selection_order_.shape[0] + 1)
        gain = np.full(n_tasks, np.nan)
        gain[self.selection_order_] = self.cumulative_gain_
        return {
            "information_gain": self.information_gain_,
            "selected": pick > 0,
            "selection_order": pick,
            "cumulative_gain": gain,
        }

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Tasks are ranked by ``"information_gain"``; runs are resampled
        within each agent, so ``input="runs"`` and ``y`` are required.

        Parameters
        ----------
        target : {"information_gain"} or None, default=None

        Returns
        -------
        plan : IntervalPlan
        """
        if target not in (None, "information_gain"):
            raise unknown_target(target, ("information_gain",), "InfoGainSelector")
        return IntervalPlan(
            target="information_gain", statistic="information_gain_",
            resample="runs", note=INFOGAIN_NOTE, requires_y=_RUNS_NEEDED,
            check_data=self._check_interval_data,
        )

    def _check_interval_data(self, X, y):
        if y is None or self.input != "runs":
            raise ValueError(_RUNS_NEEDED)

    def _select(self, means, stds, column_task, n_groups, n_select):
        if self.method == "discrete":
            bins = _kernels.bin_labels(means, self.bin_width)
            labels = _kernels.dense_task_labels(bins, column_task, n_groups)
            order, cumulative, single, cells = _kernels.greedy_discrete(
                labels, n_select, tol=self._min_gain()
            )
            same = cells[:, None] == cells[None, :]
            confusion = same / same.sum(axis=1, keepdims=True)
            return order, cumulative, single, confusion
        bank = _kernels.KernelBank(
            means, stds, column_task, n_groups,
            _check_pair_spread(self.pair_spread, self.scale),
            prob_floor=self.prob_floor,
        )
        order, cumulative, single, kernel = _kernels.greedy_forward(
            bank, 1 if self.search == "exhaustive" else n_select,
            tol=self._min_gain(),
        )
        if self.search == "exhaustive":
            order, kernel, cumulative = self._exhaustive(bank, n_select)
        confusion = _kernels.confusion_from_log_kernel(kernel, self.prob_floor)
        return order, cumulative, single, confusion

    def _min_gain(self):
        """``min_gain``, or the value given under its former name ``tol``."""
        if isinstance(self.tol, str) and self.tol == "deprecated":
            return self.min_gain
        deprecated_alias("InfoGainSelector(tol=...)", "min_gain")
        return self.tol

    def _exhaustive(self, bank, n_select):
        subset, _ = _kernels.exhaustive_best(bank, n_select, self.max_subsets)
        prefixes = np.cumsum(bank.block(0, bank.n_tasks)[subset], axis=0)
        cumulative = _kernels.gains_from_log_kernels(prefixes, self.prob_floor)
        return subset, prefixes[-1], np.asarray(cumulative, dtype=np.float64)

    def score(self, X, y=None):
        """Rank agreement of the selected tasks with all tasks on held-out data.

        Kendall's tau between the agents' mean over all tasks and their mean
        over the selected tasks (``make_subset_scorer("kendall_tau")``), so
        that ``GridSearchCV`` works without ``scoring=``. Agreement grows with
        the number of tasks: to choose ``n_tasks``, use
        :func:`choose_n_tasks`, which keeps the smallest size within a
        tolerance of the best.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Held-out runs (``input="runs"``) or agents (``input="agents"``).
        y : array-like of shape (n_samples,), default=None
            Agent of each run: required with ``input="runs"``, ignored with
            ``input="agents"``.

        Returns
        -------
        score : float
            In [-1, 1]; higher is better.

        Raises
        ------
        ValueError
            With ``input="runs"``, if ``y`` is None or does not hold one
            label per run.
        """
        from ._metrics import make_subset_scorer

        check_is_fitted(self, "support_")
        validate_data(
            self, X, reset=False, dtype=np.float64,
            ensure_all_finite="allow-nan" if self.input == "runs" else True,
        )
        return make_subset_scorer("kendall_tau")(self, X, y)

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_
