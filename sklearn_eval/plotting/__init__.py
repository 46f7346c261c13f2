"""Matplotlib displays for the library's estimators (optional extra ``plot``).

Each display follows scikit-learn's ``*Display`` pattern (as
:class:`sklearn.metrics.RocCurveDisplay`): the object holds the data to draw,
``plot(ax=None, ...)`` draws it and returns the display with the Axes
(``ax_`` or ``axes_``), the figure (``figure_``) and the artists stored as
attributes, and ``from_estimator`` (plus ``from_data``/``from_payoff``/
``from_result`` where natural) builds and plots it in one call. matplotlib is
imported only when drawing, so this module imports without it.
"""

from ._alpharank import AlphaRankSweepDisplay
from ._irt import AbilityGeneralityDisplay, AgentCurveDisplay, ItemCurveDisplay
from ._nash import HodgeDisplay, NashDisplay
from ._ratings import CyclicEmbeddingDisplay, RatingTableDisplay
from ._selection import InfoGainDisplay
from ._voting import VotingDisplay

__all__ = [
    "AbilityGeneralityDisplay",
    "AgentCurveDisplay",
    "AlphaRankSweepDisplay",
    "CyclicEmbeddingDisplay",
    "HodgeDisplay",
    "InfoGainDisplay",
    "ItemCurveDisplay",
    "NashDisplay",
    "RatingTableDisplay",
    "VotingDisplay",
]
