"""Shared validation and converters between the library's two data shapes.

Matches (a chronological table of pairwise games) and result matrices (agents x
tasks) are checked here once, with errors that name the problem and where it is.
"""

from ._convert import (
    baseline_normalize,
    binarize_scores,
    long_to_result_matrix,
    matches_to_win_matrix,
    matches_to_win_rate,
    minmax_normalize,
    win_probability_to_matches,
)
from ._empty import check_empty_agents
from ._labels import check_and_encode_matches
from ._ranks import RANK_RTOL, rank_scores
from ._resampling import BootstrapResult, IntervalPlan
from ._validation import (
    MatchData,
    ResultMatrix,
    check_antisymmetric,
    check_binary_values,
    check_in_bounds,
    check_matches,
    check_result_matrix,
    check_square,
    encode_players,
    lookup_players,
)

__all__ = [
    "BootstrapResult",
    "IntervalPlan",
    "MatchData",
    "RANK_RTOL",
    "ResultMatrix",
    "baseline_normalize",
    "binarize_scores",
    "check_and_encode_matches",
    "check_antisymmetric",
    "check_binary_values",
    "check_empty_agents",
    "check_in_bounds",
    "check_matches",
    "check_result_matrix",
    "check_square",
    "encode_players",
    "long_to_result_matrix",
    "lookup_players",
    "matches_to_win_matrix",
    "matches_to_win_rate",
    "minmax_normalize",
    "rank_scores",
    "win_probability_to_matches",
]
