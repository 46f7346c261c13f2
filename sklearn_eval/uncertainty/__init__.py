"""Uncertainty for rankings: intervals, rank intervals ("rank 2-4"), P(A above B).

:func:`ranking_intervals` is the entry point for every ranking in the library:
each estimator declares how it is resampled (``__sklearn_eval_intervals__``,
the ranking protocol), and :func:`bootstrap_ranking` is the generic percentile
bootstrap behind it. The fast and analytic paths have one home, their family:
:func:`~sklearn_eval.pairwise.bootstrap_bradley_terry` and friends
(:mod:`sklearn_eval.pairwise`), :func:`~sklearn_eval.irt.irt_intervals`
(:mod:`sklearn_eval.irt`); importing them from here still works in 0.2 with a
FutureWarning.
"""

import importlib

from ..utils._protocol import deprecated_alias
from ..utils._resampling import BootstrapResult, summarize_samples
from ._bootstrap import bootstrap_ranking
from ._dispatch import ranking_intervals

__all__ = [
    "BootstrapResult",
    "bootstrap_ranking",
    "ranking_intervals",
    "summarize_samples",
]

# family interval functions formerly re-exported here: name -> family
_MOVED = {
    "bootstrap_bradley_terry": "pairwise",
    "bootstrap_online_elo": "pairwise",
    "bradley_terry_covariance": "pairwise",
    "bradley_terry_intervals": "pairwise",
    "irt_intervals": "irt",
}


def __getattr__(name):
    family = _MOVED.get(name)
    if family is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    deprecated_alias(
        f"sklearn_eval.uncertainty.{name}", f"sklearn_eval.{family}.{name}"
    )
    return getattr(importlib.import_module(f"sklearn_eval.{family}"), name)
