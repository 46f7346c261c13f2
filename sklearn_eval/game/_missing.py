"""Missing results before Nash averaging: complete blocks and model fills.

Nash averaging needs a complete game. Real leaderboards are not complete:
papers report different subsets of tasks, and tournaments do not pit every
pair. These helpers make a complete matrix in the two honest ways: keep the
observed part only (:func:`complete_submatrix`, :func:`drop_incomplete`), or
fill unobserved pairs of an agent-vs-agent game from a model that can
represent cyclic outcomes (:func:`fill_win_rates`, with MultiElo).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["complete_submatrix", "drop_incomplete", "fill_win_rates"]


def _values_and_frame(X, name="X"):
    """Float values of X (NaN allowed) and whether X is a DataFrame."""
    is_frame = hasattr(X, "iloc") and hasattr(X, "columns")
    values = X.to_numpy(dtype=np.float64, na_value=np.nan) if is_frame else X
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold numbers: {exc}") from exc
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"{name} must be a non-empty 2-D matrix; got {values.shape}.")
    if np.isinf(values).any():
        i, j = np.unravel_index(np.argmax(np.isinf(values)), values.shape)
        raise ValueError(f"{name} has an infinite value at row {i}, column {j}.")
    return values, is_frame


def _subset(X, is_frame, rows, cols):
    if is_frame:
        return X.iloc[np.flatnonzero(rows), np.flatnonzero(cols)]
    return np.asarray(X, dtype=np.float64)[np.ix_(rows, cols)]


def _greedy_complete(observed):
    """Rows and columns of a large complete block, by greedy peeling.

    Repeatedly removes the row or column with the largest fraction of
    missing entries among those kept (ties: the one with fewer observed
    entries, then rows before columns) until the block is complete.
    """
    rows = np.ones(observed.shape[0], dtype=bool)
    cols = np.ones(observed.shape[1], dtype=bool)
    missing = ~observed
    row_missing = missing.sum(axis=1).astype(np.float64)
    col_missing = missing.sum(axis=0).astype(np.float64)
    while rows.any() and cols.any():
        n_rows, n_cols = rows.sum(), cols.sum()
        r_frac = np.where(rows, row_missing / n_cols, -1.0)
        c_frac = np.where(cols, col_missing / n_rows, -1.0)
        i, j = int(np.argmax(r_frac)), int(np.argmax(c_frac))
        if r_frac[i] <= 0 and c_frac[j] <= 0:
            break
        if r_frac[i] >= c_frac[j]:
            rows[i] = False
            col_missing -= missing[i] & cols
        else:
            cols[j] = False
            row_missing -= missing[:, j] & rows
    return _add_back(observed, rows, cols)


def _add_back(observed, rows, cols):
    """Re-admit removed rows/columns that are complete on the kept block."""
    while True:
        extra_rows = ~rows & observed[:, cols].all(axis=1)
        if extra_rows.any():
            rows = rows | extra_rows
            continue
        extra_cols = ~cols & observed[rows].all(axis=0)
        if extra_cols.any():
            cols = cols | extra_cols
            continue
        return rows, cols


def complete_submatrix(X, *, return_masks=False):
    """A large complete agent x task block of a matrix with missing results.

    Finding the largest complete submatrix is NP-hard in general; this uses
    two greedy peels (each removes the row or column with the largest share
    of missing entries until none is left, then re-admits removed rows and
    columns that are complete on the kept block), one of them applied to the
    transpose so ties break the other way, and keeps the larger block. The
    result is complete and maximal: no further row or column can be added.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
        Scores with NaN for missing results.
    return_masks : bool, default=False
        Also return the boolean masks of kept agents and tasks.

    Returns
    -------
    X_complete : ndarray or DataFrame
        The kept rows and columns (a DataFrame keeps its labels).
    agent_mask, task_mask : ndarray of bool
        Only when ``return_masks=True``.

    Raises
    ------
    ValueError
        If no complete block with at least one entry exists (all missing).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.game import complete_submatrix
    >>> X = np.array([[1.0, 2.0, np.nan], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    >>> complete_submatrix(X)
    array([[3., 4., 5.],
           [6., 7., 8.]])
    """
    values, is_frame = _values_and_frame(X)
    observed = ~np.isnan(values)
    if not observed.any():
        raise ValueError("X has no observed entry; no complete block exists.")
    rows_a, cols_a = _greedy_complete(observed)
    cols_b, rows_b = _greedy_complete(observed.T)
    if rows_b.sum() * cols_b.sum() > rows_a.sum() * cols_a.sum():
        rows_a, cols_a = rows_b, cols_b
    out = _subset(X, is_frame, rows_a, cols_a)
    if return_masks:
        return out, rows_a, cols_a
    return out


def _check_fraction(value, name):
    if not isinstance(value, numbers.Real) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1]; got {value!r}.")
    return float(value)


def drop_incomplete(
    X, *, min_task_coverage=1.0, min_agent_coverage=1.0, return_masks=False
):
    """Drop tasks, then agents, observed for too few of the others.

    Tasks observed for less than ``min_task_coverage`` of the kept agents are
    dropped, then agents observed on less than ``min_agent_coverage`` of the
    kept tasks, repeated until nothing changes. With both thresholds at 1
    the result is complete; lower thresholds keep more data and may leave
    NaN (follow with :func:`complete_submatrix`).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
    min_task_coverage : float in [0, 1], default=1.0
    min_agent_coverage : float in [0, 1], default=1.0
    return_masks : bool, default=False
        Also return the boolean masks of kept agents and tasks.

    Returns
    -------
    X_kept : ndarray or DataFrame
    agent_mask, task_mask : ndarray of bool
        Only when ``return_masks=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.game import drop_incomplete
    >>> X = np.array([[1.0, np.nan, 2.0], [3.0, np.nan, 4.0], [5.0, 6.0, 7.0]])
    >>> drop_incomplete(X)
    array([[1., 2.],
           [3., 4.],
           [5., 7.]])
    """
    task_cov = _check_fraction(min_task_coverage, "min_task_coverage")
    agent_cov = _check_fraction(min_agent_coverage, "min_agent_coverage")
    values, is_frame = _values_and_frame(X)
    observed = ~np.isnan(values)
    rows = np.ones(values.shape[0], dtype=bool)
    cols = np.ones(values.shape[1], dtype=bool)
    while True:
        block = observed[np.ix_(rows, cols)]
        new_cols = cols.copy()
        new_cols[cols] = block.mean(axis=0) >= task_cov if rows.any() else False
        block = observed[np.ix_(rows, new_cols)]
        new_rows = rows.copy()
        new_rows[rows] = block.mean(axis=1) >= agent_cov if new_cols.any() else False
        if np.array_equal(new_rows, rows) and np.array_equal(new_cols, cols):
            break
        rows, cols = new_rows, new_cols
    if not rows.any() or not cols.any():
        raise ValueError(
            "No agent and task meet the coverage thresholds "
            f"(min_task_coverage={task_cov}, min_agent_coverage={agent_cov})."
        )
    out = _subset(X, is_frame, rows, cols)
    if return_masks:
        return out, rows, cols
    return out


def fill_win_rates(X, y, sample_weight=None, *, estimator=None, min_count=1.0):
    """Win-probability matrix from matches, unobserved pairs filled by a model.

    Empirical win rates come from
    :func:`sklearn_eval.utils.matches_to_win_rate`; pairs with fewer than
    ``min_count`` (weighted) games are replaced by the predictions of
    ``estimator`` fitted on the same matches, and the result is made exactly
    consistent (``P[i, j] + P[j, i] = 1``), ready for
    ``NashAverager(game="agent_vs_agent", payoff="probability")``.

    Use a model that can express cycles, such as
    :class:`sklearn_eval.pairwise.MultiElo` (the default). An Elo or
    Bradley-Terry fill makes the filled part exactly transitive, and a
    fully Elo-generated matrix has a Nash equilibrium that is just the
    top-rated player.

    Parameters
    ----------
    X : array-like of shape (n_matches, 2)
        The two players of each match.
    y : array-like of shape (n_matches,)
        Outcome for the first player (1, 0 or 0.5).
    sample_weight : array-like of shape (n_matches,), default=None
    estimator : estimator or None, default=None
        An unfitted match model with ``fit(X, y)``, ``predict_proba`` and
        the ranking protocol's ``agents_``; ``MultiElo(n_components=1,
        method="batch", alpha=0.01, random_state=0)`` (order-independent)
        when None.
        It is cloned before fitting.
    min_count : float, default=1.0
        Pairs with less total weight of games than this are filled.

    Returns
    -------
    P : ndarray of shape (n_players, n_players)
        Win probabilities (row beats column), 0.5 on the diagonal.
    players : ndarray of shape (n_players,)
        Sorted player labels (the order of rows and columns).
    filled : ndarray of bool of shape (n_players, n_players)
        Which entries come from the model.

    Examples
    --------
    Lizard and scissors never met:

    >>> import numpy as np
    >>> from sklearn_eval.game import fill_win_rates
    >>> X = [["rock", "scissors"], ["scissors", "paper"], ["paper", "rock"],
    ...      ["lizard", "paper"], ["rock", "lizard"]] * 20
    >>> P, players, filled = fill_win_rates(X, np.ones(len(X)))
    >>> players.tolist()
    ['lizard', 'paper', 'rock', 'scissors']
    >>> np.argwhere(filled).tolist()
    [[0, 3], [3, 0]]
    >>> bool(np.allclose(P + P.T, 1.0))
    True
    """
    from sklearn.base import clone

    from ..utils import matches_to_win_rate

    if not isinstance(min_count, numbers.Real) or min_count < 0:
        raise ValueError(f"min_count must be a non-negative number; got {min_count!r}.")
    rates, counts, players = matches_to_win_rate(X, y, sample_weight)
    n = len(players)
    filled = ((counts < min_count) | (counts == 0)) & ~np.eye(n, dtype=bool)
    P = rates.copy()
    if filled.any():
        if estimator is None:
            from ..pairwise import MultiElo

            estimator = MultiElo(
                n_components=1, method="batch", alpha=0.01, random_state=0
            )
        model = clone(estimator)
        if sample_weight is None:
            model.fit(X, y)
        else:
            model.fit(X, y, sample_weight=sample_weight)
        rows, cols = np.nonzero(filled)
        pairs = np.column_stack([players[rows], players[cols]])
        model_players = np.asarray(model.agents_)
        if len(model_players) != n or not np.array_equal(model_players, players):
            raise ValueError("The estimator's agents_ differ from the match players.")
        names = getattr(model, "feature_names_in_", None)
        if names is not None:  # fitted on a DataFrame: predict on one too
            import pandas as pd

            pairs = pd.DataFrame(pairs, columns=names, dtype=object)
        P[rows, cols] = np.asarray(model.predict_proba(pairs))[:, 1]
    P = 0.5 * (P + 1.0 - P.T)
    np.fill_diagonal(P, 0.5)
    return P, players, filled
