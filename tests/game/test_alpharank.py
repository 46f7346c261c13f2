"""AlphaRank: OpenSpiel agreement, the exact infinite-alpha limit, solvers, API."""

import json
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_eval.datasets import load_soccer
from sklearn_eval.game import AlphaRank, infinite_alpha_limit, sink_components
from sklearn_eval.game._markov import (
    _gth_log,
    leading_order_stationary,
    log_fixation,
    stationary_from_log_rates,
)
from sklearn_eval.utils.estimator_checks import check_estimator_contract

# Reference values produced by benchmarks/make_openspiel_fixtures.py with
# open_spiel 2.0.2 (PyPI) in its own venv; see that script's docstring.
with open(os.path.join(os.path.dirname(__file__), "openspiel_reference.json")) as fh:
    REFERENCE = json.load(fh)


def random_win_probabilities(n, seed):
    rng = np.random.default_rng(seed)
    U = np.triu(rng.uniform(size=(n, n)), 1)
    P = U + np.tril(1.0 - U.T, -1)
    np.fill_diagonal(P, 0.5)
    return P


# ------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize("alpha", [1.0, 10.0, 100.0])
def test_soccer_equals_openspiel(alpha):
    ref = np.asarray(REFERENCE["alpharank_soccer"][str(alpha)]["pi"])
    pi = AlphaRank(game="agent_vs_agent", alpha=alpha, population_size=50).fit(
        load_soccer().data
    )
    np.testing.assert_allclose(pi.agent_distribution_, ref, rtol=0, atol=1e-8)


def test_openspiel_overflows_where_we_do_not():
    assert any(
        "overflow" in w for w in REFERENCE["alpharank_soccer"]["100.0"]["warnings"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ar = AlphaRank(game="agent_vs_agent", alpha=1e6).fit(load_soccer().data)
    assert np.isclose(ar.agent_distribution_.sum(), 1.0)
    np.testing.assert_allclose(
        ar.agent_distribution_, ar.limit_distribution_, atol=1e-12
    )


@pytest.mark.parametrize("alpha", [1.0, 10.0])
def test_two_population_equals_openspiel(alpha):
    ref = REFERENCE["alpharank_two_population"]
    S = np.asarray(ref["S"])
    ar = AlphaRank(alpha=alpha, game="agent_vs_task").fit(S)
    expected = np.asarray(ref[str(alpha)]).reshape(S.shape)
    np.testing.assert_allclose(ar.stationary_distribution_, expected, atol=1e-8)
    np.testing.assert_allclose(ar.agent_distribution_, expected.sum(axis=1), atol=1e-8)
    np.testing.assert_allclose(ar.task_distribution_, expected.sum(axis=0), atol=1e-8)


# ----------------------------------------------------- infinite-alpha limit
def test_limit_of_a_cycle_is_uniform_on_the_cycle():
    cycle = np.roll(np.eye(5), 1, axis=1)  # i -> i + 1 (mod 5)
    np.testing.assert_allclose(infinite_alpha_limit(cycle), np.full(5, 0.2))
    [comp] = sink_components(cycle)
    assert comp.tolist() == [0, 1, 2, 3, 4]


def test_limit_of_a_cycle_with_uneven_rates_is_its_stationary_law():
    graph = np.array([[0, 1.0, 0], [0, 0, 2.0], [4.0, 0, 0]])
    pi = infinite_alpha_limit(graph)
    # balance: pi_0 * 1 = pi_1 * 2 = pi_2 * 4
    np.testing.assert_allclose(pi, np.array([4.0, 2.0, 1.0]) / 7.0)


def test_limit_of_a_dominant_agent_is_a_point_mass():
    n = 6
    graph = np.zeros((n, n))
    graph[:, 2] = 1.0  # everybody is beaten by agent 2
    graph[2, 2] = 0.0
    graph[0, 1] = graph[1, 0] = 1.0  # a side cycle that can still be left
    np.testing.assert_array_equal(infinite_alpha_limit(graph), np.eye(n)[2])
    assert [c.tolist() for c in sink_components(graph)] == [[2]]


def test_limit_with_two_disconnected_sinks():
    # sinks {0, 1} (a 2-cycle) and {2}; a transient state 3 feeds both
    graph = np.zeros((4, 4))
    graph[0, 1] = graph[1, 0] = graph[3, 0] = graph[3, 2] = 1.0
    assert [c.tolist() for c in sink_components(graph)] == [[0, 1], [2]]
    with pytest.raises(ValueError, match="2 sink components"):
        infinite_alpha_limit(graph)
    # escapes: leaving {0,1} costs 3, leaving {2} costs 1 -> all mass on {0,1}
    rate = graph.copy()
    resistance = np.zeros((4, 4))
    rate[0, 2] = rate[1, 2] = rate[2, 0] = 1.0
    resistance[0, 2] = resistance[1, 2] = 3.0
    resistance[2, 0] = 1.0
    np.testing.assert_allclose(
        infinite_alpha_limit(rate, resistance), [0.5, 0.5, 0.0, 0.0]
    )
    # equal escape costs: the split is decided by the escape coefficients
    resistance[2, 0] = 3.0
    pi = infinite_alpha_limit(rate, resistance)
    # one way out of {2} (rate 1) vs two (0->2, 1->2) each used half the time
    np.testing.assert_allclose(pi, [0.25, 0.25, 0.5, 0.0])


@pytest.mark.parametrize("seed", range(6))
def test_leading_order_limit_matches_large_alpha(seed):
    """Freidlin-Wentzell limit == the exact log-space chain at large alpha."""
    rng = np.random.default_rng(seed)
    n = 7
    rate = rng.uniform(0.5, 2.0, size=(n, n)) * (rng.uniform(size=(n, n)) < 0.6)
    resistance = np.where(
        rng.uniform(size=(n, n)) < 0.4, 0.0, rng.integers(1, 4, size=(n, n))
    ).astype(float)
    np.fill_diagonal(rate, 0.0)
    ring = np.roll(np.eye(n, dtype=bool), 1, axis=1)  # keep it irreducible
    rate[ring] = 1.0
    resistance[ring] = np.maximum(resistance[ring], 1.0)
    limit = leading_order_stationary(rate, resistance)
    src, dst = np.nonzero(rate > 0)
    for alpha in (40.0, 80.0):
        log_rate = np.log(rate[src, dst]) - alpha * resistance[src, dst]
        pi, _ = stationary_from_log_rates(src, dst, log_rate, n)
    np.testing.assert_allclose(pi, limit, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_estimator_limit_matches_large_alpha(seed):
    P = random_win_probabilities(8, seed)
    ar = AlphaRank(game="agent_vs_agent", alpha=np.inf).fit(P)
    big = AlphaRank(game="agent_vs_agent", alpha=1e5).fit(P)
    np.testing.assert_allclose(big.agent_distribution_, ar.agent_distribution_,
                               atol=1e-9)
    support = np.flatnonzero(ar.agent_distribution_ > 0)
    assert set(support) <= {i for c in ar.sink_components_ for i in c}
    S = np.random.default_rng(seed).normal(size=(5, 4))
    ar2 = AlphaRank(alpha=np.inf, game="agent_vs_task").fit(S)
    big2 = AlphaRank(alpha=1e5, game="agent_vs_task").fit(S)
    np.testing.assert_allclose(big2.stationary_distribution_,
                               ar2.stationary_distribution_, atol=1e-9)


def test_rock_paper_scissors_limit_and_ties():
    rps = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])
    ar = AlphaRank(game="agent_vs_agent", alpha=np.inf).fit(rps)
    np.testing.assert_allclose(ar.agent_distribution_, np.full(3, 1 / 3))
    assert ar.agent_table()["rank"].tolist() == [1, 1, 1]
    # a neutral pair (P = 0.5) is a two-way edge of weight 1/m
    P = np.array([[0.5, 0.5, 0.9], [0.5, 0.5, 0.8], [0.1, 0.2, 0.5]])
    ar = AlphaRank(game="agent_vs_agent", alpha=np.inf, population_size=10).fit(P)
    assert ar.response_graph_[0, 1] == pytest.approx(0.1)
    np.testing.assert_allclose(ar.agent_distribution_, [0.5, 0.5, 0.0])


# ------------------------------------------------------------- numerics
def test_log_fixation_matches_the_formula_and_never_overflows():
    u = np.array([-3.0, -0.1, 1e-9, 0.5, 2.0])
    m = 50
    direct = np.expm1(-u) / np.expm1(-m * u)
    np.testing.assert_allclose(np.exp(log_fixation(u, m)), direct, rtol=1e-12)
    # near-neutral mutants: 1/m * (1 + (m - 1) u / 2), where 1 - exp(-u) cancels
    assert np.exp(log_fixation(np.array([1e-9]), m))[0] == pytest.approx(
        (1 + 49 * 0.5e-9) / m, rel=1e-12
    )
    assert log_fixation(np.array([0.0]), m)[0] == pytest.approx(-np.log(m))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        extreme = log_fixation(np.array([-1e300, -1e5, 1e5, 1e300]), m)
    assert np.all(np.isfinite(extreme[1:3]))
    assert extreme[0] == -np.inf or extreme[0] < -1e300
    assert extreme[2] == pytest.approx(0.0)


def test_sparse_solver_at_1000_profiles_matches_exact_elimination():
    S = np.random.default_rng(3).normal(size=(40, 30))  # 1200 profiles
    ar = AlphaRank(alpha=2.0, game="agent_vs_task").fit(S)
    assert ar.solver_ == "sparse"
    from sklearn_eval.game._alpharank import _two_population_moves

    src, dst, gain, eta = _two_population_moves(S)
    L = np.full((1200, 1200), -np.inf)
    L[src, dst] = np.log(eta) + log_fixation(2.0 * gain, 50)
    log_pi = _gth_log(L)
    exact = np.exp(log_pi - log_pi.max())
    exact /= exact.sum()
    np.testing.assert_allclose(ar.stationary_distribution_.ravel(), exact,
                               atol=1e-12)


@pytest.mark.parametrize("density", [0.05, 1.0])
def test_direct_solvers_match_gth(monkeypatch, density):
    """Both direct solvers (sparse LU, dense LAPACK) used from 1,000 states."""
    import sklearn_eval.game._markov as markov

    rng = np.random.default_rng(0)
    n = 120
    mask = (rng.uniform(size=(n, n)) < density) | np.roll(np.eye(n, dtype=bool), 1, 1)
    np.fill_diagonal(mask, False)
    src, dst = np.nonzero(mask)
    log_rate = rng.normal(scale=3.0, size=src.size)
    exact, method = stationary_from_log_rates(src, dst, log_rate, n)
    assert method == "gth"
    monkeypatch.setattr(markov, "SPARSE_MIN_STATES", 100)
    direct, method = stationary_from_log_rates(src, dst, log_rate, n)
    assert method == "sparse"
    np.testing.assert_allclose(direct, exact, rtol=1e-9, atol=1e-15)


def test_alpha_auto_sweeps_until_the_distribution_settles():
    P = load_soccer().data
    ar = AlphaRank(game="agent_vs_agent").fit(P)
    assert np.allclose(np.diff(np.log2(ar.alphas_)), 1.0)
    assert ar.alpha_ == ar.alphas_[-1]
    assert ar.alpha_path_.shape == (ar.alphas_.size, 10)
    assert np.max(np.abs(ar.alpha_path_[-1] - ar.alpha_path_[-2])) <= 1e-8
    np.testing.assert_allclose(ar.agent_distribution_, ar.limit_distribution_,
                               atol=1e-6)
    np.testing.assert_allclose(ar.sweep([ar.alpha_])[0], ar.agent_distribution_)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.permutations(range(6)))
def test_permutation_equivariance(seed, perm):
    perm = np.asarray(perm)
    P = random_win_probabilities(6, seed)
    a = AlphaRank(game="agent_vs_agent", alpha=5.0).fit(P).agent_distribution_
    b = AlphaRank(game="agent_vs_agent", alpha=5.0).fit(P[np.ix_(perm, perm)])
    b = b.agent_distribution_
    np.testing.assert_allclose(b, a[perm], atol=1e-12)
    S = np.random.default_rng(seed).normal(size=(6, 3))
    c = AlphaRank(alpha=3.0, game="agent_vs_task").fit(S)
    d = AlphaRank(alpha=3.0, game="agent_vs_task").fit(S[perm][:, [2, 0, 1]])
    np.testing.assert_allclose(d.agent_distribution_, c.agent_distribution_[perm],
                               atol=1e-12)
    np.testing.assert_allclose(d.task_distribution_,
                               c.task_distribution_[[2, 0, 1]], atol=1e-12)


def test_logit_and_probability_payoffs_and_general_games():
    P = random_win_probabilities(5, 0)
    A = np.log(P) - np.log1p(-P)
    ar = AlphaRank(game="agent_vs_agent", alpha=np.inf, payoff="logit").fit(A)
    ap = AlphaRank(game="agent_vs_agent", alpha=np.inf).fit(P)
    # the sign of every gain is the same, hence the same limit
    np.testing.assert_allclose(ar.agent_distribution_, ap.agent_distribution_)
    # a general (non-antisymmetric) symmetric game
    M = np.array([[3.0, 0.0], [5.0, 1.0]])  # prisoner's dilemma: defect wins
    np.testing.assert_allclose(
        AlphaRank(game="agent_vs_agent", alpha=np.inf, payoff="payoff")
        .fit(M)
        .agent_distribution_,
        [0, 1],
    )


# ------------------------------------------------------------------ API
@parametrize_with_checks([AlphaRank(alpha=1.0, game="agent_vs_task")])
def test_sklearn_checks(estimator, check):
    check(estimator)


def test_contract_and_tables():
    P = random_win_probabilities(5, 1)
    check_estimator_contract(
        AlphaRank(game="agent_vs_agent", alpha=10.0), P,
        bad_inputs=[(P[:, :3], None), (np.full((3, 3), np.nan), None)],
    )
    S = np.random.default_rng(0).normal(size=(4, 6))
    check_estimator_contract(AlphaRank(alpha=1.0, game="agent_vs_task"), S)
    frame = pd.DataFrame(S, index=list("abcd"), columns=[f"t{k}" for k in range(6)])
    ar = AlphaRank(alpha=1.0, game="agent_vs_task").fit(frame)
    table = ar.agent_table()
    assert table.index.name == "agent" and sorted(table.index) == list("abcd")
    assert list(table.columns[:2]) == ["score", "rank"]
    assert np.all(np.diff(table["score"].to_numpy()) <= 0)  # best first
    np.testing.assert_array_equal(table.loc[list("abcd"), "score"], ar.agent_scores_)
    tasks = ar.task_table()
    assert tasks.index.name == "task" and list(tasks.index) == list(frame.columns)
    np.testing.assert_allclose(tasks["mass"].sum(), 1.0)
    ava = AlphaRank(game="agent_vs_agent", alpha=1.0).fit(P)
    assert not hasattr(ava, "task_table")  # an agent-vs-agent game has no tasks
    with pytest.raises(AttributeError, match="task_table") as info:
        ava.task_table()
    assert "agent_vs_task" in str(info.value.__cause__)


@pytest.mark.parametrize(
    "X, params, match",
    [
        (np.ones((3, 4)) * 0.5, {}, "square"),
        ([[0.5, 1.2], [-0.2, 0.5]], {}, r"\[0, 1\]"),
        ([[0.5, 0.7], [0.7, 0.5]], {}, r"P\[i, j\] \+ P\[j, i\] = 1"),
        ([[0.0, 1.0], [2.0, 0.0]], {"payoff": "logit"}, "A\\[i, j\\] = -A\\[j, i\\]"),
        ([[0.5, np.nan], [0.5, 0.5]], {}, "NaN"),
    ],
)
def test_bad_input(X, params, match):
    with pytest.raises(ValueError, match=match):
        AlphaRank(game="agent_vs_agent", alpha=1.0, **params).fit(X)


def test_bad_parameters_and_graphs():
    P = random_win_probabilities(3, 0)
    for bad in ({"alpha": -1.0}, {"alpha": "big"}, {"population_size": 1}):
        with pytest.raises(ValueError):
            AlphaRank(game="agent_vs_agent", **bad).fit(P)
    with pytest.raises(ValueError, match="square"):
        sink_components(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        infinite_alpha_limit([[0, -1], [1, 0]])
    with pytest.raises(ValueError, match="same shape"):
        infinite_alpha_limit(np.ones((2, 2)), np.ones((3, 3)))
