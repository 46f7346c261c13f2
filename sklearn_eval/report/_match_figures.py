"""Figures of the match report, drawn by the library's Display classes.

As for the benchmark report (:mod:`._figures`), each figure comes from one
:mod:`sklearn_eval.plotting` display and is at most the page's width; a
drawing that raises becomes an error box in the figure's place.
"""

from __future__ import annotations

from ._figures import LAYOUT, PAGE_INCHES, needs, short_labels

__all__ = ["MATCH_DRAWERS", "MATCH_FIGURES"]

_MAX_BARS = 40
# labels in the cyclic plane: every player up to this many, else the players
# farthest from the origin (the most cyclic)
_MAX_PLANE_LABELS = 30


def _ratings(plotting, plt, analysis):
    """Bradley-Terry ratings with their intervals (best 40)."""
    ratings = needs(analysis, "ratings")
    n = min(len(ratings.players), _MAX_BARS)
    fig, ax = plt.subplots(
        figsize=(0.62 * PAGE_INCHES, 0.21 * n + 1.3), layout=LAYOUT
    )
    result = analysis.intervals
    labels, estimate, bounds = ratings.players, ratings.ratings, {}
    if result is not None:
        labels, estimate = result.labels, result.estimate
        bounds = dict(
            low=result.low,
            high=result.high,
            rank_low=result.rank_low,
            rank_high=result.rank_high,
        )
    plotting.RatingTableDisplay.from_data(
        short_labels(labels, 28),
        estimate,
        xlabel="Bradley-Terry rating (Elo scale)",
        ax=ax,
        max_items=_MAX_BARS,
        **bounds,
    )
    title = "Bradley-Terry ratings"
    if result is not None:
        title += f", {result.confidence_level:.0%} {result.method} intervals"
    if n < len(labels):
        title += f" (best {n} of {len(labels)})"
    ax.set_title(title, fontsize=9)
    return fig


def _cyclic(plotting, plt, analysis):
    """The players in mElo's first cyclic plane."""
    melo = needs(analysis, "melo")
    n = len(melo.players)
    display = plotting.CyclicEmbeddingDisplay(
        melo.coordinates,
        labels=short_labels(melo.players, 20),
        ratings=melo.transitive,
        component=0,
    )
    fig, ax = plt.subplots(figsize=(0.62 * PAGE_INCHES, 5.6), layout=LAYOUT)
    display.plot(
        ax=ax,
        arrows=min(8, n * (n - 1) // 2) if n <= 30 else None,
        max_labels=_MAX_PLANE_LABELS,
    )
    if display.colorbar_ is not None:
        display.colorbar_.set_label("transitive rating (Elo scale)")
    return fig


def _nash(plotting, plt, analysis):
    """Nash distribution over the players and their Nash vs uniform averages."""
    nash = needs(analysis, "nash")
    n = min(len(nash.players), _MAX_BARS)
    fig, axes = plt.subplots(
        1, 2, figsize=(PAGE_INCHES, 0.19 * n + 1.4), layout=LAYOUT
    )
    display = plotting.NashDisplay.from_estimator(
        nash.model,
        agent_names=short_labels(nash.players, 24),
        panels=["agent_distribution", "agent_average"],
        max_items=_MAX_BARS,
        orientation="horizontal",
        ax=axes,
    )
    return display.figure_


def _hodge(plotting, plt, analysis):
    """Transitive and cyclic shares of the win-rate game."""
    nash, hodge = needs(analysis, "nash", "hodge")
    if hodge.zero:
        raise ValueError(
            "every win rate is 0.5: the game has no transitive or cyclic part"
        )
    # the display's own size (one game), on the report's figure
    fig, ax = plt.subplots(figsize=(8.5, 2.05), layout=LAYOUT)
    plotting.HodgeDisplay.from_estimator(
        nash.model, name="win-rate game (log-odds)", ax=ax
    )
    return fig


MATCH_DRAWERS = {
    "ratings": _ratings,
    "cyclic": _cyclic,
    "nash": _nash,
    "hodge": _hodge,
}

MATCH_FIGURES = tuple(MATCH_DRAWERS)
