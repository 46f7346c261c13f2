"""Item fit of the 2PL model: a Q1-type chi-square on rest-of-test posteriors."""

import numpy as np
from scipy.special import expit, log_expit

from ._estep import _log_likelihood_table, _log_normalise


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
    freedom.
    """
    observed = ~np.isnan(values)
    Y = np.where(observed, values, 0.0)
    M = None if observed.all() else observed.astype(np.float64)
    nodes = grid.nodes
    logits = a * (nodes[:, None] - b)
    P = np.clip(expit(logits), 1e-12, 1.0 - 1e-12)
    table = _log_likelihood_table(Y, M, logits, log_expit(-logits)) + grid.log_weights
    _, post = _log_normalise(table)
    # rest posterior moments for x = 1 (divide by P) and x = 0 (divide by 1 - P)
    inv_p, inv_q = 1.0 / P, 1.0 / (1.0 - P)
    norm1, norm0 = post @ inv_p, post @ inv_q
    expected = np.where(Y == 1, 1.0 / norm1, (post @ (P * inv_q)) / norm0)
    rest_theta = np.where(Y == 1, (post @ (nodes[:, None] * inv_p)) / norm1,
                          (post @ (nodes[:, None] * inv_q)) / norm0)
    n_obs = observed.sum(axis=0)
    n_groups = int(max(2, min(max_groups, values.shape[0] // 5)))
    ranks = np.argsort(np.argsort(np.where(observed, rest_theta, np.inf), axis=0,
                                  kind="stable"), axis=0)
    group = ranks * n_groups // np.maximum(n_obs, 1)
    statistic = np.zeros(a.size)
    for g in range(n_groups):
        member = observed & (group == g)
        obs = np.sum(Y * member, axis=0)
        exp = np.sum(expected * member, axis=0)
        var = np.sum(expected * (1.0 - expected) * member, axis=0)
        statistic += np.where(var > 0, (obs - exp) ** 2 / np.where(var > 0, var, 1.0),
                              0.0)
    return statistic, n_groups

