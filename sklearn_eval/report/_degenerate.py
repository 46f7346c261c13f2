"""Degenerate rankings and equilibria, found so that the report can say so.

A ranking or an equilibrium can be correct and still say nothing: several
agents tie at the top, every task has the same results, or the equilibrium
spreads its mass over agents with identical results (e.g. four perfect agents
on tasks that are all equal). The report shows a visible note for each case
found here, in the section it concerns; nothing is noted otherwise.

Each check is a small pure function returning a :class:`Degeneracy` or None.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = [
    "Degeneracy",
    "benchmark_degeneracies",
    "identical_groups",
    "top_ties",
]

# ability estimates of identical response rows are computed identically; a
# different row lands within this distance only by a coincidence worth noting
ABILITY_TOL = 1e-6
# exact arithmetic on the same numbers in another order differs by rounding
RELATIVE_TOL = 1e-9


class Degeneracy(NamedTuple):
    """One degenerate finding: where it goes, a stable key, the sentence."""

    section: str
    key: str
    message: str


def top_ties(scores, tol):
    """Indices of the items within ``tol`` of the best finite score."""
    scores = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(scores)
    if not finite.any():
        return np.array([], dtype=int)
    best = scores[finite].max()
    return np.flatnonzero(finite & (scores >= best - tol))


def identical_groups(rows, tol):
    """Groups (arrays of indices, >= 2 each) of rows equal within ``tol``."""
    rows = np.asarray(rows, dtype=np.float64)
    groups, seen = [], np.zeros(rows.shape[0], dtype=bool)
    for i in range(rows.shape[0]):
        if seen[i]:
            continue
        same = np.flatnonzero(np.all(np.abs(rows - rows[i]) <= tol, axis=1))
        seen[same] = True
        if same.size >= 2:
            groups.append(same)
    return groups


def _names(labels, indices, limit=8):
    shown = [str(labels[k]) for k in indices[:limit]]
    more = f" and {len(indices) - limit} more" if len(indices) > limit else ""
    return ", ".join(shown) + more


def tie_at_top(section, key, what, scores, labels, tol):
    """A note when two or more agents share the best score of a ranking."""
    tied = top_ties(scores, tol)
    if tied.size < 2:
        return None
    return Degeneracy(
        section,
        key,
        f"{tied.size} agents tie at the top of the {what} ranking "
        f"({_names(labels, tied)}): this ranking does not order them, and "
        "their order in the table is arbitrary.",
    )


def all_tasks_equal(block):
    """A note when every task of the complete block has the same results."""
    scaled = block.scaled
    if scaled.shape[1] < 2:
        return None
    if np.ptp(scaled, axis=1).max() > RELATIVE_TOL:
        return None
    return Degeneracy(
        "nash",
        "tasks-equal",
        f"All {scaled.shape[1]} tasks of the complete block have the same "
        "results (after min-max scaling): the tasks cannot be told apart, the "
        "task distribution is arbitrary (maximum entropy makes it uniform) and "
        "every Nash average equals the uniform average.",
    )


def support_copies(section, key, payoff, support, labels, what="agents"):
    """A note when the equilibrium spreads over agents with identical results."""
    support = np.asarray(support)
    scale = max(1.0, float(np.max(np.abs(payoff), initial=0.0)))
    groups = identical_groups(payoff[support], RELATIVE_TOL * scale)
    if not groups:
        return None
    largest = support[max(groups, key=len)]
    return Degeneracy(
        section,
        key,
        f"The equilibrium splits its mass over {largest.size} {what} with "
        f"identical results ({_names(labels, largest)}): Nash averaging cannot "
        "tell them apart, and how the mass is shared among them is a "
        "convention (maximum entropy shares it evenly), not a finding.",
    )


def benchmark_degeneracies(analysis):
    """Every degenerate finding of a benchmark analysis, in page order."""
    found = []
    bench, block, nash, irt = (
        analysis.benchmark,
        analysis.block,
        analysis.nash,
        analysis.irt,
    )
    if irt is not None:
        found.append(
            tie_at_top(
                "ranking",
                "tie-irt",
                "IRT ability",
                irt.ability,
                bench.agents,
                ABILITY_TOL,
            )
        )
    if block is not None:
        uniform = block.scaled.mean(axis=1)
        found.append(
            tie_at_top(
                "ranking",
                "tie-uniform",
                "uniform average",
                uniform,
                block.agents,
                RELATIVE_TOL,
            )
        )
        found.append(all_tasks_equal(block))
    if nash is not None and block is not None:
        found.append(
            support_copies(
                "nash", "support-copies", block.scaled, nash.core_agents, block.agents
            )
        )
    return [item for item in found if item is not None]
