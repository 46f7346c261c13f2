"""sklearn-eval: evaluate the evaluators.

Sound rankings and diagnostics for benchmark results (agents against agents,
agents against tasks) as scikit-learn estimators.
"""

__version__ = "0.2.0.dev0"

from .game import NashAverager  # noqa: E402
from .irt import IRT2PL, GeneralityScorer  # noqa: E402
from .pairwise import EloRanker, MultiElo  # noqa: E402
from .selection import InfoGainSelector  # noqa: E402

__all__ = [
    "EloRanker",
    "GeneralityScorer",
    "IRT2PL",
    "InfoGainSelector",
    "MultiElo",
    "NashAverager",
    "__version__",
]
