"""Labels and tables of the ranking protocol for the IRT family.

``agents_`` and ``tasks_`` are the row and column labels of the training
matrix; ``agent_table()`` and ``task_table()`` are pandas DataFrames indexed
by them (index names ``"agent"`` and ``"task"``).
"""

import numpy as np
from scipy.stats import rankdata

from ..utils._validation import _is_dataframe


def _agent_labels(X, n_agents):
    """Row labels: a DataFrame's index, else ``0..n_agents-1``."""
    if _is_dataframe(X):
        return np.asarray(X.index)
    return np.arange(n_agents)


def _task_labels(X, n_tasks):
    """Column labels: a DataFrame's columns, else ``0..n_tasks-1``."""
    if _is_dataframe(X):
        return np.asarray(X.columns)
    return np.arange(n_tasks)


def _competition_ranks(scores):
    """Ranks with 1 = highest score, ties sharing the best rank.

    int64 when every score is a number; float64 with NaN at NaN scores
    otherwise (as pandas' ``rank``).
    """
    scores = np.asarray(scores, dtype=np.float64)
    missing = np.isnan(scores)
    ranks = rankdata(np.where(missing, np.inf, -scores), method="min")
    if not missing.any():
        return ranks.astype(np.int64)
    ranks = ranks.astype(np.float64)
    ranks[missing] = np.nan
    return ranks


def _pandas(method):
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is optional
        raise ImportError(f"{method}() needs pandas: pip install pandas") from exc
    return pd


def _agent_table(agents, scores, columns, method="agent_table"):
    """DataFrame indexed by agent: ``score``, ``rank``, then ``columns``."""
    pd = _pandas(method)
    data = {"score": np.asarray(scores, dtype=np.float64),
            "rank": _competition_ranks(scores), **columns}
    return pd.DataFrame(data, index=pd.Index(agents, name="agent"))


def _task_table(tasks, columns, method="task_table"):
    """DataFrame indexed by task with the per-task ``columns``."""
    pd = _pandas(method)
    return pd.DataFrame(dict(columns), index=pd.Index(tasks, name="task"))
