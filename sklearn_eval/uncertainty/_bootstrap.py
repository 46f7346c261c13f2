"""The generic percentile bootstrap of any ranking: refit on resampled data.

The resampling unit follows the data shape: matches for pairwise data, agents
or tasks for result matrices, runs within each agent for run-level data. The
shared machinery (result type, seeded streams, chunking, summaries) lives in
:mod:`sklearn_eval.utils._resampling`.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ..utils import lookup_players
from ..utils._clusters import check_groups, cluster_members
from ..utils._ranks import RANK_RTOL
from ..utils._resampling import (
    check_resampling,
    resample_chunks,
    rng_streams,
    summarize_samples,
)
from ..utils._validation import _is_dataframe

__all__ = ["bootstrap_ranking"]

def _distinct(labels):
    """Labels made distinct by their position (``a#0``, ``a#1``): a unit drawn
    twice would repeat its label, which the estimators refuse as a duplicate."""
    return [f"{c}#{k}" for k, c in enumerate(labels)]


def _take_rows(X, idx):
    if _is_dataframe(X):
        taken = X.iloc[idx]
        if not taken.index.is_unique:
            taken.index = _distinct(taken.index)
        return taken
    return np.asarray(X)[idx]


def _take_columns(X, idx):
    if _is_dataframe(X):
        taken = X.iloc[:, idx]
        taken.columns = _distinct(taken.columns)
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


def _fitted_attribute(estimator, name):
    """A fitted attribute by name; a ValueError listing the valid names if absent."""
    try:
        return getattr(estimator, name)
    except AttributeError:
        pass
    valid = sorted(
        attr for attr in dir(estimator)
        if attr.endswith("_") and not attr.startswith("_")
        and _is_array_attribute(estimator, attr)
    )
    raise ValueError(
        f"statistic={name!r} is not a fitted attribute of "
        f"{type(estimator).__name__}; valid names: {valid} (or pass a callable)."
    )


def _is_array_attribute(estimator, name):
    """Whether a fitted attribute is a numeric vector (and not deprecated)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = getattr(estimator, name)
        except Exception:  # unfitted properties
            return False
    if any(issubclass(w.category, FutureWarning) for w in caught):
        return False
    value = np.asarray(value)
    return value.ndim == 1 and value.dtype.kind in "fiu"


def _statistic_values(estimator, statistic, X_fit=None):
    if callable(statistic):
        if _wants_data(statistic):
            values = statistic(estimator, X_fit)
        else:
            values = statistic(estimator)
    elif isinstance(statistic, str):
        values = _fitted_attribute(estimator, statistic)
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
    if isinstance(groups, _Clusters):
        picks = rng.integers(0, len(groups.members), size=len(groups.members))
        idx = np.concatenate([groups.members[g] for g in picks])
        # matches keep their chronological order, as without clusters
        return np.sort(idx) if unit == "matches" else idx
    if unit == "matches":
        # sorted: resampled matches keep their chronological order, which
        # order-dependent raters (online Elo) need
        return np.sort(rng.integers(0, n_rows, size=n_rows))
    if unit == "agents":
        return rng.integers(0, n_rows, size=n_rows)
    if unit == "tasks":
        return rng.integers(0, n_cols, size=n_cols)
    return _run_indices(groups, rng)


class _Clusters:
    """The units (match rows or task columns) of each cluster."""

    def __init__(self, groups, unit, shape):
        if unit not in ("matches", "tasks"):
            raise ValueError(
                "groups applies when matches or tasks are resampled (a label "
                f"per match, or per task of a result matrix); this ranking "
                f"resamples {unit}."
            )
        n_units = shape[0] if unit == "matches" else shape[1]
        what = "match (row of X)" if unit == "matches" else "task (column of X)"
        codes, n_groups = check_groups(groups, n_units, what)
        self.members = cluster_members(codes, n_groups)


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
        positions = lookup_players(_agent_labels(est), labels)
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


def _axis_of_statistic(X, unit, statistic_len):
    """Which axis the statistic indexes: 0 = agents/rows, 1 = tasks/columns."""
    n_rows, n_cols = X.shape
    if unit == "tasks":
        return 0 if statistic_len == n_rows else 1
    return 1 if statistic_len == n_cols else 0


def _index_name(X, unit, statistic_len):
    """``"agent"`` or ``"task"``: what the statistic's items are."""
    if unit == "matches":
        return "agent"
    if unit == "runs":
        return "task"
    return "task" if _axis_of_statistic(X, unit, statistic_len) == 1 else "agent"


def _rank_rtol(fitted, statistic):
    """The tie tolerance of the estimator's own ranks when its scores are ranked."""
    if isinstance(statistic, str) and statistic == "agent_scores_" and hasattr(
        fitted, "_rank_rtol"
    ):
        return fitted._rank_rtol()
    return RANK_RTOL


def _labels_for(estimator, X, unit, statistic_len):
    if unit == "matches":
        return _agent_labels(estimator), False
    tasks = getattr(estimator, "tasks_", None)
    if unit == "runs" and tasks is not None and len(tasks) == statistic_len:
        # one value per task, where a task may span several columns (groups)
        return np.asarray(tasks), False
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


def _agent_labels(fitted):
    """The ranked agents' labels: the ranking protocol's ``agents_``."""
    labels = getattr(fitted, "agents_", None)
    if labels is None:
        raise TypeError(
            "Resampling matches aligns players by label, read from the fitted "
            f"estimator's agents_ (the ranking protocol); {type(fitted).__name__} "
            "has no agents_."
        )
    return np.asarray(labels)


def _fast_path(estimator, statistic, resample, groups=None):
    """The estimator's own fast bootstrap for this statistic, if it has one."""
    declare = getattr(estimator, "__sklearn_eval_intervals__", None)
    if declare is None or not isinstance(statistic, str):
        return None
    plan = declare(None)
    if plan.bootstrap is None or plan.resample != resample:
        return None
    if groups is not None and "groups" not in plan.options:
        return None
    if statistic not in (plan.statistic, "agent_scores_"):
        return None
    return plan.bootstrap


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
    groups=None,
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
        Use the estimator's fast path where it declares one for this
        statistic and unit (its ``__sklearn_eval_intervals__`` plan), e.g.
        :class:`~sklearn_eval.pairwise.EloRanker` ranked by ``"ratings_"``:
        in batch, matches are resampled as multinomial counts over the
        distinct outcomes and every refit starts from the full-data ratings
        (see :func:`~sklearn_eval.pairwise.bootstrap_bradley_terry`; same
        distribution as refitting on resampled rows, not the same draws);
        online, labels are coded once and the compiled scan replays each
        resample (:func:`~sklearn_eval.pairwise.bootstrap_online_elo`; the
        same draws and results).
    note : str, default=""
        Caveat stored on the result.
    groups : array-like, default=None
        Cluster labels for a cluster bootstrap: one per match (row of ``X``)
        with ``resample="matches"``, one per task (column) with
        ``resample="tasks"``. Whole clusters are drawn with replacement, for
        outcomes correlated within clusters (a prompt judged several times,
        a question with its variants). The fast paths are used only when
        they draw clusters themselves.

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
    check_resampling(n_resamples, confidence_level, resample)
    fit_params = dict(fit_params or {})
    if resample == "runs" and y is None:
        raise ValueError("resample='runs' needs y, the agent of each run.")
    if resample == "matches" and y is None:
        raise ValueError("resample='matches' needs y, the outcomes.")
    if resample != "matches" and not (_is_dataframe(X) or hasattr(X, "shape")):
        X = np.asarray(X)  # a result matrix as nested lists
    fast_path = _fast_path(estimator, statistic, resample, groups) if fast else None
    if fast_path is not None and set(fit_params) <= {"sample_weight"}:
        extra = {} if groups is None else {"groups": groups}
        return fast_path(
            X, y, fit_params.get("sample_weight"), n_resamples=n_resamples,
            confidence_level=confidence_level, random_state=random_state,
            n_jobs=n_jobs, note=note, **extra,
        )
    shape = np.shape(X)
    clusters = None if groups is None else _Clusters(groups, resample, shape)
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
    elif clusters is not None:
        groups = clusters
    seeds = rng_streams(random_state, n_resamples)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_chunk)(
            estimator, X, y, fit_params, resample, [seeds[k] for k in chunk], shape,
            groups, statistic, labels, n_items, along, tuple(per_task_params),
        )
        for chunk in resample_chunks(n_resamples, n_jobs)
    )
    samples = np.vstack([row for chunk in results for row in chunk])
    return summarize_samples(
        labels, estimate, samples, confidence_level=confidence_level,
        higher_is_better=higher_is_better, note=note,
        rtol=_rank_rtol(full, statistic), index_name=_index_name(X, resample, n_items),
        method="percentile bootstrap" if clusters is None else "cluster bootstrap",
    )
