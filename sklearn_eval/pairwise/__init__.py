"""Ratings from matches: Elo (online and batch) and multidimensional Elo.

Data shape: a table of matches ``X`` of shape (n_matches, 2) holding the two
players' labels, with ``y`` the first player's outcome (1 win, 0 loss,
0.5 draw).
"""

from ._elo import EloRanker
from ._melo import MultiElo

__all__ = ["EloRanker", "MultiElo"]
