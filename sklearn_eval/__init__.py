"""sklearn-eval: evaluate the evaluators.

Sound rankings and diagnostics for benchmark results (agents against agents,
agents against tasks) as scikit-learn estimators.
"""

import importlib

__version__ = "0.2.0.dev0"

# The estimators (and scikit-learn behind them) are imported on first use, so
# that ``sklearn-eval --version`` and ``--help`` do not pay for them.
_ESTIMATORS = {
    "EloRanker": "pairwise",
    "GeneralityScorer": "irt",
    "IRT2PL": "irt",
    "InfoGainSelector": "selection",
    "MultiElo": "pairwise",
    "NashAverager": "game",
}
# functions re-exported at the top level: name -> subpackage
_FUNCTIONS = {"Advice": "advice", "advise": "advice"}
_SUBPACKAGES = (
    "advice",
    "cli",
    "datasets",
    "game",
    "io",
    "irt",
    "metrics",
    "pairwise",
    "plotting",
    "report",
    "selection",
    "uncertainty",
    "utils",
)

__all__ = [
    "Advice",
    "EloRanker",
    "GeneralityScorer",
    "IRT2PL",
    "InfoGainSelector",
    "MultiElo",
    "NashAverager",
    "__version__",
    "advise",
]


def __getattr__(name):
    if name in _ESTIMATORS:
        module = importlib.import_module(f".{_ESTIMATORS[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name in _FUNCTIONS:
        module = importlib.import_module(f".{_FUNCTIONS[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_ESTIMATORS, *_FUNCTIONS, *_SUBPACKAGES})
