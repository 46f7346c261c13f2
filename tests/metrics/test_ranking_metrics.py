"""Tests of the ranking-agreement metrics (Kendall tau-b, Spearman rho)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LinearRegression
from sklearn.metrics import make_scorer
from sklearn.model_selection import cross_val_score

from sklearn_eval.metrics import kendall_tau, spearman_rho


def test_hand_computed_values():
    # one discordant pair out of six: tau = (5 - 1) / 6
    assert kendall_tau([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(4 / 6)
    # rank differences (0, 0, 1, 1): rho = 1 - 6 * 2 / (4 * 15)
    assert spearman_rho([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(0.8)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert spearman_rho([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_ties_use_tau_b_and_average_ranks():
    a = [1, 1, 2, 3]
    b = [1, 2, 2, 3]
    # concordant 4, discordant 0, ties only in a: 1, only in b: 1, n0 = 6
    expected = 4 / np.sqrt((6 - 1) * (6 - 1))
    assert kendall_tau(a, b) == pytest.approx(expected)
    ra, rb = stats.rankdata(a), stats.rankdata(b)
    assert spearman_rho(a, b) == pytest.approx(np.corrcoef(ra, rb)[0, 1])


def test_constant_input_is_undefined_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="y_score is constant"):
        assert np.isnan(kendall_tau([1, 2, 3], [5, 5, 5]))
    with pytest.warns(UndefinedMetricWarning, match="y_true and y_score"):
        assert np.isnan(spearman_rho([1, 1], [2, 2]))


@pytest.mark.parametrize(
    "a, b, error, match",
    [
        ([1, 2], [1, 2, 3], ValueError, "same length"),
        ([1], [1], ValueError, "at least 2"),
        ([[1, 2]], [[1, 2]], ValueError, "1-D"),
        ([1, np.nan], [1, 2], ValueError, "y_true must be finite.*position 1"),
        ([1, 2], [np.inf, 2], ValueError, "y_score must be finite"),
        (["a", "b"], [1, 2], ValueError, None),
    ],
)
def test_bad_input(a, b, error, match):
    for metric in (kendall_tau, spearman_rho):
        with pytest.raises(error, match=match):
            metric(a, b)


scores = arrays(np.float64, st.integers(2, 30),
                elements=st.floats(-1e3, 1e3, allow_nan=False))


@settings(max_examples=80, deadline=None)
@given(scores, st.randoms(use_true_random=False))
def test_properties_match_scipy_and_are_symmetric(a, rnd):
    b = a.copy()
    rnd.shuffle(b)
    if np.ptp(a) == 0:
        return
    tau, rho = kendall_tau(a, b), spearman_rho(a, b)
    assert -1 - 1e-12 <= tau <= 1 + 1e-12
    assert -1 - 1e-12 <= rho <= 1 + 1e-12
    assert tau == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    assert rho == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert tau == pytest.approx(kendall_tau(b, a), abs=1e-12)
    assert rho == pytest.approx(spearman_rho(b, a), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(scores)
def test_properties_monotone_transform_invariance(a):
    b = a**3 + 2 * a  # strictly increasing
    if np.ptp(a) == 0 or len(np.unique(b)) < len(np.unique(a)):
        return  # rounding merged two values
    assert kendall_tau(a, b) == pytest.approx(1.0)
    assert spearman_rho(a, b) == pytest.approx(1.0)
    assert kendall_tau(a, -b) == pytest.approx(-1.0)
    assert spearman_rho(a, -b) == pytest.approx(-1.0)


def test_usable_as_sklearn_scorer():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.normal(scale=0.1, size=60)
    scores = cross_val_score(
        LinearRegression(), X, y, cv=3, scoring=make_scorer(kendall_tau)
    )
    assert (scores > 0.9).all()
