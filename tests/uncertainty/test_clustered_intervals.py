"""groups=: cluster resampling keeps coverage when outcomes share a cluster.

Votes on the same prompt share the prompt's pull towards one agent; items
with variants share their question. Resampling rows treats them as
independent and under-covers; resampling clusters (or the cluster-robust
sandwich) does not (Cameron and Miller, "A practitioner's guide to
cluster-robust inference", 2015). See the user guide, "Is the ranking
settled?".
"""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from sklearn_eval.datasets import make_agent_task_scores, make_matches
from sklearn_eval.game import NashAverager
from sklearn_eval.pairwise import (
    EloRanker,
    bootstrap_bradley_terry,
    bradley_terry_covariance,
)
from sklearn_eval.uncertainty import compare_agents, ranking_intervals

DELTA, SPREAD = 0.3, 1.0  # logit gap of the two agents, prompt effect sd
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(60)


def _estimand():
    """The Bradley-Terry rating of agent "a" (mean-zero, logits) in the limit.

    Two agents: the fit is logit of the mean score, whose limit averages
    expit over the prompt effects.
    """
    mean = np.sum(WEIGHTS * expit(DELTA + SPREAD * NODES)) / WEIGHTS.sum()
    return logit(mean) / 2


def _prompted_votes(n_prompts, per_prompt, rng):
    effect = rng.normal(0, SPREAD, n_prompts)
    p = expit(DELTA + effect)
    y = (rng.random((n_prompts, per_prompt)) < p[:, None]).astype(float).ravel()
    X = np.tile(np.array([["a", "b"]], dtype=object), (y.shape[0], 1))
    groups = np.repeat(np.arange(n_prompts), per_prompt)
    return X, y, groups


def _covers(result, truth):
    k = list(result.labels).index("a")
    return result.low[k] <= truth <= result.high[k]


@pytest.mark.slow
def test_cluster_robust_sandwich_keeps_coverage_where_rows_under_cover():
    rng = np.random.default_rng(0)
    truth = _estimand()
    n_reps = 300
    rows, clusters = 0, 0
    for rep in range(n_reps):
        X, y, groups = _prompted_votes(40, 25, rng)
        est = EloRanker(method="batch", scale="logit")
        rows += _covers(ranking_intervals(est, X, y, method="analytic",
                                          n_resamples=2, random_state=rep), truth)
        clusters += _covers(ranking_intervals(est, X, y, method="analytic",
                                              groups=groups, n_resamples=2,
                                              random_state=rep), truth)
    margin = 3 * np.sqrt(0.05 * 0.95 / n_reps)
    assert clusters / n_reps >= 0.95 - margin - 0.02  # 40 clusters: small-G bias
    assert rows / n_reps < 0.85


@pytest.mark.slow
def test_cluster_bootstrap_keeps_coverage_where_row_bootstrap_under_covers():
    rng = np.random.default_rng(1)
    truth = _estimand()
    n_reps = 150
    rows, clusters = 0, 0
    for rep in range(n_reps):
        X, y, groups = _prompted_votes(40, 25, rng)
        est = EloRanker(method="batch", scale="logit")
        rows += _covers(bootstrap_bradley_terry(est, X, y, n_resamples=199,
                                                random_state=rep), truth)
        clusters += _covers(bootstrap_bradley_terry(est, X, y, groups=groups,
                                                    n_resamples=199,
                                                    random_state=rep), truth)
    assert clusters / n_reps >= 0.88
    assert rows / n_reps < 0.85


def test_cluster_bootstrap_matches_the_cluster_robust_sandwich():
    X, y = make_matches(n_players=5, n_matches=3000, draw_rate=0.1,
                        random_state=0)
    groups = np.arange(y.shape[0]) // 20
    est = EloRanker(method="batch")
    boot = ranking_intervals(est, X, y, groups=groups, n_resamples=400,
                             random_state=0)
    assert boot.method == "cluster bootstrap"
    fitted = EloRanker(method="batch").fit(X, y)
    cov = bradley_terry_covariance(fitted, X, y, groups=groups)
    np.testing.assert_allclose(np.nanstd(boot.samples, axis=0),
                               np.sqrt(np.diag(cov)), rtol=0.15)
    # one cluster per match is the ordinary sandwich, up to G / (G - 1)
    single = bradley_terry_covariance(fitted, X, y, groups=np.arange(y.shape[0]))
    n = y.shape[0]
    np.testing.assert_allclose(single * (n - 1) / n,
                               bradley_terry_covariance(fitted, X, y), rtol=1e-8,
                               atol=1e-8)


def test_generic_cluster_bootstrap_draws_whole_clusters_of_tasks():
    # variants of a question are copies: resampling them as tasks would
    # count one question several times; clusters keep the question whole
    rng = np.random.default_rng(2)
    base = (rng.random((3, 30)) < [[0.7], [0.6], [0.5]]).astype(float)
    X = np.repeat(base, 4, axis=1)
    groups = np.repeat(np.arange(30), 4)
    by_task = compare_agents("mean", X, pairs=[(0, 2)], method="bootstrap",
                             n_resamples=400, random_state=0)
    by_question = compare_agents("mean", X, pairs=[(0, 2)], method="bootstrap",
                                 groups=groups, n_resamples=400, random_state=0)
    analytic = compare_agents("mean", X, pairs=[(0, 2)], groups=groups)
    assert by_question["se"].iloc[0] > 1.6 * by_task["se"].iloc[0]
    np.testing.assert_allclose(by_question["se"], analytic["se"], rtol=0.15)


def test_groups_are_rejected_where_clusters_do_not_apply():
    X, y = make_matches(n_players=4, n_matches=200, draw_rate=0.2,
                        random_state=0)
    with pytest.raises(ValueError, match="groups has 5 labels"):
        ranking_intervals(EloRanker(), X, y, groups=np.arange(5), n_resamples=5)
    with pytest.raises(ValueError, match="groups applies"):
        ranking_intervals(NashAverager(), make_agent_task_scores(5, 8,
                                                                 random_state=0),
                          target="task_difficulty", groups=np.arange(5) // 2,
                          n_resamples=5)


@pytest.mark.parametrize("params", [
    {"ties": "davidson"}, {"ties": "rao-kupper"}, {"first_advantage": "fit"},
    {"covariates": True},
])
def test_singleton_clusters_give_the_sandwich_of_every_model_variant(params):
    # one cluster per match is the ordinary sandwich, up to G / (G - 1)
    params = dict(params)
    X, y = make_matches(n_players=5, n_matches=1500, draw_rate=0.2,
                        random_state=0)
    if params.pop("covariates", False):
        rng = np.random.default_rng(0)
        X = pd.DataFrame({"a": X[:, 0], "b": X[:, 1],
                          "style": rng.normal(size=y.shape[0])})
    fitted = EloRanker(method="batch", **params).fit(X, y)
    n = y.shape[0]
    clustered = bradley_terry_covariance(fitted, X, y, groups=np.arange(n))
    np.testing.assert_allclose(clustered * (n - 1) / n,
                               bradley_terry_covariance(fitted, X, y),
                               rtol=1e-8, atol=1e-10)
    # and pairs of matches as clusters change it
    paired = bradley_terry_covariance(fitted, X, y, groups=np.arange(n) // 2)
    assert not np.allclose(paired, clustered)


def test_generic_bootstrap_draws_clusters_of_matches_for_online_elo():
    X, y = make_matches(n_players=4, n_matches=400, random_state=0)
    groups = np.arange(400) // 10
    res = ranking_intervals(EloRanker(), X, y, groups=groups, n_resamples=20,
                            random_state=0)
    assert res.method == "cluster bootstrap"
    assert res.note.startswith("Online Elo")
    again = ranking_intervals(EloRanker(), X, y, groups=groups, n_resamples=20,
                              random_state=0)
    np.testing.assert_array_equal(res.samples, again.samples)
