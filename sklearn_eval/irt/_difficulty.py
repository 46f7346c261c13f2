"""Where GeneralityScorer's task difficulties and weights come from.

Difficulties are one minus the success rate, given values, or the difficulty
of an IRT model fitted on the responses (or a frozen, already fitted one).
"""

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator

from ..utils import ResultMatrix
from ._irt2pl import IRT2PL


def _check_weights(task_weights, n_tasks):
    """Validate task weights: finite, non-negative, one per task, not all 0."""
    if task_weights is None:
        return np.ones(n_tasks)
    weights = np.asarray(task_weights, dtype=np.float64)
    if weights.shape != (n_tasks,):
        raise ValueError(
            f"task_weights must have one entry per task ({n_tasks}); got shape "
            f"{weights.shape}."
        )
    bad = ~np.isfinite(weights) | (weights < 0)
    if bad.any():
        column = int(np.flatnonzero(bad)[0])
        raise ValueError(
            "task_weights must be finite and >= 0; got "
            f"{weights[column]!r} for task {column}."
        )
    if not weights.sum() > 0:
        raise ValueError("task_weights must not all be zero.")
    return weights


def _task_name(tasks, column):
    """Human-readable name of a task column for error messages."""
    if tasks is None:
        return f"column {column}"
    return f"column {column} ({tasks[column]!r})"


def _task_difficulties(source, X, responses, tasks, *,
                       exclude_negative_discrimination):
    """Task difficulties, the tasks eligible for binning, and the IRT model.

    ``source`` is the scorer's ``difficulty`` parameter: ``"rate"``, ``"irt"``,
    an IRT2PL-like estimator (fitted here on a clone unless frozen) or an
    array of given difficulties.
    """
    n_tasks = responses.shape[1]
    if isinstance(source, str) and source == "rate":
        totals, counts = _column_sums(responses)
        empty = counts == 0
        if empty.any():
            column = int(np.flatnonzero(empty)[0])
            raise ValueError(
                f"X {_task_name(tasks, column)} has no observed result, so "
                "its success rate (difficulty='rate') is undefined."
            )
        difficulty = 1.0 - totals / counts
        return difficulty, np.ones(n_tasks, dtype=bool), None
    if isinstance(source, str) or hasattr(source, "fit"):
        return _irt_difficulties(source, X, responses, tasks,
                                 exclude_negative_discrimination)
    difficulty = _given_difficulties(source, tasks, n_tasks)
    return difficulty, np.ones(n_tasks, dtype=bool), None

def _given_difficulties(source, tasks, n_tasks):
    """Validate a user-supplied difficulty vector."""
    if hasattr(source, "reindex") and tasks is not None:
        missing = [task for task in tasks if task not in source.index]
        if not missing:
            source = source.reindex(tasks)
    difficulty = np.asarray(source, dtype=np.float64)
    if difficulty.ndim != 1 or difficulty.shape[0] != n_tasks:
        raise ValueError(
            f"difficulty must have one value per task (column of X): expected "
            f"shape ({n_tasks},), got {difficulty.shape}."
        )
    bad = ~np.isfinite(difficulty)
    if bad.any():
        column = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"difficulty must be finite; got {difficulty[column]} for task "
            f"{_task_name(tasks, column)}. Drop that column from X (and "
            "from difficulty) to leave the task out."
        )
    return difficulty


def _irt_difficulties(source, X, responses, tasks, exclude_negative_discrimination):
    """Difficulties from an IRT model (fitted here, or frozen)."""
    n_tasks = responses.shape[1]
    row, column, value = _first_non_binary(responses)
    if row is not None and _binary_model(source):
        raise ValueError(
            "An IRT difficulty needs binary responses; X has "
            f"{float(value)!r} at row {row}, "
            f"{_task_name(tasks, column)}. Pass threshold= to binarise "
            "scores, or use difficulty='rate' or a difficulty array."
        )
    model = IRT2PL() if isinstance(source, str) else source
    if not isinstance(model, FrozenEstimator):
        # a graded model reads the category codes, not their scores on [0, 1]
        model = clone(model).fit(X if graded_source(model) else _like(X, responses))
    if getattr(model, "n_factors", 1) != 1:
        raise ValueError(
            f"GeneralityScorer needs one ability; the difficulty model has "
            f"n_factors={model.n_factors}.")
    difficulty = getattr(model, "difficulty_", None)
    scored = getattr(model, "model", None) in _SCORED_MODELS
    if scored or (difficulty is None
                  and callable(getattr(model, "expected_score", None))):
        difficulty = curve_location(model)
    difficulty = np.asarray(difficulty, dtype=np.float64)
    if difficulty.shape != (n_tasks,):
        raise ValueError(
            f"The difficulty model's difficulty_ has shape {difficulty.shape}; "
            f"expected one value per task ({n_tasks},). A frozen model must "
            "have been fitted on the same tasks."
        )
    eligible = np.isfinite(difficulty)
    discrimination = getattr(model, "discrimination_", None)
    if exclude_negative_discrimination and discrimination is not None:
        eligible &= ~(np.asarray(discrimination, dtype=np.float64) < 0)
    if not eligible.any():
        raise ValueError(
            "No task is left to bin: every task has a negative "
            "discrimination or no finite difficulty."
        )
    return difficulty, eligible, model


# graded and continuous models of IRT: their location is where the expected
# item score (on [0, 1]) is 0.5
_SCORED_MODELS = ("GRM", "GPCM", "beta", "logit-normal")


def graded_source(source):
    """Whether the difficulty source is a graded IRT (GRM, GPCM)."""
    return getattr(source, "model", None) in ("GRM", "GPCM")


def score_codes(source, values, top=None):
    """Category codes as item scores on [0, 1] when ``source`` is a graded IRT.

    Each code is divided by its item's largest code: ``top`` (one per item,
    the scale learned in fit) or, when None, the largest in ``values`` (an
    item whose codes are all 0 scores 0). Returns ``(scores, top)``;
    ``values`` (dense with NaN, or sparse) and None for any other source.
    Negative or fractional codes are left to the graded model's own check; a
    code above ``top`` is refused, naming its item.
    """
    if not graded_source(source):
        return values, None
    csr = (sparse.csr_array(values, dtype=np.float64, copy=True)
           if sparse.issparse(values) else None)
    if csr is not None:
        data, items = csr.data, csr.indices
    else:
        data = np.asarray(values, dtype=np.float64)
        items = np.broadcast_to(np.arange(data.shape[1]), data.shape)
    if top is None:  # fmax passes over NaN; an item without codes gets 0
        top = np.zeros(items.shape[-1] if csr is None else csr.shape[1])
        if csr is None:
            top = np.fmax(top, np.fmax.reduce(data, axis=0))
        else:
            np.fmax.at(top, items, data)
    scale = top[items]
    above = data > scale  # NaN is never above
    if above.any():
        first = int(np.flatnonzero(above)[0])
        j = int(items.flat[first])
        raise ValueError(
            f"X has category {float(data.flat[first]):g} on item {j}, above the "
            f"largest code seen in fit ({float(top[j]):g}).")
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(scale > 0, data / scale, 0.0 * data)
    if csr is not None:
        csr.data = scores
        return csr, top
    if hasattr(values, "iloc"):  # keep the labels of a DataFrame
        return pd.DataFrame(scores, index=values.index, columns=values.columns), top
    return scores, top


def as_codes(source, X, responses, top):
    """The input a difficulty model reads: ``responses`` shaped like ``X``, the
    item scores turned back into category codes for a graded source."""
    if not graded_source(source) or top is None:
        return _like(X, responses)
    if sparse.issparse(responses):
        codes = sparse.csr_array(responses, copy=True)
        codes.data = np.rint(codes.data * top[codes.indices])
        return codes
    return _like(X, np.rint(responses * top))


def _binary_model(source):
    """Whether the difficulty source models 0/1 responses (all but other families).

    ``"irt"`` (an IRT2PL), IRT2PL and :class:`IRT` with a binary ``model``
    need binary responses; an IRT of another family (graded, continuous
    scores) reads its own.
    """
    if isinstance(source, str):
        return True
    name = getattr(source, "model", None)
    return not isinstance(name, str) or name in ("1PL", "2PL", "3PL", "4PL", "Rasch")


# the abilities on which an item's location is searched, and the two far
# abilities at which its curve has reached its asymptotes
_LOCATION_GRID = np.linspace(-10.0, 10.0, 4001)
_FAR = np.array([-50.0, 50.0])


def curve_location(model):
    """Ability at which every item's expected score is halfway up its range.

    For the logistic models this is the difficulty ``b`` (``P(b) = (g + u) /
    2``); for any unidimensional model with ``expected_score(theta)`` (graded
    or continuous scores) it is the same location on its expected-score
    curve: the range is the curve's values at abilities -50 and 50, the
    crossing is found on a grid of step 0.005 on [-10, 10] and interpolated
    linearly. NaN for a flat curve or a crossing outside [-10, 10]; a
    decreasing curve (negative discrimination) gets the crossing of its own
    midpoint.
    """
    ends = np.asarray(model.expected_score(_FAR), dtype=np.float64)
    scores = np.asarray(model.expected_score(_LOCATION_GRID), dtype=np.float64)
    low, high = ends[0], ends[1]
    middle = 0.5 * (low + high)
    above = (scores - middle) * np.sign(high - low)[None, :] >= 0
    out = np.full(scores.shape[1], np.nan)
    inside = (high != low) & np.isfinite(middle) & above[-1] & ~above[0]
    for item in np.flatnonzero(inside):
        k = int(np.argmax(above[:, item]))
        s0, s1 = scores[k - 1, item], scores[k, item]
        t = (middle[item] - s0) / (s1 - s0) if s1 != s0 else 0.0
        out[item] = _LOCATION_GRID[k - 1] + t * (_LOCATION_GRID[k]
                                                 - _LOCATION_GRID[k - 1])
    return out


def _column_sums(responses):
    """Sum and number of the observed results of every task."""
    if sparse.issparse(responses):
        totals = np.bincount(responses.indices, weights=responses.data,
                             minlength=responses.shape[1])
        return totals, np.bincount(responses.indices, minlength=responses.shape[1])
    observed = ~np.isnan(responses)
    return np.where(observed, responses, 0.0).sum(axis=0), observed.sum(axis=0)


def _first_non_binary(responses):
    """(row, column, value) of the first result other than 0, 1 or NaN."""
    if sparse.issparse(responses):
        bad = np.flatnonzero((responses.data != 0) & (responses.data != 1))
        if bad.size == 0:
            return None, None, None
        position = int(bad[0])
        row = int(np.searchsorted(responses.indptr, position, side="right") - 1)
        return row, int(responses.indices[position]), responses.data[position]
    binary = np.isnan(responses) | (responses == 0) | (responses == 1)
    if binary.all():
        return None, None, None
    row, column = np.argwhere(~binary)[0]
    return int(row), int(column), responses[row, column]


def _like(X, values):
    """``values`` shaped like ``X``: a DataFrame, a ResultMatrix or as is."""
    if isinstance(X, ResultMatrix):
        return ResultMatrix(values, X.agents, X.tasks)
    if hasattr(X, "iloc"):

        return pd.DataFrame(values, index=X.index, columns=X.columns)
    return values
