"""Maximum-entropy Nash equilibria: the spec's closed forms and properties.

Reference values: spec nash_averaging_and_elo.md sections 4-6 (test cases
13-25); Example 1, Example 2, Theorem 1 P3, appendix A and Theorem 2 P3(iii).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits

from sklearn_eval.game import (
    exploitability,
    grad,
    maxent_nash,
    rot,
    symmetric_maxent_nash,
)

C3 = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=float)
T3 = np.array([[0, 1, 2], [-1, 0, 1], [-2, -1, 0]], dtype=float)
C4 = np.array([[0, 1, 0, -1], [-1, 0, 1, 0], [0, -1, 0, 1], [1, 0, -1, 0]], float)
APPENDIX_A = np.array([[89, 93, 76], [85, 85, 85], [79, 74, 99]], dtype=float)


def random_antisymmetric(rng, n):
    G = rng.normal(size=(n, n))
    return G - G.T


def duplicate_agent(A, k):
    """A' = [[A, a_k], [-a_k^T, 0]]: a copy of agent k appended last."""
    top = np.column_stack([A, A[:, k]])
    return np.vstack([top, np.append(A[k], 0.0)])


# --------------------------------------------------------------- AvA cases
def test_example_1_invariance():
    A = np.array([[0, 4.6, -4.6], [-4.6, 0, 4.6], [4.6, -4.6, 0]])
    ne = symmetric_maxent_nash(A)
    np.testing.assert_allclose(ne.row, [1 / 3] * 3, atol=1e-12)
    np.testing.assert_allclose(A @ ne.row, 0.0, atol=1e-12)
    A2 = duplicate_agent(A, 2)
    ne2 = symmetric_maxent_nash(A2)
    np.testing.assert_allclose(ne2.row, [1 / 3, 1 / 3, 1 / 6, 1 / 6], atol=1e-10)
    np.testing.assert_allclose(A2 @ ne2.row, 0.0, atol=1e-10)
    # the uniform average is fooled by the copy: div(A') = (-1.15, 1.15, 0, 0)
    np.testing.assert_allclose(A2.mean(axis=1), [-1.15, 1.15, 0, 0], atol=1e-12)


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.25, 0.4, 0.5])
def test_example_2_below_threshold(eps):
    A = C3 + eps * T3
    ne = symmetric_maxent_nash(A)
    expected = [(1 + eps) / 3, (1 - 2 * eps) / 3, (1 + eps) / 3]
    np.testing.assert_allclose(ne.row, expected, atol=1e-10)
    np.testing.assert_allclose(A @ ne.row, 0.0, atol=1e-10)
    assert ne.exploitability <= 1e-12


def test_example_2_at_one_half_is_maxent_not_lp_vertex():
    A = C3 + 0.5 * T3
    # NE = {(x, 0, 1-x) : x >= 1/2}; the vertex (1, 0, 0) is an equilibrium too
    for x in (1.0, 0.75, 0.5):
        p = np.array([x, 0.0, 1.0 - x])
        assert exploitability(A, p, p) == 0.0
    ne = symmetric_maxent_nash(A)
    np.testing.assert_allclose(ne.row, [0.5, 0.0, 0.5], atol=1e-12)
    np.testing.assert_array_equal(ne.row_support, [True, False, True])


@pytest.mark.parametrize("eps", [0.51, 0.75, 1.0])
def test_example_2_above_threshold(eps):
    A = C3 + eps * T3
    ne = symmetric_maxent_nash(A)
    np.testing.assert_allclose(ne.row, [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(A @ ne.row, [0, -1 - eps, 1 - 2 * eps], atol=1e-12)


@pytest.mark.parametrize("A", [C3, C4, 4.6 * C3], ids=["C", "C4", "RPS"])
def test_p3i_cyclic_games_give_uniform(A):
    ne = symmetric_maxent_nash(A)
    np.testing.assert_allclose(ne.row, 1 / A.shape[0], atol=1e-10)


def test_p3i_random_divergence_free_gives_uniform_and_converse():
    rng = np.random.default_rng(0)
    for n in (5, 8, 13):
        A = rot(random_antisymmetric(rng, n))
        np.testing.assert_allclose(symmetric_maxent_nash(A).row, 1 / n, atol=1e-9)
    A = C3 + 0.3 * T3
    assert np.ptp(symmetric_maxent_nash(A).row) > 0.1


def test_p3ii_transitive_uniform_on_argmax_with_ties():
    r = np.array([3.0, 1.0, 2.0, 3.0, 0.0])
    ne = symmetric_maxent_nash(grad(r))
    np.testing.assert_allclose(ne.row, [0.5, 0, 0, 0.5, 0], atol=1e-12)
    np.testing.assert_allclose(grad(r) @ ne.row, r - 3.0, atol=1e-12)


def test_p3ii_transitive_many_ties():
    r = np.repeat([2.0, 1.0, 5.0, 5.0, 5.0, 0.0], 3)
    ne = symmetric_maxent_nash(grad(r))
    expected = np.where(r == 5.0, 1 / 9, 0.0)
    np.testing.assert_allclose(ne.row, expected, atol=1e-12)


def test_non_unique_ne_counterexample_is_documented_behaviour():
    """P1 fails when the NE is not unique (Balduzzi et al. 2018, section 4.1)."""
    A = np.array([[0, 0, 1, 1], [0, 0, 1, 2], [-1, -1, 0, 0], [-1, -2, 0, 0]], float)
    ne = symmetric_maxent_nash(A)
    np.testing.assert_allclose(ne.row, [0.5, 0.5, 0, 0], atol=1e-12)
    np.testing.assert_allclose(A @ ne.row, [0, 0, -1, -1.5], atol=1e-12)
    A2 = duplicate_agent(A, 1)
    ne2 = symmetric_maxent_nash(A2)
    np.testing.assert_allclose(ne2.row, [1 / 3, 1 / 3, 0, 0, 1 / 3], atol=1e-10)
    assert (A2 @ ne2.row)[3] == pytest.approx(-5 / 3)


def test_structural_properties_random_games():
    rng = np.random.default_rng(1)
    for n in (3, 10, 40, 101):
        A = random_antisymmetric(rng, n)
        ne = symmetric_maxent_nash(A)
        nash_avg = A @ ne.row
        assert nash_avg.max() <= 1e-12
        assert abs(ne.row @ A @ ne.row) <= 1e-12
        np.testing.assert_allclose(nash_avg[ne.row_support], 0.0, atol=1e-12)
        assert ne.row.sum() == pytest.approx(1.0)
        assert ne.row_support.sum() % 2 == 1  # Kaplansky: odd support
        assert ne.exploitability <= 1e-12
        assert ne.value == pytest.approx(0.0, abs=1e-12)


def test_continuity_p2():
    rng = np.random.default_rng(2)
    for _ in range(20):
        A = random_antisymmetric(rng, 7)
        noise = 0.05 * random_antisymmetric(rng, 7)
        p_hat = symmetric_maxent_nash(A + noise).row
        assert np.max(A @ p_hat) <= np.abs(noise).max() + 1e-12


def test_clones_get_equal_shares_at_scale():
    rng = np.random.default_rng(3)
    A = random_antisymmetric(rng, 30)
    base = symmetric_maxent_nash(A)
    k = int(np.argmax(base.row))
    A3 = duplicate_agent(duplicate_agent(A, k), k)
    ne = symmetric_maxent_nash(A3)
    shares = ne.row[[k, 30, 31]]
    np.testing.assert_allclose(shares, base.row[k] / 3, atol=1e-10)
    np.testing.assert_allclose(
        np.delete(ne.row, [k, 30, 31]), np.delete(base.row, k), atol=1e-10
    )


def test_symmetric_rejects_bad_payoff():
    with pytest.raises(ValueError, match="antisymmetric"):
        symmetric_maxent_nash([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="square"):
        symmetric_maxent_nash(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        symmetric_maxent_nash([[0, np.inf], [-np.inf, 0]])
    # antisymmetric up to rounding is accepted (OpenSpiel rejects 4e-16)
    A = C3.copy()
    A[0, 1] += 4e-16
    np.testing.assert_allclose(symmetric_maxent_nash(A).row, 1 / 3)


def test_zero_game_is_uniform():
    ne = maxent_nash(np.zeros((3, 4)))
    np.testing.assert_allclose(ne.row, 1 / 3)
    np.testing.assert_allclose(ne.column, 1 / 4)


# --------------------------------------------------------------- AvT cases
def test_appendix_a_task_suite():
    ne = maxent_nash(APPENDIX_A)
    assert ne.value == pytest.approx(2807 / 33, abs=1e-10)
    np.testing.assert_allclose(ne.row, [20 / 33, 0, 13 / 33], atol=1e-12)
    np.testing.assert_allclose(ne.column, [23 / 33, 0, 10 / 33], atol=1e-12)
    np.testing.assert_allclose(
        APPENDIX_A @ ne.column, [85.0606, 85.0, 85.0606], atol=1e-4
    )
    np.testing.assert_allclose(
        -APPENDIX_A.T @ ne.row, [-85.0606, -85.5152, -85.0606], atol=1e-4
    )


def test_appendix_a_exact_duplicate_task_splits_mass():
    S = np.column_stack([APPENDIX_A, APPENDIX_A[:, 2]])
    ne = maxent_nash(S)
    np.testing.assert_allclose(ne.column, [23 / 33, 0, 5 / 33, 5 / 33], atol=1e-12)
    np.testing.assert_allclose(ne.row, [20 / 33, 0, 13 / 33], atol=1e-12)
    assert ne.value == pytest.approx(2807 / 33)


def test_appendix_a_near_duplicate_task_gets_no_mass():
    S = np.column_stack([APPENDIX_A, [77, 84, 98]])
    ne = maxent_nash(S)
    np.testing.assert_allclose(ne.row, [20 / 33, 0, 13 / 33], atol=1e-12)
    assert ne.column[3] == 0.0
    assert ne.value == pytest.approx(2807 / 33)
    # the uniform ranking flips, the Nash ranking does not
    np.testing.assert_allclose(S.mean(axis=1), [83.75, 84.75, 87.5])
    np.testing.assert_allclose(S @ ne.column, [2807 / 33, 85, 2807 / 33], atol=1e-10)


def test_constant_shift_invariance():
    rng = np.random.default_rng(4)
    S = rng.normal(size=(6, 9))
    ne = maxent_nash(S)
    shifted = maxent_nash(S + 17.5)
    np.testing.assert_allclose(shifted.row, ne.row, atol=1e-12)
    np.testing.assert_allclose(shifted.column, ne.column, atol=1e-12)
    assert shifted.value == pytest.approx(ne.value + 17.5)


def test_p3iii_transitive_scores():
    s = np.array([1.0, 3.0, 3.0, 0.0])
    d = np.array([0.5, 2.0, 2.0, -1.0, 2.0])
    ne = maxent_nash(s[:, None] - d[None, :])
    np.testing.assert_allclose(ne.row, [0, 0.5, 0.5, 0], atol=1e-12)
    np.testing.assert_allclose(ne.column, [0, 1 / 3, 1 / 3, 0, 1 / 3], atol=1e-12)
    assert ne.value == pytest.approx(1.0)


def test_double_centred_scores_give_uniform_both_sides():
    ne = maxent_nash([[1, -1], [-1, 1]])
    np.testing.assert_allclose(ne.row, [0.5, 0.5])
    np.testing.assert_allclose(ne.column, [0.5, 0.5])
    rng = np.random.default_rng(5)
    for shape in [(3, 3), (4, 6), (7, 5)]:
        # equal row means and equal column means => both uniform
        G = rng.normal(size=shape)
        G = G - G.mean(axis=0) - G.mean(axis=1, keepdims=True) + G.mean()
        ne = maxent_nash(G + 2.0)
        np.testing.assert_allclose(ne.row, 1 / shape[0], atol=1e-9)
        np.testing.assert_allclose(ne.column, 1 / shape[1], atol=1e-9)


def test_literal_p3i_statement_is_false():
    """div_a(S) = 0 does not imply uniform agents (Balduzzi et al. 2018, 4.2)."""
    ne = maxent_nash([[2, -2, 0], [0, 0, 0]])
    np.testing.assert_allclose(ne.row, [0, 1], atol=1e-12)
    np.testing.assert_allclose(ne.column, [1 / 3] * 3, atol=1e-10)


def test_avt_continuity():
    rng = np.random.default_rng(6)
    for _ in range(20):
        S = rng.normal(size=(5, 8))
        S_hat = S + rng.uniform(-0.05, 0.05, size=S.shape)
        ne = maxent_nash(S_hat)
        gap = np.max(S @ ne.column) - np.min(S.T @ ne.row)
        assert gap <= 2 * np.abs(S - S_hat).max() + 1e-12


def test_exploitability_function():
    assert exploitability(C3, [1 / 3] * 3, [1 / 3] * 3) == pytest.approx(0.0)
    assert exploitability(C3, [1, 0, 0], [1, 0, 0]) == pytest.approx(1.0)
    assert exploitability(APPENDIX_A, [0, 1, 0], [0, 1, 0]) == pytest.approx(
        0.5 * (93 - 85)
    )


# ----------------------------------------------------- property-based tests
seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(2, 25), st.data())
def test_property_ava_duplicate_splits_mass(seed, n, data):
    rng = np.random.default_rng(seed)
    A = random_antisymmetric(rng, n)
    k = data.draw(st.integers(0, n - 1))
    ne = symmetric_maxent_nash(A)
    ne2 = symmetric_maxent_nash(duplicate_agent(A, k))
    assert ne.exploitability <= 1e-8 and ne2.exploitability <= 1e-8
    np.testing.assert_allclose(ne2.row[k], ne2.row[n], atol=1e-9)
    merged = ne2.row[:n].copy()
    merged[k] += ne2.row[n]
    np.testing.assert_allclose(merged, ne.row, atol=1e-9)
    avg, avg2 = A @ ne.row, duplicate_agent(A, k) @ ne2.row
    np.testing.assert_allclose(avg2, np.append(avg, avg[k]), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(1, 12), st.integers(1, 12), st.data())
def test_property_avt_duplicates(seed, m, n, data):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(m, n))
    ne = maxent_nash(S)
    assert ne.exploitability <= 1e-8
    i = data.draw(st.integers(0, m - 1))
    j = data.draw(st.integers(0, n - 1))
    S2 = np.vstack([S, S[i]])
    S2 = np.column_stack([S2, S2[:, j]])
    ne2 = maxent_nash(S2)
    assert ne2.exploitability <= 1e-8
    np.testing.assert_allclose(ne2.row[i], ne2.row[m], atol=1e-9)
    np.testing.assert_allclose(ne2.column[j], ne2.column[n], atol=1e-9)
    rows = ne2.row[:m].copy()
    rows[i] += ne2.row[m]
    cols = ne2.column[:n].copy()
    cols[j] += ne2.column[n]
    np.testing.assert_allclose(rows, ne.row, atol=1e-9)
    np.testing.assert_allclose(cols, ne.column, atol=1e-9)
    skill, skill2 = S @ ne.column, S2 @ ne2.column
    np.testing.assert_allclose(skill2, np.append(skill, skill[i]), atol=1e-9)
    diff, diff2 = -S.T @ ne.row, -S2.T @ ne2.row
    np.testing.assert_allclose(diff2, np.append(diff, diff[j]), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(2, 20), st.integers(2, 20))
def test_property_permutation_equivariance(seed, m, n):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(m, n))
    pr, pc = rng.permutation(m), rng.permutation(n)
    ne, nep = maxent_nash(S), maxent_nash(S[np.ix_(pr, pc)])
    np.testing.assert_allclose(nep.row, ne.row[pr], atol=1e-10)
    np.testing.assert_allclose(nep.column, ne.column[pc], atol=1e-10)
    A = random_antisymmetric(rng, m)
    sym, symp = symmetric_maxent_nash(A), symmetric_maxent_nash(A[np.ix_(pr, pr)])
    np.testing.assert_allclose(symp.row, sym.row[pr], atol=1e-10)
    assert symp.exploitability <= 1e-8


@settings(max_examples=25, deadline=None)
@given(seeds, st.integers(2, 8), st.integers(1, 4))
def test_property_transitive_with_clipped_ties(seed, n, levels):
    """Integer ratings: many exact ties, maxent spreads over all top players."""
    rng = np.random.default_rng(seed)
    r = rng.integers(0, levels + 1, size=n).astype(float)
    ne = symmetric_maxent_nash(grad(r))
    top = r == r.max()
    np.testing.assert_allclose(ne.row, np.where(top, 1 / top.sum(), 0), atol=1e-10)


def _reference_maxent(M):
    """Maxent optimal row strategy by a direct exponential-cone solve.

    Accurate to about 1e-8 only (and slightly infeasible, which can buy it
    about 1e-6 of extra entropy): a loose but independent reference.
    """
    import cvxpy as cp
    from scipy.optimize import linprog

    m, n = M.shape
    res = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.hstack([-M.T, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    v = res.x[-1]
    p = cp.Variable(m)
    problem = cp.Problem(
        cp.Maximize(cp.sum(cp.entr(p))), [p >= 0, cp.sum(p) == 1, M.T @ p >= v - 1e-10]
    )
    problem.solve(solver=cp.CLARABEL)
    return np.clip(p.value, 0, None)


def _entropy(p):
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(2, 6), st.integers(2, 6))
def test_property_degenerate_integer_games_match_direct_maxent(seed, m, n):
    """Small integer payoffs: many ties and non-unique equilibria."""
    rng = np.random.default_rng(seed)
    M = rng.integers(-2, 3, size=(m, n)).astype(float)
    ne = maxent_nash(M)
    assert ne.exploitability <= 1e-9
    ref_row = _reference_maxent(M)
    ref_col = _reference_maxent(-M.T)
    assert _entropy(ne.row) >= _entropy(ref_row) - 1e-5
    assert _entropy(ne.column) >= _entropy(ref_col) - 1e-5
    np.testing.assert_allclose(ne.row, ref_row, atol=2e-3)
    np.testing.assert_allclose(ne.column, ref_col, atol=2e-3)
    A = M[:, :m] if n >= m else np.pad(M, ((0, 0), (0, m - n)))
    A = A - A.T
    sym = symmetric_maxent_nash(A)
    assert sym.exploitability <= 1e-9
    ref_sym = _reference_maxent(A)
    assert _entropy(sym.row) >= _entropy(ref_sym) - 1e-5
    np.testing.assert_allclose(sym.row, ref_sym, atol=2e-3)


def test_failed_refinement_warns_and_returns_an_equilibrium(monkeypatch):
    from sklearn.exceptions import ConvergenceWarning

    import sklearn_eval.game._nash_solver as module

    def broken(Ms, wr, wc, rows, cols, **kwargs):
        bad = np.zeros(Ms.shape[0])
        bad[0] = 1.0  # not an equilibrium: rejected by the verification
        return bad, bad, "newton", True

    monkeypatch.setattr(module, "_refine", broken)
    monkeypatch.setattr(
        module,
        "_safe_refine",
        lambda Ms, wr, wc, p, q, **k: broken(Ms, wr, wc, None, None),
    )
    A = C3 + 0.3 * T3
    with pytest.warns(ConvergenceWarning, match="linear program's Nash equilibrium"):
        ne = symmetric_maxent_nash(A)
    assert ne.method == "lp"
    assert ne.exploitability <= 1e-9
    np.testing.assert_allclose(ne.row, [1.3 / 3, 0.4 / 3, 1.3 / 3], atol=1e-6)


def test_iteration_count_is_reported():
    rng = np.random.default_rng(7)
    ne = maxent_nash(rng.normal(size=(20, 30)))
    assert 1 <= ne.n_iter <= 100


@pytest.mark.parametrize("seed", [0, 1])
def test_screened_large_games_match_the_dense_solve(seed):
    """Games above 256 strategies go through the double-oracle screening."""
    import sklearn_eval.game._nash_solver as module
    from sklearn_eval.datasets import make_cyclic_game

    def dense(M, symmetric):
        ones_r, ones_c = np.ones(M.shape[0]), np.ones(M.shape[1])
        with threadpool_limits(limits=1, user_api="blas"):
            return module._solve_dense(M, ones_r, ones_c, tol=1e-9, symmetric=symmetric)

    A = make_cyclic_game(300, cyclic_rank=2, random_state=seed)
    ne = symmetric_maxent_nash(A)
    np.testing.assert_allclose(ne.row, dense(A / np.abs(A).max(), True).p, atol=1e-12)
    assert ne.exploitability <= 1e-12
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(300, 30)) + rng.normal(size=(300, 1))
    ne = maxent_nash(S)
    solved = dense(S / np.abs(S).max(), False)
    np.testing.assert_allclose(ne.row, solved.p, atol=1e-12)
    np.testing.assert_allclose(ne.column, solved.q, atol=1e-12)
    assert ne.exploitability <= 1e-12


def test_screened_transitive_ties_keep_every_tied_player():
    r = np.repeat(np.arange(75.0), 4)  # 300 players, four tied at the top
    ne = symmetric_maxent_nash(grad(r))
    np.testing.assert_allclose(ne.row, np.where(r == 74.0, 0.25, 0.0), atol=1e-12)


def test_strongly_cyclic_large_support():
    rng = np.random.default_rng(11)
    A = random_antisymmetric(rng, 300)
    ne = symmetric_maxent_nash(A)
    assert ne.exploitability <= 1e-12
    assert ne.row_support.sum() > 100 and ne.row_support.sum() % 2 == 1
    np.testing.assert_allclose((A @ ne.row)[ne.row_support], 0.0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["rank499", "gaussian", "transitive"])
def test_large_ava_games_are_solved_exactly(kind):
    """n = 1000 agents, as in the benchmark (OpenSpiel fails on two of them)."""
    from sklearn_eval.datasets import make_cyclic_game

    rng = np.random.default_rng(0)
    if kind == "rank499":
        A = make_cyclic_game(
            1000, transitive_scale=0.1, cyclic_rank=499, random_state=0
        )
    elif kind == "gaussian":
        A = random_antisymmetric(rng, 1000)
    else:
        A = make_cyclic_game(1000, random_state=0)
    ne = symmetric_maxent_nash(A)
    assert ne.exploitability <= 1e-9 * np.abs(A).max()
    assert ne.row_support.sum() % 2 == 1
    np.testing.assert_allclose((A @ ne.row)[ne.row_support], 0.0, atol=1e-10)
