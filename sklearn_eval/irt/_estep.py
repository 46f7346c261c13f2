"""E-step of the marginal-likelihood EM for the 2PL model.

With ``theta`` integrated out on a quadrature grid, each agent's posterior
over the grid nodes is ``w_k prod_j P_jk^x (1 - P_jk)^(1-x) / L_i``: two matrix
products per block of agents. Missing responses (mask 0) drop out exactly.
"""

import numpy as np
from scipy.special import log_expit
from sklearn.utils.parallel import delayed

from ._responses import _as_float_block


def _log_normalise(log_joint):
    """Row-wise log-sum-exp and normalised posterior (in place)."""
    peak = log_joint.max(axis=1, keepdims=True)
    np.subtract(log_joint, peak, out=log_joint)
    np.exp(log_joint, out=log_joint)
    total = log_joint.sum(axis=1, keepdims=True)
    log_joint /= total
    return (peak + np.log(total)).ravel(), log_joint


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
    number of workers.
    """
    nodes, log_w = grid.nodes, grid.log_weights
    logits = a * (nodes[:, None] - b)  # (K, J)
    log_fail = log_expit(-logits)
    K, J = logits.shape
    args = (logits, log_fail, log_w, nodes, counts, moments)
    if data.parallel is None or len(data._starts) == 1:
        parts = (_e_step_block(Y, M, *args) for _, Y, M in data.raw_blocks())
    else:
        task = delayed(_e_step_block)
        parts = data.parallel(task(Y, M, *args) for _, Y, M in data.raw_blocks())
    out = {"loglik": 0.0}
    mass = np.zeros(K)
    if counts:
        r = np.zeros((K, J))
        n = np.zeros((K, J)) if data.has_missing else np.zeros(K)
    if moments:
        mean = np.empty(data.n_agents)
        sd = np.empty(data.n_agents)
        per_agent = np.empty(data.n_agents)
    for (rows, _, _), part in zip(data.raw_blocks(), parts, strict=True):
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
    table += log_w
    lse, post = _log_normalise(table)
    part = {"loglik": float(lse.sum()), "mass": post.sum(axis=0)}
    if counts:
        part["r"] = (Y.T @ post).T
        part["n"] = part["mass"] if M is None else (M.T @ post).T
    if moments:
        m1 = post @ nodes
        m2 = post @ nodes**2
        part["moments"] = (m1, np.sqrt(np.maximum(m2 - m1**2, 0.0)), lse)
    return part

