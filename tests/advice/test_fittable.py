"""The recommendation can be fitted on the data it was recommended for.

A score table with missing cells got ``NashAverager()`` (which refuses NaN),
an agent without results got ``IRT(model='1PL')`` (which refuses it), and
the agreement and rank sets then disappeared without a word. An estimator
that cannot take the data is passed over with its reason in the
explanation; a method left out of the agreement is named with its reason;
agents without results follow the library's rule (an error, or
``drop_empty=True``).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from sklearn_eval import advise
from sklearn_eval.advice import _run_matrix
from sklearn_eval.game import NashAverager, VotingRanker
from sklearn_eval.irt import IRT

from . import corpus


def _with_gaps(X, seed=0, share=0.05):
    X = np.array(X, dtype=float)
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < share] = np.nan
    X[0, 1] = np.nan  # at least one gap
    return X


def _cyclic_game(seed=0, n=7, gap="pair"):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    A = A - A.T
    if gap == "pair":
        A[0, 1] = A[1, 0] = np.nan
    elif gap == "diagonal":
        np.fill_diagonal(A, np.nan)
    return A


CASES = {
    # name: (data, kwargs, the estimator that cannot take it)
    "continuous, duplicated tasks, gaps": (
        lambda: _with_gaps(np.clip(corpus.duplicated_tasks(0), 1e-3, 1 - 1e-3)),
        {}, "NashAverager"),
    "scores, duplicated tasks, gaps": (
        lambda: _with_gaps(corpus.duplicated_tasks(1) * 30 - 5), {}, "NashAverager"),
    "game, a missing pair": (lambda: _cyclic_game(0), {}, "NashAverager"),
    "game, no diagonal": (lambda: _cyclic_game(1, gap="diagonal"), {},
                          "NashAverager"),
}


def _advise(X, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return advise(X, random_state=0, **kwargs)


@pytest.mark.parametrize("container", ["array", "frame"])
@pytest.mark.parametrize("case", list(CASES))
def test_an_estimator_that_cannot_take_the_data_is_passed_over(case, container):
    make, kwargs, refused = CASES[case]
    X = make()
    if container == "frame":
        X = pd.DataFrame(X)
        if X.shape[0] == X.shape[1]:
            X.columns = X.index
    advice = _advise(X, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clone(advice.recommendation).fit(X)  # it takes the data it was given
    assert not isinstance(advice.recommendation, NashAverager)
    text = advice.explain()
    assert f"Not recommended: {refused}(" in text
    assert "cannot take these data (X has a missing value at row" in text
    assert "nan" not in text.lower()


def test_a_complete_table_with_duplicates_still_gets_nash_averaging():
    advice = _advise(corpus.duplicated_tasks(0))
    assert isinstance(advice.recommendation, NashAverager)
    assert "Not recommended" not in advice.explain()


def test_methods_left_out_of_the_agreement_are_named():
    X = _with_gaps(corpus.items("2PL", 0, n_agents=60, n_items=10))
    advice = _advise(X)
    assert advice.agreement is not None
    assert "Nash averaging" not in advice.agreement.kendall_tau.index
    assert ("Left out of the comparison of rankings: Nash averaging (X has a "
            "missing value at row") in advice.explain()
    assert "nan" not in advice.explain().lower()


def _empty_agent(container):
    X = corpus.items("1PL", 0, n_agents=40, n_items=8)
    X[5] = np.nan
    if container == "frame":
        return pd.DataFrame(X, index=[f"model {i}" for i in range(40)])
    return X


@pytest.mark.parametrize("container", ["array", "frame"])
@pytest.mark.parametrize("kind", ["auto", "binary", "continuous", "scores"])
def test_agents_without_results_are_an_error_naming_them(container, kind):
    X = _empty_agent(container)
    name = "'model 5'" if container == "frame" else "5"
    with pytest.raises(ValueError, match=rf"advise: 1 agent of 40 has no observed "
                                         rf"response \({name}\).*drop_empty=True"):
        advise(X, kind=kind, random_state=0)


@pytest.mark.parametrize("container", ["array", "frame"])
def test_drop_empty_leaves_them_out_with_a_warning(container):
    X = _empty_agent(container)
    with pytest.warns(UserWarning, match="left out 1 agent of 40"):
        advice = advise(X, random_state=0, drop_empty=True)
    assert isinstance(advice.recommendation, IRT)
    kept = X.drop(index="model 5") if container == "frame" else np.delete(X, 5, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clone(advice.recommendation).fit(kept)
    assert advice.agreement is not None
    assert "model 5" not in advice.agreement.movers.index
    assert advice.diagnostics.loc["ranking stability", "verdict"] != "failed"


@pytest.mark.parametrize("value", [1, "yes", None])
def test_drop_empty_must_be_a_bool(value):
    with pytest.raises(ValueError, match="drop_empty must be True or False"):
        advise(corpus.items("1PL", 0, n_agents=30, n_items=5), drop_empty=value)


def test_a_chosen_candidate_that_cannot_fit_all_the_data_is_replaced(monkeypatch):
    """The plausible candidates are fitted on all the data; one that fails is
    excluded with its reason and the choice is made again without it."""
    original = _run_matrix._fit_plausible

    def failing(table, by_name, values, random_state, n_jobs):
        fitted, failed = original(table, by_name, values, random_state, n_jobs)
        fitted.pop("IRT 1PL", None)
        if "1PL" in table.index:
            failed["1PL"] = "the 1PL failed on all the data"
        return fitted, failed

    monkeypatch.setattr(_run_matrix, "_fit_plausible", failing)
    X = corpus.items("1PL", 0, n_agents=80, n_items=8)
    advice = _advise(X)
    assert "1PL" not in advice.candidates.index
    assert advice.recommendation.get_params()["model"] != "1PL"
    assert ("Not recommended: IRT(model='1PL'), which cannot take these data "
            "(the 1PL failed on all the data).") in advice.explain()


class _Refuses(VotingRanker):
    def fit(self, X, y=None):
        raise ValueError("this estimator refuses every table.")


def test_fitting_recommendation_takes_the_first_that_fits():
    X = corpus.items("1PL", 0, n_agents=20, n_items=5)
    chosen, refused = _run_matrix.fitting_recommendation(
        [_Refuses(method="copeland"), VotingRanker(method="borda")], X)
    assert isinstance(chosen, VotingRanker) and chosen.method == "borda"
    assert refused == {"_Refuses(method='copeland')":
                       "this estimator refuses every table."}
    chosen, refused = _run_matrix.fitting_recommendation([_Refuses()], X)
    assert chosen is None and len(refused) == 1


@pytest.mark.parametrize("noise", [0.0, 0.01, 0.05])
def test_a_nearly_antisymmetric_game_gets_nash_on_its_antisymmetric_part(noise):
    """Estimated payoffs (each ordered pair measured apart, as RRPS) are only
    nearly antisymmetric: the advice recommends Nash averaging on
    ``(X - X.T) / 2`` and says so, rather than passing it over."""
    A = _cyclic_game(2, n=8, gap=None)
    A = A + noise * np.random.default_rng(3).normal(size=A.shape)
    advice = _advise(A, kind="game")
    assert isinstance(advice.recommendation, NashAverager)
    text = advice.explain()
    assert "Not recommended" not in text
    assert ("fit it on (X - X.T) / 2" in text) == (noise > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clone(advice.recommendation).fit(0.5 * (A - A.T))
