"""The EM loop with SQUAREM extrapolation kept only where it helps.

Shared by the binary (3PL, 4PL) and the continuous-score models: one EM map,
one extrapolated trial from two successive maps, kept only when it raises the
objective, so the objective never decreases.
"""

import numpy as np

from ._em import _NOISE


def squarem_em(params, *, e_step, em_map, objective, extrapolate, max_iter, tol,
               n_agents, trace=None, expand=None, keep_expanding=None):
    """Run EM from ``params``; returns ``(params, state, n_iter, converged)``.

    ``e_step(p) -> state``, ``em_map(state, p) -> p'``, ``objective(p, state)
    -> float``, ``extrapolate(p0, p1, p2) -> p or None``. ``n_iter`` counts
    E-steps; EM stops when the objective changes by at most
    ``tol * n_agents``. ``trace``: a list that receives the objective at the
    start and after every iteration (non-decreasing).

    ``expand(state, p) -> p'``: a parameter expansion applied after every EM
    map (a move that is not an ascent step of the objective, such as the
    latent standardisation). An expanded point that lowers the objective is
    replaced by the plain EM point (a generalised EM step, which never lowers
    it; the map is not run again). ``keep_expanding(p) -> bool``: once False,
    the run goes on without the expansion.
    """

    def mapped(state, p):  # (plain, expanded) EM points
        plain = em_map(state, p)
        return plain, (plain if expand is None else expand(state, plain))

    state = e_step(params)
    current = objective(params, state)
    if trace is not None:
        trace.append(current)
    n_iter, converged = 0, False
    while n_iter < max_iter:
        previous = current
        plain, p1 = mapped(state, params)
        state1 = e_step(p1)
        step = (p1, state1, objective(p1, state1))
        n_iter += 1
        if expand is not None and not step[2] >= current - _NOISE * abs(current):
            p1 = plain  # the expansion lowered it: plain EM
            state1 = e_step(p1)
            step = (p1, state1, objective(p1, state1))
            n_iter += 1
        if n_iter + 1 < max_iter:
            p2 = mapped(state1, p1)[1]
            trial = extrapolate(params, p1, p2)
            if trial is not None:
                state_t = e_step(trial)
                value_t = objective(trial, state_t)
                n_iter += 1
                if np.isfinite(value_t) and value_t > step[2] + _NOISE * abs(step[2]):
                    step = (trial, state_t, value_t)
        params, state, current = step
        if trace is not None:
            trace.append(current)
        if (expand is not None and keep_expanding is not None
                and not keep_expanding(params)):
            expand = None
        if n_iter >= 2 and abs(current - previous) <= tol * n_agents:
            converged = True
            break
    return params, state, n_iter, converged
