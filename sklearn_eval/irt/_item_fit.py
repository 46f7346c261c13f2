"""Item fit of the binary models: a Q1-type chi-square on rest-of-test posteriors.

The statistic needs, per (node, item), the log-likelihood of a success and a
failure and the success probability: the 2PL's from ``(a, b)``, any binary
model's from its log tables (:func:`item_fit_tables`).
"""

import warnings

import numpy as np
from scipy import sparse
from scipy.special import expit, log_expit

from ..utils._stack import find_stack_level
from ..utils._validation import _py
from ._blocks import run_chunks
from ._estep import (
    _log_likelihood_table,
    _log_normalise,
    _sparse_posteriors,
    _table_posteriors,
)
from ._kernels import TAIL_NATS, kernel

# P is clipped to [_P_FLOOR, 1 - _P_FLOOR] when the item is divided out, which
# can raise a posterior weight by up to 1 / _P_FLOOR: the sparse posteriors
# keep that much more of their tails.
_P_FLOOR = 1e-12


def _rank_key(rest_theta):
    """Rest-of-test abilities rounded to 1e-9 for grouping.

    Agents with the same rest-of-test responses have the same rest-of-test
    ability up to rounding noise; rounded, they tie and keep their row order,
    so the grouping does not depend on the order of floating-point sums.
    """
    return np.round(rest_theta, 9)


def answered_items(values):
    """Which columns of validated responses hold an observed response.

    Dense: a value that is not NaN; sparse: a stored entry (an absent one is
    missing). None where the responses are elsewhere (a Dask collection).
    """
    if sparse.issparse(values):
        return np.diff(values.tocsc().indptr) > 0
    if isinstance(values, np.ndarray):
        return ~np.isnan(values).all(axis=0)
    return None


def without_unanswered(arrays, answered, labels):
    """The item-fit arrays with NaN for the items no agent of X answered.

    An item without a response has no groups to compare: its statistic would
    read 0 and its p-value 1, a perfect fit that was never measured. Warns
    naming them (in place; returns ``arrays``).
    """
    if answered is None or answered.all():
        return arrays
    for array in arrays:
        array[~answered] = np.nan
    missing = np.flatnonzero(~answered)
    names = ", ".join(repr(_py(labels[j])) for j in missing[:5])
    warnings.warn(
        f"item_fit: {missing.size} item{'s' if missing.size > 1 else ''} "
        f"{'have' if missing.size > 1 else 'has'} no response in X ({names}"
        f"{', ...' if missing.size > 5 else ''}): statistic, degrees of freedom "
        "and p-value are NaN there.", UserWarning, stacklevel=find_stack_level())
    return arrays


def _item_fit_on(data, values, keep, a, b, grid):
    """Item fit on the storage ``data`` of ``values``'s kept items."""
    return data.item_fit(a, b, grid)


def _item_fit(values, a, b, grid, max_groups=10):
    """Q1-type item-fit chi-square on rest-of-test posteriors.

    For item j, each agent's ability posterior is recomputed without its own
    response to j (dividing the item's likelihood out of the full posterior),
    which gives the agent's expected success ``E_ij`` and its rest-of-test
    ability ``t_ij`` (posterior mean). Agents who answered j are split into
    ``G = min(10, n // 5)`` (at least 2) equal groups by ``t_ij``; the
    statistic is ``sum_g (O_g - E_g)^2 / sum_{i in g} E_ij (1 - E_ij)``, with
    ``O_g`` and ``E_g`` the observed and expected successes of the group.
    Grouping on the rest of the test keeps the item's own response out of the
    grouping, the usual source of inflated Q1 values (as in Orlando and
    Thissen's S-X2). Returns the statistics and G; the reference
    distribution is chi-square with G - (parameters per item) degrees of
    freedom. Agents tied on the rest-of-test ability (to 1e-9) are grouped
    in row order.
    """
    logits = a * (grid.nodes[:, None] - b)
    return _item_fit_from(values, logits, log_expit(-logits), expit(logits), grid,
                          max_groups)


def _item_fit_from(values, logits, log_fail, P, grid, max_groups=10):
    """:func:`_item_fit` from per-(node, item) tables of any binary model.

    ``logits``: ``log P - log(1 - P)``; ``log_fail``: ``log(1 - P)``; ``P``:
    the success probability.
    """
    observed = ~np.isnan(values)
    Y = np.where(observed, values, 0.0)
    M = None if observed.all() else observed.astype(np.float64)
    nodes = grid.nodes
    P = np.clip(P, _P_FLOOR, 1.0 - _P_FLOOR)
    table = _log_likelihood_table(Y, M, logits, log_fail) + grid.log_weights
    _, post = _log_normalise(table)
    # rest posterior moments for x = 1 (divide by P) and x = 0 (divide by 1 - P)
    inv_p, inv_q = 1.0 / P, 1.0 / (1.0 - P)
    norm1, norm0 = post @ inv_p, post @ inv_q
    expected = np.where(Y == 1, 1.0 / norm1, (post @ (P * inv_q)) / norm0)
    rest_theta = np.where(Y == 1, (post @ (nodes[:, None] * inv_p)) / norm1,
                          (post @ (nodes[:, None] * inv_q)) / norm0)
    n_obs = observed.sum(axis=0)
    n_groups = int(max(2, min(max_groups, values.shape[0] // 5)))
    ranks = np.argsort(np.argsort(np.where(observed, _rank_key(rest_theta), np.inf),
                                  axis=0,
                                  kind="stable"), axis=0)
    group = ranks * n_groups // np.maximum(n_obs, 1)
    statistic = np.zeros(values.shape[1])
    for g in range(n_groups):
        member = observed & (group == g)
        obs = np.sum(Y * member, axis=0)
        exp = np.sum(expected * member, axis=0)
        var = np.sum(expected * (1.0 - expected) * member, axis=0)
        statistic += np.where(var > 0, (obs - exp) ** 2 / np.where(var > 0, var, 1.0),
                              0.0)
    return statistic, n_groups



def _sparse_item_fit(data, a, b, grid, max_groups=10):
    """:func:`_item_fit` on sparse storage, in O(observed responses)."""
    posteriors = _sparse_posteriors(data, a, b, grid,
                                    cut=TAIL_NATS - np.log(_P_FLOOR))
    return _sparse_item_fit_from(data, posteriors,
                                 expit(a * (grid.nodes[:, None] - b)), grid,
                                 max_groups)


def _sparse_item_fit_from(data, posteriors, P, grid, max_groups=10):
    """:func:`_sparse_item_fit` from the posteriors and the success table."""
    P = np.clip(P, _P_FLOOR, 1.0 - _P_FLOOR)
    arguments = [(*data.columns(start, stop), posteriors.post, posteriors.lo,
                  posteriors.hi, np.ascontiguousarray(P[:, start:stop].T),
                  grid.nodes) for start, stop in data.column_chunks]
    parts = run_chunks(data.parallel, _rest_chunk, arguments)
    expected = np.concatenate([part[0] for part in parts])
    rest_theta = np.concatenate([part[1] for part in parts])
    n_obs = np.diff(data.colptr)
    item = np.repeat(np.arange(data.n_items), n_obs)
    # rank within each item by rest-of-test ability, ties by agent (CSC order)
    order = np.lexsort((_rank_key(rest_theta), item))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - data.colptr[item[order]]
    n_groups = int(max(2, min(max_groups, data.n_agents // 5)))
    cell = item * n_groups + rank * n_groups // np.maximum(n_obs[item], 1)
    size = data.n_items * n_groups
    x = (data.column_codes & 1).astype(np.float64)
    obs = np.bincount(cell, weights=x, minlength=size).reshape(-1, n_groups)
    exp = np.bincount(cell, weights=expected, minlength=size).reshape(-1, n_groups)
    var = np.bincount(cell, weights=expected * (1.0 - expected),
                      minlength=size).reshape(-1, n_groups)
    terms = np.where(var > 0, (obs - exp) ** 2 / np.where(var > 0, var, 1.0), 0.0)
    return terms.sum(axis=1), n_groups


def _rest_chunk(colptr, codes, post, lo, hi, P_items, nodes):
    """Rest-of-test moments of one chunk of items (runs on a worker)."""
    expected = np.empty(codes.shape[0])
    rest_theta = np.empty(codes.shape[0])
    kernel("rest_columns")(colptr, codes, post, lo, hi, P_items, nodes, expected,
                           rest_theta)
    return expected, rest_theta


def item_fit_tables(data, log_p, log_q, grid, max_groups=10):
    """Item-fit statistics and the number of groups of any binary model.

    ``log_p``, ``log_q`` (n_nodes, n_items): ``log P`` and ``log(1 - P)`` of
    the model's items on the grid; ``data`` a response store (dense or
    sparse), which runs the pass its own way.
    """
    return data.item_fit_tables(log_p, log_q, grid, max_groups)


def _dense_item_fit_tables(data, log_p, log_q, grid, max_groups=10):
    return _item_fit_from(data.with_nan(), log_p - log_q, log_q, np.exp(log_p),
                          grid, max_groups)


def _sparse_item_fit_tables(data, log_p, log_q, grid, max_groups=10):
    posteriors = _table_posteriors(data, log_p, log_q, grid,
                                   cut=TAIL_NATS - np.log(_P_FLOOR))
    return _sparse_item_fit_from(data, posteriors, np.exp(log_p), grid, max_groups)
