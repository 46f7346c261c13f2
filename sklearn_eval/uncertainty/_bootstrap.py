"""Bootstrap intervals for any ranking the library produces.

The resampling unit follows the data shape: matches for pairwise data, agents
or tasks for result matrices, runs within each agent for run-level data.
Every resample draws from its own random stream, spawned from one
``numpy.random.SeedSequence``, so results do not depend on ``n_jobs`` or on
how resamples are split between workers.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ..utils._validation import _is_dataframe, lookup_players

__all__ = ["BootstrapResult", "bootstrap_ranking"]

_UNITS = ("matches", "agents", "tasks", "runs")


@dataclass
class BootstrapResult:
    """Intervals for a ranking, from :func:`bootstrap_ranking`.

    Attributes
    ----------
    labels : ndarray of shape (n_items,)
        What is ranked (players, agents or tasks).
    estimate : ndarray of shape (n_items,)
        The statistic on the full data.
    low, high : ndarray of shape (n_items,)
        Percentile interval bounds at ``confidence_level``.
    rank : ndarray of shape (n_items,)
        Rank on the full data (1 = best).
    rank_low, rank_high : ndarray of shape (n_items,)
        Percentile interval of the rank ("rank 2-4").
    prob_above : ndarray of shape (n_items, n_items)
        ``prob_above[i, j]`` is the share of resamples in which i ranks above
        j (ties count half).
    samples : ndarray of shape (n_resamples, n_items)
        The statistic on each resample (NaN where an item is absent).
    confidence_level : float
    """

    labels: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    prob_above: np.ndarray
    samples: np.ndarray = field(repr=False)
    confidence_level: float = 0.95

    def to_frame(self):
        """The intervals as a DataFrame sorted by rank (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("to_frame() needs pandas: pip install pandas") from exc
        frame = pd.DataFrame(
            {
                "estimate": self.estimate,
                "low": self.low,
                "high": self.high,
                "rank": self.rank,
                "rank_low": self.rank_low,
                "rank_high": self.rank_high,
            },
            index=pd.Index(self.labels, name="item"),
        )
        return frame.sort_values("rank", kind="stable")


def _rng_streams(random_state, n_resamples):
    if isinstance(random_state, np.random.SeedSequence):
        root = random_state
    elif isinstance(random_state, np.random.RandomState):
        root = np.random.SeedSequence(int(random_state.randint(2**31 - 1)))
    elif random_state is None or isinstance(random_state, numbers.Integral):
        root = np.random.SeedSequence(random_state)
    else:
        raise TypeError(
            "random_state must be None, an int, a SeedSequence or a RandomState; "
            f"got {type(random_state).__name__}."
        )
    return root.spawn(n_resamples)


def _take_rows(X, idx):
    if _is_dataframe(X):
        return X.iloc[idx]
    return np.asarray(X)[idx]


def _take_columns(X, idx):
    if _is_dataframe(X):
        taken = X.iloc[:, idx]
        # duplicated columns would break name checks; keep them distinct
        taken.columns = [f"{c}#{k}" for k, c in enumerate(X.columns[idx])]
        return taken
    return np.asarray(X)[:, idx]


def _statistic_values(estimator, statistic):
    if callable(statistic):
        values = statistic(estimator)
    else:
        values = getattr(estimator, statistic)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(
            f"The statistic must be 1-D (one value per ranked item); got shape "
            f"{values.shape}."
        )
    return values


def _run_indices(groups, rng):
    """Resample runs with replacement within each agent (stratified)."""
    picks = [rng.choice(members, size=len(members)) for members in groups]
    return np.sort(np.concatenate(picks))


def _draw(unit, n_rows, n_cols, groups, rng):
    if unit == "matches" or unit == "agents":
        return rng.integers(0, n_rows, size=n_rows)
    if unit == "tasks":
        return rng.integers(0, n_cols, size=n_cols)
    return _run_indices(groups, rng)


def _fit_one(estimator, X, y, fit_params, unit, idx, statistic, labels, n_items,
             along_resampled):
    sample_fit_params = dict(fit_params)
    if unit == "tasks":
        X_b, y_b = _take_columns(X, idx), y
    else:
        X_b = _take_rows(X, idx)
        y_b = None if y is None else np.asarray(y)[idx]
        weight = sample_fit_params.get("sample_weight")
        if weight is not None:
            sample_fit_params["sample_weight"] = np.asarray(weight)[idx]
    est = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if y_b is None:
            est.fit(X_b, **sample_fit_params)
        else:
            est.fit(X_b, y_b, **sample_fit_params)
    values = _statistic_values(est, statistic)
    if unit == "matches":
        out = np.full(n_items, np.nan)
        positions = lookup_players(np.asarray(est.players_), labels)
        out[positions[positions >= 0]] = values[positions >= 0]
        return out
    if along_resampled:
        # the statistic is indexed by the resampled unit: average duplicates,
        # NaN for units left out of this resample
        total = np.bincount(idx, weights=values, minlength=n_items)
        count = np.bincount(idx, minlength=n_items)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / count, np.nan)
    return values


def _fit_chunk(estimator, X, y, fit_params, unit, seeds, shape, groups, statistic,
               labels, n_items, along_resampled):
    with threadpool_limits(limits=1):
        rows = []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            idx = _draw(unit, shape[0], shape[1], groups, rng)
            rows.append(
                _fit_one(estimator, X, y, fit_params, unit, idx, statistic, labels,
                         n_items, along_resampled)
            )
    return rows


def _ranks(values, higher_is_better):
    """Competition ranks (1 = best) per row, NaN for missing items."""
    from scipy.stats import rankdata

    scores = -values if higher_is_better else values
    missing = np.isnan(scores)
    ranks = rankdata(np.where(missing, np.inf, scores), method="min", axis=1)
    ranks = ranks.astype(np.float64)
    ranks[missing] = np.nan
    return ranks


def _prob_above(samples, higher_is_better):
    scores = samples if higher_is_better else -samples
    n_items = scores.shape[1]
    wins = np.zeros((n_items, n_items))
    both = np.zeros((n_items, n_items))
    for row in scores:
        valid = ~np.isnan(row)
        pair = valid[:, None] & valid[None, :]
        above = row[:, None] > row[None, :]
        tied = row[:, None] == row[None, :]
        wins += pair * (above + 0.5 * tied)
        both += pair
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = wins / both
    np.fill_diagonal(prob, 0.5)
    return prob


def _axis_of_statistic(X, unit, statistic_len):
    """Which axis the statistic indexes: 0 = agents/rows, 1 = tasks/columns."""
    n_rows, n_cols = X.shape
    if unit == "tasks":
        return 0 if statistic_len == n_rows else 1
    return 1 if statistic_len == n_cols else 0


def _labels_for(estimator, X, unit, statistic_len):
    if unit == "matches":
        return np.asarray(estimator.players_), False
    axis = _axis_of_statistic(X, unit, statistic_len)
    resampled_axis = 1 if unit == "tasks" else 0
    along = axis == resampled_axis
    if unit == "runs" and axis == 0:
        raise ValueError(
            "With resample='runs' the statistic must have one value per task."
        )
    if (axis == 0 and statistic_len != X.shape[0]) or (
        axis == 1 and statistic_len != X.shape[1]
    ):
        raise ValueError(
            f"The statistic has {statistic_len} values, but X has {X.shape[0]} "
            f"rows and {X.shape[1]} columns."
        )
    if _is_dataframe(X):
        names = X.index if axis == 0 else X.columns
        return np.asarray(names), along
    return np.arange(statistic_len), along


def _validate(n_resamples, confidence_level, resample):
    if not isinstance(n_resamples, numbers.Integral) or n_resamples < 2:
        raise ValueError(f"n_resamples must be an int >= 2; got {n_resamples!r}.")
    if not 0 < confidence_level < 1:
        raise ValueError(
            f"confidence_level must lie in (0, 1); got {confidence_level!r}."
        )
    if resample not in _UNITS:
        raise ValueError(f"resample must be one of {_UNITS}; got {resample!r}.")


def bootstrap_ranking(
    estimator,
    X,
    y=None,
    *,
    statistic,
    resample,
    n_resamples=200,
    confidence_level=0.95,
    higher_is_better=True,
    random_state=None,
    n_jobs=None,
    fit_params=None,
):
    """Percentile bootstrap intervals, rank intervals and P(A above B).

    Parameters
    ----------
    estimator : estimator instance
        Unfitted; cloned and refitted on every resample.
    X : array-like or DataFrame
        Matches ``(n_matches, 2)`` or a result matrix ``(n_agents, n_tasks)``
        or run-level data ``(n_runs, n_tasks)``.
    y : array-like, default=None
        Outcomes (matches) or the agent of each run (runs).
    statistic : str or callable
        Fitted attribute to rank (e.g. ``"ratings_"``) or a function of the
        fitted estimator returning one value per ranked item.
    resample : {"matches", "agents", "tasks", "runs"}
        The unit drawn with replacement: matches (rows of a match table,
        items aligned by player label; a player absent from a resample is
        NaN there), agents (rows), tasks (columns), or runs within each
        agent (stratified by ``y``).
    n_resamples : int, default=200
    confidence_level : float, default=0.95
    higher_is_better : bool, default=True
        Orientation of the statistic for ranks.
    random_state : int, SeedSequence, RandomState or None, default=None
        Root of the per-resample streams.
    n_jobs : int, default=None
        Parallel workers (joblib; any joblib backend, e.g. Dask, applies).
        Results do not depend on it.
    fit_params : dict, default=None
        Extra ``fit`` arguments; a ``sample_weight`` is resampled with rows.

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.decomposition import PCA
    >>> from sklearn_eval.uncertainty import bootstrap_ranking
    >>> X = np.random.default_rng(0).normal(size=(30, 3)) * [3.0, 1.0, 0.1]
    >>> res = bootstrap_ranking(PCA(n_components=1), X,
    ...                         statistic=lambda p: np.abs(p.components_[0]),
    ...                         resample="agents", n_resamples=50, random_state=0)
    >>> res.rank.tolist(), res.low.shape
    ([1, 2, 3], (3,))
    """
    _validate(n_resamples, confidence_level, resample)
    fit_params = dict(fit_params or {})
    if resample == "runs" and y is None:
        raise ValueError("resample='runs' needs y, the agent of each run.")
    if resample == "matches" and y is None:
        raise ValueError("resample='matches' needs y, the outcomes.")
    full = clone(estimator)
    if y is None:
        full.fit(X, **fit_params)
    else:
        full.fit(X, y, **fit_params)
    estimate = _statistic_values(full, statistic)
    shape = np.shape(X)
    if resample != "matches" and len(shape) != 2:
        raise ValueError(f"X must be 2-D for resample={resample!r}.")
    labels, along = _labels_for(full, X, resample, estimate.shape[0])
    n_items = estimate.shape[0]
    groups = None
    if resample == "runs":
        _, inverse = np.unique(np.asarray(y).astype(str), return_inverse=True)
        groups = [np.flatnonzero(inverse == g) for g in range(inverse.max() + 1)]
    seeds = _rng_streams(random_state, n_resamples)
    n_chunks = min(n_resamples, max(1, effective_n_jobs(n_jobs)) * 4)
    chunks = [c for c in np.array_split(np.arange(n_resamples), n_chunks) if len(c)]
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_chunk)(
            estimator, X, y, fit_params, resample, [seeds[k] for k in chunk], shape,
            groups, statistic, labels, n_items, along,
        )
        for chunk in chunks
    )
    samples = np.vstack([row for chunk in results for row in chunk])
    alpha = (1.0 - confidence_level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(samples, [alpha, 1.0 - alpha], axis=0)
        ranks = _ranks(samples, higher_is_better)
        rank_low, rank_high = np.nanquantile(ranks, [alpha, 1.0 - alpha], axis=0)
    rank = _ranks(estimate[None, :], higher_is_better)[0]
    return BootstrapResult(
        labels=labels,
        estimate=estimate,
        low=low,
        high=high,
        rank=rank.astype(int),
        rank_low=np.floor(rank_low),
        rank_high=np.ceil(rank_high),
        prob_above=_prob_above(samples, higher_is_better),
        samples=samples,
        confidence_level=confidence_level,
    )
