"""GeneralityScorer with difficulties from any unidimensional IRT model.

The location of an item is the ability at which its expected score is halfway
up its range: the difficulty ``b`` of a logistic item, guessing or not
(Birnbaum 1968), so a model that only exposes ``expected_score`` (graded or
continuous scores) bins its items on the same scale.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.frozen import FrozenEstimator

from sklearn_eval.irt import IRT, GeneralityScorer
from sklearn_eval.irt._difficulty import curve_location
from tests.irt.simulate import simulate_responses


def _simulate(n, J, guessing, seed):
    return simulate_responses(n, J, guessing=guessing, seed=seed)[0]


class _Curves(BaseEstimator):
    """Expected-score curves only (as a graded or continuous model has)."""

    def __init__(self, a=None, b=None, g=None, u=None):
        self.a, self.b, self.g, self.u = a, b, g, u

    def fit(self, X, y=None):
        self.n_features_in_ = X.shape[1]
        return self

    def expected_score(self, theta):
        theta = np.asarray(theta, dtype=float)
        return self.g + (self.u - self.g) * expit(self.a * (theta[:, None] - self.b))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_curve_location_is_the_logistic_difficulty(seed):
    rng = np.random.default_rng(seed)
    J = 8
    model = _Curves(a=np.maximum(rng.lognormal(0, 0.6, J), 0.3)
                    * rng.choice([-1, 1], J),
                    b=rng.uniform(-3, 3, J), g=rng.uniform(0, 0.4, J),
                    u=rng.uniform(0.6, 1.0, J))
    assert_allclose(curve_location(model), model.b, atol=1e-4)


def test_a_flat_curve_or_a_far_location_has_none():
    model = _Curves(a=np.array([0.0, 1.0, 1.0]), b=np.array([0.0, 0.0, 12.0]),
                    g=np.zeros(3), u=np.ones(3))
    location = curve_location(model)
    assert np.isnan(location[0]) and np.isnan(location[2])
    assert abs(location[1]) < 1e-4


@pytest.mark.parametrize("model", ["3PL", "4PL"])
def test_generality_with_a_guessing_model(model):
    X = _simulate(400, 40, guessing=0.25, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        irt = IRT(model=model, n_options=4).fit(X)
        scorer = GeneralityScorer(difficulty=FrozenEstimator(irt), bins=4).fit(X)
    assert_allclose(scorer.difficulty_, irt.difficulty_)
    # abilities for the item curves are the model's posterior means
    curves = scorer.item_curves(X)
    assert_allclose(curves.abilities, irt.transform(X)[:, 0])


def test_generality_from_expected_score_curves():
    X = _simulate(300, 30, guessing=0.2, seed=6)
    rng = np.random.default_rng(0)
    b = rng.normal(size=30)
    curves = _Curves(a=np.ones(30), b=b, g=np.full(30, 0.2), u=np.ones(30))
    scorer = GeneralityScorer(difficulty=curves, bins=3).fit(X)
    assert_allclose(scorer.difficulty_, b, atol=1e-4)


# ------------------------------------------------ graded difficulty sources
def _graded_codes(n=60, J=30, seed=0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n), rng.normal(size=J)
    noise = rng.normal(scale=0.7, size=(n, J))
    return np.clip(np.round(theta[:, None] - b + noise + 2), 0, 4)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
@settings(max_examples=10, deadline=None)
@given(rows=st.lists(st.integers(0, 59), min_size=1, max_size=8, unique=True))
def test_a_graded_agents_indicators_do_not_depend_on_the_batch(model, rows):
    # codes are scored by each item's largest code in fit, not in the batch
    from sklearn_eval.irt import GeneralityScorer

    G = _graded_codes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = GeneralityScorer(difficulty=IRT(model=model), bins=4).fit(G)
        whole = scorer.transform(G)
        batch = scorer.transform(G[rows])
    np.testing.assert_allclose(batch, whole[rows], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_graded_item_curves_read_the_codes(model):
    from sklearn_eval.irt import GeneralityScorer

    G = _graded_codes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = GeneralityScorer(difficulty=IRT(model=model), bins=4).fit(G)
        curves = scorer.item_curves(G)
        theta = scorer.difficulty_model_.transform(G)
    theta = theta if theta.ndim == 1 else theta[:, 0]
    np.testing.assert_allclose(curves.abilities, theta)
    assert np.all((curves.success_rate[np.isfinite(curves.success_rate)] >= 0)
                  & (curves.success_rate[np.isfinite(curves.success_rate)] <= 1))


def test_a_graded_code_above_the_fitted_scale_is_named():
    from sklearn_eval.irt import GeneralityScorer

    G = _graded_codes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = GeneralityScorer(difficulty=IRT(model="GRM"), bins=4).fit(G)
    H = G.copy()
    H[0, 3] = G[:, 3].max() + 1
    with pytest.raises(ValueError, match="on item 3, above the largest code"):
        scorer.transform(H)
