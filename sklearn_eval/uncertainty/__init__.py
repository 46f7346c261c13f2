"""Uncertainty for rankings: intervals, rank intervals ("rank 2-4"), P(A above B).

:func:`ranking_intervals` is the entry point for every ranking in the library:
each estimator declares how it is resampled (``__sklearn_eval_intervals__``,
the ranking protocol), and :func:`bootstrap_ranking` is the generic percentile
bootstrap behind it. The fast and analytic paths have one home, their family:
:func:`~sklearn_eval.pairwise.bootstrap_bradley_terry` and friends
(:mod:`sklearn_eval.pairwise`), :func:`~sklearn_eval.irt.irt_intervals`
(:mod:`sklearn_eval.irt`); importing them from here still works in 0.2 with a
FutureWarning.

Whether the ranking is settled: :func:`rank_sets` (simultaneous or marginal
rank sets and tiers; :func:`rank_set_table` adds them to ``agent_table()``),
:func:`compare_agents` (paired tests with Holm/BH),
``groups=`` for clustered data, and planning (:func:`sample_size`,
:func:`power`, :func:`paired_correlation`, :func:`votes_to_separate`).
"""

import importlib

from ..utils._protocol import deprecated_alias
from ..utils._resampling import BootstrapResult, summarize_samples
from ._bootstrap import bootstrap_ranking
from ._compare import adjust_p_values, compare_agents
from ._dispatch import ranking_intervals
from ._planning import paired_correlation, power, sample_size, votes_to_separate
from ._rank_sets import RankSets, rank_set_table, rank_sets

__all__ = [
    "BootstrapResult",
    "RankSets",
    "adjust_p_values",
    "bootstrap_ranking",
    "compare_agents",
    "paired_correlation",
    "power",
    "rank_set_table",
    "rank_sets",
    "ranking_intervals",
    "sample_size",
    "summarize_samples",
    "votes_to_separate",
]

# family interval functions formerly re-exported here: name -> family
_MOVED = {
    "bootstrap_bradley_terry": "pairwise",
    "bootstrap_online_elo": "pairwise",
    "bradley_terry_covariance": "pairwise",
    "bradley_terry_intervals": "pairwise",
    "irt_intervals": "irt",
}


def __getattr__(name):
    family = _MOVED.get(name)
    if family is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    deprecated_alias(
        f"sklearn_eval.uncertainty.{name}", f"sklearn_eval.{family}.{name}"
    )
    return getattr(importlib.import_module(f"sklearn_eval.{family}"), name)
