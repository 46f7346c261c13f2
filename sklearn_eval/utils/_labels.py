"""Fast validation and integer coding of match tables.

``check_matches`` followed by ``encode_players`` (both in ``utils``) looks at
every label three times (missing values, self-play, factorisation). At a
million matches that is most of an online Elo fit, so the raters code the
labels once and derive the label checks from the codes: a missing label gets
code -1 and a player against itself has equal codes. Whenever a problem is
found (or the input is not a plain two-column table of a supported dtype) the
shared ``check_matches`` runs on the original input, so errors are exactly
the shared ones.

Fixed-width numpy strings (dtype ``U``/``S``) are coded through a 64-bit hash
of their bytes, verified against the strings themselves (a collision falls
back to the shared path), which avoids creating millions of Python strings.
No path calls ``np.unique`` on an object array.
"""

import numpy as np
import scipy.sparse as sp

from ._validation import MatchData, _optional_pandas, check_matches, encode_players

__all__ = ["check_and_encode_matches"]

_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def _as_pair_array(X):
    """(n, 2) ndarray view of X, or None when X is not a plain 2-column table."""
    if isinstance(X, list | tuple):
        # the shared path keeps a list's objects: np.asarray would turn a NaN
        # among strings into the label 'nan'
        return None
    arr = np.asarray(X) if not isinstance(X, np.ndarray) else X
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] == 0:
        return None
    return arr


def _hash_codes(flat):
    """First-appearance codes of fixed-width strings via a verified hash."""
    width = flat.dtype.itemsize
    raw = np.ascontiguousarray(flat).view(np.uint8).reshape(flat.shape[0], width)
    pad = (-width) % 8
    if pad:
        raw = np.hstack([raw, np.zeros((flat.shape[0], pad), dtype=np.uint8)])
    words = np.ascontiguousarray(raw).view(np.uint64)
    hashed = np.zeros(flat.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(words.shape[1]):
            hashed = hashed * _HASH_MULTIPLIER + words[:, k]
            hashed ^= hashed >> np.uint64(29)
    codes, first_index = _factorize_integers(hashed)
    uniques = flat[first_index]
    if not np.array_equal(uniques[codes], flat):  # a hash collision
        return None
    return codes, uniques


def _factorize_integers(values):
    """Codes (first-appearance order) and the index of each first appearance."""
    pd = _optional_pandas()
    if pd is not None:
        codes, uniques = pd.factorize(values)
        codes = codes.astype(np.int64, copy=False)
    else:  # pragma: no cover - exercised only without pandas
        uniques, first, codes = np.unique(values, return_index=True,
                                          return_inverse=True)
        return codes.astype(np.int64), first
    # pandas numbers the values in order of first appearance, so a value
    # appears for the first time exactly where the running maximum grows.
    running = np.maximum.accumulate(codes)
    is_first = np.empty(codes.shape[0], dtype=bool)
    is_first[0] = True
    is_first[1:] = running[1:] > running[:-1]
    first_index = np.flatnonzero(is_first)
    if first_index.shape[0] != uniques.shape[0]:  # pragma: no cover - defensive
        raise RuntimeError("pandas.factorize did not number values in order.")
    return codes, first_index


def _label_codes(flat):
    """Codes (-1 = missing) and uniques of a 1-D label array, or None."""
    kind = flat.dtype.kind
    if kind in "US":
        return _hash_codes(flat)
    if kind in "iu":
        codes, first_index = _factorize_integers(flat)
        return codes, flat[first_index]
    pd = _optional_pandas()
    if pd is None or kind not in "Of":
        return None
    codes, uniques = pd.factorize(flat)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=flat.dtype)


def _frame_codes(X):
    """Codes of a two-column DataFrame, factorising each column in place.

    Avoids copying the columns into one (n, 2) object array; the two sets of
    distinct labels (small) are then merged.
    """
    pd = _optional_pandas()
    columns = [X.iloc[:, k].to_numpy() for k in (0, 1)]
    if pd is None or any(c.dtype.kind not in "Ofiu" for c in columns):
        return None
    (codes_a, uniques_a), (codes_b, uniques_b) = (pd.factorize(c) for c in columns)
    if uniques_a.dtype != uniques_b.dtype:
        uniques_a, uniques_b = uniques_a.astype(object), uniques_b.astype(object)
    merged_codes, uniques = pd.factorize(np.concatenate([uniques_a, uniques_b]))
    merged_codes = np.append(merged_codes, -1)  # code -1 (missing) stays -1
    codes = np.empty((columns[0].shape[0], 2), dtype=np.int64)
    codes[:, 0] = merged_codes[codes_a]
    codes[:, 1] = merged_codes[np.where(codes_b < 0, -1, codes_b + len(uniques_a))]
    return codes, np.asarray(uniques)


def _pair_codes(X):
    """(n, 2) int64 codes (-1 = missing) and distinct labels, or None."""
    if sp.issparse(X):
        return None
    if hasattr(X, "iloc") and hasattr(X, "columns"):
        if X.shape[1] != 2 or X.shape[0] == 0:
            return None
        return _frame_codes(X)
    arr = _as_pair_array(X)
    if arr is None:
        return None
    coded = _label_codes(arr.ravel())
    if coded is None:
        return None
    codes, uniques = coded
    return codes.reshape(-1, 2), uniques


def check_and_encode_matches(X, y, sample_weight):
    """Validate matches and code the players in one pass.

    Equivalent to :func:`check_matches` followed by :func:`encode_players`,
    with the same errors, but each label is looked at once: missing labels
    and self-play are read from the integer codes. Use it where millions of
    matches are coded (the raters' ``fit`` does).

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
    coded = _pair_codes(X)
    if coded is None:
        matches = check_matches(X, y, sample_weight, require_y=True)
        players, first, second = encode_players(matches.first, matches.second)
        return matches, players, first, second
    codes, uniques = coded
    if (codes < 0).any() or (codes[:, 0] == codes[:, 1]).any():
        check_matches(X, y, sample_weight, require_y=True)  # raises the error
        raise ValueError("X holds an invalid match.")  # pragma: no cover
    # y and weights are checked on the codes (cheap, same messages).
    matches = check_matches(codes, y, sample_weight, require_y=True)
    players, rank, _ = encode_players(uniques, uniques[:0])
    first, second = rank[codes[:, 0]], rank[codes[:, 1]]
    matches = MatchData(first, second, matches.y, matches.sample_weight)
    return matches, players, first, second
