"""Bad input to the task-selection helpers: a clear error naming the problem.

``InfoGainSelector.score`` on run-level data without ``y`` raised numpy's
"array is not broadcastable"; ``task_clusters`` accepted a negative distance
cut and ``criterion="maxclust"`` with the default distance 0.8.
"""

import numpy as np
import pytest

from sklearn_eval.selection import InfoGainSelector, make_subset_scorer, task_clusters


def _runs(n_agents=4, n_runs=6, n_tasks=3, seed=0):
    rng = np.random.default_rng(seed)
    agents = np.repeat([f"a{k}" for k in range(n_agents)], n_runs)
    skill = np.repeat(np.arange(n_agents, dtype=float), n_runs)
    X = skill[:, None] + rng.normal(0, 0.5, (skill.size, n_tasks))
    return X, agents


@pytest.fixture(scope="module")
def fitted():
    X, agents = _runs()
    return InfoGainSelector(n_tasks=1).fit(X, agents), X, agents


@pytest.mark.parametrize("metric", [None, "kendall_tau", "spearman_rho",
                                    "neg_mean_absolute_error"])
@pytest.mark.parametrize("bad", ["missing", "short", "long", "2-D"])
def test_run_level_scoring_needs_one_agent_per_run(fitted, metric, bad):
    selector, X, agents = fitted
    y = {"missing": None, "short": agents[:-1],
         "long": np.concatenate([agents, ["a0"]]),
         "2-D": agents.reshape(-1, 2)}[bad]
    message = "requires y, the agent of every run" if bad == "missing" else \
        "y must hold one agent label per run"
    with pytest.raises(ValueError, match=message):
        if metric is None:
            selector.score(X, y)
        else:
            make_subset_scorer(metric)(selector, X, y)


def test_run_level_scoring_with_y_still_works(fitted):
    selector, X, agents = fitted
    assert -1.0 <= selector.score(X, agents) <= 1.0


def test_agent_level_scoring_needs_no_y():
    X = np.random.default_rng(1).normal(size=(8, 4))
    selector = InfoGainSelector(n_tasks=2, input="agents").fit(X)
    assert -1.0 <= selector.score(X) <= 1.0


MEANS = np.random.default_rng(2).normal(size=(6, 5))


@pytest.mark.parametrize(("criterion", "threshold"), [
    ("distance", -1), ("distance", -1e-9), ("distance", np.inf),
    ("distance", np.nan), ("distance", "0.5"), ("distance", True),
    ("distance", None),
    ("maxclust", 0.8), ("maxclust", 0), ("maxclust", -2), ("maxclust", 2.0),
    ("maxclust", True), ("maxclust", None),
])
def test_task_clusters_refuses_a_threshold_its_criterion_cannot_read(criterion,
                                                                     threshold):
    with pytest.raises(ValueError, match=f"criterion='{criterion}' reads threshold"):
        task_clusters(MEANS, criterion=criterion, threshold=threshold)


@pytest.mark.parametrize(("criterion", "threshold"), [
    ("distance", 0), ("distance", 0.8), ("distance", 2.5), ("distance", np.float32(1)),
    ("maxclust", 1), ("maxclust", 3), ("maxclust", np.int64(5)), ("maxclust", 50),
])
def test_task_clusters_takes_every_valid_threshold(criterion, threshold):
    labels = task_clusters(MEANS, criterion=criterion, threshold=threshold).labels
    assert labels.shape == (5,)
    if criterion == "maxclust":
        assert labels.max() + 1 <= threshold
