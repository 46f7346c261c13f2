"""``method="auto"`` of the mean on a result matrix with missing results.

The mean's analytic (paired) covariance needs a complete matrix; ``auto``
used it anyway and refused the data ("use method='bootstrap'"), so the
command line's ``compare`` failed on every leaderboard with a gap although
its default is documented as "analytic covariance where one exists".
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.uncertainty import compare_agents, rank_sets


def _matrix(seed, n_agents, n_tasks, n_missing):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_agents, n_tasks)) + np.arange(n_agents)[:, None]
    cells = rng.choice(n_agents * n_tasks, size=n_missing, replace=False)
    X.flat[cells] = np.nan
    X[np.isnan(X).all(axis=1), 0] = 0.0  # every agent keeps a result
    return X


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n_agents=st.integers(2, 5),
    n_tasks=st.integers(3, 8),
    n_missing=st.integers(1, 3),
)
def test_auto_equals_the_bootstrap_when_a_result_is_missing(
    seed, n_agents, n_tasks, n_missing
):
    X = _matrix(seed, n_agents, n_tasks, n_missing)
    options = {"pairs": "all", "n_resamples": 50, "random_state": 0}
    auto = compare_agents("mean", X, method="auto", **options)
    boot = compare_agents("mean", X, method="bootstrap", **options)
    np.testing.assert_array_equal(auto["se"], boot["se"])
    np.testing.assert_array_equal(auto["difference"], boot["difference"])


def test_rank_sets_auto_takes_the_bootstrap_too():
    X = _matrix(1, 4, 6, 2)
    sets = rank_sets("mean", X, n_resamples=50, random_state=0)
    assert sets is not None


def test_analytic_asked_for_still_refuses_missing_results():
    X = _matrix(2, 3, 5, 1)
    with pytest.raises(ValueError, match="complete result matrix"):
        compare_agents("mean", X, method="analytic")
