"""IRT (1PL to 4PL) on Dask input, the responses kept on the workers (user
guide, "More data than one machine"): the same fit as in memory, per-agent
outputs that stay Dask arrays, and the same parameter errors as in memory."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT
from sklearn_eval.utils import long_to_result_matrix
from tests.irt.dask_helpers import long_table
from tests.irt.simulate import simulate_responses

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.slow

# the 3PL and 4PL under a guessing prior (weakly identified asymptotes); their
# EM is stopped early (the same E-steps in both fits: equality along the path)
MODELS = [
    ("1PL", {}),
    ("2PL", {}),
    ("3PL", {"n_options": 4, "max_iter": 40}),
    ("4PL", {"n_options": 4, "upper_prior": (0.95, 0.5), "max_iter": 40}),
]


def _responses(model, n_agents, n_items, missing, seed):
    """Responses with a floor (3PL, 4PL) and a ceiling (4PL) per item."""
    X, _ = simulate_responses(
        n_agents, n_items, guessing=0.2 if model in ("3PL", "4PL") else 0.0,
        upper=0.95 if model == "4PL" else 1.0, missing=missing, seed=seed)
    return X


def _assert_same_fit(fit, memory_fit, X_dask, X_memory, item_rtol=1e-10):
    """Likelihood, predictions, item parameters and their standard errors to
    1e-10 (measured: within 2e-12, the 3PL/4PL's weakly identified
    asymptotes within 1e-15). The two fits add their agents in other
    groupings, so they agree to rounding, not bit for bit."""
    assert_allclose(fit.log_likelihood_, memory_fit.log_likelihood_, rtol=1e-10)
    for name in ("discrimination_", "difficulty_", "guessing_", "upper_",
                 "discrimination_se_", "difficulty_se_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name),
                        rtol=item_rtol, atol=item_rtol, err_msg=name)
    for name in ("abilities_", "abilities_sd_"):
        value = getattr(fit, name)
        assert isinstance(value, da.Array), name  # stays on the workers
        assert_allclose(value.compute(), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    proba = fit.predict_proba(X_dask)
    assert isinstance(proba, da.Array)
    assert_allclose(proba.compute(), memory_fit.predict_proba(X_memory),
                    rtol=1e-10, atol=1e-12)
    out = fit.transform(X_dask)
    assert isinstance(out, da.Array)
    assert_allclose(out.compute(), memory_fit.transform(X_memory), rtol=1e-10,
                    atol=1e-10)
    assert_allclose(fit.score(X_dask), memory_fit.score(X_memory), rtol=1e-10)
    assert fit.n_iter_ == memory_fit.n_iter_
    assert fit.bic_ == pytest.approx(memory_fit.bic_, rel=1e-10)
    np.testing.assert_array_equal(fit.agents_, memory_fit.agents_)
    np.testing.assert_array_equal(fit.tasks_, memory_fit.tasks_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("model", "params"), MODELS)
@pytest.mark.parametrize(("missing", "rows"), [(0.0, 90), (0.6, 130)])
def test_dask_array_fit_equals_in_memory_fit(dask_client, model, params, missing,
                                             rows):
    X = _responses(model, 400, 20, missing, seed=len(model) + int(10 * missing))
    params = {"model": model, "tol": 1e-9, **params}
    memory_fit = IRT(**params).fit(X)
    X_dask = da.from_array(X, chunks=(rows, X.shape[1]))
    fit = IRT(**params).fit(X_dask)
    _assert_same_fit(fit, memory_fit, X_dask, X)
    table, memory_table = fit.agent_table(), memory_fit.agent_table()
    assert_allclose(table.loc[memory_table.index, "score"], memory_table["score"],
                    rtol=1e-10, atol=1e-10)  # equal scores may swap places


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("model", "params"), MODELS[1:3])
def test_long_table_fit_equals_in_memory_fit_by_label(dask_client, model, params):
    """Shuffled rows, agents spread over partitions: codes are the sorted
    labels, so the fit aligns with the in-memory one label by label."""
    X = _responses(model, 300, 12, 0.5, seed=11)
    table = long_table(X)
    memory = long_to_result_matrix(table, task="item", sparse=True)
    params = {"model": model, "tol": 1e-9, **params}
    memory_fit = IRT(**params).fit(memory)
    fit = IRT(**params).fit(dd.from_pandas(table, npartitions=4, sort=False))
    assert_allclose(fit.log_likelihood_, memory_fit.log_likelihood_, rtol=1e-10)
    for name in ("discrimination_", "difficulty_", "guessing_",
                 "discrimination_se_", "difficulty_se_"):
        assert_allclose(getattr(fit, name), getattr(memory_fit, name), rtol=1e-10,
                        atol=1e-10, err_msg=name)
    assert_allclose(fit.abilities_.compute(), memory_fit.abilities_, rtol=1e-10,
                    atol=1e-10)
    np.testing.assert_array_equal(fit.agents_, memory_fit.agents_)
    np.testing.assert_array_equal(fit.feature_names_in_, memory_fit.tasks_)
    # new agents' long table: probabilities per (agent, item) as in memory
    new = long_table(_responses(model, 50, 12, 0.5, seed=12))
    proba = fit.predict_proba(dd.from_pandas(new, npartitions=2, sort=False))
    expected = memory_fit.predict_proba(
        long_to_result_matrix(new, task="item", sparse=True))
    assert_allclose(proba.compute(), expected, rtol=1e-10, atol=1e-12)


def test_parameters_that_do_not_go_together_fail_as_in_memory(dask_client):
    """Several factors with the 3PL: the estimator's own parameter error, on
    Dask input as in memory (before anything runs on the cluster)."""
    X = make_irt_responses(80, 8, random_state=0)
    params = {"model": "3PL", "n_factors": 2}
    with pytest.raises(ValueError) as in_memory:
        IRT(**params).fit(X)
    with pytest.raises(ValueError) as on_dask:
        IRT(**params).fit(da.from_array(X, chunks=(40, 8)))
    assert str(on_dask.value) == str(in_memory.value)
    assert "n_factors=2 is available for model='2PL'" in str(on_dask.value)


def test_a_model_without_a_distributed_store_says_so():
    from types import SimpleNamespace

    from sklearn_eval.irt._dask_fit import check_dask_model

    with pytest.raises(ValueError, match="IRT with model='5PL' does not read Dask "
                                         "input.*X.compute"):
        check_dask_model(SimpleNamespace(model="5PL", n_factors=1))


def test_a_failed_dask_fit_leaves_the_fitted_state(dask_client):
    X = make_irt_responses(80, 8, random_state=10)
    with pytest.warns(ConvergenceWarning):
        model = IRT(model="3PL", n_options=4, max_iter=5).fit(X)
    before = model.guessing_.copy()
    bad = X.copy()
    bad[3, 3] = 7.0
    with pytest.raises(ValueError, match=r"Chunk 0: .* row 3, column 3"):
        model.fit(da.from_array(bad, chunks=(40, 8)))
    np.testing.assert_array_equal(model.guessing_, before)
