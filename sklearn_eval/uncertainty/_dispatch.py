"""One entry point for intervals of every ranking the library produces."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone

from ..game import NashAverager, fill_win_rates
from ..irt import IRT2PL, GeneralityScorer
from ..pairwise import EloRanker, MultiElo
from ..selection import InfoGainSelector
from ._bootstrap import bootstrap_ranking
from ._irt import irt_intervals
from ._pairwise import bootstrap_bradley_terry, bradley_terry_intervals

__all__ = ["ranking_intervals"]

_METHODS = ("auto", "bootstrap", "analytic")

ONLINE_ELO_NOTE = (
    "Online Elo ratings depend on the order of the matches and estimate no "
    "fixed parameter (with a constant K they do not converge as data grow), "
    "so these bootstrap intervals describe the spread of the ratings over "
    "resampled match histories; they are not confidence intervals for a "
    "true strength. Use method='batch' for those."
)
NASH_DISTRIBUTION_NOTE = (
    "Nash distributions sit on the boundary of the simplex (agents or tasks "
    "outside the support have probability 0) and change discontinuously with "
    "the payoffs, where the percentile bootstrap is inconsistent: the "
    "intervals describe the variability of the equilibrium under resampling, "
    "not calibrated confidence intervals."
)
NASH_AVERAGE_NOTE = (
    "Nash averages are continuous but not smooth in the payoffs (the "
    "equilibrium's support can change between resamples): read the intervals "
    "as descriptive when agents are near-ties at the top."
)
MELO_NOTE = (
    "Intervals of the ratings; the cyclic vectors are identified only up to "
    "rotation and are not summarised."
)
GENERALITY_NOTE = (
    "Tasks are resampled with their difficulties held fixed (given, or "
    "re-estimated per resample); generality can be infinite (an agent whose "
    "responses do not vary within any bin), where the percentiles are "
    "infinite too."
)
INFOGAIN_NOTE = (
    "Runs are resampled within each agent; the information gain of a task "
    "is bounded by log2(n_agents), and near that bound the percentile "
    "intervals are descriptive."
)


class _NashFromMatches(BaseEstimator):
    """Agent-vs-agent Nash averaging fitted on matches (bootstrap adapter).

    Win rates come from :func:`sklearn_eval.game.fill_win_rates` (pairs that
    never met are filled by ``fill_estimator``) and are solved by ``nash``.
    """

    def __init__(self, nash=None, fill_estimator=None):
        self.nash = nash
        self.fill_estimator = fill_estimator

    def fit(self, X, y, sample_weight=None):
        P, players, _ = fill_win_rates(
            X, y, sample_weight, estimator=self.fill_estimator
        )
        nash = clone(self.nash) if self.nash is not None else NashAverager(
            game="agent_vs_agent", payoff="probability"
        )
        self.nash_ = nash.set_params(game="agent_vs_agent", payoff="probability")
        self.nash_.fit(P)
        self.players_ = players
        self.agent_skill_ = self.nash_.agent_skill_
        self.agent_distribution_ = self.nash_.agent_distribution_
        return self


def _check_method(method, allowed, what):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    if method == "analytic" and "analytic" not in allowed:
        raise ValueError(
            f"No analytic intervals exist for {what}; use method='bootstrap'."
        )


def _check_target(target, allowed, what):
    if target not in allowed:
        raise ValueError(
            f"target must be one of {list(allowed)} for {what}; got {target!r}."
        )


def _elo(estimator, X, y, sample_weight, target, method, common):
    _check_target(target or "ratings", ("ratings",), "EloRanker")
    if y is None:
        raise ValueError("EloRanker intervals need y, the match outcomes.")
    if estimator.method == "online":
        _check_method(method, ("bootstrap",), "online Elo")
        return bootstrap_ranking(
            estimator, X, y, statistic="ratings_", resample="matches",
            fit_params=_weights(sample_weight), note=ONLINE_ELO_NOTE, **common,
        )
    _check_method(method, ("bootstrap", "analytic"), "EloRanker")
    if method == "analytic":
        return bradley_terry_intervals(
            estimator, X, y, sample_weight,
            confidence_level=common["confidence_level"],
            n_draws=common["n_resamples"], random_state=common["random_state"],
        )
    return bootstrap_bradley_terry(estimator, X, y, sample_weight, **common)


def _melo(estimator, X, y, sample_weight, target, method, common):
    target = target or "ratings"
    _check_target(target, ("ratings", "transitive_ratings"), "MultiElo")
    _check_method(method, ("bootstrap",), "MultiElo")
    if y is None:
        raise ValueError("MultiElo intervals need y, the match outcomes.")
    note = MELO_NOTE if estimator.method == "batch" else ONLINE_ELO_NOTE
    return bootstrap_ranking(
        estimator, X, y, statistic=f"{target}_", resample="matches",
        fit_params=_weights(sample_weight), note=note, **common,
    )


def _nash(estimator, X, y, sample_weight, target, method, common):
    _check_method(method, ("bootstrap",), "NashAverager")
    if estimator.game == "agent_vs_agent":
        target = target or "agent_skill"
        _check_target(target, ("agent_skill", "agent_distribution"),
                      "agent-vs-agent NashAverager")
        if y is None or np.shape(X)[1:] != (2,):
            raise ValueError(
                "Agent-vs-agent intervals resample matches: pass the matches X "
                "(n_matches, 2) and their outcomes y, not a win-rate matrix."
            )
        note = NASH_DISTRIBUTION_NOTE if target == "agent_distribution" else (
            NASH_AVERAGE_NOTE
        )
        return bootstrap_ranking(
            _NashFromMatches(nash=estimator), X, y, statistic=f"{target}_",
            resample="matches", fit_params=_weights(sample_weight), note=note,
            **common,
        )
    target = target or "agent_skill"
    allowed = ("agent_skill", "agent_distribution", "task_difficulty",
               "task_distribution")
    _check_target(target, allowed, "agent-vs-task NashAverager")
    unit = "tasks" if target.startswith("agent") else "agents"
    note = NASH_DISTRIBUTION_NOTE if target.endswith("distribution") else (
        NASH_AVERAGE_NOTE
    )
    return bootstrap_ranking(
        estimator, X, statistic=f"{target}_", resample=unit, note=note, **common
    )


def _irt(estimator, X, y, sample_weight, target, method, common):
    target = target or "abilities"
    _check_target(target, ("abilities", "difficulty", "discrimination"), "IRT2PL")
    _check_method(method, ("bootstrap", "analytic"), "IRT2PL")
    if method in ("auto", "analytic"):
        return irt_intervals(
            estimator, X, target=target, confidence_level=common["confidence_level"],
            n_draws=common["n_resamples"], random_state=common["random_state"],
        )
    unit = "tasks" if target == "abilities" else "agents"
    return bootstrap_ranking(
        estimator, X, statistic=f"{target}_", resample=unit, **common
    )


def _generality(estimator, X, y, sample_weight, target, method, common):
    _check_method(method, ("bootstrap",), "GeneralityScorer")
    target = target or "generality"

    def statistic(fitted, X_fit):
        columns = list(fitted.get_feature_names_out())
        _check_target(target, columns, "GeneralityScorer")
        return np.asarray(fitted.transform(X_fit))[:, columns.index(target)]

    return bootstrap_ranking(
        estimator, X, statistic=statistic, resample="tasks",
        per_task_params=("difficulty", "task_weights"), note=GENERALITY_NOTE,
        **common,
    )


def _infogain(estimator, X, y, sample_weight, target, method, common):
    _check_target(target or "information_gain", ("information_gain",),
                  "InfoGainSelector")
    _check_method(method, ("bootstrap",), "InfoGainSelector")
    if y is None or estimator.input != "runs":
        raise ValueError(
            "InfoGainSelector intervals resample runs within agents: use "
            "input='runs' and pass y, the agent of each run."
        )
    return bootstrap_ranking(
        estimator, X, y, statistic="information_gain_", resample="runs",
        note=INFOGAIN_NOTE, **common,
    )


def _weights(sample_weight):
    return {} if sample_weight is None else {"sample_weight": sample_weight}


_HANDLERS = (
    (EloRanker, _elo),
    (MultiElo, _melo),
    (NashAverager, _nash),
    (IRT2PL, _irt),
    (GeneralityScorer, _generality),
    (InfoGainSelector, _infogain),
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
):
    """Intervals, rank intervals and P(A above B) for any of the library's rankings.

    Picks the resampling unit, the statistic and the fastest sound method
    for the estimator:

    - ``EloRanker(method="batch")``: target ``"ratings"``; bootstrap over
      matches by multinomial counts with warm starts
      (:func:`bootstrap_bradley_terry`), or ``method="analytic"``: sandwich
      intervals (:func:`bradley_terry_intervals`).
    - ``EloRanker(method="online")``: ``"ratings"``; bootstrap over matches
      kept in their order; descriptive (see ``note``).
    - ``MultiElo``: ``"ratings"`` or ``"transitive_ratings"``; matches.
    - ``NashAverager`` agent vs task: ``"agent_skill"`` (default) or
      ``"agent_distribution"`` (tasks resampled), ``"task_difficulty"`` or
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
      ``"generality"``); tasks resampled with their given difficulties.
    - ``InfoGainSelector`` (``input="runs"``): ``"information_gain"``; runs
      resampled within agents.

    Parameters
    ----------
    estimator : estimator instance
        One of the library's rankers, unfitted (it is cloned).
    X : array-like or DataFrame
        The estimator's training data (matches, result matrix or runs).
    y : array-like, default=None
        Match outcomes, or the agent of each run (InfoGainSelector).
    sample_weight : array-like, default=None
        Match weights (match-based estimators).
    target : str, default=None
        What to rank (see the table); None takes the default.
    method : {"auto", "bootstrap", "analytic"}, default="auto"
        ``"auto"``: analytic for IRT2PL, the bootstrap otherwise.
    n_resamples : int, default=1000
        Bootstrap resamples, or normal draws for the rank intervals of the
        analytic methods.
    confidence_level : float, default=0.95
    random_state : int, SeedSequence, RandomState or None, default=None
        Root of the per-resample streams.
    n_jobs : int, default=None
        joblib workers (any joblib backend, e.g. Dask); results do not
        depend on it.

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
    """
    common = {
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "random_state": random_state,
        "n_jobs": n_jobs,
    }
    for kind, handler in _HANDLERS:
        if isinstance(estimator, kind):
            return handler(estimator, X, y, sample_weight, target, method, common)
    raise TypeError(
        f"ranking_intervals does not know {type(estimator).__name__}; use "
        "bootstrap_ranking with an explicit statistic and resampling unit."
    )
