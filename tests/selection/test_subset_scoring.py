"""Scoring a task selector: on its own, inside a Pipeline, inside GridSearchCV."""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from sklearn_eval.selection import InfoGainSelector, choose_n_tasks, make_subset_scorer


def _agents(seed=0, n_agents=40, n_tasks=12):
    rng = np.random.default_rng(seed)
    noise = rng.normal(scale=0.3, size=(n_agents, n_tasks))
    return rng.normal(size=(n_agents, 1)) + noise


@pytest.mark.parametrize("metric", ["kendall_tau", "spearman_rho",
                                    "neg_mean_absolute_error"])
def test_pipeline_is_scored_as_its_selector_on_transformed_data(metric):
    X = _agents()
    pipe = make_pipeline(MinMaxScaler(), InfoGainSelector(n_tasks=3, input="agents"))
    pipe.fit(X[:30])
    scorer = make_subset_scorer(metric)
    selector = pipe[-1]
    expected = scorer(selector, pipe[:-1].transform(X[30:]))
    assert scorer(pipe, X[30:]) == expected


def test_selector_in_the_middle_of_a_pipeline_is_found():
    X = _agents(1)
    pipe = make_pipeline(
        StandardScaler(), InfoGainSelector(n_tasks=4, input="agents"), MinMaxScaler()
    ).fit(X)
    assert make_subset_scorer()(pipe, X) == make_subset_scorer()(
        pipe[1], pipe[:1].transform(X)
    )


def test_pipeline_without_a_selector_is_named():
    pipe = make_pipeline(MinMaxScaler()).fit(_agents())
    with pytest.raises(TypeError, match="minmaxscaler"):
        make_subset_scorer()(pipe, _agents())


def test_grid_search_on_a_pipeline_gives_real_scores():
    X = _agents(2)
    pipe = make_pipeline(MinMaxScaler(), InfoGainSelector(n_tasks=3, input="agents"))
    grid = {"infogainselector__pair_spread": ["sum_std", "pooled"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a failed score would warn
        search = GridSearchCV(pipe, grid, scoring=make_subset_scorer(),
                              cv=KFold(4)).fit(X)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_grid_search_without_scoring_uses_the_selector_score():
    X = _agents(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search = GridSearchCV(InfoGainSelector(input="agents"),
                              {"n_tasks": [2, 6]}, cv=KFold(4)).fit(X)
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all() and (scores > 0.5).all()
    fitted = InfoGainSelector(n_tasks=6, input="agents").fit(X)
    assert fitted.score(X) == make_subset_scorer("kendall_tau")(fitted, X)


def test_choose_n_tasks_raises_instead_of_scoring_nan():
    X = _agents(4, n_agents=6)
    # two agents per held-out fold are too few to rank: an error, not NaN
    with pytest.raises(ValueError):
        choose_n_tasks(InfoGainSelector(input="agents"), X, sizes=[1, 2],
                       cv=KFold(6))
