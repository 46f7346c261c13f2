"""Matplotlib displays for the library's estimators.

Each display follows scikit-learn's ``*Display`` pattern (as
:class:`sklearn.metrics.RocCurveDisplay`): the object holds the data to draw,
``plot(ax=None, ...)`` draws it and returns the display with the Axes
(``ax_`` or ``axes_``), the figure (``figure_``) and the artists stored as
attributes, and ``from_estimator`` (plus ``from_data``/``from_payoff``/
``from_result`` where natural) checks its inputs, builds the display and plots
it in one call. The constructor only stores its arguments (``plot`` checks
them). Agent, task, item and game names are drawn literally, never parsed as
math text.
"""

from ._agent_curves import AgentCurveDisplay
from ._alpharank import AlphaRankSweepDisplay
from ._embedding import CyclicEmbeddingDisplay
from ._generality import AbilityGeneralityDisplay
from ._hodge import HodgeDisplay
from ._item_curves import ItemCurveDisplay
from ._missing import MissingResultsDisplay
from ._nash import NashDisplay
from ._rank_sets import RankSetDisplay
from ._ratings import RatingTableDisplay
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
    "MissingResultsDisplay",
    "NashDisplay",
    "RankSetDisplay",
    "RatingTableDisplay",
    "VotingDisplay",
]
