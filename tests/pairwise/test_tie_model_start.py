"""A tie model starts inside its parameter space whatever the tie weights.

A tie whose weight is tiny next to the decided matches (a share below the
rounding of ``1 + share``) once started Rao-Kupper at ``log theta = 0``,
outside the parameter space, and the fit failed with an AttributeError
(numpy path) or read uninitialised memory (compiled path).
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_eval.pairwise import EloRanker, _ties

X = [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"], ["b", "a"]]
Y = [1, 0, 1, 0.5, 1]


def _fit(ties, tie_weight, alpha=0.0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EloRanker(method="batch", ties=ties, alpha=alpha).fit(
            X, Y, sample_weight=[1.0, 1.0, 1.0, tie_weight, 1.0]
        )


@pytest.fixture(params=["numpy", "compiled"])
def path(request, monkeypatch):
    import sklearn_eval.pairwise._tie_kernels as kernels

    if request.param == "compiled":
        if not kernels.HAVE_NUMBA:
            pytest.skip("numba is not installed")
        monkeypatch.setattr(kernels, "COMPILED_FROM", 0)
    return request.param


@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(exponent=st.integers(min_value=-320, max_value=0))
def test_a_rare_tie_fits_a_finite_tie_model(path, ties, alpha, exponent):
    fitted = _fit(ties, 10.0**exponent, alpha)
    assert np.isfinite(fitted.ratings_).all()
    assert np.isfinite(fitted.tie_param_)
    assert fitted.tie_param_ >= (1.0 if ties == "rao-kupper" else 0.0)
    proba = fitted.predict_proba([["a", "b"]])
    assert np.isfinite(proba).all()


@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
def test_a_vanishing_tie_gives_the_fit_without_it(path, ties):
    """As the tie's weight goes to zero the tie model tends to its boundary."""
    rare = _fit(ties, 1e-17, alpha=0.5)
    none = _fit(ties, 0.0, alpha=0.5)
    assert_allclose(rare.ratings_, none.ratings_, atol=1e-6)


@pytest.mark.parametrize("share", [0.0, 1e-320, 1e-17, 0.3])
@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
def test_tie_start_is_inside_the_parameter_space(ties, share):
    class Cells:
        counts = np.array([[1.0 - share, share, 1.0]])

    start = _ties.tie_start(ties, Cells)
    assert np.isfinite(start)
    if ties == "rao-kupper":
        assert start > 0.0
