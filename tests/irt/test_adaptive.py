"""AdaptiveTester: computerised adaptive testing on a calibrated IRT model."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.decomposition import PCA
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import GridSearchCV, KFold

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL, AdaptiveTester
from sklearn_eval.utils.estimator_checks import check_estimator_contract


@pytest.fixture(scope="module")
def responses():
    X, params = make_irt_responses(500, 150, random_state=0, return_params=True)
    return X, params


@pytest.fixture(scope="module")
def true_tester(responses):
    _, params = responses
    irt = IRT2PL.from_item_params(params["a"], params["b"])
    return AdaptiveTester(irt, max_items=30, random_state=0).fit()


def test_contract(responses):
    X, _ = responses
    check_estimator_contract(AdaptiveTester(max_items=10, random_state=0), X[:80, :40],
                             bad_inputs=[(X[:0, :40], None),
                                         (np.full((5, 40), 2.0), None)])


def test_simulate_log_structure(true_tester, responses):
    X, _ = responses
    log = true_tester.simulate(X[:40])
    assert list(log.columns) == ["agent", "step", "item", "response", "ability",
                                 "se", "accuracy"]
    assert len(log) == 40 * 30
    for _, test in log.groupby("agent"):
        assert test["step"].tolist() == list(range(1, 31))
        assert test["item"].is_unique
    np.testing.assert_array_equal(log["response"],
                                  X[log["agent"], log["item"]])
    assert log["se"].between(0, 1).all()
    assert log["accuracy"].between(0, 1).all()
    # precision improves on average with every item
    mean_se = log.groupby("step")["se"].mean().to_numpy()
    assert np.all(np.diff(mean_se) < 0)


def test_first_item_is_most_informative_at_prior_mean(true_tester, responses):
    _, params = responses
    info = params["a"] ** 2 * expit(params["a"] * (0 - params["b"])) * (
        1 - expit(params["a"] * (0 - params["b"])))
    blank = np.full(150, np.nan)
    assert true_tester.next_item(blank) == int(np.argmax(info))


def test_next_item_reproduces_simulate(true_tester, responses):
    X, _ = responses
    log = true_tester.simulate(X[:3])
    for agent in range(3):
        given = np.full(150, np.nan)
        for _, row in log[log["agent"] == agent].iterrows():
            item = true_tester.next_item(given)
            assert item == row["item"]
            given[item] = X[agent, item]
            ability, se, accuracy = true_tester.estimate(given)
            assert ability[0] == pytest.approx(row["ability"])
            assert se[0] == pytest.approx(row["se"])
            assert accuracy[0] == pytest.approx(row["accuracy"])
        assert true_tester.next_item(given) is None  # max_items reached
    batch = true_tester.next_item(np.full((2, 150), np.nan))
    assert batch.shape == (2,) and batch[0] == batch[1]


def test_estimate_with_every_item_is_exact(true_tester, responses):
    X, _ = responses
    _, _, accuracy = true_tester.estimate(X[:5])
    np.testing.assert_allclose(accuracy, X[:5].mean(axis=1))


def test_adaptive_beats_fixed_random_items_of_same_length(true_tester, responses):
    X, params = responses
    truth = X[300:].mean(axis=1)
    adaptive = np.mean(np.abs(true_tester.predict(X[300:]) - truth))
    rng = np.random.default_rng(0)
    random_mae = np.mean([
        np.mean(np.abs(X[300:, rng.choice(150, 30, replace=False)].mean(1) - truth))
        for _ in range(20)
    ])
    assert adaptive < random_mae
    theta = true_tester.simulate(X[300:]).groupby("agent")["ability"].last()
    assert np.corrcoef(theta, params["theta"][300:])[0, 1] > 0.9


def test_se_target_stops_early(responses):
    X, params = responses
    tester = AdaptiveTester(IRT2PL.from_item_params(params["a"], params["b"]),
                            max_items=80, se_target=0.35).fit()
    log = tester.simulate(X[:50])
    last = log.groupby("agent").tail(1)
    assert (last["step"] < 80).any()
    stopped_early = last[last["step"] < 80]
    assert (stopped_early["se"] <= 0.35).all()
    # before its last step no model had reached the target
    earlier = log.drop(last.index)
    assert (earlier["se"] > 0.35).all()
    blank = np.full(150, np.nan)
    blank[last["item"].iloc[0]] = 0.0
    assert tester.next_item(blank) is not None


@given(st.integers(1, 8), st.integers(0, 100))
@settings(max_examples=15, deadline=None)
def test_randomesque_draws_among_top_items(k, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.lognormal(0, 0.3, 40), rng.normal(size=40)
    tester = AdaptiveTester(IRT2PL.from_item_params(a, b), randomesque=k,
                            random_state=seed).fit()
    items = tester.next_item(np.full((200, 40), np.nan))
    P = expit(a * (0 - b))
    top = set(np.argsort(-(a * a * P * (1 - P)), kind="stable")[:k].tolist())
    assert set(items.tolist()) <= top
    if k > 1:
        assert len(set(items.tolist())) > 1


def test_randomesque_spreads_exposure(responses):
    X, params = responses
    irt = IRT2PL.from_item_params(params["a"], params["b"])
    exposure, used = {}, {}
    for k in (1, 10):
        log = AdaptiveTester(irt, max_items=10, randomesque=k, random_state=0).fit(
        ).simulate(X[:200])
        exposure[k] = log["item"].value_counts().max() / 200
        used[k] = log["item"].nunique()
    assert exposure[1] == 1.0  # everyone gets the same first item
    assert exposure[10] < 0.7
    assert used[10] > 1.5 * used[1]


def test_one_pl_shortcut_matches_information(responses):
    X, _ = responses
    tester = AdaptiveTester(max_items=5).fit(X[:300])
    assert tester._common_a
    a = tester.irt_.discrimination_
    b = tester.irt_.difficulty_
    for theta in (-1.3, 0.0, 0.4, 2.2):
        info = a**2 * expit(a * (theta - b)) * (1 - expit(a * (theta - b)))
        chosen = tester._choose(np.array([theta]), np.ones((1, 150), bool),
                                np.random.RandomState(0))[0]
        assert info[chosen] == pytest.approx(info.max())


def test_unknown_responses_are_never_given(responses):
    X, params = responses
    tester = AdaptiveTester(IRT2PL.from_item_params(params["a"], params["b"]),
                            max_items=20).fit()
    partial = X[:20].copy()
    partial[:, ::2] = np.nan
    partial[0, :] = np.nan
    partial[0, 7] = 1.0  # model 0 has a single known response
    log = tester.simulate(partial)
    assert not np.isnan(partial[log["agent"], log["item"]]).any()
    assert (log["agent"] == 0).sum() == 1
    pred = tester.predict(partial)
    assert np.isfinite(pred).all()


def test_grid_search_over_calibrations():
    X = make_irt_responses(240, 60, random_state=3)
    search = GridSearchCV(
        AdaptiveTester(max_items=15),
        {"irt": [IRT2PL(model="1PL"), IRT2PL(a_prior=(1.0, 1.0))],
         "max_items": [3, 15]},
        cv=KFold(3, shuffle=True, random_state=0),
    ).fit(X)
    assert search.best_params_["max_items"] == 15


def test_fit_modes_and_errors(responses):
    X, params = responses
    irt = IRT2PL(model="1PL").fit(X[:200])
    frozen = AdaptiveTester(FrozenEstimator(irt)).fit(X[:200])
    assert frozen.irt_ is not None
    np.testing.assert_array_equal(frozen.irt_.difficulty_, irt.difficulty_)
    without_data = AdaptiveTester(irt).fit()
    np.testing.assert_allclose(without_data.predict(X[:10]), frozen.predict(X[:10]))
    with pytest.raises(ValueError, match="without X"):
        AdaptiveTester().fit()
    with pytest.raises(TypeError, match="IRT2PL"):
        AdaptiveTester(PCA(2)).fit(X[:50])
    with pytest.raises(ValueError, match="without X"):
        AdaptiveTester(IRT2PL()).fit()
    with pytest.raises(ValueError, match="150"):
        frozen.next_item(np.full(10, np.nan))
    with pytest.raises(ValueError, match="columns"):
        frozen.simulate(X[:3, :20])
    with pytest.raises(ValueError, match="binary"):
        frozen.next_item(np.full(150, 0.5))


def test_task_table_and_names(responses):
    X, _ = responses
    names = [f"item{k}" for k in range(150)]
    tester = AdaptiveTester(max_items=5).fit(pd.DataFrame(X[:200], columns=names))
    table = tester.task_table()
    assert table.index.name == "task" and list(table.index) == names
    assert {"discrimination", "difficulty", "information"} <= set(table.columns)
    assert list(tester.tasks_) == names
    with pytest.raises(ValueError, match="names"):
        tester.simulate(pd.DataFrame(X[:3], columns=names[::-1]))


def test_uncalibrated_items_use_training_success_rate():
    X = make_irt_responses(200, 30, random_state=9)
    X[:, 4] = 1.0  # answered by everyone: left out of the calibration
    with pytest.warns(UserWarning, match="left out"):
        tester = AdaptiveTester(max_items=29).fit(X)
    log = tester.simulate(X[:10])
    assert 4 not in set(log["item"])  # no information: chosen last if at all
    _, _, accuracy = tester.estimate(np.full((1, 30), np.nan))
    assert np.isfinite(accuracy).all()


@given(st.permutations(list(range(10))))
@settings(max_examples=15, deadline=None)
def test_simulation_is_row_wise(true_tester, responses, order):
    X, _ = responses
    rows = X[:10]
    expected = true_tester.predict(rows)
    np.testing.assert_allclose(true_tester.predict(rows[order]), expected[order],
                               atol=1e-13)
