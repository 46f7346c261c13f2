"""Storage of ordered-category responses for the E-step, in O(observed).

A response of agent ``i`` in category ``k`` of item ``j`` is a 1 in the
indicator column ``(j, k)`` of a CSR matrix (every other cell absent): the
log-likelihood of every agent at every node is one sparse product with the
table of log category probabilities, and the expected category counts one
product of the transposed indicators with the posteriors. Dense (NaN) and
sparse input give the same indicators, so the same numbers.

Measured (benchmarks/bench_irt_graded.py data, GRM 5,000 x 30, 4
categories, 121 nodes, a loaded 2-core machine): 0.21 s per E-step here
against 0.36 s through the binary sparse store with ``log(1 - P) = 0`` on
the indicator columns (0.05 s against 0.10 s at 61 nodes).

From 2^22 responses x nodes on, with numba, the E-step and the score
products run the fused per-agent loops of :mod:`._graded_kernels` instead
(same sums in the same order, no (agents x nodes) temporaries, no
transposed copy): the GRM fit above with 10% missing, warm, one thread,
0.44 s CPU against 0.58-0.66 s (12 ms per E-step against 24 ms).
"""

import numpy as np

from ..utils._exact_sums import GridSum, cut, grid_constants
from ._blocks import run_chunks
from ._graded_kernels import compiled_for, kernel

# Target number of entries of a block's (agents x nodes) or (agents x columns)
# dense temporaries.
_BLOCK_ENTRIES = 2**22


class _CategoricalResponses:
    """Indicator CSR of the responses, served in blocks of agents.

    ``parallel``: None (serial) or a running ``joblib.Parallel`` that computes
    the blocks concurrently; partial sums are added in block order.
    ``n_responses``: the responses of the whole fit when the store holds a
    partition of them (on a Dask worker; default: its own). Whether the
    compiled loops pay off is decided on it: their loading cost is paid once
    per process, not per partition. ``n_terms``: the agents of the whole
    fit (default: its own), which sets the grids of the sums over agents.

    The expected counts and the score products are summed on fixed grids
    (:class:`sklearn_eval.utils._exact_sums.GridSum`): exact in any order,
    so an in-memory fit and a fit whose agents sit in partitions on Dask
    workers add the very same numbers and agree bit for bit.
    """

    def __init__(self, csr, *, chunk_size=None, parallel=None, n_nodes=121,
                 n_responses=None, n_terms=None):
        self.csr = csr
        self.n_agents, self.n_columns = csr.shape
        self.n_terms = self.n_agents if n_terms is None else int(n_terms)
        # posteriors are at most 1
        self._constants = grid_constants(1.0, self.n_terms)
        self.parallel = parallel
        rows = chunk_size or max(1, _BLOCK_ENTRIES // max(n_nodes, self.n_columns, 1))
        self.blocks = [slice(start, min(start + rows, self.n_agents))
                       for start in range(0, self.n_agents, rows)]
        # the compiled loops read each block's CSR arrays (no transposed copy)
        self.compiled = compiled_for(
            csr.nnz if n_responses is None else n_responses, n_nodes)
        if self.compiled:
            self._parts = [_block_arrays(csr, block) for block in self.blocks]
        else:
            self._parts = [(csr[block], csr[block].T.tocsr()) for block in self.blocks]

    def n_observed(self):
        """Observed responses per agent."""
        return np.diff(self.csr.indptr).astype(np.float64)

    def e_step(self, log_p, grid, *, counts=True, moments=False):
        """Log-likelihood, expected counts per (node, column), posterior moments.

        ``log_p``: log probability of every indicator column's category at
        every node, (n_nodes, n_columns). Returns ``loglik``, and ``r`` (also
        as ``n``: a column is observed exactly where it is 1) with
        ``counts``; ``mean``, ``sd``, ``per_agent`` with ``moments``.
        """
        out = self.e_step_sums(log_p, grid, counts=counts, moments=moments)
        if counts:
            out["r"] = out["n"] = out["r"].value()
        return out

    def e_step_sums(self, log_p, grid, *, counts=True, moments=False):
        """:meth:`e_step` with ``r`` as a ``GridSum`` (to add up exactly)."""
        consts = self._constants
        if self.compiled:
            log_pt = np.ascontiguousarray(log_p.T)
            log_w = np.ascontiguousarray(grid.log_weights)
            nodes = np.ascontiguousarray(grid.nodes, dtype=np.float64)
            arguments = [(indptr, cols, log_pt, log_w, nodes, counts, moments, consts)
                         for indptr, cols in self._parts]
            parts = run_chunks(self.parallel, _compiled_e_step_block, arguments)
        else:
            arguments = [(rows, by_column, log_p, grid.log_weights, grid.nodes,
                          counts, moments, consts) for rows, by_column in self._parts]
            parts = run_chunks(self.parallel, _e_step_block, arguments)
        out = {"loglik": float(sum(part[0] for part in parts))}
        if counts:
            out["r"] = sum((part[1] for part in parts[1:]), parts[0][1])
        if moments:
            for key, index in (("mean", 2), ("sd", 3), ("per_agent", 4)):
                out[key] = np.concatenate([part[index] for part in parts])
        return out

    def score_products(self, log_p, grid, g):
        """Per column, ``sum_i E_i[s] E_i[s]^T`` of the agents in that column.

        ``g``: (n_nodes, n_columns, n_params) scores of the column's category.
        """
        return self.score_product_sums(log_p, grid, g).value()

    def score_product_sums(self, log_p, grid, g):
        """:meth:`score_products` as a ``GridSum`` (to add up exactly).

        A product of expected scores is at most the largest squared score.
        """
        bound = float(np.max(np.abs(g), initial=0.0)) ** 2
        consts = grid_constants(bound, self.n_terms)
        # (columns, params, nodes): as both paths read the scores
        g_t = np.ascontiguousarray(np.transpose(g, (1, 2, 0)))
        if self.compiled:
            log_pt = np.ascontiguousarray(log_p.T)
            log_w = np.ascontiguousarray(grid.log_weights)
            arguments = [(indptr, cols, log_pt, log_w, g_t, consts)
                         for indptr, cols in self._parts]
            parts = run_chunks(self.parallel, _compiled_score_block, arguments)
        else:
            arguments = [(rows, log_p, grid.log_weights, g_t, consts)
                         for rows, _ in self._parts]
            parts = run_chunks(self.parallel, _score_block, arguments)
        return sum(parts[1:], parts[0])


def _block_arrays(csr, block):
    """The CSR arrays (row pointer from 0, column indices) of a block of rows."""
    start, stop = csr.indptr[block.start], csr.indptr[block.stop]
    indptr = (csr.indptr[block.start:block.stop + 1] - start).astype(np.int64)
    return indptr, np.ascontiguousarray(csr.indices[start:stop], dtype=np.int64)


def _compiled_e_step_block(indptr, cols, log_pt, log_w, nodes, counts, moments,
                           consts):
    """:func:`_e_step_block` by the compiled loop (runs on a worker)."""
    n_rows = indptr.shape[0] - 1
    r = np.zeros((len(consts),) + log_pt.shape) if counts else np.zeros((0, 0, 0))
    lse, mean, sd = (np.empty(n_rows if moments else 0) for _ in range(3))
    loglik = kernel("posterior_rows")(indptr, cols, log_pt, log_w, nodes, counts,
                                      moments, consts, r, lse, mean, sd)
    summary = (mean, sd, lse) if moments else (None, None, None)
    return (float(loglik), GridSum(r.transpose(0, 2, 1)) if counts else None,
            *summary)


def _compiled_score_block(indptr, cols, log_pt, log_w, g_t, consts):
    """:func:`_score_block` by the compiled loop (runs on a worker)."""
    outer = np.zeros((len(consts), log_pt.shape[0], g_t.shape[1], g_t.shape[1]))
    kernel("score_rows")(indptr, cols, log_pt, log_w, g_t, consts, outer)
    return GridSum(outer)


def _posteriors(rows, log_p, log_w):
    table = rows @ log_p.T
    table += log_w
    peak = table.max(axis=1, keepdims=True)
    table -= peak
    np.exp(table, out=table)
    total = table.sum(axis=1, keepdims=True)
    table /= total
    return (peak + np.log(total)).ravel(), table


def _e_step_block(rows, by_column, log_p, log_w, nodes, counts, moments, consts):
    """E-step sums of one block of agents (runs on a worker)."""
    lse, post = _posteriors(rows, log_p, log_w)
    r = None
    if counts:  # pieces on the grids: their sparse products are exact
        r = GridSum(np.stack([(by_column @ piece).T for piece in cut(post, consts)]))
    summary = (None, None, None)
    if moments:
        mean = post @ nodes
        sd = np.sqrt(np.einsum("iq,iq->i", post, (nodes - mean[:, None]) ** 2))
        summary = (mean, sd, lse)
    return (float(lse.sum()), r, *summary)


# Responses per piece of the score products' expected scores (numpy path).
_SCORE_CELLS = 2**14


def _expected_scores(post, coo, g_t):
    """Every response's expected scores ``sum_q post[i, q] g_t[c, :, q]``.

    Row by row in numpy's own reduction, so an agent's value does not depend
    on its place in the block (a matrix product's rounding can: BLAS treats
    the rows at a block's edge apart), in pieces of responses.
    """
    n_params = g_t.shape[1]
    out = np.empty((coo.row.size, n_params))
    for start in range(0, coo.row.size, _SCORE_CELLS):
        cells = slice(start, start + _SCORE_CELLS)
        weights = post[coo.row[cells]]
        for p in range(n_params):
            out[cells, p] = (weights * g_t[coo.col[cells], p]).sum(axis=1)
    return out


def _score_block(rows, log_p, log_w, g_t, consts):
    """Score products of one block of agents (runs on a worker).

    ``g_t`` (n_columns, n_params, n_nodes): the scores, as the compiled loop
    reads them.
    """
    _, post = _posteriors(rows, log_p, log_w)
    coo = rows.tocoo()
    n_params = g_t.shape[1]
    expected = _expected_scores(post, coo, g_t)
    outer = np.zeros((len(consts), rows.shape[1], n_params, n_params))
    for p in range(n_params):
        for q in range(p, n_params):
            pieces = cut(expected[:, p] * expected[:, q], consts)
            for k, piece in enumerate(pieces):
                outer[k, :, p, q] = np.bincount(coo.col, weights=piece,
                                                minlength=rows.shape[1])
                outer[k, :, q, p] = outer[k, :, p, q]
    return GridSum(outer)
