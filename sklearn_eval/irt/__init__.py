"""Item response theory on agent x task result matrices."""

from ._adaptive import AdaptiveTester
from ._calibration import calibrate_irt
from ._compare import compare_models
from ._ctest import ctest_score, policy_difficulty, theoretical_generality
from ._generality import GeneralityScorer
from ._intervals import irt_intervals
from ._irt import IRT
from ._irt2pl import IRT2PL

__all__ = [
    "AdaptiveTester",
    "GeneralityScorer",
    "IRT",
    "IRT2PL",
    "calibrate_irt",
    "irt_intervals",
    "compare_models",
    "ctest_score",
    "policy_difficulty",
    "theoretical_generality",
]
