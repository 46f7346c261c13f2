"""Typed inputs of the match report's sections, computed once.

Each is a frozen dataclass built from the analysis by the section's
``inputs`` function (registered with :func:`~._pipeline.register_section`)
before the section renders; the section reads only its input
(``page.input``). A failed analysis raises
:class:`~._figures.MissingAnalysis` here, which the page shows as the
section's error box, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..utils._ranks import agent_ranks
from ._figures import needs

__all__ = [
    "CyclicInput",
    "FittedExtras",
    "HodgeInput",
    "HodgeNull",
    "IntervalSummary",
    "NashGameInput",
    "RatingsInput",
    "ReferenceRecords",
    "SummaryInput",
    "cyclic_input",
    "hodge_input",
    "nash_game_input",
    "ratings_input",
    "summary_input",
]


@dataclass(frozen=True)
class ReferenceRecords:
    """The reference players' records (their matches, not rated by default)."""

    agents: tuple
    kinds: tuple
    matches: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    score_rate: np.ndarray
    included: bool


@dataclass(frozen=True)
class SummaryInput:
    """What the data summary shows: counts and shares of the matches."""

    n_matches: int
    n_players: int
    pairs_played: int
    pairs_possible: int
    matches_per_player: tuple  # (min, median, max)
    first_win_share: float
    draw_share: float
    weighted: bool
    total_weight: float
    reference_agents: tuple
    reference_included: bool
    reference: ReferenceRecords | None


@dataclass(frozen=True)
class HodgeNull:
    """The cyclic shares of leagues simulated from the fitted ratings."""

    mean: float
    cutoff: float
    quantile: float
    n_draws: int
    p_value: float


@dataclass(frozen=True)
class HodgeInput:
    """What the Hodge section shows: the shares and the transitive null."""

    zero: bool
    transitive: float
    cyclic: float
    plane_shares: tuple
    null: HodgeNull | None
    beyond_noise: bool


def _reference_records(analysis):
    ref = analysis.get("reference")
    if ref is None:
        return None
    record = ref.record
    return ReferenceRecords(
        agents=tuple(ref.agents), kinds=tuple(ref.kinds),
        matches=record.matches, wins=record.wins, draws=record.draws,
        losses=record.losses, score_rate=record.score_rate,
        included=bool(ref.included),
    )


def summary_input(analysis):
    """The data summary's input, from ``analysis.summary`` and the records."""
    s = analysis.summary
    return SummaryInput(
        n_matches=s.n_matches, n_players=s.n_players,
        pairs_played=s.pairs_played, pairs_possible=s.pairs_possible,
        matches_per_player=tuple(s.matches_per_player),
        first_win_share=s.first_win_share, draw_share=s.draw_share,
        weighted=s.weighted, total_weight=s.total_weight,
        reference_agents=tuple(s.reference_agents),
        reference_included=s.reference_included,
        reference=_reference_records(analysis),
    )


def hodge_input(analysis):
    """The Hodge section's input; MissingAnalysis when the split failed."""
    hodge = needs(analysis, "hodge")
    null = hodge.get("null")
    if null is not None:
        null = HodgeNull(mean=null.mean, cutoff=null.cutoff,
                         quantile=null.quantile, n_draws=null.n_draws,
                         p_value=null.p_value)
    return HodgeInput(
        zero=bool(hodge.zero), transitive=hodge.transitive, cyclic=hodge.cyclic,
        plane_shares=tuple(hodge.plane_shares), null=null,
        beyond_noise=bool(hodge.beyond_noise),
    )


@dataclass(frozen=True)
class IntervalSummary:
    """How the rating intervals were computed (the ratings section's note)."""

    confidence_level: float
    method: str
    n_samples: int
    note: str


@dataclass(frozen=True)
class FittedExtras:
    """What the rating model fitted besides the ratings.

    ``tie_param`` is None without a fitted tie model; ``first_advantage_se``
    is None when the advantage was given rather than fitted; ``covariates``
    holds ``(name, coefficient, standard error)`` triples.
    """

    ties: str
    tie_param: float | None
    first_advantage: float
    first_advantage_se: float | None
    covariates: tuple


@dataclass(frozen=True)
class RatingsInput:
    """What the ratings section shows, one entry per agent in ``agents_`` order.

    ``low``/``high`` (the rating interval) and ``rank_low``/``rank_high``
    (the rank interval) are NaN where an agent has no interval. ``tags``
    marks the included reference players (None without any).
    """

    agents: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    matches: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    score_rate: np.ndarray
    tags: tuple | None
    intervals: IntervalSummary | None
    intervals_failure: str | None
    model: str  # the estimator's repr on one line
    alpha: float
    prior_note: str
    extras: FittedExtras


@dataclass(frozen=True)
class CyclicInput:
    """What the mElo section shows: per agent, the rating and the first plane."""

    agents: np.ndarray
    transitive: np.ndarray
    coordinates: np.ndarray  # (n_agents, 2): the first cyclic plane
    radius: np.ndarray
    log_loss: float
    elo_log_loss: float
    n_components: int
    tags: tuple | None


@dataclass(frozen=True)
class NashGameInput:
    """What the match report's Nash section shows (the win-rate game)."""

    agents: np.ndarray
    probability: np.ndarray
    skill: np.ndarray
    uniform: np.ndarray
    core: np.ndarray
    n_filled_pairs: int
    exploitability: float
    tags: tuple | None


def _reference_tags(analysis, labels):
    """Per label: "reference" for a reference player rated with the others."""
    matches = analysis.matches
    mask = matches.get("reference_mask")
    if mask is None or not np.any(mask):
        return None
    marked = set(matches.players[mask])
    return tuple("reference" if label in marked else None for label in labels)


def _aligned(result, agents):
    """The intervals of ``result`` in the order of ``agents`` (NaN: none)."""
    n = len(agents)
    columns = [np.full(n, np.nan) for _ in range(4)]
    if result is None:
        return columns
    position = {str(label): i for i, label in enumerate(result.labels)}
    for k, label in enumerate(agents):
        i = position.get(str(label), -1)
        if i >= 0:
            for column, values in zip(columns, (result.low, result.high,
                                                result.rank_low, result.rank_high),
                                      strict=True):
                column[k] = values[i]
    return columns


def _extras(model):
    """The tie parameter, first-player advantage and covariates of ``model``."""
    names = getattr(model, "covariate_names_", None)
    covariates = ()
    if names is not None:
        covariates = tuple(zip(names, model.covariate_coef_, model.covariate_se_,
                               strict=True))
    return FittedExtras(
        ties=str(model.get_params().get("ties", "")),
        tie_param=getattr(model, "tie_param_", None),
        first_advantage=getattr(model, "first_advantage_", 0.0),
        first_advantage_se=getattr(model, "first_advantage_se_", None),
        covariates=covariates,
    )


def ratings_input(analysis):
    """The ratings section's input, read from the ratings through the protocol."""
    ratings = needs(analysis, "ratings")
    model = ratings.model
    agents = np.asarray(model.agents_, dtype=object)
    result = analysis.intervals
    low, high, rank_low, rank_high = _aligned(result, agents)
    summary = None
    if result is not None:
        summary = IntervalSummary(
            confidence_level=result.confidence_level, method=result.method,
            n_samples=int(result.samples.shape[0]), note=result.note or "",
        )
    failure = None
    if result is None and "intervals" in analysis.failures:
        failure = analysis.failures["intervals"]
    record = ratings.record
    return RatingsInput(
        agents=agents,
        scores=np.asarray(model.agent_scores_, dtype=np.float64),
        ranks=agent_ranks(model),
        low=low, high=high, rank_low=rank_low, rank_high=rank_high,
        matches=record.matches, wins=record.wins, draws=record.draws,
        losses=record.losses, score_rate=record.score_rate,
        tags=_reference_tags(analysis, agents),
        intervals=summary,
        intervals_failure=failure,
        model=" ".join(repr(model).split()),
        alpha=ratings.alpha,
        prior_note=ratings.note,
        extras=_extras(model),
    )


def cyclic_input(analysis):
    """The mElo section's input; MissingAnalysis when mElo failed."""
    melo = needs(analysis, "melo")
    agents = np.asarray(melo.model.agents_, dtype=object)
    return CyclicInput(
        agents=agents, transitive=melo.transitive,
        coordinates=melo.coordinates[:, :2], radius=melo.radius,
        log_loss=melo.log_loss, elo_log_loss=melo.elo_log_loss,
        n_components=melo.n_components, tags=_reference_tags(analysis, agents),
    )


def nash_game_input(analysis):
    """The Nash section's input; MissingAnalysis when Nash averaging failed."""
    nash = needs(analysis, "nash")
    return NashGameInput(
        agents=nash.players, probability=nash.probability,
        skill=np.asarray(nash.model.agent_scores_, dtype=np.float64),
        uniform=nash.uniform, core=nash.core,
        n_filled_pairs=nash.n_filled_pairs, exploitability=nash.exploitability,
        tags=_reference_tags(analysis, nash.players),
    )
