"""Resampling plans for Nash averaging (the uncertainty protocol)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone

from ..base import FitTemplateMixin
from ..utils._resampling import IntervalPlan, unknown_target
from ._missing import fill_win_rates

__all__ = ["nash_interval_plan", "task_resampling_plan"]

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
_MATCHES_NEEDED = (
    "Agent-vs-agent intervals resample matches: pass the matches X "
    "(n_matches, 2) and their outcomes y, not a win-rate matrix."
)
# target -> (fitted attribute, unit resampled for agent vs task)
_AVT_TARGETS = {
    "agent_skill": ("agent_skill_", "tasks"),
    "agent_distribution": ("agent_distribution_", "tasks"),
    "difficulty": ("difficulty_", "agents"),
    "task_difficulty": ("difficulty_", "agents"),
    "task_distribution": ("task_distribution_", "agents"),
}
_AVA_TARGETS = ("agent_skill", "agent_distribution")


class NashFromMatches(FitTemplateMixin, BaseEstimator):
    """Agent-vs-agent Nash averaging fitted on matches (bootstrap adapter).

    Win rates come from :func:`sklearn_eval.game.fill_win_rates` (pairs that
    never met are filled by ``fill_estimator``) and are solved by a clone of
    ``nash`` set to the agent-vs-agent probability game.
    """

    _parameter_constraints: dict = {
        "nash": "no_validation",
        "fill_estimator": "no_validation",
    }
    _prefer_skip_nested_validation = False

    def __init__(self, nash=None, fill_estimator=None):
        self.nash = nash
        self.fill_estimator = fill_estimator

    def fit(self, X, y, sample_weight=None):
        return super().fit(X, y, sample_weight=sample_weight)

    def _check_fit_data(self, X, y, sample_weight=None):
        return X, y, sample_weight

    def _solve(self, matches):
        X, y, sample_weight = matches
        P, players, _ = fill_win_rates(
            X, y, sample_weight, estimator=self.fill_estimator
        )
        nash = clone(self.nash).set_params(game="agent_vs_agent", payoff="probability")
        nash.fit(P)
        return {
            "nash_": nash,
            "agents_": players,
            "agent_skill_": nash.agent_skill_,
            "agent_distribution_": nash.agent_distribution_,
        }


def _check_matches(X, y):
    if y is None or np.shape(X)[1:] != (2,):
        raise ValueError(_MATCHES_NEEDED)


def nash_interval_plan(estimator, target):
    """The uncertainty plan of a NashAverager (see ``IntervalPlan``)."""
    if target in (None, "agent_scores"):
        target = "agent_skill"
    if estimator.game == "agent_vs_agent":
        if target not in _AVA_TARGETS:
            raise unknown_target(target, _AVA_TARGETS, "agent-vs-agent NashAverager")
        return IntervalPlan(
            target=target, statistic=f"{target}_", resample="matches",
            note=_note(target), requires_y=_MATCHES_NEEDED,
            check_data=_check_matches,
            fit_estimator=NashFromMatches(nash=estimator),
        )
    if target not in _AVT_TARGETS:
        raise unknown_target(target, _AVT_TARGETS, "agent-vs-task NashAverager")
    statistic, unit = _AVT_TARGETS[target]
    return IntervalPlan(
        target=target, statistic=statistic, resample=unit, note=_note(target)
    )


def _note(target):
    return NASH_DISTRIBUTION_NOTE if target.endswith("distribution") else (
        NASH_AVERAGE_NOTE
    )


def task_resampling_plan(estimator, target, name):
    """Plan of a ranker of agents by their results on tasks: tasks resampled."""
    if target not in (None, "agent_scores"):
        raise unknown_target(target, ("agent_scores",), name)
    if getattr(estimator, "game", "agent_vs_task") == "agent_vs_agent":
        raise ValueError(
            f"{name} on an agent-vs-agent matrix has no resampling unit of its "
            "own: resample the matches behind the matrix with bootstrap_ranking."
        )
    return IntervalPlan(
        target="agent_scores", statistic="agent_scores_", resample="tasks",
        note=TASK_RESAMPLING_NOTE,
    )


TASK_RESAMPLING_NOTE = (
    "Tasks are resampled with replacement: the intervals say how much the "
    "ranking depends on which tasks the benchmark happens to contain."
)
