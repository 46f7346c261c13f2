"""Dask match tables are checked as strictly as in-memory ones.

The batch fit of a Dask DataFrame runs on counts summed on the workers, so a
weight check after the sums missed what the sums hide: a NaN weight was
skipped, a negative one cancelled a positive one. ``sample_weight`` given as
a column name always failed, and every entry point that reads matches in
memory (MultiElo, partial_fit, predictions) failed inside Dask on Dask input.
"""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_eval.pairwise import EloRanker, MultiElo, aggregate_matches

dd = pytest.importorskip("dask.dataframe")

VOTES = pd.DataFrame({
    "a": ["x", "x", "y", "x", "z", "y", "z", "y"],
    "b": ["y", "y", "z", "y", "x", "x", "y", "z"],
    "win": [1.0, 1.0, 0.0, 0.0, 1.0, 0.5, 0.0, 1.0],
    "w": [1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 3.0, 0.5],
})


def _frame(votes=VOTES):
    return dd.from_pandas(votes, npartitions=2, sort=False)


@pytest.mark.parametrize("y_as", ["column", "series"])
@pytest.mark.parametrize("weight_as", ["column", "series"])
def test_outcome_and_weight_as_columns_or_series(dask_client, y_as, weight_as):
    memory = EloRanker(method="batch", alpha=0.1).fit(
        VOTES[["a", "b"]], VOTES["win"], sample_weight=VOTES["w"])
    frame = _frame()
    keep = ["a", "b"] + (["win"] if y_as == "column" else []) + (
        ["w"] if weight_as == "column" else [])
    y = "win" if y_as == "column" else frame["win"]
    weight = "w" if weight_as == "column" else frame["w"]
    fit = EloRanker(method="batch", alpha=0.1).fit(frame[keep], y,
                                                   sample_weight=weight)
    assert_array_equal(fit.players_, memory.players_)
    assert_allclose(fit.ratings_, memory.ratings_, rtol=1e-10)


@pytest.mark.parametrize("bad, shown", [
    ({0: -1.0, 1: 1.0}, r"non-negative; got -1\.0 at index label 0"),
    ({3: np.nan}, r"non-finite value \(nan\) at index label 3"),
    ({5: np.inf}, r"non-finite value \(inf\) at index label 5"),
    ({6: -np.inf}, r"non-finite value \(-inf\) at index label 6"),
])
@pytest.mark.parametrize("weight_as", ["column", "series"])
def test_a_bad_weight_is_named_before_the_sums_hide_it(dask_client, bad, shown,
                                                       weight_as):
    votes = VOTES.copy()
    for row, value in bad.items():
        votes.loc[row, "w"] = value
    frame = _frame(votes)
    with pytest.raises(ValueError, match="sample_weight"):  # as in memory
        EloRanker(method="batch").fit(votes[["a", "b"]], votes["win"],
                                      sample_weight=votes["w"])
    fitted = EloRanker(method="batch", alpha=0.1).fit(VOTES[["a", "b"]],
                                                      VOTES["win"])
    before = fitted.ratings_.copy()
    X = frame if weight_as == "column" else frame[["a", "b", "win"]]
    weight = "w" if weight_as == "column" else frame["w"]
    with pytest.raises(ValueError, match=shown):
        fitted.fit(X, "win", sample_weight=weight)
    with pytest.raises(ValueError, match=shown):
        aggregate_matches(X, "win", weight)
    assert_array_equal(fitted.ratings_, before)


def test_a_dask_array_is_refused_clearly(dask_client):
    array = _frame()[["a", "b"]].to_dask_array(lengths=True)
    with pytest.raises(TypeError, match="needs a Dask DataFrame.*got Array"):
        EloRanker(method="batch").fit(array, _frame()["win"])


@pytest.mark.parametrize("call", [
    lambda est, X, y: MultiElo().fit(X, y),
    lambda est, X, y: MultiElo(method="batch").fit(X, y),
    lambda est, X, y: est.partial_fit(X, y),
    lambda est, X, y: EloRanker().partial_fit(X, y),
    lambda est, X, y: est.predict(X),
    lambda est, X, y: est.predict_proba(X),
    lambda est, X, y: est.decision_function(X),
    lambda est, X, y: est.score(X, y),
    lambda est, X, y: est.predict_outcome_proba(X),
], ids=["melo", "melo-batch", "partial_fit", "partial_fit-unfitted", "predict",
        "predict_proba", "decision_function", "score", "outcome_proba"])
@pytest.mark.parametrize("kind", ["frame", "array"])
def test_in_memory_entry_points_refuse_dask_input(call, kind):
    est = EloRanker(method="batch", alpha=0.1).fit(VOTES[["a", "b"]], VOTES["win"])
    before = est.ratings_.copy()
    X = _frame()[["a", "b"]]
    y = _frame()["win"]
    if kind == "array":
        X, y = X.to_dask_array(lengths=True), y.to_dask_array(lengths=True)
    with pytest.raises(TypeError, match=r"reads its data in memory; X is a Dask"):
        call(est, X, y)
    assert_array_equal(est.ratings_, before)
