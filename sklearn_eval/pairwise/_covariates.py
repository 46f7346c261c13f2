"""How a match table with more than two columns is read: players, then covariates.

``X`` of shape (n_matches, 2 + p): the first two columns hold the players'
labels, the other p columns numeric per-match covariates (for arenas: the
differences in length or markdown between the two answers). A DataFrame's
covariate columns must have numeric dtypes; an object or string array's are
converted to float64 (TypeError naming the column if they are not numbers).
A table with at most two columns is passed on untouched, so the two-column
behaviour (and every error message of the shared match checks) is unchanged.
"""

import numpy as np
import scipy.sparse as sp

from ..utils._validation import as_float_array

__all__ = ["MatchTable", "count_columns", "reject_extra_columns", "split_covariates"]


class MatchTable:
    """The player part of a match table and its covariates (None without)."""

    __slots__ = ("players", "covariates", "names")

    def __init__(self, players, covariates=None, names=None):
        self.players = players
        self.covariates = covariates
        self.names = names

    @property
    def n_covariates(self):
        return 0 if self.covariates is None else self.covariates.shape[1]


def _is_dataframe(X):
    return hasattr(X, "iloc") and hasattr(X, "columns")


def count_columns(X):
    """Number of columns of a 2-D table, or None when X is not one."""
    if sp.issparse(X):
        return None
    if _is_dataframe(X):
        return X.shape[1]
    if isinstance(X, np.ndarray):
        return X.shape[1] if X.ndim == 2 else None
    if isinstance(X, list | tuple) and len(X) > 0:
        try:
            return len(X[0])
        except TypeError:
            return None
    return None


def _check_finite(values, names):
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = (int(k) for k in np.unravel_index(np.argmax(bad), bad.shape))
        raise ValueError(
            f"X has a non-finite covariate ({values[row, col]}) at row {row}, "
            f"column {col + 2} ({names[col]!r}); covariates must be finite numbers."
        )
    return values


def _frame_covariates(X):
    names = np.asarray(X.columns[2:], dtype=object)
    for k, dtype in enumerate(X.dtypes.iloc[2:]):
        if not (getattr(dtype, "kind", "O") in "biuf"
                or str(dtype) in ("boolean", "Int64", "Float64")):
            raise TypeError(
                f"X column {names[k]!r} (column {k + 2}) is not numeric (dtype "
                f"{dtype}): the columns after the two players are per-match "
                "covariates and must be numbers."
            )
    values = X.iloc[:, 2:].to_numpy(dtype=np.float64, na_value=np.nan)
    return MatchTable(X.iloc[:, :2], _check_finite(values, names), names)


def _array_covariates(arr):
    names = np.array([f"x{k}" for k in range(2, arr.shape[1])], dtype=object)
    block = arr[:, 2:]
    try:
        values = as_float_array(block, "X's covariate columns")
    except TypeError as exc:
        raise TypeError(
            f"{exc}. The columns of X after the two players are per-match "
            "covariates and must be numbers."
        ) from exc
    return MatchTable(arr[:, :2], _check_finite(values, names), names)


def split_covariates(X):
    """Split a match table into its player columns and covariates.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_matches, 2 + p)

    Returns
    -------
    MatchTable
        ``players`` (X itself when it has at most two columns, else its first
        two columns, as a DataFrame or array), ``covariates`` (float64 array
        of shape (n_matches, p), or None) and ``names`` (the DataFrame's
        column labels, else ``"x2"``, ``"x3"``, ... by position in X).
    """
    n_columns = count_columns(X)
    if n_columns is None or n_columns <= 2:
        return MatchTable(X)
    if _is_dataframe(X):
        return _frame_covariates(X)
    if isinstance(X, list | tuple):
        # objects keep a NaN label a NaN (numpy's str conversion would make it
        # the label 'nan'); a ragged list is left to the shared checks
        try:
            arr = np.asarray(X, dtype=object)
        except ValueError:
            return MatchTable(X)
    else:
        arr = X
    if arr.ndim != 2 or arr.shape[0] == 0:
        return MatchTable(X)
    return _array_covariates(arr)


def reject_extra_columns(X, estimator_name, remedy):
    """ValueError when a 2-D match table has columns beyond the two players."""
    n_columns = count_columns(X)
    if n_columns is None or n_columns <= 2:
        return
    raise ValueError(
        f"X has {n_columns} columns: the two players and {n_columns - 2} more "
        f"(per-match covariates). {estimator_name} {remedy}"
    )
