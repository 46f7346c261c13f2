"""The typed input of the report's rank-set section, computed once.

An analysis step of each report (benchmark and matches) calls one of these
and stores the :class:`RankSetInput` as ``analysis.rank_sets``; the section
(:mod:`._rank_set_section`) only reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..uncertainty import rank_sets

__all__ = ["RankSetInput", "benchmark_rank_sets", "match_rank_sets"]


@dataclass(frozen=True)
class RankSetInput:
    """What the rank-set section shows: the sets and the adjacent pairs."""

    sets: object  # RankSets
    adjacent: pd.DataFrame
    ranking: str  # what is ranked, e.g. "Bradley-Terry ratings"


def match_rank_sets(matches, ratings, confidence_level=0.95, random_state=0):
    """Rank sets of the report's Bradley-Terry ratings (the sandwich path).

    The fitted ratings themselves (tie model, prior, first advantage and
    covariates as chosen): the analytic path reads their fitted state and
    fits nothing.
    """
    sets = rank_sets(
        ratings.model, matches.model_X, matches.y,
        sample_weight=matches.sample_weight, confidence_level=confidence_level,
        method="auto", n_resamples=1000, random_state=random_state, prefit=True,
    )
    return RankSetInput(sets, sets.adjacent(), "Bradley-Terry ratings")


def benchmark_rank_sets(block, confidence_level=0.95, random_state=0):
    """Rank sets of the agents' mean score on the complete block (paired)."""
    frame = pd.DataFrame(block.scaled, index=pd.Index(block.agents, dtype=object))
    sets = rank_sets("mean", frame, confidence_level=confidence_level,
                     n_resamples=1000, random_state=random_state)
    return RankSetInput(sets, sets.adjacent(), "uniform average (complete block)")
