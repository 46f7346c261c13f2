"""pandas' NA in numeric inputs is a missing value, named by the checks.

numpy cannot turn ``pd.NA`` into a float, so a nullable boolean outcome or an
object column holding ``pd.NA`` failed with "float() argument must be ... not
'NAType'" (a TypeError naming neither row nor value), while the same gap in
a nullable float column was named ("y has a non-finite value (nan) at row
2"). Every numeric input read by ``as_float_array`` now treats both alike.
"""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from sklearn_eval.metrics import match_log_loss
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.utils import long_to_result_matrix
from sklearn_eval.utils._validation import as_float_array

X = [["a", "b"], ["b", "c"], ["c", "a"]]

CONTAINERS = {
    "boolean": lambda values: pd.array(values, dtype="boolean"),
    "Float64": lambda values: pd.array(values, dtype="Float64"),
    "object-series": lambda values: pd.Series(values, dtype=object),
    "list": list,
    "object-array": lambda values: np.array(values, dtype=object),
}


def _with_na(make, values, row):
    values = list(values)
    values[row] = pd.NA
    return make(values)


@pytest.mark.parametrize("make", CONTAINERS.values(), ids=CONTAINERS.keys())
def test_as_float_array_reads_na_as_nan(make):
    out = as_float_array(_with_na(make, [1, 0, 1], 1), "y")
    assert out.dtype == np.float64
    assert_array_equal(np.isnan(out), [False, True, False])


@pytest.mark.parametrize("make", CONTAINERS.values(), ids=CONTAINERS.keys())
@pytest.mark.parametrize("estimator", [
    EloRanker(), EloRanker(method="batch", alpha=0.1), MultiElo()], ids=repr)
@pytest.mark.parametrize("argument", ["y", "sample_weight"])
def test_a_missing_outcome_or_weight_is_named(make, estimator, argument):
    values = _with_na(make, [1, 0, 1], 2)
    y, weight = (values, None) if argument == "y" else ([1, 0, 1], values)
    fitted = estimator.fit(X, [1, 0, 0.5])
    before = fitted.ratings_.copy()
    with pytest.raises(ValueError, match=rf"{argument} has a non-finite value "
                                         r"\(nan\) at row 2"):
        fitted.fit(X, y, sample_weight=weight)
    assert_array_equal(fitted.ratings_, before)


@pytest.mark.parametrize("make", CONTAINERS.values(), ids=CONTAINERS.keys())
def test_metrics_name_a_missing_outcome(make):
    with pytest.raises(ValueError, match="nan"):
        match_log_loss(_with_na(make, [1, 0, 1], 1), [0.6, 0.4, 0.5])


def test_a_missing_long_score_is_an_unobserved_cell_for_every_dtype():
    frame = pd.DataFrame({"agent": ["a", "a", "b", "b"],
                          "task": ["t", "u", "t", "u"]})
    tables = [
        long_to_result_matrix(frame.assign(score=_with_na(make, [1, 1, 0, 1], 1)),
                              agent="agent", task="task", score="score")
        for make in (CONTAINERS["boolean"], CONTAINERS["Float64"],
                     CONTAINERS["object-series"])
    ]
    for table in tables:
        assert_array_equal(np.asarray(table, dtype=float),
                           [[1.0, np.nan], [0.0, 1.0]])
