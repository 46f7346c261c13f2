"""A fit that fails part-way leaves the previous fitted model untouched.

Every ``fit`` validates, computes into locals with pure functions, and only
then assigns its fitted attributes. Here the compute step of each estimator
is made to fail after a successful fit, on new valid data; the estimator's
state must be byte-for-byte what it was.
"""

import pickle

import numpy as np
import pytest

from tests.common.test_contract import CONFIGS

# config prefix -> the compute functions that a failure is injected into
COMPUTE_STEPS = {
    "EloRanker(online": ["sklearn_eval.pairwise._kernels.elo_scan"],
    "EloRanker(batch": ["sklearn_eval.pairwise._elo.fit_bradley_terry"],
    "MultiElo(online": ["sklearn_eval.pairwise._kernels.melo_scan"],
    "MultiElo(batch": ["sklearn_eval.pairwise._melo.fit_melo_lbfgs"],
    "NashAverager(agent_vs_task": ["sklearn_eval.game._nash.maxent_nash"],
    "NashAverager(agent_vs_agent": ["sklearn_eval.game._nash.symmetric_maxent_nash"],
    "IRT2PL": ["sklearn_eval.irt._irt2pl._fit_model"],
    "GeneralityScorer": ["sklearn_eval.irt._generality._indicator_matrix"],
    "AlphaRank": ["sklearn_eval.game._alpharank._limit"],
    "VotingRanker": ["sklearn_eval.game._voting._aggregate"],
    "SubsetScoreEstimator": ["sklearn_eval.selection._subset_score._cross_validate"],
    "AdaptiveTester": ["sklearn_eval.irt._adaptive._node_probabilities"],
    "InfoGainSelector": [
        "sklearn_eval.selection._kernels.greedy_forward",
        "sklearn_eval.selection._kernels.greedy_discrete",
    ],
}


def _steps(config):
    for prefix, steps in COMPUTE_STEPS.items():
        if config.startswith(prefix):
            return steps
    return None


CHECKED = [c for c in CONFIGS if _steps(c) is not None]


class InjectedFailure(RuntimeError):
    pass


def _fail(*args, **kwargs):
    raise InjectedFailure("compute step failed")


def _other_data(X, y):
    """Valid training data different from the first fit's."""
    if y is not None:
        return X[::-1][:-7], y[::-1][:-7]
    X = np.asarray(X, dtype=float)
    if X.shape[0] == X.shape[1]:  # agent vs agent: keep the game square
        return X[:-1, :-1], None
    return X[:-1], None


@pytest.mark.parametrize("config", CHECKED)
def test_a_failing_fit_keeps_the_previous_model(config, monkeypatch):
    make, data, _ = CONFIGS[config]
    X, y, fit_params = data()
    est = make()
    est.fit(*((X,) if y is None else (X, y)), **(fit_params or {}))
    before = pickle.dumps(est.__dict__)
    for step in _steps(config):
        monkeypatch.setattr(step, _fail)
    X2, y2 = _other_data(X, y)
    with pytest.raises(InjectedFailure):
        est.fit(*((X2,) if y2 is None else (X2, y2)))
    assert pickle.dumps(est.__dict__) == before


def test_every_estimator_family_is_checked():
    families = {c.split("(")[0] for c in CHECKED}
    assert families == {
        "EloRanker", "MultiElo", "NashAverager", "IRT2PL", "GeneralityScorer",
        "InfoGainSelector", "AlphaRank", "VotingRanker", "SubsetScoreEstimator",
        "AdaptiveTester",
    }
