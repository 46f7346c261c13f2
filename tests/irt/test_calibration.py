"""The calibration rule shared by AdaptiveTester and SubsetScoreEstimator.

User guide, efficient evaluation: None calibrates a 1PL ``IRT2PL`` on the
responses, an ``IRT2PL`` is cloned and fitted, a ``FrozenEstimator`` keeps its
calibration; anything else, or a calibration on another item count, is
refused with a message.
"""

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL, AdaptiveTester, calibrate_irt
from sklearn_eval.selection import SubsetScoreEstimator


@pytest.fixture(scope="module")
def responses():
    return make_irt_responses(120, 12, random_state=0)


def test_none_is_a_rasch_model_fitted_on_the_responses(responses):
    model = calibrate_irt(None, responses)
    reference = IRT2PL(model="1PL").fit(responses)
    np.testing.assert_allclose(model.icc([0.0]), reference.icc([0.0]))


def test_an_irt2pl_is_cloned_and_a_frozen_one_kept(responses):
    given = IRT2PL(model="2PL")
    model = calibrate_irt(given, responses)
    assert model is not given and not hasattr(given, "difficulty_")
    fitted = IRT2PL(model="1PL").fit(responses[:60])
    frozen = calibrate_irt(FrozenEstimator(fitted), responses)
    np.testing.assert_array_equal(frozen.difficulty_, fitted.difficulty_)


def test_other_models_and_other_item_counts_are_refused(responses):
    other = LogisticRegression().fit(responses, np.arange(120) % 2)
    with pytest.raises(TypeError, match="IRT2PL"):
        calibrate_irt(FrozenEstimator(other), responses)
    frozen = FrozenEstimator(IRT2PL(model="1PL").fit(responses[:, :8]))
    with pytest.raises(ValueError, match="calibrated on 8 items; X has 12"):
        calibrate_irt(frozen, responses)


@pytest.mark.parametrize(
    "make",
    [lambda irt: AdaptiveTester(irt=irt),
     lambda irt: SubsetScoreEstimator(n_items=4, irt=irt, random_state=0)],
)
def test_both_estimators_follow_the_rule(make, responses):
    frozen = FrozenEstimator(IRT2PL(model="1PL").fit(responses[:, :8]))
    with pytest.raises(ValueError, match="calibrated on 8 items"):
        make(frozen).fit(responses)
    fitted = IRT2PL(model="1PL").fit(responses)
    est = make(FrozenEstimator(fitted)).fit(responses)
    np.testing.assert_array_equal(est.irt_.difficulty_, fitted.difficulty_)
