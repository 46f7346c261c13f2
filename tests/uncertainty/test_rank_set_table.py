"""rank_set_table: the protocol's agent table with the rank sets and tiers.

User guide: "Is the ranking settled?" (rank sets and tiers in the tables).
"""

import numpy as np
import pandas as pd
import pytest

from sklearn_eval.datasets import make_matches
from sklearn_eval.game import VotingRanker
from sklearn_eval.pairwise import EloRanker
from sklearn_eval.uncertainty import rank_set_table, rank_sets


def test_columns_match_the_sets_agent_by_agent():
    X, y = make_matches(n_players=7, n_matches=1500, random_state=1)[:2]
    model = EloRanker(method="batch").fit(X, y)
    sets = rank_sets(EloRanker(method="batch"), X, y, random_state=0)
    table = rank_set_table(model, sets)
    pd.testing.assert_frame_equal(table.iloc[:, :-3], model.agent_table())
    frame = sets.to_frame()
    for column in ("rank_low", "rank_high", "tier"):
        assert table[column].loc[frame.index].tolist() == frame[column].tolist()
    assert ((table["rank_low"] <= table["rank"])
            & (table["rank"] <= table["rank_high"])).all()


def test_agents_without_a_set_get_missing_values():
    rng = np.random.default_rng(0)
    scores = pd.DataFrame(rng.random((5, 30)),
                          index=["a", "b", "c", "d", "e"])
    model = VotingRanker().fit(scores)
    sets = rank_sets(VotingRanker(), scores, n_resamples=30, random_state=0)
    sets.rank_low[0] = sets.rank_high[0] = sets.tier[0] = -1  # as for a NaN score
    table = rank_set_table(model, sets)
    assert table.loc[sets.labels[0], "rank_low"] is pd.NA
    assert table["tier"].notna().sum() == 4


def test_bad_arguments_are_named():
    X, y = make_matches(n_players=4, n_matches=400, random_state=0)[:2]
    model = EloRanker(method="batch").fit(X, y)
    with pytest.raises(TypeError, match="sets must be a RankSets"):
        rank_set_table(model, model.agent_table())
    sets = rank_sets(EloRanker(method="batch"), X, y, random_state=0)
    other = EloRanker(method="batch").fit(np.char.add("x", X.astype(str)), y)
    with pytest.raises(ValueError, match="does not rank"):
        rank_set_table(other, sets)
