"""Abilities of agents given fixed items: MAP (safeguarded Newton) or EAP."""

import numpy as np
from scipy.special import expit, log_expit
from sklearn.utils.parallel import delayed

from ._blocks import _as_float_block, run_chunks
from ._estep import _e_step
from ._kernels import kernel


def _map_raw_block(Y, M, a, b, theta):
    """``_map_block`` on a stored (possibly uint8) block (runs on a worker)."""
    return _map_block(*_as_float_block(Y, M), a, b, theta)


def _map_block(Y, M, a, b, theta, max_iter=100):
    """MAP abilities under N(0, 1) for one block: safeguarded Newton.

    The objective is concave in theta (each term is log-concave in the logit),
    so Newton with halving converges from any start.
    """

    def objective(t):
        logits = a * (t[:, None] - b)
        fail = log_expit(-logits)
        if M is None:
            ll = (Y * logits).sum(axis=1) + fail.sum(axis=1)
        else:
            ll = (Y * logits).sum(axis=1) + (M * fail).sum(axis=1)
        return ll - 0.5 * t * t

    value = objective(theta)
    for _ in range(max_iter):
        P = expit(a * (theta[:, None] - b))
        expected = P if M is None else M * P
        grad = ((Y - expected) * a).sum(axis=1) - theta
        curv = (expected * (1.0 - P) * a * a).sum(axis=1) + 1.0
        step = grad / curv
        step = np.clip(step, -2.0, 2.0)
        scale = np.ones_like(theta)
        done = np.zeros(theta.shape, dtype=bool)
        for _halving in range(40):
            cand = theta + scale * step
            new = objective(cand)
            ok = ~done & (new >= value - 1e-13 * np.abs(value))
            theta = np.where(ok, cand, theta)
            value = np.where(ok, new, value)
            done |= ok
            if done.all():
                break
            scale = np.where(done, scale, 0.5 * scale)
        if np.max(np.abs(step)) < 1e-10:
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
