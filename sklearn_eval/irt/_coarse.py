"""Speed of the binary item models' EM (3PL, 4PL): coarse grids first.

EM on a rectangular grid spends most of its E-steps far from the solution,
where the grid's fine spacing buys nothing. :func:`em_coarse_to_fine` runs
the EM on every other node first (the same rule with twice the spacing), and
on every other node of that while the posteriors allow it, then from each
solution on the next finer grid, ending on the full grid until the full
grid's own stopping rule holds: the result is an EM fixed point of the full
grid, as before, reached with most E-steps at a fraction of the cost.

A coarse grid is used where it integrates the agents' posteriors well enough
to bring EM close to the finer grid's maximum: the rectangle rule's error on
a smooth posterior of sd ``sigma`` is about ``exp(-2 pi^2 sigma^2 / h^2)``
at spacing ``h``, and ``sigma^2`` falls as one over the responses per agent,
so the rule is ``responses per agent x h^2 <= COARSE_MAX_RESPONSES x 0.2^2``
(at most :data:`COARSE_MAX_RESPONSES` responses per agent at spacing 0.2,
61 nodes on [-6, 6]; a quarter of that at spacing 0.4, 31 nodes).

Measured (3PL, 20,000 x 60, 10% missing, 54 responses per agent,
single-threaded BLAS, CPU seconds): 121 nodes only, 20 E-steps in 2.36 s; 61
then 121 nodes, 20 + 2 E-steps in 1.69 s, ending 6e-5 higher in
log-likelihood (the full grid's stopping rule ends both runs within its
tolerance of the maximum). On the 61 nodes this data's default fit ends on
(:func:`accept_coarse`): 61 nodes only 0.97 s (20 E-steps); 31 then 61
nodes 0.82 s (20 + 2 E-steps), the 31-node maximum 0.007 units below the
61-node one.

The dense E-step's products are tall and thin (agents x items times items x
nodes); OpenBLAS' threads split them badly on a shared machine (the same
product took 0.03 s single-threaded and 0.04-0.5 s with two threads, by
shape), so the EM of these models runs them single-threaded
(:func:`single_threaded_blas`); ``n_jobs`` spreads blocks of agents over
threads instead.
"""

from contextlib import contextmanager

import numpy as np
from scipy.special import logsumexp
from threadpoolctl import threadpool_limits

from ._quadrature import QuadratureGrid, default_rectangular_nodes

# Responses per agent up to which a coarse grid of spacing 0.2 is used (a
# quarter of that at spacing 0.4: see the module notes). Measured on the
# 3PL data of the notes: at 54 responses per agent, spacing 0.4 ends 0.007
# log-likelihood units from spacing 0.2, whose phase then takes 2 E-steps.
COARSE_MAX_RESPONSES = 240
_REFERENCE_SPACING = 0.2
# A coarse grid keeps at least this many nodes.
_MIN_COARSE_NODES = 31


def responses_per_agent(data):
    """Observed responses per agent of a store, on average."""
    return float(np.sum(data.n_observed())) / max(data.n_agents, 1)


def accept_coarse(params, grid, per_agent):
    """Whether the 61-node grid's EM solution ``params`` is the fit.

    Where the agents answer on average at most 150 items (their posteriors
    are wide next to the spacing, :func:`._quadrature.default_rectangular_nodes`,
    as the graded models' default) and no item's curve is steep next to the
    spacing ``h``: ``|a| h <= _MAX_SLOPE_SPACING``. The logistic curve's
    Fourier transform decays as ``exp(-pi w / |a|)``, so the rectangle rule's
    error on it is about ``exp(-2 pi^2 / (|a| h))``: 3e-9 at ``|a| h = 1``
    (``|a| <= 5`` at spacing 0.2); maximum-likelihood asymptotes can make
    items much steeper, and those fits go on to the 121-node grid.
    """
    return default_rectangular_nodes(per_agent) == len(grid) and gentle(params,
                                                                        grid)


_MAX_SLOPE_SPACING = 1.0


def gentle(params, grid):
    """Whether every item's curve is gentle next to the grid's spacing.

    ``|a| h <= 1`` (:func:`accept_coarse`). A coarse grid's solution with
    steeper items is not a start for the finer grid: the coarse rule cannot
    tell a steep curve from a step between its nodes, so EM on it lets such
    discriminations run away along a flat ridge.
    """
    spacing = float(grid.nodes[1] - grid.nodes[0])
    return float(np.max(np.abs(params[:, 0]), initial=0.0)) * spacing <= (
        _MAX_SLOPE_SPACING)


def coarse_grid(grid, data, per_agent=None):
    """Every other node of a rectangular ``grid``, or None where not useful.

    None unless ``grid`` is rectangular with an odd number of nodes (so the
    coarse grid keeps both ends) of at least ``2 * _MIN_COARSE_NODES - 1``
    and the agents answer on average few enough items for the coarse
    spacing (module notes). ``per_agent``: the responses per agent, if known.
    """
    n_nodes = len(grid)
    if (grid.kind != "rectangular" or n_nodes % 2 == 0
            or n_nodes < 2 * _MIN_COARSE_NODES - 1):
        return None
    if per_agent is None:
        per_agent = responses_per_agent(data)
    spacing = 2.0 * float(grid.nodes[1] - grid.nodes[0])
    if per_agent * spacing**2 > COARSE_MAX_RESPONSES * _REFERENCE_SPACING**2:
        return None
    log_w = grid.log_weights[::2]
    return QuadratureGrid(grid.nodes[::2], log_w - logsumexp(log_w), grid.kind)


def coarse_grids(grid, data, per_agent=None):
    """The coarse grids below ``grid`` (each every other node of the next),
    coarsest first."""
    if per_agent is None:
        per_agent = responses_per_agent(data)
    out = []
    while (grid := coarse_grid(grid, data, per_agent)) is not None:
        out.append(grid)
    return out[::-1]


def em_coarse_to_fine(run, params, grid, data, max_iter, accept=None):
    """``run(params, grid, max_iter)`` on the coarse grids, then on ``grid``.

    ``run`` returns ``(params, loglik, n_iter, converged)``; so does this,
    with ``n_iter`` the E-steps of every phase (together at most
    ``max_iter``: each phase leaves two E-steps for every later one) and
    ``converged`` that of the last phase run, followed by the grid of that
    phase. Below the finest coarse grid, a phase whose solution has items
    too steep for its spacing (:func:`gentle`) is not used: the next coarse
    grid starts where it did (the finest coarse grid's solution is the full
    grid's start in any case, as with a single coarse grid).
    ``accept(params, coarse, per_agent)``: whether a converged coarse
    phase's solution is the fit (the finer phases are then not run); None:
    never.
    """
    per_agent = responses_per_agent(data)
    ladder = coarse_grids(grid, data, per_agent)
    n_done = 0
    for index, coarse in enumerate(ladder):
        budget = max_iter - n_done - 2 * (len(ladder) - index)
        if budget < 1:
            continue
        found, loglik, n_iter, converged = run(params, coarse, budget)
        n_done += n_iter
        if index < len(ladder) - 1 and not gentle(found, coarse):
            continue  # the next coarse grid starts where this one did
        params = found
        if (accept is not None and converged
                and accept(params, coarse, per_agent)):
            return params, loglik, n_done, converged, coarse
    params, loglik, n_iter, converged = run(params, grid, max_iter - n_done)
    return params, loglik, n_iter + n_done, converged, grid


@contextmanager
def single_threaded_blas():
    """BLAS limited to one thread inside the block (see the module notes)."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield
