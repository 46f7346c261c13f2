"""The report's "Is the ranking settled?" section, and how sections are added.

Adding a section to a report is one registration::

    register_section("matches", "advisor", "Which method fits this data",
                     advisor_section, draw=draw_advisor, before="summary")

``kind`` is ``"benchmark"`` or ``"matches"`` (or a tuple of both), ``key`` the
section's ``id`` in the page, ``render(page)`` returns the section's HTML
(raising :class:`~._figures.MissingAnalysis` when its input is missing; the
page then shows an error box), and ``draw(plotting, plt, analysis)``, when
given, draws the section's figure ``key`` with a plotting Display (the
section calls ``page.figure(key, caption)``). ``before`` / ``after`` place the
section (default: last). A section reads a typed input from the analysis
(here :class:`~._rank_set_input.RankSetInput`, computed once by the analysis
step :func:`~._rank_set_input.match_rank_sets` or
:func:`~._rank_set_input.benchmark_rank_sets`).

The section itself shows the simultaneous rank sets and tiers of the
report's main ranking (:func:`~sklearn_eval.uncertainty.rank_sets`, Mogstad
et al. 2024) and says which adjacent pairs are separable.
"""

from __future__ import annotations

from ._figures import BENCHMARK_DRAWERS, needs
from ._match_figures import MATCH_DRAWERS
from ._match_sections import MATCH_SECTION_RENDERERS, MATCH_SECTIONS
from ._sections import SECTION_RENDERERS, SECTIONS
from ._tables import note, num, paragraph, rank_range, table

__all__ = [
    "draw_rank_sets",
    "rank_sets_section",
    "register_section",
]

TITLE = "Is the ranking settled? Rank sets and tiers"


def draw_rank_sets(plotting, plt, analysis):
    data = needs(analysis, "rank_sets")
    display = plotting.RankSetDisplay.from_result(data.sets)
    return display.figure_


def rank_sets_section(page):
    data = needs(page.analysis, "rank_sets")
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


def _place(mapping, key, value, before=None, after=None):
    """Put ``key: value`` into ``mapping`` in place, before/after a key."""
    items = [(k, v) for k, v in mapping.items() if k != key]
    position = len(items)
    if before is not None and before in mapping:
        position = [k for k, _ in items].index(before)
    elif after is not None and after in mapping:
        position = [k for k, _ in items].index(after) + 1
    items.insert(position, (key, value))
    mapping.clear()
    mapping.update(items)


def register_section(kind, key, title, render, *, draw=None, before=None,
                     after=None):
    """Add a section (and its figure) to the benchmark and/or match report."""
    tables = {
        "benchmark": (SECTIONS, SECTION_RENDERERS, BENCHMARK_DRAWERS),
        "matches": (MATCH_SECTIONS, MATCH_SECTION_RENDERERS, MATCH_DRAWERS),
    }
    for one in (kind,) if isinstance(kind, str) else kind:
        titles, renderers, drawers = tables[one]
        _place(titles, key, title, before, after)
        renderers[key] = render
        if draw is not None:
            drawers[key] = draw
