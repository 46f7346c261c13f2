"""The ranking protocol every estimator of the library speaks.

An estimator that scores agents exposes ``agents_`` (their labels),
``agent_scores_`` (higher = better: what its ranking is by) and
``agent_table()``; one that learns about tasks exposes ``tasks_`` and
``task_table()``. Tables are pandas DataFrames indexed by label, so results
from different estimators join on the index. Fitting follows one pattern:
validate, compute into locals with pure functions, then
:func:`assign_fitted` sets every fitted attribute at once, so a failure
anywhere leaves the previous fitted state untouched.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted

from ._ranks import RANK_RTOL, agent_ranks, rank_scores
from ._sklearn_compat import _get_feature_names
from ._validation import check_frame_labels

__all__ = [
    "AgentRankerMixin",
    "TaskTableMixin",
    "assign_fitted",
    "check_fit_input",
    "column_labels",
    "competition_rank",
    "deprecated_alias",
    "row_labels",
]


def competition_rank(scores, rtol=RANK_RTOL):
    """Rank 1 = highest score, ties sharing the best rank (:func:`rank_scores`).

    Kept for the old call form; scores closer than ``rtol * max(1,
    max|score|)`` tie (the library's one rank rule).
    """
    return rank_scores(scores, rtol=rtol)


def row_labels(X, n_rows):
    """Agent labels of a result matrix: the DataFrame index, else 0..n-1."""
    index = getattr(X, "index", None)
    if index is not None and hasattr(X, "iloc") and len(index) == n_rows:
        check_frame_labels(X)
        return np.asarray(index)
    return np.arange(n_rows)


def column_labels(X, n_columns):
    """Task labels of a result matrix: the DataFrame columns, else 0..n-1."""
    columns = getattr(X, "columns", None)
    if columns is not None and hasattr(X, "iloc") and len(columns) == n_columns:
        check_frame_labels(X)
        return np.asarray(columns)
    return np.arange(n_columns)


def assign_fitted(estimator, attributes):
    """Set every fitted attribute at once, dropping stale ones of a past fit.

    Public fitted attributes (``name_``) that this fit does not produce, such
    as ``feature_names_in_`` after a fit on an array or ``task_distribution_``
    after switching games, are removed so the estimator never mixes two fits.
    """
    stale = [
        name for name in vars(estimator)
        if name.endswith("_") and not name.startswith("_")
        and not name.endswith("__") and name not in attributes
    ]
    for name in stale:
        delattr(estimator, name)
    for name, value in attributes.items():
        setattr(estimator, name, value)
    return estimator


def _frame(pd, columns, labels, index_name):
    return pd.DataFrame(columns, index=pd.Index(np.asarray(labels), name=index_name))


class AgentRankerMixin:
    """``agent_table()`` for estimators that score agents.

    Subclasses provide the fitted ``agents_`` and ``agent_scores_`` and may
    override ``_agent_columns()`` (extra per-agent columns, in order) and
    ``_agent_score_se()`` (standard errors of the scores, or None).
    """

    def _agent_columns(self):
        return {}

    def _agent_score_se(self):
        return None

    def _rank_rtol(self):
        """Relative gap under which scores tie (``RANK_RTOL``; larger for solvers)."""
        return RANK_RTOL

    def agent_table(self):
        """Per-agent results as a DataFrame, best agent first.

        Indexed by agent label (index name ``"agent"``). Columns: ``score``
        (``agent_scores_``, higher is better), ``rank`` (1 = best, ties share
        the best rank), the estimator's other per-agent quantities, and
        ``score_se`` where the estimator has standard errors.

        Returns
        -------
        table : pandas.DataFrame of shape (n_agents, n_columns)
        """
        check_is_fitted(self)
        scores = np.asarray(self.agent_scores_, dtype=np.float64)
        ranks = agent_ranks(self)
        columns = {"score": scores, "rank": ranks}
        columns.update(self._agent_columns())
        se = self._agent_score_se()
        if se is not None:
            columns["score_se"] = np.asarray(se, dtype=np.float64)
        table = _frame(pd, columns, self.agents_, "agent")
        # best first (by score within a tie); NaN ranks (NaN scores) last
        order = np.lexsort((-scores, np.asarray(columns["rank"], dtype=float)))
        return table.iloc[order]


def _plays_tasks(estimator):
    """Whether ``estimator`` learns about tasks: no ``game`` or an agent-vs-task one."""
    game = getattr(estimator, "game", "agent_vs_task")
    if game != "agent_vs_task":
        raise AttributeError(
            f"task_table() is defined for game='agent_vs_task' only; this "
            f"{type(estimator).__name__} has game={game!r}, whose columns are the "
            "agents, not tasks."
        )
    return True


class TaskTableMixin:
    """``task_table()`` for estimators that learn about tasks.

    Subclasses provide the fitted ``tasks_`` and ``_task_columns()``. An
    estimator with a ``game`` parameter has ``task_table`` only for
    ``game="agent_vs_task"`` (``hasattr(est, "task_table")`` is False for an
    agent-vs-agent game).
    """

    @available_if(_plays_tasks)
    def task_table(self):
        """Per-task results as a DataFrame, in the order of the tasks.

        Indexed by task label (index name ``"task"``); the columns are the
        estimator's per-task quantities (see its ``_task_columns``
        description in the class docstring).

        Returns
        -------
        table : pandas.DataFrame of shape (n_tasks, n_columns)
        """
        check_is_fitted(self)
        return _frame(pd, self._task_columns(), self.tasks_, "task")


def deprecated_alias(old, new, version="0.3"):
    """A FutureWarning for a renamed name, kept for one release."""
    warnings.warn(
        f"{old} was renamed to {new} in 0.2; the old name will be removed in "
        f"{version}.",
        FutureWarning,
        stacklevel=3,
    )


def check_fit_input(X, **check_params):
    """Validate ``X`` for ``fit`` without touching the estimator.

    ``check_array`` plus the input attributes that ``fit`` will assign at
    its end (``n_features_in_`` and, for DataFrames with string column
    names, ``feature_names_in_``), so validation never leaves a half-updated
    estimator behind.

    Returns
    -------
    X_checked : ndarray
    attributes : dict
    """
    check_frame_labels(X)
    names = _get_feature_names(X)
    X_checked = check_array(X, **check_params)
    attributes = {"n_features_in_": int(X_checked.shape[1])}
    if names is not None:
        attributes["feature_names_in_"] = names
    return X_checked, attributes
