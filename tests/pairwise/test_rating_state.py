"""Interval code reads a match rater only through its declared fitted state.

The fast bootstrap and the sandwich covariance (user guide, "Uncertainty")
need the fitted ratings on the natural-logit scale, the tie model and the
reporting scale. The estimator hands them over as a frozen ``RatingState``
declared in its interval plan; the interval modules never touch the
estimator's private attributes.
"""

import ast
import dataclasses
import inspect
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sklearn_eval.datasets import make_matches
from sklearn_eval.pairwise import EloRanker, MultiElo, _extended_intervals, _intervals
from sklearn_eval.pairwise._base import RatingState, rating_state

ESTIMATORS = {
    "online": lambda: EloRanker(),
    "online-logit-advantage": lambda: EloRanker(scale="logit", first_advantage=0.3),
    "batch": lambda: EloRanker(method="batch", alpha=0.1),
    "batch-fit-advantage": lambda: EloRanker(method="batch", first_advantage="fit"),
    "davidson": lambda: EloRanker(method="batch", ties="davidson"),
    "rao-kupper": lambda: EloRanker(method="batch", ties="rao-kupper",
                                    initial_rating=1000.0),
    "melo": lambda: MultiElo(random_state=0),
}


def _matches(seed=0):
    X, y = make_matches(n_players=6, n_matches=400, draw_rate=0.2,
                        random_state=seed)
    return np.asarray(X), np.asarray(y, dtype=float)


def _fitted(name):
    X, y = _matches()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ESTIMATORS[name]().fit(X, y), X, y


def _private_names(estimator):
    names = {n for n in dir(type(estimator)) if n.startswith("_")
             and not n.startswith("__")}
    return names | {n for n in vars(estimator) if n.startswith("_")}


@pytest.mark.parametrize("module", [_intervals, _extended_intervals])
def test_interval_modules_read_no_private_estimator_attribute(module):
    est, _, _ = _fitted("davidson")
    private = _private_names(est) | _private_names(_fitted("melo")[0])
    tree = ast.parse(inspect.getsource(module))
    read = sorted({
        node.attr for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in private
    })
    assert read == []


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_the_plan_declares_a_frozen_record_of_the_fit(name):
    est, X, y = _fitted(name)
    plan = est.__sklearn_eval_intervals__()
    record = plan.fitted_state(est)
    assert isinstance(record, RatingState)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.tie_model = "davidson"
    # the record reproduces the published ratings and the model's predictions
    assert_allclose(record.to_reported(record.ratings), est.ratings_, rtol=1e-12)
    players = est.players_
    first = np.searchsorted(players, X[:, 0])
    second = np.searchsorted(players, X[:, 1])
    logits = record.ratings[first] - record.ratings[second] + record.advantage
    if name == "melo":  # the cyclic part is not part of the record
        logits = est.decision_function(X)
    assert_allclose(est.decision_function(X), logits, rtol=1e-10, atol=1e-12)
    assert (record.tie_model is None) == (name not in ("davidson", "rao-kupper"))
    assert (record.tie is None) == (record.tie_model is None)


def test_record_scale_matches_the_reporting_scale():
    est, _, _ = _fitted("rao-kupper")
    record = rating_state(est)
    assert record.initial == 1000.0
    assert_allclose(record.units_per_logit, 400.0 / np.log(10.0))
    logit = _fitted("online-logit-advantage")[0]
    assert rating_state(logit).units_per_logit == 1.0
    assert_allclose(rating_state(logit).advantage, 0.3)


def test_record_needs_a_fitted_estimator():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        rating_state(EloRanker())
