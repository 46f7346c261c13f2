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

from ..utils._dask import get_client, is_dask_collection, reject_dask

_Y = "__outcome__"
_W = "__weight__"


def reject_dask_matches(estimator, X, what):
    """TypeError for Dask input anywhere but EloRanker's batch ``fit``."""
    reject_dask(
        X, f"{type(estimator).__name__} ({what})",
        "Only EloRanker(method='batch').fit counts Dask matches on the workers; "
        "compute the rows first (X.compute()) to use them here.",
    )


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
        Match weights (None: one per match), finite and non-negative (checked
        on the workers, before the sums), or the name of a column of ``X``
        that holds them.

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
    import dask

    if not hasattr(X, "groupby"):
        raise TypeError(
            "aggregate_matches needs a Dask DataFrame of matches (the player "
            f"columns, then any covariates); got {type(X).__name__}. Convert a "
            "Dask array with dask.dataframe.from_dask_array."
        )
    get_client()  # the groupby runs on the cluster
    y, rest = _column(X, y, _Y, "y")
    if rest is not None:
        X = X[rest]
    weight = None
    if sample_weight is not None:
        weight, rest = _column(X, sample_weight, _W, "sample_weight")
        if rest is not None:
            X = X[rest]
    keys = list(X.columns)
    frame = X.assign(**{_Y: y})
    if weight is None:
        frame = frame.assign(**{_W: 1.0})
        first_bad = None
    else:
        weight = weight.astype("float64")
        frame = frame.assign(**{_W: weight})
        # checked on the workers, before the sums can hide a bad weight (a
        # NaN skipped, -1 cancelling +1): the first one, as fit's check does
        first_bad = weight[~(weight >= 0.0) | (weight == np.inf)].head(
            1, npartitions=-1, compute=False)
    counts, first_bad = dask.compute(
        frame.groupby(keys + [_Y], sort=False, dropna=False)[_W].sum(), first_bad)
    if first_bad is not None and len(first_bad):
        _raise_bad_weight(first_bad.index[0], float(first_bad.iloc[0]))
    counts = counts.reset_index()
    counts = counts.sort_values(keys + [_Y], kind="stable").reset_index(drop=True)
    weights = counts[_W].to_numpy(dtype=np.float64)
    return (counts[keys], counts[_Y].to_numpy(dtype=np.float64), weights)


def _raise_bad_weight(label, value):
    """The ValueError of fit's weight check, naming the row by its index label."""
    if not np.isfinite(value):
        raise ValueError(
            f"sample_weight has a non-finite value ({value}) at index label "
            f"{label!r} of the Dask DataFrame."
        )
    raise ValueError(
        f"sample_weight must be non-negative; got {value} at index label "
        f"{label!r} of the Dask DataFrame."
    )
