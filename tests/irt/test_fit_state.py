"""A fit either replaces the whole fitted state or leaves it untouched.

Both IRT estimators compute everything into locals with pure functions and
assign the fitted attributes only at the end: a failure anywhere in the
computation (simulated by making each pure step raise) or a rejected input
leaves ``__dict__`` byte-identical, and a successful refit leaves nothing of
the previous fit behind.
"""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.irt import _fit as fit_module
from sklearn_eval.irt import _generality as generality_module
from sklearn_eval.irt import _irt2pl as irt2pl_module
from sklearn_eval.irt import _responses as responses_module

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class Boom(RuntimeError):
    pass


def _raise(*args, **kwargs):
    raise Boom("simulated failure")


def _frame(X, prefix):
    return pd.DataFrame(
        X,
        index=[f"{prefix}-agent{i}" for i in range(X.shape[0])],
        columns=[f"{prefix}-task{j}" for j in range(X.shape[1])],
    )


@pytest.fixture(scope="module")
def first():
    return _frame(make_irt_responses(120, 10, missing_rate=0.1, random_state=0), "a")


@pytest.fixture(scope="module")
def second():
    return make_irt_responses(90, 8, random_state=1)


def _snapshot(estimator):
    return pickle.dumps(estimator.__dict__)


# every pure step of IRT2PL.fit, in the order the fit runs them
IRT_STEPS = [
    (irt2pl_module, "_check_fit_responses"),
    (irt2pl_module, "_fit_model"),
    (fit_module, "_make_storage"),
    (fit_module, "_fit_items"),
    (fit_module, "_e_step"),
    (fit_module, "_item_information_louis"),
    (fit_module, "_standard_errors"),
    (fit_module, "_ability_estimates"),  # the last step, after the items
    (responses_module, "_input_counts"),  # in the validation, counted once
]


@pytest.mark.parametrize("module, name", IRT_STEPS, ids=[n for _, n in IRT_STEPS])
@pytest.mark.parametrize("ability_method", ["map", "eap"])
def test_irt2pl_failure_in_any_step_keeps_the_previous_fit(
    first, second, monkeypatch, module, name, ability_method
):
    model = IRT2PL(ability_method=ability_method).fit(first)
    before = _snapshot(model)
    monkeypatch.setattr(module, name, _raise)
    with pytest.raises(Boom):
        model.fit(second)
    assert _snapshot(model) == before
    monkeypatch.undo()
    assert np.array_equal(model.transform(first), IRT2PL(
        ability_method=ability_method).fit(first).transform(first))


@pytest.mark.parametrize(
    "bad, error",
    [
        (lambda X: X.set_axis(["x", 1, *X.columns[2:]], axis=1), TypeError),
        (lambda X: X.iloc[:, :1], ValueError),  # one item
        (lambda X: X.where(X.index != X.index[3]), ValueError),  # empty row
        (lambda X: X * 2, ValueError),  # not binary
        (lambda X: X.iloc[:, :3].fillna(1.0) * 0 + 1, ValueError),  # constant
    ],
)
def test_irt2pl_rejected_refit_keeps_the_previous_fit(first, bad, error):
    """Issue 14: a refit rejected for its input (here after the item
    parameters would have been computed, for mixed column-name types) used to
    overwrite items, SEs and log-likelihood but keep the old abilities."""
    model = IRT2PL().fit(first)
    before = _snapshot(model)
    with pytest.raises(error):
        model.fit(bad(first))
    assert _snapshot(model) == before


def test_irt2pl_rejected_parameters_keep_the_previous_fit(first):
    model = IRT2PL().fit(first)
    before = _snapshot(model)
    for params in ({"a_prior": (1.0, -2.0)}, {"b_prior": "wide"}, {"max_iter": 0}):
        with pytest.raises(ValueError):
            model.set_params(**params).fit(first)
        model.set_params(a_prior=None, b_prior=None, max_iter=1000)
        assert _snapshot(model) == before


@pytest.mark.parametrize("ability_method", ["map", "eap"])
def test_irt2pl_refit_leaves_nothing_of_the_previous_fit(first, second,
                                                         ability_method):
    refit = IRT2PL(ability_method=ability_method).fit(first).fit(second)
    fresh = IRT2PL(ability_method=ability_method).fit(second)
    assert "feature_names_in_" not in vars(refit)
    assert sorted(vars(refit)) == sorted(vars(fresh))
    assert _snapshot(refit) == _snapshot(fresh)


# ------------------------------------------------------------ GeneralityScorer
GENERALITY_STEPS = [
    (generality_module, "_check_weights"),
    (generality_module, "_task_difficulties"),
    (generality_module, "make_difficulty_bins"),
    (generality_module, "_bin_moments"),
    (generality_module, "_indicator_matrix"),  # the last step, after the bins
    (generality_module, "_column_means"),
    (fit_module, "_fit_items"),  # inside the IRT model that gives difficulties
]


@pytest.mark.parametrize("module, name", GENERALITY_STEPS,
                         ids=[n for _, n in GENERALITY_STEPS])
def test_generality_failure_in_any_step_keeps_the_previous_fit(
    first, second, monkeypatch, module, name
):
    scorer = GeneralityScorer(bins=3, min_tasks_per_bin=2).fit(first)
    before = _snapshot(scorer)
    monkeypatch.setattr(module, name, _raise)
    with pytest.raises(Boom):
        scorer.fit(second)
    assert _snapshot(scorer) == before


@pytest.mark.parametrize(
    "params, bad, error",
    [
        ({}, lambda X: X.set_axis(["x", 1, *X.columns[2:]], axis=1), TypeError),
        ({}, lambda X: X * 2, ValueError),  # outside [0, 1]
        ({"bins": [5.0, 6.0]}, lambda X: X, ValueError),  # no task in the edges
        ({"task_weights": np.zeros(10)}, lambda X: X, ValueError),
        ({"difficulty": np.arange(3.0)}, lambda X: X, ValueError),  # wrong length
    ],
)
def test_generality_rejected_refit_keeps_the_previous_fit(first, params, bad,
                                                          error):
    scorer = GeneralityScorer(difficulty="rate", bins=3, min_tasks_per_bin=2)
    scorer.fit(first)
    before_params = scorer.get_params()
    before = _snapshot(scorer)
    with pytest.raises(error):
        scorer.set_params(**params).fit(bad(first))
    scorer.set_params(**before_params)
    assert _snapshot(scorer) == before


def test_generality_refit_leaves_nothing_of_the_previous_fit(first, second):
    params = {"difficulty": "rate", "bins": 3, "min_tasks_per_bin": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refit = GeneralityScorer(**params).fit(first).fit(second)
        fresh = GeneralityScorer(**params).fit(second)
    assert "feature_names_in_" not in vars(refit)
    assert sorted(vars(refit)) == sorted(vars(fresh))
    assert _snapshot(refit) == _snapshot(fresh)
