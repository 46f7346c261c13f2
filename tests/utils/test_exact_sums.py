"""Order-independent sums of partial results (user guide, "More data than one
machine": a distributed fit gives the same numbers wherever its partitions
ran). Double-double accumulation: Knuth, The Art of Computer Programming 2,
4.2.2 (TwoSum); Dekker (1971), "A floating-point technique for extending the
available precision"."""

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.utils._exact_sums import DoubleDouble, exact_total, rounded

# terms that are multiples of 2**-62 below 2**34 in magnitude: 40 of them span
# fewer than the 106 bits of a double-double, so every partial sum is exact
_TERMS = st.lists(
    st.floats(min_value=-1e10, max_value=1e10, allow_nan=False,
              allow_infinity=False).filter(lambda x: x == 0.0 or abs(x) >= 1e-3),
    min_size=1, max_size=40)


def _grouped_total(terms, order, cuts):
    """Terms summed in ``order``, in groups cut at ``cuts``, groups merged."""
    ordered = [terms[i] for i in order]
    bounds = [0, *sorted(set(cuts)), len(ordered)]
    groups = [exact_total(*ordered[a:b])
              for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    return rounded(exact_total(*groups))


@settings(max_examples=200, deadline=None)
@given(terms=_TERMS, data=st.data())
def test_any_order_and_grouping_gives_the_correctly_rounded_sum(terms, data):
    """Mixed signs, cancellation included: every order and grouping rounds
    to math.fsum's correctly rounded sum, hence to the same float64."""
    n = len(terms)
    order = data.draw(st.permutations(range(n)))
    cuts = data.draw(st.lists(st.integers(0, n), max_size=5))
    assert _grouped_total(terms, order, cuts) == math.fsum(terms)


def test_e_step_like_sums_are_identical_over_random_groupings():
    """A seeded corpus like an E-step's partial results (expected counts
    from 1e-300 to 1e4 and log-likelihoods, per partition): random orders
    and groupings of the partitions give identical float64 tables, equal to
    the correctly rounded sums."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        n_parts = int(rng.integers(2, 40))
        parts = [{"loglik": float(-rng.exponential(1e5)),
                  "r": np.exp(rng.uniform(-690.0, 9.0, (12, 5)))}
                 for _ in range(n_parts)]
        expected = {key: np.vectorize(lambda *xs: math.fsum(xs))(
            *[part[key] for part in parts]) for key in ("loglik", "r")}
        for _ in range(5):
            order = rng.permutation(n_parts)
            cuts = np.sort(rng.integers(0, n_parts, 3))
            total = _grouped_total(parts, order, cuts)
            for key in ("loglik", "r"):
                np.testing.assert_array_equal(total[key], expected[key])


def test_nested_partial_results_keep_their_structure_and_types():
    """Dicts, tuples and lists of arrays and scalars: float leaves summed as
    double-doubles, integer leaves exactly, the types given back."""
    rng = np.random.default_rng(0)
    parts = [{"loglik": float(-rng.exponential() * 1e6),
              "r": rng.random((5, 3)) * 10.0 ** rng.integers(-8, 8, (5, 3)),
              "pair": (rng.random(4), np.arange(4) * (i + 1)),
              "listed": [np.float64(rng.random())]} for i in range(30)]
    forward = rounded(exact_total(*parts))
    backward = rounded(exact_total(*[exact_total(*parts[i:i + 7])
                                     for i in reversed(range(0, 30, 7))]))
    assert isinstance(forward["loglik"], float)
    assert isinstance(forward["pair"], tuple) and isinstance(forward["listed"], list)
    assert forward["pair"][1].dtype == np.int64
    np.testing.assert_array_equal(forward["pair"][1], np.arange(4) * 465)
    for key in ("loglik", "r"):
        np.testing.assert_array_equal(forward[key], backward[key])
        expected = np.vectorize(lambda *xs: math.fsum(xs))(
            *[part[key] for part in parts])
        np.testing.assert_array_equal(forward[key], expected)
    np.testing.assert_array_equal(forward["pair"][0], backward["pair"][0])


def test_plain_float_sum_depends_on_order_and_double_double_does_not():
    """The failure the accumulator removes: 0.1-sized terms next to 1e16."""
    terms = [1e16, 1.0, -1e16, 1.0, 0.5]
    assert sum(terms) != sum(reversed(terms))
    assert rounded(exact_total(*terms)) == rounded(exact_total(*terms[::-1])) == 2.5


def test_infinite_terms_give_the_plain_sum():
    """An infinite term (a log-likelihood of -inf) is not turned into NaN."""
    total = exact_total(np.array([1.0, -np.inf]), np.array([2.0, 3.0]))
    assert isinstance(total, DoubleDouble)
    np.testing.assert_array_equal(rounded(total), [3.0, -np.inf])


def test_size_counts_both_arrays():
    """A partial sum weighs its two float64 arrays: what Dask's memory and
    transfer accounting (``dask.sizeof``, which falls back on
    ``sys.getsizeof``) sees of a double-double."""
    import sys

    for shape in [(), (7,), (317, 150)]:
        x = DoubleDouble(np.ones(shape))
        arrays = 2 * 8 * math.prod(shape)
        assert arrays <= sys.getsizeof(x) <= arrays + 200
        total = exact_total({"r": np.ones(shape)}, {"r": np.ones(shape)})
        assert sys.getsizeof(total["r"]) == sys.getsizeof(x)


# ------------------------------------------------------- sums on fixed grids
def _grid_total(pieces, order, cuts):
    """Pieces (grids x terms) summed in ``order``, in groups cut at ``cuts``."""
    from sklearn_eval.utils._exact_sums import GridSum

    ordered = pieces[:, order]
    bounds = [0, *sorted(set(cuts)), ordered.shape[1]]
    groups = [GridSum(ordered[:, a:b].sum(axis=1))
              for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    return rounded(exact_total(*groups))


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(1, 300),
       scale=st.sampled_from([1e-300, 1e-8, 1.0, 7.5, 3e5]),
       power=st.integers(1, 40), n_terms=st.sampled_from([None, 10**4, 10**8]))
def test_grid_sums_are_the_same_in_any_order_and_grouping(data, n, scale, power,
                                                          n_terms):
    """Terms of one sign or mixed, spread over many binades (``u**power``):
    every order and grouping of their pieces gives the same float64, within
    the documented error of the exact sum (terms below the finest grid
    dropped: at most ``2**-61`` of the bound each, plus the final rounding)."""
    from sklearn_eval.utils._exact_sums import cut, grid_constants

    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    terms = scale * rng.random(n) ** power * rng.choice([-1.0, 1.0], n)
    bound = float(np.max(np.abs(terms), initial=0.0)) or 1.0
    consts = grid_constants(bound, n if n_terms is None else n_terms)
    pieces = cut(terms, consts)
    order = data.draw(st.permutations(range(n)))
    cuts = data.draw(st.lists(st.integers(0, n), max_size=6))
    total = _grid_total(pieces, list(order), cuts)
    assert total == _grid_total(pieces, list(range(n)), [])
    exact = math.fsum(terms)
    assert abs(total - exact) <= n * 2.0**-61 * bound + 2.0**-52 * abs(exact)


def test_grids_are_exact_at_their_capacity():
    """``n_terms`` terms at the bound (the largest partial sums) still add
    exactly, and pieces reassemble a term to within the finest unit."""
    from sklearn_eval.utils._exact_sums import GridSum, cut, grid_constants

    for n_terms, expected in ((2, 2), (2**21, 2), (2**22, 3), (10**9, 3)):
        consts = grid_constants(1.0, n_terms)
        assert len(consts) == expected
        units = consts / 1.5 * 2.0**-52
        assert units[-1] <= 2.0**-60
        v = np.nextafter(1.0, 0.0) * (1 - 2.0**-40)
        pieces = cut(np.full(3, v), consts)
        assert abs(pieces.sum(axis=0)[0] - v) <= units[-1] / 2
        # the largest partial sums of every grid are exact: n_terms pieces
        # at the bound, and n_terms rests of half the unit before
        largest = [pieces[0, 0]] + [u / 2 for u in units[:-1]]
        for piece in largest:
            assert Fraction(piece * n_terms) == Fraction(piece) * n_terms
        assert GridSum(pieces).value()[0] == pieces[1:, 0].sum() + pieces[0, 0]


def test_grid_constants_at_the_ends_of_the_float_range():
    """Bounds near the largest and smallest floats give finite constants (no
    overflow forming the largest partial sum), and a bound of 0 or NaN is
    taken as 1."""
    from sklearn_eval.utils._exact_sums import grid_constants

    for bound, n_terms in ((1e300, 10**9), (1e-300, 10), (0.0, 5), (np.nan, 5)):
        consts = grid_constants(bound, n_terms)
        assert np.all(np.isfinite(consts)) and np.all(consts > 0)
    np.testing.assert_array_equal(grid_constants(0.0, 5), grid_constants(1.0, 5))


def test_grid_sum_size_and_value():
    from sklearn_eval.utils._exact_sums import GridSum

    total = GridSum(np.array([[1.0, 2.0], [2.0**-60, 0.0]]))
    assert (total + total).value().tolist() == [2.0 + 2.0**-59, 4.0]
    assert total.__sizeof__() >= total.parts.nbytes
    assert rounded({"r": total})["r"].tolist() == [1.0, 2.0]
