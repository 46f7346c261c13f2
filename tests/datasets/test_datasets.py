"""Tests of sklearn_eval.datasets: generators (make_*) and loaders (load_*)."""

import numpy as np
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
        pd = pytest.importorskip("pandas")
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


# ===========================================================================
# Loaders
# ===========================================================================
from importlib import resources  # noqa: E402

from sklearn_eval.datasets import (  # noqa: E402
    describe_datasets,
    load_atari,
    load_atari_reference_scores,
    load_automl_benchmark,
    load_chembench,
    load_international_football,
    load_rrps,
    load_soccer,
    load_vicuna80,
)

# Shipped file -> folder of its byte-identical source under shared/data (the
# source has the same name without ".gz").
_SHIPPED_FOLDERS = {
    "rldb_atari_noop_matrix.csv": "atari",
    "rldb_atari_scores_long.csv.gz": "atari",
    "openspiel_atari_agent57_table.txt": "atari",
    "openspiel_atari_rainbow_table6.txt": "atari",
    "openspiel_atari_muesli_table11.txt": "atari",
    "dqnzoo_atari57_random_human.csv": "atari",
    "irt_on_bench_chembench_binary_matrix.csv.gz": "irt",
    "irt_on_bench_chembench_model_scores.csv": "irt",
    "prd_vicuna80_human_pairwise.csv.gz": "pairwise",
    "openspiel_pbe_rrps_bot_table_file.txt.gz": "pairwise",
    "openspiel_response_graph_ucb_soccer.txt": "pairwise",
    "amlb2019_1h_result_summary.csv": "ml_matrix",
    "amlb2019_4h_result_summary.csv": "ml_matrix",
    "amlb2019_1h_all_results.csv.gz": "ml_matrix",
    "amlb2019_4h_all_results.csv.gz": "ml_matrix",
    "martj42_international_results_full.csv.gz": "pairwise",
    "leaderbot_chatbotarena_20240814.json.gz": "pairwise",
}
_SHIPPED_SOURCES = {
    name: f"{folder}/{name.removesuffix('.gz')}"
    for name, folder in _SHIPPED_FOLDERS.items()
}
_PERMISSIVE = {"MIT", "Apache-2.0", "CC0-1.0", "BSD-3-Clause"}


def _data_dir():
    return resources.files("sklearn_eval.datasets").joinpath("data")


class TestShippedFiles:
    def test_exactly_the_listed_files_are_shipped(self):
        shipped = {p.name for p in _data_dir().iterdir() if p.is_file()}
        assert shipped == set(_SHIPPED_SOURCES)

    def test_total_size_is_small(self):
        total = sum(p.stat().st_size for p in _data_dir().iterdir())
        assert total < 5 * 1024 * 1024

    def test_files_are_verbatim_copies(self, shared_dir):
        import gzip

        for name, source in _SHIPPED_SOURCES.items():
            raw = _data_dir().joinpath(name).read_bytes()
            if name.endswith(".gz"):
                raw = gzip.decompress(raw)
            assert raw == (shared_dir / "data" / source).read_bytes(), name

    def test_only_permissive_sources_per_sources_md(self, shared_dir):
        table = (shared_dir / "data" / "SOURCES.md").read_text()
        licences = {}
        for line in table.splitlines():
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            if len(cells) >= 6 and "/" in cells[0]:
                licences[cells[0]] = cells[4]
        for source in _SHIPPED_SOURCES.values():
            # the cell may add a note, e.g. "BSD-3-Clause (wheel's LICENSE.txt)"
            assert licences[source].split()[0] in _PERMISSIVE, source

    def test_licence_texts_are_shipped(self):
        folder = resources.files("sklearn_eval.datasets").joinpath("licenses")
        texts = {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()}
        assert set(texts) == {
            "MIT.txt", "Apache-2.0.txt", "CC0-1.0.txt", "BSD-3-Clause.txt"
        }
        assert "Apache License" in texts["Apache-2.0.txt"]
        assert "CC0 1.0 Universal" in texts["CC0-1.0.txt"]
        for holder in (
            "Seungjae Ryan Lee",
            "irt-on-bench maintainers",
            "bcdnlp",
            "OpenML",
        ):
            assert holder in texts["MIT.txt"]

    def test_notice_lists_every_shipped_file(self):
        from pathlib import Path

        notice = Path(__file__).resolve().parents[2] / "NOTICE"
        if not notice.is_file():
            pytest.skip("NOTICE not found beside the tests (installed package)")
        text = notice.read_text()
        for name in _SHIPPED_SOURCES:
            assert name in text, name


# ---------------------------------------------------------------------------
# Atari
# ---------------------------------------------------------------------------
class TestLoadAtari:
    def test_noop_matrix(self):
        atari = load_atari()
        assert atari.data.shape == (32, 57) and atari.data.dtype == np.float64
        assert atari.agent_names.shape == (32,)
        assert atari.feature_names.shape == (57,)
        assert np.isnan(atari.data).sum() == 75
        names = list(atari.agent_names)
        games = list(atari.feature_names)
        assert "bank_heist" in games and "bank-heist" not in games
        # Values from the source file (first row a3c@noisynet).
        assert atari.data[names.index("a3c@noisynet"), games.index("alien")] == 2027.0
        assert (
            atari.data[names.index("acktr@acktr"), games.index("atlantis")] == 3433182.0
        )
        assert np.isnan(
            atari.data[names.index("acktr@acktr"), games.index("chopper_command")]
        )
        assert atari.frame is None and "MIT" in atari.DESCR

    def test_noop_matrix_matches_source(self, shared_dir):
        pd = pytest.importorskip("pandas")
        source = pd.read_csv(
            shared_dir / "data/atari/rldb_atari_noop_matrix.csv", index_col=0
        )
        atari = load_atari()
        np.testing.assert_array_equal(atari.data, source.to_numpy())
        assert list(atari.agent_names) == list(source.index)
        assert list(atari.feature_names) == [
            c.replace("-", "_") for c in source.columns
        ]

    def test_long(self):
        long = load_atari("long")
        assert long.data.shape == (2740, 8) and long.data.dtype == object
        assert list(long.feature_names) == [
            "source",
            "arxiv",
            "algo",
            "algo_title",
            "frames",
            "variant",
            "game",
            "score",
        ]
        first = long.data[0].tolist()
        assert first == [
            "a3c",
            "1602.01783",
            "a3c_ff",
            "Asynchronous Advantage Actor Critic Feed Forward",
            "200 * 1000 * 1000",
            "Human start",
            "alien",
            518.4,
        ]
        variants = long.data[:, 5]
        assert np.sum(variants == "No-op start") == 1777
        assert np.sum(variants == "Human start") == 963
        assert sum(value is None for value in long.data[:, 1]) == 245

    def test_long_frame_matches_source(self, shared_dir):
        pd = pytest.importorskip("pandas")
        source = pd.read_csv(
            shared_dir / "data/atari/rldb_atari_scores_long.csv", dtype={"arxiv": str}
        )
        frame = load_atari("long", as_frame=True).frame
        np.testing.assert_array_equal(frame["score"], source["score"])
        assert list(frame["game"]) == [g.replace("-", "_") for g in source["game"]]
        assert frame["arxiv"].isna().sum() == source["arxiv"].isna().sum()
        kept = source["arxiv"].notna()
        assert list(frame["arxiv"][kept]) == list(source["arxiv"][kept])

    def test_agent57_table(self):
        a57 = load_atari("agent57")
        assert a57.data.shape == (6, 57) and a57.spread.shape == (6, 57)
        assert list(a57.agent_names) == [
            "agent57",
            "r2d2(bandit)",
            "muzero",
            "ngu",
            "r2d2(retrace)",
            "r2d2",
        ]
        games = list(a57.feature_names)
        alien, pong = games.index("alien"), games.index("pong")
        assert a57.data[0, alien] == 297638.17 and a57.spread[0, alien] == 37054.55
        assert a57.data[0, pong] == 20.67 and a57.spread[0, pong] == 0.47
        assert a57.data[2, alien] == 741812.63 and np.isnan(a57.spread[2]).all()
        assert a57.human_scores[alien] == 7127.70
        assert a57.random_scores[pong] == -20.70
        assert "2003.13350" in a57.source

    def test_rainbow_table_thousands_separators(self):
        rainbow = load_atari("rainbow")
        assert rainbow.data.shape == (8, 54)
        assert rainbow.random_scores is None and rainbow.human_scores is None
        assert np.isnan(rainbow.spread).all()
        names, games = list(rainbow.agent_names), list(rainbow.feature_names)
        alien = games.index("alien")
        assert rainbow.data[names.index("dueling-ddqn"), alien] == 1486.5
        assert rainbow.data[names.index("rainbow"), alien] == 6022.9
        assert rainbow.data[names.index("a3c"), games.index("atlantis")] == 911091.0
        assert {"jamesbond", "riverraid", "up_n_down"}.isdisjoint(games)
        assert "HUMAN-START" in rainbow.DESCR

    def test_muesli_table(self):
        muesli = load_atari("muesli")
        assert muesli.data.shape == (2, 57)
        assert list(muesli.agent_names) == ["muzero", "muesli"]
        games = list(muesli.feature_names)
        heist = games.index("bank_heist")
        assert muesli.data[1, heist] == 1213 and muesli.spread[1, heist] == 0
        assert muesli.data[0, heist] == 14176 and muesli.spread[0, heist] == 13044
        assert muesli.random_scores[games.index("pong")] == -21

    def test_all_views_share_game_spelling(self):
        reference = set(load_atari_reference_scores().games)
        for kind in ("noop_matrix", "agent57", "rainbow", "muesli"):
            assert set(load_atari(kind).feature_names) <= reference, kind
        assert set(load_atari("long").data[:, 6]) == reference

    @pytest.mark.parametrize("kind", ["noop_matrix", "agent57", "rainbow", "muesli"])
    def test_as_frame(self, kind):
        pytest.importorskip("pandas")
        array = load_atari(kind)
        framed = load_atari(kind, as_frame=True)
        assert framed.frame is framed.data
        np.testing.assert_array_equal(framed.data.to_numpy(), array.data)
        assert list(framed.data.index) == list(array.agent_names)
        assert list(framed.data.columns) == list(array.feature_names)

    def test_reference_scores(self):
        ref = load_atari_reference_scores()
        assert ref.data.shape == (57, 2) and ref.data.dtype == np.float64
        games = list(ref.games)
        assert ref.human[games.index("pong")] == 14.6
        assert ref.random[games.index("pong")] == -20.7
        np.testing.assert_array_equal(ref.data[:, 0], ref.random)
        frame = load_atari_reference_scores(as_frame=True).data
        assert frame.loc["alien", "human"] == 7127.7

    def test_reference_scores_agree_with_agent57_table(self):
        ref = load_atari_reference_scores()
        a57 = load_atari("agent57")
        order = [list(ref.games).index(g) for g in a57.feature_names]
        np.testing.assert_allclose(a57.human_scores, ref.human[order], atol=0.051)
        # One known disagreement: dqn_zoo's random video_pinball score is
        # 16256.9 (as in the DQN Nature paper); Agent57's and Muesli's tables use 0.
        differs = np.abs(a57.random_scores - ref.random[order]) > 0.051
        assert list(a57.feature_names[differs]) == ["video_pinball"]
        assert ref.random[list(ref.games).index("video_pinball")] == 16256.9
        assert a57.random_scores[differs][0] == 0.0
        muesli = load_atari("muesli")
        assert (
            muesli.random_scores[list(muesli.feature_names).index("video_pinball")]
            == 0.0
        )

    @pytest.mark.parametrize(
        "kwargs, error, match",
        [
            ({"kind": "noop"}, ValueError, "kind"),
            ({"kind": None}, ValueError, "kind"),
            ({"as_frame": "yes"}, TypeError, "as_frame"),
        ],
    )
    def test_bad_parameters(self, kwargs, error, match):
        with pytest.raises(error, match=match):
            load_atari(**kwargs)


# ---------------------------------------------------------------------------
# ChemBench
# ---------------------------------------------------------------------------
class TestLoadChembench:
    def test_shape_values_and_scores(self):
        chem = load_chembench()
        assert chem.data.shape == (22, 2854) and chem.data.dtype == np.float64
        assert set(np.unique(chem.data)) == {0.0, 1.0}
        assert chem.agent_names[0] == "Mistral-Large-2"
        assert chem.feature_names[0] == "item_0000"
        assert chem.feature_names[-1] == "item_2853"
        np.testing.assert_allclose(chem.data.mean(axis=1), chem.target, atol=1e-12)
        models = list(chem.agent_names)
        assert chem.target[models.index("Llama-3.1-70B-Instruct")] == 0.5
        # Row 1 of the source file (item 1), read across the models.
        assert chem.data[:3, 1].tolist() == [1.0, 0.0, 1.0]

    def test_is_transpose_of_source(self, shared_dir):
        pd = pytest.importorskip("pandas")
        source = pd.read_csv(
            shared_dir / "data/irt/irt_on_bench_chembench_binary_matrix.csv",
            index_col=0,
        )
        chem = load_chembench()
        np.testing.assert_array_equal(chem.data, source.to_numpy().T)
        assert list(chem.agent_names) == list(source.columns)

    def test_as_frame(self):
        pytest.importorskip("pandas")
        chem = load_chembench(as_frame=True)
        assert chem.data.shape == (22, 2854)
        assert chem.target.index.equals(chem.data.index)
        assert chem.target.loc["Llama-3.1-70B-Instruct"] == 0.5


# ---------------------------------------------------------------------------
# Match tables
# ---------------------------------------------------------------------------
class TestLoadVicuna80:
    def test_matches(self):
        vicuna = load_vicuna80()
        assert vicuna.data.shape == (7040, 2) and vicuna.target.dtype == np.float64
        assert vicuna.data[0].tolist() == ["bard", "gpt35"]
        assert vicuna.target[:3].tolist() == [1.0, 1.0, 0.5]
        assert vicuna.score[:3].tolist() == [1, 1, 3]
        assert vicuna.question_id.min() == 1 and vicuna.question_id.max() == 80
        assert len(vicuna.players) == 9 and "gpt4" in vicuna.players
        counts = {v: int(np.sum(vicuna.target == v)) for v in (1.0, 0.0, 0.5)}
        assert counts == {1.0: 3211, 0.0: 3025, 0.5: 804}
        np.testing.assert_array_equal(
            vicuna.target,
            np.select([vicuna.score == 1, vicuna.score == 2], [1.0, 0.0], 0.5),
        )
        assert np.all(vicuna.data[:, 0] != vicuna.data[:, 1])

    def test_valid_for_match_validator(self):
        from sklearn_eval.utils import check_matches

        vicuna = load_vicuna80()
        checked = check_matches(vicuna.data, vicuna.target)
        np.testing.assert_array_equal(checked.y, vicuna.target)

    def test_as_frame(self):
        pytest.importorskip("pandas")
        vicuna = load_vicuna80(as_frame=True)
        assert list(vicuna.data.columns) == ["model_a", "model_b"]
        assert list(vicuna.frame.columns) == [
            "model_a",
            "model_b",
            "question_id",
            "score",
            "y",
        ]
        assert vicuna.target.name == "y"


class TestLoadInternationalFootball:
    def test_full_table(self):
        football = load_international_football()
        assert football.data.shape == (49520, 2)
        assert football.data[0].tolist() == ["Scotland", "England"]
        assert football.target[:3].tolist() == [0.5, 1.0, 1.0]
        assert football.date[0] == np.datetime64("1872-11-30")
        assert np.all(np.diff(football.date.astype(np.int64)) >= 0)
        assert football.home_score[1] == 4 and football.away_score[1] == 2
        assert football.neutral.dtype == bool and not football.neutral[0]
        np.testing.assert_array_equal(
            football.target,
            np.where(
                football.home_score > football.away_score,
                1.0,
                np.where(football.home_score < football.away_score, 0.0, 0.5),
            ),
        )
        assert football.subset == "all" and "CC0" in football.DESCR

    def test_matches_source(self, shared_dir):
        pd = pytest.importorskip("pandas")
        source = pd.read_csv(
            shared_dir / "data/pairwise/martj42_international_results_full.csv"
        )
        frame = load_international_football(as_frame=True).frame
        for column in ("home_team", "away_team", "tournament", "city", "country"):
            assert list(frame[column]) == list(source[column]), column
        np.testing.assert_array_equal(frame["home_score"], source["home_score"])
        np.testing.assert_array_equal(frame["neutral"], source["neutral"])
        assert (frame["date"] == pd.to_datetime(source["date"])).all()

    def test_world_cup_subset(self, shared_dir):
        pd = pytest.importorskip("pandas")
        wc = load_international_football("world_cup")
        assert wc.data.shape == (1068, 2)
        assert set(wc.tournament) == {"FIFA World Cup"}
        assert wc.data[0].tolist() == ["Belgium", "United States"]
        assert wc.target[0] == 0.0 and wc.neutral[0]
        source = pd.read_csv(
            shared_dir / "data/pairwise/martj42_fifa_world_cup_matches.csv"
        )
        assert list(wc.data[:, 0]) == list(source["home_team"])
        np.testing.assert_array_equal(wc.away_score, source["away_score"])

    def test_valid_for_match_validator(self):
        from sklearn_eval.utils import check_matches

        wc = load_international_football("world_cup", as_frame=True)
        checked = check_matches(wc.data, wc.target)
        assert checked.y.shape == (1068,)

    def test_bad_subset(self):
        with pytest.raises(ValueError, match="subset"):
            load_international_football("euro")


# ---------------------------------------------------------------------------
# Payoff matrices
# ---------------------------------------------------------------------------
class TestLoadRRPS:
    def test_matrix(self):
        rrps = load_rrps()
        assert rrps.data.shape == (43, 43) and rrps.data.dtype == np.float64
        names = list(rrps.agent_names)
        assert names == sorted(names) and len(set(names)) == 43
        assert list(rrps.feature_names) == names
        assert np.all(np.abs(rrps.data) <= 1000)
        # Known cells of the source file.
        assert (
            rrps.data[names.index("inocencio"), names.index("addshiftbot3")] == 74.986
        )
        assert (
            rrps.data[names.index("rotatebot"), names.index("mixed_strategy")]
            == -957.369
        )
        assert rrps.data[names.index("boom"), names.index("boom")] == 0.0
        # Separate estimates per ordered pair: nearly, not exactly, antisymmetric.
        asym = rrps.data + rrps.data.T
        assert 0 < np.abs(asym).max() < 100
        assert np.abs(asym).mean() < 10

    def test_matches_source(self, shared_dir):
        import ast

        rrps = load_rrps()
        position = {name: i for i, name in enumerate(rrps.agent_names)}
        path = shared_dir / "data/pairwise/openspiel_pbe_rrps_bot_table_file.txt"
        n_lines = 0
        for line in path.read_text().splitlines():
            if line.strip():
                first, second, value = ast.literal_eval(line)
                assert rrps.data[position[first], position[second]] == value
                n_lines += 1
        assert n_lines == 43 * 43

    def test_as_frame(self):
        pytest.importorskip("pandas")
        frame = load_rrps(as_frame=True).data
        assert frame.loc["granite", "copybot"] == 992.803


class TestLoadSoccer:
    def test_matrix(self):
        soccer = load_soccer()
        assert soccer.data.shape == (10, 10) and soccer.data.dtype == np.float64
        np.testing.assert_allclose(soccer.data + soccer.data.T, 1.0, atol=1e-12)
        np.testing.assert_array_equal(np.diag(soccer.data), 0.5)
        assert soccer.data[0, 1] == 0.43674757
        assert soccer.data[9, 8] == 0.29254439
        assert list(soccer.agent_names) == [f"agent_{i}" for i in range(10)]

    def test_matches_source(self, shared_dir):
        source = np.loadtxt(
            shared_dir / "data/pairwise/openspiel_response_graph_ucb_soccer.txt"
        )
        np.testing.assert_array_equal(load_soccer().data, source)


# ---------------------------------------------------------------------------
# AutoML benchmark
# ---------------------------------------------------------------------------
class TestLoadAutomlBenchmark:
    @pytest.mark.parametrize("budget, n_tasks", [("1h", 35), ("4h", 39)])
    def test_summary(self, budget, n_tasks):
        amlb = load_automl_benchmark(budget)
        assert amlb.data.shape == (7, n_tasks) and amlb.data.dtype == np.float64
        assert list(amlb.agent_names) == [
            "autosklearn",
            "autoweka",
            "constantpredictor",
            "h2oautoml",
            "randomforest",
            "tpot",
            "tunedrandomforest",
        ]
        assert amlb.n_failed_folds.shape == (7, n_tasks)
        binary = amlb.task_types == "binary"
        assert set(amlb.metrics[binary]) == {"auc"}
        assert set(amlb.metrics[~binary]) == {"logloss"}
        constant = list(amlb.agent_names).index("constantpredictor")
        np.testing.assert_array_equal(amlb.data[constant, binary], 0.5)

    def test_summary_known_cells_and_footnotes(self):
        amlb = load_automl_benchmark("1h")
        names, tasks = list(amlb.agent_names), list(amlb.feature_names)
        sk, weka = names.index("autosklearn"), names.index("autoweka")
        assert amlb.data[sk, tasks.index("adult")] == 0.929528
        assert amlb.data[sk, tasks.index("kc1")] == 0.84251
        assert amlb.n_failed_folds[sk, tasks.index("kc1")] == 1
        assert amlb.data[weka, tasks.index("kddcup09_appetency")] == 0.790757
        assert amlb.n_failed_folds[weka, tasks.index("kddcup09_appetency")] == 6
        assert np.isnan(amlb.data[weka, tasks.index("riccardo")])
        assert amlb.n_failed_folds.sum() == 1 + 6 + 1 + 1 + 5
        assert np.isnan(amlb.data).sum() == 2

    @pytest.mark.parametrize("budget", ["1h", "4h"])
    def test_summary_is_fold_mean_of_imputed_results(self, budget):
        # The published summary is the mean over the 10 folds of 'imp_result'
        # (failed folds imputed); NaN where no fold has a result at all.
        amlb = load_automl_benchmark(budget)
        runs = load_automl_benchmark(budget, "all")
        columns = list(runs.feature_names)
        framework = runs.data[:, columns.index("framework")]
        task = runs.data[:, columns.index("task")]
        imputed = runs.data[:, columns.index("imp_result")].astype(float)
        for i, name in enumerate(amlb.agent_names):
            for j, task_name in enumerate(amlb.feature_names):
                values = imputed[(framework == name) & (task == task_name)]
                assert values.size == 10
                values = values[~np.isnan(values)]
                if values.size == 0:
                    assert np.isnan(amlb.data[i, j])
                else:
                    assert abs(values.mean() - amlb.data[i, j]) < 1e-5 * max(
                        1.0, abs(amlb.data[i, j])
                    )

    def test_all_runs(self):
        runs = load_automl_benchmark("1h", "all")
        assert runs.data.shape == (2450, 22)
        assert runs.feature_names[0] == "acc" and runs.feature_names[-1] == "norm_score"
        first = dict(zip(runs.feature_names, runs.data[0], strict=True))
        assert first["framework"] == "constantpredictor"
        assert first["task"] == "australian" and first["fold"] == 0
        assert first["acc"] == 0.550725 and first["params"] == "{'encode': True}"

    def test_all_runs_frame_matches_source(self, shared_dir):
        pd = pytest.importorskip("pandas")
        source = pd.read_csv(shared_dir / "data/ml_matrix/amlb2019_1h_all_results.csv")
        frame = load_automl_benchmark("1h", "all", as_frame=True).frame
        assert list(frame.columns) == list(source.columns)
        for column in source.columns:
            if source[column].dtype.kind in "fi":
                np.testing.assert_array_equal(frame[column], source[column])
            else:
                left = frame[column].fillna("<NA>").astype(str).tolist()
                right = source[column].fillna("<NA>").astype(str).tolist()
                assert left == right, column

    @pytest.mark.parametrize(
        "kwargs, match",
        [({"budget": "2h"}, "budget"), ({"kind": "runs"}, "kind")],
    )
    def test_bad_parameters(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            load_automl_benchmark(**kwargs)


# ---------------------------------------------------------------------------
# Cross-cutting: DESCR, pandas-free path, summary
# ---------------------------------------------------------------------------
_ALL_LOADERS = [
    (load_atari, {"kind": "noop_matrix"}),
    (load_atari, {"kind": "long"}),
    (load_atari, {"kind": "agent57"}),
    (load_atari, {"kind": "rainbow"}),
    (load_atari, {"kind": "muesli"}),
    (load_atari_reference_scores, {}),
    (load_chembench, {}),
    (load_vicuna80, {}),
    (load_rrps, {}),
    (load_soccer, {}),
    (load_automl_benchmark, {"budget": "4h"}),
    (load_automl_benchmark, {"kind": "all"}),
    (load_international_football, {"subset": "world_cup"}),
]


@pytest.mark.parametrize("loader, kwargs", _ALL_LOADERS)
def test_descr_names_source_licence_and_citation(loader, kwargs):
    descr = loader(**kwargs).DESCR
    for field in (":Source:", ":Licence:", ":Citation:"):
        assert field in descr


@pytest.mark.parametrize("loader, kwargs", _ALL_LOADERS)
def test_loaders_return_fresh_arrays(loader, kwargs):
    first = loader(**kwargs)
    second = loader(**kwargs)
    if isinstance(first.data, np.ndarray) and first.data.dtype == np.float64:
        first.data[...] = -1.0
        assert not np.array_equal(first.data, second.data)
        assert not np.array_equal(loader(**kwargs).data, first.data)


@pytest.mark.parametrize("loader, kwargs", _ALL_LOADERS)
def test_as_frame_without_pandas_raises_clear_error(loader, kwargs, monkeypatch):
    import sys

    without_frame = loader(**kwargs)  # the ndarray path needs no pandas
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert without_frame.frame is None
    with pytest.raises(ImportError, match="pandas"):
        loader(**kwargs, as_frame=True)


def test_describe_datasets():
    summary = describe_datasets()
    names = [entry["name"] for entry in summary]
    assert len(names) == len(set(names)) == 16
    for entry in summary:
        assert set(entry) == {"name", "loader", "shape", "kind", "licence"}
        assert entry["licence"] in _PERMISSIVE
        assert all(isinstance(n, int) and n > 0 for n in entry["shape"])
    by_name = {entry["name"]: entry for entry in summary}
    assert by_name["chembench"]["shape"] == (22, 2854)
    assert by_name["rrps"]["shape"] == (43, 43)
    assert by_name["international_football"]["shape"] == (49520, 2)
    assert by_name["vicuna80"]["kind"] == "matches"
    import sklearn_eval.datasets as datasets

    for entry in summary:  # the loader strings are real calls
        call = entry["loader"]
        data = eval(call, {}, vars(datasets)).data  # noqa: S307 - test only
        assert np.shape(data) == entry["shape"]
