"""Storage of 0/1 responses for the IRT estimators, served in blocks of agents.

At leaderboard scale the responses are stored as uint8 and converted to
float64 one block at a time; the row-block helpers here validate and summarise
a result matrix without full-size temporaries. Sparse input (scipy CSR, CSC,
COO, or a ``ResultMatrix`` holding one) is validated and summarised without
ever being made dense; :func:`_make_storage` picks the dense blocks or the
sparse storage of :mod:`._sparse_responses` by the share of observed
responses.
"""

from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import validate_data

from ..base import input_attributes
from ..utils import (
    ResultMatrix,
    check_binary_values,
    check_empty_agents,
    check_result_matrix,
)
from ..utils._protocol import column_labels, row_labels
from ..utils._sklearn_compat import _get_feature_names
from ..utils._sparse import check_sparse_result, is_sparse_input
from ._abilities import _dense_map
from ._blocks import _as_float_block
from ._estep import _dense_e_step, _dense_table_e_step
from ._information import _dense_score_products, _louis_sums
from ._item_fit import _dense_item_fit_tables, _item_fit
from ._kernels import HAVE_NUMBA
from ._sparse_responses import (
    _SparseResponses,
    sparse_column_counts,
    sparse_row_counts,
)

# Above this many responses the 0/1 data are stored as uint8 and converted to
# float64 block by block (saves 8x memory at leaderboard scale).
_DENSE_LIMIT = 2**25
# Target number of responses per block of agents in the E-step.
_BLOCK_ENTRIES = 2**22
# Responses (successes and failures side by side) per block of the stacked
# E-step of the binary item models when no chunk_size is given: a block's
# posterior rows then stay in the L2 cache between the two matrix products
# (measured on the 3PL, 20,000 x 60 with 10% missing: 0.62 s instead of
# 0.66 s CPU per fit), and two threads have blocks to share.
_STACKED_ENTRIES = 2**17
# The same for sparse input made dense block by block (without numba).
_ROW_BLOCK_ENTRIES = 2**18
# algorithm="auto" uses the sparse storage below this share of observed
# responses. Measured (benchmarks/bench_irt_scale.py --case crossover, three
# shapes): sparse/dense fit time 0.17-0.83 at 2-30% observed; above, the
# ratio varies with the items per agent and reaches 1.2 at 100%.
_SPARSE_BELOW = 0.3


class _Responses:
    """0/1 responses with a missing-data mask, served in blocks of agents.

    ``blocks()`` yields ``(rows, Y, M)`` with ``Y`` the float64 responses (0
    where missing) and ``M`` the float64 observation mask, or ``None`` when no
    response is missing anywhere; ``raw_blocks()`` yields the stored blocks
    (uint8 at leaderboard scale) for workers to convert themselves.
    ``chunk_size`` agents per block (None: about ``_BLOCK_ENTRIES``
    responses). ``parallel`` is None (serial E-step) or a running
    ``joblib.Parallel`` that computes the blocks of an E-step concurrently.
    """

    def __init__(self, values, keep=None, *, chunk_size=None, parallel=None):
        columns, rows = self._set_blocks(values, keep, chunk_size, parallel)
        self.dense = self.n_agents * self.n_items <= _DENSE_LIMIT
        dtype = np.float64 if self.dense else np.uint8
        shape = (self.n_agents, self.n_items)
        self._Y = np.empty(shape, dtype=dtype)
        mask = np.empty(shape, dtype=dtype)
        self.has_missing = False
        self.n_missing = 0
        # filled block by block: no full-size float64 temporaries
        for start in self._starts:
            block = slice(start, min(start + rows, self.n_agents))
            part = _dense_rows(values, block, columns)
            observed = ~np.isnan(part)
            self.n_missing += int(observed.size - np.count_nonzero(observed))
            self.has_missing |= self.n_missing > 0
            self._Y[block] = np.where(observed, part, 0.0)
            mask[block] = observed
        self._M = mask if self.has_missing else None
        self._stacked = None
        self._complement = None

    def _set_blocks(self, values, keep, chunk_size, parallel,
                    entries=_BLOCK_ENTRIES):
        """Sizes and row blocks of about ``entries`` responses; returns the
        kept columns and rows per block."""
        columns = slice(None) if keep is None or keep.all() else keep
        self.n_agents = values.shape[0]
        self.n_items = values.shape[1] if keep is None else int(np.sum(keep))
        self.parallel = parallel
        self._chunk_size = chunk_size
        rows = chunk_size or max(1, entries // max(self.n_items, 1))
        self._starts = range(0, self.n_agents, rows)
        self._rows = rows
        return columns, rows

    def success_rate(self):
        """Per agent: successes / observed responses (NaN if none)."""
        out = np.empty(self.n_agents)
        for rows, Y, M in self.blocks():
            n_obs = Y.shape[1] if M is None else M.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[rows] = Y.sum(axis=1) / n_obs
        return out

    def row_slices(self):
        """The agents of each block, in block order."""
        return [slice(start, min(start + self._rows, self.n_agents))
                for start in self._starts]

    def raw_blocks(self):
        for rows in self.row_slices():
            yield rows, self._Y[rows], None if self._M is None else self._M[rows]

    def blocks(self):
        for rows, Y, M in self.raw_blocks():
            yield (rows, *_as_float_block(Y, M))

    def n_observed(self):
        if self._M is None:
            return np.full(self.n_agents, float(self.n_items))
        return np.asarray(self._M.sum(axis=1), dtype=np.float64)

    def row_sums(self):
        """Successes and observed responses per agent."""
        successes = np.empty(self.n_agents)
        for rows, Y, _ in self.blocks():
            successes[rows] = Y.sum(axis=1)
        return successes, self.n_observed()

    def item_counts(self):
        """Successes and observed responses per item."""
        successes = np.zeros(self.n_items)
        observed = np.zeros(self.n_items)
        for _, Y, M in self.blocks():
            successes += Y.sum(axis=0)
            observed += Y.shape[0] if M is None else M.sum(axis=0)
        return successes, observed

    # ------------------------------------------- the operations of a store
    def e_step(self, a, b, grid, *, counts=True, moments=False):
        """Log-likelihood, node mass, expected counts, posterior moments."""
        return _dense_e_step(self, a, b, grid, counts=counts, moments=moments)

    def e_step_tables(self, log_p, log_q, grid, *, counts=True, moments=False):
        """:meth:`e_step` for any binary item model, from its log tables."""
        return _dense_table_e_step(self, log_p - log_q, log_q, grid,
                                   counts=counts, moments=moments,
                                   log_success=log_p)

    def stacked_blocks(self):
        """Blocks ``(rows, [Y | M - Y])`` (successes, failures), float64.

        Built on first use and kept (twice the memory of the responses: only
        for a float64 store). The store's blocks, or with no ``chunk_size``
        given, blocks of about ``_STACKED_ENTRIES`` entries.
        """
        if self._stacked is None:
            self._stacked = [
                (rows, np.ascontiguousarray(np.hstack(
                    [self._Y[rows], self._M[rows] - self._Y[rows]])))
                for rows in self._cache_slices()]
        return self._stacked

    def _cache_slices(self):
        """The agents of each block of :meth:`stacked_blocks` and
        :meth:`complement_blocks`: the ``chunk_size`` given, else about
        ``_STACKED_ENTRIES`` entries of the stacked width."""
        step = self._chunk_size or max(
            1, _STACKED_ENTRIES // max(2 * self.n_items, 1))
        return [slice(start, min(start + step, self.n_agents))
                for start in range(0, self.n_agents, step)]

    def complement_blocks(self):
        """Blocks ``(rows, Y, (miss_ptr, miss_items))``: the float64 responses
        (0 where missing) and, per agent, the items it did not answer.

        For the E-step that counts a missing response as a failure and takes
        it off again (:func:`._estep._complement_block`): no stacked copy,
        and the matrix products half as wide. Built on first use and kept
        (the missing cells' item numbers: small where this path is taken).
        Same block sizes as :meth:`stacked_blocks`.
        """
        if self._complement is None:
            blocks = []
            for rows in self._cache_slices():
                agent, item = np.nonzero(self._M[rows] == 0)
                ptr = np.zeros(rows.stop - rows.start + 1, dtype=np.int64)
                np.cumsum(np.bincount(agent, minlength=ptr.size - 1), out=ptr[1:])
                blocks.append((rows, self._Y[rows], (ptr, item.astype(np.int64))))
            self._complement = blocks
        return self._complement

    def score_products(self, log_p, log_q, grid, g1, g0):
        """Per item, ``sum_i E_i[s] E_i[s]^T`` of the parameter scores."""
        return _dense_score_products(self, log_p, log_q, grid, g1, g0)

    def louis_sums(self, a, b, grid, P):
        """Expected counts and posterior score products per item (Louis)."""
        return _louis_sums(self, a, b, grid, P)

    def map_abilities(self, a, b, start):
        """MAP abilities and their sd, Newton from ``start``."""
        return _dense_map(self, a, b, start)

    def item_fit(self, a, b, grid):
        """Rest-of-test item-fit statistics and the number of groups."""
        return _item_fit(self.with_nan(), a, b, grid)

    def item_fit_tables(self, log_p, log_q, grid, max_groups=10):
        """:meth:`item_fit` for any binary item model, from its log tables."""
        return _dense_item_fit_tables(self, log_p, log_q, grid, max_groups)

    def with_nan(self):
        """The stored responses as float64, NaN where missing."""
        out = np.empty((self.n_agents, self.n_items))
        for rows, Y, M in self.blocks():
            out[rows] = Y if M is None else np.where(M > 0, Y, np.nan)
        return out

    def item_moments(self, total):
        """Per item, over observed responses: n, sum x, sum t, sum x t, sum t^2."""
        sums = np.zeros((5, self.n_items))
        for rows, Y, M in self.blocks():
            t = total[rows][:, None]
            Mb = np.ones_like(Y) if M is None else M
            sums[0] += Mb.sum(axis=0)
            sums[1] += Y.sum(axis=0)
            sums[2] += (Mb * t).sum(axis=0)
            sums[3] += (Y * t).sum(axis=0)
            sums[4] += (Mb * t * t).sum(axis=0)
        return sums


class _CsrRowResponses(_Responses):
    """Sparse responses served as dense row blocks made on every pass.

    The store for sparse input when numba is not available: the sparse
    store's per-response loops would run interpreted, so the dense store's
    vectorised passes run instead, on blocks of rows densified from the CSR
    when they are needed and dropped after. Memory stays that of the CSR plus
    one block (never the dense matrix, not even as uint8); each pass costs
    the dense matrix's arithmetic.
    """

    def __init__(self, values, keep=None, *, chunk_size=None, parallel=None):
        # small blocks: each pass makes them dense, with the dense arithmetic's
        # block-sized temporaries beside them (the store's whole footprint)
        self._columns, _ = self._set_blocks(values, keep, chunk_size, parallel,
                                            entries=_ROW_BLOCK_ENTRIES)
        self._values = values
        self.dense = False  # never the stacked float64 copy
        self._stacked = None
        # a stored entry is a response: count the kept ones of each row
        per_row = np.diff(values.indptr)
        if isinstance(self._columns, slice):
            counts = per_row
        else:
            rows = np.repeat(np.arange(self.n_agents), per_row)
            counts = np.bincount(rows[self._columns[values.indices]],
                                 minlength=self.n_agents)
        self._n_observed = counts.astype(np.float64)
        self.has_missing = bool(np.any(self._n_observed < self.n_items))

    def raw_blocks(self):
        for rows in self.row_slices():
            part = _dense_rows(self._values, rows, self._columns)
            observed = ~np.isnan(part)
            mask = observed.astype(np.float64) if self.has_missing else None
            yield rows, np.where(observed, part, 0.0), mask

    def n_observed(self):
        return self._n_observed.copy()


def _dense_rows(values, rows, columns):
    """Rows of a dense matrix, or of a CSR made dense (absent entries NaN)."""
    if not is_sparse_input(values):
        return values[rows][:, columns]
    part = values[rows]
    dense = np.full(part.shape, np.nan)
    row_index = np.repeat(np.arange(part.shape[0]), np.diff(part.indptr))
    dense[row_index, part.indices] = part.data
    return dense[:, columns]


def _make_storage(values, keep, *, algorithm="auto", chunk_size=None,
                  parallel=None, n_observed=None):
    """Storage of the kept items' responses: dense blocks or sparse.

    ``algorithm="auto"`` chooses the sparse storage when fewer than
    ``_SPARSE_BELOW`` of the kept (agent, item) cells are observed and numba
    is available; without numba (whose pure-Python loops are for small data
    only) sparse input then gets :class:`_CsrRowResponses`, which never holds
    the dense matrix; all give the same results to rounding. ``n_observed``:
    the number of observed responses to kept items, when known.
    """
    if hasattr(values, "fit_with"):  # Dask input: a store on the workers
        return values.store(keep, algorithm=algorithm, chunk_size=chunk_size)
    if algorithm == "auto":
        n_cells = values.shape[0] * (values.shape[1] if keep is None
                                     else int(np.sum(keep)))
        if n_observed is None:
            n_observed = _n_observed_cells(values, keep)
        density = n_observed / max(n_cells, 1)
        mostly_missing = density < _SPARSE_BELOW
        if mostly_missing and not HAVE_NUMBA and is_sparse_input(values):
            return _CsrRowResponses(values, keep, chunk_size=chunk_size,
                                    parallel=parallel)
        algorithm = "sparse" if HAVE_NUMBA and mostly_missing else "dense"
    if algorithm == "dense":
        return _Responses(values, keep, chunk_size=chunk_size, parallel=parallel)
    build = (_SparseResponses.from_csr if is_sparse_input(values)
             else _SparseResponses.from_dense)
    return build(values, keep, chunk_size=chunk_size, parallel=parallel)


def _n_observed_cells(values, keep):
    observed = _column_counts(values)[1]
    return float(observed.sum() if keep is None else observed[keep].sum())


def _row_blocks(values):
    """Row slices of about ``_BLOCK_ENTRIES`` entries each."""
    rows = max(1, _BLOCK_ENTRIES // max(values.shape[1], 1))
    return (slice(start, start + rows) for start in range(0, values.shape[0], rows))


def _check_binary_in_blocks(values):
    """``check_binary_values`` without full-size temporaries.

    Checks block by block; on failure the shared check runs on the whole
    matrix to name the first offending (row, column).
    """
    for rows in _row_blocks(values):
        part = values[rows]
        if not np.all(np.isnan(part) | (part == 0.0) | (part == 1.0)):
            check_binary_values(values)  # raises, naming the first bad entry
            raise ValueError("X must hold binary responses (0, 1, or NaN).")
    return values


def _input_counts(values):
    """Per item: successes and observed responses; per agent: observed responses.

    One pass over validated responses (dense row blocks or the stored
    entries of a CSR), with no full-size temporaries.
    """
    if is_sparse_input(values):
        return (*sparse_column_counts(values), sparse_row_counts(values)[1])
    successes = np.zeros(values.shape[1])
    observed = np.zeros(values.shape[1])
    per_agent = np.empty(values.shape[0])
    for rows in _row_blocks(values):
        part = values[rows]
        seen = ~np.isnan(part)
        successes += np.where(seen, part, 0.0).sum(axis=0)
        observed += seen.sum(axis=0)
        per_agent[rows] = seen.sum(axis=1)
    return successes, observed, per_agent


def _empty_rows(values):
    """Boolean mask of the agents with no observed response."""
    return _input_counts(values)[2] == 0


def _column_counts(values):
    """Successes and observed responses per item."""
    return _input_counts(values)[:2]


def _informative_items(values):
    successes, observed = _column_counts(values)
    keep = (successes > 0) & (successes < observed)
    return keep, ~keep


class _ItemSummary(NamedTuple):
    """What a fit needs to know about the items before storing responses.

    ``keep`` marks the items with both successes and failures, ``rate`` is
    the success rate per item (NaN for an item never observed) and
    ``n_observed`` the number of observed responses to kept items.
    """

    keep: np.ndarray
    rate: np.ndarray
    n_observed: float


def _summary_from_counts(successes, observed):
    keep = (successes > 0) & (successes < observed)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(observed > 0, successes / observed, np.nan)
    return _ItemSummary(keep, rate, float(observed[keep].sum()))


def _item_summary(values):
    """:class:`_ItemSummary` of validated responses (one pass over them)."""
    return _summary_from_counts(*_column_counts(values))


def _column_rate(values):
    return _item_summary(values).rate


def _unpack(X):
    """The matrix inside ``X`` and its labels (from a ``ResultMatrix``)."""
    if not isinstance(X, ResultMatrix):
        return X, None, None
    shape = np.shape(X.values) if not is_sparse_input(X.values) else X.values.shape
    for labels, axis, name in ((X.agents, 0, "agents"), (X.tasks, 1, "tasks")):
        if labels is not None and len(shape) == 2 and len(labels) != shape[axis]:
            raise ValueError(
                f"The ResultMatrix has {len(labels)} {name} for {shape[axis]} "
                f"{'rows' if axis == 0 else 'columns'}."
            )
    return X.values, X.agents, X.tasks


def _record_input_features(estimator, X, tasks):
    """``n_features_in_`` and ``feature_names_in_`` of a fit on ``X``.

    A ``ResultMatrix`` with string task labels names the features as a
    DataFrame's columns would.
    """
    inner, _, given = _unpack(X)
    validate_data(estimator, inner, reset=True, skip_check_array=True)
    if given is not None and all(isinstance(label, str) for label in given):
        estimator.feature_names_in_ = np.asarray(given, dtype=object)


def _input_features(X, tasks):
    """The input attributes a fit on ``X`` assigns (pure ``_record_input_features``)."""
    inner, _, given = _unpack(X)
    if hasattr(inner, "__dask_graph__"):
        return {}  # a fit on Dask input sets them from its coded labels
    attributes = input_attributes(inner)
    if given is not None and all(isinstance(label, str) for label in given):
        attributes["feature_names_in_"] = np.asarray(given, dtype=object)
    return attributes


def _check_input_features(estimator, X, tasks):
    """The features of new data ``X`` against those seen in fit."""
    inner, _, given = _unpack(X)
    if not isinstance(X, ResultMatrix):
        validate_data(estimator, inner, reset=False, skip_check_array=True)
        return
    n_features = inner.shape[1]
    if n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is "
            f"expecting {estimator.n_features_in_} features as input."
        )
    fitted = getattr(estimator, "feature_names_in_", None)
    if given is not None and fitted is not None and not np.array_equal(
            np.asarray(given, dtype=object), fitted):
        raise ValueError(
            "The tasks of the ResultMatrix differ from the feature names seen "
            "in fit (same tasks, same order, are needed)."
        )


def _check_responses(X):
    """Validated 0/1 responses (float64 array or canonical CSR) and labels.

    Returns ``(values, agents, tasks)``; the labels are None unless ``X`` is a
    DataFrame (index unless a RangeIndex, columns) or a ``ResultMatrix``.
    """
    inner, agents, tasks = _unpack(X)
    if is_sparse_input(inner):
        return check_sparse_result(inner), agents, tasks
    checked = check_result_matrix(inner, allow_nan=True)
    values = _check_binary_in_blocks(checked.values)
    return (values, checked.agents if agents is None else agents,
            checked.tasks if tasks is None else tasks)


def _agent_labels(X, n_agents):
    """Labels of the rows of ``X``: a ResultMatrix's agents, else row_labels."""
    if isinstance(X, ResultMatrix) and X.agents is not None:
        return np.asarray(X.agents)
    return row_labels(X, n_agents)


# what the empty-agent error of an estimator without ``drop_empty`` suggests
EMPTY_REMEDY = ("remove them (--drop-empty on the command line leaves them out "
                "with a warning)")


def _check_fit_responses(X, *, drop_empty=False, name="IRT2PL", remedy=None):
    """Validated 0/1 responses for a fit, the item labels, the item summary and
    the labels of the agents kept (all but the empty ones, with ``drop_empty``).

    Returns ``(values, labels, summary, agents)`` with ``summary`` an
    :class:`_ItemSummary`: the counts per item are computed once, here, and
    the fit reuses them. ``name``: the estimator the messages name;
    ``remedy``: what the error for empty agents suggests
    (:func:`~sklearn_eval.utils._empty.check_empty_agents`).
    """
    values, agents, tasks = _check_responses(X)
    _get_feature_names(X)  # rejects mixed column-name types before fitting
    n_agents, n_items = values.shape
    if n_items < 2:
        raise ValueError(
            f"{name} needs at least 2 items (columns); got {n_items}."
        )
    if n_agents < 2:
        raise ValueError(
            f"{name} needs at least 2 agents (rows); got {n_agents}."
        )
    # one rule for agents without any response (raise, or drop with a
    # warning); scikit-learn reads absent sparse entries as 0: the message
    # says "no observed response", and they are missing here
    rows = check_empty_agents(
        values, agents, drop_empty=drop_empty, what=f"{name}.fit", remedy=remedy
    )
    if not rows.all():
        values = values[rows]
        if values.shape[0] < 2:
            raise ValueError(
                f"{name} needs at least 2 agents with a response; got "
                f"{values.shape[0]}."
            )
    successes, observed, _ = _input_counts(values)
    summary = _summary_from_counts(successes, observed)
    if summary.keep.sum() < 2:
        raise ValueError(
            f"{name} needs at least 2 items with both successes and failures; "
            f"got {int(summary.keep.sum())} of {n_items}."
        )
    labels = (
        np.asarray(tasks, dtype=object)
        if tasks is not None
        else column_labels(X, n_items)
    )
    return values, labels, summary, _agent_labels(X, rows.shape[0])[rows]
