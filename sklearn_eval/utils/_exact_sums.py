"""Sums whose value does not depend on the order of their terms.

A distributed sum adds its terms in whatever grouping the scheduler chose
(which partitions share a worker, or a worker thread); in floating point
the last digits then depend on where the work ran. Here every float of a
partial result is carried as a double-double ``hi + lo`` (about 106 bits):
a term is added with Knuth's error-free TwoSum, two partial sums are merged
the same way, and the total is rounded to float64 once, at the end. The
error of the double-double total is about ``k * 2**-106`` times the sum of
the terms' magnitudes for ``k`` terms (none, while the terms span fewer
than about 100 bits), so groupings and orders give the same float64 (the
correctly rounded sum) unless the exact total lies within that error of a
rounding boundary of float64: about one chance in ``2**50`` per sum for
terms of one sign, more where they cancel to nearly nothing.

Partial results are nested dicts, tuples and lists of float arrays and
scalars; integer and boolean leaves are added exactly as they are.

Where a sum over agents feeds an estimate whose error the data amplify (the
inverse information of a nearly empty category, a barely identified
loading), rounding the total correctly is not enough: the two fits must add
the very same numbers. :class:`GridSum` does that for terms with a known
bound: every term is cut into ``k`` pieces on fixed grids (:func:`cut`,
:func:`grid_constants`), each piece a multiple of its grid's unit, so sums
of pieces are exact in float64 in any order and any grouping (in blocks of
agents, in BLAS, on workers), and the total is formed from the ``k`` exact
sums the same way everywhere. What lies below the finest grid (at most
``2**-61`` of the bound per term) is dropped the same way everywhere.
"""

import math

import numpy as np

__all__ = ["DoubleDouble", "GridSum", "cut", "exact_add", "exact_total",
           "grid_constants", "rounded"]


def _two_sum(a, b):
    """``s, e`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fast_two_sum(a, b):
    """``s, e`` as :func:`_two_sum`, for ``|a| >= |b|`` (Dekker)."""
    s = a + b
    return s, b - (s - a)


class DoubleDouble:
    """A float64 array (or scalar) carried as ``hi + lo`` (about 106 bits).

    ``scalar`` records that the summed value was a Python or numpy scalar,
    so :meth:`value` gives back a float.
    """

    __slots__ = ("hi", "lo", "scalar")

    def __init__(self, hi, lo=None, scalar=False):
        self.hi = np.array(hi, dtype=np.float64)
        self.lo = np.zeros_like(self.hi) if lo is None else lo
        self.scalar = scalar

    def __add__(self, other):
        if not isinstance(other, DoubleDouble):
            other = DoubleDouble(other)
        with np.errstate(invalid="ignore", over="ignore"):
            s, e = _two_sum(self.hi, other.hi)
            e = e + (self.lo + other.lo)
            hi, lo = _fast_two_sum(s, e)
        # an infinite or NaN term: the plain sum, with no correction
        bad = ~np.isfinite(hi)
        if bad.any():
            hi = np.where(bad, self.hi + other.hi, hi)
            lo = np.where(bad, 0.0, lo)
        return DoubleDouble(hi, lo, self.scalar)

    def __sizeof__(self):
        # the arrays' bytes: what Dask counts for memory and transfers
        return object.__sizeof__(self) + self.hi.nbytes + self.lo.nbytes

    def value(self):
        """The sum rounded once to float64."""
        total = self.hi + self.lo
        return float(total) if self.scalar else total


# Finest grid unit, relative to the terms' bound: terms are kept to this.
_RESOLUTION = 2.0**-60


def grid_constants(bound, n_terms):
    """The constants that cut terms onto fixed grids (see :func:`cut`).

    ``bound``: the largest magnitude of a term; ``n_terms``: the most terms
    one sum takes (the agents of the whole fit). Returns ``1.5 * U_k`` per
    grid: grid ``k`` holds the multiples of ``u_k = U_k * 2**-52`` up to
    ``U_k``, so any partial sum of pieces on it (at most ``n_terms`` pieces
    of at most half the unit of the grid before) is exact. Grids are added
    until ``u_k <= 2**-60 * bound``: two up to about two million terms.
    Both fits of the same data get the same constants from the same bound
    and count.
    """
    bound = float(bound)
    n_terms = max(int(n_terms), 2)
    if not np.isfinite(bound) or bound <= 0.0:
        bound = 1.0
    constants = []
    # log2 of twice the largest partial sum on the first grid (a piece may
    # exceed the bound by half a unit); in logs, so no product overflows
    top = 1.0 + math.log2(n_terms) + math.log2(bound)
    while True:
        exponent = min(math.ceil(top), 1020)  # past it the sums overflow anyway
        constants.append(1.5 * 2.0**exponent)
        unit = 2.0 ** (exponent - 52)
        if unit <= _RESOLUTION * bound or len(constants) == 8:
            return np.array(constants)
        # twice the sum of pieces of at most unit / 2
        top = math.log2(n_terms) + exponent - 52


def cut(values, constants):
    """``values`` cut into pieces on the grids of ``constants`` (leading axis).

    Piece ``k`` is what the grids before left, rounded to the multiples of
    grid ``k``'s unit (``(v + c) - c``, exact in IEEE arithmetic); the rest
    below the last unit is dropped. Sums of the pieces along any axis, in
    any order, are exact.
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.empty((len(constants),) + values.shape)
    rest = values
    for k, c in enumerate(constants):
        piece = (rest + c) - c
        out[k] = piece
        rest = rest - piece
    return out


class GridSum:
    """Exact sums of pieces on fixed grids (see :func:`cut`): ``parts[k]``.

    Adding two is exact in any order; :meth:`value` forms the float64 total
    from the pieces' sums, finest first, the same way in every fit.
    """

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = np.asarray(parts, dtype=np.float64)

    def __add__(self, other):
        return GridSum(self.parts + other.parts)

    def __sizeof__(self):
        return object.__sizeof__(self) + self.parts.nbytes

    def value(self):
        """The float64 total of the pieces' sums, finest grid first."""
        total = self.parts[-1]
        for k in range(len(self.parts) - 2, -1, -1):
            total = total + self.parts[k]
        return total


def _is_float(x):
    return (isinstance(x, (float, np.floating))
            or (isinstance(x, np.ndarray) and np.issubdtype(x.dtype, np.floating)))


def _lift(x):
    """``x`` with its float leaves as :class:`DoubleDouble`."""
    if isinstance(x, (DoubleDouble, GridSum)):
        return x
    if isinstance(x, dict):
        return {key: _lift(value) for key, value in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_lift(value) for value in x)
    if _is_float(x):
        return DoubleDouble(x, scalar=np.ndim(x) == 0 and not isinstance(
            x, np.ndarray))
    return x


def exact_add(x, y):
    """Sum of two partial results; float leaves become :class:`DoubleDouble`.

    ``x`` or ``y`` may already hold double-doubles (partial sums) or plain
    values (terms); the structures (dict keys, tuple and list lengths) must
    match.
    """
    x, y = _lift(x), _lift(y)
    if isinstance(x, dict):
        return {key: exact_add(x[key], y[key]) for key in x}
    if isinstance(x, (tuple, list)):
        return type(x)(exact_add(u, v) for u, v in zip(x, y, strict=True))
    return x + y


def exact_total(*parts):
    """Sum of partial results as double-doubles (not rounded: merge further)."""
    total = _lift(parts[0])
    for part in parts[1:]:
        total = exact_add(total, part)
    return total


def rounded(x):
    """A partial result with its double-doubles rounded once to float64."""
    if isinstance(x, (DoubleDouble, GridSum)):
        return x.value()
    if isinstance(x, dict):
        return {key: rounded(value) for key, value in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(rounded(value) for value in x)
    return x
