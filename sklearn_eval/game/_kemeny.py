"""Exact Kemeny-Young rankings by integer programming.

The Kemeny-Young ranking maximises the agreement ``sum over a above b of
N[a, b]``: the number of (task, pair) preferences it respects, i.e. it is the
ranking at minimum total Kendall-tau distance from the tasks' votes. Finding
it is NP-hard, but two facts make it fast in practice:

1. if every agent of a set ``A`` strictly beats every agent outside it, every
   Kemeny ranking puts ``A`` first (a swap argument), so the problem splits
   along the strongly connected components of the majority graph;
2. each component is a linear ordering problem whose integer program with
   the 3-cycle (triangle) inequalities is solved exactly by HiGHS through
   :func:`scipy.optimize.milp` (zero optimality gap), usually at the root.

Exact copies are tied. Two agents are *twins* when swapping them leaves the
counts unchanged: the same counts against every other agent, both ways, and
as many tasks preferring each to the other (identical rows of scores, or a
profile symmetric under the swap). No rule reading the counts can tell twins
apart, so they share a score (the number of agents ranked below them, as
Schulze's and ranked pairs'), hence a rank. Twins are an equivalence, and
some optimal ranking keeps every class of twins together: if a run ``R1`` of
a class and the next run ``R2`` have agents ``S`` between them, every member
relates to ``S`` alike, so the current agreement with ``S`` is a weighted
mean of moving ``R2`` up to ``R1`` and of moving ``R1`` down to ``R2`` (the
pairs inside the class count the same either way), and the better move loses
nothing. The program is therefore solved on the classes, a pair of classes
weighing the product of their sizes, and each class is expanded in place.

Among several optimal rankings (with twins together) the one closest (in
Kendall-tau distance) to the tie-break order (Borda, then agent index) is
returned: the tie-break weights sum to less than one agreement unit, so they
never override the primary objective when the counts are integers. When
several optimal rankings are equally close to that order, the solver returns
one of them (deterministically for a given input, but not canonically:
permuting the agents may pick another of the tied optima). Agents that are
interchangeable only through a larger symmetry (the three agents of a
perfectly symmetric cycle) are not twins and keep the ranking's order.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from ..utils._twins import twin_classes
from ._voting_methods import majority_components, order_by_scores

__all__ = ["agreement", "kemeny_young", "twin_classes"]

_BRUTE_FORCE_MAX = 3
# rounds of added triangle inequalities at most (each adds at least one)
_MAX_ROUNDS = 10_000


def agreement(N, order):
    """Preferences respected by the ranking ``order``: sum of N[a, b], a above b."""
    pos = np.empty(len(order), dtype=np.intp)
    pos[np.asarray(order)] = np.arange(len(order))
    above = pos[:, None] < pos[None, :]
    return float(N[above].sum())


def kemeny_young(N, tiebreak, time_limit=None):
    """Exact Kemeny-Young ranking (agent indices, best first) and scores.

    The score of an agent is the number of agents ranked below its class of
    twins (see the module docstring), so twins share a score. ``time_limit``:
    seconds for every integer program in all (None: no limit); past it a
    ValueError names the polynomial rules.
    """
    deadline = None if time_limit is None else time.monotonic() + time_limit
    n = N.shape[0]
    classes = twin_classes(N)
    members = np.argsort(classes, kind="stable")
    sizes = np.bincount(classes)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    reps = members[first]
    # the reference order (Borda, then index) of every pair of agents,
    # summed over the pairs of two classes: +1 per pair it keeps
    reference = order_by_scores(tiebreak)
    rank_ref = np.empty(n, dtype=np.intp)
    rank_ref[reference] = np.arange(n)
    keeps = np.sign(rank_ref[None, :] - rank_ref[:, None]).astype(np.float64)
    indicator = np.zeros((n, sizes.size))
    indicator[np.arange(n), classes] = 1.0
    prefer = indicator.T @ keeps @ indicator
    weights = np.outer(sizes, sizes).astype(np.float64)
    N_classes = N[np.ix_(reps, reps)] * weights
    np.fill_diagonal(N_classes, 0.0)
    np.fill_diagonal(prefer, 0.0)
    class_order = []
    for comp in majority_components(N_classes - N_classes.T):
        local = _component_order(N_classes[np.ix_(comp, comp)],
                                 prefer[np.ix_(comp, comp)], deadline, n)
        class_order.extend(comp[local].tolist())
    order, scores = [], np.empty(n)
    below = n
    for c in class_order:
        group = np.flatnonzero(classes == c)
        group = group[np.argsort(rank_ref[group], kind="stable")]
        below -= group.size
        scores[group] = below
        order.extend(group.tolist())
    return scores, np.asarray(order, dtype=np.intp)


def _component_order(N, prefer, deadline=None, n_agents=None):
    """Optimal order of one component; ``prefer[a, b]``: the tie-break's vote
    for ``a`` above ``b`` (antisymmetric)."""
    k = N.shape[0]
    if k == 1:
        return np.zeros(1, dtype=np.intp)
    if k <= _BRUTE_FORCE_MAX:
        return _brute_force(N, prefer)
    return _ilp(N, prefer, deadline, n_agents)


def _brute_force(N, prefer):
    best, best_key = None, None
    for perm in itertools.permutations(range(N.shape[0])):
        key = (agreement(N, perm), agreement(prefer, perm))
        if best_key is None or key > best_key:
            best, best_key = perm, key
    return np.asarray(best, dtype=np.intp)


def _ilp(N, prefer, deadline=None, n_agents=None):
    """Linear ordering problem: x_ij = 1 iff i above j (i < j), triangles.

    The triangle inequalities are added as they are violated: each round
    solves the integer program with the inequalities found so far, and one
    whose solution violates none is a transitive order, feasible for the full
    program and optimal for a relaxation of it, hence optimal (the same
    objective, tie-break included, as with every inequality from the start).
    Measured on the 86 teams of a football results file: four rounds of
    about 5,000 inequalities, 56 s of CPU, against 150 s for the full
    program's 200,000 (the branch and bound, not the inequalities, takes
    most of the time that is left).
    """
    k = N.shape[0]
    iu, ju = np.triu_indices(k, 1)
    n_var = iu.size
    var = -np.ones((k, k), dtype=np.intp)
    var[iu, ju] = np.arange(n_var)
    margin = N - N.T
    # tie-break: agreeing with the reference order, all pairs summing below 1/2
    span = float(np.abs(prefer[iu, ju]).sum())
    secondary = prefer[iu, ju] * (0.5 / max(span, 1.0))
    c = -(margin[iu, ju] + secondary)
    triangles = _triangles(k, var)
    active = np.zeros((2, triangles.shape[0]), dtype=bool)
    x = (c < 0).astype(np.float64)  # every pair on its own: no inequality yet
    for _ in range(_MAX_ROUNDS):
        violated = _violated(triangles, x)
        if not violated.any():
            break
        active |= violated
        A, ub = _triangle_constraints(triangles, active, n_var)
        options = {"mip_rel_gap": 0.0, "presolve": True}
        if deadline is not None:
            options["time_limit"] = max(deadline - time.monotonic(), 0.0)
        res = milp(
            c,
            constraints=LinearConstraint(A, -np.inf, ub),
            integrality=np.ones(n_var),
            bounds=Bounds(0, 1),
            options=options,
        )
        if deadline is not None and (res.status == 1 or time.monotonic() > deadline):
            raise ValueError(
                f"Kemeny-Young: no proven optimal ranking of the "
                f"{n_agents or k} agents within time_limit (a component of {k} "
                "agents; the search is NP-hard, and near-ties and pairs no task "
                "compares make it long). Use method='schulze' or "
                "'ranked_pairs' (polynomial, Condorcet-consistent), or a "
                "larger time_limit."
            )
        if res.x is None or res.status != 0:
            raise RuntimeError(f"Kemeny-Young integer program failed: {res.message}")
        x = np.round(res.x)
    else:  # pragma: no cover - each round adds an inequality; finite
        raise RuntimeError("Kemeny-Young integer program did not settle.")
    above = np.zeros((k, k), dtype=bool)
    above[iu, ju] = x > 0.5
    above[ju, iu] = x < 0.5
    wins = above.sum(axis=1)
    order = np.argsort(-wins, kind="stable")
    if not np.array_equal(np.sort(wins), np.arange(k)):
        raise RuntimeError(
            "Kemeny-Young integer program returned a non-transitive order."
        )
    return order


def _triangles(k, var):
    """The variables ``(x_ij, x_jm, x_im)`` of every triple i < j < m."""
    if k < 3:
        return np.zeros((0, 3), dtype=np.intp)
    i, j, m = np.ogrid[:k, :k, :k]
    i, j, m = np.nonzero((i < j) & (j < m))  # in lexicographic order
    return np.column_stack([var[i, j], var[j, m], var[i, m]])


# the two inequalities of a triangle (x_ij, x_jm, x_im): coefficients, bounds
_SIGNS = np.array([[1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]])
_BOUNDS = np.array([1.0, 0.0])


def _violated(triangles, x):
    """Which inequality of each triangle ``x`` (0/1) violates: row 0,
    ``x_ij + x_jm - x_im <= 1``; row 1, ``-x_ij - x_jm + x_im <= 0`` (a
    violation of an integer point is by 1 or more)."""
    slack = x[triangles] @ _SIGNS.T - _BOUNDS  # (n_triangles, 2)
    return (slack > 0.5).T


def _triangle_constraints(triangles, active, n_var):
    """The ``active`` inequalities (rows of :func:`_violated`) as ``A x <= ub``."""
    kind, which = np.nonzero(active)  # every kind-0 row first, as listed
    rows = np.repeat(np.arange(kind.size), 3)
    A = sp.csr_array((_SIGNS[kind].ravel(), (rows, triangles[which].ravel())),
                     shape=(kind.size, n_var))
    return A, _BOUNDS[kind]
