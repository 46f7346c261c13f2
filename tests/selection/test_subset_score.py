"""SubsetScoreEstimator: full-benchmark accuracy from a few items.

Fast tests on small simulated populations; the ARC acceptance checks (320
models x 735 items, test-only data) are in ``test_subset_score_arc.py`` and
marked slow.
"""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.decomposition import PCA
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeRegressor

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL
from sklearn_eval.selection import (
    SubsetScoreEstimator,
    read_items_csv,
    write_items_csv,
)
from sklearn_eval.selection._subset_models import ItemBank, conformal_halfwidth
from sklearn_eval.selection._subset_select import (
    greedy_ridge_forward,
    select_anchor,
    select_information,
    select_stratified,
)
from sklearn_eval.utils.estimator_checks import check_estimator_contract


def family_population(n_models=160, n_items=120, seed=0):
    """Fine-tunes of a few base models: strongly correlated items, like ARC."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 1, (6, 3))
    theta = centres[rng.integers(6, size=n_models)] + rng.normal(0, 0.3,
                                                                  (n_models, 3))
    loading = np.abs(rng.normal(0, 1, (n_items, 3)))
    difficulty = rng.normal(-0.3, 1.2, n_items)
    P = expit(1.5 * theta @ loading.T / np.sqrt(3) - difficulty)
    return (rng.random(P.shape) < P).astype(float)


@pytest.fixture(scope="module")
def population():
    return make_irt_responses(240, 80, random_state=3)


@pytest.fixture(scope="module")
def fitted(population):
    return SubsetScoreEstimator(n_items=20, random_state=0).fit(population[:200])


# --------------------------------------------------------------------------
# contract and protocol
# --------------------------------------------------------------------------
@pytest.mark.parametrize("params", [
    {"selection": "auto", "method": "auto"},
    {"selection": "anchor", "method": "gp-irt"},
    {"selection": "predictive", "method": "regression"},
])
def test_contract(params):
    X = make_irt_responses(90, 30, random_state=1)
    check_estimator_contract(
        SubsetScoreEstimator(n_items=8, random_state=0, **params), X,
        bad_inputs=[(X[:0], None), (np.full_like(X, 0.5), None)],
    )


def test_fitted_attributes_and_task_table(fitted, population):
    est = fitted
    assert est.selected_items_.shape == (20,)
    assert np.all(np.diff(est.selected_items_) > 0)
    assert sorted(est.selection_order_) == list(est.selected_items_)
    np.testing.assert_allclose(est.item_weights_.sum(), 1.0)
    assert est.get_support().sum() == 20
    assert np.array_equal(np.flatnonzero(est.get_support()), est.selected_items_)
    assert est.transform(population[:5]).shape == (5, 20)
    assert len(est.cv_results_["mae"]) == len(est.cv_results_["selection"]) == 8
    assert est.cv_residuals_.shape == (200,)
    assert est.cv_mae_ == pytest.approx(np.mean(np.abs(est.cv_residuals_)))
    table = est.task_table()
    assert table.index.name == "task"
    assert list(table.index) == list(est.tasks_)  # in the order of the items
    assert table["selected"].sum() == 20
    picked = table[table["selected"]].sort_values("order")
    assert list(picked.index) == list(est.selection_order_)
    assert picked["order"].tolist() == list(range(1, 21))
    np.testing.assert_allclose(table.loc[est.selected_items_, "weight"],
                               est.item_weights_)
    np.testing.assert_allclose(table.sort_index()["success_rate"],
                               population[:200].mean(axis=0))
    assert np.array_equal(est.tasks_, np.arange(80))


def test_named_columns_any_order_and_chosen_only(population):
    columns = [f"q{k:02d}" for k in range(population.shape[1])]
    frame = pd.DataFrame(population, columns=columns)
    est = SubsetScoreEstimator(n_items=15, random_state=0).fit(frame.iloc[:200])
    assert list(est.tasks_) == columns
    expected = est.predict(frame.iloc[200:])
    chosen = list(est.feature_names_in_[est.selected_items_])
    shuffled = frame.iloc[200:][chosen[::-1]]
    np.testing.assert_allclose(est.predict(shuffled), expected)
    np.testing.assert_allclose(est.predict(population[200:, est.selected_items_]),
                               expected)
    with pytest.raises(ValueError, match="lacks"):
        est.predict(frame.iloc[200:][chosen[:-1]])


def test_prediction_beats_random_mean_on_correlated_items():
    X = family_population()
    y = X.mean(axis=1)
    pred = np.empty_like(y)
    for train, test in KFold(4, shuffle=True, random_state=0).split(X):
        est = SubsetScoreEstimator(n_items=20, random_state=0).fit(X[train])
        pred[test] = est.predict(X[test])
    rng = np.random.default_rng(0)
    random_mae = np.mean([
        np.mean(np.abs(X[:, rng.choice(120, 20, replace=False)].mean(1) - y))
        for _ in range(30)
    ])
    mae = np.mean(np.abs(pred - y))
    assert mae < 0.75 * random_mae
    assert np.corrcoef(pred, y)[0, 1] > 0.9


def test_score_is_minus_mae(fitted, population):
    test = population[200:]
    mae = np.mean(np.abs(fitted.predict(test) - test.mean(axis=1)))
    assert fitted.score(test) == pytest.approx(-mae)
    y = test.mean(axis=1)
    assert fitted.score(test[:, fitted.selected_items_], y) == pytest.approx(-mae)
    with pytest.raises(ValueError, match="all items"):
        fitted.score(test[:, fitted.selected_items_])


def test_grid_search_prefers_more_items():
    X = family_population(n_models=150, n_items=100, seed=2)
    search = GridSearchCV(
        SubsetScoreEstimator(method="irt", random_state=0),
        {"n_items": [3, 30], "selection": ["random", "stratified"]},
        cv=KFold(3, shuffle=True, random_state=0),
    ).fit(X)
    assert search.best_params_["n_items"] == 30
    scores = search.cv_results_["mean_test_score"]
    assert np.all(scores < 0)


def test_pipeline_with_selected_columns():
    X = make_irt_responses(200, 60, random_state=5)
    y = X.mean(axis=1)
    pipe = Pipeline([
        ("subset", SubsetScoreEstimator(n_items=15, selection="information",
                                        method="mean", random_state=0)),
        ("ridge", Ridge(alpha=1.0)),
    ]).fit(X[:150], y[:150])
    assert pipe.named_steps["subset"].transform(X[:2]).shape == (2, 15)
    assert np.mean(np.abs(pipe.predict(X[150:]) - y[150:])) < 0.08


# --------------------------------------------------------------------------
# intervals
# --------------------------------------------------------------------------
def test_intervals_cover_held_out_models():
    X = make_irt_responses(400, 100, random_state=7)
    y = X.mean(axis=1)
    est = SubsetScoreEstimator(n_items=25, random_state=0).fit(X[:300])
    pred = est.predict(X[300:])
    low, high = est.predict_interval(X[300:])
    assert np.all((low <= pred) & (pred <= high))
    assert np.mean((low <= y[300:]) & (y[300:] <= high)) >= 0.85
    low90, high90 = est.predict_interval(X[300:], level=0.5)
    assert np.all(high90 - low90 <= high - low + 1e-12)
    with pytest.raises(ValueError, match="level"):
        est.predict_interval(X[300:], level=1.5)


def test_posterior_interval_method_for_well_specified_irt():
    X = make_irt_responses(850, 80, random_state=11)
    est = SubsetScoreEstimator(n_items=20, selection="stratified", method="irt",
                               irt=IRT2PL(), random_state=0).fit(X[:250])
    assert est.interval_method_ == "posterior"
    low, high = est.predict_interval(X[250:])
    truth = X[250:].mean(axis=1)
    # 600 held-out models: 95% nominal, measured 0.95 on 2,000
    assert np.mean((low <= truth) & (truth <= high)) >= 0.92


@given(st.lists(st.floats(-1, 1), min_size=1, max_size=40),
       st.floats(0.05, 0.99))
@settings(max_examples=60, deadline=None)
def test_conformal_halfwidth_is_an_order_statistic(residuals, level):
    half = conformal_halfwidth(residuals, level)
    absolute = np.sort(np.abs(residuals))
    assert half in absolute
    covered = np.mean(absolute <= half)
    assert covered >= min(level, 1.0) or half == absolute[-1]


# --------------------------------------------------------------------------
# selection strategies
# --------------------------------------------------------------------------
def brute_force_greedy(Z, y, n_select, alpha):
    """Greedy GCV by refitting ridge for every candidate (reference)."""
    m = Z.shape[0]
    chosen = []
    for _ in range(n_select):
        best, best_gcv = None, np.inf
        for j in range(Z.shape[1]):
            if j in chosen:
                continue
            D = Z[:, chosen + [j]]
            H = D @ np.linalg.solve(D.T @ D + alpha * np.eye(D.shape[1]), D.T)
            H += 1.0 / m
            resid = (y - y.mean()) - (H - 1.0 / m) @ (y - y.mean())
            gcv = resid @ resid / (1 - np.trace(H) / m) ** 2
            if gcv < best_gcv - 1e-12:
                best, best_gcv = j, gcv
        chosen.append(best)
    return chosen


@given(st.integers(0, 10_000), st.integers(6, 25), st.integers(2, 9),
       st.floats(0.05, 20.0))
@settings(max_examples=40, deadline=None)
def test_greedy_matches_brute_force_ridge_gcv(seed, n_rows, n_cols, alpha):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n_rows, n_cols))
    Z -= Z.mean(axis=0)
    y = Z @ rng.normal(size=n_cols) + rng.normal(size=n_rows)
    n_select = min(3, n_cols)
    fast = greedy_ridge_forward(Z, y, n_select, alpha).tolist()
    assert fast == brute_force_greedy(Z, y, n_select, alpha)


def test_greedy_respects_candidates_and_runs_out():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(30, 6))
    y = Z[:, 0] + 0.1 * rng.normal(size=30)
    picks = greedy_ridge_forward(Z - Z.mean(0), y, 5, 1.0, np.array([1, 3]))
    assert sorted(picks.tolist()) == [1, 3]


@given(st.integers(0, 1000), st.integers(2, 60), st.integers(1, 30))
@settings(max_examples=60, deadline=None)
def test_stratified_one_item_per_stratum(seed, n_items, n_select):
    n_select = min(n_select, n_items)
    rng = np.random.RandomState(seed)
    difficulty = rng.normal(size=n_items)
    chosen, weights = select_stratified(n_select, difficulty, rng)
    assert len(set(chosen.tolist())) == n_select
    np.testing.assert_allclose(weights.sum(), 1.0)
    rank = np.argsort(np.argsort(difficulty, kind="stable"), kind="stable")
    strata = np.array_split(np.arange(n_items), n_select)
    for item, stratum, weight in zip(chosen, strata, weights, strict=True):
        assert rank[item] in stratum
        assert weight == pytest.approx(stratum.size / n_items)


def test_anchor_handles_duplicate_items_and_weights_by_cluster_size():
    rng = np.random.RandomState(0)
    embedding = np.repeat(rng.normal(size=(4, 3)), [5, 1, 3, 2], axis=0)
    chosen, weights = select_anchor(6, embedding, rng)  # only 4 distinct
    assert chosen.size == 4
    np.testing.assert_allclose(np.sort(weights), np.sort([5, 1, 3, 2]) / 11)
    embedding = rng.normal(size=(50, 2))
    chosen, weights = select_anchor(7, embedding, rng)
    assert chosen.size == 7 and len(set(chosen.tolist())) == 7
    np.testing.assert_allclose(weights.sum(), 1.0)


def test_information_selection_is_column_equivariant(population):
    est = SubsetScoreEstimator(n_items=10, selection="information",
                               method="mean").fit(population)
    permutation = np.random.default_rng(0).permutation(population.shape[1])
    other = SubsetScoreEstimator(n_items=10, selection="information",
                                 method="mean").fit(population[:, permutation])
    assert sorted(permutation[other.selected_items_]) == list(est.selected_items_)
    info = select_information(3, np.array([0.1, 0.5, 0.5, 0.2]))[0]
    assert info.tolist() == [1, 2, 3]


@pytest.mark.parametrize("selection", ["information", "predictive"])
def test_selection_invariant_to_model_order(population, selection):
    permutation = np.random.default_rng(1).permutation(population.shape[0])
    kwargs = {"n_items": 12, "selection": selection, "method": "mean"}
    first = SubsetScoreEstimator(**kwargs).fit(population)
    second = SubsetScoreEstimator(**kwargs).fit(population[permutation])
    assert np.array_equal(first.selected_items_, second.selected_items_)


@pytest.mark.parametrize("selection", ["random", "stratified", "anchor",
                                       "information", "predictive"])
@pytest.mark.parametrize("method", ["mean", "irt", "gp-irt", "regression"])
def test_every_combination_predicts_sensibly(population, selection, method):
    est = SubsetScoreEstimator(n_items=25, selection=selection, method=method,
                               irt=FrozenEstimator(IRT2PL(model="1PL").fit(
                                   population[:200])), random_state=0)
    est.fit(population[:200])
    assert (est.selection_, est.method_) == (selection, method)
    pred = est.predict(population[200:])
    assert np.all((pred >= 0) & (pred <= 1))
    truth = population[200:].mean(axis=1)
    limit = 0.2 if (selection, method) in {("information", "mean"),
                                              ("predictive", "mean")} else 0.08
    assert np.mean(np.abs(pred - truth)) < limit


# --------------------------------------------------------------------------
# the item-bank computations
# --------------------------------------------------------------------------
def test_irt_estimate_is_exact_with_every_item_and_prior_without_any():
    rng = np.random.default_rng(0)
    a, b = rng.lognormal(0, 0.3, 12), rng.normal(size=12)
    nodes = np.linspace(-6, 6, 121)
    weights = np.exp(-0.5 * nodes**2)
    bank = ItemBank(a, b, np.full(12, 0.5), nodes, weights / weights.sum())
    X = (rng.random((5, 12)) < 0.6).astype(float)
    everything = bank.subset(np.arange(12)).compute(X, np.full(12, 1 / 12))
    np.testing.assert_allclose(everything["irt"], X.mean(axis=1))
    np.testing.assert_allclose(everything["irt_var"], 0.0, atol=1e-15)
    nothing = bank.subset(np.arange(3)).compute(np.full((2, 3), np.nan),
                                                np.full(3, 1 / 3))
    prior = weights / weights.sum()
    expected = prior @ expit(a * (nodes[:, None] - b)) / 12
    np.testing.assert_allclose(nothing["irt"], expected.sum())
    np.testing.assert_allclose(nothing["ability"], 0.0, atol=1e-12)


# --------------------------------------------------------------------------
# missing data, degenerate input, errors
# --------------------------------------------------------------------------
def test_missing_responses_in_fit_and_predict():
    X = make_irt_responses(260, 70, missing_rate=0.2, random_state=4)
    est = SubsetScoreEstimator(n_items=15, random_state=0).fit(X[:200])
    pred = est.predict(X[200:])
    assert np.all(np.isfinite(pred))
    assert np.mean(np.abs(pred - np.nanmean(X[200:], axis=1))) < 0.1
    blank = np.full((1, 70), np.nan)
    assert np.isfinite(est.predict(blank)).all()
    mean_only = SubsetScoreEstimator(n_items=15, method="mean",
                                     random_state=0).fit(X[:200])
    with pytest.warns(UserWarning, match="no observed response"):
        fallback = mean_only.predict(blank)
    assert fallback[0] == pytest.approx(np.nanmean(X[:200], axis=1).mean())


def test_tiny_population_warns_but_works():
    X = make_irt_responses(3, 12, random_state=1)
    with pytest.warns(UserWarning) as caught:
        est = SubsetScoreEstimator(n_items=4, random_state=0).fit(X)
    messages = [str(w.message) for w in caught]
    assert any("Only 3 models" in m for m in messages)
    assert any("left out of estimation" in m for m in messages)  # the IRT's own
    low, high = est.predict_interval(X)
    assert np.all(np.isfinite(est.predict(X))) and np.all(low <= high)


def test_y_overrides_row_means():
    X = make_irt_responses(150, 40, random_state=6)
    y = np.clip(X.mean(axis=1) + 0.1, 0, 1)
    est = SubsetScoreEstimator(n_items=10, method="regression",
                               random_state=0).fit(X, y)
    assert np.mean(est.predict(X)) > np.mean(X.mean(axis=1)) + 0.05
    with pytest.raises(ValueError, match="entries"):
        SubsetScoreEstimator().fit(X, y[:-1])


def test_more_items_than_benchmark_warns_and_is_exact():
    X = make_irt_responses(60, 8, random_state=2)
    with pytest.warns(UserWarning, match="all items"):
        est = SubsetScoreEstimator(n_items=20, random_state=0).fit(X)
    np.testing.assert_allclose(est.predict(X), X.mean(axis=1), atol=1e-12)


@pytest.mark.parametrize("bad, message", [
    (np.array([[1.0, np.nan, 0.0], [0.0, np.nan, 1.0], [1.0, np.nan, 1.0]]),
     "no observed response"),
    (np.array([[1.0, 0.0, 1.0], [np.nan, np.nan, np.nan], [0.0, 1.0, 1.0]]),
     "no observed response"),
    (np.array([[1.0, 0.0, 1.0]]), "at least 2 models"),
    (np.array([[1.0], [0.0]]), "at least 2 items"),
    (np.array([[1.0, 0.5], [0.0, 1.0]]), "binary"),
])
def test_invalid_populations(bad, message):
    with pytest.raises(ValueError, match=message):
        SubsetScoreEstimator(n_items=1).fit(bad)


def test_wrong_width_and_frozen_calibration(population):
    irt = IRT2PL(model="1PL").fit(population[:200])
    est = SubsetScoreEstimator(n_items=10, irt=FrozenEstimator(irt),
                               random_state=0).fit(population[:200])
    np.testing.assert_array_equal(est.irt_.difficulty_, irt.difficulty_)
    with pytest.raises(ValueError, match="columns"):
        est.predict(population[:3, :15])
    with pytest.raises(TypeError, match="IRT2PL"):
        SubsetScoreEstimator(n_items=5, irt=PCA(2)).fit(population)
    with pytest.raises(ValueError, match="calibrated on"):
        SubsetScoreEstimator(n_items=10, irt=FrozenEstimator(irt)).fit(
            population[:, :50])


# --------------------------------------------------------------------------
# from_items and the CSV round trip
# --------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["mean", "irt", "gp-irt", "regression"])
def test_csv_round_trip_predicts_identically(population, method, tmp_path):
    frame = pd.DataFrame(population, columns=[f"item {k}" for k in range(80)])
    est = SubsetScoreEstimator(n_items=12, selection="predictive",
                               method=method, random_state=0)
    est.fit(frame.iloc[:200])
    path = tmp_path / "items.csv"
    write_items_csv(est, path)
    again = read_items_csv(path)
    test = frame.iloc[200:]
    np.testing.assert_allclose(again.predict(test), est.predict(test), atol=1e-12)
    chosen_only = test[list(again.feature_names_in_[again.selected_items_])]
    np.testing.assert_allclose(again.predict(chosen_only), est.predict(test),
                               atol=1e-12)
    for a, b in zip(again.predict_interval(test), est.predict_interval(test),
                    strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    assert again.selection_order_.tolist() == est.selection_order_.tolist()
    text = path.read_text()
    assert text.startswith("# format=sklearn-eval subset-score v2")
    rows = pd.read_csv(path, comment="#")
    assert rows["selected"].iloc[:12].tolist() == [1] * 12


def test_csv_rejects_nonlinear_regressor_and_foreign_files(population):
    est = SubsetScoreEstimator(n_items=8, method="regression",
                               regressor=DecisionTreeRegressor(max_depth=2),
                               random_state=0).fit(population[:200])
    with pytest.raises(ValueError, match="linear regressor"):
        write_items_csv(est, io.StringIO())
    with pytest.raises(ValueError, match="Not a subset-score"):
        read_items_csv(io.StringIO("task,weight\na,1\n"))


def test_linear_regressor_is_accepted(population):
    est = SubsetScoreEstimator(n_items=8, method="regression",
                               regressor=LinearRegression(), random_state=0)
    est.fit(population[:200])
    buffer = io.StringIO()
    write_items_csv(est, buffer)
    buffer.seek(0)
    np.testing.assert_allclose(read_items_csv(buffer).predict(population[200:]),
                               est.predict(population[200:]), atol=1e-12)


def test_from_items_mean_and_irt():
    est = SubsetScoreEstimator.from_items(["b", "d"], [1, 3],
                                          feature_names=["a", "b", "c", "d"])
    assert est.method_ == "mean"
    frame = pd.DataFrame([[0, 1, 0, 0], [1, 0, 1, 1]], columns=["a", "b", "c", "d"])
    np.testing.assert_allclose(est.predict(frame), [0.25, 0.75])
    with pytest.raises(ValueError, match="residuals"):
        est.predict_interval(frame)
    with_residuals = SubsetScoreEstimator.from_items(
        [1, 3], n_features=4, residuals=[0.1, -0.2, 0.05])
    low, high = with_residuals.predict_interval([[1, 0]], level=0.5)
    np.testing.assert_allclose(high - low, 0.2)
    rng = np.random.default_rng(0)
    a, b = rng.lognormal(0, 0.2, 30), rng.normal(size=30)
    irt = SubsetScoreEstimator.from_items(np.arange(0, 30, 3), discrimination=a,
                                          difficulty=b)
    assert irt.method_ == "irt" and irt.interval_method_ == "posterior"
    assert np.allclose(irt.irt_.difficulty_, b)
    responses = np.ones((1, 10))
    assert irt.predict(responses)[0] > 0.6
    with pytest.raises(ValueError, match="duplicates"):
        SubsetScoreEstimator.from_items([1, 1], n_features=3)
    with pytest.raises(ValueError, match="consistently"):
        SubsetScoreEstimator.from_items([1], n_features=3, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="in \\[0, 3\\)"):
        SubsetScoreEstimator.from_items([5], n_features=3)


def test_fit_is_deterministic_and_warning_free_on_clean_data(population):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = SubsetScoreEstimator(n_items=10, random_state=5).fit(population)
    second = SubsetScoreEstimator(n_items=10, random_state=5).fit(population)
    assert np.array_equal(first.selected_items_, second.selected_items_)
    np.testing.assert_array_equal(first.cv_residuals_, second.cv_residuals_)


@given(st.permutations(list(range(12))))
@settings(max_examples=20, deadline=None)
def test_predictions_are_row_wise(fitted, population, order):
    rows = population[200:212]
    expected = fitted.predict(rows)
    np.testing.assert_allclose(fitted.predict(rows[order]), expected[order],
                               rtol=0, atol=1e-13)
    low, high = fitted.predict_interval(rows[order])
    np.testing.assert_allclose(low, fitted.predict_interval(rows)[0][order],
                               atol=1e-13)


def test_former_parameter_and_attribute_names_warn(population):
    """``estimator=`` (a string) is now ``method=``; ``estimator_`` -> ``method_``."""
    new = SubsetScoreEstimator(n_items=10, selection="information", method="mean")
    new.fit(population[:100])
    old = SubsetScoreEstimator(n_items=10, selection="information", estimator="mean")
    with pytest.warns(FutureWarning, match="method"):
        old.fit(population[:100])
    with pytest.warns(FutureWarning, match="method_"):
        assert old.estimator_ == new.method_ == "mean"
    np.testing.assert_array_equal(old.predict(population[100:]),
                                  new.predict(population[100:]))
