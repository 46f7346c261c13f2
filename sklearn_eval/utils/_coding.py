"""Linear-time integer coding of label columns into sorted distinct labels.

:func:`code_label_columns` turns one or more label columns into the sorted
distinct labels and, per column, int64 positions into them (-1 where a label
is missing). Every step costs a fixed number of passes over the labels, with
working tables sized by the number of distinct labels, so the cost per label
does not grow with the input:

- integers in a moderate range: an offset table (no hashing); the distinct
  values come out sorted;
- pandas categoricals: the category codes, restricted to the categories used;
- fixed-width numpy strings (``U``/``S``), and integers in a wide range: an
  exact hash coder over their bytes (see ``_label_kernels``);
- Python objects (str labels in object arrays or pandas string columns): the
  objects are first coded by identity (their addresses, which is exact: the
  same object is the same label), and only the distinct objects are then
  hashed by value. Tables read from files share one object per distinct
  label, so most of the work is on integers;
- anything else: ``pandas.factorize``.

Only the distinct labels are sorted, with the same rules (and the same error
on labels that cannot be ordered) as before.
"""

import numpy as np
import pandas as pd

from ._label_kernels import code_keys, key_words, remap_in_place

__all__ = ["code_label_columns", "sorted_uniques"]

# Object columns are coded by identity first when at most this fraction of a
# sample of them are distinct objects.
_SHARED_OBJECTS = 0.5
_SAMPLE = 1 << 16


class _Coded:
    """A column's local codes: ``labels[to_label[codes]]`` are its labels.

    ``to_label`` is None when codes index ``labels`` directly; -1 in
    ``codes`` (or in ``to_label``) marks a missing label. ``labels`` holds
    only labels that occur. ``split`` is None for plain 1-D codes; otherwise
    ``codes`` is a fresh int64 array of shape (split, n / split), already in
    the output layout, to be turned into positions in place. ``owned`` 1-D
    codes are a fresh int64 array too (never a view of the input).
    """

    __slots__ = ("codes", "to_label", "labels", "split", "owned")

    def __init__(self, codes, labels, to_label=None, split=None, owned=False):
        self.codes = codes
        self.labels = labels
        self.to_label = to_label
        self.split = split
        self.owned = owned or split is not None


def sorted_uniques(uniques):
    """Sorted distinct labels and the sorting permutation.

    Raises a TypeError naming the types when the labels cannot be ordered.
    """
    try:
        order = np.argsort(uniques, kind="stable")
        sorted_labels = uniques[order]
        if uniques.dtype.kind == "O":
            # argsort on object arrays may not raise on some mixed types; check
            # the order with Python's own comparisons, which do.
            sorted(uniques.tolist())
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in uniques.tolist()})
        raise TypeError(
            "Player labels mix types that cannot be ordered "
            f"({', '.join(kinds)}); use labels of one type, e.g. all str."
        ) from exc
    return sorted_labels, order


# ----------------------------------------------------------- column coders
def _factorize_values(values):
    """First-appearance codes (-1 = missing) and labels, by value."""
    # A small size hint: pandas otherwise sizes its hash table for n
    # distinct values, and lookups spread over it miss the cache.
    codes, labels = pd.factorize(values, size_hint=min(len(values), 1 << 12))
    kind = values.dtype.kind
    if kind in "biuf":
        labels = np.asarray(labels)
    else:  # strings keep their dtype; anything else is compared as objects
        labels = np.asarray(labels, dtype=values.dtype if kind == "U" else object)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    return _Coded(codes, labels, owned=True)


def _code_fixed_width(values, split, keys=None):
    """Bytes-exact coding of a fixed-width array (strings, 64-bit integers).

    ``keys`` (default ``values``) is what is hashed: an int64 copy of
    narrower integers, whose equality is that of the values.
    """
    words = key_words(values if keys is None else keys)
    coded = None if words is None else code_keys(words, split)
    if coded is None:  # a hash collision in the numpy fallback
        return _factorize_values(values)
    codes, first = coded
    return _Coded(codes, values[first], split=split)


def _object_addresses(values):
    """The object pointers of a 1-D object array as integers, or None.

    Equal addresses are the same object, hence the same label. Checked
    against ``id`` (the address in CPython) before use.
    """
    values = np.ascontiguousarray(values)
    try:
        addresses = np.frombuffer(values, dtype=np.uintp)
    except (TypeError, ValueError, BufferError):  # pragma: no cover - defensive
        return None
    if addresses.shape[0] != values.shape[0] or int(addresses[0]) != id(values[0]):
        return None  # pragma: no cover - not CPython's layout
    return addresses


def _mostly_shared(addresses):
    """Whether a sample of the objects holds mostly repeated objects.

    Coding by identity pays off when objects repeat (a table read from a
    file has one object per distinct label); when nearly every entry is its
    own object, it would only add a pass.
    """
    sample = np.sort(addresses[:_SAMPLE])
    n_distinct = 1 + np.count_nonzero(sample[1:] != sample[:-1])
    return n_distinct <= _SHARED_OBJECTS * sample.shape[0]


def _code_objects(values, split):
    """Code an object array by identity first, then the distinct objects by value."""
    if values.shape[0] == 0:
        return _factorize_values(values)
    addresses = _object_addresses(values)
    if addresses is None:  # pragma: no cover - not CPython
        return _factorize_values(values)
    if not _mostly_shared(addresses):
        return _factorize_values(values)
    codes, first = code_keys(addresses[:, None], split)
    by_value = _factorize_values(values[first])
    return _Coded(codes, by_value.labels, to_label=by_value.codes, split=split)


def _code_categorical(series):
    """Category codes, keeping only the categories that are used."""
    codes = np.asarray(series.cat.codes)
    categories = np.asarray(series.cat.categories.to_numpy())
    used = np.zeros(categories.shape[0] + 1, dtype=bool)
    used[codes] = True  # code -1 (missing) marks the extra last entry
    used = used[:-1]
    to_label = np.full(categories.shape[0], -1, dtype=np.int64)
    to_label[used] = np.arange(int(used.sum()))
    return _Coded(codes, _category_labels(series, categories[used]), to_label)


def _category_labels(series, labels):
    """The used categories with the dtype the column's values convert to."""
    dtype = np.asarray(series.iloc[:0]).dtype if series.shape[0] else labels.dtype
    return labels.astype(dtype, copy=False)


def _code_column(values, split=1):
    """Local codes of one column (``split``: see :func:`code_label_columns`)."""
    kind = values.dtype.kind
    if kind in "US" or (kind in "iu" and values.dtype.itemsize == 8):
        return _code_fixed_width(values, split)
    if kind in "iu":
        return _code_fixed_width(values, split, keys=values.astype(np.int64))
    if kind == "O":
        return _code_objects(values, split)
    return _factorize_values(values)


# --------------------------------------------------------- integer fast path
def _table_bounds(columns):
    """(low, high) of an offset table for integer columns of one kind, or None.

    None when the columns are not all integers of one kind (signed or
    unsigned) or their range is too wide for a table of about one entry per
    label. The table starts at 0 when the values are non-negative and small,
    so that they index it without a subtraction.
    """
    kinds = {c.dtype.kind for c in columns}
    if len(kinds) != 1 or not kinds <= {"i", "u"} or not all(len(c) for c in columns):
        return None
    limit = max(sum(c.shape[0] for c in columns), 1 << 20)
    low = min(int(c.min()) for c in columns)
    high = max(int(c.max()) for c in columns)
    if high - low >= limit:
        return None
    return (0 if 0 <= low and high < limit else low), high


def _offset_table(columns, low, high):
    """Sorted distinct integers and the table from ``value - low`` to position."""
    present = np.zeros(high - low + 1, dtype=bool)
    for values in columns:
        present[_shift(values, low)] = True
    position = np.cumsum(present, dtype=np.int64)
    position -= 1
    dtype = np.result_type(*columns)
    labels = np.flatnonzero(present).astype(dtype)
    labels += dtype.type(low)
    return labels, position


def _shift(values, low):
    """``values - low`` as non-negative indices (no copy when low is 0)."""
    if low == 0:
        return values
    if values.dtype.kind == "u" and values.dtype.itemsize == 8:
        return (values - np.uint64(low)).view(np.int64)
    return np.subtract(values, low, dtype=np.int64)


# ------------------------------------------------------------------- merge
def _merge(coded_columns):
    """Sorted union of the columns' labels and each column's final lookup."""
    labels = [c.labels for c in coded_columns]
    if len(labels) == 1:
        union, where = labels[0], [np.arange(labels[0].shape[0])]
    else:
        kinds = {lab.dtype.kind for lab in labels}
        if len(kinds) > 1:
            # Never let numpy turn 1 into "1": mixed kinds compare as objects.
            labels = [lab.astype(object) for lab in labels]
        merged = _factorize_values(np.concatenate(labels))
        union = merged.labels
        offsets = np.cumsum([0] + [lab.shape[0] for lab in labels])
        where = [merged.codes[offsets[k]:offsets[k + 1]] for k in range(len(labels))]
    players, order = sorted_uniques(union)
    if players.dtype.kind == "S":
        players = players.astype(object)  # bytes labels stay Python bytes
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    lookups = []
    for column, positions in zip(coded_columns, where, strict=True):
        # A last entry -1, so that code -1 (missing) stays -1.
        lookup = np.append(rank[positions], -1)
        if column.to_label is not None:
            lookup = np.append(lookup[column.to_label], -1)
        lookups.append(lookup)
    return players, lookups


def code_label_columns(columns, *, interleaved=False):
    """Sorted distinct labels and each column's positions among them.

    Parameters
    ----------
    columns : list of 1-D ndarray or pandas Series
        The label columns (any mix of types that can be compared).
    interleaved : bool, default=False
        With one column holding two columns' labels row by row (a C-ordered
        (n, 2) array raveled), return its even and odd entries as two columns.

    Returns
    -------
    players : ndarray
        The distinct labels, sorted.
    positions : list of ndarray of int64
        Per column, the position of each label in ``players``; -1 where a
        label is missing (None, NaN, NaT or pandas.NA).

    Raises
    ------
    TypeError
        If the labels mix types that cannot be sorted (e.g. str and int).
    """
    categorical = [_is_categorical(c) for c in columns]
    arrays = [c if cat else _column_values(c)
              for c, cat in zip(columns, categorical, strict=True)]
    bounds = None if any(categorical) else _table_bounds(arrays)
    if bounds is not None:
        low = bounds[0]
        players, position = _offset_table(arrays, *bounds)
        return players, _gather(position, arrays, interleaved,
                                lambda v: _shift(v, low))
    split = 2 if interleaved else 1
    coded = [_code_categorical(c) if cat else _code_column(c, split)
             for c, cat in zip(arrays, categorical, strict=True)]
    players, lookups = _merge(coded)
    positions = []
    for column, lookup in zip(coded, lookups, strict=True):
        positions.extend(_positions(column, lookup, interleaved))
    return players, positions


def _positions(column, lookup, interleaved):
    """The column's positions among the sorted labels.

    Codes written in the output layout are mapped in place: at tens of
    millions of labels every fresh full-size array costs its page faults.
    """
    codes = column.codes
    if column.owned and not interleaved and column.split is None:
        codes = codes[None, :]
    elif column.split is None:
        return _gather(lookup, [codes], interleaved)
    remap_in_place(codes, lookup)
    return list(codes)


def _gather(table, columns, interleaved, index=None):
    """``table[index(column)]`` per column (per half when interleaved)."""
    if interleaved:
        (flat,) = columns
        columns = [flat[0::2], flat[1::2]]
    return [table[c if index is None else index(c)] for c in columns]


def _is_categorical(column):
    dtype = getattr(column, "dtype", None)
    return getattr(dtype, "name", None) == "category" and hasattr(column, "cat")


def _column_values(column):
    """A numpy array of the column's labels, without copying where possible."""
    if hasattr(column, "to_numpy"):
        return column.to_numpy()
    return np.asarray(column)
