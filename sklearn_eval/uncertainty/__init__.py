"""Uncertainty for rankings: intervals, rank intervals ("rank 2-4"), P(A above B).

:func:`ranking_intervals` is the entry point for every ranking in the library;
:func:`bootstrap_ranking` is the generic percentile bootstrap behind it, with
the fast and analytic paths for Bradley-Terry ratings and IRT alongside.
"""

from ._bootstrap import BootstrapResult, bootstrap_ranking, summarize_samples
from ._dispatch import ranking_intervals
from ._irt import irt_intervals
from ._pairwise import (
    bootstrap_bradley_terry,
    bootstrap_online_elo,
    bradley_terry_covariance,
    bradley_terry_intervals,
)

__all__ = [
    "BootstrapResult",
    "bootstrap_bradley_terry",
    "bootstrap_online_elo",
    "bootstrap_ranking",
    "bradley_terry_covariance",
    "bradley_terry_intervals",
    "irt_intervals",
    "ranking_intervals",
    "summarize_samples",
]
