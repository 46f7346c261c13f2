"""alpha-Rank refuses, before building it, a chain whose moves exceed memory.

A 22 x 2854 agent-vs-task game (ChemBench models x questions) has 180
million moves; the command was killed by the out-of-memory killer (exit
-9), and a 320 x 735 one ran for minutes before failing alike.
"""

import numpy as np
import pytest

from sklearn_eval.game import AlphaRank, _alpharank


@pytest.mark.parametrize(
    "game, shape",
    [("agent_vs_task", (4, 7)), ("agent_vs_task", (3, 40)),
     ("agent_vs_agent", (9, 9))],
)
def test_a_game_over_the_move_budget_is_refused_naming_its_size(
    monkeypatch, game, shape
):
    rng = np.random.default_rng(0)
    X = rng.random(shape)
    if game == "agent_vs_agent":  # win probabilities: P + P.T = 1
        X = np.triu(X, 1) + np.tril(1.0 - X.T, -1) + 0.5 * np.eye(len(X))
    dims = shape if game == "agent_vs_task" else shape[:1]
    n_states = int(np.prod(dims))
    n_moves = n_states * (sum(dims) - len(dims))
    monkeypatch.setattr(_alpharank, "_MAX_MOVES", n_moves - 1)
    with pytest.raises(ValueError, match=rf"{n_states:,} profiles and {n_moves:,} "):
        AlphaRank(game=game, alpha=1.0).fit(X)
    monkeypatch.setattr(_alpharank, "_MAX_MOVES", n_moves)
    AlphaRank(game=game, alpha=1.0).fit(X)  # at the budget: fitted


def test_the_budget_is_checked_before_the_moves_are_built(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the moves were built")

    monkeypatch.setattr(_alpharank, "_two_population_moves", fail)
    X = np.zeros((22, 2854))
    X[0] = 1.0
    with pytest.raises(ValueError, match="62,788 profiles and 180,452,712 moves"):
        AlphaRank(alpha=1.0).fit(X)
