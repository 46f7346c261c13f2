"""Ability posteriors of any binary item model, one item at a time.

The 2PL's sparse E-step (:func:`._kernels.posterior_rows`) evaluates an
agent's posterior only near its mode, because the 2PL log-likelihood is concave
in theta. A guessing floor (3PL) or an upper asymptote (4PL) breaks that, and
every node is evaluated (:func:`._kernels.posterior_rows_tables`): for each
response the item's row of the log table (121 nodes, 968 bytes) is added to the
agent's log-joint. Walking agent by agent, consecutive responses hit unrelated
rows of a table of 2 x 36,259 x 121 float64 (70 MB at the Open LLM Leaderboard
shape), so nearly every response waits on main memory.

:func:`posterior_rows_by_item` adds the same terms item by item instead, over
the by-item codes of one chunk of agents: an item's two rows stay in cache
while all its responses in the chunk are added, and the chunk's log-joints
(about a thousand agents x 121 nodes) stay in the L2 cache. Every agent's
terms are still added in increasing item order after its prior log-weight, so
the sums are those of the agent-by-agent loop, bit for bit. Measured on
3,000 x 36,259 at 10% observed: see ``benchmarks/bench_irt_scale.py``.

Bounding the log-likelihood to skip nodes, as the 2PL does, was measured and
dropped: the 3PL's log-likelihood is concave after subtracting ``M theta^2 / 2``
with ``M`` the sum of its responses' largest positive curvatures, but with
3,600 responses per agent that bound left 38-48 of 121 nodes to evaluate
(23-31 with the curvature maxima taken on each side of the window) for 7-9
kept nodes; a bound from per-block maxima of the table rows skipped 60% of the
terms but read each response's row once per evaluated block, 2.3x slower than
one read of the whole row.
"""

import numpy as np

from ..utils._jit import KernelSet
from ._kernels import HAVE_NUMBA, normalise_window


def column_cursors(colptr, column_codes, first_agent, cursor):
    """Per item, the first by-item code of an agent ``>= first_agent``."""
    for j in range(colptr.shape[0] - 1):
        low, high = colptr[j], colptr[j + 1]
        while low < high:  # agents are in increasing order within an item
            middle = (low + high) // 2
            if (column_codes[middle] >> 1) < first_agent:
                low = middle + 1
            else:
                high = middle
        cursor[j] = low


def posterior_rows_by_item(indptr, colptr, column_codes, cursor, first_agent,
                           log_p, log_q, nodes, log_w, cut, values, post, lo, hi,
                           lse, mean, sd):
    """Ability posteriors of agents ``first_agent + i``, item by item.

    ``indptr`` the chunk's CSR pointer (rebased: ``indptr[i]`` for agent
    ``first_agent + i``); ``colptr``, ``column_codes`` the by-item codes
    ``2 * agent + x`` of all agents; ``cursor`` from :func:`column_cursors`
    (advanced past the chunk); ``log_p``, ``log_q`` (n_items, n_nodes);
    ``values`` (n_rows, n_nodes) scratch. Writes what
    :func:`._kernels.posterior_rows_tables` writes, with the same sums.
    """
    n_rows = indptr.shape[0] - 1
    n_nodes = log_w.shape[0]
    stop_agent = first_agent + n_rows
    for i in range(n_rows):
        for m in range(n_nodes):
            values[i, m] = log_w[m]
    for j in range(colptr.shape[0] - 1):
        e = cursor[j]
        end = colptr[j + 1]
        while e < end:
            code = column_codes[e]
            i = (code >> 1) - first_agent
            if i >= n_rows:
                break
            if code & 1:
                for m in range(n_nodes):
                    values[i, m] += log_p[j, m]
            else:
                for m in range(n_nodes):
                    values[i, m] += log_q[j, m]
            e += 1
        cursor[j] = e
    for i in range(n_rows):
        kept_low, kept_high, log_total, m1, spread, _ = _window_jit(
            values[i], 0, n_nodes - 1, cut, nodes, post[i])
        lo[i] = kept_low
        hi[i] = kept_high
        lse[i] = log_total if indptr[i + 1] > indptr[i] else 0.0
        mean[i] = m1
        sd[i] = spread
    return stop_agent


def normalise_rows(table, log_w, miss_ptr, miss_items, log_q, cut, lse, mass,
                   miss_mass):
    """Posterior rows from log-likelihood rows, in place, in one pass per row.

    ``table`` (n_rows, n_nodes): each agent's log-likelihood at every node;
    becomes its posterior weights after ``log_w`` (the grid's log-weights) is
    added. Writes each row's log normaliser to ``lse`` and adds the posterior
    weights of all rows to ``mass``. The numpy equivalent
    (:func:`._estep._log_normalise`) makes five passes over the table and
    two temporaries; this loop reads and writes each row once while it is
    in the L1 cache (measured: 3.5 ms instead of 7-8 ms per E-step on
    20,000 agents x 31 nodes, about a sixth of the 3PL's dense E-step).

    Rows computed as if every item were answered (a missing response counted
    as a failure: ``sum_j y_ij (log P_j - log Q_j) + sum_j log Q_j``) are
    corrected first: the items agent ``i`` did not answer,
    ``miss_items[miss_ptr[i]:miss_ptr[i + 1]]``, have their ``log_q`` rows
    (n_items, n_nodes) taken off; after normalising, the agent's posterior is
    added to the ``miss_mass`` row of each of those items, so that an item's
    expected observations are ``mass - miss_mass[item]``. With no missing
    items (``miss_ptr`` all 0) the rows are normalised as they are.

    Nodes more than ``cut`` nats below a row's mode weigh 0 (with ``cut`` =
    37 they weigh below float64 rounding next to the mode's; skipping their
    ``exp`` saved 2.5 ms of 11 per E-step on 20,000 x 31 posteriors of 54
    responses each).
    """
    n_rows, n_nodes = table.shape
    for i in range(n_rows):
        for e in range(miss_ptr[i], miss_ptr[i + 1]):
            j = miss_items[e]
            for m in range(n_nodes):
                table[i, m] -= log_q[j, m]
        peak = -np.inf
        for m in range(n_nodes):
            value = table[i, m] + log_w[m]
            table[i, m] = value
            if value > peak:
                peak = value
        total = 0.0
        floor = peak - cut
        for m in range(n_nodes):
            value = table[i, m]
            weight = np.exp(value - peak) if value >= floor else 0.0
            table[i, m] = weight
            total += weight
        for m in range(n_nodes):
            table[i, m] /= total
            mass[m] += table[i, m]
        lse[i] = peak + np.log(total)
        for e in range(miss_ptr[i], miss_ptr[i + 1]):
            j = miss_items[e]
            for m in range(n_nodes):
                miss_mass[j, m] += table[i, m]


_PYTHON = {"column_cursors": column_cursors,
           "posterior_rows_by_item": posterior_rows_by_item,
           "normalise_rows": normalise_rows}
_KERNELS = KernelSet(_PYTHON, globals(), {"_window_jit": normalise_window})


def kernel(name):
    """The kernel ``name``, compiled with numba on first use when available."""
    return _KERNELS.get(name, HAVE_NUMBA)


# the Python body calls the helper as it is
_window_jit = normalise_window
