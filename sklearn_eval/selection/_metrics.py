"""Does a subset of tasks stand in for the whole benchmark?

Library additions (the paper only reports the cumulative information gain):
rank agreement between agents ranked on the subset and on all tasks, and the
cross-validated error of predicting an agent's full-benchmark mean from its
results on the subset; a scorer for ``validation_curve``; and a rule to pick the
smallest subset size whose agreement is within a tolerance of the best (a bare
``GridSearchCV`` would always pick the largest subset, since agreement grows
with the size).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import (
    KFold,
    LeaveOneOut,
    StratifiedKFold,
    cross_val_predict,
    validation_curve,
)
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.validation import check_is_fitted

from ..metrics import kendall_tau, spearman_rho
from ..utils import check_result_matrix

__all__ = ["choose_n_tasks", "make_subset_scorer", "subset_agreement"]

_NORMALIZE = (None, "minmax")
_METRICS = ("kendall_tau", "spearman_rho", "neg_mean_absolute_error")


def _subset_mask(subset, n_tasks):
    if hasattr(subset, "get_support"):
        mask = np.asarray(subset.get_support(), dtype=bool)
    else:
        subset = np.asarray(subset)
        if subset.dtype == bool:
            mask = subset
        elif subset.dtype.kind in "iu":
            if subset.size and (subset.min() < -n_tasks or subset.max() >= n_tasks):
                raise ValueError(
                    f"subset indices must be in [0, {n_tasks}); got {subset.tolist()}."
                )
            mask = np.zeros(n_tasks, dtype=bool)
            mask[subset] = True
        else:
            raise TypeError(
                "subset must be a boolean mask, integer column indices or a fitted "
                f"selector; got an array of dtype {subset.dtype}."
            )
    if mask.shape != (n_tasks,):
        raise ValueError(
            f"subset mask must have one entry per task ({n_tasks}); got {mask.shape}."
        )
    if not mask.any():
        raise ValueError("subset selects no task.")
    return mask


def _minmax(values, low, high):
    span = high - low
    flat = ~(span > 0)
    return np.where(flat, 0.0, (values - low) / np.where(flat, 1.0, span))


def _normalize(values, normalize, reference=None):
    if normalize not in _NORMALIZE:
        raise ValueError(f"normalize must be None or 'minmax'; got {normalize!r}.")
    if normalize is None:
        return values
    reference = values if reference is None else reference
    return _minmax(values, reference.min(axis=0), reference.max(axis=0))


def _loo_linear_predictions(features, target):
    """Leave-one-out predictions of least squares with intercept, in closed form.

    ``prediction_i = y_i - r_i / (1 - h_ii)`` with ``r`` the residuals and ``h``
    the leverages of the full fit; None when some ``h_ii`` is 1 (the left-out
    row is needed to fit itself), so the caller refits explicitly.
    """
    design = np.column_stack([np.ones(len(target)), features])
    hat = design @ np.linalg.pinv(design)
    leverage = np.diag(hat)
    if not (leverage < 1 - 1e-8).all():
        return None
    residual = target - hat @ target
    return target - residual / (1 - leverage)


def subset_agreement(X, subset, *, normalize=None, cv=None, estimator=None):
    """How well a subset of tasks reproduces the full benchmark.

    Agents are scored by their mean result over all tasks and over the subset;
    the function reports the rank agreement of the two scores and the error of
    predicting the full-benchmark mean from the subset's results with a
    regression model cross-validated over agents.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
        Agent-level results (for example mean win rates), complete.
    subset : array-like of bool or int, or fitted selector
        The subset: a boolean mask over tasks, column indices, or a fitted
        selector (its ``get_support()``).
    normalize : {None, "minmax"}, default=None
        Rescale every task to [0, 1] by its minimum and maximum over agents
        before averaging (constant tasks become 0).
    cv : int, cross-validation generator or None, default=None
        Splitting of the agents for the prediction error; None is leave-one-out.
    estimator : regressor or None, default=None
        Model predicting the full mean from the subset's columns; None is
        ``LinearRegression()``.

    Returns
    -------
    result : Bunch
        ``kendall_tau``, ``spearman_rho`` (full vs subset mean),
        ``mean_absolute_error`` and ``root_mean_squared_error`` of the
        cross-validated predictions, ``full_score``, ``subset_score`` and
        ``predicted`` (one entry per agent).

    See Also
    --------
    make_subset_scorer, choose_n_tasks

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.selection import subset_agreement
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 1)) + rng.normal(scale=0.5, size=(20, 8))
    >>> result = subset_agreement(X, [0, 1, 2])
    >>> bool(result.kendall_tau > 0.5)
    True
    """
    values, _, _ = check_result_matrix(X)
    if values.shape[0] < 3:
        raise ValueError(
            f"subset_agreement needs at least 3 agents; X has {values.shape[0]}."
        )
    mask = _subset_mask(subset, values.shape[1])
    values = _normalize(values, normalize)
    full = values.mean(axis=1)
    partial = values[:, mask].mean(axis=1)
    predicted = None
    if estimator is None and cv is None:
        predicted = _loo_linear_predictions(values[:, mask], full)
    if predicted is None:
        model = LinearRegression() if estimator is None else clone(estimator)
        predicted = cross_val_predict(
            model, values[:, mask], full, cv=LeaveOneOut() if cv is None else cv
        )
    error = predicted - full
    return Bunch(
        kendall_tau=kendall_tau(full, partial),
        spearman_rho=spearman_rho(full, partial),
        mean_absolute_error=float(np.mean(np.abs(error))),
        root_mean_squared_error=float(np.sqrt(np.mean(error**2))),
        full_score=full,
        subset_score=partial,
        predicted=predicted,
    )


def _agent_means(selector, X, y):
    """Agent-level means of held-out data, in the selector's own representation."""
    if getattr(selector, "input", "agents") != "runs":
        values, _, _ = check_result_matrix(X)
        return values
    X = np.asarray(X, dtype=np.float64)
    if y is None:
        raise ValueError(
            "Scoring run-level data (input='runs') requires y, the agent of "
            "every run; got y=None.")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(
            f"y must hold one agent label per run: X has {X.shape[0]} runs, y "
            f"has shape {y.shape}.")
    agents, index = np.unique(y, return_inverse=True)
    sums = np.zeros((len(agents), X.shape[1]))
    counts = np.zeros((len(agents), X.shape[1]))
    observed = ~np.isnan(X)
    np.add.at(sums, index, np.where(observed, X, 0.0))
    np.add.at(counts, index, observed)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    complete = ~np.isnan(means).any(axis=1)
    return means[complete]


def _is_subset_selector(step):
    return hasattr(step, "get_support") and hasattr(step, "means_")


def _fitted_selector(estimator, X):
    """The fitted task selector to score, and ``X`` as it reaches it.

    A Pipeline is searched from its last step backwards for a fitted
    selector (one with ``get_support`` and ``means_``); the held-out data is
    passed through the steps before it, as the pipeline would.
    """
    steps = getattr(estimator, "steps", None)
    if steps is None:
        check_is_fitted(estimator, "support_")
        return estimator, X
    for position in range(len(steps) - 1, -1, -1):
        step = steps[position][1]
        if _is_subset_selector(step):
            check_is_fitted(step, "support_")
            if position:
                X = estimator[:position].transform(X)
            return step, X
    raise TypeError(
        "The subset scorer needs a fitted task selector (an InfoGainSelector); "
        f"the pipeline {[name for name, _ in steps]} has none."
    )


class _SubsetScorer:
    """Scorer ``(selector, X, y) -> float`` built by :func:`make_subset_scorer`."""

    def __init__(self, metric, normalize):
        self.metric = metric
        self.normalize = normalize

    def __call__(self, estimator, X, y=None):
        selector, X = _fitted_selector(estimator, X)
        n_features = np.shape(X)[1] if np.ndim(X) == 2 else None
        if n_features != selector.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but the selector was fitted on "
                f"{selector.n_features_in_}."
            )
        mask = np.asarray(selector.get_support(), dtype=bool)
        train = np.asarray(selector.means_)
        test = _agent_means(selector, X, y)
        if test.shape[0] < 2:
            raise ValueError(
                "The held-out data has fewer than 2 agents with complete results; "
                "use fewer folds (or stratified folds for run-level data)."
            )
        train_values = _normalize(train, self.normalize)
        test_values = _normalize(test, self.normalize, reference=train)
        full = test_values.mean(axis=1)
        if self.metric == "neg_mean_absolute_error":
            model = LinearRegression().fit(
                train_values[:, mask], train_values.mean(axis=1)
            )
            return -float(np.mean(np.abs(model.predict(test_values[:, mask]) - full)))
        partial = test_values[:, mask].mean(axis=1)
        metric = kendall_tau if self.metric == "kendall_tau" else spearman_rho
        return metric(full, partial)

    def __repr__(self):
        return (
            f"make_subset_scorer(metric={self.metric!r}, normalize={self.normalize!r})"
        )


def make_subset_scorer(metric="kendall_tau", *, normalize=None):
    """Scorer of a fitted task selector on held-out agents (or runs).

    For use as ``scoring=`` in ``validation_curve``, ``cross_validate`` or
    :func:`choose_n_tasks`. On the held-out data it compares the agents' mean
    over all tasks with their mean over the selected tasks:

    - ``"kendall_tau"`` / ``"spearman_rho"``: rank agreement of the two means;
    - ``"neg_mean_absolute_error"``: minus the error of predicting the full mean
      from the selected columns with a linear model fitted on the selector's
      training agents (``means_``).

    Run-level data (``input="runs"``) is averaged per agent first; agents
    without a result on some task in the held-out runs are left out.

    Parameters
    ----------
    metric : {"kendall_tau", "spearman_rho", "neg_mean_absolute_error"}
    normalize : {None, "minmax"}, default=None
        Rescale tasks by the training agents' minimum and maximum.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y=None) -> float``, greater is better. The
        estimator is a fitted selector or a Pipeline containing one (the
        held-out data then goes through the steps before the selector).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.selection import InfoGainSelector, make_subset_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(12, 1)) + rng.normal(scale=0.3, size=(12, 6))
    >>> selector = InfoGainSelector(n_tasks=3, input="agents").fit(X)
    >>> scorer = make_subset_scorer("spearman_rho")
    >>> bool(scorer(selector, X) > 0.5)
    True
    """
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {_METRICS}; got {metric!r}.")
    if normalize not in _NORMALIZE:
        raise ValueError(f"normalize must be None or 'minmax'; got {normalize!r}.")
    return _SubsetScorer(metric, normalize)


def _default_cv(selector, random_state):
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    if getattr(selector, "input", "agents") == "runs":
        return StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    return KFold(n_splits=5, shuffle=True, random_state=seed)


def choose_n_tasks(
    selector,
    X,
    y=None,
    *,
    sizes=None,
    scoring="kendall_tau",
    tol=0.02,
    cv=None,
    params=None,
    n_jobs=None,
    random_state=None,
):
    """Smallest number of tasks whose held-out agreement is within ``tol`` of the best.

    Agreement with the full benchmark grows with the subset size, so choosing
    the size that maximises it always picks the largest subset. This helper
    runs ``validation_curve`` over ``n_tasks`` and returns the smallest size
    whose mean score is at least ``best - tol``.

    Parameters
    ----------
    selector : InfoGainSelector (unfitted)
    X, y : data as accepted by ``selector.fit``
    sizes : array-like of int or None, default=None
        Candidate values of ``n_tasks``; None is ``1 .. min(20, n_tasks_total)``.
    scoring : str or callable, default="kendall_tau"
        A metric name of :func:`make_subset_scorer`, or a scorer.
    tol : float, default=0.02
        Tolerance below the best mean score.
    cv : int, cross-validation generator or None, default=None
        None: 5 shuffled folds, stratified by agent for run-level data.
    params : dict or None, default=None
        Extra fit parameters (for example ``{"X_std": X_std}``), split with the
        rows.
    n_jobs : int or None, default=None
    random_state : int, RandomState instance or None, default=None
        Seeds the default folds.

    Returns
    -------
    result : Bunch
        ``n_tasks`` (the choice), ``sizes``, ``mean_scores``, ``std_scores``
        and ``scores`` (sizes x folds).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.selection import InfoGainSelector, choose_n_tasks
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 1)) + rng.normal(scale=0.3, size=(30, 8))
    >>> result = choose_n_tasks(InfoGainSelector(input="agents"), X,
    ...                         sizes=[1, 2, 4, 8], random_state=0)
    >>> int(result.n_tasks) in (1, 2, 4, 8)
    True
    """
    if sizes is None:
        n_columns = np.shape(X)[1]
        groups = getattr(selector, "groups", None)
        n_total = n_columns if groups is None else len(np.unique(np.asarray(groups)))
        sizes = np.arange(1, min(20, n_total) + 1)
    sizes = np.asarray(sizes)
    if sizes.ndim != 1 or sizes.size == 0 or not all(
        isinstance(s, Integral) and s >= 1 for s in sizes.tolist()
    ):
        raise ValueError(f"sizes must be a non-empty list of ints >= 1; got {sizes}.")
    scorer = make_subset_scorer(scoring) if isinstance(scoring, str) else scoring
    cv = _default_cv(selector, random_state) if cv is None else cv
    _, scores = validation_curve(
        selector,
        X,
        y,
        param_name="n_tasks",
        param_range=sizes,
        scoring=scorer,
        cv=cv,
        params=params,
        n_jobs=n_jobs,
        error_score="raise",
    )
    mean_scores = scores.mean(axis=1)
    if np.isnan(mean_scores).any():
        raise ValueError(
            "Some folds gave an undefined score (NaN), for example constant means; "
            f"mean scores per size: {mean_scores.tolist()}."
        )
    best = mean_scores.max()
    choice = sizes[np.flatnonzero(mean_scores >= best - tol)[0]]
    return Bunch(
        n_tasks=int(choice),
        sizes=sizes,
        mean_scores=mean_scores,
        std_scores=scores.std(axis=1),
        scores=scores,
    )
