"""Simultaneous inference on pairwise differences, projected to ranks.

The construction of Mogstad, Romano, Shaikh and Wilhelm ("Inference for
ranks", Review of Economic Studies, 2024): confidence intervals for the
differences ``theta_i - theta_j`` that hold simultaneously over a family of
pairs, from the max-|t| statistic (its null distribution from bootstrap
replicates or from draws of the estimated normal distribution) refined by
the Romano-Wolf step-down; an agent's rank set counts the agents confidently
above and below it. Shared by :func:`sklearn_eval.uncertainty.rank_sets` and
the pairwise active sampler, so it takes arrays only.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

__all__ = [
    "PairwiseInference",
    "leader_tiers",
    "pairwise_inference",
]

# about this many pair entries per temporary array
_BLOCK = 1 << 22


class PairwiseInference:
    """Confident orderings of the pairs ``i < j`` and the rank sets they imply.

    Attributes
    ----------
    first, second : ndarray of int
        The pairs (``first < second``).
    difference, se : ndarray of float
        ``score[first] - score[second]`` and its standard error.
    critical : ndarray of float
        The critical value of each pair's |t| (the last step-down value of
        its family).
    separated : ndarray of bool
        Whether the pair's order is confident (its interval excludes 0).
    rank_low, rank_high : ndarray of int
        The rank set of each agent (1 = best).
    """

    def __init__(self, first, second, difference, se, critical, separated, n):
        self.first, self.second = first, second
        self.difference, self.se = difference, se
        self.critical, self.separated = critical, separated
        above = np.zeros((n, n), dtype=bool)  # above[i, j]: i confidently above j
        wins = separated & (difference > 0)
        losses = separated & (difference < 0)
        above[first[wins], second[wins]] = True
        above[second[losses], first[losses]] = True
        self.above = above
        self.rank_low = 1 + above.sum(axis=0)
        self.rank_high = n - above.sum(axis=1)


def _pairs(n):
    first, second = np.triu_indices(n, k=1)
    return first.astype(np.intp), second.astype(np.intp)


def _t_abs(centred, first, second, se):
    """|t| of every pair in every draw (NaN -> 0: an agent absent from a draw)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(centred[:, first] - centred[:, second]) / se
    return np.nan_to_num(t, nan=0.0, posinf=0.0)


def _max_t(centred, first, second, se):
    """The largest |t| over the given pairs, per draw (in blocks of draws)."""
    n_draws = centred.shape[0]
    out = np.zeros(n_draws)
    if first.shape[0] == 0:
        return out
    rows = max(1, _BLOCK // first.shape[0])
    for start in range(0, n_draws, rows):
        block = _t_abs(centred[start:start + rows], first, second, se)
        out[start:start + rows] = block.max(axis=1)
    return out


def _quantile(values, level):
    return float(np.quantile(values, level, method="higher"))


def _step_down(t_obs, null_max, alpha, floor=0.0):
    """Romano-Wolf step-down over one family; ``null_max(active)`` per draw.

    ``floor`` bounds the critical value from below: under a normal null the
    largest |t| of a family is never below one pair's two-sided quantile,
    which the finite draws could otherwise undercut.
    """
    active = np.ones(t_obs.shape[0], dtype=bool)
    separated = np.zeros_like(active)
    while True:
        critical = max(_quantile(null_max(active), 1.0 - alpha), floor)
        new = active & (t_obs > critical)
        if not new.any() or not (active & ~new).any():
            separated |= new
            return separated, critical
        separated |= new
        active &= ~new


def _pair_se(first, second, cov, centred):
    if cov is not None:
        var = cov[first, first] + cov[second, second] - 2.0 * cov[first, second]
        return np.sqrt(np.clip(var, 0.0, None))
    se = np.empty(first.shape[0])
    rows = max(1, _BLOCK // max(first.shape[0], 1))
    total = np.zeros(first.shape[0])
    squares = np.zeros(first.shape[0])
    count = np.zeros(first.shape[0])
    for start in range(0, centred.shape[0], rows):
        diff = centred[start:start + rows, first] - centred[start:start + rows, second]
        valid = ~np.isnan(diff)
        diff = np.where(valid, diff, 0.0)
        total += diff.sum(axis=0)
        squares += (diff**2).sum(axis=0)
        count += valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        se[:] = np.sqrt(np.clip(squares / count - mean**2, 0.0, None)
                        * count / np.maximum(count - 1, 1))
    # a pair seen together in fewer than two replicates is never separated
    return np.where(count >= 2, np.nan_to_num(se, nan=np.inf), np.inf)


def _t_observed(difference, se):
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(difference) / se
    return np.where(se > 0, t, np.where(difference != 0, np.inf, 0.0))


def pairwise_inference(score, *, cov=None, samples=None, confidence_level=0.95,
                       simultaneous=True, n_draws=1000, random_state=None,
                       ties=None):
    """Step-down max-|t| inference on all pairwise differences of ``score``.

    Parameters
    ----------
    score : ndarray of shape (n,)
        Higher is better.
    cov : ndarray of shape (n, n) or None
        Estimated covariance of ``score`` (analytic path): it gives the
        standard errors, and, without ``samples``, the null distribution of
        the t statistics is that of ``n_draws`` normal draws.
    samples : ndarray of shape (n_resamples, n) or None
        Bootstrap replicates of ``score`` (NaN where an agent is absent), or
        draws from its estimated normal distribution: the null distribution
        is that of the draws centred at ``score``, studentized by ``cov`` or,
        without it, by the draws' spread.
    confidence_level : float
    simultaneous : bool
        True: one family of all pairs, so that every rank set holds at once.
        False: one family per agent (its differences with every other), so
        that each agent's rank set holds on its own.
    n_draws : int
        Normal draws (analytic path).
    random_state : numpy Generator
        Source of the normal draws.
    ties : ndarray of shape (n,) or None
        The point ranks of ``score`` (the library's one rank rule, which ties
        scores equal up to rounding): a pair of equal rank has difference 0
        and is never separated, so every rank set holds its agent's point
        rank. None: only exactly equal scores tie.

    Returns
    -------
    PairwiseInference
    """
    score = np.asarray(score, dtype=np.float64)
    n = score.shape[0]
    first, second = _pairs(n)
    if samples is not None:
        centred = np.asarray(samples, dtype=np.float64) - score
    else:
        cov = 0.5 * (cov + cov.T)
        values, vectors = np.linalg.eigh(cov)
        root = vectors * np.sqrt(np.clip(values, 0.0, None))
        centred = random_state.standard_normal((n_draws, n)) @ root.T
    difference = score[first] - score[second]
    if ties is not None:
        ties = np.asarray(ties)
        difference[ties[first] == ties[second]] = 0.0
    se = _pair_se(first, second, cov, centred)
    t_obs = _t_observed(difference, se)
    alpha = 1.0 - confidence_level
    # analytic (normal) null: no family's critical value is below one pair's
    floor = float(norm.ppf(1.0 - alpha / 2.0)) if cov is not None else 0.0
    critical = np.empty(first.shape[0])
    if simultaneous:
        def null_max(active):
            return _max_t(centred, first[active], second[active], se[active])

        separated, value = _step_down(t_obs, null_max, alpha, floor)
        critical[:] = value
    else:
        return _marginal(first, second, difference, se, t_obs, centred, alpha, n,
                         floor)
    return PairwiseInference(first, second, difference, se, critical, separated, n)


def _marginal(first, second, difference, se, t_obs, centred, alpha, n, floor):
    """Marginal rank sets: each agent's set from its own family of pairs only."""
    pair_of = np.full((n, n), -1, dtype=np.intp)
    pair_of[first, second] = np.arange(first.shape[0])
    pair_of[second, first] = np.arange(first.shape[0])
    separated = np.zeros(first.shape[0], dtype=bool)
    critical = np.zeros(first.shape[0])
    rank_low = np.empty(n, dtype=int)
    rank_high = np.empty(n, dtype=int)
    for agent in range(n):
        family = np.delete(pair_of[agent], agent)
        t_abs = _t_abs(centred, first[family], second[family], se[family])

        def null_max(active, t_abs=t_abs):
            if not active.any():
                return np.zeros(t_abs.shape[0])
            return t_abs[:, active].max(axis=1)

        found, value = _step_down(t_obs[family], null_max, alpha, floor)
        separated[family[found]] = True
        critical[family] = np.maximum(critical[family], value)
        # the agent's advantage over each opponent in its family
        sign = np.where(first[family] == agent, 1.0, -1.0) * difference[family]
        rank_low[agent] = 1 + int((found & (sign < 0)).sum())
        rank_high[agent] = n - int((found & (sign > 0)).sum())
    inference = PairwiseInference(first, second, difference, se, critical,
                                  separated, n)
    inference.rank_low, inference.rank_high = rank_low, rank_high
    return inference


def leader_tiers(score, above):
    """Tiers: agents in score order, a new tier where the tier's leader is confident.

    Walking the agents from the best score down, an agent joins the current
    tier unless the tier's first agent (its leader) is confidently above it;
    then it starts a new tier and leads it. Tiers are contiguous in the score
    order, numbered from 1, and every agent is not separable from its tier's
    leader. Ties in score are broken by position (stable).

    Parameters
    ----------
    score : ndarray of shape (n,)
    above : ndarray of shape (n, n) of bool
        ``above[i, j]``: i is confidently above j.

    Returns
    -------
    tier : ndarray of shape (n,) of int
    """
    order = np.argsort(-np.asarray(score), kind="stable")
    tier = np.zeros(order.shape[0], dtype=int)
    if order.shape[0] == 0:
        return tier
    leader, current = order[0], 1
    for agent in order:
        if above[leader, agent]:
            leader, current = agent, current + 1
        tier[agent] = current
    return tier
