"""The make_* generators draw from their documented models, seeded and validated.

Each generator is checked against its model (moments, exact structure such as
antisymmetry or the Hodge split), its documented draw order (same seed, same
data) and its parameter validation (scikit-learn's validate_params: errors
are ValueError and TypeError naming the parameter).
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from sklearn_eval.datasets import (
    make_agent_task_scores,
    make_cyclic_game,
    make_irt_responses,
    make_matches,
)


def _omega(k):
    """The mElo Omega matrix, built independently of the generator."""
    omega = np.zeros((2 * k, 2 * k))
    for block in range(k):
        omega[2 * block, 2 * block + 1] = 1.0
        omega[2 * block + 1, 2 * block] = -1.0
    return omega


def _within_sigmas(observed, expected, variance, n_sigmas=5.0):
    return abs(observed - expected) <= n_sigmas * np.sqrt(variance)


# ---------------------------------------------------------------------------
# make_matches
# ---------------------------------------------------------------------------
class TestMakeMatches:
    def test_shapes_dtypes_and_no_self_play(self):
        X, y, strengths = make_matches(
            n_players=7, n_matches=500, random_state=0, return_strengths=True
        )
        assert X.shape == (500, 2) and X.dtype == np.int64
        assert y.shape == (500,) and y.dtype == np.float64
        assert strengths.shape == (7,) and strengths.dtype == np.float64
        assert np.all(X[:, 0] != X[:, 1])
        assert set(np.unique(X)) <= set(range(7))
        assert set(np.unique(y)) <= {0.0, 1.0}

    def test_default_return_is_pair(self):
        result = make_matches(random_state=0)
        assert len(result) == 2
        assert result[0].shape == (1000, 2)

    def test_string_labels_follow_integer_order(self):
        X_int, y_int = make_matches(n_players=12, n_matches=50, random_state=3)
        X_str, y_str = make_matches(
            n_players=12, n_matches=50, labels="str", random_state=3
        )
        assert X_str.dtype.kind == "U"
        expected = np.char.add("player_", np.char.zfill(X_int.astype(str), 2))
        np.testing.assert_array_equal(X_str, expected)
        np.testing.assert_array_equal(y_int, y_str)

    def test_deterministic_under_seed(self):
        a = make_matches(random_state=42, draw_rate=0.2, cyclic_strength=1.0)
        b = make_matches(random_state=42, draw_rate=0.2, cyclic_strength=1.0)
        c = make_matches(random_state=43, draw_rate=0.2, cyclic_strength=1.0)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert not np.array_equal(a[0], c[0])

    def test_pairs_uniform_over_ordered_pairs(self):
        n = 5
        X, _ = make_matches(n_players=n, n_matches=200_000, random_state=1)
        counts = np.zeros((n, n))
        np.add.at(counts, (X[:, 0], X[:, 1]), 1)
        expected = 200_000 / (n * (n - 1))
        off_diagonal = counts[~np.eye(n, dtype=bool)]
        assert np.all(np.diag(counts) == 0)
        assert np.all(np.abs(off_diagonal - expected) < 5 * np.sqrt(expected))

    def test_outcomes_follow_bradley_terry(self):
        X, y, r = make_matches(
            n_players=10, n_matches=100_000, random_state=2, return_strengths=True
        )
        p = expit(r[X[:, 0]] - r[X[:, 1]])
        assert _within_sigmas(y.sum(), p.sum(), np.sum(p * (1 - p)))
        # Per-player win rates rank like the strengths.
        wins = np.bincount(X[:, 0], weights=y, minlength=10) + np.bincount(
            X[:, 1], weights=1 - y, minlength=10
        )
        games = np.bincount(X.ravel(), minlength=10)
        rho = np.corrcoef(
            np.argsort(np.argsort(wins / games)), np.argsort(np.argsort(r))
        )[0, 1]
        assert rho > 0.95

    def test_draw_rate_and_expected_score(self):
        draw_rate = 0.3
        X, y, r = make_matches(
            n_players=8,
            n_matches=100_000,
            draw_rate=draw_rate,
            random_state=4,
            return_strengths=True,
        )
        n = y.size
        n_draws = np.sum(y == 0.5)
        assert _within_sigmas(n_draws, n * draw_rate, n * draw_rate * (1 - draw_rate))
        p = expit(r[X[:, 0]] - r[X[:, 1]])
        expected_score = (1 - draw_rate) * p + draw_rate / 2
        second_moment = (1 - draw_rate) * p + draw_rate / 4
        variance = np.sum(second_moment - expected_score**2)
        assert _within_sigmas(y.sum(), expected_score.sum(), variance)

    def test_all_draws(self):
        _, y = make_matches(n_matches=50, draw_rate=1.0, random_state=0)
        assert np.all(y == 0.5)

    @pytest.mark.parametrize("cyclic_rank", [1, 2])
    def test_cyclic_model_matches_documented_draw_order(self, cyclic_rank):
        n, m, s = 9, 200_000, 2.0
        X, y, r = make_matches(
            n_players=n,
            n_matches=m,
            cyclic_strength=s,
            cyclic_rank=cyclic_rank,
            random_state=5,
            return_strengths=True,
        )
        rng = np.random.RandomState(5)
        np.testing.assert_array_equal(rng.standard_normal(n), r)
        c = rng.standard_normal((n, 2 * cyclic_rank))
        c = (c - c.mean(axis=0)) * np.sqrt(s / np.sqrt(cyclic_rank))
        logits = r[:, None] - r[None, :] + c @ _omega(cyclic_rank) @ c.T
        p = expit(logits[X[:, 0], X[:, 1]])
        assert _within_sigmas(y.sum(), p.sum(), np.sum(p * (1 - p)))
        # The cyclic part matters: pairwise win rates follow the full model
        # much better than they follow Bradley-Terry alone.
        wins = np.zeros((n, n))
        games = np.zeros((n, n))
        np.add.at(wins, (X[:, 0], X[:, 1]), y)
        np.add.at(games, (X[:, 0], X[:, 1]), 1)
        off = ~np.eye(n, dtype=bool)
        rate = wins[off] / games[off]
        error_full = np.abs(rate - expit(logits)[off]).max()
        error_bt = np.abs(rate - expit(r[:, None] - r[None, :])[off]).max()
        assert error_full < 0.03 < error_bt
        # Zero divergence of the cyclic part (centred vectors).
        cyclic = c @ _omega(cyclic_rank) @ c.T
        np.testing.assert_allclose(cyclic.sum(axis=1), 0, atol=1e-10)

    @pytest.mark.parametrize("cyclic_rank", [1, 3])
    def test_cyclic_variance_matches_transitive_scale(self, cyclic_rank):
        # Documented: the cyclic logit has variance 2 s^2 whatever k.
        n, s = 600, 1.5
        _, _, r = make_matches(
            n_players=n,
            n_matches=1,
            cyclic_strength=s,
            cyclic_rank=cyclic_rank,
            random_state=11,
            return_strengths=True,
        )
        rng = np.random.RandomState(11)
        rng.standard_normal(n)
        c = rng.standard_normal((n, 2 * cyclic_rank))
        c = (c - c.mean(axis=0)) * np.sqrt(s / np.sqrt(cyclic_rank))
        cyclic = c @ _omega(cyclic_rank) @ c.T
        off = ~np.eye(n, dtype=bool)
        assert abs(cyclic[off].var() / (2 * s**2) - 1) < 0.1

    def test_zero_cyclic_strength_is_pure_bradley_terry(self):
        a = make_matches(n_matches=300, random_state=7, cyclic_rank=3)
        b = make_matches(n_matches=300, random_state=7)
        np.testing.assert_array_equal(a[1], b[1])

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"n_players": 1}, ValueError, "n_players"),
            ({"n_players": 2.5}, TypeError, "n_players"),
            ({"n_players": True}, TypeError, "n_players"),
            ({"n_matches": 0}, ValueError, "n_matches"),
            ({"cyclic_strength": -1.0}, ValueError, "cyclic_strength"),
            ({"cyclic_strength": np.nan}, ValueError, "cyclic_strength"),
            ({"cyclic_strength": "big"}, TypeError, "cyclic_strength"),
            ({"cyclic_rank": 0}, ValueError, "cyclic_rank"),
            (
                {"n_players": 4, "cyclic_strength": 1.0, "cyclic_rank": 2},
                ValueError,
                "cyclic_rank",
            ),
            ({"draw_rate": 1.5}, ValueError, "draw_rate"),
            ({"draw_rate": -0.1}, ValueError, "draw_rate"),
            ({"labels": "float"}, ValueError, "labels"),
        ],
    )
    def test_bad_parameters(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            make_matches(**kwargs)

    @settings(max_examples=30, deadline=None)
    @given(
        n_players=st.integers(2, 30),
        n_matches=st.integers(1, 200),
        draw_rate=st.floats(0, 1),
        cyclic_strength=st.floats(0, 5),
        seed=st.integers(0, 2**31 - 1),
    )
    def test_invariants(self, n_players, n_matches, draw_rate, cyclic_strength, seed):
        if n_players < 3:  # a rank-2 cyclic part needs at least 3 players
            cyclic_strength = 0.0
        X, y = make_matches(
            n_players=n_players,
            n_matches=n_matches,
            draw_rate=draw_rate,
            cyclic_strength=cyclic_strength,
            random_state=seed,
        )
        assert X.shape == (n_matches, 2)
        assert np.all(X[:, 0] != X[:, 1])
        assert np.all((X >= 0) & (X < n_players))
        assert np.all(np.isin(y, [0.0, 0.5, 1.0]))


# ---------------------------------------------------------------------------
# make_cyclic_game
# ---------------------------------------------------------------------------
def _div(A):
    return A.mean(axis=1)


def _rot(A):
    d = _div(A)
    return A - (d[:, None] - d[None, :])


class TestMakeCyclicGame:
    def test_exact_antisymmetry_and_hodge_parts(self):
        A, parts = make_cyclic_game(
            30,
            transitive_scale=2.0,
            cyclic_rank=3,
            cyclic_scale=0.5,
            random_state=0,
            return_components=True,
        )
        assert A.shape == (30, 30) and A.dtype == np.float64
        assert np.array_equal(A, -A.T)
        assert np.all(np.diag(A) == 0)
        r = parts["strengths"]
        np.testing.assert_allclose(_div(A), 2.0 * (r - r.mean()), atol=1e-12)
        np.testing.assert_allclose(_rot(A), parts["cyclic"], atol=1e-12)
        np.testing.assert_allclose(parts["transitive"] + parts["cyclic"], A)
        assert np.linalg.matrix_rank(parts["cyclic"]) == 6
        assert parts["u"].shape == (3, 30) and parts["v"].shape == (3, 30)

    def test_documented_construction(self):
        A, parts = make_cyclic_game(
            8, cyclic_rank=2, cyclic_scale=3.0, random_state=1, return_components=True
        )
        rng = np.random.RandomState(1)
        r = rng.standard_normal(8)
        u = rng.standard_normal((2, 8))
        v = rng.standard_normal((2, 8))
        u -= u.mean(axis=1, keepdims=True)
        v -= v.mean(axis=1, keepdims=True)
        expected = (
            r[:, None]
            - r[None, :]
            + 3.0
            / np.sqrt(2)
            * sum(np.outer(u[k], v[k]) - np.outer(v[k], u[k]) for k in range(2))
        )
        np.testing.assert_allclose(A, expected, atol=1e-12)

    def test_pure_transitive_and_pure_cyclic(self):
        A = make_cyclic_game(10, cyclic_rank=0, random_state=2)
        np.testing.assert_allclose(_rot(A), 0, atol=1e-12)
        B = make_cyclic_game(10, transitive_scale=0.0, random_state=2)
        np.testing.assert_allclose(_div(B), 0, atol=1e-12)
        assert np.abs(B).max() > 0.1

    def test_scales_balance_magnitudes(self):
        _, parts = make_cyclic_game(
            400, cyclic_rank=5, random_state=3, return_components=True
        )
        ratio = np.linalg.norm(parts["cyclic"]) / np.linalg.norm(parts["transitive"])
        assert 0.7 < ratio < 1.4

    def test_rock_paper_scissors_size(self):
        A = make_cyclic_game(3, transitive_scale=0.0, cyclic_rank=1, random_state=0)
        # A 3-agent cyclic game with zero divergence is a scaled RPS.
        assert np.allclose(A[0, 1], A[1, 2]) and np.allclose(A[1, 2], A[2, 0])

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"n_agents": 1}, ValueError, "n_agents"),
            ({"cyclic_rank": -1}, ValueError, "cyclic_rank"),
            ({"n_agents": 4, "cyclic_rank": 2}, ValueError, "cyclic_rank"),
            ({"transitive_scale": -1}, ValueError, "transitive_scale"),
            ({"cyclic_scale": np.inf}, ValueError, "cyclic_scale"),
            ({"cyclic_scale": None}, TypeError, "cyclic_scale"),
        ],
    )
    def test_bad_parameters(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            make_cyclic_game(**kwargs)

    @settings(max_examples=30, deadline=None)
    @given(
        n=st.integers(2, 25),
        rank=st.integers(0, 12),
        t=st.floats(0, 10),
        c=st.floats(0, 10),
        seed=st.integers(0, 10_000),
    )
    def test_invariants(self, n, rank, t, c, seed):
        rank = min(rank, (n - 1) // 2)
        A = make_cyclic_game(
            n, transitive_scale=t, cyclic_rank=rank, cyclic_scale=c, random_state=seed
        )
        assert np.array_equal(A, -A.T)
        assert np.all(np.isfinite(A))
        assert np.linalg.matrix_rank(_rot(A), tol=1e-8) <= 2 * rank


# ---------------------------------------------------------------------------
# make_irt_responses
# ---------------------------------------------------------------------------
class TestMakeIRTResponses:
    def test_shapes_values_and_params(self):
        X, params = make_irt_responses(200, 15, random_state=0, return_params=True)
        assert X.shape == (200, 15) and X.dtype == np.float64
        assert set(np.unique(X)) <= {0.0, 1.0}
        assert params["theta"].shape == (200,)
        assert params["a"].shape == params["b"].shape == (15,)
        assert np.all(params["a"] > 0)
        expected = expit(params["a"] * (params["theta"][:, None] - params["b"]))
        np.testing.assert_allclose(params["probabilities"], expected)

    def test_documented_draw_order(self):
        X, params = make_irt_responses(30, 5, random_state=9, return_params=True)
        rng = np.random.RandomState(9)
        np.testing.assert_array_equal(rng.standard_normal(30), params["theta"])
        np.testing.assert_array_equal(rng.standard_normal(5), params["b"])
        np.testing.assert_array_equal(np.exp(0.3 * rng.standard_normal(5)), params["a"])
        u = rng.random_sample((30, 5))
        np.testing.assert_array_equal(X, (u < params["probabilities"]) * 1.0)

    def test_parameter_distributions_and_response_rates(self):
        X, params = make_irt_responses(4000, 400, random_state=1, return_params=True)
        log_a = np.log(params["a"])
        assert abs(log_a.mean()) < 0.06 and abs(log_a.std() - 0.3) < 0.04
        assert abs(params["b"].mean()) < 0.2 and abs(params["b"].std() - 1) < 0.12
        assert abs(params["theta"].std() - 1) < 0.05
        p = params["probabilities"]
        assert _within_sigmas(X.sum(), p.sum(), np.sum(p * (1 - p)))

    def test_missing_completely_at_random(self):
        X = make_irt_responses(2000, 50, missing_rate=0.3, random_state=2)
        missing = np.isnan(X)
        assert _within_sigmas(missing.sum(), 0.3 * X.size, 0.21 * X.size)
        assert set(np.unique(X[~missing])) <= {0.0, 1.0}

    def test_each_agent_keeps_a_response(self):
        X = make_irt_responses(500, 3, missing_rate=0.99, random_state=3)
        assert np.all((~np.isnan(X)).sum(axis=1) >= 1)
        X = make_irt_responses(50, 1, missing_rate=0.9, random_state=3)
        assert not np.isnan(X).any()

    def test_no_missing_by_default_and_determinism(self):
        a = make_irt_responses(20, 10, random_state=4)
        b = make_irt_responses(20, 10, random_state=4)
        assert not np.isnan(a).any()
        np.testing.assert_array_equal(a, b)

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"n_agents": 0}, ValueError, "n_agents"),
            ({"n_items": 0}, ValueError, "n_items"),
            ({"n_items": "5"}, TypeError, "n_items"),
            ({"missing_rate": 1.0}, ValueError, "missing_rate"),
            ({"missing_rate": -0.5}, ValueError, "missing_rate"),
        ],
    )
    def test_bad_parameters(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            make_irt_responses(**kwargs)

    @settings(max_examples=30, deadline=None)
    @given(
        n=st.integers(1, 40),
        m=st.integers(1, 20),
        rate=st.floats(0, 0.999),
        seed=st.integers(0, 10_000),
    )
    def test_invariants(self, n, m, rate, seed):
        X = make_irt_responses(n, m, missing_rate=rate, random_state=seed)
        observed = ~np.isnan(X)
        assert X.shape == (n, m)
        assert np.all(observed.any(axis=1))
        assert np.all(np.isin(X[observed], [0.0, 1.0]))


# ---------------------------------------------------------------------------
# make_agent_task_scores
# ---------------------------------------------------------------------------
class TestMakeAgentTaskScores:
    def test_shape_range_and_model(self):
        S, params = make_agent_task_scores(
            15, 25, noise=0.0, random_state=0, return_params=True
        )
        assert S.shape == (15, 25) and S.dtype == np.float64
        assert np.all((S > 0) & (S < 1))
        expected = expit(params["ability"][:, None] - params["difficulty"])
        np.testing.assert_allclose(S, expected)

    def test_noise_is_on_the_logit_scale(self):
        S, params = make_agent_task_scores(
            300, 300, noise=0.7, random_state=1, return_params=True
        )
        residual = np.log(S / (1 - S)) - (
            params["ability"][:, None] - params["difficulty"]
        )
        assert abs(residual.std() - 0.7) < 0.01
        assert abs(residual.mean()) < 0.01

    def test_as_frame(self):
        frame = make_agent_task_scores(3, 12, random_state=2, as_frame=True)
        array = make_agent_task_scores(3, 12, random_state=2)
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.index) == ["agent_0", "agent_1", "agent_2"]
        assert frame.columns[0] == "task_00" and frame.columns[-1] == "task_11"
        np.testing.assert_array_equal(frame.to_numpy(), array)

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"n_agents": 0}, ValueError, "n_agents"),
            ({"n_tasks": -3}, ValueError, "n_tasks"),
            ({"noise": -0.1}, ValueError, "noise"),
            ({"as_frame": "yes"}, TypeError, "as_frame"),
        ],
    )
    def test_bad_parameters(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            make_agent_task_scores(**kwargs)
