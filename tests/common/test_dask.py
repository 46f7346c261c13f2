"""The n_jobs paths on a local dask.distributed cluster (joblib's dask backend).

Skipped when the ``distributed`` extra is not installed.
"""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.model_selection import GridSearchCV, KFold

from sklearn_eval.datasets import make_agent_task_scores, make_matches
from sklearn_eval.game import NashAverager
from sklearn_eval.metrics import match_log_loss_scorer
from sklearn_eval.pairwise import EloRanker
from sklearn_eval.uncertainty import bootstrap_ranking, ranking_intervals

distributed = pytest.importorskip("distributed")


def test_bootstraps_on_dask_match_n_jobs_1(dask_client):
    X, y = make_matches(n_players=8, n_matches=2000, random_state=0)
    S = make_agent_task_scores(6, 25, random_state=0)
    local_bt = ranking_intervals(EloRanker(method="batch"), X, y, n_resamples=30,
                                 random_state=3, n_jobs=1)
    local_nash = bootstrap_ranking(NashAverager(), S, statistic="agent_skill_",
                                   resample="tasks", n_resamples=16,
                                   random_state=3, n_jobs=1)
    with parallel_config(backend="dask"):
        dask_bt = ranking_intervals(EloRanker(method="batch"), X, y,
                                    n_resamples=30, random_state=3, n_jobs=-1)
        dask_nash = bootstrap_ranking(NashAverager(), S, statistic="agent_skill_",
                                      resample="tasks", n_resamples=16,
                                      random_state=3, n_jobs=-1)
    np.testing.assert_allclose(dask_bt.samples, local_bt.samples, rtol=1e-12)
    np.testing.assert_allclose(dask_nash.samples, local_nash.samples, rtol=1e-12)
    # the work really ran on the cluster's workers
    assert dask_client.run(lambda: True)


def test_grid_search_on_dask_matches_n_jobs_1(dask_client):
    X, y = make_matches(n_players=10, n_matches=1500, random_state=1)
    grid = {"alpha": [0.0, 0.1, 1.0, 10.0]}

    def search(n_jobs):
        return GridSearchCV(
            EloRanker(method="batch"), grid, scoring=match_log_loss_scorer,
            cv=KFold(4, shuffle=True, random_state=0), n_jobs=n_jobs,
        ).fit(X, y)

    local = search(1)
    with parallel_config(backend="dask"):
        remote = search(-1)
    np.testing.assert_allclose(remote.cv_results_["mean_test_score"],
                               local.cv_results_["mean_test_score"], rtol=1e-12)
    assert remote.best_params_ == local.best_params_
