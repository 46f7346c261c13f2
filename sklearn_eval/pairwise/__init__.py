"""Ratings from matches: Elo (online and batch) and multidimensional Elo.

Data shape: a table of matches ``X`` of shape (n_matches, 2) holding the two
players' labels, with ``y`` the first player's outcome (1 win, 0 loss,
0.5 draw). The intervals of the ratings (fast bootstrap, sandwich) live here
too; :func:`sklearn_eval.uncertainty.ranking_intervals` finds them through
each estimator's ``__sklearn_eval_intervals__``.
"""

from ._active import ActiveSampler
from ._base import RatingDivergenceError
from ._dask_matches import aggregate_matches
from ._elo import EloRanker
from ._existence import maximum_likelihood_exists
from ._intervals import (
    bootstrap_bradley_terry,
    bootstrap_online_elo,
    bradley_terry_covariance,
    bradley_terry_intervals,
)
from ._melo import MultiElo

__all__ = [
    "ActiveSampler",
    "EloRanker",
    "MultiElo",
    "RatingDivergenceError",
    "aggregate_matches",
    "bootstrap_bradley_terry",
    "bootstrap_online_elo",
    "bradley_terry_covariance",
    "bradley_terry_intervals",
    "maximum_likelihood_exists",
]
