"""Intervals for IRT abilities and item parameters."""

import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL, irt_intervals
from sklearn_eval.uncertainty import ranking_intervals


def test_ability_intervals_are_posterior_sd_intervals():
    X = make_irt_responses(150, 25, random_state=0)
    model = IRT2PL(ability_method="eap").fit(X)
    res = irt_intervals(IRT2PL(ability_method="eap"), X, confidence_level=0.9,
                        random_state=0)
    np.testing.assert_allclose(res.estimate, model.abilities_)
    np.testing.assert_allclose(res.high - res.low,
                               2 * 1.6448536269514722 * model.abilities_sd_)
    assert res.method == "posterior" and "item parameters" in res.note
    np.testing.assert_allclose(res.prob_above + res.prob_above.T, 1.0)
    top = np.argmax(res.estimate)
    assert res.rank[top] == 1 and res.rank_low[top] == 1
    # a wide posterior makes a wide rank interval
    assert np.mean(res.rank_high - res.rank_low) > 5


@pytest.mark.filterwarnings("ignore:1 item:UserWarning")
def test_item_intervals_and_labels_from_a_dataframe():
    X = make_irt_responses(400, 12, random_state=1)
    X[:, 3] = 1.0  # a constant item is left out of estimation
    frame = pd.DataFrame(X, columns=[f"task{k}" for k in range(12)],
                         index=[f"agent{k}" for k in range(400)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = ranking_intervals(IRT2PL(), frame, target="difficulty",
                                random_state=0)
        model = IRT2PL().fit(frame)
    assert res.labels.tolist() == list(frame.columns)
    assert res.method == "observed information"
    assert np.isnan(res.low[3]) and np.isnan(res.estimate[3])
    ok = np.arange(12) != 3
    np.testing.assert_allclose((res.high - res.low)[ok],
                               2 * 1.959963984540054 * model.difficulty_se_[ok])
    with pytest.warns(UserWarning, match=r"NaN for 1 item\(s\) \['task3'\]"):
        disc = irt_intervals(IRT2PL(), frame, target="discrimination",
                             random_state=0)
    assert np.all(disc.low[ok] < disc.estimate[ok])
    abilities = irt_intervals(IRT2PL(), frame, random_state=0)
    assert abilities.labels[0] == "agent0"


def test_bootstrap_path_for_abilities_resamples_tasks():
    X = make_irt_responses(60, 20, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = ranking_intervals(IRT2PL(max_iter=200), X, method="bootstrap",
                                 n_resamples=8, random_state=0)
        analytic = ranking_intervals(IRT2PL(max_iter=200), X, random_state=0)
    assert boot.method == "percentile bootstrap"
    assert boot.samples.shape == (8, 60)
    np.testing.assert_allclose(boot.estimate, analytic.estimate)
    assert np.corrcoef(np.nanmean(boot.samples, axis=0), boot.estimate)[0, 1] > 0.9


def test_errors():
    X = make_irt_responses(50, 10, random_state=3)
    with pytest.raises(ValueError, match="target must be one of"):
        irt_intervals(IRT2PL(), X, target="guessing")
    with pytest.raises(TypeError, match="IRT2PL"):
        irt_intervals(object(), X)
    with pytest.raises(ValueError, match="confidence_level"):
        irt_intervals(IRT2PL(), X, confidence_level=95)


@pytest.mark.slow
def test_ability_interval_coverage():
    """95% EAP posterior intervals cover the true abilities 92-98% of the time.

    200 seeded replications of the 2PL (300 agents, 30 items; theta ~ N(0, 1),
    the model's prior), items estimated each time.
    """
    hits = []
    for seed in range(200):
        X, params = make_irt_responses(300, 30, random_state=seed,
                                       return_params=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = irt_intervals(IRT2PL(ability_method="eap"), X, n_draws=10,
                                random_state=seed)
        theta = params["theta"]
        hits.append(np.mean((res.low <= theta) & (theta <= res.high)))
    assert 0.92 <= np.mean(hits) <= 0.98
