"""Compiled loops of IRT2PL: the passes over observed responses, the M-step.

The responses are stored twice, as int codes ``2 * index + response``: by agent
(CSR order: ``2 * item + x``) and by item (CSC order: ``2 * agent + x``). Every
loop here costs O(observed responses x posterior width):

- :func:`posterior_rows` (per agent): the ability posterior on the quadrature
  grid, evaluated only at the nodes within ``cut`` nats of its mode. The
  log-likelihood of an agent is concave in theta, so two evaluated nodes bound
  it (by their secant) at every node beyond them; the window of evaluated
  nodes grows until that bound, plus the prior log-weight, is ``cut`` below
  the best value found. Nodes further than ``cut`` below the mode get weight
  exactly 0. With ``cut = 37`` a dropped node weighs less than ``e^-37 = 8.5e-17``
  of the mode, under half the float64 spacing at 1: the posterior is the full
  one to rounding. With many items per agent (narrow posteriors) the window
  holds a handful of the 121 nodes.
- :func:`count_columns`, :func:`louis_columns`, :func:`rest_columns` (per
  item): expected counts, Louis' score products, rest-of-test posteriors.
- :func:`map_rows` (per agent): MAP abilities by safeguarded Newton.
- :func:`transpose_codes`: the by-item copy of the codes (counting sort).
- :func:`item_objective`, :func:`item_derivatives` (per item, over the grid):
  the M-step's sums, fused into one pass without (nodes x items)
  temporaries (the numpy expressions of :mod:`._mstep` are the fallback).

The functions are plain Python over numpy arrays; with numba (a dependency
where it has wheels) they are compiled on first use (``nogil``, so threads run
them concurrently) and cached on disk. ``SKLEARN_EVAL_DISABLE_NUMBA=1`` or a
missing numba leaves the pure-Python loops (correct, slow: meant for small
data; ``algorithm="auto"`` then runs the dense store's vectorised passes, on
row blocks made dense one at a time for sparse input).
"""


import numpy as np

from ..utils._jit import KernelSet, numba_wanted

# Posterior weights below e^-_TAIL_NATS of the mode's are dropped (see above).
TAIL_NATS = 37.0


def posterior_rows(indptr, codes, log_fail, a, b, nodes, log_w, cut, hint,
                   post, lo, hi, lse, mean, sd):
    """Windowed ability posteriors of a block of agents (CSR codes).

    ``log_fail`` (n_nodes, n_items) holds ``log(1 - P_j(node))``; the
    successes add ``node * sum(a_j) - sum(a_j b_j)`` to an agent's
    log-likelihood. ``hint`` (in/out) is the node at which the search starts
    (the previous mode; -1 for the prior mode). Writes the normalised
    posterior of node ``lo[i] + t`` into ``post[i, t]`` for ``t`` up to
    ``hi[i] - lo[i]`` (compact rows: the later passes read little memory),
    its log-normaliser (the marginal log-likelihood) into ``lse``, mean and
    sd into ``mean`` and ``sd``. Returns the number of node evaluations (each
    costs one pass over the agent's responses).
    """
    n_nodes = nodes.shape[0]
    values = np.empty(n_nodes)
    prior_mode = 0
    for k in range(n_nodes):
        if log_w[k] > log_w[prior_mode]:
            prior_mode = k
    n_eval = 0
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        sum_a = 0.0
        sum_ab = 0.0
        for e in range(start, stop):
            if codes[e] & 1:
                j = codes[e] >> 1
                sum_a += a[j]
                sum_ab += a[j] * b[j]
        first = hint[i] if hint[i] >= 0 else prior_mode
        first = min(max(first, 0), n_nodes - 1)
        k = first
        low = first
        high = first
        best = -np.inf
        done = 0
        while k >= 0:
            total = 0.0
            for e in range(start, stop):
                total += log_fail[k, codes[e] >> 1]
            values[k] = total + nodes[k] * sum_a - sum_ab
            best = max(best, values[k] + log_w[k])
            low = min(low, k)
            high = max(high, k)
            done += 1
            if done == 1:
                k = first + 1 if first + 1 < n_nodes else first - 1
                continue
            k = -1
            if high < n_nodes - 1:  # can a node beyond ``high`` reach best - cut?
                slope = (values[high] - values[high - 1]) / (
                    nodes[high] - nodes[high - 1])
                for m in range(high + 1, n_nodes):
                    bound = values[high] + slope * (nodes[m] - nodes[high])
                    if bound + log_w[m] > best - cut:
                        k = high + 1
                        break
            if k < 0 and low > 0:
                slope = (values[low + 1] - values[low]) / (nodes[low + 1] - nodes[low])
                for m in range(low - 1, -1, -1):
                    bound = values[low] + slope * (nodes[m] - nodes[low])
                    if bound + log_w[m] > best - cut:
                        k = low - 1
                        break
        n_eval += done
        for m in range(low, high + 1):
            values[m] += log_w[m]
        kept_low, kept_high, log_total, m1, spread, mode = _window_jit(
            values, low, high, cut, nodes, post[i])
        lo[i] = kept_low
        hi[i] = kept_high
        # no response: the marginal likelihood is exactly 1 (the prior's mass)
        lse[i] = log_total if stop > start else 0.0
        mean[i] = m1
        sd[i] = spread
        hint[i] = mode
    return n_eval


def count_columns(colptr, codes, post, lo, hi, r_out, n_out):
    """Expected successes and observations per (node, item) of a block of items.

    ``codes`` in CSC order (``2 * agent + x``); ``r_out`` and ``n_out`` of
    shape (n_nodes, n_block_items) are overwritten where an agent's window
    reaches and must be zero elsewhere.
    """
    n_nodes = r_out.shape[0]
    r_col = np.zeros(n_nodes)
    n_col = np.zeros(n_nodes)
    for j in range(colptr.shape[0] - 1):
        first = n_nodes
        last = -1
        for e in range(colptr[j], colptr[j + 1]):
            i = codes[e] >> 1
            first = min(first, lo[i])
            last = max(last, hi[i])
            base = lo[i]
            if codes[e] & 1:
                for t in range(hi[i] - base + 1):
                    n_col[base + t] += post[i, t]
                    r_col[base + t] += post[i, t]
            else:
                for t in range(hi[i] - base + 1):
                    n_col[base + t] += post[i, t]
        for m in range(first, last + 1):
            r_out[m, j] = r_col[m]
            n_out[m, j] = n_col[m]
            r_col[m] = 0.0
            n_col[m] = 0.0


def louis_columns(colptr, codes, post, lo, hi, mean, P, nodes, r_out, n_out,
                  outer):
    """Expected counts and posterior score products of a block of items.

    ``P`` (n_block_items, n_nodes) holds the success probabilities. For each
    observed response, ``e_a = x E[theta] - E[P theta]`` and
    ``e_d = x - E[P]`` under the agent's posterior; ``outer`` (3,
    n_block_items) receives the sums of ``e_a^2``, ``e_a e_d`` and ``e_d^2``.
    """
    n_nodes = r_out.shape[0]
    r_col = np.zeros(n_nodes)
    n_col = np.zeros(n_nodes)
    p_theta = np.empty(n_nodes)
    for j in range(colptr.shape[0] - 1):
        for m in range(n_nodes):
            p_theta[m] = P[j, m] * nodes[m]
        first = n_nodes
        last = -1
        s_aa = 0.0
        s_ad = 0.0
        s_dd = 0.0
        for e in range(colptr[j], colptr[j + 1]):
            i = codes[e] >> 1
            x = codes[e] & 1
            first = min(first, lo[i])
            last = max(last, hi[i])
            expected_p = 0.0
            expected_pt = 0.0
            for m in range(lo[i], hi[i] + 1):
                weight = post[i, m - lo[i]]
                n_col[m] += weight
                if x:
                    r_col[m] += weight
                expected_p += weight * P[j, m]
                expected_pt += weight * p_theta[m]
            e_a = x * mean[i] - expected_pt
            e_d = x - expected_p
            s_aa += e_a * e_a
            s_ad += e_a * e_d
            s_dd += e_d * e_d
        outer[0, j] = s_aa
        outer[1, j] = s_ad
        outer[2, j] = s_dd
        for m in range(first, last + 1):
            r_out[m, j] = r_col[m]
            n_out[m, j] = n_col[m]
            r_col[m] = 0.0
            n_col[m] = 0.0


def rest_columns(colptr, codes, post, lo, hi, P, nodes, expected, rest_theta):
    """Rest-of-test expected success and ability of every observed response.

    The item's own likelihood is divided out of the agent's posterior (``P``
    clipped away from 0 and 1 by the caller); writes one value per response,
    in CSC order.
    """
    for j in range(colptr.shape[0] - 1):
        for e in range(colptr[j], colptr[j + 1]):
            i = codes[e] >> 1
            norm = 0.0
            numerator = 0.0
            moment = 0.0
            if codes[e] & 1:
                for m in range(lo[i], hi[i] + 1):
                    weight = post[i, m - lo[i]] / P[j, m]
                    norm += weight
                    moment += weight * nodes[m]
                expected[e] = 1.0 / norm
            else:
                for m in range(lo[i], hi[i] + 1):
                    weight = post[i, m - lo[i]] / (1.0 - P[j, m])
                    norm += weight
                    numerator += weight * P[j, m]
                    moment += weight * nodes[m]
                expected[e] = numerator / norm
            rest_theta[e] = moment / norm


def map_rows(indptr, codes, a, b, theta, sd, max_iter):
    """MAP abilities under N(0, 1): safeguarded Newton per agent (CSR codes).

    ``theta`` holds the starting points and receives the modes; ``sd`` the
    inverse square root of the posterior curvature at the mode. The
    log-posterior is strictly concave, so its derivative falls through 0
    once: Newton steps (clipped to +-2) are kept inside the bracket of
    points where the derivative was seen positive and negative, and bisect
    it otherwise, or when a Newton step is not below half the step before
    the last (Newton can cycle across a steep item's step, each point
    inside the bracket; the bisection halves the bracket at least every
    other step). Only derivatives are evaluated (one exp per response and
    step); an agent stops once its Newton step is below 1e-10.
    """
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        t = theta[i]
        below = -np.inf  # derivative > 0 here: the mode is above
        above = np.inf
        moved = np.inf  # the step before the last
        last = np.inf
        for _ in range(max_iter):
            grad = -t
            curvature = 1.0
            for e in range(start, stop):
                j = codes[e] >> 1
                z = a[j] * (t - b[j])
                if z >= 0:
                    p = 1.0 / (1.0 + np.exp(-z))
                else:
                    p = np.exp(z) / (1.0 + np.exp(z))
                grad += ((codes[e] & 1) - p) * a[j]
                curvature += p * (1.0 - p) * a[j] * a[j]
            if grad > 0:
                below = t
            elif grad < 0:
                above = t
            else:
                break
            step = min(max(grad / curvature, -2.0), 2.0)
            if abs(step) < 1e-10:  # converged: the last Newton step, unbracketed
                t += step
                break
            if below < t + step < above and 2.0 * abs(step) <= moved:
                new = t + step
            else:
                new = 0.5 * (below + above)
                if not np.isfinite(new):  # the bracket is open: the Newton step
                    new = t + step
            moved, last = last, abs(new - t)
            t = new
        info = 0.0
        for e in range(start, stop):
            j = codes[e] >> 1
            z = a[j] * (t - b[j])
            if z >= 0:
                p = 1.0 / (1.0 + np.exp(-z))
            else:
                p = np.exp(z) / (1.0 + np.exp(z))
            info += p * (1.0 - p) * a[j] * a[j]
        theta[i] = t
        sd[i] = 1.0 / np.sqrt(info + 1.0)


def item_objective(a, b, r, n, nodes, out):
    """``out[j] = sum_k r[k, j] logit_kj + n[k, j] log(1 - P_kj)``.

    Summed over the nodes in order, as numpy's ``sum(axis=0)``.
    """
    for j in range(a.shape[0]):
        out[j] = 0.0
    for k in range(nodes.shape[0]):
        for j in range(a.shape[0]):
            z = a[j] * (nodes[k] - b[j])
            if z <= 0:
                log_fail = -np.log1p(np.exp(z))
            else:
                log_fail = -z - np.log1p(np.exp(-z))
            out[j] += r[k, j] * z + n[k, j] * log_fail


def item_derivatives(a, b, r, n, nodes, out):
    """Gradient and Fisher information in (a, d) of every item's objective.

    ``out`` (5, n_items) receives ``sum resid q``, ``sum resid``,
    ``sum w q^2``, ``sum w q``, ``sum w`` with ``resid = r - n P``,
    ``w = n P (1 - P)`` and ``q`` the node.
    """
    for row in range(5):
        for j in range(a.shape[0]):
            out[row, j] = 0.0
    for k in range(nodes.shape[0]):
        q = nodes[k]
        for j in range(a.shape[0]):
            z = a[j] * (q - b[j])
            if z >= 0:
                p = 1.0 / (1.0 + np.exp(-z))
            else:
                p = np.exp(z) / (1.0 + np.exp(z))
            resid = r[k, j] - n[k, j] * p
            weight = n[k, j] * p * (1.0 - p)
            out[0, j] += resid * q
            out[1, j] += resid
            out[2, j] += weight * q * q
            out[3, j] += weight * q
            out[4, j] += weight


def posterior_rows_tables(indptr, codes, log_p, log_q, nodes, log_w, cut, post,
                          lo, hi, lse, mean, sd):
    """Ability posteriors of a block of agents from per-item log tables.

    For any binary item model: ``log_p`` and ``log_q`` (n_items, n_nodes) hold
    ``log P_j(node)`` and ``log(1 - P_j(node))``. Every node is evaluated (the
    log-likelihood need not be concave in theta, as with a guessing floor);
    nodes more than ``cut`` nats below the mode get weight 0 and the rest is
    written in compact rows as :func:`posterior_rows` does.
    """
    n_nodes = log_w.shape[0]
    values = np.empty(n_nodes)
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        for m in range(n_nodes):
            values[m] = log_w[m]
        for e in range(start, stop):
            j = codes[e] >> 1
            if codes[e] & 1:
                for m in range(n_nodes):
                    values[m] += log_p[j, m]
            else:
                for m in range(n_nodes):
                    values[m] += log_q[j, m]
        kept_low, kept_high, log_total, m1, spread, _ = _window_jit(
            values, 0, n_nodes - 1, cut, nodes, post[i])
        lo[i] = kept_low
        hi[i] = kept_high
        lse[i] = log_total if stop > start else 0.0
        mean[i] = m1
        sd[i] = spread


def normalise_window(values, low, high, cut, nodes, row):
    """Normalised posterior of one agent from its log-joint on ``low..high``.

    ``values[m]`` is log prior + log-likelihood at node ``m``. Nodes more
    than ``cut`` nats below the mode get weight 0; the weights of nodes
    ``kept_low..kept_high`` go to ``row[0..]`` (compact). Returns
    ``(kept_low, kept_high, log normaliser, mean, sd, mode)``.
    """
    peak = -np.inf
    mode = low
    for m in range(low, high + 1):
        if values[m] > peak:
            peak = values[m]
            mode = m
    kept_low = high
    kept_high = low
    for m in range(low, high + 1):
        if values[m] >= peak - cut:
            kept_low = min(kept_low, m)
            kept_high = max(kept_high, m)
    total = 0.0
    for m in range(kept_low, kept_high + 1):
        weight = np.exp(values[m] - peak) if values[m] >= peak - cut else 0.0
        row[m - kept_low] = weight
        total += weight
    m1 = 0.0
    for m in range(kept_low, kept_high + 1):
        row[m - kept_low] /= total
        m1 += row[m - kept_low] * nodes[m]
    # centred second pass: E[t^2] - E[t]^2 cancels to rounding noise when
    # the posterior is narrow (many responses)
    m2 = 0.0
    for m in range(kept_low, kept_high + 1):
        m2 += row[m - kept_low] * (nodes[m] - m1) * (nodes[m] - m1)
    return kept_low, kept_high, peak + np.log(total), m1, np.sqrt(m2), mode


def score_columns(colptr, codes, post, lo, hi, g1, g0, outer):
    """``sum_i E_i[s] E_i[s]^T`` per item of a block of items (CSC codes).

    ``g1`` and ``g0`` (n_block_items, n_nodes, n_params) hold the score of the
    item's parameters at every node for a success and for a failure;
    ``outer`` (n_block_items, n_params, n_params) receives the sums over the
    item's observed responses of the outer product of the posterior-mean
    score.
    """
    n_params = g1.shape[2]
    expected = np.empty(n_params)
    for j in range(colptr.shape[0] - 1):
        for e in range(colptr[j], colptr[j + 1]):
            i = codes[e] >> 1
            for c in range(n_params):
                expected[c] = 0.0
            if codes[e] & 1:
                for m in range(lo[i], hi[i] + 1):
                    weight = post[i, m - lo[i]]
                    for c in range(n_params):
                        expected[c] += weight * g1[j, m, c]
            else:
                for m in range(lo[i], hi[i] + 1):
                    weight = post[i, m - lo[i]]
                    for c in range(n_params):
                        expected[c] += weight * g0[j, m, c]
            for c in range(n_params):
                for c2 in range(n_params):
                    outer[j, c, c2] += expected[c] * expected[c2]


def transpose_codes(indptr, codes, colptr, column_codes):
    """By-item codes ``2 * agent + x`` from by-agent codes ``2 * item + x``.

    A counting sort: ``colptr`` (zeros, n_items + 1) receives the item
    pointers; agents stay in increasing order within every item.
    """
    for e in range(codes.shape[0]):
        colptr[(codes[e] >> 1) + 1] += 1
    for j in range(colptr.shape[0] - 1):
        colptr[j + 1] += colptr[j]
    fill = colptr[:-1].copy()
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            j = codes[e] >> 1
            column_codes[fill[j]] = 2 * i + (codes[e] & 1)
            fill[j] += 1


_numba_wanted = numba_wanted


HAVE_NUMBA = _numba_wanted()
_PYTHON = {
    "posterior_rows": posterior_rows,
    "count_columns": count_columns,
    "louis_columns": louis_columns,
    "rest_columns": rest_columns,
    "map_rows": map_rows,
    "item_objective": item_objective,
    "item_derivatives": item_derivatives,
    "transpose_codes": transpose_codes,
    "posterior_rows_tables": posterior_rows_tables,
    "score_columns": score_columns,
}
_KERNELS = KernelSet(_PYTHON, globals(), {"_window_jit": normalise_window})


def kernel(name):
    """The kernel ``name``: compiled with numba (on first use) when available.

    numba is imported only here, so importing the package stays fast.
    """
    return _KERNELS.get(name, HAVE_NUMBA)


# the pure-Python kernels call the helper as it is
_window_jit = normalise_window
