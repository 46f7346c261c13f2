"""The result-matrix converters on sparse data (user guide, IRT: "Sparse responses and
long tables"): a long table pivots to a sparse matrix of the observed scores, equal
to the dense pivot where observed; thresholds and normalisations act on the stored
entries only."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse

from sklearn_eval.utils import (
    ResultMatrix,
    baseline_normalize,
    binarize_scores,
    long_to_result_matrix,
    minmax_normalize,
)

AGGREGATES = ("mean", "sum", "min", "max", "first", "last")


def _random_long_table(rng, n_rows, n_agents, n_tasks, nan_share):
    agents = rng.integers(0, n_agents, n_rows)
    tasks = rng.integers(0, n_tasks, n_rows)
    scores = rng.choice([0.0, 0.25, 1.0, -3.0, 7.5], n_rows)
    scores[rng.random(n_rows) < nan_share] = np.nan
    return {"agent": np.array([f"a{i}" for i in agents]),
            "task": np.array([f"t{j}" for j in tasks]), "score": scores}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_rows=st.integers(1, 200),
       n_agents=st.integers(1, 12), n_tasks=st.integers(1, 12),
       nan_share=st.floats(0.0, 0.5), aggfunc=st.sampled_from(AGGREGATES))
def test_sparse_pivot_holds_the_dense_pivot_where_observed(seed, n_rows, n_agents,
                                                           n_tasks, nan_share,
                                                           aggfunc):
    table = _random_long_table(np.random.default_rng(seed), n_rows, n_agents,
                               n_tasks, nan_share)
    dense = long_to_result_matrix(table, aggfunc=aggfunc, as_frame=False)
    matrix = long_to_result_matrix(table, aggfunc=aggfunc, sparse=True)
    assert isinstance(matrix, ResultMatrix)
    values = matrix.values
    assert sparse.issparse(values) and values.format == "csr"
    assert values.has_canonical_format
    assert_array_equal(matrix.agents, dense.agents)
    assert_array_equal(matrix.tasks, dense.tasks)
    observed = ~np.isnan(dense.values)
    assert values.nnz == observed.sum()  # zeros stored, missing absent
    stored = np.zeros(values.shape, dtype=bool)
    coo = values.tocoo()
    stored[coo.row, coo.col] = True
    assert_array_equal(stored, observed)
    assert_allclose(values.toarray()[observed], dense.values[observed])


def test_sparse_pivot_keeps_zero_scores_and_checks_its_options():
    table = {"agent": ["x", "x", "y", "y"], "task": ["t1", "t2", "t1", "t1"],
             "score": [0.0, 1.0, 1.0, np.nan]}
    matrix = long_to_result_matrix(table, sparse=True)
    assert matrix.values.nnz == 3
    assert_array_equal(matrix.values.toarray(), [[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="as_frame=True"):
        long_to_result_matrix(table, sparse=True, as_frame=True)
    repeated = {"agent": ["x", "x"], "task": ["t", "t"], "score": [1.0, 0.0]}
    with pytest.raises(ValueError, match="more than one score"):
        long_to_result_matrix(repeated, aggfunc="error", sparse=True)


def _random_sparse_scores(rng, n_agents, n_tasks, density):
    values = rng.normal(50.0, 40.0, (n_agents, n_tasks)).round(1)
    values[rng.random(values.shape) < 0.2] = 100.0  # ties with the threshold
    observed = rng.random(values.shape) < density
    rows, columns = np.nonzero(observed)
    X = sparse.csr_array((values[rows, columns], (rows, columns)),
                         shape=values.shape)
    return X, np.where(observed, values, np.nan)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_agents=st.integers(1, 15),
       n_tasks=st.integers(1, 10), density=st.floats(0.05, 1.0),
       inclusive=st.booleans())
def test_sparse_converters_act_on_the_stored_entries(seed, n_agents, n_tasks,
                                                     density, inclusive):
    rng = np.random.default_rng(seed)
    X, dense = _random_sparse_scores(rng, n_agents, n_tasks, density)
    thresholds = rng.choice([0.0, 50.0, 100.0], n_tasks)
    low = rng.normal(0.0, 5.0, n_tasks)
    conversions = [
        (lambda M: binarize_scores(M, thresholds, inclusive=inclusive)),
        (lambda M: baseline_normalize(M, low, low + 100.0)),
        (lambda M: minmax_normalize(M)),
    ]
    observed = ~np.isnan(dense)
    for convert in conversions:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # constant columns
            out = convert(X)
            expected = convert(dense)
        assert sparse.issparse(out) and out.nnz == X.nnz
        assert_array_equal(out.indices, X.indices)
        assert_allclose(out.toarray()[observed], expected[observed], rtol=1e-12)
        assert np.isnan(expected[~observed]).all()


def test_sparse_converters_keep_labels_and_refuse_ambiguous_formats():
    X = sparse.csr_array((np.array([120.0, 0.0, 99.0]), np.array([0, 1, 1]),
                          np.array([0, 2, 3])), shape=(2, 2))
    wrapped = ResultMatrix(X, np.array(["a", "b"]), np.array(["t1", "t2"]))
    out = binarize_scores(wrapped, 100)
    assert isinstance(out, ResultMatrix)
    assert_array_equal(out.agents, ["a", "b"])
    assert_array_equal(out.values.toarray(), [[1.0, 0.0], [0.0, 0.0]])
    assert out.values.nnz == 3  # the stored 0.0 stays a (failed) result
    with pytest.raises(TypeError, match="DIA format"):
        binarize_scores(sparse.dia_array(np.eye(3)), 0.5)
    with pytest.raises(ValueError, match="infinite value at row 1, column 0"):
        binarize_scores(sparse.csr_array(np.array([[1.0, 0.0], [np.inf, 2.0]])), 1)
    with pytest.raises(ValueError, match="high equals low"):
        baseline_normalize(X, 0.0, 0.0)
