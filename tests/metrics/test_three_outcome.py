"""three_outcome_log_loss and its scorer: values, weights, validation."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sklearn_eval.datasets import make_matches
from sklearn_eval.metrics import (
    match_log_loss,
    three_outcome_log_loss,
    three_outcome_log_loss_scorer,
)
from sklearn_eval.pairwise import EloRanker, MultiElo


def test_values_and_weights():
    proba = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1]])
    y = np.array([1.0, 0.5, 0.0])
    expected = -np.log([0.5, 0.3, 0.1])
    assert three_outcome_log_loss(y, proba) == pytest.approx(expected.mean())
    w = np.array([2.0, 0.0, 1.0])
    assert three_outcome_log_loss(y, proba, sample_weight=w) == pytest.approx(
        (2 * expected[0] + expected[2]) / 3
    )
    # integer weights are repeated rows
    repeated = three_outcome_log_loss(np.repeat(y, [2, 1, 3]),
                                      np.repeat(proba, [2, 1, 3], axis=0))
    assert three_outcome_log_loss(y, proba, sample_weight=[2, 1, 3]) == \
        pytest.approx(repeated)


def test_certain_wrong_prediction_is_finite():
    loss = three_outcome_log_loss([0.5], [[0.5, 0.0, 0.5]])
    assert loss == pytest.approx(-np.log(np.finfo(float).eps))


def test_without_ties_the_tie_column_costs_nothing_extra():
    # a model that never predicts ties gives match_log_loss on decided matches
    p = np.array([0.7, 0.2, 0.9])
    y = np.array([1.0, 0.0, 0.0])
    proba = np.column_stack([1 - p, np.zeros(3), p])
    assert three_outcome_log_loss(y, proba) == pytest.approx(match_log_loss(y, p))


@pytest.mark.parametrize(
    "y,proba,message",
    [
        ([1.0, 0.7], [[0.2, 0.3, 0.5]] * 2, r"0 \(loss\), 0.5 \(tie\) or 1.*row 1"),
        ([1.0], [[0.5, 0.5]], r"shape \(n_matches, 3\).*match_log_loss"),
        ([1.0, 0.0], [[0.2, 0.3, 0.5]], r"same length"),
        ([1.0], [[0.2, 0.3, 0.6]], r"sum to 1; row 0"),
        ([1.0], [[-0.1, 0.6, 0.5]], r"\[0, 1\].*row 0"),
        ([1.0], [[np.nan, 0.5, 0.5]], r"\[0, 1\].*row 0"),
        ([], np.zeros((0, 3)), r"no matches"),
        ([[1.0, 0.0]], [[0.2, 0.3, 0.5]], r"1-D"),
    ],
)
def test_validation(y, proba, message):
    with pytest.raises(ValueError, match=message):
        three_outcome_log_loss(y, proba)


def test_weight_validation():
    proba = [[0.2, 0.3, 0.5]] * 2
    with pytest.raises(ValueError, match="non-negative"):
        three_outcome_log_loss([1, 0], proba, sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sums to zero"):
        three_outcome_log_loss([1, 0], proba, sample_weight=[0, 0])
    with pytest.raises(ValueError, match="same length"):
        three_outcome_log_loss([1, 0], proba, sample_weight=[1])
    with pytest.raises(TypeError, match="real numbers"):
        three_outcome_log_loss([1, 0], proba, sample_weight=[1j, 1])


def test_scorer_is_minus_the_loss_and_needs_three_columns():
    X, y = make_matches(n_players=5, n_matches=300, draw_rate=0.3, random_state=0)
    tie_model = EloRanker(method="batch", ties="davidson").fit(X, y)
    assert three_outcome_log_loss_scorer(tie_model, X, y) == pytest.approx(
        -three_outcome_log_loss(y, tie_model.predict_proba(X))
    )
    assert_allclose(three_outcome_log_loss_scorer(tie_model, X, y),
                    tie_model.score(X, y))
    # ties="half" predicts all three outcomes too (its training tie share)
    half = EloRanker(method="batch").fit(X, y)
    assert_allclose(three_outcome_log_loss_scorer(half, X, y), half.score(X, y))
    two_columns = MultiElo(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"shape \(n_matches, 3\)"):
        three_outcome_log_loss_scorer(two_columns, X, y)
