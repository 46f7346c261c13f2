"""Standard errors of the 2PL item parameters: Louis' observed information.

Each item's 2x2 observed information is computed with the other items held
fixed (the covariance between items is ignored), block by block over agents.
"""

import numpy as np
from scipy.special import expit, log_expit
from sklearn.utils.parallel import delayed

from ._blocks import _as_float_block, run_chunks
from ._estep import (
    _log_likelihood_table,
    _log_normalise,
    _sparse_posteriors,
    _table_posteriors,
)
from ._kernels import kernel
from ._mstep import _add_priors, _to_discrimination_difficulty

# Responses per piece of the score products' pass over dense blocks: its
# dozen block-sized temporaries then stay in the L2 cache (measured on the
# 3PL, 20,000 x 60: about 0.03 s less per fit than whole 4M-entry blocks).
_SCORE_ENTRIES = 2**16


def _item_information_louis(data, a, b, grid, a_prior, b_prior):
    """Observed information of each item's (a, b), ignoring other items.

    Louis (1982): I = E[complete information] - sum_i Cov_post,i(score_ij),
    computed block by block; returns the three entries of the symmetric 2x2
    matrix in (a, b) coordinates.
    """
    nodes = grid.nodes
    P = expit(a * (nodes[:, None] - b))
    r, n, outer = data.louis_sums(a, b, grid, P)
    J = P.shape[1]
    q = nodes[:, None]
    complete = n * P * (1.0 - P)
    second = r * (1.0 - 2.0 * P) + n * P * P
    diff = complete - second
    info_ad = (
        np.sum(diff * q * q, axis=0) + outer[0],
        np.sum(diff * q, axis=0) + outer[1],
        np.sum(diff, axis=0) + outer[2],
    )
    zero = (np.zeros(J), np.zeros(J))
    _, info_ab = _to_discrimination_difficulty(a, b, zero, info_ad)
    _, info_ab = _add_priors(zero, info_ab, a, b, a_prior, b_prior)
    return info_ab


def _louis_sums(data, a, b, grid, P):
    """Expected counts and ``sum_i E s E s^T`` (aa, ad, dd) over dense blocks."""
    nodes, log_w = grid.nodes, grid.log_weights
    logits = a * (nodes[:, None] - b)
    log_fail = log_expit(-logits)
    K, J = logits.shape
    r = np.zeros((K, J))
    n = np.zeros((K, J))
    outer = [np.zeros(J), np.zeros(J), np.zeros(J)]
    args = (logits, log_fail, log_w, nodes, P)
    if data.parallel is None or len(data._starts) == 1:
        parts = (_louis_block(Y, M, *args) for _, Y, M in data.raw_blocks())
    else:
        task = delayed(_louis_block)
        parts = data.parallel(task(Y, M, *args) for _, Y, M in data.raw_blocks())
    for part in parts:  # partial sums added in block order
        r += part[0]
        n += part[1]
        for total, value in zip(outer, part[2:], strict=True):
            total += value
    return r, n, outer


def _sparse_louis_sums(data, a, b, grid, P):
    """:func:`_louis_sums` on sparse storage, in chunks of items."""
    posteriors = _sparse_posteriors(data, a, b, grid)
    arguments = [(*data.columns(start, stop), posteriors,
                  np.ascontiguousarray(P[:, start:stop].T), grid.nodes)
                 for start, stop in data.column_chunks]
    parts = run_chunks(data.parallel, _louis_chunk, arguments)
    K, J = P.shape
    r, n, outer = np.zeros((K, J)), np.zeros((K, J)), np.zeros((3, J))
    for (start, stop), part in zip(data.column_chunks, parts, strict=True):
        r[:, start:stop], n[:, start:stop], outer[:, start:stop] = part
    return r, n, list(outer)


def _louis_chunk(colptr, codes, posteriors, P_items, nodes):
    """Counts and score products of one chunk of items (runs on a worker)."""
    shape = (nodes.shape[0], colptr.shape[0] - 1)
    r, n, outer = np.zeros(shape), np.zeros(shape), np.zeros((3, shape[1]))
    kernel("louis_columns")(colptr, codes, posteriors.post, posteriors.lo,
                            posteriors.hi, posteriors.mean, P_items, nodes, r, n,
                            outer)
    return r, n, outer


def _louis_block(Y, M, logits, log_fail, log_w, nodes, P):
    """Expected counts and posterior score products of one block of agents."""
    Y, M = _as_float_block(Y, M)
    table = _log_likelihood_table(Y, M, logits, log_fail) + log_w
    _, post = _log_normalise(table)
    Mb = np.ones_like(Y) if M is None else M
    mean = post @ nodes
    e_a = Y * mean[:, None] - Mb * (post @ (P * nodes[:, None]))
    e_d = Y - Mb * (post @ P)
    return (
        (Y.T @ post).T,
        (Mb.T @ post).T,
        np.einsum("ij,ij->j", e_a, e_a),
        np.einsum("ij,ij->j", e_a, e_d),
        np.einsum("ij,ij->j", e_d, e_d),
    )


def _sub_blocks(blocks, rows):
    """``(Y, M)`` of the stored blocks, cut in pieces of ``rows`` agents."""
    rows = max(1, rows)
    for _, Y, M in blocks:
        for start in range(0, Y.shape[0], rows):
            yield Y[start:start + rows], None if M is None else M[start:start + rows]


def _dense_score_products(data, log_p, log_q, grid, g1, g0):
    """``sum_i E_i[s_ij] E_i[s_ij]^T`` per item over dense blocks.

    ``g1``, ``g0`` (n_nodes, n_items, n_params): the score of every item's
    parameters at every node for a success and for a failure.
    """
    n_params = g1.shape[2]
    outer = np.zeros((data.n_items, n_params, n_params))
    logits, log_fail = log_p - log_q, log_q
    for Y, M in _sub_blocks(data.blocks(), _SCORE_ENTRIES // max(data.n_items, 1)):
        table = _log_likelihood_table(Y, M, logits, log_fail) + grid.log_weights
        _, post = _log_normalise(table)
        fail = (1.0 - Y) if M is None else M - Y
        expected = [Y * (post @ g1[:, :, c]) + fail * (post @ g0[:, :, c])
                    for c in range(n_params)]
        for c in range(n_params):
            for c2 in range(c, n_params):
                outer[:, c, c2] += np.einsum("ij,ij->j", expected[c], expected[c2])
                outer[:, c2, c] = outer[:, c, c2]
    return outer


def _sparse_score_products(data, log_p, log_q, grid, g1, g0):
    """:func:`_dense_score_products` on sparse storage, chunks of items."""
    posteriors = _table_posteriors(data, log_p, log_q, grid)
    arguments = [(*data.columns(start, stop), posteriors,
                  np.ascontiguousarray(g1[:, start:stop].transpose(1, 0, 2)),
                  np.ascontiguousarray(g0[:, start:stop].transpose(1, 0, 2)))
                 for start, stop in data.column_chunks]
    parts = run_chunks(data.parallel, _score_chunk, arguments)
    return np.concatenate(parts, axis=0)


def _score_chunk(colptr, codes, posteriors, g1, g0):
    """Score products of one chunk of items (runs on a worker)."""
    outer = np.zeros((g1.shape[0], g1.shape[2], g1.shape[2]))
    kernel("score_columns")(colptr, codes, posteriors.post, posteriors.lo,
                            posteriors.hi, g1, g0, outer)
    return outer


def _standard_errors(info, model):
    iaa, iab, ibb = info
    with np.errstate(divide="ignore", invalid="ignore"):
        if model == "2PL":
            det = iaa * ibb - iab * iab
            se_a = np.sqrt(np.where(det > 0, ibb / det, np.nan))
            se_b = np.sqrt(np.where(det > 0, iaa / det, np.nan))
        else:
            se_b = np.sqrt(np.where(ibb > 0, 1.0 / ibb, np.nan))
            se_a = np.full_like(se_b, np.nan)
            if model == "1PL":
                schur = iaa.sum() - np.sum(iab * iab / ibb)
                se_a[:] = np.sqrt(1.0 / schur) if schur > 0 else np.nan
    return se_a, se_b



def covariance_errors(cov):
    """Standard errors from per-item covariances ``(n_items, p, p)``: the
    square roots of their diagonals, NaN (without a RuntimeWarning) where a
    variance is negative or NaN (an item not at an interior maximum)."""
    with np.errstate(invalid="ignore"):
        return np.sqrt(np.diagonal(cov, axis1=1, axis2=2))


def _finite_theta(theta):
    """Abilities as a float64 vector; ValueError unless all finite."""
    theta = np.asarray(theta, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(theta)):
        raise ValueError("theta must be finite.")
    return theta


def _information_at(a, b, keep, theta):
    """Fisher information ``a^2 P (1 - P)`` per (theta, item); 0 off ``keep``."""
    a = np.where(keep, a, 0.0)
    b = np.where(keep, b, 0.0)
    P = expit(a * (theta[:, None] - b))
    return a * a * P * (1.0 - P)
