"""NashAverager: estimator contract, reference values, real data, missing data.

Atari (rldb no-op matrix, MIT): the largest complete block found by
``complete_submatrix`` is 31 agents x 46 games; after per-game min-max
normalisation the exact maximum-entropy equilibrium has value 0.3550
(the paper's Figure 6 prints 0.354 for its own 20 x 54 matrix) and its
support is stored below as a snapshot.

Comparison with the paper's Figure 1 (core agents: distributional DQN,
Rainbow, human, prioritised DDQN, PopArt; core environments: centipede,
asterix, private eye, double dunk, Montezuma's revenge). Ours shares human
and distributional DQN among the agents and asterix and private eye among the
games. The exact numbers cannot match: the paper's S (20 agents from four
papers, 54 games, including human starts and DQN variants with and without
Monte Carlo returns) is not published; rldb's no-op table has newer agents
(Ape-X, Reactor, QR-DQN, IQN) that dominate the paper's, different games
after the completeness cut, and the paper solved an LP (a vertex, not
necessarily the maximum-entropy equilibrium). What carries over is the
qualitative finding: human is a core agent and ties with the strongest
agents under Nash averaging, and the hardest mixture concentrates on a few
games where agents and humans differ most.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_eval.datasets import make_cyclic_game
from sklearn_eval.game import (
    NashAverager,
    complete_submatrix,
    drop_incomplete,
    fill_win_rates,
    grad,
    hodge_decomposition,
    maxent_nash,
)
from sklearn_eval.utils.estimator_checks import check_estimator_contract

APPENDIX_A = np.array([[89, 93, 76], [85, 85, 85], [79, 74, 99]], dtype=float)

ATARI_CORE_AGENTS = {
    "ape_x_dqn@ape_x_dqn": 0.344865,
    "human@dudqn": 0.329582,
    "qr_dqn_1@qr_dqn": 0.159527,
    "reactor_nd@reactor": 0.097063,
    "noisynet_a3c@noisynet": 0.054942,
    "distributional_dqn@rainbow": 0.014021,
}
ATARI_CORE_GAMES = {
    "krull": 0.333636,
    "private-eye": 0.302399,
    "kangaroo": 0.171366,
    "chopper-command": 0.160846,
    "qbert": 0.017405,
    "asterix": 0.014349,
}


@parametrize_with_checks(
    [
        NashAverager(),
        NashAverager(normalize="minmax"),
        NashAverager(normalize="zscore"),
    ]
)
def test_sklearn_compatible_agent_vs_task(estimator, check):
    with warnings.catch_warnings():
        # scikit-learn's checks feed constant columns to the normalisers
        warnings.filterwarnings("ignore", message="Tasks .* are constant")
        check(estimator)


def _cyclic_logits(n=12, seed=0):
    return make_cyclic_game(n, cyclic_rank=2, cyclic_scale=1.5, random_state=seed)


def test_contract_agent_vs_agent_logit():
    A = _cyclic_logits()
    bad = [
        (np.zeros((0, 12)), None),
        (np.full((12, 12), np.nan), None),
        (np.zeros((12, 5)), None),
    ]
    check_estimator_contract(NashAverager(game="agent_vs_agent"), A, bad_inputs=bad)


def test_contract_agent_vs_agent_probability():
    P = expit(_cyclic_logits(seed=1))
    bad = [(P * 3.0, None), (np.zeros((12, 5)), None)]
    check_estimator_contract(
        NashAverager(game="agent_vs_agent", payoff="probability"), P, bad_inputs=bad
    )


# ------------------------------------------------------------- reference values
def test_appendix_a_through_the_estimator():
    nash = NashAverager().fit(APPENDIX_A)
    np.testing.assert_allclose(nash.agent_distribution_, [20 / 33, 0, 13 / 33])
    np.testing.assert_allclose(nash.task_distribution_, [23 / 33, 0, 10 / 33])
    assert nash.value_ == pytest.approx(2807 / 33)
    np.testing.assert_allclose(nash.agent_skill_, [85.0606, 85.0, 85.0606], atol=1e-4)
    # difficulty = -S^T p_a: the second task is the easiest (lowest)
    np.testing.assert_allclose(
        nash.difficulty_, [-85.0606, -85.5152, -85.0606], atol=1e-4
    )
    assert nash.exploitability_ <= 1e-12
    np.testing.assert_array_equal(nash.agent_support_, [True, False, True])
    np.testing.assert_array_equal(nash.task_support_, [True, False, True])
    np.testing.assert_allclose(nash.transform(APPENDIX_A)[:, 0], nash.agent_skill_)
    new_agent = [[90.0, 60.0, 95.0]]
    np.testing.assert_allclose(
        nash.transform(new_agent)[0, 0], 90 * 23 / 33 + 95 * 10 / 33
    )


def test_difficulty_orientation_matches_irt():
    # task 1 is solved by nobody (hardest), task 0 by everybody (easiest)
    S = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    nash = NashAverager().fit(S)
    assert nash.difficulty_[1] == max(nash.difficulty_)
    assert nash.difficulty_[0] == min(nash.difficulty_)
    assert np.all(nash.difficulty_ <= -nash.value_ + 1e-12)
    assert np.all(nash.agent_skill_ <= nash.value_ + 1e-12)


def test_example_1_with_probabilities_and_clip():
    P = np.array(
        [
            [0.5, 0.99, 0.01, 0.01],
            [0.01, 0.5, 0.99, 0.99],
            [0.99, 0.01, 0.5, 0.5],
            [0.99, 0.01, 0.5, 0.5],
        ]
    )
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    np.testing.assert_allclose(nash.agent_distribution_, [1 / 3, 1 / 3, 1 / 6, 1 / 6])
    np.testing.assert_allclose(nash.agent_skill_, 0.0, atol=1e-12)
    assert nash.payoff_[0, 1] == pytest.approx(np.log(99))
    # exact 0/1 probabilities are clipped before the logit
    hard = NashAverager(game="agent_vs_agent", payoff="probability", clip=0.01)
    hard.fit(np.where(P > 0.9, 1.0, np.where(P < 0.1, 0.0, P)))
    assert hard.payoff_[0, 1] == pytest.approx(np.log(99))
    np.testing.assert_allclose(hard.agent_distribution_, [1 / 3, 1 / 3, 1 / 6, 1 / 6])


def test_transitive_ava_and_transform():
    r = np.array([3.0, 1.0, 2.0, 3.0, 0.0])
    nash = NashAverager(game="agent_vs_agent").fit(grad(r))
    np.testing.assert_allclose(nash.agent_distribution_, [0.5, 0, 0, 0.5, 0])
    np.testing.assert_allclose(nash.agent_skill_, r - 3.0)
    np.testing.assert_allclose(nash.transform(grad(r))[:, 0], r - 3.0)
    # a new agent with rating 4 against the fitted five: 4 - 3 = +1
    np.testing.assert_allclose(nash.transform([4.0 - r])[0, 0], 1.0)
    assert nash.value_ == 0.0


def test_normalisation_and_shift_invariance():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(6, 8)) * rng.uniform(1, 100, size=8) + 50
    plain = NashAverager().fit(S)
    shifted = NashAverager().fit(S + 10.0)
    np.testing.assert_allclose(shifted.agent_distribution_, plain.agent_distribution_)
    np.testing.assert_allclose(shifted.agent_skill_, plain.agent_skill_ + 10.0)
    np.testing.assert_allclose(shifted.difficulty_, plain.difficulty_ - 10)
    mm = NashAverager(normalize="minmax").fit(S)
    assert mm.payoff_.min(axis=0) == pytest.approx(np.zeros(8))
    assert mm.payoff_.max(axis=0) == pytest.approx(np.ones(8))
    np.testing.assert_allclose(mm.transform(S)[:, 0], mm.agent_skill_)
    # min-max is invariant to per-task affine rescaling
    rescaled = NashAverager(normalize="minmax").fit(S * 3.0 + 7.0)
    np.testing.assert_allclose(rescaled.agent_distribution_, mm.agent_distribution_)


def test_constant_task_warns_and_maps_to_zero():
    S = np.array([[1.0, 2.0, 5.0], [3.0, 0.0, 5.0], [2.0, 1.0, 5.0]])
    with pytest.warns(UserWarning, match=r"Tasks \(columns\) \[2\] are constant"):
        nash = NashAverager(normalize="minmax").fit(S)
    np.testing.assert_allclose(nash.payoff_[:, 2], 0.0)


def test_dataframe_names_and_pandas_output():
    S = pd.DataFrame(APPENDIX_A, index=["A", "B", "C"], columns=["t1", "t2", "t3"])
    nash = NashAverager().set_output(transform="pandas").fit(S)
    np.testing.assert_array_equal(nash.feature_names_in_, ["t1", "t2", "t3"])
    out = nash.transform(S)
    assert list(out.columns) == ["nash_average"]
    assert list(out.index) == ["A", "B", "C"]


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "params, X, match",
    [
        ({"game": "agent_vs_agent"}, np.zeros((3, 4)), "square"),
        ({"game": "agent_vs_agent"}, [[0, 1.0], [1.0, 0]], r"A\[i, j\] = -A\[j, i\]"),
        (
            {"game": "agent_vs_agent", "payoff": "probability"},
            [[0.5, 1.2], [-0.2, 0.5]],
            r"in \[0, 1\]; got 1.2 at row 0, column 1",
        ),
        (
            {"game": "agent_vs_agent", "payoff": "probability"},
            [[0.5, 0.7], [0.7, 0.5]],
            r"P\[i, j\] \+ P\[j, i\] = 1",
        ),
        ({}, [[1.0, np.nan], [0.0, 1.0]], r"NaN\) at row 0, column 1.*complete_sub"),
        ({}, [[1.0, np.inf], [0.0, 1.0]], "infinite value at row 0, column 1"),
        ({}, [[1.0, 2.0, 3.0]], "minimum of 2 is required"),
        ({"game": "agent_vs_agent"}, [[0.0]], "minimum of 2 is required"),
        ({"game": "nonsense"}, APPENDIX_A, "game"),
        ({"clip": 0.7}, APPENDIX_A, "clip"),
    ],
)
def test_bad_input_errors(params, X, match):
    with pytest.raises(ValueError, match=match):
        NashAverager(**params).fit(X)


def test_antisymmetry_within_tolerance_is_symmetrised():
    A = _cyclic_logits(6)
    noisy = A.copy()
    noisy[0, 1] += 1e-12
    nash = NashAverager(game="agent_vs_agent").fit(noisy)
    np.testing.assert_allclose(nash.payoff_, -nash.payoff_.T)
    ref = NashAverager(game="agent_vs_agent").fit(A)
    np.testing.assert_allclose(
        nash.agent_distribution_, ref.agent_distribution_, atol=1e-9
    )
    loose = NashAverager(game="agent_vs_agent", antisymmetry_tol=1e-3)
    loose.fit(A + np.triu(np.full_like(A, 1e-4), 1))
    with pytest.raises(ValueError, match="antisymmetry_tol"):
        NashAverager(game="agent_vs_agent").fit(A + np.triu(np.full_like(A, 1e-4), 1))


def test_failed_fit_keeps_previous_state():
    nash = NashAverager(game="agent_vs_agent").fit(_cyclic_logits(5))
    before = nash.agent_distribution_.copy()
    with pytest.raises(ValueError):
        nash.fit(np.ones((7, 7)))
    assert nash.n_features_in_ == 5
    np.testing.assert_array_equal(nash.agent_distribution_, before)


# ------------------------------------------------------------------ real data
@pytest.fixture(scope="module")
def atari(shared_dir):
    path = shared_dir / "data" / "atari" / "rldb_atari_noop_matrix.csv"
    return pd.read_csv(path, index_col=0)


def test_atari_complete_block(atari):
    block, agents, games = complete_submatrix(atari, return_masks=True)
    assert block.shape == (31, 46)
    assert not block.isna().any().any()
    # greedy beats the naive alternatives (all agents or all games)
    assert block.size > drop_incomplete(atari).size
    assert block.size > atari.dropna(axis=0).size
    assert agents.sum() == 31 and games.sum() == 46


def test_atari_nash_averaging(atari):
    block = complete_submatrix(atari)
    nash = NashAverager(normalize="minmax").fit(block)
    p_a, p_e = nash.agent_distribution_, nash.task_distribution_
    assert p_a.sum() == pytest.approx(1.0) and p_e.sum() == pytest.approx(1.0)
    assert np.all(nash.agent_skill_ <= nash.value_ + 1e-12)
    assert np.all(nash.difficulty_ <= -nash.value_ + 1e-12)
    assert nash.exploitability_ <= 1e-8
    assert nash.value_ == pytest.approx(0.354972, abs=1e-6)
    core_agents = dict(
        zip(block.index[nash.agent_support_], p_a[nash.agent_support_], strict=True)
    )
    core_games = dict(
        zip(block.columns[nash.task_support_], p_e[nash.task_support_], strict=True)
    )
    assert core_agents.keys() == ATARI_CORE_AGENTS.keys()
    assert core_games.keys() == ATARI_CORE_GAMES.keys()
    for name, p in ATARI_CORE_AGENTS.items():
        assert core_agents[name] == pytest.approx(p, abs=1e-6)
    for name, p in ATARI_CORE_GAMES.items():
        assert core_games[name] == pytest.approx(p, abs=1e-6)
    # the support is robust to +-1e-9 noise on the normalised scores
    rng = np.random.default_rng(0)
    for _ in range(5):
        noisy = nash.payoff_ + rng.uniform(-1e-9, 1e-9, size=nash.payoff_.shape)
        ne = maxent_nash(noisy)
        np.testing.assert_array_equal(ne.row_support, nash.agent_support_)
        np.testing.assert_array_equal(ne.column_support, nash.task_support_)
        assert ne.exploitability <= 1e-8


def test_atari_nan_raises_with_help(atari):
    with pytest.raises(ValueError, match="complete_submatrix"):
        NashAverager().fit(atari)


# --------------------------------------------------------------- missing data
def test_complete_submatrix_and_drop_incomplete_small():
    X = np.array(
        [
            [1.0, 2.0, np.nan, 4.0],
            [1.0, np.nan, 3.0, 4.0],
            [1.0, 2.0, 3.0, 4.0],
            [1.0, 2.0, 3.0, 4.0],
        ]
    )
    block, rows, cols = complete_submatrix(X, return_masks=True)
    # 3 x 3 (e.g. rows 0, 2, 3 x columns 0, 1, 3) beats the 2 x 4 of full rows
    assert block.shape == (3, 3) and rows.sum() == 3 and cols.sum() == 3
    assert not np.isnan(block).any()
    kept = drop_incomplete(X, min_task_coverage=0.75, min_agent_coverage=1.0)
    assert kept.shape == (2, 4)
    with pytest.raises(ValueError, match="min_task_coverage"):
        drop_incomplete(X, min_task_coverage=1.5)
    with pytest.raises(ValueError, match="no observed"):
        complete_submatrix(np.full((2, 2), np.nan))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9), st.integers(1, 9))
def test_property_complete_submatrix_is_complete_and_maximal(seed, m, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    X[rng.random((m, n)) < rng.uniform(0, 0.6)] = np.nan
    if np.isnan(X).all():
        X[0, 0] = 1.0
    block, rows, cols = complete_submatrix(X, return_masks=True)
    assert not np.isnan(block).any() and block.size >= 1
    observed = ~np.isnan(X)
    assert not np.any(~rows & observed[:, cols].all(axis=1))
    assert not np.any(~cols & observed[rows].all(axis=0))


def _rps_matches(n_rounds=30, skip_pair=None):
    players = ["rock", "paper", "scissors", "lizard"]
    beats = {
        ("paper", "rock"),
        ("scissors", "paper"),
        ("rock", "scissors"),
        ("lizard", "paper"),
        ("scissors", "lizard"),
        ("rock", "lizard"),
    }
    rows, y = [], []
    for a in players:
        for b in players:
            if a >= b or {a, b} == skip_pair:
                continue
            rows += [[a, b]] * n_rounds
            y += [1.0 if (a, b) in beats else 0.0] * n_rounds
    return np.array(rows), np.array(y)


def test_fill_win_rates_with_multielo():
    X, y = _rps_matches(skip_pair={"paper", "scissors"})
    P, players, filled = fill_win_rates(X, y)
    assert players.tolist() == ["lizard", "paper", "rock", "scissors"]
    i, j = players.tolist().index("scissors"), players.tolist().index("paper")
    assert filled[i, j] and filled[j, i] and filled.sum() == 2
    np.testing.assert_allclose(P + P.T, 1.0)
    # MultiElo recovers the cycle: scissors beat paper
    assert P[i, j] > 0.5
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    assert nash.exploitability_ <= 1e-8
    assert np.count_nonzero(nash.agent_distribution_ > 1e-9) >= 3


def test_elo_fill_is_transitive_so_nash_picks_the_top_player():
    from sklearn_eval.pairwise import EloRanker

    X, y = _rps_matches(n_rounds=20)
    P, players, filled = fill_win_rates(
        X, y, estimator=EloRanker(method="batch", alpha=0.1), min_count=1e9
    )
    assert filled.sum() == 12
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    # the filled game is exactly transitive: no cyclic part left
    assert hodge_decomposition(nash.payoff_).cyclic_share < 1e-20
    # rock and scissors each beat two others and tie for the top Elo rating:
    # the Nash team is uniform over them, everybody else gets nothing
    np.testing.assert_allclose(nash.agent_distribution_, [0, 0, 0.5, 0.5], atol=1e-9)
    assert players.tolist() == ["lizard", "paper", "rock", "scissors"]


# ------------------------------------------------ real agent-vs-agent data
RRPS_CORE = {
    "randbot": 0.891733,
    "markovbails": 0.045912,
    "shofar": 0.037681,
    "iocainebot": 0.019711,
    "greenberg": 0.004963,
}


@pytest.fixture(scope="module")
def rrps(shared_dir):
    """43 repeated rock-paper-scissors bots, mean score over 1000 throws."""
    import ast

    path = shared_dir / "data" / "pairwise" / "openspiel_pbe_rrps_bot_table_file.txt"
    rows = [ast.literal_eval(line) for line in path.read_text().splitlines()]
    bots = sorted({r[0] for r in rows} | {r[1] for r in rows})
    index = {b: i for i, b in enumerate(bots)}
    table = np.zeros((len(bots), len(bots)))
    for a, b, value in rows:
        table[index[a], index[b]] = value / 1000.0
    return np.array(bots), table


def test_rrps_bots_nash(rrps):
    bots, table = rrps
    # each ordered pair was measured separately: not antisymmetric as given
    with pytest.raises(ValueError, match="antisymmetry_tol"):
        NashAverager(game="agent_vs_agent").fit(table)
    A = 0.5 * (table - table.T)
    nash = NashAverager(game="agent_vs_agent").fit(A)
    assert nash.exploitability_ <= 1e-9
    assert np.all(nash.agent_skill_ <= 1e-12)
    core = dict(
        zip(
            bots[nash.agent_support_],
            nash.agent_distribution_[nash.agent_support_],
            strict=True,
        )
    )
    assert core.keys() == RRPS_CORE.keys()
    for bot, p in RRPS_CORE.items():
        assert core[bot] == pytest.approx(p, abs=1e-6)
    # the random bot cannot be exploited: it carries most of the Nash mass
    assert bots[np.argmax(nash.agent_distribution_)] == "randbot"
    # a clone of a core bot splits its mass and changes no Nash average
    k = int(np.flatnonzero(bots == "greenberg")[0])
    A2 = np.vstack([np.column_stack([A, A[:, k]]), np.append(A[k], 0.0)])
    dup = NashAverager(game="agent_vs_agent").fit(A2)
    np.testing.assert_allclose(
        dup.agent_distribution_[[k, -1]], RRPS_CORE["greenberg"] / 2, atol=1e-6
    )
    np.testing.assert_allclose(dup.agent_skill_[:-1], nash.agent_skill_, atol=1e-9)


def test_vicuna80_human_judgements_filled_by_multielo(shared_dir):
    """Sparse real matches (PRD vicuna80, MIT): Claude never met a Guanaco."""
    path = shared_dir / "data" / "pairwise" / "prd_vicuna80_human_pairwise.csv"
    data = pd.read_csv(path)
    X = data[["model_a", "model_b"]].to_numpy()
    y = data["score"].map({1: 1.0, 2: 0.0, 3: 0.5}).to_numpy()
    P, players, filled = fill_win_rates(X, y)
    names = players.tolist()
    missing = {frozenset((names[i], names[j])) for i, j in np.argwhere(filled) if i < j}
    assert missing == {
        frozenset(("claude", g))
        for g in ("guanaco-7b", "guanaco-13b", "guanaco-33b", "guanaco-65b")
    }
    nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    assert nash.exploitability_ <= 1e-9
    # GPT-4 beats every other model on average: it is the whole Nash team
    np.testing.assert_allclose(nash.agent_distribution_, np.array(names) == "gpt4")
    others = np.array(names) != "gpt4"
    assert np.all(nash.agent_skill_[others] < -0.5)
