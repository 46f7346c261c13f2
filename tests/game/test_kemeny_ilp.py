"""The Kemeny-Young integer program, triangle inequalities added as they are
violated, against every permutation (small components) and the program with
every inequality from the start (larger ones)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, milp

from sklearn_eval.game import _kemeny
from sklearn_eval.game._kemeny import (
    _brute_force,
    _ilp,
    _triangle_constraints,
    _triangles,
)


def _problem(rng, k, n_votes):
    """Pairwise counts of ``n_votes`` random rankings, and a random tie-break."""
    N = np.zeros((k, k))
    for _ in range(n_votes):
        order = rng.permutation(k)
        pos = np.empty(k, dtype=int)
        pos[order] = np.arange(k)
        N += pos[:, None] < pos[None, :]
    ref = rng.permutation(k)
    rank = np.empty(k, dtype=int)
    rank[ref] = np.arange(k)
    prefer = np.sign(rank[None, :] - rank[:, None]).astype(float)
    return N, prefer


def _key(N, prefer, order):
    return (_kemeny.agreement(N, order), _kemeny.agreement(prefer, order))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(4, 7),
       n_votes=st.integers(1, 6))
def test_lazy_program_finds_the_best_permutation(seed, k, n_votes):
    N, prefer = _problem(np.random.default_rng(seed), k, n_votes)
    order = _ilp(N, prefer)
    assert sorted(order.tolist()) == list(range(k))
    assert _key(N, prefer, order) == _key(N, prefer, _brute_force(N, prefer))


def _full_program(N, prefer):
    """The program with all triangle inequalities (the former solver)."""
    k = N.shape[0]
    iu, ju = np.triu_indices(k, 1)
    var = -np.ones((k, k), dtype=np.intp)
    var[iu, ju] = np.arange(iu.size)
    span = float(np.abs(prefer[iu, ju]).sum())
    c = -((N - N.T)[iu, ju] + prefer[iu, ju] * (0.5 / max(span, 1.0)))
    triangles = _triangles(k, var)
    A, ub = _triangle_constraints(triangles, np.ones((2, len(triangles)), bool),
                                  iu.size)
    res = milp(c, constraints=LinearConstraint(A, -np.inf, ub),
               integrality=np.ones(iu.size), bounds=Bounds(0, 1),
               options={"mip_rel_gap": 0.0})
    return -res.fun


@pytest.mark.parametrize("seed", range(4))
def test_lazy_program_reaches_the_full_programs_optimum(seed):
    rng = np.random.default_rng(seed)
    N, prefer = _problem(rng, 14, 5)
    order = _ilp(N, prefer)
    agreement, tie = _key(N, prefer, order)
    # the full program's objective: margins above minus below, plus tie-break
    iu, ju = np.triu_indices(14, 1)
    span = float(np.abs(prefer[iu, ju]).sum())
    pos = np.empty(14, dtype=int)
    pos[order] = np.arange(14)
    above = pos[iu] < pos[ju]
    value = np.sum(np.where(above, (N - N.T)[iu, ju]
                            + prefer[iu, ju] * (0.5 / max(span, 1.0)), 0.0))
    assert value == pytest.approx(_full_program(N, prefer), abs=1e-9)


def test_triangles_are_the_triples_in_order():
    k = 6
    var = -np.ones((k, k), dtype=np.intp)
    iu, ju = np.triu_indices(k, 1)
    var[iu, ju] = np.arange(iu.size)
    expected = [[var[a, b], var[b, c], var[a, c]]
                for a, b, c in itertools.combinations(range(k), 3)]
    assert _triangles(k, var).tolist() == expected
