"""One entry point for intervals of every ranking the library produces."""

from __future__ import annotations

import dataclasses

import numpy as np
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.utils.validation import check_is_fitted

from ..utils._validation import match_array
from ._bootstrap import bootstrap_ranking

__all__ = ["ranking_intervals"]

_METHODS = ("auto", "bootstrap", "analytic")


def _plan(estimator, target):
    declare = getattr(estimator, "__sklearn_eval_intervals__", None)
    if declare is None:
        raise TypeError(
            f"ranking_intervals does not know {type(estimator).__name__}: it "
            "declares no __sklearn_eval_intervals__ plan; use bootstrap_ranking "
            "with an explicit statistic and resampling unit."
        )
    return declare(target)


class _Fitted(FrozenEstimator):
    """A fitted estimator whose ``fit`` (with or without ``y``) is a no-op."""

    def fit(self, X, y=None, *args, **kwargs):
        """No-op: the wrapped estimator stays as fitted."""
        return self


def declared_plan(estimator, target, prefit=False):
    """The estimator to resample and its plan; a fitted one's state reused.

    With ``prefit=True`` the estimator is fitted (on the data the intervals
    are computed on): the analytic path reads its fitted state instead of
    fitting a copy (it gets the estimator frozen, so its fit is a no-op),
    and the bootstrap refits an unfitted copy on each resample, as for an
    unfitted estimator.
    """
    if not isinstance(prefit, bool | np.bool_):
        raise TypeError(f"prefit must be a bool; got {prefit!r}.")
    if not prefit:
        return estimator, _plan(estimator, target)
    if isinstance(estimator, str) or isinstance(estimator, type):
        raise TypeError(
            f"prefit=True needs a fitted estimator instance; got {estimator!r}."
        )
    check_is_fitted(
        estimator,
        msg=f"prefit=True needs a fitted estimator; this "
        f"{type(estimator).__name__} is not fitted: call fit first, or pass "
        "prefit=False (the default) to fit it here.",
    )
    unfitted = clone(estimator)
    plan = _plan(unfitted, target)
    if plan.analytic is None:
        return unfitted, plan
    # the plan declared for the frozen estimator: its analytic path "fits"
    # the frozen copy, which keeps the fitted state
    declare = type(estimator).__sklearn_eval_intervals__
    analytic = declare(_Fitted(estimator), target).analytic
    return unfitted, dataclasses.replace(plan, analytic=analytic)


def _check_method(method, plan, estimator):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    if method == "analytic" and plan.analytic is None:
        raise ValueError(
            f"No analytic intervals exist for {type(estimator).__name__} "
            f"({plan.target!r}); use method='bootstrap'."
        )


def ranking_intervals(
    estimator,
    X,
    y=None,
    *,
    sample_weight=None,
    target=None,
    method="auto",
    n_resamples=1000,
    confidence_level=0.95,
    random_state=None,
    n_jobs=None,
    groups=None,
    prefit=False,
):
    """Intervals, rank intervals and P(A above B) for any of the library's rankings.

    Works through the ranking protocol: the estimator's
    ``__sklearn_eval_intervals__(target)`` declares what is ranked, the unit
    resampled and its fast or analytic paths (an
    :class:`~sklearn_eval.utils.IntervalPlan`), so any estimator that
    declares a plan works here. For the library's estimators:

    - ``EloRanker(method="batch")``: target ``"ratings"``; bootstrap over
      matches by multinomial counts with warm starts
      (:func:`bootstrap_bradley_terry`), or ``method="analytic"``: sandwich
      intervals (:func:`bradley_terry_intervals`).
    - ``EloRanker(method="online")``: ``"ratings"``; bootstrap over matches
      kept in their order; descriptive (see ``note``).
    - ``MultiElo``: ``"ratings"`` or ``"transitive_ratings"``; matches.
    - ``NashAverager`` agent vs task: ``"agent_skill"`` (default) or
      ``"agent_distribution"`` (tasks resampled), ``"difficulty"`` or
      ``"task_distribution"`` (agents resampled); distributions are
      descriptive.
    - ``NashAverager`` agent vs agent: ``"agent_skill"`` or
      ``"agent_distribution"``; ``X`` must be the matches and ``y`` their
      outcomes, which are resampled (win rates rebuilt with
      :func:`sklearn_eval.game.fill_win_rates`).
    - ``IRT2PL``: ``"abilities"`` (default), ``"difficulty"`` or
      ``"discrimination"``; ``"auto"``/``"analytic"`` use the posterior sd
      and item standard errors (:func:`irt_intervals`); the bootstrap
      resamples tasks (abilities) or agents (items).
    - ``GeneralityScorer``: any ``transform`` column (default
      ``"capability"``, its ``agent_scores_``); tasks resampled with their
      given difficulties.
    - ``InfoGainSelector`` (``input="runs"``): ``"information_gain"``; runs
      resampled within agents.

    Parameters
    ----------
    estimator : estimator instance
        Unfitted (it is cloned); any estimator with
        ``__sklearn_eval_intervals__``. Fitted, with ``prefit=True``.
    X : array-like or DataFrame
        The estimator's training data (matches, result matrix or runs).
    y : array-like, default=None
        Match outcomes, or the agent of each run (InfoGainSelector).
    sample_weight : array-like, default=None
        Match weights (match-based estimators).
    target : str, default=None
        What to rank (see the list); None takes the estimator's
        ``agent_scores_`` (or its main ranking, for task rankers).
    method : {"auto", "bootstrap", "analytic"}, default="auto"
        ``"auto"``: the analytic path where the plan prefers it (IRT2PL),
        the bootstrap otherwise (its fast path where one exists).
    n_resamples : int, default=1000
        Bootstrap resamples, or normal draws for the rank intervals of the
        analytic methods.
    confidence_level : float, default=0.95
    random_state : int, SeedSequence, RandomState or None, default=None
        Root of the per-resample streams.
    n_jobs : int, default=None
        joblib workers (any joblib backend, e.g. Dask); results do not
        depend on it.
    groups : array-like, default=None
        Cluster labels, for outcomes correlated within clusters (a prompt
        judged several times, a question with its variants, an epoch): one
        per match for match data, one per task (column) for result
        matrices. The bootstrap draws whole clusters; the analytic path
        uses a cluster-robust covariance where one exists (the sandwich of
        batch Bradley-Terry), and ``method="auto"`` otherwise takes the
        cluster bootstrap. Rankings that resample agents or runs reject it.
    prefit : bool, default=False
        True: ``estimator`` is already fitted on ``X, y, sample_weight``.
        The analytic path reuses its fitted state (no fit at all; the same
        result as fitting a copy); the bootstrap still refits a copy on
        each resample. Raises ``NotFittedError`` if it is not fitted.

    Returns
    -------
    BootstrapResult
        With ``note`` explaining when the intervals are descriptive rather
        than calibrated confidence intervals.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.uncertainty import ranking_intervals
    >>> X, y = make_matches(n_players=6, n_matches=3000, random_state=0)
    >>> res = ranking_intervals(EloRanker(method="batch"), X, y,
    ...                         n_resamples=200, random_state=0)
    >>> table = res.to_frame()
    >>> list(table.columns)
    ['estimate', 'low', 'high', 'rank', 'rank_low', 'rank_high']
    >>> online = ranking_intervals(EloRanker(), X, y, n_resamples=50,
    ...                            random_state=0)
    >>> online.note.startswith("Online Elo")
    True

    A model fitted already is not fitted again on the analytic path:

    >>> model = EloRanker(method="batch").fit(X, y)
    >>> again = ranking_intervals(model, X, y, method="analytic",
    ...                           prefit=True, random_state=0)
    >>> bool(np.allclose(again.estimate, model.ratings_))
    True
    """
    estimator, plan = declared_plan(estimator, target, prefit)
    return plan_intervals(
        estimator, plan, X, y, sample_weight=sample_weight,
        method=method, n_resamples=n_resamples, confidence_level=confidence_level,
        random_state=random_state, n_jobs=n_jobs, groups=groups,
    )


def uses_analytic(plan, method, groups):
    """Whether ``method`` resolves to the plan's analytic path."""
    clustered = groups is None or "groups" in plan.options
    if method == "analytic":
        return True
    return method == "auto" and plan.prefer_analytic and clustered


def check_frequency_weights(frequency_weights):
    """Refuse anything but a bool: ``"yes"`` or ``"no"`` would read as True."""
    if not isinstance(frequency_weights, bool | np.bool_):
        raise TypeError(
            f"frequency_weights must be a bool (True or False); got "
            f"{frequency_weights!r}."
        )


def _expand_frequencies(X, y, sample_weight, groups):
    """Matches repeated by their integer weights (vote counts)."""
    weight = np.asarray(sample_weight, dtype=np.float64)
    counts = np.rint(weight)
    if not np.allclose(weight, counts) or (counts < 0).any():
        raise ValueError(
            "frequency_weights=True reads sample_weight as counts of identical "
            "matches: they must be non-negative whole numbers."
        )
    idx = np.repeat(np.arange(weight.shape[0]), counts.astype(np.int64))
    # match_array: a list's labels keep their types (1 and "1" stay apart)
    X = X.iloc[idx] if hasattr(X, "iloc") else match_array(X)[idx]
    groups = None if groups is None else np.asarray(groups)[idx]
    return X, np.asarray(y)[idx], groups


def plan_intervals(estimator, plan, X, y=None, *, sample_weight=None, method="auto",
                   n_resamples=1000, confidence_level=0.95, random_state=None,
                   n_jobs=None, groups=None, frequency_weights=False):
    """:func:`ranking_intervals` for a given plan, with frequency weights."""
    check_frequency_weights(frequency_weights)
    _check_method(method, plan, estimator)
    if plan.requires_y is not None and y is None:
        raise ValueError(plan.requires_y)
    if plan.check_data is not None:
        plan.check_data(X, y)
    extra = {}
    if groups is not None and "groups" in plan.options:
        extra["groups"] = groups
    if frequency_weights and sample_weight is not None:
        if "frequency_weights" in plan.options:
            extra["frequency_weights"] = True
        elif plan.resample == "matches":
            X, y, groups = _expand_frequencies(X, y, sample_weight, groups)
            sample_weight = None
        else:
            raise ValueError(
                "frequency_weights=True applies to match data (weights as "
                "vote counts)."
            )
    if uses_analytic(plan, method, groups):
        if groups is not None and "groups" not in plan.options:
            raise ValueError(
                f"groups: no cluster-robust analytic intervals exist for "
                f"{type(estimator).__name__} ({plan.target!r}); use "
                "method='bootstrap' (the cluster bootstrap)."
            )
        return plan.analytic(
            X, y, sample_weight, confidence_level=confidence_level,
            n_draws=n_resamples, random_state=random_state, **extra,
        )
    common = {
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "random_state": random_state,
        "n_jobs": n_jobs,
        "note": plan.note,
    }
    if plan.bootstrap is not None and (groups is None or "groups" in extra):
        return plan.bootstrap(X, y, sample_weight, **common, **extra)
    fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
    return bootstrap_ranking(
        plan.fit_estimator if plan.fit_estimator is not None else estimator,
        X, y, statistic=plan.statistic, resample=plan.resample,
        higher_is_better=plan.higher_is_better, fit_params=fit_params,
        per_task_params=plan.per_task_params, fast=False, groups=groups, **common,
    )
