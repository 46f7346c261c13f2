"""Compiled loops of the ordered-category store: posteriors, counts, scores.

The indicator store (:mod:`._graded_store`) holds the responses as a CSR of
indicator columns (one per item and category). Its numpy path computes an
E-step as two sparse products with a dense (agents x nodes) table between
them. The loops here fuse the same sums per agent: the log-likelihood at
every node (the agent's columns of the log table added to a zero row, then the
prior log-weights, in the sparse product's order), the normalised posterior,
and its contributions to the expected counts of the agent's columns, without
the (agents x nodes) temporaries or the transposed copy of the indicators.
:func:`score_rows` does the same for the per-column sums of outer products of
the expected scores (Louis' information).

Measured (GRM 5,000 x 30, 4 categories, 10% missing, 61 nodes, one thread):
see :mod:`._graded_store` for the E-step times on both paths.

The functions are plain Python over numpy arrays; with numba they are
compiled on first use (``nogil``: blocks run concurrently in threads) and
cached on disk. Small stores keep the numpy path (loading the compiled loops
from the cache costs more than it saves): see :data:`COMPILED_FROM`.
"""

import math

import numpy as np

from ..utils._jit import KernelSet, numba_wanted

__all__ = ["COMPILED_FROM", "HAVE_NUMBA", "compiled_for", "kernel"]

# Stores with fewer (responses x nodes) than this keep the numpy path with
# numba too: loading the two compiled loops from the disk cache takes about
# 0.1-0.2 s, which the numpy path spends only from about this size on.
COMPILED_FROM = 1 << 22


def agent_posterior(indptr, cols, i, log_pt, log_w, post):
    """Agent ``i``'s normalised posterior into ``post``; returns its log-likelihood.

    The agent's columns of ``log_pt`` are added to a zero row, then the prior
    log-weights (the order of the numpy path's sparse product).
    """
    n_nodes = log_w.shape[0]
    for q in range(n_nodes):
        post[q] = 0.0
    for e in range(indptr[i], indptr[i + 1]):
        c = cols[e]
        for q in range(n_nodes):
            post[q] += log_pt[c, q]
    peak = -np.inf
    for q in range(n_nodes):
        post[q] += log_w[q]
        if post[q] > peak:
            peak = post[q]
    mass = 0.0
    for q in range(n_nodes):
        post[q] = math.exp(post[q] - peak)
        mass += post[q]
    for q in range(n_nodes):
        post[q] /= mass
    return peak + math.log(mass)


def cut_posterior(post, consts, pieces):
    """``post`` cut into ``pieces`` (n_grids, n_nodes) on the grids of ``consts``.

    Piece ``k`` is what the grids before left, rounded to grid ``k``
    (``(v + c) - c``); see :func:`sklearn_eval.utils._exact_sums.cut`.
    """
    for q in range(post.shape[0]):
        rest = post[q]
        for k in range(consts.shape[0]):
            piece = (rest + consts[k]) - consts[k]
            pieces[k, q] = piece
            rest -= piece


def posterior_rows(indptr, cols, log_pt, log_w, nodes, counts, moments, consts,
                   r, lse, mean, sd):
    """E-step sums of the agents of a CSR block; returns their log-likelihood.

    ``log_pt`` (n_columns, n_nodes): log probability of every indicator
    column's category at every node. With ``counts`` the posteriors, cut on
    the grids of ``consts``, are added to ``r`` (n_grids, n_columns,
    n_nodes) at the agents' columns (exact sums); with ``moments`` each
    agent's log marginal likelihood, posterior mean and sd are written to
    ``lse``, ``mean`` and ``sd``.
    """
    n_nodes = log_w.shape[0]
    n_grids = consts.shape[0]
    post = np.empty(n_nodes)
    pieces = np.empty((n_grids, n_nodes))
    total = 0.0
    for i in range(indptr.shape[0] - 1):
        value = _posterior_jit(indptr, cols, i, log_pt, log_w, post)
        total += value
        if counts:
            _cut_jit(post, consts, pieces)
            for e in range(indptr[i], indptr[i + 1]):
                c = cols[e]
                for k in range(n_grids):
                    for q in range(n_nodes):
                        r[k, c, q] += pieces[k, q]
        if moments:
            m = 0.0
            for q in range(n_nodes):
                m += post[q] * nodes[q]
            v = 0.0
            for q in range(n_nodes):
                v += post[q] * (nodes[q] - m) ** 2
            lse[i] = value
            mean[i] = m
            sd[i] = math.sqrt(v)
    return total


def score_rows(indptr, cols, log_pt, log_w, g, consts, outer):
    """Per column, ``sum_i E_i[s] E_i[s]^T`` of a CSR block's agents.

    ``g`` (n_columns, n_params, n_nodes): the score of every column's
    category at every node; ``outer`` (n_grids, n_columns, n_params,
    n_params) is added to, every product cut on the grids of ``consts``
    (exact sums).
    """
    n_nodes = log_w.shape[0]
    n_params = g.shape[1]
    n_grids = consts.shape[0]
    post = np.empty(n_nodes)
    expected = np.empty(n_params)
    for i in range(indptr.shape[0] - 1):
        _posterior_jit(indptr, cols, i, log_pt, log_w, post)
        for e in range(indptr[i], indptr[i + 1]):
            c = cols[e]
            for p in range(n_params):
                s = 0.0
                for q in range(n_nodes):
                    s += post[q] * g[c, p, q]
                expected[p] = s
            for p in range(n_params):
                for t in range(n_params):
                    rest = expected[p] * expected[t]
                    for k in range(n_grids):
                        piece = (rest + consts[k]) - consts[k]
                        outer[k, c, p, t] += piece
                        rest -= piece


HAVE_NUMBA = numba_wanted()
_PYTHON = {"posterior_rows": posterior_rows, "score_rows": score_rows}
_KERNELS = KernelSet(_PYTHON, globals(), {"_posterior_jit": agent_posterior,
                                          "_cut_jit": cut_posterior})


def compiled_for(n_responses, n_nodes):
    """Whether a store of this size runs the compiled loops."""
    return HAVE_NUMBA and n_responses * n_nodes >= COMPILED_FROM


def kernel(name):
    """The loop ``name``: compiled with numba (on first use) when available."""
    return _KERNELS.get(name, HAVE_NUMBA)


# the pure-Python loops call the helper as it is
_posterior_jit = agent_posterior
_cut_jit = cut_posterior
