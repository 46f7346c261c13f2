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
"""

import numpy as np

__all__ = ["DoubleDouble", "exact_add", "exact_total", "rounded"]


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


def _is_float(x):
    return (isinstance(x, (float, np.floating))
            or (isinstance(x, np.ndarray) and np.issubdtype(x.dtype, np.floating)))


def _lift(x):
    """``x`` with its float leaves as :class:`DoubleDouble`."""
    if isinstance(x, DoubleDouble):
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
    if isinstance(x, DoubleDouble):
        return x.value()
    if isinstance(x, dict):
        return {key: rounded(value) for key, value in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(rounded(value) for value in x)
    return x
