"""The checks of the advisor: one row per check, with its value and verdict."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

__all__ = []

COLUMNS = ("check", "value", "verdict", "why")
# names that usually mark a reference agent (a baseline, not a competitor)
# a label names a reference agent when one of its words is one of these
# (words split at non-letters and at lower-to-upper case changes, so
# "random_agent", "RandomAgent" and "human@dqn" match), or, for the last
# three, starts with it ("constantpredictor"); a word merely holding the
# letters ("Grande", "brand", "randomforest", "humaneval") is no reference
_REFERENCE_WORDS = ("human", "humans", "rand", "random")
_REFERENCE_PREFIXES = ("baseline", "constant", "oracle")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


class Checks:
    """Rows of the diagnostics table, collected in order."""

    def __init__(self):
        self.rows = []

    def add(self, check, value, verdict, why):
        self.rows.append((check, value, verdict, why))

    def frame(self):
        return pd.DataFrame(self.rows, columns=list(COLUMNS)).set_index("check")


def components(adjacency):
    """Number of connected components of a comparison graph and their sizes."""
    n, labels = connected_components(csr_matrix(adjacency > 0), directed=False)
    return int(n), np.bincount(labels)


def reference_like(labels):
    """Labels that look like reference agents (human, random, constant, ...)."""
    return [str(a) for a in labels if _is_reference_label(str(a))]


def _is_reference_label(label):
    for word in _WORD.findall(label):
        word = word.lower()
        if word in _REFERENCE_WORDS or word.startswith(_REFERENCE_PREFIXES):
            return True
    return False


def add_reference_check(checks, labels):
    found = reference_like(labels)
    checks.add(
        "reference agents",
        ", ".join(found[:5]) + (" ..." if len(found) > 5 else "") if found else "none",
        "set them apart" if found else "none found",
        "Baselines (human, random, constant) anchor a scale but are not "
        "competitors; the report's reference_agents option ranks them apart.",
    )


def add_connectivity_check(checks, adjacency, what):
    n_comp, sizes = components(adjacency)
    checks.add(
        "connectivity",
        f"{n_comp} component(s), largest {int(sizes.max())} of {int(sizes.sum())}",
        "connected" if n_comp == 1 else "disconnected",
        f"Scores of {what} in different components are not comparable: "
        "only a prior ties them together.",
    )
    return n_comp


def add_duplicates_check(checks, duplicated, n_total, what, n_points=None,
                         min_points=0, points="agents"):
    """The redundancy row; not tested on fewer than ``min_points`` points
    (``duplicated`` is then ignored). Returns whether redundancy decides."""
    if n_points is not None and n_points < min_points:
        checks.add(
            f"redundancy ({what})", f"not tested ({n_points} {points})", "n/a",
            f"Near duplicates are told by correlation over the {points}: with "
            f"fewer than {min_points} of them two {what} correlate almost "
            "perfectly by chance (two points always do).",
        )
        return False
    share = len(duplicated) / max(n_total, 1)
    checks.add(
        f"redundancy ({what})",
        f"{len(duplicated)} of {n_total} near-duplicate (r > 0.99)",
        "redundant" if share >= REDUNDANT_SHARE else "no material redundancy",
        f"Copies of {what} count twice in an average; Nash averaging gives a "
        "copy no extra weight.",
    )
    return share >= REDUNDANT_SHARE


# share of near-duplicate tasks (or agents) that makes redundancy decisive
REDUNDANT_SHARE = 0.1


def add_stability_check(checks, sets, why=None):
    """Rank sets of the recommended model: how settled the ranking is.

    ``why``: the reason rank sets that should have been computed failed.
    """
    if sets is None and why is not None:
        checks.add("ranking stability", "not computed", "failed",
                   f"The rank sets of the recommended model failed: {why}")
        return
    if sets is None:
        checks.add("ranking stability", "not computed", "n/a",
                   "Rank sets are computed here only where they are analytic "
                   "(Bradley-Terry, IRT with at most 300 agents); otherwise "
                   "they cost a bootstrap of refits or test too many pairs: "
                   "see sklearn_eval.uncertainty.rank_sets.")
        return
    table = sets.to_frame()
    width = (table["rank_high"] - table["rank_low"]).to_numpy(dtype=float)
    tiers = table["tier"].nunique() if "tier" in table else np.nan
    checks.add(
        "ranking stability",
        f"{tiers} tier(s); median rank-set width {np.median(width):.0f}",
        "settled" if np.median(width) <= 1 else "partly unsettled",
        "Simultaneous 95% rank sets of the recommended model: agents in one "
        "tier cannot be told apart on these data, whatever method is used.",
    )


def kendall_agreement(rankings):
    """Kendall tau between methods and the agents whose rank moves most.

    ``rankings`` maps a method name to a Series of scores indexed by agent.
    """
    from scipy.stats import kendalltau

    names = list(rankings)
    common = None
    for series in rankings.values():
        common = series.index if common is None else common.intersection(series.index)
    tau = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    ranks = pd.DataFrame({
        n: rankings[n].loc[common].rank(ascending=False, method="min") for n in names
    })
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            value = kendalltau(rankings[a].loc[common], rankings[b].loc[common])[0]
            tau.loc[a, b] = tau.loc[b, a] = float(value)
    ranks["rank_spread"] = ranks.max(axis=1) - ranks.min(axis=1)
    ranks.index.name = "agent"
    movers = ranks.sort_values("rank_spread", ascending=False, kind="stable")
    return tau, movers
