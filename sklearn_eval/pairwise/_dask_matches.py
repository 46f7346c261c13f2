"""Match tables on a Dask cluster: votes aggregated on the workers.

A batch rating (Bradley-Terry, its tie models and covariates) depends on the
matches only through the weighted counts of distinct rows (pair, covariate
cell, outcome): the batch fit aggregates them itself. On a Dask DataFrame of
votes the aggregation runs as a distributed groupby and only the distinct
rows and their counts reach the driver, where the in-memory fit runs on them
(as ``sample_weight``). Elo's online update is sequential in match order and
is not offered on Dask input.
"""

import numpy as np

from ..utils._dask import get_client, is_dask_collection

_Y = "__outcome__"
_W = "__weight__"


def _column(frame, value, name, what):
    """A Dask Series aligned with ``frame``: ``value`` or the column it names."""
    if isinstance(value, str):
        if value not in frame.columns:
            raise ValueError(f"{what} names the column {value!r}, which X does not "
                             f"have (columns: {list(frame.columns)}).")
        return frame[value], [c for c in frame.columns if c != value]
    if not is_dask_collection(value) or not hasattr(value, "to_frame"):
        raise TypeError(
            f"With a Dask DataFrame X, {what} must be a Dask Series aligned with X "
            f"or the name of a column of X; got {type(value).__name__}."
        )
    return value.rename(name), None


def aggregate_matches(X, y, sample_weight=None):
    """Distinct match rows and their total weights, grouped on the workers.

    Parameters
    ----------
    X : dask.dataframe.DataFrame
        The two player columns, then any numeric per-match covariates.
    y : dask.dataframe.Series or str
        The first player's outcome (1, 0, 0.5), aligned with ``X``, or the
        name of a column of ``X`` that holds it.
    sample_weight : dask.dataframe.Series, str or None, default=None
        Match weights (None: one per match).

    Returns
    -------
    X_distinct : pandas.DataFrame
        One row per distinct (players, covariates, outcome), in sorted order.
    y_distinct : ndarray of shape (n_distinct,)
    weight : ndarray of shape (n_distinct,)
        Total weight (number of matches, unweighted) of each distinct row.

    See Also
    --------
    bootstrap_bradley_terry : with ``frequency_weights=True``, resamples the
        matches from these counts (multinomial).

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from distributed import Client, LocalCluster
    >>> from sklearn_eval.pairwise import aggregate_matches
    >>> votes = pd.DataFrame({"a": ["x", "x", "y", "x"], "b": ["y", "y", "z", "y"],
    ...                       "winner_a": [1.0, 1.0, 0.0, 0.0]})
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=None,
    ...                   silence_logs=50) as cluster, Client(cluster):
    ...     X, y, weight = aggregate_matches(
    ...         dd.from_pandas(votes, npartitions=2), "winner_a")
    >>> X.values.tolist(), y.tolist(), weight.tolist()
    ([['x', 'y'], ['x', 'y'], ['y', 'z']], [0.0, 1.0, 0.0], [1.0, 2.0, 1.0])
    """
    get_client()  # the groupby runs on the cluster
    y, rest = _column(X, y, _Y, "y")
    if rest is not None:
        X = X[rest]
    keys = list(X.columns)
    frame = X.assign(**{_Y: y})
    if sample_weight is None:
        frame = frame.assign(**{_W: 1.0})
    else:
        weight, rest = _column(X, sample_weight, _W, "sample_weight")
        if rest is not None:
            raise ValueError("sample_weight and y must not both be columns of X; "
                             "pass Dask Series.")
        frame = frame.assign(**{_W: weight.astype("float64")})
    counts = (frame.groupby(keys + [_Y], sort=False, dropna=False)[_W].sum()
              .compute().reset_index())
    counts = counts.sort_values(keys + [_Y], kind="stable").reset_index(drop=True)
    weights = counts[_W].to_numpy(dtype=np.float64)
    return (counts[keys], counts[_Y].to_numpy(dtype=np.float64), weights)
