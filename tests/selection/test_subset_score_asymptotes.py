"""SubsetScoreEstimator on a 3PL/4PL calibration (tinyBenchmarks' p-IRT).

The item bank reads the asymptotes of the calibration: its curves are the
model's ``icc``, its information ``P'^2 / (P (1 - P))`` (Birnbaum 1968), and a
2PL calibration gives the 2PL's numbers exactly.
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.frozen import FrozenEstimator

from sklearn_eval.irt import IRT, IRT2PL
from sklearn_eval.selection import SubsetScoreEstimator
from sklearn_eval.selection._subset_models import ItemBank
from tests.irt.simulate import simulate_responses


def _simulate(n, J, *, guessing, upper=1.0, seed=0):
    return simulate_responses(n, J, guessing=guessing, upper=upper, seed=seed)[0]


@pytest.fixture(scope="module", params=["3PL", "4PL"])
def calibrated(request):
    X = _simulate(400, 40, guessing=0.25,
                  upper=0.95 if request.param == "4PL" else 1.0, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT(model=request.param, n_options=4,
                    upper_prior=(0.95, 0.5) if request.param == "4PL" else None
                    ).fit(X)
    return X, model


def test_item_bank_curves_and_information_are_the_model_s(calibrated):
    X, model = calibrated
    rate = np.nanmean(X, axis=0)
    bank = ItemBank(model.discrimination_, model.difficulty_, rate,
                    model.quadrature_nodes_, model.quadrature_weights_,
                    guessing=model.guessing_, upper=model.upper_)
    assert_allclose(bank.probability, model.icc(model.quadrature_nodes_), rtol=1e-12)
    theta = np.linspace(-3, 3, 7)
    assert_allclose(bank.information(theta), model.item_information(theta),
                    rtol=1e-10)


def test_item_bank_without_asymptotes_is_the_2pl_bank():
    rng = np.random.default_rng(0)
    a, b = rng.lognormal(0, 0.3, 8), rng.normal(0, 1, 8)
    nodes = np.linspace(-6, 6, 121)
    weights = np.exp(-nodes**2 / 2)
    weights /= weights.sum()
    rate = np.full(8, 0.5)
    plain = ItemBank(a, b, rate, nodes, weights)
    fixed = ItemBank(a, b, rate, nodes, weights, guessing=np.zeros(8),
                     upper=np.ones(8))
    assert_array_equal(plain.probability, fixed.probability)
    assert_array_equal(plain.information(nodes), fixed.information(nodes))
    assert_array_equal(plain.embedding(nodes), fixed.embedding(nodes))


def test_3pl_calibration_estimates_the_full_benchmark(calibrated):
    X, model = calibrated
    est = SubsetScoreEstimator(n_items=15, method="irt", irt=FrozenEstimator(model),
                               random_state=0).fit(X[:300])
    prediction = est.predict(X[300:])
    truth = X[300:].mean(axis=1)
    rng = np.random.default_rng(0)
    random_items = np.mean([
        np.mean(np.abs(X[300:, rng.choice(X.shape[1], 15, replace=False)].mean(axis=1)
                       - truth)) for _ in range(50)])
    # measured 0.056 (3PL) and 0.049 (4PL) against 0.074 and 0.075
    assert np.mean(np.abs(prediction - truth)) <= 0.85 * random_items
    # with no response at all the estimate is the prior mean of the curves
    blank = np.full((1, X.shape[1]), np.nan)
    nodes, weights = model.quadrature_nodes_, model.quadrature_weights_
    assert_allclose(est.predict(blank),
                    weights @ model.icc(nodes).mean(axis=1), rtol=1e-10)


def test_a_2pl_irt_calibration_equals_irt2pl():
    X = _simulate(300, 30, guessing=0.0, seed=2)
    ours = SubsetScoreEstimator(n_items=10, method="irt", irt=IRT(model="2PL"),
                                random_state=0).fit(X)
    reference = SubsetScoreEstimator(n_items=10, method="irt", irt=IRT2PL(),
                                     random_state=0).fit(X)
    assert_array_equal(ours.selected_items_, reference.selected_items_)
    assert_allclose(ours.predict(X), reference.predict(X), rtol=1e-10)
