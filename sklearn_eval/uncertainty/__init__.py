"""Uncertainty for rankings: bootstrap intervals, rank intervals, P(A above B)."""

from ._bootstrap import BootstrapResult, bootstrap_ranking

__all__ = ["BootstrapResult", "bootstrap_ranking"]
