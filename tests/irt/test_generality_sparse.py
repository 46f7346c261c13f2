"""GeneralityScorer on sparse results (user guide, IRT: "Sparse responses and long
tables"): every output equals the one on the dense matrix with NaN where nothing is
stored, whichever difficulty source (IRT, rates, given values), for binary and
continuous results."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from scipy.special import expit

from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.utils import ResultMatrix


def _results(seed, n_agents, n_tasks, density, binary):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    b = rng.normal(size=n_tasks)
    p = expit(1.3 * (theta[:, None] - b))
    values = (rng.random(p.shape) < p).astype(float) if binary else p.round(3)
    observed = rng.random(p.shape) < density
    # every agent and every task keeps a result (an unobserved task has no rate)
    observed[np.arange(n_agents), rng.integers(0, n_tasks, n_agents)] = True
    observed[rng.integers(0, n_agents, n_tasks), np.arange(n_tasks)] = True
    rows, columns = np.nonzero(observed)
    X = sparse.csr_array((values[rows, columns], (rows, columns)), shape=p.shape)
    return X, np.where(observed, values, np.nan)


def _fit_both(scorer, X, dense):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scorer.fit(X), GeneralityScorer(**scorer.get_params()).fit(dense)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_agents=st.integers(8, 50),
       n_tasks=st.integers(6, 30), density=st.floats(0.3, 1.0),
       source=st.sampled_from(["rate", "given", "irt"]),
       binary=st.booleans(), dispersion=st.sampled_from(["var", "std"]),
       empty_bins=st.sampled_from(["interpolate", "nan"]))
def test_sparse_results_give_the_dense_indicators(seed, n_agents, n_tasks, density,
                                                  source, binary, dispersion,
                                                  empty_bins):
    X, dense = _results(seed, n_agents, n_tasks, density, binary or source == "irt")
    if source == "irt" and np.sum(np.nanstd(dense, axis=0) > 0) < 2:
        return
    difficulty = (np.linspace(-2, 2, n_tasks) if source == "given" else source)
    scorer = GeneralityScorer(difficulty=difficulty, bins=3, min_tasks_per_bin=1,
                              dispersion=dispersion, empty_bins=empty_bins)
    fitted, reference = _fit_both(scorer, X, dense)
    assert_allclose(fitted.difficulty_, reference.difficulty_, rtol=1e-9,
                    atol=1e-10, equal_nan=True)
    assert_array_equal(fitted.task_bin_, reference.task_bin_)
    assert_allclose(fitted.transform(X), reference.transform(dense), rtol=1e-9,
                    atol=1e-12, equal_nan=True)
    curves, variance = fitted.response_curves(X, return_variance=True)
    expected_curves, expected_variance = reference.response_curves(
        dense, return_variance=True)
    assert_allclose(curves, expected_curves, rtol=1e-12, equal_nan=True)
    assert_allclose(variance, expected_variance, rtol=1e-12, atol=1e-15,
                    equal_nan=True)
    items = fitted.item_curves(X, abilities=np.linspace(-1, 1, n_agents))
    expected = reference.item_curves(dense, abilities=np.linspace(-1, 1, n_agents))
    assert_allclose(items.success_rate, expected.success_rate, equal_nan=True)
    assert_array_equal(items.counts, expected.counts)
    assert_allclose(fitted.task_table()["success_rate"],
                    reference.task_table()["success_rate"], equal_nan=True)


def test_threshold_binarises_the_stored_scores():
    rng = np.random.default_rng(1)
    scores = rng.uniform(0, 200, (40, 12))
    observed = rng.random(scores.shape) < 0.6
    observed[:, 0] = True
    rows, columns = np.nonzero(observed)
    X = sparse.coo_array((scores[rows, columns], (rows, columns)), shape=scores.shape)
    dense = np.where(observed, scores, np.nan)
    scorer = GeneralityScorer(difficulty="rate", threshold=100.0, bins=3)
    fitted, reference = _fit_both(scorer, X, dense)
    assert_allclose(fitted.transform(X), reference.transform(dense),
                    equal_nan=True, rtol=1e-12)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        GeneralityScorer(difficulty="rate").fit(X)


def test_irt_difficulty_from_sparse_labelled_results():
    X, dense = _results(2, 120, 15, 0.5, binary=True)
    agents = np.array([f"agent{i}" for i in range(120)])
    tasks = np.array([f"task{j}" for j in range(15)])
    matrix = ResultMatrix(X, agents, tasks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = GeneralityScorer(bins=3).fit(matrix)
        model = IRT2PL().fit(dense)
    assert_allclose(scorer.difficulty_, model.difficulty_, rtol=1e-10)
    assert_array_equal(scorer.agents_, agents)
    assert_array_equal(scorer.tasks_, tasks)
    assert_array_equal(scorer.difficulty_model_.tasks_, tasks)
    assert_array_equal(scorer.agent_table().index.sort_values(), np.sort(agents))
    items = scorer.item_curves(matrix)  # abilities from the sparse IRT model
    assert_allclose(items.abilities, model.transform(dense)[:, 0], rtol=1e-9,
                    atol=1e-12)
    bad = X.copy()
    bad.data[0] = 0.5
    with pytest.raises(ValueError, match="binary responses.*0.5 at row 0"):
        GeneralityScorer().fit(bad)
