"""Item curves of the binary IRT models and their consumers (3PL, 4PL).

``icc``, ``expected_score`` and ``item_information`` of :class:`IRT` against
the model's formula and a numerical derivative (Birnbaum 1968: the
information of a 3PL item is ``P'^2 / (P (1 - P))``); adaptive testing on a
3PL/4PL calibration (Wainer 2000).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.special import expit, logit

from sklearn_eval.irt import IRT, IRT2PL, AdaptiveTester
from sklearn_eval.irt._binary_curves import logistic_information
from tests.irt.simulate import simulate_responses


def _simulate(n, J, *, guessing=0.0, upper=1.0, seed=0):
    return simulate_responses(n, J, guessing=guessing, upper=upper, seed=seed)[0]


@pytest.fixture(scope="module", params=["3PL", "4PL"])
def fitted(request):
    X = _simulate(600, 15, guessing=0.2, upper=0.95 if request.param == "4PL" else 1.0,
                  seed=3)
    X[0, :] = 1.0  # an item everybody gets right is left out
    X[:, 4] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return X, IRT(model=request.param, n_options=4,
                      upper_prior=(0.95, 0.5) if request.param == "4PL" else None,
                      ).fit(X)


def test_icc_is_the_model_curve(fitted):
    _, model = fitted
    theta = np.linspace(-4, 4, 9)
    keep = ~np.isnan(model.guessing_)
    expected = model.guessing_ + (model.upper_ - model.guessing_) * expit(
        model.discrimination_ * (theta[:, None] - model.difficulty_))
    curves = model.icc(theta)
    assert_allclose(curves[:, keep], expected[:, keep], rtol=1e-12)
    # a left-out item keeps its training success rate
    assert_allclose(curves[:, 4], 1.0)
    assert_allclose(model.expected_score(theta), curves)


def test_information_is_the_squared_slope_over_the_variance(fitted):
    _, model = fitted
    theta = np.linspace(-3, 3, 13)
    h = 1e-5
    slope = (model.icc(theta + h) - model.icc(theta - h)) / (2 * h)
    P = model.icc(theta)
    keep = ~np.isnan(model.guessing_)
    info = model.item_information(theta)
    with np.errstate(invalid="ignore"):  # left-out items: 0 / 0
        expected = slope**2 / (P * (1 - P))
        # central differences: truncation error ~h^2 (relative), rounding of the
        # curve (eps) over 2h in the slope, which the division by P (1 - P)
        # magnifies where P is within 1e-6 of 1
        rounding = 8 * np.abs(slope) * (np.finfo(float).eps / h) / (P * (1 - P))
    error = np.abs(info - expected)[:, keep]
    assert np.all(error <= 1e-6 * expected[:, keep] + rounding[:, keep] + 1e-12)
    assert np.all(info[:, ~keep] == 0.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_logistic_information_matches_a_numerical_derivative(seed):
    # a seeded corpus of 1PL-4PL items, extreme asymptotes included
    rng = np.random.default_rng(seed)
    J = 6
    a = rng.lognormal(0.0, 0.7, J) * rng.choice([-1, 1], J)
    d = rng.normal(0, 2, J)
    g = rng.choice([0.0, 1e-6, 0.2, 0.45], J)
    u = rng.choice([1.0, 1 - 1e-6, 0.9, 0.6], J)
    with np.errstate(divide="ignore"):
        params = np.column_stack([a, d, logit(g), logit(u)])
    theta = rng.normal(0, 2, 5)

    def curve(t):  # complex-safe logistic
        return g + (u - g) / (1.0 + np.exp(-(t[:, None] * a + d)))

    # complex-step derivative: exact to rounding, even near an asymptote
    slope = curve(theta + 1e-30j).imag / 1e-30
    P = curve(theta).real
    expected = slope**2 / (P * (1 - P))
    assert_allclose(logistic_information(params, theta), expected, rtol=1e-5,
                    atol=1e-12)


def test_guessing_lowers_the_information_at_low_ability(fitted):
    _, model = fitted
    keep = ~np.isnan(model.guessing_)
    a, b = model.discrimination_[keep], model.difficulty_[keep]
    low = np.array([-2.5])
    two_pl = a * a * expit(a * (low - b)) * (1 - expit(a * (low - b)))
    assert np.all(model.item_information(low)[0, keep] < two_pl)


# ------------------------------------------------------------ adaptive tests
def test_adaptive_tester_reads_a_3pl_calibration(fitted):
    X, model = fitted
    from sklearn.frozen import FrozenEstimator

    tester = AdaptiveTester(FrozenEstimator(model), max_items=X.shape[1]).fit()
    weights = model.quadrature_weights_
    assert_allclose(tester.item_information_,
                    weights @ model.item_information(model.quadrature_nodes_),
                    rtol=1e-10)
    table = tester.task_table()
    assert {"guessing", "upper"} <= set(table.columns)
    # every item given: the full-benchmark accuracy is the observed one
    assert_allclose(tester.predict(X[:30]), X[:30].mean(axis=1), atol=1e-12)
    # the first item is the most informative at the prior mean, 0
    first = tester.next_item(np.full(X.shape[1], np.nan))
    assert first == int(np.argmax(model.item_information([0.0])[0]))


def test_adaptive_tester_accuracy_uses_the_expected_score(fitted):
    X, model = fitted
    from sklearn.frozen import FrozenEstimator

    tester = AdaptiveTester(FrozenEstimator(model), max_items=3).fit()
    blank = np.full((1, X.shape[1]), np.nan)
    ability, _, accuracy = tester.estimate(blank)
    nodes, weights = model.quadrature_nodes_, model.quadrature_weights_
    # no response: the prior mean of the expected score over all items
    assert_allclose(accuracy, weights @ model.expected_score(nodes).mean(axis=1))
    assert_allclose(ability, weights @ nodes, atol=1e-12)


def test_adaptive_tester_with_a_2pl_irt_equals_irt2pl():
    X = _simulate(300, 20, seed=5)
    ours = AdaptiveTester(IRT(model="2PL"), max_items=8, random_state=0).fit(X)
    reference = AdaptiveTester(IRT2PL(), max_items=8, random_state=0).fit(X)
    assert_allclose(ours.predict(X), reference.predict(X), rtol=1e-10)
    assert_allclose(ours.item_information_, reference.item_information_, rtol=1e-10)
