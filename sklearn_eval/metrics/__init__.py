"""Scores and scorers for rankings and matches (usable as ``scoring=``)."""

from ._ranking import kendall_tau, spearman_rho

__all__ = []
__all__ += ["kendall_tau", "spearman_rho"]
