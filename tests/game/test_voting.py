"""VotingRanker: OpenSpiel agreement on Atari, exact Kemeny-Young, API."""

import itertools
import json
import os

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_eval.datasets import load_atari
from sklearn_eval.game import VotingRanker
from sklearn_eval.game._kemeny import agreement
from sklearn_eval.game._voting import METHODS
from sklearn_eval.game._voting_methods import pairwise_counts
from sklearn_eval.utils.estimator_checks import check_estimator_contract

# Reference values produced by benchmarks/make_openspiel_fixtures.py with
# open_spiel 2.0.2 (PyPI) in its own venv; see that script's docstring.
with open(os.path.join(os.path.dirname(__file__), "openspiel_reference.json")) as fh:
    REFERENCE = json.load(fh)["voting_agent57"]


def agent57_profile():
    """OpenSpiel's atari.py profile: human, random and the six agents."""
    atari = load_atari("agent57", as_frame=True)
    X = np.vstack([atari.human_scores, atari.random_scores, atari.data.to_numpy()])
    names = ["human", "random", *atari.agent_names]
    return pd.DataFrame(X, index=names, columns=atari.data.columns)


def random_profile(rng, n_agents, n_tasks, missing=0.0, levels=None):
    if levels is None:
        X = rng.normal(size=(n_agents, 1)) * 0.5 + rng.normal(size=(n_agents, n_tasks))
    else:
        X = rng.integers(0, levels, size=(n_agents, n_tasks)).astype(float)
    X[rng.uniform(size=X.shape) < missing] = np.nan
    X[:, 0] = np.arange(n_agents, dtype=float)  # every agent scored somewhere
    return X


def brute_force_best_agreement(N):
    n = N.shape[0]
    perms = np.array(list(itertools.permutations(range(n))))
    total = np.zeros(len(perms))
    for i, j in itertools.combinations(range(n), 2):
        total += N[perms[:, i], perms[:, j]]
    return total.max()


# ------------------------------------------------------------- OpenSpiel
def test_profile_matches_openspiel_margins():
    vr = VotingRanker(method="borda").fit(agent57_profile())
    assert list(vr.agents_) == REFERENCE["alternatives"]
    # the fixture expands every tie group into all its orders, each game with
    # total weight `weight_per_game`: margins are ours times that weight
    np.testing.assert_array_equal(
        vr.margin_matrix_ * REFERENCE["weight_per_game"],
        np.asarray(REFERENCE["margin_matrix"]),
    )
    assert [vr.condorcet_winner_] == REFERENCE["condorcet_winner"]


@pytest.mark.parametrize("method", METHODS)
def test_every_method_gives_openspiel_ranking_on_agent57(method):
    expected = REFERENCE["methods"][method]["ranking"]
    vr = VotingRanker(method=method).fit(agent57_profile())
    assert vr.ranking_.tolist() == expected


@pytest.mark.parametrize("method", ["borda", "copeland", "plurality"])
def test_scores_match_openspiel(method):
    vr = VotingRanker(method=method).fit(agent57_profile())
    ref = REFERENCE["methods"][method]
    expected = dict(zip(ref["ranking"], ref["scores"], strict=True))
    weight = REFERENCE["weight_per_game"]
    scale = 1.0 if method == "copeland" else weight
    ours = dict(zip(vr.agents_.tolist(), vr.agent_scores_ * scale, strict=True))
    for name, value in expected.items():
        assert ours[name] == pytest.approx(value)


def test_kemeny_agreement_matches_openspiel_optimum():
    X = agent57_profile()
    vr = VotingRanker().fit(X)
    _, E = pairwise_counts(X.to_numpy())
    # OpenSpiel's score also counts the expanded ties: half a preference each
    tied_pairs = np.triu(E, 1).sum()
    weight = REFERENCE["weight_per_game"]
    assert (vr.agreement_ + 0.5 * tied_pairs) * weight == REFERENCE[
        "kemeny_best_score"
    ]
    assert REFERENCE["kemeny_n_optima"] == 1  # so the ranking is determined


# -------------------------------------------------------- exact Kemeny-Young
@pytest.mark.parametrize("seed", range(12))
def test_kemeny_young_maximises_agreement_over_all_permutations(seed):
    rng = np.random.default_rng(seed)
    n_agents = 5 + seed % 4  # 5 .. 8
    n_tasks = int(rng.integers(3, 30))
    kind = seed % 3
    X = random_profile(
        rng, n_agents, n_tasks,
        missing=0.3 if kind == 1 else 0.0,
        levels=3 if kind == 2 else None,  # many ties
    )
    vr = VotingRanker().fit(X)
    N, _ = pairwise_counts(X)
    assert vr.agreement_ == agreement(N, np.argsort(-vr.agent_scores_))
    assert vr.agreement_ == brute_force_best_agreement(N)


def test_kemeny_young_is_exact_at_twenty_agents():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(20, 57))  # no signal: one big cyclic component
    vr = VotingRanker().fit(X)
    N, _ = pairwise_counts(X)
    # no adjacent swap improves (local optimality) and no better order among
    # the other methods' rankings
    order = np.argsort(-vr.agent_scores_)
    for k in range(19):
        swapped = order.copy()
        swapped[[k, k + 1]] = swapped[[k + 1, k]]
        assert agreement(N, swapped) <= vr.agreement_
    for method in METHODS:
        assert VotingRanker(method=method).fit(X).agreement_ <= vr.agreement_


# ---------------------------------------------------------------- behaviour
def test_ties_and_missing_values():
    X = np.array([[3.0, 1.0, np.nan], [3.0, 2.0, 5.0], [1.0, np.nan, 4.0]])
    vr = VotingRanker(method="borda").fit(X)
    # task 0: a = b > c; task 1: b > a; task 2: b > c
    np.testing.assert_array_equal(
        vr.preference_matrix_, [[0, 0, 1], [1, 0, 2], [0, 0, 0]]
    )
    np.testing.assert_allclose(vr.agent_scores_, [1.5, 3.5, 0.0])
    plural = VotingRanker(method="plurality").fit(X)
    np.testing.assert_allclose(plural.agent_scores_, [0.5, 2.5, 0.0])


def test_maximal_lotteries_on_a_cycle_is_uniform():
    # three tasks in a Condorcet cycle: a > b > c, b > c > a, c > a > b
    X = np.array([[3.0, 1.0, 2.0], [2.0, 3.0, 1.0], [1.0, 2.0, 3.0]])
    vr = VotingRanker(method="maximal_lotteries").fit(X)
    np.testing.assert_allclose(vr.lottery_, np.full(3, 1 / 3), atol=1e-9)
    assert vr.condorcet_winner_ is None
    assert vr.agent_table()["rank"].tolist() == [1, 1, 1]


def test_sco_handles_mostly_missing_results():
    rng = np.random.default_rng(0)
    skill = np.linspace(2, -2, 10)
    X = skill[:, None] + rng.normal(size=(10, 400))
    X[rng.uniform(size=X.shape) < 0.9] = np.nan  # 90 % missing
    vr = VotingRanker(method="sco").fit(X)
    from scipy.stats import kendalltau

    assert kendalltau(vr.ratings_, skill).statistic > 0.8
    assert vr.n_iter_ < vr.max_iter


def test_task_table_measures_agreement_with_the_ranking():
    X = np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0], [1.0, 3.0, 1.0]])
    vr = VotingRanker().fit(pd.DataFrame(X, columns=["x", "y", "z"]))
    table = vr.task_table()
    assert table.index.name == "task" and list(table.index) == ["x", "y", "z"]
    np.testing.assert_allclose(table["kendall_tau"], [1.0, -1.0, 1.0])
    assert table["top_agent"].tolist() == [0, 2, 0]


# ------------------------------------------------------------------- API
@parametrize_with_checks([VotingRanker(), VotingRanker(method="sco")])
def test_sklearn_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("method", METHODS)
def test_contract(method):
    X = random_profile(np.random.default_rng(1), 5, 7, missing=0.2)
    check_estimator_contract(
        VotingRanker(method=method), X,
        bad_inputs=[(X[:1], None), (np.full((3, 2), np.nan), None)],
    )


def test_agent_table_protocol():
    X = agent57_profile()
    vr = VotingRanker(method="maximal_lotteries").fit(X)
    table = vr.agent_table()
    assert table.index.name == "agent" and set(table.index) == set(X.index)
    assert list(table.columns[:2]) == ["score", "rank"]
    assert list(table.index) == list(vr.ranking_)  # best first
    np.testing.assert_array_equal(table.loc[X.index, "score"], vr.agent_scores_)
    assert table.loc[vr.ranking_[0], "rank"] == 1
    np.testing.assert_allclose(table["lottery"].sum(), 1.0)


@pytest.mark.parametrize(
    "X, params, match",
    [
        ([[1.0, np.inf], [0.0, 1.0]], {}, "infinity"),
        ([[1.0, 2.0], [np.nan, np.nan]], {},
         r"1 agent of 2 has no observed response \(row 1\)"),
        ([[1.0, np.nan], [np.nan, 2.0]], {}, "no vote"),
        ([[1.0, 2.0], [0.0, 1.0]], {"rating_bounds": (1.0, 0.0)}, "rating_bounds"),
        ([[1.0, 2.0], [0.0, 1.0]], {"method": "approval"}, "method"),
    ],
)
def test_bad_input(X, params, match):
    with pytest.raises(ValueError, match=match):
        VotingRanker(**params).fit(X)


def test_bootstrap_over_tasks():
    from sklearn_eval.uncertainty import bootstrap_ranking

    X = agent57_profile()
    result = bootstrap_ranking(
        VotingRanker(method="copeland"), X, statistic="agent_scores_",
        resample="tasks", n_resamples=30, random_state=0,
    )
    frame = result.to_frame() if hasattr(result, "to_frame") else result
    assert len(frame) == 8
