"""ranking_intervals: intervals for every ranking in the library."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.decomposition import PCA

from sklearn_eval.datasets import make_agent_task_scores, make_matches
from sklearn_eval.game import NashAverager
from sklearn_eval.irt import GeneralityScorer
from sklearn_eval.pairwise import MultiElo
from sklearn_eval.selection import InfoGainSelector
from sklearn_eval.uncertainty import bootstrap_ranking, ranking_intervals


def _rps_matches(n_rounds=60, seed=0):
    """Rock-paper-scissors-lizard with a dominated extra agent."""
    rng = np.random.default_rng(seed)
    beats = {("rock", "scissors"): 0.9, ("scissors", "paper"): 0.9,
             ("paper", "rock"): 0.9, ("rock", "weak"): 0.95,
             ("paper", "weak"): 0.95, ("scissors", "weak"): 0.95}
    rows, outcomes = [], []
    for (a, b), p in beats.items():
        for _ in range(n_rounds):
            rows.append([a, b])
            outcomes.append(float(rng.random() < p))
    return np.array(rows), np.array(outcomes)


def test_multielo_intervals_over_matches():
    X, y = make_matches(n_players=5, n_matches=1500, cyclic_strength=1.0,
                        random_state=0)
    res = ranking_intervals(MultiElo(method="batch", alpha=0.01, random_state=0),
                            X, y, n_resamples=20, random_state=0)
    assert res.samples.shape == (20, 5) and "rotation" in res.note
    assert np.all(res.low <= res.high)
    trans = ranking_intervals(MultiElo(random_state=0), X, y,
                              target="transitive_ratings", n_resamples=10,
                              random_state=0)
    assert "not confidence intervals" in trans.note  # online fit


def test_nash_agent_vs_task_targets_and_units():
    S = make_agent_task_scores(8, 40, random_state=0)
    skill = ranking_intervals(NashAverager(), S, n_resamples=40, random_state=0)
    assert skill.samples.shape == (40, 8) and "descriptive" in skill.note
    assert np.all(skill.low <= skill.high)
    dist = ranking_intervals(NashAverager(), S, target="agent_distribution",
                             n_resamples=40, random_state=0)
    assert "inconsistent" in dist.note
    assert np.all((dist.samples >= -1e-12) & (dist.samples <= 1 + 1e-12))
    np.testing.assert_allclose(dist.samples.sum(axis=1), 1.0)
    hard = ranking_intervals(NashAverager(), S, target="task_difficulty",
                             n_resamples=30, random_state=0)
    assert hard.samples.shape == (30, 40)  # agents resampled, tasks ranked
    with pytest.raises(ValueError, match="target must be one of"):
        ranking_intervals(NashAverager(), S, target="value")


def test_nash_agent_vs_agent_resamples_matches():
    X, y = _rps_matches()
    res = ranking_intervals(NashAverager(game="agent_vs_agent"), X, y,
                            target="agent_distribution", n_resamples=30,
                            random_state=0)
    assert res.labels.tolist() == ["paper", "rock", "scissors", "weak"]
    # the three cyclic agents share the equilibrium, the weak one is outside
    assert np.all(res.estimate[:3] > 0.15)
    np.testing.assert_allclose(res.samples.sum(axis=1), 1.0)
    assert res.estimate[3] < 1e-6 and res.high[3] < 1e-6
    assert res.rank[3] == 4 and res.rank_low[3] == 4
    skill = ranking_intervals(NashAverager(game="agent_vs_agent"), X, y,
                              n_resamples=10, random_state=0)
    assert skill.prob_above[0, 3] == 1.0
    with pytest.raises(ValueError, match="resample matches"):
        ranking_intervals(NashAverager(game="agent_vs_agent"), np.eye(3) * 0 + 0.5)


def test_generality_resamples_given_difficulties_with_tasks():
    rng = np.random.default_rng(0)
    difficulty = np.repeat(np.arange(1.0, 6.0), 8)
    ability = np.array([1.5, 2.5, 3.5, 4.5])
    p = 1 / (1 + np.exp(-3 * (ability[:, None] - difficulty[None, :])))
    X = (rng.random(p.shape) < p).astype(float)
    seen = []

    class Spy(GeneralityScorer):
        def fit(self, X, y=None):
            # each resampled column must keep its own difficulty
            seen.append(np.asarray(self.difficulty).shape == (np.shape(X)[1],))
            return super().fit(X, y)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ranking_intervals(Spy(difficulty=difficulty, bins=5), X,
                                target="capability", n_resamples=25,
                                random_state=0)
    assert all(seen) and len(seen) == 26
    assert res.rank.tolist() == [4, 3, 2, 1]
    assert np.all(res.low <= res.estimate + 1e-12)
    with pytest.raises(ValueError, match="target must be one of"):
        ranking_intervals(GeneralityScorer(difficulty=difficulty, bins=5), X,
                          target="iq", n_resamples=2)


def test_infogain_resamples_runs_within_agents():
    rng = np.random.default_rng(0)
    agents = np.repeat(["a", "b", "c", "d"], 20)
    skill = np.repeat([0.0, 1.0, 2.0, 3.0], 20)
    X = np.column_stack([skill + rng.normal(0, 0.3, 80), rng.normal(0, 1, 80),
                         (skill > 1.5) + rng.normal(0, 0.3, 80)])
    res = ranking_intervals(InfoGainSelector(n_tasks=1), X, agents,
                            n_resamples=30, random_state=0)
    assert res.rank.tolist() == [1, 3, 2]
    assert res.prob_above[0, 1] == 1.0
    with pytest.raises(ValueError, match="input='runs'"):
        ranking_intervals(InfoGainSelector(n_tasks=1), X)


def test_results_do_not_depend_on_n_jobs():
    S = pd.DataFrame(make_agent_task_scores(6, 30, random_state=1),
                     index=list("abcdef"))
    kwargs = dict(n_resamples=12, random_state=5)
    one = ranking_intervals(NashAverager(), S, n_jobs=1, **kwargs)
    two = ranking_intervals(NashAverager(), S, n_jobs=2, **kwargs)
    np.testing.assert_allclose(one.samples, two.samples, rtol=1e-12)
    assert one.labels.tolist() == list("abcdef")


def test_unknown_estimator_and_bad_method():
    with pytest.raises(TypeError, match="bootstrap_ranking"):
        ranking_intervals(PCA(), np.ones((3, 3)))
    with pytest.raises(ValueError, match="method must be one of"):
        ranking_intervals(NashAverager(), np.ones((3, 3)), method="bayes")
    with pytest.raises(ValueError, match="No analytic"):
        ranking_intervals(NashAverager(), np.ones((3, 3)), method="analytic")


def test_two_argument_statistic_gets_the_resampled_data():
    X = np.random.default_rng(0).normal(size=(20, 4))
    shapes = []

    def statistic(fitted, X_fit):
        shapes.append(np.shape(X_fit))
        return np.abs(fitted.inverse_transform(fitted.transform(X_fit))).mean(0)

    res = bootstrap_ranking(PCA(n_components=2), X, statistic=statistic,
                            resample="agents", n_resamples=5, random_state=0)
    assert shapes == [(20, 4)] * 6 and res.estimate.shape == (4,)
