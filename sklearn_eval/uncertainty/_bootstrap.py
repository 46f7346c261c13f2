"""Bootstrap intervals for any ranking the library produces.

The resampling unit follows the data shape: matches for pairwise data, agents
or tasks for result matrices, runs within each agent for run-level data.
Every resample draws from its own random stream, spawned from one
``numpy.random.SeedSequence``, so results do not depend on ``n_jobs`` or on
how resamples are split between workers.
"""

from __future__ import annotations

import inspect
import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ..utils._validation import _is_dataframe, lookup_players

__all__ = ["BootstrapResult", "bootstrap_ranking", "summarize_samples"]

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
        Rank on the full data (1 = best; ties share the best rank; -1 where
        the estimate is NaN).
    rank_low, rank_high : ndarray of shape (n_items,)
        Percentile interval of the rank ("rank 2-4").
    prob_above : ndarray of shape (n_items, n_items)
        ``prob_above[i, j]`` is the share of resamples in which i ranks above
        j (ties count half).
    samples : ndarray of shape (n_resamples, n_items)
        The statistic on each resample (NaN where an item is absent); for
        analytic intervals, draws from the estimated normal distribution of
        the estimate (they give the rank intervals).
    confidence_level : float
    method : str
        How the intervals were made: ``"percentile bootstrap"``,
        ``"sandwich"``, ``"observed information"`` or ``"posterior"``.
    note : str
        Caveat on how to read the intervals ("" when they are calibrated
        confidence intervals under the method's assumptions), e.g. that they
        are descriptive for online Elo or for Nash distributions.
    covariance : ndarray of shape (n_items, n_items) or None
        Estimated covariance of ``estimate`` (analytic methods only).
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
    method: str = "percentile bootstrap"
    note: str = ""
    covariance: np.ndarray | None = field(default=None, repr=False)

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
    """One independent stream per resample, all spawned from one SeedSequence."""
    if isinstance(random_state, np.random.SeedSequence):
        root = random_state
    elif isinstance(random_state, np.random.RandomState):
        root = np.random.SeedSequence(int(random_state.randint(2**31 - 1)))
    elif random_state is None or (
        isinstance(random_state, numbers.Integral)
        and not isinstance(random_state, bool)
    ):
        root = np.random.SeedSequence(random_state)
    else:
        raise TypeError(
            "random_state must be None, an int, a SeedSequence or a RandomState; "
            f"got {type(random_state).__name__}."
        )
    return root.spawn(n_resamples)


def _chunks(n_resamples, n_jobs):
    """Split the resamples into a few chunks per worker (order preserved)."""
    n_chunks = min(n_resamples, max(1, effective_n_jobs(n_jobs)) * 4)
    return [c for c in np.array_split(np.arange(n_resamples), n_chunks) if len(c)]


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


def _wants_data(statistic):
    """Whether a callable statistic takes ``(estimator, X)`` or ``(estimator)``."""
    if not callable(statistic):
        return False
    try:
        parameters = inspect.signature(statistic).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False
    positional = [
        p for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.default is p.empty
    ]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in parameters)


def _statistic_values(estimator, statistic, X_fit=None):
    if callable(statistic):
        if _wants_data(statistic):
            values = statistic(estimator, X_fit)
        else:
            values = statistic(estimator)
    elif isinstance(statistic, str):
        values = getattr(estimator, statistic)
    else:
        raise TypeError(
            "statistic must be the name of a fitted attribute (str) or a "
            f"callable; got {type(statistic).__name__}."
        )
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
    if unit == "matches":
        # sorted: resampled matches keep their chronological order, which
        # order-dependent raters (online Elo) need
        return np.sort(rng.integers(0, n_rows, size=n_rows))
    if unit == "agents":
        return rng.integers(0, n_rows, size=n_rows)
    if unit == "tasks":
        return rng.integers(0, n_cols, size=n_cols)
    return _run_indices(groups, rng)


def _resampled_estimator(estimator, unit, idx, per_task_params):
    """A clone, with per-task parameters (e.g. given difficulties) resampled."""
    est = clone(estimator)
    if unit != "tasks" or not per_task_params:
        return est
    params = est.get_params(deep=False)
    update = {}
    for name in per_task_params:
        value = params.get(name)
        if value is None or isinstance(value, str) or np.ndim(value) != 1:
            continue
        update[name] = np.asarray(value)[idx]
    return est.set_params(**update) if update else est


def _fit_one(estimator, X, y, fit_params, unit, idx, statistic, labels, n_items,
             along_resampled, per_task_params=()):
    sample_fit_params = dict(fit_params)
    if unit == "tasks":
        X_b, y_b = _take_columns(X, idx), y
    else:
        X_b = _take_rows(X, idx)
        y_b = None if y is None else np.asarray(y)[idx]
        weight = sample_fit_params.get("sample_weight")
        if weight is not None:
            sample_fit_params["sample_weight"] = np.asarray(weight)[idx]
    est = _resampled_estimator(estimator, unit, idx, per_task_params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if y_b is None:
            est.fit(X_b, **sample_fit_params)
        else:
            est.fit(X_b, y_b, **sample_fit_params)
        values = _statistic_values(est, statistic, X_b)
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
               labels, n_items, along_resampled, per_task_params=()):
    # BLAS threads pinned: workers share the cores, and results must not
    # depend on how a reduction was split between threads
    with threadpool_limits(limits=1):
        rows = []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            idx = _draw(unit, shape[0], shape[1], groups, rng)
            rows.append(
                _fit_one(estimator, X, y, fit_params, unit, idx, statistic, labels,
                         n_items, along_resampled, per_task_params)
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
    """Share of rows in which item i scores above item j (ties count half)."""
    scores = samples if higher_is_better else -samples
    n_items = scores.shape[1]
    # rows per block: about 2**21 pair entries per temporary array
    block = max(1, (1 << 21) // max(n_items * n_items, 1))
    wins = np.zeros((n_items, n_items))
    both = np.zeros((n_items, n_items))
    for start in range(0, scores.shape[0], block):
        rows = scores[start:start + block]
        valid = ~np.isnan(rows)
        pair = valid[:, :, None] & valid[:, None, :]
        left, right = rows[:, :, None], rows[:, None, :]
        with np.errstate(invalid="ignore"):
            points = (left > right) + 0.5 * (left == right)
        wins += np.where(pair, points, 0.0).sum(axis=0)
        both += pair.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = wins / both
    np.fill_diagonal(prob, 0.5)
    return prob


def _warn_missing_items(labels, estimate, samples):
    """Say which items have no value, instead of NaN intervals in silence."""
    missing = np.isnan(estimate)
    if samples.size:
        missing |= np.isnan(samples).all(axis=0)
    if missing.any():
        names = np.asarray(labels)[missing][:10].tolist()
        more = " ..." if missing.sum() > 10 else ""
        warnings.warn(
            f"The statistic is NaN for {int(missing.sum())} item(s) {names}{more}: "
            "their intervals are NaN and their rank is -1.",
            UserWarning,
            stacklevel=3,
        )


def summarize_samples(labels, estimate, samples, *, confidence_level=0.95,
                      higher_is_better=True, low=None, high=None, prob_above=None,
                      method="percentile bootstrap", note="", covariance=None):
    """Intervals, rank intervals and P(A above B) from resampled statistics.

    The shared back end of every interval method: percentile intervals of
    ``samples`` unless ``low``/``high`` are given (analytic methods), the
    percentile interval of each item's rank across the rows of ``samples``,
    and the share of rows in which one item ranks above another unless
    ``prob_above`` is given.

    Parameters
    ----------
    labels : array-like of shape (n_items,)
    estimate : array-like of shape (n_items,)
        The statistic on the full data.
    samples : array-like of shape (n_resamples, n_items)
        Bootstrap replicates or draws from an estimated distribution; NaN
        where an item is absent.
    confidence_level : float, default=0.95
    higher_is_better : bool, default=True
    low, high : array-like of shape (n_items,), default=None
        Interval bounds; percentiles of ``samples`` when None.
    prob_above : array-like of shape (n_items, n_items), default=None
        Computed from ``samples`` when None.
    method, note : str
        Stored on the result.
    covariance : ndarray or None
        Stored on the result.

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.uncertainty import summarize_samples
    >>> draws = np.random.default_rng(0).normal([0.0, 0.5, 5.0], 0.4, (500, 3))
    >>> res = summarize_samples(["a", "b", "c"], [0.0, 0.5, 5.0], draws)
    >>> res.rank.tolist(), res.rank_low.tolist(), res.rank_high.tolist()
    ([3, 2, 1], [2.0, 2.0, 1.0], [3.0, 3.0, 1.0])
    """
    samples = np.asarray(samples, dtype=np.float64)
    estimate = np.asarray(estimate, dtype=np.float64)
    _warn_missing_items(labels, estimate, samples)
    alpha = (1.0 - confidence_level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if low is None or high is None:
            low, high = np.nanquantile(samples, [alpha, 1.0 - alpha], axis=0)
        ranks = _ranks(samples, higher_is_better)
        rank_low, rank_high = np.nanquantile(ranks, [alpha, 1.0 - alpha], axis=0)
    rank = _ranks(estimate[None, :], higher_is_better)[0]
    if prob_above is None:
        prob_above = _prob_above(samples, higher_is_better)
    rank = np.where(np.isnan(rank), -1, rank).astype(int)
    return BootstrapResult(
        labels=np.asarray(labels),
        estimate=estimate,
        low=np.asarray(low, dtype=np.float64),
        high=np.asarray(high, dtype=np.float64),
        rank=rank,
        rank_low=np.floor(rank_low),
        rank_high=np.ceil(rank_high),
        prob_above=np.asarray(prob_above, dtype=np.float64),
        samples=samples,
        confidence_level=float(confidence_level),
        method=method,
        note=note,
        covariance=covariance,
    )


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
    if (not isinstance(n_resamples, numbers.Integral) or isinstance(n_resamples, bool)
            or n_resamples < 2):
        raise ValueError(f"n_resamples must be an int >= 2; got {n_resamples!r}.")
    if not isinstance(confidence_level, numbers.Real) or not 0 < confidence_level < 1:
        raise ValueError(
            f"confidence_level must lie in (0, 1); got {confidence_level!r}."
        )
    if resample not in _UNITS:
        raise ValueError(f"resample must be one of {_UNITS}; got {resample!r}.")


def _fit_full(estimator, X, y, fit_params):
    full = clone(estimator)
    if y is None:
        full.fit(X, **fit_params)
    else:
        full.fit(X, y, **fit_params)
    return full


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
    per_task_params=(),
    fast=True,
    note="",
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
        fitted estimator returning one value per ranked item. A function with
        two positional parameters is called as ``statistic(estimator, X_b)``
        with the resampled data it was fitted on (for indicators computed by
        ``transform``).
    resample : {"matches", "agents", "tasks", "runs"}
        The unit drawn with replacement: matches (rows of a match table, kept
        in chronological order; items aligned by player label; a player
        absent from a resample is NaN there), agents (rows), tasks (columns),
        or runs within each agent (stratified by ``y``).
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
    per_task_params : sequence of str, default=()
        Estimator parameters holding one value per task (column), such as
        given difficulties or task weights: resampled with the tasks.
    fast : bool, default=True
        Use the fast path where one exists, for
        :class:`~sklearn_eval.pairwise.EloRanker` ranked by ``"ratings_"``:
        in batch, matches are resampled as multinomial counts over the
        distinct outcomes and every refit starts from the full-data ratings
        (see :func:`bootstrap_bradley_terry`; same distribution as refitting
        on resampled rows, not the same draws); online, labels are coded
        once and the compiled scan replays each resample
        (:func:`bootstrap_online_elo`; the same draws and results).
    note : str, default=""
        Caveat stored on the result.

    Returns
    -------
    BootstrapResult

    See Also
    --------
    ranking_intervals : Chooses the unit, statistic and method per estimator.

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
    if fast and resample == "matches" and statistic == "ratings_":
        from ._pairwise import fast_match_bootstrap

        function = fast_match_bootstrap(estimator)
        if function is not None and set(fit_params) <= {"sample_weight"}:
            return function(
                estimator, X, y, sample_weight=fit_params.get("sample_weight"),
                n_resamples=n_resamples, confidence_level=confidence_level,
                random_state=random_state, n_jobs=n_jobs, note=note,
            )
    shape = np.shape(X)
    if resample != "matches" and len(shape) != 2:
        raise ValueError(f"X must be 2-D for resample={resample!r}.")
    full = _fit_full(estimator, X, y, fit_params)
    estimate = _statistic_values(full, statistic, X)
    labels, along = _labels_for(full, X, resample, estimate.shape[0])
    n_items = estimate.shape[0]
    groups = None
    if resample == "runs":
        _, inverse = np.unique(np.asarray(y).astype(str), return_inverse=True)
        groups = [np.flatnonzero(inverse == g) for g in range(inverse.max() + 1)]
    seeds = _rng_streams(random_state, n_resamples)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_chunk)(
            estimator, X, y, fit_params, resample, [seeds[k] for k in chunk], shape,
            groups, statistic, labels, n_items, along, tuple(per_task_params),
        )
        for chunk in _chunks(n_resamples, n_jobs)
    )
    samples = np.vstack([row for chunk in results for row in chunk])
    return summarize_samples(
        labels, estimate, samples, confidence_level=confidence_level,
        higher_is_better=higher_is_better, note=note,
    )
