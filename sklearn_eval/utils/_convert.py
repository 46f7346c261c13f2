"""Converters between the two data shapes and common score transformations."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._sparse import check_sparse_result, is_sparse_input, replace_stored
from ._validation import (
    _is_dataframe,
    _label_missing_mask,
    _py,
    as_float_array,
    check_in_bounds,
    check_matches,
    check_result_matrix,
    check_square,
    encode_players,
    lookup_players,
)

__all__ = [
    "baseline_normalize",
    "binarize_scores",
    "long_to_result_matrix",
    "matches_to_win_matrix",
    "matches_to_win_rate",
    "minmax_normalize",
    "win_probability_to_matches",
]


def _code_matches(X, y, sample_weight, players):
    data = check_matches(X, y, sample_weight)
    if players is None:
        players, i, j = encode_players(data.first, data.second)
    else:
        players = np.asarray(players)
        i = lookup_players(data.first, players)
        j = lookup_players(data.second, players)
        unknown = (i < 0) | (j < 0)
        if unknown.any():
            row = int(np.argmax(unknown))
            label = data.first[row] if i[row] < 0 else data.second[row]
            raise ValueError(
                f"Match at row {row} has player {_py(label)!r}, "
                "which is not in players."
            )
    return data, players, i, j


def matches_to_win_matrix(X, y, sample_weight=None, *, players=None):
    """Count (weighted) wins and games between every pair of players.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_matches, 2)
        The two players of each match.
    y : array-like of shape (n_matches,)
        Outcome for the first player: 1 win, 0 loss, 0.5 draw.
    sample_weight : array-like of shape (n_matches,), default=None
        Weight of each match.
    players : array-like, default=None
        Fix the players and their order; by default the sorted labels seen.

    Returns
    -------
    wins : ndarray of shape (n_players, n_players)
        ``wins[i, j]`` is the weighted number of wins of i over j; a draw
        counts half to each side.
    counts : ndarray of shape (n_players, n_players)
        Weighted number of games between i and j (symmetric).
    players : ndarray of shape (n_players,)

    Examples
    --------
    >>> from sklearn_eval.utils import matches_to_win_matrix
    >>> wins, counts, players = matches_to_win_matrix(
    ...     [["a", "b"], ["b", "a"], ["a", "b"]], [1, 0.5, 0])
    >>> wins.tolist(), counts.tolist()
    ([[0.0, 1.5], [1.5, 0.0]], [[0.0, 3.0], [3.0, 0.0]])
    """
    data, players, i, j = _code_matches(X, y, sample_weight, players)
    wins, counts, unit = _unit_win_counts(data, i, j, len(players))
    with np.errstate(over="ignore"):  # beyond 1.8e308 a total is inf, not NaN
        return wins * unit, counts * unit, players


def _unit_win_counts(data, i, j, n):
    """Win and game totals in units of the largest weight (no overflow)."""
    w = data.sample_weight
    unit = float(w.max()) if w.shape[0] and w.max() > 0 else 1.0
    w = w / unit
    forward = i * n + j
    backward = j * n + i
    size = n * n
    wins = np.bincount(forward, weights=w * data.y, minlength=size)
    wins += np.bincount(backward, weights=w * (1.0 - data.y), minlength=size)
    counts = np.bincount(forward, weights=w, minlength=size)
    counts += np.bincount(backward, weights=w, minlength=size)
    return wins.reshape(n, n), counts.reshape(n, n), unit


def matches_to_win_rate(X, y, sample_weight=None, *, players=None):
    """Empirical win rate of every player against every other.

    Parameters
    ----------
    X : array-like of shape (n_matches, 2)
        The two players of each match.
    y : array-like of shape (n_matches,)
        Outcome for the first player (1, 0 or 0.5).
    sample_weight : array-like of shape (n_matches,), default=None
        Weight of each match (a count of games).
    players : array-like, default=None
        Player labels, in the order of the rows and columns; the sorted
        labels of ``X`` when None.

    Returns
    -------
    rates : ndarray of shape (n_players, n_players)
        ``wins / counts``; NaN where two players never met, 0.5 on the
        diagonal.
    counts : ndarray of shape (n_players, n_players)
    players : ndarray of shape (n_players,)

    Examples
    --------
    >>> from sklearn_eval.utils import matches_to_win_rate
    >>> rates, counts, players = matches_to_win_rate(
    ...     [["a", "b"], ["a", "b"], ["b", "c"]], [1, 0, 1])
    >>> rates.round(2).tolist()
    [[0.5, 0.5, nan], [0.5, 0.5, 1.0], [nan, 0.0, 0.5]]
    """
    data, players, i, j = _code_matches(X, y, sample_weight, players)
    wins, counts, unit = _unit_win_counts(data, i, j, len(players))
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(counts > 0, wins / np.where(counts > 0, counts, 1), np.nan)
    np.fill_diagonal(rates, 0.5)
    with np.errstate(over="ignore"):
        return rates, counts * unit, players


def win_probability_to_matches(P, players=None):
    """Turn a win-probability matrix into weighted matches.

    Each ordered pair ``(i, j)`` with ``i != j`` appears twice: once as a win
    for ``i`` (``y = 1``) with weight ``P[i, j]`` and once as a loss
    (``y = 0``) with weight ``1 - P[i, j]``. Every pair then counts equally in
    a likelihood fit, whatever the number of games behind each probability.

    Parameters
    ----------
    P : array-like of shape (n_players, n_players)
        ``P[i, j]`` is the probability that i beats j; the diagonal is ignored.
    players : array-like of shape (n_players,), default=None
        Labels; ``0 .. n_players - 1`` by default.

    Returns
    -------
    X : ndarray of shape (2 * n_players * (n_players - 1), 2)
    y : ndarray of shape (2 * n_players * (n_players - 1),)
    sample_weight : ndarray of shape (2 * n_players * (n_players - 1),)

    Examples
    --------
    >>> from sklearn_eval.utils import win_probability_to_matches
    >>> X, y, w = win_probability_to_matches([[0.5, 0.8], [0.2, 0.5]], ["a", "b"])
    >>> X.tolist(), y.tolist(), w.round(2).tolist()
    ([['a', 'b'], ['a', 'b'], ['b', 'a'], ['b', 'a']], [1.0, 0.0, 1.0, 0.0], [0.8, 0.2, 0.2, 0.8])
    """  # noqa: E501
    P = check_square(P, name="P")
    off = ~np.eye(P.shape[0], dtype=bool)
    if np.isnan(P[off]).any():
        raise ValueError(
            "P has a missing win probability (NaN) off the diagonal; fill it first."
        )
    check_in_bounds(np.where(off, P, 0.5), 0.0, 1.0, name="P")
    n = P.shape[0]
    labels = np.arange(n) if players is None else np.asarray(players)
    if labels.shape != (n,):
        raise ValueError(f"players must have {n} labels; got shape {labels.shape}.")
    rows, cols = np.nonzero(off)
    pairs = np.column_stack([labels[rows], labels[cols]])
    X = np.repeat(pairs, 2, axis=0)
    y = np.tile([1.0, 0.0], len(rows))
    p = P[rows, cols]
    weights = np.column_stack([p, 1.0 - p]).ravel()
    return X, y, weights


_AGGREGATES = ("mean", "sum", "min", "max", "first", "last", "error")


def _long_columns(data, agent, task, score):
    try:
        columns = [data[agent], data[task], data[score]]
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(
            f"The long table needs columns {agent!r}, {task!r} and {score!r}; "
            f"missing {exc}."
        ) from exc
    # missing labels are found on the objects: np.asarray would turn a NaN in
    # a list of strings into the label 'nan'
    labels = [
        np.asarray(c, dtype=object) if isinstance(c, list | tuple) else np.asarray(c)
        for c in columns[:2]
    ]
    for name, values in zip((agent, task), labels, strict=True):
        missing = _label_missing_mask(values)
        if missing.any():
            row = int(np.argmax(missing))
            raise ValueError(
                f"Column {name!r} has a missing label ({_py(values[row])!r}) at "
                f"row {row}: every score needs its {name}; drop or name those rows."
            )
    agents, tasks, scores = (np.asarray(c) for c in columns)
    if not agents.shape == tasks.shape == scores.shape or agents.ndim != 1:
        raise ValueError("The agent, task and score columns must be 1-D and aligned.")
    scores = as_float_array(scores, f"Column {score!r}")
    return agents, tasks, scores


def _aggregate(cell, scores, size, aggfunc):
    observed = ~np.isnan(scores)
    cell, scores = cell[observed], scores[observed]
    count = np.bincount(cell, minlength=size)
    if aggfunc == "error" and (count > 1).any():
        raise ValueError(
            "The long table has more than one score for an (agent, task) pair; "
            "choose an aggfunc such as 'mean'."
        )
    out = np.full(size, np.nan)
    if aggfunc in ("mean", "sum", "error"):
        total = np.bincount(cell, weights=scores, minlength=size)
        out[count > 0] = total[count > 0]
        if aggfunc != "sum":
            out[count > 0] /= count[count > 0]
    elif aggfunc in ("min", "max"):
        ufunc = np.fmin if aggfunc == "min" else np.fmax
        ufunc.at(out, cell, scores)
    else:
        order = np.arange(len(cell))
        if aggfunc == "first":
            order = order[::-1]
        out[cell[order]] = scores[order]
    return out


def long_to_result_matrix(
    data, *, agent="agent", task="task", score="score", aggfunc="mean", as_frame=None,
    sparse=False,
):
    """Pivot a long table (agent, task, score) into an agent x task matrix.

    With ``sparse=True`` the matrix holds only the observed scores: a
    ``ResultMatrix`` whose ``values`` is a scipy CSR array (an explicit 0 is
    a score of 0, an absent entry is missing), built in O(rows of the table)
    memory, never as a dense array. The IRT estimators take it as is, labels
    included: ``IRT2PL().fit(long_to_result_matrix(table, ..., sparse=True))``.

    Parameters
    ----------
    data : DataFrame or mapping of column name to 1-D array
        The long table.
    agent, task, score : str, default="agent", "task", "score"
        Column names.
    aggfunc : {"mean", "sum", "min", "max", "first", "last", "error"}, \
default="mean"
        How repeated (agent, task) scores combine; "error" raises on repeats.
        NaN scores count as missing and are skipped.
    as_frame : bool, default=None
        Return a DataFrame (None: when ``data`` is a DataFrame and not
        ``sparse``).
    sparse : bool, default=False
        Return a ``ResultMatrix`` holding a ``scipy.sparse.csr_array`` of the
        observed scores (a leaderboard with 10% of the (agent, task) pairs
        observed takes a tenth of the memory or less). Incompatible with
        ``as_frame=True``.

    Returns
    -------
    DataFrame or ResultMatrix
        Agents as rows and tasks as columns, both sorted; NaN (dense) or no
        entry (sparse) where an agent has no score on a task.

    Examples
    --------
    >>> from sklearn_eval.utils import long_to_result_matrix
    >>> table = {"agent": ["x", "x", "y"], "task": ["t1", "t2", "t1"],
    ...          "score": [1.0, 3.0, 2.0]}
    >>> m = long_to_result_matrix(table, as_frame=False)
    >>> m.values.tolist(), m.agents.tolist(), m.tasks.tolist()
    ([[1.0, 3.0], [2.0, nan]], ['x', 'y'], ['t1', 't2'])
    >>> s = long_to_result_matrix(table, sparse=True)
    >>> s.values.nnz, s.values.toarray().tolist()
    (3, [[1.0, 3.0], [2.0, 0.0]])
    """
    if aggfunc not in _AGGREGATES:
        raise ValueError(f"aggfunc must be one of {_AGGREGATES}; got {aggfunc!r}.")
    if sparse and as_frame:
        raise ValueError(
            "sparse=True returns a ResultMatrix holding a scipy sparse array; "
            "as_frame=True cannot hold it (pandas has no sparse 2-D frame with "
            "missing entries). Drop one of them."
        )
    agents, tasks, scores = _long_columns(data, agent, task, score)
    if agents.shape[0] == 0:
        raise ValueError("The long table is empty.")
    if np.isinf(scores).any():
        row = int(np.argmax(np.isinf(scores)))
        raise ValueError(f"Column {score!r} has an infinite value at row {row}.")
    agent_names, a_idx, _ = encode_players(agents, agents[:1])
    task_names, t_idx, _ = encode_players(tasks, tasks[:1])
    shape = (len(agent_names), len(task_names))
    if sparse:
        from ._validation import ResultMatrix

        values = _sparse_pivot(a_idx, t_idx, scores, shape, aggfunc)
        return ResultMatrix(values, agent_names, task_names)
    flat = _aggregate(a_idx * shape[1] + t_idx, scores, shape[0] * shape[1], aggfunc)
    values = flat.reshape(shape)
    if as_frame is None:
        as_frame = _is_dataframe(data)
    if as_frame:
        return pd.DataFrame(
            values,
            index=pd.Index(agent_names, name=agent),
            columns=pd.Index(task_names, name=task),
        )
    from ._validation import ResultMatrix

    return ResultMatrix(values, agent_names, task_names)


def _sparse_pivot(rows, columns, scores, shape, aggfunc):
    """CSR array of the aggregated observed scores per (row, column) cell."""
    observed = ~np.isnan(scores)
    cell = rows[observed].astype(np.int64) * shape[1] + columns[observed]
    cells, inverse = np.unique(cell, return_inverse=True)
    values = _aggregate(inverse.reshape(-1), scores[observed], cells.size, aggfunc)
    index = np.int32 if max(shape[1], cells.size) < 2**31 else np.int64
    indptr = np.zeros(shape[0] + 1, dtype=index)
    np.cumsum(np.bincount(cells // shape[1], minlength=shape[0]), out=indptr[1:])
    return sp.csr_array((values, (cells % shape[1]).astype(index), indptr),
                        shape=shape)


def _unwrap(X):
    """The matrix inside ``X`` and a function wrapping a result like ``X``.

    A ``ResultMatrix`` comes back as one with the same labels; a sparse
    matrix is validated (CSR, CSC or COO) and comes back as a CSR array.
    """
    from ._validation import ResultMatrix

    if isinstance(X, ResultMatrix):
        inner, wrap = X.values, (lambda out: ResultMatrix(out, X.agents, X.tasks))
    else:
        inner, wrap = X, (lambda out: out)
    if is_sparse_input(inner):
        inner = check_sparse_result(inner, binary=False)
    return inner, wrap


def _stored_float(csr):
    """The stored values of a validated CSR as float64 (NaN = missing)."""
    return np.asarray(csr.data, dtype=np.float64)


def _column_size(values, *references):
    """Largest finite magnitude per column (1 where none), for safe rescaling.

    Only columns beyond 1e150 are rescaled, so ordinary data stay bit for
    bit; above it, differences of two values could overflow.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        size = np.nanmax(np.abs(values), axis=0)
    for reference in references:
        size = np.fmax(size, np.abs(reference))
    return np.where(np.isfinite(size) & (size > 1e150), size, 1.0)


def _like_input(X, values):
    """Return ``values`` as a DataFrame shaped like ``X`` when X is one."""
    if _is_dataframe(X):
        return X.__class__(values, index=X.index, columns=X.columns)
    return values


def _per_task(value, n_tasks, name):
    arr = as_float_array(value, name)
    if arr.ndim == 0:
        arr = np.full(n_tasks, float(arr))
    if arr.shape != (n_tasks,):
        raise ValueError(
            f"{name} must be a scalar or have one value per task ({n_tasks}); "
            f"got shape {arr.shape}."
        )
    if not np.isfinite(arr).all():
        col = int(np.argmax(~np.isfinite(arr)))
        raise ValueError(f"{name} has a non-finite value for task (column) {col}.")
    return arr


def binarize_scores(X, threshold, *, inclusive=True, rtol=1e-9):
    """Turn scores into successes (1) and failures (0) by a threshold.

    Scores within a relative ``rtol`` of the threshold count as equal to it,
    so rounding does not decide: a human-normalised score computed as
    99.99999999999999 is a success at threshold 100.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
        Scores; NaN (missing) stays NaN.
    threshold : float or array-like of shape (n_tasks,)
        Success when ``score >= threshold`` (``>`` if not inclusive). E.g. 100
        on human-normalised Atari scores, or 3 for "at least 3 wins of 5".
    inclusive : bool, default=True
        Whether a score equal to the threshold counts as a success.
    rtol : float, default=1e-9
        Scores with ``|score - threshold| <= rtol * max(1, |threshold|)``
        count as equal to the threshold. 0 compares exactly.

    Returns
    -------
    ndarray or DataFrame of float64 (0.0, 1.0 or NaN)
        Sparse input (CSR, CSC, COO, or a ``ResultMatrix`` holding one) gives
        a CSR array of the same entries (an explicit 0.0 for a failure;
        absent entries stay missing).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils import binarize_scores
    >>> binarize_scores([[120.0, 100.0, np.nan, 40.0]], 100).tolist()
    [[1.0, 1.0, nan, 0.0]]
    >>> binarize_scores([[99.99999999999999]], 100).tolist()
    [[1.0]]
    >>> from scipy import sparse
    >>> stored = sparse.csr_array(([120.0, 0.0, 40.0], ([0, 0, 0], [0, 1, 3])),
    ...                           shape=(1, 4))  # column 2 absent: missing
    >>> out = binarize_scores(stored, 100)
    >>> out.nnz, out.toarray().tolist()  # the stored 0.0 is a failure, kept
    (3, [[1.0, 0.0, 0.0, 0.0]])
    """
    if not (isinstance(rtol, int | float) and np.isfinite(rtol) and rtol >= 0):
        raise ValueError(f"rtol must be a finite number >= 0; got {rtol!r}.")
    inner, wrap = _unwrap(X)
    if sp.issparse(inner):
        thresholds = _per_task(threshold, inner.shape[1], "threshold")
        _check_finite_stored(inner)
        data = _binarize(_stored_float(inner), thresholds[inner.indices], rtol,
                         inclusive)
        return wrap(replace_stored(inner, data))
    values, _, _ = check_result_matrix(inner, allow_nan=True)
    thresholds = _per_task(threshold, values.shape[1], "threshold")
    return wrap(_like_input(X, _binarize(values, thresholds, rtol, inclusive)))


def _binarize(values, thresholds, rtol, inclusive):
    margin = rtol * np.maximum(1.0, np.abs(thresholds))
    with np.errstate(invalid="ignore", over="ignore"):
        distance = values - thresholds
    tie = np.abs(distance) <= margin
    success = (distance > margin) | (tie & inclusive)
    return np.where(np.isnan(values), np.nan, success.astype(np.float64))


def _check_finite_stored(csr):
    """No infinite stored value (NaN is missing)."""
    data = _stored_float(csr)
    if np.isinf(data).any():
        position = int(np.argmax(np.isinf(data)))
        row = int(np.searchsorted(csr.indptr, position, side="right") - 1)
        raise ValueError(f"X has an infinite value at row {row}, column "
                         f"{int(csr.indices[position])}.")


def minmax_normalize(X, *, constant=0.0):
    """Rescale each task (column) to [0, 1] by its minimum and maximum.

    ``(x - min) / (max - min)`` per column, ignoring NaN. A constant column
    has no range: it is set to ``constant`` (default 0) with a warning.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
        Scores, NaN where missing.
    constant : float, default=0.0
        Value of a constant column.

    Returns
    -------
    X_normalized : ndarray or DataFrame of shape (n_agents, n_tasks)
        The rescaled scores, in the type of ``X``.

    Examples
    --------
    >>> from sklearn_eval.utils import minmax_normalize
    >>> minmax_normalize([[0.0, -1.0], [5.0, 1.0], [10.0, 0.0]]).tolist()
    [[0.0, 0.0], [0.5, 1.0], [1.0, 0.5]]
    """
    inner, wrap = _unwrap(X)
    if sp.issparse(inner):
        return wrap(_sparse_minmax(inner, constant))
    values, _, _ = check_result_matrix(inner, allow_nan=True)
    # each column in units of its largest magnitude: max - min cannot overflow
    values = values / _column_size(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low = np.nanmin(values, axis=0)
        high = np.nanmax(values, axis=0)
    span = high - low
    flat = ~(span > 0)
    if flat.any():
        cols = np.flatnonzero(flat).tolist()
        warnings.warn(
            f"Tasks (columns) {cols} are constant or all missing; their normalised "
            f"scores are set to {constant}.",
            UserWarning,
            stacklevel=2,
        )
    safe_span = np.where(flat, 1.0, span)
    out = (values - np.where(flat, 0.0, low)) / safe_span
    out[:, flat] = np.where(np.isnan(values[:, flat]), np.nan, constant)
    return wrap(_like_input(X, out))


def _sparse_minmax(csr, constant):
    """:func:`minmax_normalize` of the stored results of a CSR."""
    _check_finite_stored(csr)
    data = _stored_float(csr)
    columns = csr.indices
    size = np.zeros(csr.shape[1])
    np.fmax.at(size, columns, np.abs(data))
    unit = np.where(np.isfinite(size) & (size > 1e150), size, 1.0)
    data = data / unit[columns]
    low = np.full(csr.shape[1], np.nan)
    high = np.full(csr.shape[1], np.nan)
    np.fmin.at(low, columns, data)
    np.fmax.at(high, columns, data)
    span = high - low
    flat = ~(span > 0)
    if flat.any():
        warnings.warn(
            f"Tasks (columns) {np.flatnonzero(flat).tolist()} are constant or all "
            f"missing; their normalised scores are set to {constant}.",
            UserWarning,
            stacklevel=3,
        )
    out = (data - np.where(flat, 0.0, low)[columns]) / np.where(flat, 1.0, span)[
        columns]
    out = np.where(flat[columns] & ~np.isnan(data), constant, out)
    return replace_stored(csr, out)


def baseline_normalize(X, low, high, *, scale=100.0):
    """Normalise each task between two reference scores.

    ``scale * (x - low) / (high - low)`` per task: with ``low`` the random
    agent's score and ``high`` the human's, this is the human-normalised score
    in percent (0 = random, 100 = human).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
    low, high : float or array-like of shape (n_tasks,)
        Reference scores; ``high != low`` for every task.
    scale : float, default=100.0

    Examples
    --------
    >>> from sklearn_eval.utils import baseline_normalize
    >>> baseline_normalize([[227.8, 7127.7]], low=227.8, high=7127.7).tolist()
    [[0.0, 100.0]]
    """
    inner, wrap = _unwrap(X)
    if sp.issparse(inner):
        _check_finite_stored(inner)
        values = _stored_float(inner)[None, :]
        columns = inner.indices
    else:
        values, _, _ = check_result_matrix(inner, allow_nan=True)
        columns = None
    n_tasks = inner.shape[1] if columns is not None else values.shape[1]
    low = _per_task(low, n_tasks, "low")
    high = _per_task(high, n_tasks, "high")
    same = high == low
    if same.any():
        col = int(np.argmax(same))
        raise ValueError(
            f"high equals low ({high[col]}) for task (column) {col}; the baseline "
            "normalisation is undefined there."
        )
    if columns is not None:  # stored entries as one row, task of each entry
        low, high = low[columns], high[columns]
    unit = _column_size(values, low, high)
    low, high = low / unit, high / unit
    out = (values / unit - low) / (high - low)
    if not np.isfinite(scale * np.nanmax(np.abs(out), initial=0.0)):
        raise ValueError(
            "baseline_normalize: the normalised scores exceed the float64 range "
            "(a score is more than 1e308 times the high - low gap away); "
            "rescale the inputs or use a smaller scale."
        )
    if columns is not None:
        return wrap(replace_stored(inner, scale * out[0]))
    return wrap(_like_input(X, scale * out))
