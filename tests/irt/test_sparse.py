"""IRT2PL on sparse responses (user guide, IRT: "Sparse responses and long tables"):
the sparse path gives the dense path's fit to 1e-10 over random sizes and sparsity
patterns, never makes the data dense, and reads explicit zeros as wrong answers and
absent entries as missing."""

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from scipy.special import expit

from sklearn_eval.irt import IRT2PL
from sklearn_eval.irt import _kernels as kernels_module
from sklearn_eval.irt import _responses as responses_module
from sklearn_eval.irt._sparse_responses import _SparseResponses
from sklearn_eval.utils import ResultMatrix, long_to_result_matrix

FITTED = ("discrimination_", "difficulty_", "discrimination_se_", "difficulty_se_",
          "abilities_", "abilities_sd_")
FORMATS = ("csr_array", "csc_array", "coo_array", "csr_matrix", "csc_matrix",
           "coo_matrix")


def _random_responses(rng, n_agents, n_items, density):
    """2PL responses on a random pattern of observed cells, as (dense, sparse).

    The dense copy has NaN where the sparse one has no entry; every agent
    keeps at least one response.
    """
    theta = rng.normal(size=n_agents)
    a, b = rng.lognormal(0.0, 0.3, n_items), rng.normal(size=n_items)
    values = (rng.random((n_agents, n_items))
              < expit(a * (theta[:, None] - b))).astype(float)
    observed = rng.random((n_agents, n_items)) < density
    observed[np.arange(n_agents), rng.integers(0, n_items, n_agents)] = True
    rows, columns = np.nonzero(observed)
    dense = np.where(observed, values, np.nan)
    return dense, sparse.coo_array((values[rows, columns], (rows, columns)),
                                   shape=dense.shape)


def _as_format(coo, name):
    kind, container = name.split("_")
    converted = getattr(coo, f"to{kind}")()
    return converted if container == "array" else getattr(
        sparse, f"{kind}_matrix")(converted)


def _fit(X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IRT2PL(**params).fit(X)


def _identified(model):
    """Whether every estimated item has standard errors below 2.

    Otherwise the likelihood is nearly flat along some item's parameters (a
    near-separable or non-discriminating item on few agents, SEs of 2 ability
    SDs and more): EM contracts slowly there, so the rounding differences of
    the two paths, amplified by ``1 / (1 - rate)``, move where both stop by
    more than 1e-10 (on a true ridge, anywhere along it).
    """
    estimated = np.isfinite(model.difficulty_)
    errors = [model.difficulty_se_[estimated]]
    if model.model == "2PL":
        errors.append(model.discrimination_se_[estimated])
    return all(np.all(np.isfinite(e) & (e < 2)) for e in errors)


def _assert_same_fit(left, right, rtol=1e-10):
    """The two fits agree to ``rtol`` (absolute on the O(1) scale too).

    On a likelihood ridge (:func:`_identified` false) EM crawls along the
    ridge until a step gains less than ``tol * n_agents``: where it stops
    depends on rounding (a near-separable item's slope can grow for hundreds
    of iterations). Returns False there: the caller then compares a fixed
    number of iterations instead.
    """
    assert_array_equal(left.constant_items_, right.constant_items_)
    if not _identified(right):
        return False
    assert_allclose(left.log_likelihood_, right.log_likelihood_, rtol=rtol)
    for name in FITTED:
        # the SEs invert the information matrix: its condition number (up to
        # ~10 for a weak item) multiplies the parameters' rounding differences
        tol = 10 * rtol if name.endswith("_se_") else rtol
        assert_allclose(getattr(left, name), getattr(right, name), rtol=tol,
                        atol=tol, equal_nan=True, err_msg=name)
    assert left.n_iter_ == right.n_iter_
    return True


# ----------------------------------------------- sparse path == dense path
_OPTIONS = st.sampled_from([
    {}, {"model": "1PL"}, {"model": "Rasch"}, {"ability_method": "eap"},
    {"a_prior": (1.0, 2.0), "b_prior": (0.0, 2.0)},
    {"quadrature": "gauss-hermite"}, {"rescale_latent": True},
    {"n_quadrature": 31, "n_init": 2}, {"chunk_size": 7},
])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_agents=st.integers(40, 80),
       n_items=st.integers(3, 15), density=st.floats(0.15, 1.0),
       fmt=st.sampled_from(FORMATS), options=_OPTIONS)
def test_sparse_fit_is_the_dense_fit(seed, n_agents, n_items, density, fmt,
                                     options):
    _check_same_fit(seed, n_agents, n_items, density, fmt, options)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_agents=st.integers(40, 300),
       n_items=st.integers(3, 120), density=st.floats(0.05, 1.0),
       fmt=st.sampled_from(FORMATS), options=_OPTIONS)
def test_sparse_fit_is_the_dense_fit_at_larger_sizes(seed, n_agents, n_items,
                                                     density, fmt, options):
    _check_same_fit(seed, n_agents, n_items, density, fmt, options)


def _check_same_fit(seed, n_agents, n_items, density, fmt, options):
    rng = np.random.default_rng(seed)
    dense, coo = _random_responses(rng, n_agents, n_items, density)
    if np.sum(np.nanstd(dense, axis=0) > 0) < 2:
        return  # fewer than 2 informative items: both paths refuse it alike
    reference = _fit(dense, algorithm="dense", **options)
    model = _fit(_as_format(coo, fmt), algorithm="sparse", **options)
    if not _assert_same_fit(model, reference):
        # on a ridge: the same iterates, before the crawl along it
        options = {**options, "max_iter": 5}
        reference = _fit(dense, algorithm="dense", **options)
        model = _fit(_as_format(coo, fmt), algorithm="sparse", **options)
        # separable items (a of 30 and more after 5 steps) make even these
        # steps ill-conditioned: the Newton backtracking compares objectives
        # equal to rounding; an error in either path would be far above 1e-6.
        # An SE above 10 only says "not identified": not compared
        for name in FITTED:
            got, expected = getattr(model, name), getattr(reference, name)
            if name.endswith("_se_"):
                meaningful = expected < 10  # (NaN or huge: singular information)
                got, expected = got[meaningful], expected[meaningful]
            assert_allclose(got, expected, rtol=1e-6, atol=1e-8, equal_nan=True,
                            err_msg=name)
        assert_allclose(model.log_likelihood_, reference.log_likelihood_,
                        rtol=1e-10)
        return
    # new agents: the prediction paths agree too, on sparse or dense input
    new_dense, new_coo = _random_responses(rng, 9, n_items, density)
    new_sparse = new_coo.tocsr()
    # (abilities on the O(1) scale: to 1e-10 absolute as well)
    assert_allclose(model.transform(new_sparse), reference.transform(new_dense),
                    rtol=1e-10, atol=1e-10)
    assert_allclose(model.score_samples(new_sparse),
                    reference.score_samples(new_dense), rtol=1e-10, atol=1e-10)
    assert_allclose(model.predict_proba(new_sparse),
                    reference.predict_proba(new_dense), rtol=1e-10, atol=1e-10,
                    equal_nan=True)
    statistic, pvalue = model.item_fit(_as_format(coo, fmt))
    expected, expected_p = reference.item_fit(dense)
    assert_allclose(statistic, expected, rtol=1e-9, atol=1e-9, equal_nan=True)
    assert_allclose(pvalue, expected_p, rtol=1e-8, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("algorithm", ["sparse", "dense", "auto"])
def test_every_algorithm_reads_sparse_input(algorithm):
    rng = np.random.default_rng(3)
    dense, coo = _random_responses(rng, 150, 20, 0.4)
    reference = _fit(dense, algorithm="dense")
    _assert_same_fit(_fit(coo.tocsr(), algorithm=algorithm), reference)
    # and a dense NaN matrix goes through the sparse path too
    _assert_same_fit(_fit(dense, algorithm="sparse"), reference)


def test_explicit_zeros_are_wrong_answers_and_absent_entries_missing():
    rng = np.random.default_rng(4)
    dense, coo = _random_responses(rng, 80, 10, 0.5)
    stored = coo.tocsr()
    assert np.sum(stored.data == 0) > 0  # explicit zeros are present
    model = _fit(stored)
    # treating absent entries as zeros would be another fit
    as_zeros = _fit(np.nan_to_num(dense), algorithm="dense")
    assert not np.allclose(model.difficulty_, as_zeros.difficulty_)
    _assert_same_fit(model, _fit(dense, algorithm="dense"))
    table = model.agent_table()
    assert_array_equal(table.sort_index()["n_responses"], np.diff(stored.indptr))
    # a stored NaN is missing as well
    absent = np.argwhere(np.isnan(dense))[::3]
    extra = sparse.coo_array((np.full(len(absent), np.nan), tuple(absent.T)),
                             shape=dense.shape)
    coo_stored = stored.tocoo()
    with_nan = sparse.coo_array(
        (np.concatenate([coo_stored.data, extra.data]),
         (np.concatenate([coo_stored.row, extra.row]),
          np.concatenate([coo_stored.col, extra.col]))), shape=dense.shape).tocsr()
    assert with_nan.nnz == stored.nnz + len(absent) > stored.nnz
    _assert_same_fit(_fit(with_nan), model)


@pytest.mark.skipif(not kernels_module.HAVE_NUMBA, reason="numba is not in use")
def test_sparse_storage_is_chosen_by_density(monkeypatch):
    built = []
    original = _SparseResponses.__init__

    def spy(self, *args, **kwargs):
        built.append(True)
        original(self, *args, **kwargs)

    monkeypatch.setattr(_SparseResponses, "__init__", spy)
    rng = np.random.default_rng(5)
    _, sparse_input = _random_responses(rng, 200, 40, 0.1)
    dense_input, _ = _random_responses(rng, 200, 40, 0.9)
    _fit(sparse_input.tocsr())
    assert built
    built.clear()
    _fit(dense_input)
    assert not built


def test_without_numba_sparse_input_is_served_by_row_blocks(monkeypatch):
    """Without numba the sparse store's loops would run interpreted: sparse
    input is served as row blocks made dense on every pass (vectorised, never
    the whole dense matrix), with the fit of the same data given dense."""
    built = []
    original = responses_module._CsrRowResponses.__init__

    def spy(self, *args, **kwargs):
        built.append(True)
        original(self, *args, **kwargs)

    monkeypatch.setattr(responses_module._CsrRowResponses, "__init__", spy)
    monkeypatch.setattr(responses_module, "HAVE_NUMBA", False)
    rng = np.random.default_rng(5)
    dense, coo = _random_responses(rng, 200, 40, 0.1)
    by_rows = _fit(coo.tocsr(), tol=1e-8)
    assert built
    built.clear()
    from_dense = _fit(dense, tol=1e-8)
    assert not built
    # the same arithmetic on the same blocks
    assert by_rows.log_likelihood_ == pytest.approx(from_dense.log_likelihood_,
                                                    rel=1e-12)
    assert_allclose(by_rows.predict_proba(dense), from_dense.predict_proba(dense),
                    rtol=1e-9, atol=1e-12)
    assert_allclose(by_rows.transform(coo.tocsr()), from_dense.transform(dense),
                    rtol=1e-9, atol=1e-12)
    # with a mostly observed matrix given as CSR the dense store is kept
    built.clear()
    _, full_coo = _random_responses(rng, 200, 40, 0.9)
    _fit(full_coo.tocsr())
    assert not built


@pytest.mark.parametrize("chunk_size", [1, 13, 1000])
def test_sparse_fit_does_not_depend_on_chunks_or_workers(chunk_size):
    rng = np.random.default_rng(6)
    _, coo = _random_responses(rng, 120, 15, 0.3)
    X = coo.tocsr()
    reference = _fit(X, algorithm="sparse")
    for n_jobs in (None, 2):
        _assert_same_fit(_fit(X, algorithm="sparse", chunk_size=chunk_size,
                              n_jobs=n_jobs), reference, rtol=1e-12)


def test_sparse_fit_never_builds_the_dense_matrix():
    """20,000 agents x 2,000 items with 0.3% observed: a dense float64 copy
    would take 320 MB; the fit stays far below that (it holds the responses,
    per-agent and per-(node, item) arrays)."""
    rng = np.random.default_rng(7)
    n_agents, n_items, per_agent = 20_000, 2_000, 6
    rows = np.repeat(np.arange(n_agents), per_agent)
    columns = rng.integers(0, n_items, rows.size)
    theta = rng.normal(size=n_agents)
    b = rng.normal(size=n_items)
    values = (rng.random(rows.size) < expit(theta[rows] - b[columns])).astype(float)
    X = sparse.coo_array((values, (rows, columns)), shape=(n_agents, n_items))
    X.sum_duplicates()
    X.data = (X.data > 0).astype(float)
    dense_bytes = n_agents * n_items * 8
    _fit(X[:500].tocsr(), max_iter=2)  # compile the kernels outside the trace
    tracemalloc.start()
    try:
        model = _fit(X.tocsr(), max_iter=20)
        model.transform(X.tocsr())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < dense_bytes / 5, peak


# ------------------------------------------------------------ validation
@pytest.mark.parametrize("fmt", ["dia", "lil", "dok", "bsr"])
def test_formats_without_reliable_explicit_zeros_are_refused(fmt):
    X = sparse.random(10, 5, density=0.5, format=fmt, random_state=0)
    with pytest.raises(TypeError, match=f"{fmt.upper()} format.*CSR, CSC or COO"):
        IRT2PL().fit(X)


def test_malformed_sparse_responses_are_located():
    duplicate = sparse.coo_array(
        (np.array([1.0, 0.0, 1.0, 1.0, 0.0]),
         (np.array([0, 1, 2, 2, 0]), np.array([0, 1, 0, 1, 0]))), shape=(3, 2))
    with pytest.raises(ValueError, match="more than once"):
        IRT2PL().fit(duplicate)
    unsorted = sparse.csr_array((np.array([1.0, 0.0, 1.0]), np.array([1, 1, 0]),
                                 np.array([0, 2, 3])), shape=(2, 2))
    with pytest.raises(ValueError, match="row 0, column 1 more than once"):
        IRT2PL().fit(unsorted)
    bad = sparse.csr_array(np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]]))
    with pytest.raises(ValueError, match=r"binary.*2\.0 at row 0, column 2"):
        IRT2PL().fit(bad)
    infinite = sparse.csr_array(np.array([[1.0, 0.0], [np.inf, 1.0]]))
    with pytest.raises(ValueError, match="infinite value at row 1, column 0"):
        IRT2PL().fit(infinite)
    empty_row = sparse.csr_array((np.array([1.0, 0.0, 1.0, 0.0]),
                                  np.array([0, 1, 0, 1]), np.array([0, 2, 2, 4])),
                                 shape=(3, 2))
    message = r"1 agent of 3 has no observed response \(row 1; an absent entry"
    with pytest.raises(ValueError, match=message):
        IRT2PL().fit(empty_row)
    with pytest.raises(TypeError, match="numbers"):
        IRT2PL().fit(sparse.csr_array(np.array([[1, 0], [0, 1]], dtype=complex)))


def test_bad_sparse_input_leaves_the_fit_untouched():
    rng = np.random.default_rng(8)
    _, coo = _random_responses(rng, 60, 8, 0.5)
    model = _fit(coo.tocsr())
    before = model.difficulty_.copy()
    bad = coo.tocsr()
    bad.data[3] = 0.5
    with pytest.raises(ValueError, match="binary"):
        model.fit(bad)
    assert_array_equal(model.difficulty_, before)
    with pytest.raises(ValueError, match="binary"):
        model.transform(bad)
    with pytest.raises(ValueError, match="8 features"):
        model.transform(coo.tocsr()[:, :5])


# ----------------------------------------------- labels: long tables, ResultMatrix
def _long_table(rng, n_agents, n_items, density):
    dense, coo = _random_responses(rng, n_agents, n_items, density)
    agents = np.array([f"model-{i:03d}" for i in range(n_agents)])
    items = np.array([f"q{j:02d}" for j in range(n_items)])
    table = {"model": agents[coo.row], "question": items[coo.col],
             "correct": coo.data}
    return table, dense, agents, items


def test_long_table_goes_in_with_its_labels():
    rng = np.random.default_rng(9)
    table, dense, agents, items = _long_table(rng, 90, 12, 0.4)
    matrix = long_to_result_matrix(table, agent="model", task="question",
                                   score="correct", sparse=True)
    assert isinstance(matrix, ResultMatrix) and sparse.issparse(matrix.values)
    model = _fit(matrix)
    assert_array_equal(model.agents_, agents)
    assert_array_equal(model.tasks_, items)
    assert_array_equal(model.feature_names_in_, items)
    frame = pd.DataFrame(dense, index=pd.Index(agents, name="model"),
                         columns=pd.Index(items, name="question"))
    reference = _fit(frame, algorithm="dense")
    _assert_same_fit(model, reference)
    assert_array_equal(model.agent_table().index, reference.agent_table().index)
    assert_allclose(model.transform(matrix), reference.transform(frame),
                    rtol=1e-10, atol=1e-12)
    shuffled = ResultMatrix(matrix.values, matrix.agents, matrix.tasks[::-1])
    with pytest.raises(ValueError, match="tasks of the ResultMatrix differ"):
        model.transform(shuffled)
    with pytest.raises(ValueError, match="89 agents for 90 rows"):
        IRT2PL().fit(ResultMatrix(matrix.values, agents[1:], items))
