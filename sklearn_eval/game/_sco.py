"""Soft Condorcet Optimization (Lanctot et al., 2024).

Ratings ``theta`` minimise a smooth version of the total Kendall-tau distance
between the rating order and the tasks' votes,

    L(theta) = (1 / n_tasks) * sum_{a, b} N[a, b] * sigmoid((theta_b - theta_a) / tau),

inside the box ``[lower, upper]``. Each term is ~1 when the ratings disagree
with a preference and ~0 when they agree. Only the pairs a task actually
compares enter ``N``, so missing results need no imputation. The paper
optimises it by (stochastic) gradient descent; here the full-batch problem is
solved by L-BFGS-B from the midpoint of the box, which is deterministic.
Dividing by the number of tasks makes the loss (and so the ratings) invariant
to counting every task twice.

When agents are separated by many temperatures the loss is flat (it keeps
decreasing, by ever smaller amounts, as they move further apart), so the
optimiser stops wherever the gradient falls below ``tol``: the ranking is
identified, the distances between well-separated ratings are not.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

__all__ = ["soft_condorcet_optimization"]


def _loss_and_grad(theta, N, tau, n_tasks):
    diff = (theta[None, :] - theta[:, None]) / tau  # diff[a, b] = (t_b - t_a)/tau
    s = expit(diff)
    loss = float(np.sum(N * s)) / n_tasks
    w = N * s * (1.0 - s) / (tau * n_tasks)
    grad = w.sum(axis=0) - w.sum(axis=1)
    return loss, grad


def soft_condorcet_optimization(N, n_tasks, temperature, bounds, max_iter, tol):
    """Ratings minimising the SCO sigmoid loss; returns (ratings, loss, n_iter, ok)."""
    lower, upper = bounds
    n = N.shape[0]
    theta0 = np.full(n, 0.5 * (lower + upper))
    res = minimize(
        _loss_and_grad,
        theta0,
        args=(N, float(temperature), float(max(n_tasks, 1))),
        jac=True,
        method="L-BFGS-B",
        bounds=[(lower, upper)] * n,
        options={"maxiter": max_iter, "gtol": tol, "ftol": 0.0},
    )
    converged = bool(res.success or res.nit < max_iter)
    return res.x, float(res.fun), int(res.nit), converged
