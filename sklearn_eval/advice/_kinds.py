"""What kind of data the advisor was given, and its candidate models.

The candidates are a registry keyed by data kind: each entry names a model
and builds the unfitted estimator. An item response model is available when
:class:`~sklearn_eval.irt.IRT` accepts its name (read from its parameter
constraints at run time), so a new model of that estimator joins the
comparison by one line here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = []

#: the kinds of data, with the words the diagnostics use for them
KINDS = {
    "matches": "matches (two players and an outcome per row)",
    "game": "agents x agents game (square matrix of win rates or payoffs)",
    "binary": "item responses (agents x items, 0/1)",
    "graded": "graded responses (agents x items, integer categories)",
    "continuous": "scores in [0, 1] (agents x tasks)",
    "scores": "scores (agents x tasks, unbounded)",
}
_OUTCOME_COLUMNS = ("outcome", "result", "y", "target", "score")
_WEIGHT_COLUMNS = ("weight", "sample_weight", "count", "n_votes", "votes")
# graded responses: integer categories 0..MAX_CATEGORY with more than two levels
MAX_CATEGORY = 20


@dataclass(frozen=True)
class Candidate:
    """One candidate model: its name, family, parameters and simplicity."""

    name: str
    family: str
    params: dict = field(default_factory=dict)
    #: rank of simplicity among equals in parameter count (lower = simpler)
    order: int = 0


def irt_models():
    """The item response models :class:`~sklearn_eval.irt.IRT` accepts now."""
    from ..irt import IRT

    constraint = IRT._parameter_constraints["model"][0]
    return set(getattr(constraint, "options", ()))


# item response candidates per kind, simplest first: one line per model, a
# name and the parameters of IRT (``n_factors`` for several abilities)
IRT_REGISTRY = {
    "binary": (("1PL", {"model": "1PL"}), ("2PL", {"model": "2PL"}),
               ("3PL", {"model": "3PL"}),
               ("2PL, 2 factors", {"model": "2PL", "n_factors": 2})),
    "graded": (("GRM", {"model": "GRM"}), ("GPCM", {"model": "GPCM"})),
    "continuous": (("beta", {"model": "beta"}),
                   ("logit-normal", {"model": "logit-normal"})),
}


def item_candidates(kind):
    """The IRT candidates of ``kind`` that the installed estimator fits."""
    available = irt_models()
    return [
        Candidate(name, "IRT", dict(params), order)
        for order, (name, params) in enumerate(IRT_REGISTRY.get(kind, ()))
        if params["model"] in available
    ]


def n_factors(candidate):
    """The number of abilities of an item response candidate (1 if unset)."""
    return int(candidate.params.get("n_factors", 1))


def _is_label_column(column):
    return not pd.api.types.is_numeric_dtype(column.dtype)


def split_long_matches(X):
    """``(X, y, weight)`` from a long match table, or None if it is not one.

    A DataFrame whose first two columns hold labels and which has an outcome
    column (named ``outcome``, ``result``, ``y``, ``target`` or ``score``,
    else the third column) is a table of matches; a column named ``weight``,
    ``count`` or ``n_votes`` gives the rows' weights.
    """
    if not isinstance(X, pd.DataFrame) or X.shape[1] < 3:
        return None
    if not (_is_label_column(X.iloc[:, 0]) and _is_label_column(X.iloc[:, 1])):
        return None
    rest = list(X.columns[2:])
    lower = {str(c).lower(): c for c in rest}
    outcome = next((lower[n] for n in _OUTCOME_COLUMNS if n in lower), rest[0])
    weight = next((lower[n] for n in _WEIGHT_COLUMNS if n in lower), None)
    # outcomes and weights as given: the match check reads outcome words
    # ("win", "loss", "draw") and names a bad value's row
    y = X[outcome].to_numpy()
    w = None if weight is None else X[weight].to_numpy()
    return X.iloc[:, :2].to_numpy(dtype=object), y, w


def _numeric_values(X):
    """The float64 values of a result matrix (NaN kept), or None."""
    if isinstance(X, pd.DataFrame):
        if not all(pd.api.types.is_numeric_dtype(t) for t in X.dtypes):
            return None
        return X.to_numpy(dtype=float)
    try:
        values = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        return None
    return values if values.ndim == 2 else None


# a square matrix is a game when its antisymmetric (payoffs) or
# "P + P^T = 1" (win rates) residual is below this share of its size:
# estimated games (each ordered pair measured on its own) are close, not exact
GAME_TOL = 0.1


def _square_game(X, values):
    n, m = values.shape
    if n != m or n < 2:
        return False
    if isinstance(X, pd.DataFrame) and list(X.index) != list(X.columns):
        return False
    off = ~np.eye(n, dtype=bool)
    both = ~np.isnan(values) & ~np.isnan(values.T) & off
    if not both.any():
        return False
    a, b = values[both], values.T[both]
    scale = np.linalg.norm(a)
    if scale > 0 and np.linalg.norm(a + b) <= GAME_TOL * scale:  # payoffs
        return True
    return bool(
        np.all((a >= 0) & (a <= 1))
        and np.linalg.norm(a + b - 1.0) <= GAME_TOL * np.linalg.norm(a - 0.5)
        and np.any(a != 0.5)
    )


def detect_kind(X, y=None):
    """The kind of ``X`` (and ``y``): a key of :data:`KINDS`."""
    if y is not None or split_long_matches(X) is not None:
        return "matches"
    values = _numeric_values(X)
    if values is None:
        return "matches"  # labels without outcomes: the match check says why
    if _square_game(X, values):
        return "game"
    seen = values[~np.isnan(values)]
    if seen.size and np.all(np.isin(seen, (0.0, 1.0))):
        return "binary"
    if (
        seen.size
        and np.all(seen == np.round(seen))
        and seen.min() >= 0
        and seen.max() <= MAX_CATEGORY
    ):
        return "graded"
    if seen.size and seen.min() >= 0 and seen.max() <= 1:
        return "continuous"
    return "scores"
