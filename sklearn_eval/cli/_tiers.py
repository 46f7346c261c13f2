"""Rank sets and tiers as a table (``rank --tiers``)."""

from __future__ import annotations

from ._output import Table, fixed, say

__all__ = []


def tiers_table(args, estimator, matches, level=0.95, groups=None):
    """The simultaneous rank sets and tiers of a match rater.

    ``groups`` (one cluster label per match) makes the sets cluster-robust.
    """
    from ..uncertainty import rank_sets

    n_resamples = args.n_resamples or 1000
    say(args, f"rank sets at {level:.0%} (max-|t| step-down)")
    sets = rank_sets(
        estimator, matches.model_X, matches.y, sample_weight=matches.sample_weight,
        groups=groups,
        confidence_level=level, n_resamples=max(n_resamples, 2),
        random_state=args.random_state, n_jobs=args.n_jobs,
    )
    frame = sets.to_frame()
    adjacent = sets.adjacent()
    separated = dict(zip(adjacent["agent_a"], adjacent["separated"], strict=True))
    rows = [
        [int(row["tier"]), agent, float(row["score"]),
         f"{int(row['rank_low'])}-{int(row['rank_high'])}",
         "" if agent not in separated else ("yes" if separated[agent] else "no")]
        for agent, row in frame.iterrows()
    ]
    note = f" ({sets.note.split('.')[0].lower()})" if sets.note else ""
    if groups is not None:
        note += f" (clustered by {args.groups}: {len(set(groups))} clusters)"
    return Table(
        ["tier", "player", "rating", "rank set", "above next"],
        rows,
        [str, None, fixed(1), None, None],
        title=f"simultaneous {level:.0%} rank sets and tiers{note}:",
        key="tiers",
    )
