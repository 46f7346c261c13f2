"""Every antisymmetry check names the entries that break the rule.

A win-probability matrix passed where log-odds are expected fails on its
diagonal first (0.5 where antisymmetry needs 0); the messages used to name
that one entry twice ("A[0, 0] = 0.5 but A[0, 0] = 0.5").
"""

import re

import matplotlib
import numpy as np
import pytest

from sklearn_eval.game import (
    AlphaRank,
    NashAverager,
    hodge_decomposition,
    symmetric_maxent_nash,
)
from sklearn_eval.utils import check_antisymmetric

matplotlib.use("Agg")

P = np.array([[0.5, 0.7, 0.2], [0.3, 0.5, 0.6], [0.8, 0.4, 0.5]])
SKEWED = np.array([[0.0, 1.0, -2.0], [-1.0, 0.0, 3.0], [2.0, -7.0, 0.0]])


def _hodge_display(payoff):
    from sklearn_eval.plotting import HodgeDisplay

    return HodgeDisplay.from_payoff(payoff)


CHECKS = {
    "NashAverager": lambda A: NashAverager(game="agent_vs_agent").fit(A),
    "AlphaRank": lambda A: AlphaRank(game="agent_vs_agent", payoff="logit").fit(A),
    "hodge_decomposition": hodge_decomposition,
    "symmetric_maxent_nash": symmetric_maxent_nash,
    "check_antisymmetric": check_antisymmetric,
    "HodgeDisplay": _hodge_display,
}


@pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())
def test_a_bad_diagonal_is_named_once_with_the_rule(check):
    with pytest.raises(ValueError) as info:
        check(P)
    message = str(info.value)
    assert re.search(r"\[0, 0\] = 0\.5 on the diagonal, which must be 0", message)
    assert not re.search(r"\[0, 0\] = 0\.5.*\[0, 0\] = 0\.5", message)


@pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())
def test_an_asymmetric_pair_names_both_entries(check):
    with pytest.raises(ValueError) as info:
        check(SKEWED)
    assert re.search(r"\[1, 2\] = 3\.0 but \w+\[2, 1\] = -7\.0", str(info.value))
