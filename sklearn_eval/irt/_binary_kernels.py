"""Compiled M-step sums of the binary item models (3PL, 4PL).

The M-step of :mod:`._binary_models` evaluates, per item and over the grid
nodes, the expected complete-data log-likelihood and its gradient and Fisher
information (or its negated Hessian) in ``(a, d, gamma, upsilon)``. The
numpy expressions build several (nodes x items) temporaries per call (log
tables, derivatives, their products) and the M-step calls them about ten
times per EM iteration; the loops here compute the same sums in one pass per
item without temporaries (measured on 4,500 items x 121 nodes: see
:func:`binary_objective`).

Same conventions as :mod:`._kernels`: plain Python over numpy arrays, compiled
with numba on first use where it is available, the Python bodies otherwise
(only used when numba is missing: the numpy expressions are then faster and
:mod:`._binary_models` takes those).
"""

import numpy as np

from ..utils._jit import KernelSet
from ._kernels import HAVE_NUMBA

_TINY = 1e-300


def _expit(z):
    if z >= 0:
        return 1.0 / (1.0 + np.exp(-z))
    e = np.exp(z)
    return e / (1.0 + e)


def item_constants(gamma, upsilon):
    """``(g, u, 1 - u, log(u - g))`` of one item (the log NaN when the
    asymptotes are out of order)."""
    g = _expit_jit(gamma)
    u = _expit_jit(upsilon)
    span = u - g
    return g, u, _expit_jit(-upsilon), np.log(span) if span > 0 else np.nan


def _slopes(gamma, upsilon):
    """``g (1 - g)`` and ``u (1 - u)`` without cancellation near 1."""
    return (_expit_jit(gamma) * _expit_jit(-gamma),
            _expit_jit(upsilon) * _expit_jit(-upsilon))


def curve_point(z, g, u, u_bar, log_span):
    """``(P, 1 - P, log P, log(1 - P), s)`` of one item at logit ``z = a q + d``.

    ``s = expit(z)``. ``P = g + (u - g) s`` and ``1 - P = (1 - u) + (u - g)
    (1 - s)`` are sums of positive terms, so they and their logs are accurate
    to rounding (:func:`._binary_models.log_tables` takes the log-sum-exp of
    the same terms); without a lower (upper) asymptote ``log P``
    (``log(1 - P)``) is ``log(u - g) + log s`` (``log(1 - s)``), finite
    however far out ``z`` is. An item whose asymptotes are out of order gets
    the direct, clipped formula of ``log_tables``.
    """
    e = np.exp(-abs(z))
    if z >= 0:
        s = 1.0 / (1.0 + e)
        s_bar = e / (1.0 + e)
    else:
        s = e / (1.0 + e)
        s_bar = 1.0 / (1.0 + e)
    span = u - g
    if np.isnan(log_span):
        P = min(max(g + span * s, _TINY), 1.0)
        Q = min(max(1.0 - g - span * s, _TINY), 1.0)
        return P, Q, np.log(P), np.log(Q), s
    P = g + span * s
    Q = u_bar + span * s_bar
    if g > 0:
        log_p = np.log(P)
    else:
        log_p = log_span + (-np.log1p(e) if z >= 0 else z - np.log1p(e))
    if u_bar > 0:
        log_q = np.log(Q)
    else:
        log_q = log_span + (-z - np.log1p(e) if z >= 0 else -np.log1p(e))
    return P, Q, log_p, log_q, s


def binary_log_tables(params, nodes, log_p, log_q):
    """``log P`` and ``log(1 - P)`` per (node, item) into ``log_p``, ``log_q``."""
    for j in range(params.shape[0]):
        a, d = params[j, 0], params[j, 1]
        g, u, u_bar, log_span = _constants_jit(params[j, 2], params[j, 3])
        for k in range(nodes.shape[0]):
            _, _, log_p[k, j], log_q[k, j], _ = _point_jit(nodes[k] * a + d, g, u,
                                                           u_bar, log_span)


def binary_objective(params, r, n, nodes, out):
    """``out[j] = sum_k r log P + (n - r) log(1 - P)`` (zero counts add 0).

    ``params`` (n_items, 4) rows ``(a, d, gamma, upsilon)``; ``r`` and ``n``
    (n_nodes, n_items) the expected successes and observations.
    """
    for j in range(params.shape[0]):
        a, d = params[j, 0], params[j, 1]
        g, u, u_bar, log_span = _constants_jit(params[j, 2], params[j, 3])
        total = 0.0
        for k in range(nodes.shape[0]):
            successes = r[k, j]
            failures = n[k, j] - successes
            if successes > 0 or failures > 0:
                _, _, log_p, log_q, _ = _point_jit(nodes[k] * a + d, g, u, u_bar,
                                                   log_span)
                if successes > 0:
                    total += successes * log_p
                if failures > 0:
                    total += failures * log_q
        out[j] = total


def binary_gradient_information(params, r, n, nodes, free, exact, grad, info):
    """Gradient and Fisher information (or negated Hessian) of every item's objective.

    ``free`` lists the estimated columns of ``(a, d, gamma, upsilon)``;
    ``grad`` (n_items, n_free) and ``info`` (n_items, n_free, n_free) are
    overwritten with ``sum_k (r - n P) / (P Q) dP`` and
    ``sum_k n / (P Q) dP dP^T``; with ``exact``, ``info`` is the negated
    Hessian ``sum_k r (dP/P)(dP/P)^T + (n - r)(dP/Q)(dP/Q)^T - (r - n P) /
    (P Q) d2P`` (not definite everywhere).
    """
    n_free = free.shape[0]
    dP = np.empty(4)
    d2P = np.zeros((4, 4))
    for j in range(params.shape[0]):
        a, d = params[j, 0], params[j, 1]
        g, u, u_bar, log_span = _constants_jit(params[j, 2], params[j, 3])
        dg, du = _slopes_jit(params[j, 2], params[j, 3])
        span = u - g
        for c in range(n_free):
            grad[j, c] = 0.0
            for e in range(n_free):
                info[j, c, e] = 0.0
        for k in range(nodes.shape[0]):
            if n[k, j] == 0.0 and r[k, j] == 0.0:
                continue
            q = nodes[k]
            P, Q, _, _, s = _point_jit(q * a + d, g, u, u_bar, log_span)
            pq = max(P * Q, _TINY)
            w = s * (1.0 - s)
            dP[0] = span * w * q
            dP[1] = span * w
            dP[2] = dg * (1.0 - s)
            dP[3] = du * s
            resid = (r[k, j] - n[k, j] * P) / pq
            for c in range(n_free):
                grad[j, c] += resid * dP[free[c]]
            if exact:
                w2 = w * (1.0 - 2.0 * s)
                d2P[0, 0] = span * w2 * q * q
                d2P[0, 1] = span * w2 * q
                d2P[1, 1] = span * w2
                d2P[0, 2] = -dg * w * q
                d2P[1, 2] = -dg * w
                d2P[2, 2] = dg * (1.0 - 2.0 * g) * (1.0 - s)
                d2P[0, 3] = du * w * q
                d2P[1, 3] = du * w
                d2P[3, 3] = du * (1.0 - 2.0 * u) * s
                successes = r[k, j]
                failures = n[k, j] - successes
                p_inv = 1.0 / max(P, _TINY)
                q_inv = 1.0 / max(Q, _TINY)
                for c in range(n_free):
                    fc = free[c]
                    for e in range(c, n_free):
                        fe = free[e]
                        info[j, c, e] += (
                            successes * (dP[fc] * p_inv) * (dP[fe] * p_inv)
                            + failures * (dP[fc] * q_inv) * (dP[fe] * q_inv)
                            - resid * d2P[min(fc, fe), max(fc, fe)])
            else:
                weight = n[k, j] / pq
                for c in range(n_free):
                    for e in range(c, n_free):
                        info[j, c, e] += weight * dP[free[c]] * dP[free[e]]
        for c in range(n_free):
            for e in range(c):
                info[j, c, e] = info[j, e, c]


_PYTHON = {
    "binary_log_tables": binary_log_tables,
    "binary_objective": binary_objective,
    "binary_gradient_information": binary_gradient_information,
}
# the helpers the kernels call by these names
_KERNELS = KernelSet(_PYTHON, globals(), {
    "_expit_jit": _expit, "_point_jit": curve_point,
    "_constants_jit": item_constants, "_slopes_jit": _slopes})


def kernel(name):
    """The kernel ``name``, compiled with numba on first use when available."""
    return _KERNELS.get(name, HAVE_NUMBA)


# the Python bodies call the helpers as they are
_expit_jit = _expit
_point_jit = curve_point
_constants_jit = item_constants
_slopes_jit = _slopes
