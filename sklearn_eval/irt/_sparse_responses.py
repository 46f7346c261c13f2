"""Storage of observed 0/1 responses only, for the IRT passes in O(responses).

A scipy sparse matrix of responses stores what was observed: an explicit 0 is
a wrong answer, an absent entry is missing (a stored NaN is missing too). The
estimators keep such data sparse from validation to the last pass:
:class:`_SparseResponses` holds every response twice as int codes
``2 * index + response``, by agent (CSR order) and by item (CSC order), and the
compiled loops of :mod:`._kernels` read them in chunks of agents or of
items.
"""

import numpy as np
from scipy import sparse

from ._abilities import _sparse_map
from ._estep import _sparse_e_step, _sparse_table_e_step
from ._information import _sparse_louis_sums, _sparse_score_products
from ._item_fit import _sparse_item_fit, _sparse_item_fit_tables
from ._kernels import HAVE_NUMBA, kernel

# Target number of responses per chunk (of agents or of items).
_CHUNK_RESPONSES = 2**22


def sparse_row_counts(csr):
    """Successes and observed responses per agent of a validated CSR."""
    return _stored_counts(csr, by_row=True)


def sparse_column_counts(csr):
    """Successes and observed responses per item of a validated CSR."""
    return _stored_counts(csr, by_row=False)


def _stored_counts(csr, by_row):
    """Sum and number of the non-NaN stored values per row or per column.

    In chunks of entries: no temporary of the size of the matrix.
    """
    if by_row:
        return _row_reduce(csr.indptr, csr.data)
    size = csr.shape[1]
    sums = np.zeros(size)
    counts = np.zeros(size)
    n_entries = int(csr.indptr[-1])
    for first in range(0, n_entries, _CHUNK_RESPONSES):
        last = min(first + _CHUNK_RESPONSES, n_entries)
        index = csr.indices[first:last]
        data = np.asarray(csr.data[first:last], dtype=np.float64)
        seen = ~np.isnan(data)
        if not seen.all():
            index, data = index[seen], data[seen]
        sums += np.bincount(index, weights=data, minlength=size)
        counts += np.bincount(index, minlength=size)
    return sums, counts


def _row_reduce(indptr, data):
    """Sum and number of the non-NaN values of every row segment."""
    n_rows = indptr.shape[0] - 1
    filled = data
    missing = None
    if data.dtype.kind == "f" and np.isnan(data).any():
        missing = np.isnan(data)
        filled = np.where(missing, 0.0, data)
    sums = np.zeros(n_rows)
    counts = np.diff(indptr).astype(np.float64)
    starts = indptr[:-1]
    nonempty = counts > 0
    if nonempty.any():
        sums[nonempty] = np.add.reduceat(filled, starts[nonempty], dtype=np.float64)
        if missing is not None:
            counts[nonempty] -= np.add.reduceat(missing, starts[nonempty],
                                                dtype=np.int64)
    return sums, counts


def _code_dtype(n_agents, n_items):
    return np.int32 if 2 * max(n_agents, n_items) + 1 < 2**31 else np.int64


def codes_from_csr(csr, keep=None):
    """CSR codes ``2 * item + x`` of the observed responses to kept items.

    Returns ``(indptr, codes, n_items)`` with items renumbered among the kept
    ones (``keep`` a boolean mask over the columns, None for all). Works in
    chunks of entries, so the temporaries stay small next to the codes.
    """
    n_agents, n_columns = csr.shape
    if keep is None:
        new_index, n_items = None, n_columns
    else:
        new_index, n_items = np.cumsum(keep) - 1, int(np.sum(keep))
    dtype = _code_dtype(n_agents, n_items)
    n_entries = int(csr.indptr[-1])
    taken = np.ones(n_entries, dtype=bool)
    pieces = []
    for first in range(0, n_entries, _CHUNK_RESPONSES):
        last = min(first + _CHUNK_RESPONSES, n_entries)
        data = csr.data[first:last]
        take = taken[first:last]
        if data.dtype.kind == "f":
            take &= ~np.isnan(data)
        columns = csr.indices[first:last]
        if keep is not None:
            take &= keep[columns]
        columns = columns[take] if new_index is None else new_index[columns[take]]
        codes = columns.astype(dtype)
        codes *= 2
        codes += data[take] == 1
        pieces.append(codes)
    indptr = np.zeros(n_agents + 1, dtype=np.int64)
    if taken.all():
        indptr[:] = csr.indptr
    else:
        np.cumsum(_row_reduce(csr.indptr, taken.astype(np.float64))[0],
                  out=indptr[1:], dtype=np.int64)
    codes = np.concatenate(pieces) if pieces else np.empty(0, dtype=dtype)
    return indptr, codes, n_items


def codes_from_dense(values, keep=None, block_rows=None):
    """CSR codes of the non-NaN entries of a dense matrix (row blocks)."""
    n_agents = values.shape[0]
    columns = slice(None) if keep is None else keep
    n_items = values.shape[1] if keep is None else int(np.sum(keep))
    dtype = _code_dtype(n_agents, n_items)
    rows_per_block = block_rows or max(1, _CHUNK_RESPONSES // max(n_items, 1))
    indptr = np.zeros(n_agents + 1, dtype=np.int64)
    parts = []
    for start in range(0, n_agents, rows_per_block):
        part = values[start:start + rows_per_block][:, columns]
        rows, items = np.nonzero(~np.isnan(part))
        parts.append(2 * items.astype(dtype) + (part[rows, items] == 1).astype(dtype))
        indptr[start + 1:start + part.shape[0] + 1] = np.bincount(
            rows, minlength=part.shape[0])
    np.cumsum(indptr, out=indptr)
    codes = np.concatenate(parts) if parts else np.empty(0, dtype=dtype)
    return indptr, codes, n_items


def _transpose(indptr, codes, n_agents, n_items):
    """CSC codes ``2 * agent + x`` from CSR codes ``2 * item + x``.

    A compiled counting sort with numba, else scipy's conversion.
    """
    if HAVE_NUMBA:
        colptr = np.zeros(n_items + 1, dtype=np.int64)
        column_codes = np.empty_like(codes)
        kernel("transpose_codes")(indptr, codes, colptr, column_codes)
        return colptr, column_codes
    matrix = sparse.csr_array(
        ((codes & 1).astype(np.int8), codes >> 1, indptr), shape=(n_agents, n_items)
    )
    by_item = matrix.tocsc()
    del matrix
    column_codes = by_item.indices.astype(codes.dtype, copy=False)
    column_codes *= 2
    column_codes += by_item.data
    return by_item.indptr.astype(np.int64), column_codes


def _chunks(pointer, n, size, per_chunk):
    """Consecutive ranges of rows (or columns) of about ``per_chunk`` entries."""
    if size is not None:
        return [(s, min(s + size, n)) for s in range(0, n, size)]
    bounds = np.searchsorted(pointer, np.arange(1, pointer[-1] // per_chunk + 1)
                             * per_chunk)
    edges = np.unique(np.concatenate([[0], np.minimum(bounds, n), [n]]))
    return [(int(s), int(e)) for s, e in zip(edges[:-1], edges[1:], strict=True)]


class _SparseResponses:
    """Observed 0/1 responses, by agent and by item, served in chunks.

    ``indptr``/``codes`` hold the responses of each agent (``2 * item + x``),
    ``colptr``/``column_codes`` those of each item (``2 * agent + x``).
    ``hint`` remembers each agent's last posterior mode (a grid node), where
    the next posterior search starts: it changes which nodes are evaluated,
    never the result. ``last_posteriors`` keeps the last posteriors computed.
    ``chunk_size`` agents per chunk of agents (None: about
    ``_CHUNK_RESPONSES`` responses); chunks of items hold about as many.
    ``parallel`` is None or a running ``joblib.Parallel``.
    """

    has_missing = True

    def __init__(self, indptr, codes, n_items, *, chunk_size=None, parallel=None):
        self.n_agents = indptr.shape[0] - 1
        self.n_items = n_items
        self.indptr = indptr
        self.codes = codes
        self.colptr, self.column_codes = _transpose(indptr, codes, self.n_agents,
                                                    n_items)
        self.parallel = parallel
        self.hint = np.full(self.n_agents, -1, dtype=np.int64)
        self.last_posteriors = None  # (key, posteriors), see _sparse_posteriors
        self.row_chunks = _chunks(indptr, self.n_agents, chunk_size, _CHUNK_RESPONSES)
        self.column_chunks = _chunks(self.colptr, n_items, None, _CHUNK_RESPONSES)

    @classmethod
    def from_csr(cls, csr, keep=None, **kwargs):
        indptr, codes, n_items = codes_from_csr(csr, keep)
        return cls(indptr, codes, n_items, **kwargs)

    @classmethod
    def from_dense(cls, values, keep=None, **kwargs):
        indptr, codes, n_items = codes_from_dense(values, keep)
        return cls(indptr, codes, n_items, **kwargs)

    @property
    def n_responses(self):
        return int(self.codes.shape[0])

    def rows(self, start, stop):
        """CSR arrays of agents ``start:stop`` (indptr rebased to 0)."""
        first, last = self.indptr[start], self.indptr[stop]
        return self.indptr[start:stop + 1] - first, self.codes[first:last]

    def columns(self, start, stop):
        """CSC arrays of items ``start:stop`` (colptr rebased to 0)."""
        first, last = self.colptr[start], self.colptr[stop]
        return self.colptr[start:stop + 1] - first, self.column_codes[first:last]

    def row_sums(self):
        """Successes and observed responses per agent."""
        successes = np.empty(self.n_agents)
        for start, stop in self.row_chunks:
            pointer, codes = self.rows(start, stop)
            successes[start:stop] = _segment_sums(pointer, codes & 1)
        return successes, self.n_observed()

    def success_rate(self):
        successes, observed = self.row_sums()
        with np.errstate(invalid="ignore", divide="ignore"):
            return successes / observed

    def n_observed(self):
        return np.diff(self.indptr).astype(np.float64)

    def item_counts(self):
        """Successes and observed responses per item."""
        successes = np.empty(self.n_items)
        for start, stop in self.column_chunks:
            pointer, codes = self.columns(start, stop)
            successes[start:stop] = _segment_sums(pointer, codes & 1)
        return successes, np.diff(self.colptr).astype(np.float64)

    # ------------------------------------------- the operations of a store
    def e_step(self, a, b, grid, *, counts=True, moments=False):
        """Log-likelihood, node mass, expected counts, posterior moments."""
        return _sparse_e_step(self, a, b, grid, counts=counts, moments=moments)

    def e_step_tables(self, log_p, log_q, grid, *, counts=True, moments=False):
        """:meth:`e_step` for any binary item model, from its log tables."""
        return _sparse_table_e_step(self, log_p, log_q, grid, counts=counts,
                                    moments=moments)

    def score_products(self, log_p, log_q, grid, g1, g0):
        """Per item, ``sum_i E_i[s] E_i[s]^T`` of the parameter scores."""
        return _sparse_score_products(self, log_p, log_q, grid, g1, g0)

    def louis_sums(self, a, b, grid, P):
        """Expected counts and posterior score products per item (Louis)."""
        return _sparse_louis_sums(self, a, b, grid, P)

    def map_abilities(self, a, b, start):
        """MAP abilities and their sd, Newton from ``start``."""
        return _sparse_map(self, a, b, start)

    def item_fit(self, a, b, grid):
        """Rest-of-test item-fit statistics and the number of groups."""
        return _sparse_item_fit(self, a, b, grid)

    def item_fit_tables(self, log_p, log_q, grid, max_groups=10):
        """:meth:`item_fit` for any binary item model, from its log tables."""
        return _sparse_item_fit_tables(self, log_p, log_q, grid, max_groups)

    def item_moments(self, total):
        """Per item, over observed responses: n, sum x, sum t, sum x t, sum t^2."""
        sums = np.empty((5, self.n_items))
        sums[0] = np.diff(self.colptr)
        for start, stop in self.column_chunks:
            pointer, codes = self.columns(start, stop)
            x = (codes & 1).astype(np.float64)
            t = total[codes >> 1]
            for row, weights in enumerate((x, t, x * t, t * t), start=1):
                sums[row, start:stop] = _segment_sums(pointer, weights)
        return sums


def _segment_sums(pointer, values):
    """Sums of ``values`` over the segments ``pointer[k]:pointer[k + 1]``."""
    segment = np.repeat(np.arange(pointer.shape[0] - 1), np.diff(pointer))
    return np.bincount(segment, weights=values, minlength=pointer.shape[0] - 1)
