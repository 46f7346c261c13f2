"""Numerical core of the continuous information gain (Stephenson et al., 2020).

Everything here works on validated float64 arrays: ``means`` and ``stds`` of
shape (n_agents, n_columns) holding the *final* spreads (any offset already
added). The public wrappers live in :mod:`sklearn_eval.selection._infogain`.

Notation (Stephenson et al. 2020, in a stable log-space form): for
one measure ``m`` and agents ``i, j`` the log kernel is

    L[i, j] = -(mu_i - mu_j)**2 / (2 s_ij**2) - log(s_ij)

with ``s_ij = sigma_i + sigma_j`` (``pair_spread="sum_std"``, the paper) or
``sqrt(sigma_i**2 + sigma_j**2)`` (``pair_spread="pooled"``). The constant
``-log(2 pi) / 2`` cancels in the row normalisation and is dropped. A set of
measures sums the kernels (Eq. 4), the confusion matrix is the row-wise softmax
of the sum and the information gain is ``log2 n - mean_i H2(C[i, :])`` (Eq. 3).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

_LN2 = np.log(2.0)
# Temporary arrays of candidate blocks are kept around 8 MB.
_BLOCK_ELEMENTS = 2**20
# Per-task caches are kept when they fit in this many bytes, otherwise kernels
# are recomputed block by block at every greedy step (same results).
_CACHE_BYTES = 1024 * 2**20
# Below this row normaliser the product form may have lost precision to
# underflow; the step is then evaluated in log space.
_TINY_NORM = 1e-250
# Gains closer than this (bits) to the best are ties: the lowest index wins.
_TIE_BITS = 1e-12
# Magnitude beyond which a column is rescaled before differences and sums.
_HUGE = 1e150
# Largest standardised distance kept in a log kernel (its square is finite).
_MAX_DISTANCE = 1e150


def pair_spread(stds_a, stds_b, scale):
    """Spread ``s_ij`` of every pair, broadcasting ``stds_a`` against ``stds_b``."""
    if scale == "pooled":
        return np.hypot(stds_a, stds_b)
    return stds_a + stds_b


def _unit_columns(means, stds):
    """Means and spreads divided by each column's magnitude.

    A common factor per column changes every log kernel of that column by the
    same constant, which the row normalisation of the confusion matrix
    removes: the gains are unchanged, and differences and sums of means and
    spreads near 1e308 no longer overflow.
    """
    size = np.maximum(np.abs(means).max(axis=0), stds.max(axis=0))
    # only where sums could overflow: ordinary data stay bit for bit
    size = np.where((size > _HUGE) & np.isfinite(size), size, 1.0)
    return means / size, stds / size


def column_log_kernels(means, stds, scale):
    """Log kernels of single columns, shape (n_columns, n_agents, n_agents)."""
    means, stds = _unit_columns(means, stds)
    mu = means.T
    sd = stds.T
    with np.errstate(over="ignore"):
        diff = mu[:, :, None] - mu[:, None, :]
        spread = pair_spread(sd[:, :, None], sd[:, None, :], scale)
        # Cap the standardised distance: beyond 1e150 the kernel is exactly 0
        # anyway, and a finite log kernel keeps 0 * log 0 terms out of the
        # entropies (huge means would otherwise give NaN gains).
        z = np.minimum(np.abs(diff / spread), _MAX_DISTANCE)
    return -0.5 * z**2 - np.log(spread)


def set_log_kernel(means, stds, scale):
    """Log kernel of all columns together (Eq. 4 in log space), shape (n, n)."""
    n_agents = means.shape[0]
    step = max(1, _BLOCK_ELEMENTS // n_agents**2)
    total = np.zeros((n_agents, n_agents))
    for start in range(0, means.shape[1], step):
        columns = slice(start, start + step)
        total += column_log_kernels(means[:, columns], stds[:, columns], scale).sum(
            axis=0
        )
    return total


def log_confusion(log_kernel):
    """Row-normalised log confusion matrix ``log C`` of a log kernel."""
    shifted = log_kernel - log_kernel.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def gains_from_log_kernels(log_kernels, prob_floor=None):
    """Information gain (bits) of each kernel in a stack (..., n, n).

    Row entropies are computed as ``H_i = log Z_i - sum_j C_ij B_ij`` with
    ``B = L - max_j L`` and ``Z = sum_j exp(B)``, which is exact where
    ``exp`` underflows (0 log 0 = 0). With ``prob_floor`` every confusion
    entry that underflows to exactly 0.0 is replaced by the floor without
    renormalising (the reference implementation's convention), which adds
    ``-floor * log(floor)`` to the row entropy per such entry.
    """
    n_agents = log_kernels.shape[-1]
    shifted = log_kernels - log_kernels.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    norm = weights.sum(axis=-1)
    log_norm = np.log(norm)
    entropy = log_norm - np.einsum("...ij,...ij->...i", weights, shifted) / norm
    if prob_floor is not None:
        underflow = np.exp(shifted - log_norm[..., None]) == 0.0
        entropy = entropy - underflow.sum(axis=-1) * prob_floor * np.log(prob_floor)
    gain = (np.log(n_agents) - entropy).mean(axis=-1) / _LN2
    return np.clip(gain, 0.0, np.log2(n_agents))


def confusion_from_log_kernel(log_kernel, prob_floor=None):
    """Confusion matrix (rows = true agents) of a log kernel, optional floor."""
    confusion = np.exp(log_confusion(log_kernel))
    if prob_floor is not None:
        confusion[confusion == 0.0] = prob_floor
    return confusion


class KernelBank:
    """Per-task log kernels and the gains of extending a set by each task.

    Three strategies give the same gains (to rounding):

    - ``"product"`` (exact mode, when memory allows): caches, per task ``t``,
      ``E_t = exp(L_t - max_j L_t)`` and ``F_t = E_t * log E_t``. Because
      ``exp(L_S + L_t) = exp(L_S) * exp(L_t)``, the normaliser and the entropy
      of every candidate set ``S + t`` are row-wise dot products
      (``Z = <E_t, E_S>``, ``sum C log C`` from ``<F_t, E_S>`` and
      ``<E_t, E_S log E_S>``): one batched matrix product per greedy step and
      no exponential. Two arrays of ``n_tasks * n_agents**2`` floats.
    - ``"log"``: caches the log kernels and evaluates every candidate in log
      space (needed for ``prob_floor``, whose underflow test is per entry).
    - ``"blocked"``: recomputes the log kernels block by block at every step
      when even one cache would not fit in memory.

    Parameters
    ----------
    means, stds : ndarray of shape (n_agents, n_columns)
    column_task : ndarray of int of shape (n_columns,)
        Task index (0 .. n_tasks - 1) of every column; a task may own several
        columns (several measures of one game, summed as in Eq. 4).
    n_tasks : int
    scale : {"sum_std", "pooled"}
    prob_floor : float or None
    """

    def __init__(self, means, stds, column_task, n_tasks, scale, prob_floor=None):
        order = np.argsort(column_task, kind="stable")
        self._means = means[:, order]
        self._stds = stds[:, order]
        counts = np.bincount(column_task, minlength=n_tasks)
        self._starts = np.concatenate([[0], np.cumsum(counts)])
        self.n_agents = means.shape[0]
        self.n_tasks = n_tasks
        self.scale = scale
        self.prob_floor = prob_floor
        self.block_size = max(1, _BLOCK_ELEMENTS // self.n_agents**2)
        one_cache = n_tasks * self.n_agents**2 * 8
        if prob_floor is None and 2 * one_cache <= _CACHE_BYTES:
            self.strategy = "product"
            self._build_product_cache()
        elif one_cache <= _CACHE_BYTES:
            self.strategy = "log"
            self._cache = self._compute(0, n_tasks)
        else:
            self.strategy = "blocked"

    def _compute(self, first, stop):
        lo, hi = self._starts[first], self._starts[stop]
        columns = column_log_kernels(
            self._means[:, lo:hi], self._stds[:, lo:hi], self.scale
        )
        if hi - lo == stop - first:
            return columns
        return np.add.reduceat(columns, self._starts[first:stop] - lo, axis=0)

    def _build_product_cache(self):
        n = self.n_agents
        # layout (row i, task, column j) so that each step is a batched matmul
        self._exp = np.empty((n, self.n_tasks, n))
        self._exp_log = np.empty((n, self.n_tasks, n))
        for first in range(0, self.n_tasks, self.block_size):
            stop = min(first + self.block_size, self.n_tasks)
            shifted = self._compute(first, stop)
            shifted -= shifted.max(axis=2, keepdims=True)
            weights = np.exp(shifted)
            self._exp[:, first:stop] = weights.transpose(1, 0, 2)
            self._exp_log[:, first:stop] = (weights * shifted).transpose(1, 0, 2)

    def block(self, first, stop):
        """Log kernels of tasks ``first .. stop - 1``, shape (stop - first, n, n)."""
        if self.strategy == "log":
            return self._cache[first:stop]
        return self._compute(first, stop)

    def candidate_gains(self, current, available):
        """Gain of ``current + kernel(t)`` for every task; -inf where unavailable."""
        gains = None
        if self.strategy == "product":
            gains = self._product_gains(current)
        if gains is None:
            gains = self._log_gains(current, available)
        gains[~available] = -np.inf
        return gains

    def _log_gains(self, current, available):
        gains = np.full(self.n_tasks, -np.inf)
        for first in range(0, self.n_tasks, self.block_size):
            stop = min(first + self.block_size, self.n_tasks)
            if not available[first:stop].any():
                continue
            stack = self.block(first, stop) + current
            gains[first:stop] = gains_from_log_kernels(stack, self.prob_floor)
        return gains

    def _product_gains(self, current):
        shifted = current - current.max(axis=1, keepdims=True)
        weights = np.exp(shifted)
        right = np.stack([weights, weights * shifted], axis=2)  # (n, n, 2)
        sums = np.matmul(self._exp, right)  # (n, n_tasks, 2)
        norm = sums[..., 0]
        if not norm.min() > _TINY_NORM:
            return None  # products underflowed: evaluate in log space instead
        cross = np.matmul(self._exp_log, weights[:, :, None])[..., 0]
        entropy = np.log(norm) - (cross + sums[..., 1]) / norm  # (n, n_tasks)
        gain = (np.log(self.n_agents) - entropy).mean(axis=0) / _LN2
        return np.clip(gain, 0.0, np.log2(self.n_agents))


def _first_best(gains):
    """Lowest index among the candidates tied (within rounding) for the best gain.

    Mathematically equal gains may differ in the last bits depending on the
    evaluation strategy; gains within ``_TIE_BITS`` of the best count as ties.
    """
    return int(np.flatnonzero(gains >= gains.max() - _TIE_BITS)[0])


def greedy_forward(bank, n_select, *, tol=0.0):
    """Greedy forward selection on a :class:`KernelBank`.

    ``n_select`` is an int, or None for the automatic rule: stop as soon as the
    best candidate does not raise the set's gain by more than ``tol`` bits.
    Ties (gains within ``_TIE_BITS`` of the best) go to the lowest task index.

    Returns
    -------
    order : ndarray of int
    cumulative : ndarray of float
    single : ndarray of float
        Gain of every task alone.
    current : ndarray of shape (n, n)
        Log kernel of the selected set.
    """
    n_agents = bank.n_agents
    current = np.zeros((n_agents, n_agents))
    available = np.ones(bank.n_tasks, dtype=bool)
    limit = bank.n_tasks if n_select is None else n_select
    order, cumulative, single = [], [], None
    while len(order) < limit:
        gains = bank.candidate_gains(current, available)
        if single is None:
            single = gains.copy()
        best = _first_best(gains)
        if n_select is None and order and gains[best] <= cumulative[-1] + tol:
            break
        order.append(best)
        cumulative.append(float(gains[best]))
        available[best] = False
        current = current + bank.block(best, best + 1)[0]
    return np.asarray(order, dtype=np.int64), np.asarray(cumulative), single, current


def exhaustive_best(bank, n_select, max_subsets):
    """Best subset of ``n_select`` tasks over all combinations (small problems).

    Subsets are enumerated in lexicographic order; ties (within ``_TIE_BITS``)
    go to the first. Returns the subset (ascending task indices) and its gain.
    """
    n_subsets = math.comb(bank.n_tasks, n_select)
    if n_subsets > max_subsets:
        raise ValueError(
            f"search='exhaustive' would evaluate C({bank.n_tasks}, {n_select}) = "
            f"{n_subsets} subsets, more than the limit of {max_subsets}; use "
            "search='greedy'."
        )
    kernels = bank.block(0, bank.n_tasks)
    block_size = max(1, _BLOCK_ELEMENTS // bank.n_agents**2)
    combos = itertools.combinations(range(bank.n_tasks), n_select)
    best_gain, best_subset = -np.inf, None
    while True:
        block = np.array(list(itertools.islice(combos, block_size)), dtype=np.int64)
        if block.size == 0:
            break
        total = kernels[block[:, 0]].copy()
        for position in range(1, n_select):
            total += kernels[block[:, position]]
        gains = gains_from_log_kernels(total, bank.prob_floor)
        top = _first_best(gains)
        if gains[top] > best_gain + _TIE_BITS:
            best_gain, best_subset = float(gains[top]), block[top]
    return best_subset, best_gain


# ----------------------------------------------------------------------------
# Discrete (binned) baseline of the paper
# ----------------------------------------------------------------------------


def bin_labels(means, bin_width):
    """Integer bin of each mean: ``round(mean / bin_width)``."""
    return np.rint(means / bin_width).astype(np.int64)


def dense_task_labels(bins, column_task, n_tasks):
    """Per task, a dense label (0 .. n - 1) of every agent's tuple of bins."""
    n_agents = bins.shape[0]
    labels = np.empty((n_agents, n_tasks), dtype=np.int64)
    for task in range(n_tasks):
        columns = bins[:, column_task == task]
        labels[:, task] = np.unique(columns, axis=0, return_inverse=True)[1].ravel()
    return labels


def discrete_gains(current, task_labels):
    """Discrete gain of the partition ``current`` refined by each task's labels.

    ``IG = log2 n - (1/n) sum over cells of m log2 m``.
    """
    n_agents, n_tasks = task_labels.shape
    codes = current[:, None] * n_agents + task_labels
    codes = codes + np.arange(n_tasks)[None, :] * n_agents**2
    cells, sizes = np.unique(codes.ravel(), return_counts=True)
    cell_task = cells // n_agents**2
    sum_m_log_m = np.bincount(
        cell_task, weights=sizes * np.log2(sizes), minlength=n_tasks
    )
    return np.log2(n_agents) - sum_m_log_m / n_agents


def greedy_discrete(task_labels, n_select, *, tol=0.0):
    """Greedy forward selection with the discrete gain (same rules as above)."""
    n_agents, n_tasks = task_labels.shape
    current = np.zeros(n_agents, dtype=np.int64)
    available = np.ones(n_tasks, dtype=bool)
    limit = n_tasks if n_select is None else n_select
    order, cumulative, single = [], [], None
    while len(order) < limit:
        gains = discrete_gains(current, task_labels)
        gains[~available] = -np.inf
        if single is None:
            single = gains.copy()
        best = _first_best(gains)
        if n_select is None and order and gains[best] <= cumulative[-1] + tol:
            break
        order.append(best)
        cumulative.append(float(gains[best]))
        available[best] = False
        refined = current * n_agents + task_labels[:, best]
        current = np.unique(refined, return_inverse=True)[1].ravel()
    return np.asarray(order, dtype=np.int64), np.asarray(cumulative), single, current
