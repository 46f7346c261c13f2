"""sklearn-eval: evaluate the evaluators.

Sound rankings and diagnostics for benchmark results (agents against agents,
agents against tasks) as scikit-learn estimators.
"""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
