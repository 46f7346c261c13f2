"""``frequency_weights`` is a bool, in every function that takes it.

Regression: ``rank_sets``/``compare_agents`` read ``frequency_weights="yes"``
(or ``"no"``, or 0/1) by its truth value and went on silently.
"""

import numpy as np
import pytest

from sklearn_eval.datasets import make_matches
from sklearn_eval.pairwise import (
    EloRanker,
    bootstrap_bradley_terry,
    bradley_terry_covariance,
    bradley_terry_intervals,
)
from sklearn_eval.uncertainty import compare_agents, rank_sets, votes_to_separate

X, Y = make_matches(n_players=4, n_matches=120, random_state=0)
W = np.full(len(Y), 2.0)

CALLS = {
    "rank_sets": lambda flag: rank_sets(
        EloRanker(method="batch"), X, Y, sample_weight=W, frequency_weights=flag,
        n_resamples=10, random_state=0),
    "rank_sets(bootstrap)": lambda flag: rank_sets(
        EloRanker(method="batch"), X, Y, sample_weight=W, frequency_weights=flag,
        method="bootstrap", n_resamples=10, random_state=0),
    "rank_sets(no weights)": lambda flag: rank_sets(
        EloRanker(method="batch"), X, Y, frequency_weights=flag),
    "compare_agents": lambda flag: compare_agents(
        EloRanker(method="batch"), X, Y, sample_weight=W, frequency_weights=flag),
    "votes_to_separate": lambda flag: votes_to_separate(
        EloRanker(method="batch"), X, Y, 0, 1, sample_weight=W,
        frequency_weights=flag),
    "bootstrap_bradley_terry": lambda flag: bootstrap_bradley_terry(
        EloRanker(method="batch"), X, Y, W, frequency_weights=flag,
        n_resamples=10, random_state=0),
    "bradley_terry_intervals": lambda flag: bradley_terry_intervals(
        EloRanker(method="batch"), X, Y, W, frequency_weights=flag),
    "bradley_terry_covariance": lambda flag: bradley_terry_covariance(
        EloRanker(method="batch").fit(X, Y, sample_weight=W), X, Y, W,
        frequency_weights=flag),
}


@pytest.mark.parametrize("flag", ["yes", "no", "True", 1, 0, 1.0, None, [True]])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_non_bool_flag_is_a_type_error_naming_it(call, flag):
    with pytest.raises(TypeError, match="frequency_weights must be a bool"):
        CALLS[call](flag)


@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_bools_are_accepted(call, flag):
    CALLS[call](flag)
