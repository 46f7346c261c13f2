"""Exact copies (twins) in pairwise statistics: the shared definition.

``twin_classes`` must group exactly the agents whose swap leaves every
matrix unchanged, for dense and sparse input alike (Kemeny-Young reads dense
counts, MultiElo sparse pair statistics).
"""

import itertools

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_eval.utils._twins import agent_signatures, twin_classes


def _swap_invariant(matrices, i, j):
    p = np.arange(matrices[0].shape[0])
    p[[i, j]] = p[[j, i]]
    return all(np.array_equal(M[np.ix_(p, p)], M) for M in matrices)


@st.composite
def matrices_with_twins(draw):
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 2))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mats = [rng.integers(0, 3, size=(n, n)).astype(float) for _ in range(k)]
    # copy some agents: a copy relates to the others as its source does,
    # and the pair ties (the same entry both ways)
    for _ in range(draw(st.integers(0, 3))):
        src = int(rng.integers(0, mats[0].shape[0]))
        grown = []
        for M in mats:
            G = np.zeros((M.shape[0] + 1,) * 2)
            G[:-1, :-1] = M
            G[-1, :-1], G[:-1, -1] = M[src], M[:, src]
            G[-1, src] = G[src, -1] = rng.integers(0, 3)
            grown.append(G)
        mats = grown
    for M in mats:
        np.fill_diagonal(M, 0.0)
    order = rng.permutation(mats[0].shape[0])
    return [M[np.ix_(order, order)] for M in mats]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(matrices_with_twins())
def test_twin_classes_are_the_swap_invariant_pairs_dense_and_sparse(mats):
    dense = twin_classes(*mats)
    sparse = twin_classes(*[sp.csr_array(M) for M in mats])
    assert dense.tolist() == sparse.tolist()
    for i, j in itertools.combinations(range(mats[0].shape[0]), 2):
        assert (dense[i] == dense[j]) == _swap_invariant(mats, i, j)
    # twins share their label-free signature
    keys = agent_signatures(*mats)
    for i, j in itertools.combinations(range(mats[0].shape[0]), 2):
        if dense[i] == dense[j]:
            assert keys[i] == keys[j]
