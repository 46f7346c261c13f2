"""Exact first-appearance coding of fixed-width keys in one pass.

A key is one row of a 2-D array of unsigned words: the bytes of a fixed-width
string (numpy ``U``/``S``), of a 64-bit integer, or of an object pointer. The
coder hashes each row, looks it up in an open-addressing table that grows
with the number of distinct keys (not with the number of rows, so it stays
in cache and the cost per row does not grow with the input), and compares a
candidate word by word against the first row of its code: the coding is
exact, a hash collision only costs a comparison.

With numba (the ``sklearn_eval[fast]`` extra) the loop is compiled on first
use and cached on disk; ``SKLEARN_EVAL_DISABLE_NUMBA=1`` turns it off. Without
numba, :func:`code_keys_numpy` gives the same codes with numpy passes over
blocks of rows (a 64-bit hash per row, factorised, then verified against the
rows themselves).
"""


import numpy as np
import pandas as pd

from ._jit import jit_kernel, numba_wanted

__all__ = ["HAVE_NUMBA", "code_keys", "code_keys_numpy", "key_words", "remap_in_place"]

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_MIX = np.uint64(0xFF51AFD7ED558CCD)
_SHIFT = np.uint64(33)
# Rows per block of the numpy passes: the temporaries stay in cache.
_BLOCK = 1 << 16
# Fewer keys than this are coded by the numpy passes even with numba: below
# it they cost at most a few milliseconds more per call, while the first
# compiled call of a process loads the kernels from numba's disk cache (about
# a second), which a command on a small file would pay for nothing.
_COMPILED_FROM = 1 << 17


def key_words(values):
    """2-D unsigned view (n, n_words) of a 1-D fixed-width array, no copy.

    The widest word that divides the item size is used (fewer words, fewer
    hash steps). Returns None when ``values`` cannot be viewed (e.g. not
    contiguous).
    """
    values = np.ascontiguousarray(values)
    width = values.dtype.itemsize
    for word in (np.uint64, np.uint32, np.uint8):
        if width % np.dtype(word).itemsize == 0:
            break
    try:
        words = values.view(np.uint8).view(word)
    except (TypeError, ValueError):  # pragma: no cover - defensive
        return None
    return words.reshape(values.shape[0], width // np.dtype(word).itemsize)


def _probe_rows(words, start, codes, slot_code, slot_hash, first, n_codes):
    """Code rows from ``start`` on into ``codes`` (the loop compiled by numba).

    ``codes`` has shape (k, n / k): row t's code goes to
    ``codes[t % k, t // k]`` (k = 2 splits interleaved columns). ``slot_code`` and
    ``slot_hash`` form the open-addressing table (the code
    and its row hash, -1 when empty); ``first`` holds each code's first row,
    against which a row with the same hash is compared word by word. Stops
    before a new code would fill more than half of the table and returns the
    row reached and the number of codes; the caller grows the table and
    resumes. (Growing inside the loop would reassign arrays there, which
    numba compiles into a loop several times slower.)
    """
    n = words.shape[0]
    n_words = words.shape[1]
    split = codes.shape[0]
    mask = np.uint64(slot_code.shape[0] - 1)
    limit = slot_code.shape[0] // 2
    for t in range(start, n):
        h = _FNV_OFFSET
        for k in range(n_words):
            h = (h ^ np.uint64(words[t, k])) * _FNV_PRIME
        h ^= h >> _SHIFT
        h *= _MIX
        h ^= h >> _SHIFT
        pos = h & mask
        code = slot_code[pos]
        while code >= 0:
            if slot_hash[pos] == h:
                row = first[code]
                same = True
                for k in range(n_words):
                    if words[row, k] != words[t, k]:
                        same = False
                        break
                if same:
                    break
            pos = (pos + np.uint64(1)) & mask
            code = slot_code[pos]
        if code < 0:
            if n_codes >= limit:
                return t, n_codes
            code = n_codes
            n_codes += 1
            slot_code[pos] = code
            slot_hash[pos] = h
            first[code] = t
        codes[t % split, t // split] = code
    return n, n_codes


def _probe_keys(keys, start, codes, slot_code, slot_key, first, n_codes):
    """:func:`_probe_rows` for one-word keys, stored in the table itself."""
    n = keys.shape[0]
    split = codes.shape[0]
    mask = np.uint64(slot_code.shape[0] - 1)
    limit = slot_code.shape[0] // 2
    for t in range(start, n):
        key = np.uint64(keys[t])
        h = key * _MIX
        h ^= h >> _SHIFT
        pos = h & mask
        code = slot_code[pos]
        while code >= 0:
            if slot_key[pos] == key:
                break
            pos = (pos + np.uint64(1)) & mask
            code = slot_code[pos]
        if code < 0:
            if n_codes >= limit:
                return t, n_codes
            code = n_codes
            n_codes += 1
            slot_code[pos] = code
            slot_key[pos] = key
            first[code] = t
        codes[t % split, t // split] = code
    return n, n_codes


def _reinsert(slot_code, slot_value, values, n_codes, one_word):
    """Insert codes 0 .. n_codes - 1 into an empty table (compiled by numba).

    ``values`` are the codes' table values (key or hash); their slot is
    found as in the probe loop of the same kind.
    """
    mask = np.uint64(slot_code.shape[0] - 1)
    for code in range(n_codes):
        value = values[code]
        h = value
        if one_word:
            h = value * _MIX
            h ^= h >> _SHIFT
        pos = h & mask
        while slot_code[pos] >= 0:
            pos = (pos + np.uint64(1)) & mask
        slot_code[pos] = code
        slot_value[pos] = value


def _grown(array, size):
    out = np.empty(size, dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


def _remap_loop(codes, lookup):
    """``codes[:] = lookup[codes]`` in place (compiled by numba)."""
    for k in range(codes.shape[0]):
        codes[k] = lookup[codes[k]]


def _code_keys_compiled(words, codes, probe_rows, probe_keys, reinsert):
    """Drive the compiled probe loop, doubling the table when it is half full."""
    n = words.shape[0]
    one_word = words.shape[1] == 1
    keys = words[:, 0] if one_word else words
    probe = probe_keys if one_word else probe_rows
    capacity = 1024
    slot_code = np.full(capacity, -1, dtype=np.int64)
    slot_value = np.zeros(capacity, dtype=np.uint64)
    first = np.empty(capacity // 2, dtype=np.int64)
    row, n_codes = probe(keys, 0, codes, slot_code, slot_value, first, 0)
    while row < n:
        # The codes' table values, in code order, before the table is rebuilt.
        occupied = slot_code >= 0
        values = np.empty(n_codes, dtype=np.uint64)
        values[slot_code[occupied]] = slot_value[occupied]
        capacity *= 2
        slot_code = np.full(capacity, -1, dtype=np.int64)
        slot_value = np.zeros(capacity, dtype=np.uint64)
        reinsert(slot_code, slot_value, values, n_codes, one_word)
        first = _grown(first, capacity // 2)
        row, n_codes = probe(keys, row, codes, slot_code, slot_value, first, n_codes)
    return first[:n_codes].copy()


def _hash_rows(words):
    """64-bit hash of every row, computed block by block with in-place ops."""
    n, n_words = words.shape
    hashed = np.empty(n, dtype=np.uint64)
    scratch = np.empty(min(n, _BLOCK), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for start in range(0, n, _BLOCK):
            block = words[start:start + _BLOCK]
            h = hashed[start:start + block.shape[0]]
            tmp = scratch[: block.shape[0]]
            h[:] = _FNV_OFFSET
            for k in range(n_words):
                np.bitwise_xor(h, block[:, k], out=h, casting="unsafe")
                np.multiply(h, _FNV_PRIME, out=h)
            np.right_shift(h, _SHIFT, out=tmp)
            np.bitwise_xor(h, tmp, out=h)
            np.multiply(h, _MIX, out=h)
            np.right_shift(h, _SHIFT, out=tmp)
            np.bitwise_xor(h, tmp, out=h)
    return hashed


def _factorize_in_order(values):
    """First-appearance codes of a 1-D integer array and each code's first row."""
    # A small size hint: pandas otherwise sizes its table for n distinct
    # values, and lookups spread over that table miss the cache and TLB.
    codes, uniques = pd.factorize(values, size_hint=min(values.shape[0], 1 << 12))
    codes = codes.astype(np.int64, copy=False)
    # pandas numbers values by first appearance, so a value appears for the
    # first time exactly where the running maximum of the codes grows.
    running = np.maximum.accumulate(codes)
    is_first = np.empty(codes.shape[0], dtype=bool)
    is_first[:1] = True
    np.greater(running[1:], running[:-1], out=is_first[1:])
    first = np.flatnonzero(is_first)
    if first.shape[0] != uniques.shape[0]:  # pragma: no cover - defensive
        raise RuntimeError("pandas.factorize did not number values in order.")
    return codes, first


def code_keys_numpy(words):
    """Same as :func:`code_keys` with numpy passes (the fallback without numba).

    Rows with equal hashes are merged by the factorisation, then every row is
    compared with the first row of its code; a (64-bit) hash collision
    returns None so that the caller can code the keys another way.
    """
    if words.shape[1] == 1 and words.dtype.itemsize == 8:
        return _factorize_in_order(words[:, 0])  # the key is its own hash
    hashed = _hash_rows(words)
    codes, first = _factorize_in_order(hashed)
    representatives = words[first]
    for start in range(0, words.shape[0], _BLOCK):
        stop = start + _BLOCK
        if not np.array_equal(representatives[codes[start:stop]], words[start:stop]):
            return None
    return codes, first


_numba_wanted = numba_wanted


_COMPILED = {}


def _compiled(name):
    """The compiled loops, compiled (or loaded from the disk cache) on first use."""
    if not _COMPILED:
        jit = jit_kernel
        _COMPILED.update(rows=jit(_probe_rows), keys=jit(_probe_keys),
                         reinsert=jit(_reinsert), remap=jit(_remap_loop))
    return _COMPILED[name]


def _code_keys_numba(words, codes):
    # the hash wraps around 2**64 on purpose: interpreted (numba's JIT off),
    # numpy would warn about that overflow
    with np.errstate(over="ignore"):
        first = _code_keys_compiled(words, codes, _compiled("rows"),
                                    _compiled("keys"), _compiled("reinsert"))
    return codes, first


HAVE_NUMBA = _numba_wanted()


def _output(n, split):
    if n % split:
        raise ValueError(f"{n} keys cannot be split into {split} columns.")
    return np.empty((split, n // split), dtype=np.int64)


def code_keys(words, split=1):
    """First-appearance codes of the rows of a 2-D unsigned integer array.

    Parameters
    ----------
    words : ndarray of shape (n, n_words), unsigned integer dtype
        One key per row (see :func:`key_words`).
    split : int, default=1
        Return the codes as ``split`` contiguous columns: row t's code is at
        ``codes[t % split, t // split]`` (2 separates the two players of a
        raveled (n, 2) table without another pass).

    Returns
    -------
    codes : ndarray of int64, shape (split, n // split)
        Equal rows have equal codes, numbered 0, 1, ... by first appearance.
    first : ndarray of int64
        The row where each code appears first.
    Or None after a hash collision of the numpy passes when numba is not
    available. With numba, fewer than ``_COMPILED_FROM`` keys are coded by
    the numpy passes too (same codes), so that a small input never pays for
    loading the compiled loop.
    """
    codes = _output(words.shape[0], split)
    if words.shape[0] == 0:
        return codes, np.zeros(0, dtype=np.int64)
    compiled = HAVE_NUMBA and words.shape[0] >= _COMPILED_FROM
    coded = None if compiled else code_keys_numpy(words)
    if coded is None:
        if HAVE_NUMBA:  # large, or a hash collision of the numpy passes
            return _code_keys_numba(np.ascontiguousarray(words), codes)
        return None
    codes[...] = coded[0].reshape(-1, split).T
    return codes, coded[1]


def remap_in_place(codes, lookup):
    """``codes[...] = lookup[codes]`` without a full-size temporary."""
    flat = codes.reshape(-1)
    if HAVE_NUMBA and flat.shape[0] >= _COMPILED_FROM:
        _compiled("remap")(flat, lookup)
        return
    for start in range(0, flat.shape[0], _BLOCK):
        block = flat[start:start + _BLOCK]
        np.take(lookup, block, out=block, mode="wrap")
