"""Uncertainty for rankings: intervals, rank intervals ("rank 2-4"), P(A above B).

:func:`ranking_intervals` is the entry point for every ranking in the library:
each estimator declares how it is resampled (``__sklearn_eval_intervals__``,
the ranking protocol), and :func:`bootstrap_ranking` is the generic percentile
bootstrap behind it. The fast and analytic paths live with their families and
are re-exported here: :func:`~sklearn_eval.pairwise.bootstrap_bradley_terry`
and friends (pairwise), :func:`~sklearn_eval.irt.irt_intervals` (IRT).

Whether the ranking is settled: :func:`rank_sets` (simultaneous or marginal
rank sets and tiers), :func:`compare_agents` (paired tests with Holm/BH),
``groups=`` for clustered data, and planning (:func:`sample_size`,
:func:`power`, :func:`paired_correlation`, :func:`votes_to_separate`).
"""

from ..irt import irt_intervals
from ..pairwise import (
    bootstrap_bradley_terry,
    bootstrap_online_elo,
    bradley_terry_covariance,
    bradley_terry_intervals,
)
from ..utils._resampling import BootstrapResult, summarize_samples
from ._bootstrap import bootstrap_ranking
from ._compare import adjust_p_values, compare_agents
from ._dispatch import ranking_intervals
from ._planning import paired_correlation, power, sample_size, votes_to_separate
from ._rank_sets import RankSets, rank_sets

__all__ = [
    "BootstrapResult",
    "RankSets",
    "adjust_p_values",
    "bootstrap_bradley_terry",
    "bootstrap_online_elo",
    "bootstrap_ranking",
    "bradley_terry_covariance",
    "bradley_terry_intervals",
    "compare_agents",
    "irt_intervals",
    "paired_correlation",
    "power",
    "rank_sets",
    "ranking_intervals",
    "sample_size",
    "summarize_samples",
    "votes_to_separate",
]
