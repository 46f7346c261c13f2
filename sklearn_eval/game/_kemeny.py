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

Among several optimal rankings the one closest (in Kendall-tau distance) to
the tie-break order (Borda, then agent index) is returned: the tie-break
weights sum to less than one agreement unit, so they never override the
primary objective when the counts are integers. When several optimal rankings
are equally close to that order, the solver returns one of them
(deterministically for a given input, but not canonically: permuting the
agents may pick another of the tied optima).
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from ._voting_methods import majority_components, order_by_scores

__all__ = ["agreement", "kemeny_young"]

_BRUTE_FORCE_MAX = 3


def agreement(N, order):
    """Preferences respected by the ranking ``order``: sum of N[a, b], a above b."""
    pos = np.empty(len(order), dtype=np.intp)
    pos[np.asarray(order)] = np.arange(len(order))
    above = pos[:, None] < pos[None, :]
    return float(N[above].sum())


def kemeny_young(N, tiebreak):
    """Exact Kemeny-Young ranking (agent indices, best first)."""
    margin = N - N.T
    order = []
    for comp in majority_components(margin):
        local = _component_order(N[np.ix_(comp, comp)], tiebreak[comp])
        order.extend(comp[local].tolist())
    order = np.asarray(order, dtype=np.intp)
    n = N.shape[0]
    scores = np.empty(n)
    scores[order] = np.arange(n - 1, -1, -1, dtype=np.float64)
    return scores, order


def _component_order(N, tiebreak):
    k = N.shape[0]
    if k == 1:
        return np.zeros(1, dtype=np.intp)
    reference = order_by_scores(tiebreak)
    if k <= _BRUTE_FORCE_MAX:
        return _brute_force(N, reference)
    return _ilp(N, reference)


def _brute_force(N, reference):
    rank_ref = np.empty(len(reference), dtype=np.intp)
    rank_ref[reference] = np.arange(len(reference))
    best, best_key = None, None
    for perm in itertools.permutations(range(N.shape[0])):
        key = (agreement(N, perm), -_kendall(perm, rank_ref))
        if best_key is None or key > best_key:
            best, best_key = perm, key
    return np.asarray(best, dtype=np.intp)


def _kendall(perm, rank_ref):
    r = rank_ref[np.asarray(perm)]
    return int(np.triu(r[:, None] > r[None, :], 1).sum())


def _ilp(N, reference):
    """Linear ordering problem: x_ij = 1 iff i above j (i < j), triangles."""
    k = N.shape[0]
    iu, ju = np.triu_indices(k, 1)
    n_var = iu.size
    var = -np.ones((k, k), dtype=np.intp)
    var[iu, ju] = np.arange(n_var)
    margin = N - N.T
    rank_ref = np.empty(k, dtype=np.intp)
    rank_ref[reference] = np.arange(k)
    # tie-break: +w for agreeing with the reference order, summing below 1/2
    w = 0.5 / n_var
    secondary = np.where(rank_ref[iu] < rank_ref[ju], w, -w)
    c = -(margin[iu, ju] + secondary)
    A, ub = _triangle_constraints(k, var)
    res = milp(
        c,
        constraints=LinearConstraint(A, -np.inf, ub),
        integrality=np.ones(n_var),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0, "presolve": True},
    )
    if res.x is None or res.status != 0:
        raise RuntimeError(f"Kemeny-Young integer program failed: {res.message}")
    x = np.round(res.x)
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


def _triangle_constraints(k, var):
    """For i < j < l: x_ij + x_jl - x_il <= 1 and -x_ij - x_jl + x_il <= 0."""
    triples = np.array(list(itertools.combinations(range(k), 3)), dtype=np.intp)
    if triples.size == 0:
        return sp.csr_array((0, int(var.max()) + 1)), np.zeros(0)
    first, mid, last = triples.T
    a, b, c = var[first, mid], var[mid, last], var[first, last]
    t = triples.shape[0]
    rows = np.repeat(np.arange(2 * t), 3)
    abc = np.column_stack([a, b, c])
    cols = np.concatenate([abc, abc]).ravel()
    vals = np.concatenate([
        np.tile([1.0, 1.0, -1.0], t), np.tile([-1.0, -1.0, 1.0], t)
    ])
    A = sp.csr_array((vals, (rows, cols)), shape=(2 * t, int(var.max()) + 1))
    ub = np.concatenate([np.ones(t), np.zeros(t)])
    return A, ub
