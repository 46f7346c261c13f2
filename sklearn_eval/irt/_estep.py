"""E-step of the marginal-likelihood EM for the 2PL model.

With ``theta`` integrated out on a quadrature grid, each agent's posterior
over the grid nodes is ``w_k prod_j P_jk^x (1 - P_jk)^(1-x) / L_i``: two matrix
products per block of agents. Missing responses (mask 0) drop out exactly.
On sparse storage (:mod:`._sparse_responses`) the same quantities come from
compiled loops over the observed responses: windowed posteriors per chunk of
agents, then the expected counts per chunk of items.
"""

import numpy as np
from scipy.special import log_expit
from sklearn.utils.parallel import delayed

from ._blocks import _as_float_block, run_chunks
from ._kernels import HAVE_NUMBA, TAIL_NATS, kernel
from ._table_kernels import kernel as table_kernel

# The dense E-step of the binary item models takes a missing response as a
# failure and then off again (:func:`_complement_block`) up to this share of
# missing cells: its products are half as wide as the stacked ones, and the
# compiled correction costs a few times a product's work per missing cell.
# Measured (3PL fits, 20,000 x 60, CPU seconds, complement vs stacked): 0.61
# vs 0.78 at 2% missing, 0.55 vs 0.65 at 10%, even at 20%, 0.57-0.65 vs
# 0.55 at 30%, 0.86-1.08 vs 0.61-0.71 at 40%.
COMPLEMENT_SHARE = 0.2


def _log_normalise(log_joint):
    """Row-wise log-sum-exp and normalised posterior (in place)."""
    peak = log_joint.max(axis=1, keepdims=True)
    np.subtract(log_joint, peak, out=log_joint)
    np.exp(log_joint, out=log_joint)
    total = log_joint.sum(axis=1, keepdims=True)
    log_joint /= total
    return (peak + np.log(total)).ravel(), log_joint


def _posterior_rows(table, log_w):
    """``(lse, post, mass)`` of a block's log-likelihood rows (in place).

    ``table`` (n_rows, n_nodes) becomes the posterior after the log-weights
    ``log_w`` are added; ``mass`` sums it over the rows. One compiled pass
    where numba is available (:func:`._table_kernels.normalise_rows`, nodes
    more than ``TAIL_NATS`` below the mode weighing 0, as on sparse storage),
    numpy otherwise: the same numbers up to rounding.
    """
    if not HAVE_NUMBA:
        table += log_w
        lse, post = _log_normalise(table)
        return lse, post, post.sum(axis=0)
    n_rows, n_nodes = table.shape
    lse = np.empty(n_rows)
    mass = np.zeros(n_nodes)
    nothing = np.empty((0, n_nodes))
    table_kernel("normalise_rows")(table, log_w, np.zeros(n_rows + 1, np.int64),
                                   np.empty(0, np.int64), nothing, TAIL_NATS, lse,
                                   mass, nothing)
    return lse, table, mass


def _log_likelihood_table(Y, M, logits, log_fail):
    """log p(responses of each agent | node): (n_block, n_nodes)."""
    table = Y @ logits.T
    if M is None:
        table += log_fail.sum(axis=1)
    else:
        table += M @ log_fail.T
    return table


def _e_step(data, a, b, grid, *, counts=True, moments=False):
    """One pass over the agents: marginal log-likelihood and expected counts.

    Returns a dict with ``loglik`` (sum over agents), and if ``counts`` the
    expected successes ``r`` and observations ``n`` per (node, item); if
    ``moments`` the posterior mean and sd of every agent and the per-agent
    log-likelihoods. The blocks of agents are independent: with
    ``data.parallel`` set they are computed concurrently and their partial
    sums are added in block order, so the result does not depend on the
    number of workers. The store ``data`` runs the pass its own way
    (:func:`_dense_e_step`, :func:`_sparse_e_step`).
    """
    return data.e_step(a, b, grid, counts=counts, moments=moments)


def _dense_e_step(data, a, b, grid, *, counts=True, moments=False):
    """:func:`_e_step` on dense storage: matrix products per block of agents."""
    logits = a * (grid.nodes[:, None] - b)  # (K, J)
    return _dense_table_e_step(data, logits, log_expit(-logits), grid,
                               counts=counts, moments=moments)


def _dense_table_e_step(data, logits, log_fail, grid, *, counts=True,
                        moments=False, log_success=None):
    """:func:`_dense_e_step` for any binary item model.

    ``logits`` is ``log P - log(1 - P)`` and ``log_fail`` is ``log(1 - P)``
    per (node, item). With ``log_success`` (``log P``) and a store that keeps
    its blocks as ``[successes | failures]`` (:meth:`stacked_blocks`), each
    block takes one matrix product for its table and one for its counts
    instead of two each (:func:`_stacked_block`): the same sums, about half
    the time on data with missing responses.
    """
    nodes, log_w = grid.nodes, grid.log_weights
    K, J = logits.shape
    stacked = log_success is not None and data.has_missing and data.dense
    if stacked and HAVE_NUMBA and (data.n_missing <= COMPLEMENT_SHARE
                                   * data.n_agents * data.n_items):
        function = _complement_block
        args = (np.ascontiguousarray(logits.T), np.ascontiguousarray(log_fail.T),
                log_fail.sum(axis=1), log_w, nodes, counts, moments)
        blocks = data.complement_blocks()
    elif stacked:
        function = _stacked_block
        args = (np.ascontiguousarray(np.hstack([log_success, log_fail]).T), log_w,
                nodes, counts, moments)
        blocks = [(rows, YF, None) for rows, YF in data.stacked_blocks()]
    else:
        function = _e_step_block
        args = (logits, log_fail, log_w, nodes, counts, moments)
        blocks = data.raw_blocks()  # lazy: a store may build them on the fly
    row_slices = ([rows for rows, _, _ in blocks] if stacked
                  else data.row_slices())
    if data.parallel is None or len(row_slices) == 1:
        parts = (function(Y, M, *args) for _, Y, M in blocks)
    else:
        task = delayed(function)
        parts = data.parallel(task(Y, M, *args) for _, Y, M in blocks)
    out = {"loglik": 0.0}
    mass = np.zeros(K)
    if counts:
        r = np.zeros((K, J))
        n = np.zeros((K, J)) if data.has_missing else np.zeros(K)
    if moments:
        mean = np.empty(data.n_agents)
        sd = np.empty(data.n_agents)
        per_agent = np.empty(data.n_agents)
    for rows, part in zip(row_slices, parts, strict=True):
        out["loglik"] += part["loglik"]
        mass += part["mass"]
        if counts:
            r += part["r"]
            n += part["n"]
        if moments:
            mean[rows], sd[rows], per_agent[rows] = part["moments"]
    out["mass"] = mass
    if counts:
        out["r"] = r
        out["n"] = n if n.ndim == 2 else np.broadcast_to(n[:, None], (K, J))
    if moments:
        out["mean"], out["sd"], out["per_agent"] = mean, sd, per_agent
    return out


def _e_step_block(Y, M, logits, log_fail, log_w, nodes, counts, moments):
    """E-step contributions of one block of agents (runs on a worker)."""
    Y, M = _as_float_block(Y, M)
    table = _log_likelihood_table(Y, M, logits, log_fail)
    lse, post, mass = _posterior_rows(table, log_w)
    part = {"loglik": float(lse.sum()), "mass": mass}
    if counts:
        part["r"] = (Y.T @ post).T
        part["n"] = part["mass"] if M is None else (M.T @ post).T
    if moments:
        part["moments"] = _moments(post, nodes, lse)
    return part


def _moments(post, nodes, lse):
    """Posterior mean, sd and log-likelihood of every agent of a block."""
    m1 = post @ nodes
    # centred: E[t^2] - E[t]^2 cancels to rounding noise on narrow posteriors
    variance = np.einsum("ik,ik->i", post, (nodes[None, :] - m1[:, None]) ** 2)
    return m1, np.sqrt(variance), lse


def _stacked_block(YF, _, tables, log_w, nodes, counts, moments):
    """:func:`_e_step_block` on a block ``[Y | F]`` (successes, failures).

    ``tables`` is ``[log P | log(1 - P)]`` transposed, (2 n_items, n_nodes).
    """
    lse, post, mass = _posterior_rows(YF @ tables, log_w)
    part = {"loglik": float(lse.sum()), "mass": mass}
    if counts:
        J = YF.shape[1] // 2
        both = post.T @ YF
        part["r"] = both[:, :J]
        part["n"] = both[:, :J] + both[:, J:]
    if moments:
        part["moments"] = _moments(post, nodes, lse)
    return part



def _complement_block(Y, missing, logits, log_fail, fail_sum, log_w, nodes, counts,
                      moments):
    """:func:`_stacked_block` from the responses ``Y`` (0 where missing) alone.

    A missing response is first counted as a failure, ``Y @ logits +
    sum_j log(1 - P_j)``, and then taken off with the items each agent did not
    answer (``missing``: their pointer and item numbers): one matrix product
    half the stacked one's width for the table and one for the successes,
    the observations being ``mass - (the posterior mass of the agents that
    did not answer)``. ``logits`` and ``log_fail`` are (n_items, n_nodes).
    """
    miss_ptr, miss_items = missing
    table = Y @ logits
    table += fail_sum
    lse = np.empty(table.shape[0])
    mass = np.zeros(table.shape[1])
    miss_mass = np.zeros_like(log_fail)
    table_kernel("normalise_rows")(table, log_w, miss_ptr, miss_items,
                                   log_fail, TAIL_NATS, lse, mass, miss_mass)
    part = {"loglik": float(lse.sum()), "mass": mass}
    if counts:
        part["r"] = table.T @ Y
        # never below the successes where the subtraction rounds
        part["n"] = np.maximum(mass[:, None] - miss_mass.T, part["r"])
    if moments:
        part["moments"] = _moments(table, nodes, lse)
    return part


# ---------------------------------------------------------------- sparse
class _Posteriors:
    """Windowed posteriors of all agents, in compact rows.

    ``post[i, t]`` is agent ``i``'s posterior weight of node ``lo[i] + t``
    for ``t <= hi[i] - lo[i]``; every other node weighs 0.
    """

    def __init__(self, n_agents, width):
        self.post = np.zeros((n_agents, width))
        self.lo = np.empty(n_agents, dtype=np.int64)
        self.hi = np.empty(n_agents, dtype=np.int64)
        self.lse = np.empty(n_agents)
        self.mean = np.empty(n_agents)
        self.sd = np.empty(n_agents)
        self.loglik = 0.0


def _sparse_posteriors(data, a, b, grid, cut=TAIL_NATS):
    """Posterior of every agent on ``grid`` (chunks of agents, in order).

    Updates ``data.hint`` (where the next search starts) as a side effect;
    the posteriors do not depend on it. The last result is kept on ``data``
    and returned again for the same items, grid and cut (the fit asks for
    the posteriors at its final items up to three times).
    """
    key = (a.tobytes(), b.tobytes(), grid.nodes.tobytes(),
           grid.log_weights.tobytes(), float(cut))
    if data.last_posteriors is not None and data.last_posteriors[0] == key:
        return data.last_posteriors[1]
    out = _compute_posteriors(data, a, b, grid, cut)
    data.last_posteriors = (key, out)
    return out


def _compute_posteriors(data, a, b, grid, cut):
    log_fail = log_expit(-(a * (grid.nodes[:, None] - b)))
    arguments = [(*data.rows(start, stop), log_fail, a, b, grid.nodes,
                  grid.log_weights, cut, data.hint[start:stop])
                 for start, stop in data.row_chunks]
    parts = run_chunks(data.parallel, _posterior_chunk, arguments)
    width = max((int(np.max(part[2] - part[1], initial=0)) + 1 for part in parts),
                default=1)
    # a single chunk's rows are kept as they are (no second copy)
    out = _Posteriors(data.n_agents, 0 if len(parts) == 1 else width)
    for (start, stop), part in zip(data.row_chunks, parts, strict=True):
        rows = slice(start, stop)
        (out.lo[rows], out.hi[rows], out.lse[rows], out.mean[rows], out.sd[rows],
         data.hint[rows]) = part[1:]
        if len(parts) == 1:
            out.post = part[0][:, :width]
        else:
            out.post[rows] = part[0][:, :width]
        out.loglik += float(part[3].sum())
    return out


def _node_mass(posteriors, n_nodes):
    """Sum of the agents' posterior weights on every node."""
    mass = np.zeros(n_nodes)
    # one window position at a time: no (agents x width) temporaries
    for t in range(posteriors.post.shape[1]):
        inside = np.flatnonzero(posteriors.hi - posteriors.lo >= t)
        if inside.size == 0:
            break
        mass += np.bincount(posteriors.lo[inside] + t,
                            weights=posteriors.post[inside, t], minlength=n_nodes)
    return mass


def _posterior_chunk(indptr, codes, log_fail, a, b, nodes, log_w, cut, hint):
    """Posteriors of one chunk of agents (runs on a worker)."""
    n_rows, n_nodes = indptr.shape[0] - 1, nodes.shape[0]
    post = np.zeros((n_rows, n_nodes))
    lo = np.empty(n_rows, dtype=np.int64)
    hi = np.empty(n_rows, dtype=np.int64)
    lse, mean, sd = np.empty(n_rows), np.empty(n_rows), np.empty(n_rows)
    hint = hint.copy()
    kernel("posterior_rows")(indptr, codes, log_fail, a, b, nodes, log_w, cut, hint,
                             post, lo, hi, lse, mean, sd)
    return post, lo, hi, lse, mean, sd, hint


def _sparse_counts(data, posteriors, grid):
    """Expected successes and observations per (node, item), chunks of items."""
    n_nodes = len(grid)
    arguments = [(*data.columns(start, stop), posteriors.post, posteriors.lo,
                  posteriors.hi, n_nodes) for start, stop in data.column_chunks]
    parts = run_chunks(data.parallel, _count_chunk, arguments)
    r = np.zeros((n_nodes, data.n_items))
    n = np.zeros((n_nodes, data.n_items))
    for (start, stop), (r_part, n_part) in zip(data.column_chunks, parts,
                                               strict=True):
        r[:, start:stop], n[:, start:stop] = r_part, n_part
    return r, n


def _count_chunk(colptr, codes, post, lo, hi, n_nodes):
    """Expected counts of one chunk of items (runs on a worker)."""
    shape = (n_nodes, colptr.shape[0] - 1)
    r, n = np.zeros(shape), np.zeros(shape)
    kernel("count_columns")(colptr, codes, post, lo, hi, r, n)
    return r, n


def _sparse_e_step(data, a, b, grid, *, counts, moments):
    """:func:`_e_step` on sparse storage: the same dict, in O(responses)."""
    return _e_step_output(data, _sparse_posteriors(data, a, b, grid), grid,
                          counts, moments)


def _table_posteriors(data, log_p, log_q, grid, cut=TAIL_NATS):
    """Posteriors of every agent for any binary item model (sparse storage)."""
    tables = (np.ascontiguousarray(log_p.T), np.ascontiguousarray(log_q.T))
    # item by item within each chunk of agents (:mod:`._table_kernels`)
    arguments = [(data.rows(start, stop)[0], data.colptr, data.column_codes, start,
                  *tables, grid.nodes, grid.log_weights, cut)
                 for start, stop in data.row_chunks]
    parts = run_chunks(data.parallel, _table_posterior_chunk, arguments)
    out = _Posteriors(data.n_agents, len(grid))
    for (start, stop), part in zip(data.row_chunks, parts, strict=True):
        rows = slice(start, stop)
        out.post[rows], out.lo[rows], out.hi[rows] = part[:3]
        out.lse[rows], out.mean[rows], out.sd[rows] = part[3:]
        out.loglik += float(part[3].sum())
    return out


def _table_posterior_chunk(indptr, colptr, column_codes, first, log_p, log_q,
                           nodes, log_w, cut):
    """:func:`_table_posteriors` of one chunk of agents (runs on a worker)."""
    n_rows = indptr.shape[0] - 1
    post = np.zeros((n_rows, nodes.shape[0]))
    lo = np.empty(n_rows, dtype=np.int64)
    hi = np.empty(n_rows, dtype=np.int64)
    lse, mean, sd = np.empty(n_rows), np.empty(n_rows), np.empty(n_rows)
    cursor = np.empty(colptr.shape[0] - 1, dtype=np.int64)
    table_kernel("column_cursors")(colptr, column_codes, first, cursor)
    table_kernel("posterior_rows_by_item")(
        indptr, colptr, column_codes, cursor, first, log_p, log_q, nodes, log_w,
        cut, np.empty((n_rows, nodes.shape[0])), post, lo, hi, lse, mean, sd)
    return post, lo, hi, lse, mean, sd


def _sparse_table_e_step(data, log_p, log_q, grid, *, counts=True, moments=False):
    """:func:`_dense_table_e_step` on sparse storage, in O(responses)."""
    return _e_step_output(data, _table_posteriors(data, log_p, log_q, grid), grid,
                          counts, moments)


def _e_step_output(data, posteriors, grid, counts, moments):
    """The E-step dict from the posteriors of every agent (sparse storage)."""
    out = {"loglik": posteriors.loglik, "mass": _node_mass(posteriors, len(grid))}
    if counts:
        out["r"], out["n"] = _sparse_counts(data, posteriors, grid)
    if moments:
        out["mean"], out["sd"] = posteriors.mean, posteriors.sd
        out["per_agent"] = posteriors.lse
    return out
