"""Scores and scorers for rankings and matches (usable as ``scoring=``)."""

from ._match import (
    match_log_loss,
    match_log_loss_scorer,
    three_outcome_log_loss,
    three_outcome_log_loss_scorer,
)
from ._ranking import kendall_tau, spearman_rho

__all__ = []
__all__ += ["kendall_tau", "spearman_rho"]
__all__ += ["match_log_loss", "match_log_loss_scorer"]
__all__ += ["three_outcome_log_loss", "three_outcome_log_loss_scorer"]
