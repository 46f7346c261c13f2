"""Stationary distributions of alpha-Rank's Markov chains, overflow-free.

alpha-Rank's transition probabilities are fixation probabilities that span
hundreds of orders of magnitude at large ranking intensity, so the chains are
nearly decomposable and ``exp`` overflows in the textbook formula. Everything
here takes *log* transition rates:

* :func:`log_fixation` evaluates ``log rho(u)`` for any real ``u`` without
  overflow;
* :func:`stationary_from_log_rates` finds the stationary distribution: rows
  are rescaled in log space (which only rescales the answer), then the
  Grassmann-Taksar-Heyman (GTH) elimination runs in the linear domain when no
  rate underflows and in the log domain otherwise; at 1,000 states and more a
  direct solve is used (sparse LU for sparse chains, LAPACK for dense ones);
* :func:`leading_order_stationary` is GTH in "leading-order arithmetic" on
  rates ``c * exp(-alpha * R)``: GTH never subtracts, so the leading term of
  every intermediate quantity is exact, and the result is the exact
  ``alpha -> inf`` limit of the stationary distribution.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph
from scipy.sparse.linalg import spsolve
from scipy.special import logsumexp

from ..utils._stack import find_stack_level

__all__ = [
    "leading_order_stationary",
    "log_fixation",
    "sink_components",
    "stationary_from_log_rates",
]

#: from this many states on, the stationary distribution is a sparse solve
SPARSE_MIN_STATES = 1000
#: from this many states on, a chain whose rates underflow (below 1e-308 of
#: their row's largest) is solved as the larger chains are, without those
#: rates, where the chain stays strongly connected without them: by the
#: linear elimination (componentwise accurate, O(n^3) multiplications) instead
#: of the log-space one (O(n^3) exponentials and logarithms: about 4 s at 990
#: states, run at every alpha of a sweep). Measured on HELM Lite's 90 models x
#: 11 scenarios (990 states): the sweep's 6 log-space eliminations replaced,
#: the same distributions to 1.4e-15, the fit 8.7 s instead of 23 s on a
#: loaded machine; on chains whose rates spread over hundreds of log units,
#: 3e-14 relative.
FLUSHED_GTH_MIN_STATES = 300
_TINY_NORMAL = np.finfo(np.float64).tiny
_LOG_TINY = np.log(_TINY_NORMAL) + 1.0


def log_fixation(u, population_size):
    """Log of the fixation probability ``(1 - e^-u) / (1 - e^-(m u))``.

    ``u = alpha * (payoff gain of the mutant)``; ``u = 0`` gives the neutral
    ``1 / m``. Negative ``u`` is rewritten as ``-(m - 1)|u| + log(...)`` with
    ``expm1`` so nothing overflows or cancels.
    """
    u = np.asarray(u, dtype=np.float64)
    m = float(population_size)
    out = np.full(u.shape, -np.log(m))
    pos = u > 1e-300
    neg = u < -1e-300
    up = u[pos]
    out[pos] = np.log(-np.expm1(-up)) - np.log(-np.expm1(-m * up))
    v = -u[neg]
    out[neg] = -(m - 1.0) * v + np.log(-np.expm1(-v)) - np.log(-np.expm1(-m * v))
    return out


def _gth_linear(R):
    """GTH elimination on a dense matrix of non-negative off-diagonal rates.

    Each step divides the eliminated state's exit rates by their total (at
    most 1 each) rather than the rates into it, and the back-substitution
    divides by that total: the same quotients, none of which overflows. The
    back-substitution runs on logarithms (O(n^2) of them), so masses that
    span more than the double range come out as their logarithms, not as
    inf. A subnormal exit total (a few significant digits left) raises
    ``FloatingPointError``: the caller takes the log-space elimination.
    """
    A = np.array(R, dtype=np.float64)
    np.fill_diagonal(A, 0.0)
    n = A.shape[0]
    totals = np.empty(n)
    for k in range(n - 1, 0, -1):
        total = A[k, :k].sum()
        if not total > 0:
            raise FloatingPointError("reducible chain in linear GTH")
        if total < _TINY_NORMAL:  # a few significant digits left: log space
            raise FloatingPointError("subnormal exit total in linear GTH")
        totals[k] = total
        A[:k, :k] += np.outer(A[:k, k], A[k, :k] / total)
    log_pi = np.empty(n)
    log_pi[0] = 0.0
    with np.errstate(divide="ignore"):
        log_a = np.log(A)
        log_totals = np.log(totals[1:])
    for k in range(1, n):
        log_pi[k] = logsumexp(log_pi[:k] + log_a[:k, k]) - log_totals[k - 1]
    return log_pi


def _gth_log(L):
    """GTH elimination with every quantity kept as its logarithm."""
    A = np.array(L, dtype=np.float64)
    np.fill_diagonal(A, -np.inf)
    n = A.shape[0]
    for k in range(n - 1, 0, -1):
        log_total = logsumexp(A[k, :k])
        if not np.isfinite(log_total):
            raise ValueError("the chain is reducible: some state cannot be left.")
        A[:k, k] -= log_total
        with np.errstate(invalid="ignore"):
            A[:k, :k] = np.logaddexp(A[:k, :k], A[:k, k][:, None] + A[k, :k][None, :])
    log_pi = np.empty(n)
    log_pi[0] = 0.0
    for k in range(1, n):
        log_pi[k] = logsumexp(log_pi[:k] + A[:k, k])
    return log_pi


def _normalise_log(log_pi):
    pi = np.exp(log_pi - logsumexp(log_pi))
    return pi / pi.sum()


def _dense_log_rates(src, dst, log_rate, n):
    L = np.full((n, n), -np.inf)
    L[src, dst] = log_rate
    return L


def _row_shift(src, log_rate, n):
    shift = np.full(n, -np.inf)
    np.maximum.at(shift, src, log_rate)
    if not np.all(np.isfinite(shift)):
        raise ValueError("the chain is reducible: some state cannot be left.")
    return shift


def _sparse_stationary(src, dst, scaled, n):
    """Solve ``pi Q = 0``, ``sum(pi) = 1`` (scaled rates); None if reducible.

    Sparse LU when the chain is sparse (two populations: each profile has
    ``n_agents + n_tasks - 2`` neighbours); a dense LAPACK solve when more
    than a tenth of the entries are nonzero (one population, where every
    agent can invade every other).
    """
    rates = np.exp(scaled)
    keep = rates > 0
    src, dst, rates = src[keep], dst[keep], rates[keep]
    if not _strongly_connected(src, dst, n):
        return None
    out = np.bincount(src, weights=rates, minlength=n)
    # balance equations Q^T pi = 0, the best-connected one replaced by sum = 1
    pivot = int(np.argmax(out))
    rows = np.concatenate([dst, np.arange(n)])
    cols = np.concatenate([src, np.arange(n)])
    vals = np.concatenate([rates, -out])
    live = rows != pivot
    rows = np.concatenate([rows[live], np.full(n, pivot)])
    cols = np.concatenate([cols[live], np.arange(n)])
    vals = np.concatenate([vals[live], np.ones(n)])
    rhs = np.zeros(n)
    rhs[pivot] = 1.0
    if rows.size > 0.1 * n * n:
        A = np.zeros((n, n))
        np.add.at(A, (rows, cols), vals)
        pi = np.linalg.solve(A, rhs)
    else:
        A = sp.csc_array((vals, (rows, cols)), shape=(n, n))
        pi = spsolve(A, rhs)
    if not np.all(np.isfinite(pi)):
        return None
    pi = np.clip(pi, 0.0, None)
    with np.errstate(divide="ignore"):
        return np.log(pi)


def stationary_from_log_rates(src, dst, log_rate, n_states):
    """Stationary distribution of a chain given by its log transition rates.

    Parameters
    ----------
    src, dst : ndarray of int of shape (n_moves,)
        Each possible move ``src -> dst`` (``src != dst``).
    log_rate : ndarray of shape (n_moves,)
        Log of its transition probability (finite).
    n_states : int

    Returns
    -------
    pi : ndarray of shape (n_states,)
        Non-negative, summing to 1.
    method : str
        ``"gth"``, ``"gth-log"`` or ``"sparse"``.
    """
    src = np.asarray(src, dtype=np.intp)
    dst = np.asarray(dst, dtype=np.intp)
    log_rate = np.asarray(log_rate, dtype=np.float64)
    if n_states == 1:
        return np.ones(1), "gth"
    shift = _row_shift(src, log_rate, n_states)
    # dividing row s by exp(shift[s]) multiplies pi[s] by exp(shift[s])
    scaled = log_rate - shift[src]
    underflow = bool(np.any(scaled < _LOG_TINY))
    if n_states >= SPARSE_MIN_STATES:
        log_pi = _sparse_stationary(src, dst, scaled, n_states)
        if log_pi is not None:
            return _normalise_log(log_pi - shift), "sparse"
        warnings.warn(
            f"The {n_states}-state chain is numerically reducible at this alpha "
            "(rates below 1e-308 of their row's largest); falling back to the "
            "exact log-space elimination, which takes O(n^3) time.",
            RuntimeWarning,
            stacklevel=find_stack_level(),
        )
    L = _dense_log_rates(src, dst, scaled, n_states)
    flushed = underflow and FLUSHED_GTH_MIN_STATES <= n_states < SPARSE_MIN_STATES
    if (not underflow and n_states < SPARSE_MIN_STATES) or (
            flushed and _connected_without_underflow(src, dst, scaled, n_states)):
        try:  # reducible, or a subnormal exit total: FloatingPointError
            log_pi = _gth_linear(np.exp(L))
        except FloatingPointError:
            log_pi = None
        # no NaN or inf leaves the solver: the log-space elimination instead,
        # as for every other failure
        if log_pi is not None and not np.any(np.isnan(log_pi) | (log_pi == np.inf)):
            return _normalise_log(log_pi - shift), "gth"
    return _normalise_log(_gth_log(L) - shift), "gth-log"


def _connected_without_underflow(src, dst, scaled, n):
    """Whether the moves whose rates do not underflow join every state."""
    keep = scaled >= _LOG_TINY
    return _strongly_connected(src[keep], dst[keep], n)


def _strongly_connected(src, dst, n):
    """Whether the moves ``src -> dst`` join every one of ``n`` states."""
    graph = sp.csr_array((np.ones(src.shape[0]), (src, dst)), shape=(n, n))
    n_comp, _ = csgraph.connected_components(graph, directed=True,
                                             connection="strong")
    return n_comp == 1


def sink_components(graph):
    """Sink strongly connected components of a directed graph.

    A sink component is a strongly connected set of nodes with no edge
    leaving it. In alpha-Rank's response graph (an edge from a profile to
    every profile that a deviation makes at least as good), the sink
    components are where the stationary distribution concentrates as the
    ranking intensity ``alpha`` grows.

    Parameters
    ----------
    graph : array-like or sparse matrix of shape (n_nodes, n_nodes)
        Adjacency matrix: a nonzero ``graph[i, j]`` is an edge ``i -> j``.
        The diagonal is ignored.

    Returns
    -------
    list of ndarray of int
        The nodes of each sink component (sorted), components ordered by
        their smallest node.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.game import sink_components
    >>> cycle_and_tail = np.array([[0, 1, 0, 0],
    ...                            [0, 0, 1, 0],
    ...                            [1, 0, 0, 0],
    ...                            [1, 0, 0, 0]])
    >>> sink_components(cycle_and_tail)
    [array([0, 1, 2])]
    """
    G = _as_graph(graph)
    n = G.shape[0]
    n_comp, labels = csgraph.connected_components(
        G, directed=True, connection="strong"
    )
    coo = G.tocoo()
    leaves = labels[coo.row] != labels[coo.col]
    has_exit = np.zeros(n_comp, dtype=bool)
    has_exit[labels[coo.row[leaves]]] = True
    comps = [np.flatnonzero(labels == c) for c in range(n_comp) if not has_exit[c]]
    return sorted(comps, key=lambda c: int(c[0])) if n else []


def _as_graph(graph):
    if sp.issparse(graph):
        G = sp.csr_array(graph, dtype=np.float64)
    else:
        G = np.asarray(graph, dtype=np.float64)
        if G.ndim != 2:
            raise ValueError(f"graph must be a 2-D square matrix; got shape {G.shape}.")
        G = sp.csr_array(G)
    if G.shape[0] != G.shape[1]:
        raise ValueError(f"graph must be square; got shape {G.shape}.")
    G = G.tolil()
    G.setdiag(0)
    G = G.tocsr()
    G.eliminate_zeros()
    return G


def leading_order_stationary(rate, resistance, tol=1e-9):
    """Exact ``alpha -> inf`` limit of a chain with rates ``c e^(-alpha R)``.

    GTH elimination where every quantity is its leading term ``c e^(-alpha
    R)``: products add resistances, quotients subtract them, and a sum keeps
    the terms of smallest resistance (adding their coefficients). GTH has no
    subtraction, so no leading term ever cancels and the result is exact.

    Parameters
    ----------
    rate : ndarray of shape (n, n)
        Coefficients ``c >= 0`` (0 = impossible move); diagonal ignored.
    resistance : ndarray of shape (n, n)
        Exponents ``R`` (finite where ``rate > 0``).
    tol : float
        Resistances closer than ``tol`` (relative to the largest) are equal.

    Returns
    -------
    ndarray of shape (n,)
        The limit distribution.
    """
    C = np.array(rate, dtype=np.float64)
    R = np.where(C > 0, np.asarray(resistance, dtype=np.float64), np.inf)
    np.fill_diagonal(C, 0.0)
    np.fill_diagonal(R, np.inf)
    n = C.shape[0]
    finite = R[np.isfinite(R)]
    atol = tol * max(1.0, float(np.abs(finite).max()) if finite.size else 1.0) * n
    for k in range(n - 1, 0, -1):
        c_tot, r_tot = _leading_sum(C[k, :k], R[k, :k], atol)
        if not c_tot > 0:
            raise ValueError("the chain is reducible: some state cannot be left.")
        C[:k, k] /= c_tot
        R[:k, k] -= r_tot
        c_new = np.outer(C[:k, k], C[k, :k])
        r_new = R[:k, k][:, None] + R[k, :k][None, :]
        C[:k, :k], R[:k, :k] = _leading_add(C[:k, :k], R[:k, :k], c_new, r_new, atol)
    c_pi = np.empty(n)
    r_pi = np.empty(n)
    c_pi[0], r_pi[0] = 1.0, 0.0
    for k in range(1, n):
        c_pi[k], r_pi[k] = _leading_sum(c_pi[:k] * C[:k, k], r_pi[:k] + R[:k, k], atol)
    best = r_pi.min()
    weight = np.where(r_pi <= best + atol, c_pi, 0.0)
    return weight / weight.sum()


def _leading_sum(c, r, atol):
    live = c > 0
    if not live.any():
        return 0.0, np.inf
    r_min = r[live].min()
    return float(c[live & (r <= r_min + atol)].sum()), float(r_min)


def _leading_add(c1, r1, c2, r2, atol):
    live1 = c1 > 0
    live2 = c2 > 0
    r1 = np.where(live1, r1, np.inf)
    r2 = np.where(live2, r2, np.inf)
    with np.errstate(invalid="ignore"):
        same = live1 & live2 & (np.abs(r1 - r2) <= atol)
        take2 = live2 & ~same & (r2 < r1)
    c = np.where(take2, c2, c1)
    r = np.where(take2, r2, r1)
    c = np.where(same, c1 + c2, c)
    r = np.where(same, np.minimum(r1, r2), r)
    return c, r
