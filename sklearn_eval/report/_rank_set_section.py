"""The report's "Is the ranking settled?" section.

A registered section of both reports (see :mod:`._pipeline`, where
:func:`register_section` lives; it is importable from here too). The
section reads a typed input, :class:`~._rank_set_input.RankSetInput`,
computed once by the analysis step :func:`~._rank_set_input.match_rank_sets`
or :func:`~._rank_set_input.benchmark_rank_sets`.

It shows the simultaneous rank sets and tiers of the report's main ranking
(:func:`~sklearn_eval.uncertainty.rank_sets`, Mogstad et al. 2024) and says
which adjacent pairs are separable.
"""

from __future__ import annotations

import numpy as np

from ._figures import LAYOUT, needs
from ._pipeline import register_section
from ._tables import note, num, paragraph, rank_range, table

__all__ = [
    "draw_rank_sets",
    "rank_sets_input",
    "rank_sets_section",
    "register_section",
]

TITLE = "Is the ranking settled? Rank sets and tiers"


def rank_sets_input(analysis):
    """The section's typed input (:class:`~._rank_set_input.RankSetInput`)."""
    return needs(analysis, "rank_sets")


def draw_rank_sets(plotting, plt, analysis):
    data = rank_sets_input(analysis)
    # the display's own size, on the report's figure (laid out once, when
    # encoded, without a layout engine)
    n = int(np.sum(np.asarray(data.sets.rank_low) >= 1))
    fig, ax = plt.subplots(figsize=(7.0, 1.2 + 0.2 * n), layout=LAYOUT)
    plotting.RankSetDisplay.from_result(data.sets, ax=ax)
    return fig


def rank_sets_section(page):
    data = page.input
    sets = data.sets
    frame = sets.to_frame()
    frame = frame[frame["rank_low"] >= 1]
    level = f"{100 * sets.confidence_level:g}%"
    # ratings (hundreds of points) to one decimal, means and shares to three
    digits = 1 if frame["score"].abs().max() >= 100 else 3
    n_tiers = frame["tier"].nunique()
    adjacent = data.adjacent
    separated = int(adjacent["separated"].sum())
    parts = [paragraph(
        f"Which ranks each agent may hold, from the {data.ranking}: the "
        f"simultaneous {level} rank sets (all hold at once; pairwise differences "
        "tested by max-|t| with step-down, projected to ranks) and the tiers "
        "(walking down the ranking, an agent starts a new tier when the current "
        f"tier's leader is confidently above it). {len(frame)} agents in "
        f"{n_tiers} tier(s); {separated} of {len(adjacent)} adjacent pairs are "
        "separable."
    )]
    if sets.note:
        parts.append(note(sets.note))
    parts.append(page.figure("rank_sets", f"Simultaneous {level} rank sets and tiers"))
    parts.append(table(
        ["Tier", "Agent", "Score", "Rank", "Rank set"],
        [[int(row.tier), label, num(row.score, digits), int(row.rank),
          rank_range(row.rank_low, row.rank_high)]
         for label, row in zip(frame.index, frame.itertuples(), strict=True)],
        labels=2, key="rank-sets",
        caption=f"Rank sets ({level}, simultaneous) and tiers, best first",
    ))
    parts.append(table(
        ["Better", "Next", "Difference", f"{level} low", f"{level} high",
         "Separable"],
        [[row.agent_a, row.agent_b, num(row.difference, digits),
          num(row.low, digits), num(row.high, digits),
          "yes" if row.separated else "no"]
         for row in adjacent.itertuples()],
        labels=2, key="adjacent-pairs",
        caption="Adjacent pairs: is each agent confidently above the next?",
    ))
    return "".join(parts)
