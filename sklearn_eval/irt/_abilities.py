"""Abilities of agents given fixed items: MAP (safeguarded Newton) or EAP."""

import numpy as np
from scipy.special import expit
from sklearn.utils.parallel import delayed

from ._blocks import _as_float_block, run_chunks
from ._estep import _e_step
from ._kernels import kernel


def _map_raw_block(Y, M, a, b, theta):
    """``_map_block`` on a stored (possibly uint8) block (runs on a worker)."""
    return _map_block(*_as_float_block(Y, M), a, b, theta)


def _map_block(Y, M, a, b, theta, max_iter=100):
    """MAP abilities under N(0, 1) for one block: safeguarded Newton.

    The log-posterior is strictly concave in theta (each term is log-concave
    in the logit), so its derivative falls through 0 once. Each agent's
    Newton step (clipped to +-2) is kept inside the bracket of points where
    the derivative was seen positive and negative, and the bracket is
    bisected otherwise, or when the step is not below half the step before
    the last: Newton alone can cycle across a steep item's step, and
    backtracking on the objective crawls there. The rule of the sparse
    pass (:func:`._kernels.map_rows`), for a block of agents at once; an
    agent stops once its Newton step is below 1e-10.
    """
    theta = np.array(theta, dtype=np.float64)
    below = np.full(theta.shape, -np.inf)  # derivative > 0 here
    above = np.full(theta.shape, np.inf)
    moved = np.full(theta.shape, np.inf)  # the step before the last
    last = np.full(theta.shape, np.inf)
    active = np.ones(theta.shape, dtype=bool)
    for _ in range(max_iter):
        P = expit(a * (theta[:, None] - b))
        expected = P if M is None else M * P
        grad = ((Y - expected) * a).sum(axis=1) - theta
        curvature = (expected * (1.0 - P) * a * a).sum(axis=1) + 1.0
        below = np.where(active & (grad > 0), theta, below)
        above = np.where(active & (grad < 0), theta, above)
        step = np.clip(grad / curvature, -2.0, 2.0)
        done = active & ((grad == 0) | (np.abs(step) < 1e-10))
        newton = theta + step
        with np.errstate(invalid="ignore"):
            middle = 0.5 * (below + above)
        inside = (below < newton) & (newton < above) & (2.0 * np.abs(step) <= moved)
        new = np.where(inside | ~np.isfinite(middle), newton, middle)
        new = np.where(done, newton, new)  # (newton is theta where grad is 0)
        moved, last = last, np.abs(new - theta)
        theta = np.where(active, new, theta)
        active &= ~done
        if not active.any():
            break
    P = expit(a * (theta[:, None] - b))
    info = ((P if M is None else M * P) * (1.0 - P) * a * a).sum(axis=1)
    return theta, 1.0 / np.sqrt(info + 1.0)


def _ability_estimates(data, a, b, grid, method, moments=None):
    """Abilities and their sd for the agents of ``data``, items ``(a, b)`` fixed.

    ``method`` is ``"map"`` (posterior mode, Newton from the posterior mean)
    or ``"eap"`` (posterior mean and sd on ``grid``). ``moments`` are E-step
    moments already computed on ``grid``, if any. The blocks of agents run on
    ``data.parallel`` when set.
    """
    if moments is None:
        moments = _e_step(data, a, b, grid, counts=False, moments=True)
    if method == "eap":
        return moments["mean"].copy(), moments["sd"].copy()
    return data.map_abilities(a, b, moments["mean"])


def _dense_map(data, a, b, start):
    """MAP abilities on dense storage: Newton per block of agents."""
    # blocks are made as they are consumed (a store may build each on demand)
    tasks = ((Y, M, a, b, start[rows]) for rows, Y, M in data.raw_blocks())
    if data.parallel is None or len(data.row_slices()) == 1:
        parts = (_map_raw_block(*task) for task in tasks)
    else:
        parts = data.parallel(delayed(_map_raw_block)(*task) for task in tasks)
    theta = np.empty(data.n_agents)
    sd = np.empty(data.n_agents)
    for rows, (theta_block, sd_block) in zip(data.row_slices(), parts, strict=True):
        theta[rows], sd[rows] = theta_block, sd_block
    return theta, sd


def _sparse_map(data, a, b, start):
    """MAP abilities on sparse storage: Newton per agent, chunks of agents."""
    arguments = [(*data.rows(first, last), a, b, start[first:last])
                 for first, last in data.row_chunks]
    parts = run_chunks(data.parallel, _map_chunk, arguments)
    theta = np.empty(data.n_agents)
    sd = np.empty(data.n_agents)
    for (first, last), (theta_part, sd_part) in zip(data.row_chunks, parts,
                                                    strict=True):
        theta[first:last], sd[first:last] = theta_part, sd_part
    return theta, sd


def _map_chunk(indptr, codes, a, b, start, max_iter=100):
    """MAP abilities of one chunk of agents (runs on a worker)."""
    theta = np.array(start, dtype=np.float64)
    sd = np.empty_like(theta)
    kernel("map_rows")(indptr, codes, a, b, theta, sd, max_iter)
    return theta, sd
