"""Typed inputs of the match report's older sections, computed once.

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

from ._figures import needs

__all__ = [
    "HodgeInput",
    "HodgeNull",
    "ReferenceRecords",
    "SummaryInput",
    "hodge_input",
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
