"""Validation and integer coding of match tables in one pass over the labels.

``check_matches`` followed by ``encode_players`` (both in ``utils``) looks at
every label several times (missing values, self-play, coding). At millions of
matches that is most of an online Elo fit, so the raters code the labels once
(see ``_coding``) and derive the label checks from the codes: a missing label
gets code -1 and a player against itself has equal codes. Whenever a problem
is found (or the input is not a plain two-column table) the shared
``check_matches`` runs on the original input, so errors are exactly the
shared ones.
"""

import numpy as np
import scipy.sparse as sp

from ._coding import code_label_columns
from ._validation import (
    MatchData,
    _is_dataframe,
    check_matches,
    check_outcomes,
    encode_players,
    first_in_blocks,
)

__all__ = ["check_and_encode_matches"]


def _label_columns(X):
    """The label columns of a plain two-column table, or None.

    Returns ``(columns, interleaved)``: a C-ordered (n, 2) array is coded as
    one raveled column whose even and odd entries are the two players.
    """
    if sp.issparse(X):
        return None
    if _is_dataframe(X):
        if X.shape[1] != 2 or X.shape[0] == 0:
            return None
        return [X.iloc[:, 0], X.iloc[:, 1]], False
    if isinstance(X, list | tuple):
        # the shared path keeps a list's objects: np.asarray would turn a NaN
        # among strings into the label 'nan'
        return None
    arr = X if isinstance(X, np.ndarray) else np.asarray(X)
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] == 0:
        return None
    if arr.flags.c_contiguous:
        return [arr.reshape(-1)], True
    return [arr[:, 0], arr[:, 1]], False


def _shared_path(X, y, sample_weight):
    matches = check_matches(X, y, sample_weight, require_y=True)
    players, first, second = encode_players(matches.first, matches.second)
    return matches, players, first, second


def check_and_encode_matches(X, y, sample_weight):
    """Validate matches and code the players in one pass.

    Equivalent to :func:`check_matches` followed by :func:`encode_players`,
    with the same errors, but each label is looked at once: missing labels
    and self-play are read from the integer codes. Use it where millions of
    matches are coded (the raters' ``fit`` does); the cost grows linearly
    with the number of matches for every label type (integers, strings,
    Python objects, pandas categoricals).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_matches, 2)
        The two players of each match.
    y : array-like of shape (n_matches,)
        Outcome for the first player: 1, 0 or 0.5.
    sample_weight : array-like of shape (n_matches,) or None
        Non-negative weights; ones when None.

    Returns
    -------
    matches : MatchData
        With ``first``/``second`` as int64 codes, validated ``y`` and weights.
    players : ndarray
        Sorted distinct labels.
    first, second : ndarray of int64
        Indices into ``players``.

    Examples
    --------
    >>> from sklearn_eval.utils import check_and_encode_matches
    >>> matches, players, first, second = check_and_encode_matches(
    ...     [["b", "a"], ["a", "c"]], [1, 0.5], None)
    >>> players.tolist(), first.tolist(), second.tolist(), matches.y.tolist()
    (['a', 'b', 'c'], [1, 0], [0, 2], [1.0, 0.5])
    """
    found = _label_columns(X)
    if found is None:
        return _shared_path(X, y, sample_weight)
    columns, interleaved = found
    try:
        players, (first, second) = code_label_columns(columns, interleaved=interleaved)
    except TypeError:
        # Labels that cannot be ordered: the shared checks (missing labels,
        # outcomes) come first, as in the shared path.
        check_matches(X, y, sample_weight, require_y=True)
        raise
    self_play = first_in_blocks(first, second, test=np.equal)
    if min(first.min(), second.min()) < 0 or self_play >= 0:
        check_matches(X, y, sample_weight, require_y=True)  # raises the error
        raise ValueError("X holds an invalid match.")  # pragma: no cover
    y_arr, weights = check_outcomes(y, sample_weight, first.shape[0], require_y=True)
    matches = MatchData(first, second, y_arr, weights)
    return matches, players, first, second
