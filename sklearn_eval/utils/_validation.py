"""Validation of the library's two data shapes: matches and result matrices.

Every check raises a ``ValueError`` or ``TypeError`` whose message names the
problem and, where it applies, the offending row and column.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._coding import code_label_columns
from ._outcomes import outcomes_from_words

__all__ = [
    "MatchData",
    "ResultMatrix",
    "check_antisymmetric",
    "check_binary_values",
    "check_in_bounds",
    "check_matches",
    "check_result_matrix",
    "check_square",
    "encode_players",
    "lookup_players",
]

_ALLOWED_OUTCOMES = (0.0, 0.5, 1.0)


class MatchData(NamedTuple):
    """Validated matches: the two players' labels, outcomes and weights."""

    first: np.ndarray
    second: np.ndarray
    y: np.ndarray | None
    sample_weight: np.ndarray


class ResultMatrix(NamedTuple):
    """A validated agent x task matrix with the names it came with."""

    values: np.ndarray
    agents: np.ndarray | None
    tasks: np.ndarray | None


def _is_dataframe(X):
    return hasattr(X, "iloc") and hasattr(X, "columns")


def _reject_sparse(X, name):
    if sp.issparse(X):
        raise TypeError(
            f"{name} is a sparse matrix, which is not supported here; "
            "convert it with X.toarray()."
        )


def _py(value):
    """A numpy scalar as the Python value, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _first_true(mask):
    """Index tuple of the first True entry of a boolean array (C order)."""
    return tuple(int(k) for k in np.unravel_index(np.argmax(mask), mask.shape))


def _location(index, labels=None):
    if len(index) == 1:
        return f"row {index[0]}"
    row, col = index
    where = f"row {row}, column {col}"
    if labels is not None:
        agents, tasks = labels
        names = []
        if agents is not None:
            names.append(f"agent {_py(agents[row])!r}")
        if tasks is not None:
            names.append(f"task {_py(tasks[col])!r}")
        if names:
            where += " (" + ", ".join(names) + ")"
    return where


def _label_missing_mask(labels):
    """Boolean mask of missing labels (None or NaN) in a 1-D label array."""
    if labels.dtype.kind == "f":
        return np.isnan(labels)
    if labels.dtype.kind in "mM":
        return np.isnat(labels)
    if labels.dtype.kind != "O":
        return np.zeros(labels.shape, dtype=bool)
    return np.asarray(pd.isna(labels), dtype=bool)


def _match_columns(X):
    if _is_dataframe(X):
        if X.shape[1] != 2:
            raise ValueError(
                "X must have exactly 2 columns (first player, second player); "
                f"got a DataFrame with {X.shape[1]} columns."
            )
        return X.iloc[:, 0].to_numpy(), X.iloc[:, 1].to_numpy()
    arr = _list_labels(X) if isinstance(X, list | tuple) else np.asarray(X)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            "X must have shape (n_matches, 2): one row per match, the two players' "
            f"labels in the two columns; got shape {arr.shape}."
        )
    return arr[:, 0], arr[:, 1]


def match_array(X):
    """A match table as an array that keeps its labels' Python types.

    ``np.asarray`` would turn a list mixing ``1`` and ``"a"`` into the strings
    ``"1"`` and ``"a"`` (so ``[1, "1"]`` became a self-match and mixed labels
    were silently compared as text) and a NaN among strings into ``"nan"``.
    A list or tuple is therefore read as objects first and, unless every
    label is text, kept as that object array, so labels of mixed types meet
    the same checks as in an object array or a DataFrame. Lists of one kind
    of label convert as ``np.asarray`` does (strings to a numpy string array,
    numbers to a numeric one); anything else goes through ``np.asarray``.

    Parameters
    ----------
    X : array-like
        The match table (lists of rows, ndarray, ...; not a DataFrame).

    Returns
    -------
    ndarray
    """
    if not isinstance(X, list | tuple):
        return np.asarray(X)
    objects = np.asarray(X, dtype=object)
    if objects.ndim != 2:
        return np.asarray(X)  # ragged or not a table: numpy names the problem
    arr = np.asarray(X)
    if arr.dtype.kind in "US" and objects.size:
        text = "string" if arr.dtype.kind == "U" else "bytes"
        if pd.api.types.infer_dtype(objects.ravel(), skipna=False) != text:
            return objects  # numpy made text of labels that are not text
    return arr


def _list_labels(X):
    """:func:`match_array` of a list, refusing missing labels first."""
    objects = np.asarray(X, dtype=object)
    if objects.ndim == 2 and objects.shape[1] == 2:
        for column in (0, 1):
            missing = _label_missing_mask(objects[:, column])
            if missing.any():
                raise ValueError(
                    f"X has a missing player label (NaN or None) at row "
                    f"{int(np.argmax(missing))}, column {column}."
                )
    return match_array(X)


def _check_labels(first, second):
    for column, labels in ((0, first), (1, second)):
        missing = _label_missing_mask(labels)
        if missing.any():
            row = int(np.argmax(missing))
            raise ValueError(
                f"X has a missing player label (NaN or None) at row {row}, "
                f"column {column}."
            )
    same = np.asarray(first == second, dtype=bool)
    if same.shape != first.shape:  # pragma: no cover - defensive, odd __eq__
        raise TypeError("Player labels could not be compared element-wise.")
    if same.any():
        row = int(np.argmax(same))
        raise ValueError(
            f"Match at row {row} has player {_py(first[row])!r} playing against itself."
        )


def as_float_array(values, name):
    """``values`` as float64, refusing complex numbers and non-numbers by name.

    ``np.asarray(..., dtype=float)`` would drop an imaginary part with only a
    ComplexWarning; a user's complex weights or outcomes are an error.
    """
    if np.iscomplexobj(values) or (
        isinstance(values, list | tuple)
        and any(isinstance(v, complex) for v in np.ravel(np.asarray(values, object)))
    ):
        raise TypeError(
            f"{name} must be real numbers; got complex values (the imaginary "
            "part would be dropped)."
        )
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        try:  # pandas' NA (nullable boolean, object): NaN, named by the checks
            objects = np.array(values, dtype=object)
            is_na = np.frompyfunc(lambda v: type(v).__name__ == "NAType", 1, 1)
            objects[is_na(objects).astype(bool)] = np.nan
            return objects.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be numeric; could not convert it: "
                            f"{exc}") from exc


def accuracy_truth(values, y):
    """True full-benchmark accuracies of the models (rows of ``values``).

    ``y`` when given (one fraction in [0, 1] per row, no NaN), else each
    row's mean observed response; a row without any response then has no
    truth and is refused, never turned into a silent NaN.
    """
    if y is None:
        answered = np.sum(~np.isnan(values), axis=1)
        if not answered.all():
            row = int(np.argmin(answered))
            raise ValueError(
                f"X row {row} has no response (every item is NaN), so its "
                "accuracy is unknown; drop the row or give the true accuracies "
                "as y."
            )
        return np.nanmean(values, axis=1)
    truth = as_float_array(y, "y").reshape(-1)
    if truth.shape[0] != values.shape[0]:
        raise ValueError(
            f"y has {truth.shape[0]} entries for {values.shape[0]} models (rows "
            "of X): one true accuracy per model."
        )
    bad = ~((truth >= 0.0) & (truth <= 1.0))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            "y (the models' full-benchmark accuracies) must lie in [0, 1]; got "
            f"{float(truth[row])!r} at row {row}."
        )
    return truth


def _check_vector(v, n, name, *, allow_none=False):
    if v is None:
        if allow_none:
            return None
        raise ValueError(f"{name} is required.")
    _reject_sparse(v, name)
    arr = as_float_array(v, name)
    if arr.ndim != 1:
        arr = arr.reshape(-1) if arr.ndim == 2 and 1 in arr.shape else arr
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {np.shape(v)}.")
    if arr.shape[0] != n:
        raise ValueError(
            f"{name} has {arr.shape[0]} entries but X has {n} matches; "
            "they must have the same length."
        )
    # A finite sum means finite entries (NaN and inf propagate); only an
    # overflowing sum needs the entry-wise check.
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()
    if not np.isfinite(total):
        row = first_in_blocks(arr, test=lambda block: ~np.isfinite(block))
        if row >= 0:
            raise ValueError(
                f"{name} has a non-finite value ({arr[row]}) at row {row}."
            )
    return arr


# Entries per block of the blockwise checks: their temporaries stay in cache
# instead of costing fresh pages at every call on tens of millions of matches.
_BLOCK = 1 << 16


def first_in_blocks(*arrays, test):
    """Index of the first entry where ``test(*blocks)`` is True, or -1."""
    n = arrays[0].shape[0]
    for start in range(0, n, _BLOCK):
        hit = test(*(a[start:start + _BLOCK] for a in arrays))
        if hit.any():
            return start + int(np.argmax(hit))
    return -1


def _invalid_outcome(y):
    return (y != 0.0) & (y != 1.0) & (y != 0.5)


def check_outcomes(y, sample_weight, n, *, require_y=True):
    """Validate the outcomes and weights of ``n`` matches.

    The part of :func:`check_matches` that does not look at the labels.

    Returns
    -------
    y : ndarray of float64 or None
    sample_weight : ndarray of float64
        Ones when None.

    Raises
    ------
    ValueError
        For an outcome other than 1, 0 or 0.5, a negative weight, or weights
        that are all zero (no match would count).
    """
    if y is not None:
        y = outcomes_from_words(y)
    y_arr = _check_vector(y, n, "y", allow_none=not require_y)
    if y_arr is not None:
        row = first_in_blocks(y_arr, test=_invalid_outcome)
        if row >= 0:
            raise ValueError(
                f"y must be 1 (first player wins), 0 (loses) or 0.5 (draw); "
                f"got {_py(y_arr[row])!r} at row {row}."
            )
    if sample_weight is None:
        return y_arr, np.ones(n, dtype=np.float64)
    weights = _check_vector(sample_weight, n, "sample_weight")
    if weights.min() < 0:
        row = int(np.argmax(weights < 0))
        raise ValueError(
            f"sample_weight must be non-negative; got {weights[row]} at row {row}."
        )
    if n and not weights.any():
        raise ValueError(
            "sample_weight is zero for every match: the weights sum to 0, so no "
            "match counts (give at least one match a positive weight)."
        )
    return y_arr, weights


def check_matches(X, y=None, sample_weight=None, *, require_y=True):
    """Validate a table of matches.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_matches, 2)
        The two players of each match, in chronological order. Labels may be
        any hashable values (str or int); missing labels are rejected.
    y : array-like of shape (n_matches,), default=None
        Outcome for the first player: 1 win, 0 loss, 0.5 draw, or the words
        the file readers accept (``"win"``, ``"loss"``, ``"draw"``, also
        ``"w"``, ``"l"``, ``"d"``, ``"tie"``, ``"1-0"``, ``"0-1"``,
        ``"1/2-1/2"``; any case).
    sample_weight : array-like of shape (n_matches,), default=None
        Non-negative weight of each match; ones when None.
    require_y : bool, default=True
        Whether ``y`` must be given (False for prediction).

    Returns
    -------
    MatchData
        Named tuple ``(first, second, y, sample_weight)``; ``y`` is float64 or
        None, ``sample_weight`` float64.

    Raises
    ------
    ValueError
        On a wrong shape, no matches, a missing label, a player against
        itself, an outcome outside {0, 0.5, 1}, a negative or non-finite
        weight, or lengths that differ; the message names the row.
    TypeError
        On sparse input or non-numeric outcomes or weights.

    Examples
    --------
    >>> from sklearn_eval.utils import check_matches
    >>> m = check_matches([["a", "b"], ["b", "c"]], [1, 0.5])
    >>> m.first.tolist(), m.y.tolist(), m.sample_weight.tolist()
    (['a', 'b'], [1.0, 0.5], [1.0, 1.0])
    """
    _reject_sparse(X, "X")
    first, second = _match_columns(X)
    n = first.shape[0]
    if n == 0:
        raise ValueError("X holds no matches; at least one is required.")
    _check_labels(first, second)
    y_arr, weights = check_outcomes(y, sample_weight, n, require_y=require_y)
    return MatchData(first, second, y_arr, weights)


def encode_players(first, second):
    """Code two label columns as integer indices into their sorted union.

    Parameters
    ----------
    first, second : array-like of shape (n_matches,)
        Player labels of any one sortable hashable type.

    Returns
    -------
    players : ndarray of shape (n_players,)
        The distinct labels, sorted.
    idx_first, idx_second : ndarray of int64, shape (n_matches,)
        Positions of the labels in ``players``.

    Raises
    ------
    TypeError
        If the labels mix types that cannot be sorted (e.g. str and int).
    ValueError
        If a label is missing (None, NaN or NaT).

    Notes
    -----
    The cost is linear in the number of labels: integers in a moderate range
    go through an offset table, strings through an exact hash of their
    bytes, Python objects are coded by identity before their distinct values
    are hashed, and only the distinct labels are sorted.

    Examples
    --------
    >>> from sklearn_eval.utils import encode_players
    >>> players, i, j = encode_players(["b", "a"], ["c", "b"])
    >>> players.tolist(), i.tolist(), j.tolist()
    (['a', 'b', 'c'], [1, 0], [2, 1])
    """
    first = np.asarray(first)
    second = np.asarray(second)
    players, (idx_first, idx_second) = code_label_columns([first, second])
    for labels, idx in ((first, idx_first), (second, idx_second)):
        if idx.shape[0] and idx.min() < 0:
            position = int(np.argmax(idx < 0))
            raise ValueError(
                f"Player labels must not be missing; got {_py(labels[position])!r} "
                f"at position {position}."
            )
    return players, idx_first, idx_second


def lookup_players(labels, players):
    """Positions of ``labels`` in the fitted ``players``, -1 for unseen ones.

    Parameters
    ----------
    labels : array-like of shape (n,)
        Labels to look up.
    players : ndarray of shape (n_players,)
        Known labels (e.g. an estimator's ``players_``).

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> from sklearn_eval.utils import lookup_players
    >>> lookup_players(["c", "z", "a"], ["a", "b", "c"]).tolist()
    [2, -1, 0]
    """
    labels = np.asarray(labels)
    players = np.asarray(players)
    index = pd.Index(players)
    if index.is_unique:
        return np.asarray(index.get_indexer(labels), dtype=np.int64)
    mapping = {v: k for k, v in enumerate(players.tolist())}
    return np.fromiter(
        (mapping.get(v, -1) for v in labels.tolist()), dtype=np.int64, count=len(labels)
    )


def _first_duplicate(labels):
    """``(label, first row, second row)`` of the first repeated label, or None."""

    if pd is not None:
        try:
            repeated = pd.Index(labels).duplicated()
        except TypeError:  # unhashable labels: the loop below compares text
            repeated = None
        if repeated is not None:
            if not repeated.any():
                return None
            k = int(np.argmax(repeated))
            j = int(np.flatnonzero(pd.Index(labels[:k]) == labels[k])[0])
            return labels[k], j, k
    seen = {}
    for k, label in enumerate(labels.tolist()):
        try:
            j = seen.setdefault(label, k)
        except TypeError:  # unhashable label: compare by its text
            j = seen.setdefault(repr(label), k)
        if j != k:
            return label, j, k
    return None


def check_frame_labels(X, name="X", rows="agent", columns="column"):
    """Refuse missing (None, NaN, pd.NA) or repeated labels of a DataFrame.

    The index labels the rows (``rows``, e.g. "agent") and the columns
    ``columns``; a RangeIndex is never checked (it is unique and complete).
    Anything that is not a DataFrame passes unchanged. Used by every
    estimator that reads agent labels from a DataFrame, so that two agents
    are never merged into one name or reported as ``nan``.
    """
    if not _is_dataframe(X):
        return
    for axis, labels, what in ((0, X.index, rows), (1, X.columns, columns)):
        values = np.asarray(labels, dtype=object)
        if values.ndim != 1 or values.size == 0:
            continue  # a MultiIndex or an empty axis: the shape checks speak
        where = "index" if axis == 0 else "columns"
        unit = "row" if axis == 0 else "column"
        missing = _label_missing_mask(values)
        if missing.any():
            k = int(np.argmax(missing))
            raise ValueError(
                f"{name} has a missing {what} label (None, NaN or pd.NA) in its "
                f"{where}, at {unit} {k}; every {what} needs a name."
            )
        duplicate = _first_duplicate(values)
        if duplicate is not None:
            label, j, k = duplicate
            raise ValueError(
                f"{name} has a duplicated {what} label: {_py(label)!r} twice in "
                f"its {where} ({unit}s {j} and {k}); {what} labels must be "
                "unique."
            )


def check_unique_columns(columns, name="X"):
    """Refuse a repeated column name, naming the first (one message for
    every reader of DataFrame columns)."""
    duplicate = _first_duplicate(np.asarray(columns, dtype=object))
    if duplicate is not None:
        raise ValueError(
            f"{name} has duplicated column name {_py(duplicate[0])!r}.")


def _frame_values(X, name):
    columns = np.asarray(X.columns)
    check_unique_columns(X.columns, name)
    check_frame_labels(X, name)
    for k, dtype in enumerate(X.dtypes):
        if not (dtype.kind in "biuf" or str(dtype) in ("boolean", "Int64", "Float64")):
            raise TypeError(
                f"{name} column {_py(columns[k])!r} (column {k}) is not numeric "
                f"(dtype {dtype})."
            )
    values = X.to_numpy(dtype=np.float64, na_value=np.nan)
    index = X.index
    agents = None
    if pd is not None and not isinstance(index, pd.RangeIndex):
        agents = np.asarray(index)
    return values, agents, columns


def _array_values(X, name):
    arr = np.asarray(X)
    if arr.dtype.kind in "OUS":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must hold numbers; it has non-numeric entries "
                f"(dtype {arr.dtype}): {exc}"
            ) from exc
    elif arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {arr.dtype}.")
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers; got dtype {arr.dtype}.")
    return np.asarray(arr, dtype=np.float64), None, None


def check_result_matrix(X, *, allow_nan=False, name="X"):
    """Validate an agent x task result matrix and keep its names.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
        Rows are agents, columns are tasks.
    allow_nan : bool, default=False
        Whether NaN (a missing result) is allowed.
    name : str, default="X"
        Name used in error messages.

    Returns
    -------
    ResultMatrix
        Named tuple ``(values, agents, tasks)``: a float64 copy of the data,
        the row labels (a DataFrame's index unless it is a RangeIndex) and the
        column labels (a DataFrame's columns), or None.

    Raises
    ------
    ValueError
        On a shape other than 2-D, an empty matrix, inf anywhere, NaN when not
        allowed, or duplicated column names; the message names row and column.
    TypeError
        On sparse or non-numeric input.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils import check_result_matrix
    >>> check_result_matrix([[1, 0], [0, np.nan]], allow_nan=True).values.shape
    (2, 2)
    """
    _reject_sparse(X, name)
    if _is_dataframe(X):
        values, agents, tasks = _frame_values(X, name)
    else:
        values, agents, tasks = _array_values(X, name)
    if values.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (agents x tasks); got {values.ndim}-D input "
            f"of shape {values.shape}. Reshape your data with X.reshape(-1, 1) "
            "for one task or X.reshape(1, -1) for one agent."
        )
    if values.shape[0] == 0:
        raise ValueError(
            f"{name} is empty: found array with 0 sample(s) (shape={values.shape}) "
            "while a minimum of 1 is required."
        )
    if values.shape[1] == 0:
        raise ValueError(
            f"{name} is empty: found array with 0 feature(s) (shape={values.shape}) "
            "while a minimum of 1 is required."
        )
    labels = (agents, tasks)
    inf = np.isinf(values)
    if inf.any():
        where = _location(_first_true(inf), labels)
        raise ValueError(f"{name} has an infinite value at {where}.")
    if not allow_nan:
        nan = np.isnan(values)
        if nan.any():
            where = _location(_first_true(nan), labels)
            raise ValueError(
                f"{name} has a missing value (NaN) at {where}, and this method "
                "needs complete data."
            )
    return ResultMatrix(values, agents, tasks)


def check_binary_values(A, name="X"):
    """Check that every entry is 0, 1 or NaN.

    Parameters
    ----------
    A : array-like
        Responses.
    name : str, default="X"
        Name of ``A`` in the error message.

    Returns
    -------
    A : ndarray of float64
        The checked responses.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils import check_binary_values
    >>> check_binary_values(np.array([[0.0, 1.0], [np.nan, 1.0]])).shape
    (2, 2)
    """
    A = np.asarray(A, dtype=np.float64)
    bad = ~(np.isnan(A) | (A == 0) | (A == 1))
    if bad.any():
        index = _first_true(bad)
        raise ValueError(
            f"{name} must hold binary responses (0, 1, or NaN for missing); got "
            f"{_py(A[index])!r} at {_location(index)}. Binarise scores first, "
            "e.g. with sklearn_eval.utils.binarize_scores."
        )
    return A


def check_in_bounds(A, low, high, name="X"):
    """Check that every non-NaN entry lies in ``[low, high]``.

    Parameters
    ----------
    A : array-like
        Values, NaN allowed.
    low, high : float
        Bounds of the allowed interval (inclusive).
    name : str, default="X"
        Name of ``A`` in the error message.

    Returns
    -------
    A : ndarray of float64
        The checked values.

    Examples
    --------
    >>> from sklearn_eval.utils import check_in_bounds
    >>> check_in_bounds([[0.2, 0.9]], 0, 1).tolist()
    [[0.2, 0.9]]
    """
    A = np.asarray(A, dtype=np.float64)
    bad = (A < low) | (A > high)
    if bad.any():
        index = _first_true(bad)
        raise ValueError(
            f"{name} must lie in [{low}, {high}]; got {_py(A[index])!r} at "
            f"{_location(index)}."
        )
    return A


def check_square(A, name="payoff"):
    """Check that ``A`` is a 2-D square matrix with at least two rows.

    Parameters
    ----------
    A : array-like of shape (n_agents, n_agents)
        The matrix.
    name : str, default="payoff"
        Name of ``A`` in the error message.

    Returns
    -------
    A : ndarray of float64
        The checked matrix.

    Examples
    --------
    >>> from sklearn_eval.utils import check_square
    >>> check_square([[0, 1], [-1, 0]]).shape
    (2, 2)
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {A.shape}.")
    if A.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 agents; got {A.shape[0]}.")
    return A


def antisymmetry_excess(A, *, tol=1e-8):
    """``|A + A.T|`` and the bound it must stay under (antisymmetry rule).

    The bound is ``tol`` relative to the largest magnitude in ``A`` (absolute
    when that is below 1): the one rule every antisymmetry check of the
    library applies.
    """
    excess = np.abs(A + A.T)
    return excess, tol * max(1.0, float(np.max(np.abs(A))))


def asymmetry_cell(A, i, j, symbol="A"):
    """The entries of ``A`` breaking antisymmetry at (i, j), for a message
    (on the diagonal, the one entry and the 0 that the rule needs)."""
    i, j = int(i), int(j)
    if i == j:
        return (f"{symbol}[{i}, {i}] = {_py(A[i, i])!r} on the diagonal, which "
                "must be 0")
    return (f"{symbol}[{i}, {j}] = {_py(A[i, j])!r} but {symbol}[{j}, {i}] = "
            f"{_py(A[j, i])!r}")


def check_antisymmetric(A, *, tol=1e-8, name="payoff"):
    """Check that ``A`` is square, finite and antisymmetric (``A = -A.T``).

    The tolerance is relative to the largest magnitude in ``A`` (absolute when
    that is below 1).

    Parameters
    ----------
    A : array-like of shape (n_agents, n_agents)
        The payoff matrix.
    tol : float, default=1e-8
        Largest allowed ``|A + A.T|``, relative to ``max(1, max|A|)``.
    name : str, default="payoff"
        Name of ``A`` in the error message.

    Returns
    -------
    A : ndarray of float64
        The checked matrix.

    Examples
    --------
    >>> from sklearn_eval.utils import check_antisymmetric
    >>> check_antisymmetric([[0, 2], [-2, 0]]).tolist()
    [[0.0, 2.0], [-2.0, 0.0]]
    """
    A = check_square(A, name=name)
    nonfinite = ~np.isfinite(A)
    if nonfinite.any():
        index = _first_true(nonfinite)
        raise ValueError(f"{name} has a non-finite value at {_location(index)}.")
    excess, limit = antisymmetry_excess(A, tol=tol)
    if excess.max() > limit:
        i, j = _first_true(excess > limit)
        raise ValueError(
            f"{name} must be antisymmetric (A[i, j] = -A[j, i]); "
            f"{asymmetry_cell(A, i, j)} (tolerance {limit:.3g})."
        )
    return A

