"""The joint uncertainty of all agents' scores, through the ranking protocol.

:func:`rank_sets` and :func:`compare_agents` need more than one interval per
agent: the joint distribution of the scores, as a covariance (analytic
paths) or as bootstrap replicates in which every agent is refitted on the
same resample (which makes comparisons paired). Both come from the
estimator's interval plan; ``estimator="mean"`` ranks the rows of a result
matrix by their mean over the tasks, with the exact paired covariance.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.stats import norm
from sklearn.base import BaseEstimator

from ..base import FitTemplateMixin
from ..utils._clusters import check_groups
from ..utils._resampling import IntervalPlan, normal_draws, summarize_samples
from ..utils._validation import _is_dataframe, check_result_matrix
from ._dispatch import _plan, declared_plan, plan_intervals

__all__ = ["MeanScore", "joint_scores"]

_METHODS = ("auto", "analytic", "bootstrap")


class AnalyticUnavailable(ValueError):
    """An analytic path that does not exist for these data (e.g. missing
    results); ``method="auto"`` then takes the bootstrap."""


class MeanScore(FitTemplateMixin, BaseEstimator):
    """Agents (rows) scored by their mean result over the tasks (columns).

    The ranking behind ``estimator="mean"``: accuracy on items for a 0/1
    result matrix. NaN results are skipped.
    """

    _parameter_constraints: dict = {}

    def fit(self, X, y=None):
        """Score each agent by its mean result.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results; NaN is skipped.
        y : None
            Ignored.

        Returns
        -------
        self : MeanScore
            The fitted estimator.
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        if np.ndim(X) != 2:
            raise ValueError(
                f"estimator='mean' needs a 2-D result matrix (agents x tasks); "
                f"got shape {np.shape(X)}."
            )
        # the library's one check of a result matrix: numbers, no inf, unique
        # and present labels, names the row and column it refuses
        checked = check_result_matrix(X, allow_nan=True)
        return X, checked.values

    def _solve(self, checked):
        X, values = checked
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN row
            scores = np.nanmean(values, axis=1)
        return {
            "agents_": (np.asarray(X.index) if _is_dataframe(X)
                        else np.arange(values.shape[0])),
            "agent_scores_": scores,
        }

    def __sklearn_eval_intervals__(self, target=None):
        return IntervalPlan(
            target="mean", statistic="agent_scores_", resample="tasks",
            analytic=_mean_analytic, options=("groups",),
        )


def _mean_analytic(X, y, sample_weight, *, confidence_level, n_draws,
                   random_state, groups=None):
    """Means over tasks with their paired (cluster-robust) covariance."""
    checked = MeanScore()._check_fit_data(X)
    values = checked[1]
    if np.isnan(values).any():
        raise AnalyticUnavailable(
            "estimator='mean' with method='analytic' needs a complete result "
            "matrix (no NaN); use method='bootstrap'."
        )
    n_tasks = values.shape[1]
    if n_tasks < 2:
        raise ValueError("estimator='mean' needs at least two tasks (columns).")
    with np.errstate(over="ignore", invalid="ignore"):
        estimate = values.mean(axis=1)
        centred = values - estimate[:, None]
        if groups is None:
            cov = centred @ centred.T / (n_tasks * (n_tasks - 1))
        else:
            codes, n_groups = check_groups(groups, n_tasks, "task (column of X)")
            summed = np.zeros((values.shape[0], n_groups))
            np.add.at(summed.T, codes, centred.T)
            cov = summed @ summed.T / n_tasks**2 * (n_groups / (n_groups - 1.0))
    if not (np.isfinite(estimate).all() and np.isfinite(cov).all()):
        raise ValueError(
            "The scores are too large for the covariance of the agents' means "
            f"(up to {np.max(np.abs(values)):.4g}: their squares overflow a "
            "64-bit float); rescale them (e.g. divide them by 1e150)."
        )
    labels = MeanScore()._solve(checked)["agents_"]  # checked once, above
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    z = norm.ppf(0.5 + confidence_level / 2.0)
    draws = normal_draws(estimate, cov, n_draws, random_state)
    return summarize_samples(
        labels, estimate, draws, confidence_level=confidence_level,
        low=estimate - z * se, high=estimate + z * se,
        method="paired" if groups is None else "cluster-robust paired",
        covariance=cov,
    )


def resolve(estimator, target, prefit=False):
    """The estimator and plan (``"mean"`` -> :class:`MeanScore`).

    ``prefit=True``: a fitted estimator, whose analytic path reuses its
    fitted state (see :func:`~._dispatch.declared_plan`).
    """
    if prefit:
        return declared_plan(estimator, target, prefit)
    if isinstance(estimator, str):
        if estimator != "mean":
            raise ValueError(
                f"estimator must be an estimator with an interval plan or "
                f"'mean'; got {estimator!r}."
            )
        estimator = MeanScore()
    return estimator, _plan(estimator, target)


def check_common(method, confidence_level, n_resamples):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    if (not isinstance(confidence_level, numbers.Real)
            or isinstance(confidence_level, bool) or not 0 < confidence_level < 1):
        raise ValueError(
            f"confidence_level must lie in (0, 1); got {confidence_level!r}."
        )
    if (not isinstance(n_resamples, numbers.Integral) or isinstance(n_resamples, bool)
            or n_resamples < 2):
        raise ValueError(f"n_resamples must be an int >= 2; got {n_resamples!r}.")


class Joint:
    """Scores (higher is better) with a covariance or bootstrap replicates."""

    def __init__(self, result, analytic, higher_is_better):
        sign = 1.0 if higher_is_better else -1.0
        self.sign = sign
        self.labels = np.asarray(result.labels)
        self.score = sign * np.asarray(result.estimate, dtype=np.float64)
        self.rank = np.asarray(result.rank)
        self.analytic = analytic and result.covariance is not None
        self.cov = result.covariance if self.analytic else None
        # bootstrap replicates, or (analytic) draws of the estimated normal
        self.samples = sign * np.asarray(result.samples, dtype=np.float64)
        self.method = result.method
        self.note = result.note
        self.result = result


def joint_scores(estimator, X, y, *, sample_weight, target, method, groups,
                 n_resamples, confidence_level, random_state, n_jobs,
                 frequency_weights, prefit=False):
    """The joint distribution of the scores, analytic where the plan allows.

    ``method="auto"``: the plan's analytic path when it has one (and, with
    ``groups``, a cluster-robust one); the bootstrap (drawing clusters with
    ``groups``) otherwise.
    """
    check_common(method, confidence_level, n_resamples)
    estimator, plan = resolve(estimator, target, prefit)
    analytic = method == "analytic" or (
        method == "auto" and plan.analytic is not None
        and (groups is None or "groups" in plan.options)
    )
    options = {
        "sample_weight": sample_weight, "n_resamples": n_resamples,
        "confidence_level": confidence_level, "random_state": random_state,
        "n_jobs": n_jobs, "groups": groups, "frequency_weights": frequency_weights,
    }
    try:
        result = plan_intervals(
            estimator, plan, X, y,
            method="analytic" if analytic else "bootstrap", **options,
        )
    except AnalyticUnavailable:
        if method != "auto":
            raise
        # "auto" means the analytic path where one exists for these data
        analytic = False
        result = plan_intervals(estimator, plan, X, y, method="bootstrap", **options)
    return Joint(result, analytic, plan.higher_is_better)
