"""The EM engine of IRT2PL: multi-start EM with SQUAREM and latent rescaling.

Item parameters maximise the marginal likelihood, with ``theta ~ N(0, 1)``
integrated out on a quadrature grid, by the EM algorithm of Bock and Aitkin:
the E-step (:mod:`._estep`) is two matrix products per block of agents, the
M-step (:mod:`._mstep`) a vectorised Newton step per item on the expected
counts. Here: the EM loop, accelerated by SQUAREM (Varadhan and Roland 2008)
and optionally parameter-expanded in the latent location and scale, run from
several starting points (:mod:`._starts`).
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._estep import _e_step
from ._mstep import _log_prior, _m_step_2pl, _m_step_common
from ._starts import _starting_points

_RUNAWAY = 1e3  # |a| beyond which a rescaled EM run stops rescaling
# Relative size of the rounding error of a log-likelihood (a sum over agents)
_NOISE = 1e-12


@dataclass(frozen=True)
class _EMSettings:
    """What an EM fit needs from the estimator's parameters (validated)."""

    model: str = "2PL"
    a_prior: tuple | None = None
    b_prior: tuple | None = None
    max_iter: int = 1000
    tol: float = 1e-7
    n_init: int = 1
    accelerate: bool = True
    rescale_latent: bool | str = "auto"
    # the estimator call that sets a discrimination prior, named in the
    # warning about steep items
    prior_remedy: str = "IRT2PL(a_prior=(1.0, 2.0))"


def _check_prior(prior, name):
    if prior is None:
        return None
    try:
        mean, sd = (float(v) for v in prior)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be None or a pair (mean, sd) of numbers; got {prior!r}."
        ) from None
    if not (np.isfinite(mean) and np.isfinite(sd) and sd > 0):
        raise ValueError(
            f"{name} must be (mean, sd) with finite mean and sd > 0; got {prior!r}."
        )
    return mean, sd


class _EMResult(NamedTuple):
    a: np.ndarray
    b: np.ndarray
    loglik: float
    n_iter: int
    converged: bool


def _pooled_moments(mass, nodes):
    """Mean and variance of the pooled posterior (``mass`` per node), or None
    where it has no mass or no spread (nothing to standardise)."""
    total = float(mass.sum())
    if not total > 0.0:
        return None
    mu = float(mass @ nodes) / total
    var = float(mass @ nodes**2) / total - mu * mu
    if not np.isfinite(var) or var <= 1e-12:
        return None
    return mu, var


def _standardise_latent(a, b, mass, nodes, scale=True):
    """Parameter-expanded EM step for the latent location and scale.

    The E-step's pooled posterior (``mass`` per node) has mean ``mu`` and
    variance ``s^2``; the expanded model ``theta ~ N(mu, s^2)`` is mapped back
    to ``N(0, 1)`` by ``a <- a s``, ``b <- (b - mu) / s``. At the marginal ML
    solution ``mu = 0`` and ``s = 1`` (the score equations of a free latent
    mean and variance), so the step leaves the solution unchanged with exact
    integration; on a coarse grid with narrow posteriors (many items per
    agent) it stops the scale drift that discretisation causes.
    """
    moments = _pooled_moments(mass, nodes)
    if moments is None:
        return a, b
    mu, var = moments
    if not scale:  # Rasch: a = 1 fixes the scale; only the location moves
        return a, b - mu
    s = np.sqrt(var)
    return a * s, (b - mu) / s


def _squarem_vector(v0, v1, v2, max_step):
    """SQUAREM (S3) point from three successive EM iterates, or None.

    Step length ``alpha = -|r| / |w|`` clipped to ``[-max_step, -1]`` with
    ``r = v1 - v0`` and ``w = v2 - 2 v1 + v0`` (None when ``w`` is 0 or not
    finite).
    """
    r = v1 - v0
    w = v2 - 2.0 * v1 + v0
    norm_w = np.linalg.norm(w)
    if norm_w == 0.0 or not np.isfinite(norm_w):
        return None
    alpha = max(-max_step, min(-1.0, -np.linalg.norm(r) / norm_w))
    return v0 - 2.0 * alpha * r + alpha * alpha * w


def _squarem_point(x0, x1, x2, use_ab, max_step=64.0):
    """SQUAREM (S3) extrapolation from two successive EM steps.

    Works on (a, b) when ``use_ab`` else on (a, d = -a b). Returns the
    extrapolated (a, b), or None when it is degenerate or not finite.
    """

    def vector(x):
        a, b = x
        return np.concatenate([a, b if use_ab else -a * b])

    v = _squarem_vector(vector(x0), vector(x1), vector(x2), max_step)
    if v is None:
        return None
    J = x0[0].size
    a, second = v[:J], v[J:]
    if use_ab:
        b = second
    else:
        if np.min(np.abs(a)) < 1e-6:
            return None
        b = -second / a
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return None
    return a, b


def _fit_items(data, grid, settings, rng):
    """Run EM from ``settings.n_init`` starts; keep the best penalised likelihood.

    Returns an :class:`_EMResult` whose ``n_iter`` includes the warm-up run
    of the start that was kept.
    """
    a_prior, b_prior = settings.a_prior, settings.b_prior
    best = None
    for a, b, warm_up in _starting_points(data, settings.model, settings.n_init, rng):
        n_warm = 0
        if warm_up is not None and a_prior is None:
            a, b, _, n_warm, _ = _em_run(data, grid, a, b, settings, warm_up,
                                         b_prior)
        run = _em_run(data, grid, a, b, settings, a_prior, b_prior,
                      rescale=_use_rescale(data, settings.rescale_latent))
        a, b, loglik, n_iter, converged = run
        value = loglik + _log_prior(a, b, a_prior, b_prior, settings.model)
        if best is None or value > best[0]:
            best = (value, _EMResult(a, b, loglik, n_iter + n_warm, converged))
    return best[1]


def _use_rescale(data, rescale_latent):
    if rescale_latent != "auto":
        return bool(rescale_latent)
    # a distributed store computes the median where the counts are
    median = getattr(data, "median_observed", None)
    per_agent = median() if median is not None else np.median(data.n_observed())
    return data.n_agents >= 50 and per_agent >= 100


def _em_run(data, grid, a, b, settings, a_prior, b_prior, rescale=False,
            trace=None):
    """EM from (a, b) until the penalised log-likelihood settles.

    Accelerated with SQUAREM (Varadhan and Roland 2008, scheme S3): two EM
    steps give a secant direction along which the parameters are
    extrapolated; the extrapolated point is kept only if it does not
    lower the objective, otherwise the plain EM point is used. ``n_iter``
    counts E-steps.

    With ``rescale`` the EM point is standardised (:func:`_standardise_latent`).
    On a grid that is coarse next to the posteriors that map is not an
    ascent step of the grid's likelihood (the nodes do not move with the
    scale): a standardised point that lowers the objective is replaced by
    the plain EM point (a generalised EM step, which never lowers it), and
    once ``|a|`` passes ``_RUNAWAY`` (an item that separates the agents has
    no finite maximum) the run goes on without rescaling. So the objective
    never decreases (``trace``, a list, receives it at the start and after
    every iteration), and a run with a smaller ``tol`` passes through the
    same points and stops later, never lower.
    """
    model = settings.model
    n_agents = data.n_agents
    use_ab = b_prior is not None or model != "2PL"

    def objective(a_, b_, state_):
        return state_["loglik"] + _log_prior(a_, b_, a_prior, b_prior, model)

    def em_map(state_, a_, b_, rescale_):
        return _em_map(state_, a_, b_, grid.nodes, model, a_prior, b_prior, rescale_)

    state = _e_step(data, a, b, grid)
    current = objective(a, b, state)
    if trace is not None:
        trace.append(current)
    n_iter = 0
    converged = False
    while n_iter < settings.max_iter:
        previous = current
        a1, b1 = em_map(state, a, b, rescale)
        state1 = _e_step(data, a1, b1, grid)
        value1 = objective(a1, b1, state1)
        n_iter += 1
        if rescale and not value1 >= current - _NOISE * abs(current):
            # the standardisation lowered the grid's likelihood: plain EM step
            a1, b1 = em_map(state, a, b, False)
            state1 = _e_step(data, a1, b1, grid)
            value1 = objective(a1, b1, state1)
            n_iter += 1
        step = (a1, b1, state1, value1)
        if settings.accelerate and n_iter + 1 < settings.max_iter:
            a2, b2 = em_map(state1, a1, b1, rescale)
            trial = _squarem_point((a, b), (a1, b1), (a2, b2), use_ab)
            if trial is not None:
                state_t = _e_step(data, *trial, grid)
                value_t = objective(*trial, state_t)
                n_iter += 1
                # a gain below rounding is no gain: near convergence both
                # values agree to rounding, which must not pick the step
                if np.isfinite(value_t) and value_t > value1 + _NOISE * abs(value1):
                    step = (*trial, state_t, value_t)
        a, b, state, current = step
        if trace is not None:
            trace.append(current)
        if rescale and not np.max(np.abs(a)) < _RUNAWAY:
            rescale = False  # a separating item: no scale to standardise
        if n_iter >= 2 and abs(current - previous) <= settings.tol * n_agents:
            converged = True
            break
    return _EMResult(a, b, state["loglik"], n_iter, converged)


def _em_map(state, a, b, nodes, model, a_prior, b_prior, rescale):
    """One EM update of the items from an E-step's ``state``."""
    r, n, occupied = _occupied_nodes(state["r"], state["n"], nodes)
    if model == "2PL":
        a, b = _m_step_2pl(a, b, r, n, occupied, a_prior, b_prior)
    else:
        a, b = _m_step_common(a, b, r, n, occupied, a_prior, b_prior,
                              model == "1PL")
    if rescale:
        a, b = _standardise_latent(a, b, state["mass"], nodes,
                                   scale=model != "Rasch")
    return a, b


def _occupied_nodes(r, n, nodes):
    """Expected counts without the nodes no agent's posterior reaches.

    A node whose expected observations are 0 for every item adds exactly 0 to
    every M-step sum; with narrow posteriors (many items per agent, sparse
    storage) most of the grid is such nodes.
    """
    occupied = np.asarray(n).any(axis=1)
    if occupied.all():
        return r, n, nodes
    return r[occupied], n[occupied], nodes[occupied]
