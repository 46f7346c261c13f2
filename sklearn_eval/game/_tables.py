"""Label capture and ranking tables shared by the game-family rankers."""

from __future__ import annotations

import numpy as np

__all__ = ["agent_labels", "competition_rank", "ranking_frame", "task_labels"]


def agent_labels(X, n_rows):
    """Row labels: a DataFrame's index, else ``0 .. n_rows - 1``."""
    index = getattr(X, "index", None)
    if index is not None and hasattr(X, "columns") and len(index) == n_rows:
        return np.asarray(index, dtype=object)
    return np.arange(n_rows)


def task_labels(estimator, n_columns):
    """Column labels: ``feature_names_in_`` when set, else ``0 .. n - 1``."""
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        return np.asarray(names, dtype=object)
    return np.arange(n_columns)


def competition_rank(scores, rtol=0.0):
    """Rank 1 = best; scores equal within ``rtol * max|score|`` share the min rank."""
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(scores.shape[0], dtype=np.int64)
    scale = rtol * max(1.0, float(np.max(np.abs(scores)))) if scores.size else 0.0
    rank = 1
    for pos, idx in enumerate(order):
        if pos and scores[order[pos - 1]] - scores[idx] > scale:
            rank = pos + 1
        ranks[idx] = rank
    return ranks


def ranking_frame(labels, scores, index_name, columns=None, rank=None, rtol=0.0):
    """DataFrame indexed by ``labels``: ``score``, ``rank``, then ``columns``."""
    import pandas as pd

    data = {"score": np.asarray(scores, dtype=np.float64)}
    data["rank"] = competition_rank(scores, rtol) if rank is None else rank
    for name, values in (columns or {}).items():
        data[name] = values
    frame = pd.DataFrame(data, index=pd.Index(list(labels), name=index_name))
    return frame
