"""Chains whose rates underflow, from ``FLUSHED_GTH_MIN_STATES`` states on:
the linear elimination without those rates, equal to the exact log-space
elimination, and that elimination where underflow cuts the chain apart."""

import numpy as np
import pytest

from sklearn_eval.game import _markov
from sklearn_eval.game._markov import stationary_from_log_rates


def _two_population_chain(rng, n_agents, n_tasks, spread):
    """Profiles (agent, task); moves change the agent or the task; log rates
    spread over hundreds of units, a ring of unit rates keeps it connected."""
    n = n_agents * n_tasks
    src, dst = [], []
    for s in range(n):
        i, j = divmod(s, n_tasks)
        for i2 in range(n_agents):
            if i2 != i:
                src.append(s)
                dst.append(i2 * n_tasks + j)
        for j2 in range(n_tasks):
            if j2 != j:
                src.append(s)
                dst.append(i * n_tasks + j2)
    src, dst = np.array(src), np.array(dst)
    log_rate = -np.abs(rng.normal(scale=spread, size=src.size))
    ring = (dst == (src + 1) % n)
    log_rate[ring] = 0.0
    return src, dst, log_rate, n


def _exact(src, dst, log_rate, n):
    L = np.full((n, n), -np.inf)
    L[src, dst] = log_rate
    return _markov._normalise_log(_markov._gth_log(L))


@pytest.mark.parametrize("seed", range(8))
def test_underflowing_chains_are_solved_without_the_underflow_exactly(seed):
    rng = np.random.default_rng(seed)
    src, dst, log_rate, n = _two_population_chain(rng, 40, 9, spread=400.0)
    assert n >= _markov.FLUSHED_GTH_MIN_STATES
    assert np.any(log_rate < _markov._LOG_TINY)
    pi, method = stationary_from_log_rates(src, dst, log_rate, n)
    assert method == "gth"
    np.testing.assert_allclose(pi, _exact(src, dst, log_rate, n), rtol=1e-12,
                               atol=1e-15)


def test_a_chain_cut_apart_by_underflow_takes_the_exact_elimination():
    rng = np.random.default_rng(5)
    src, dst, log_rate, n = _two_population_chain(rng, 40, 9, spread=1.0)
    # every move out of the first agent's profiles, and every move into
    # them, far below the double range: only the log-space path joins them
    first = np.arange(9)
    across = np.isin(src, first) != np.isin(dst, first)
    log_rate[across] = -800.0 - rng.random(across.sum())
    pi, method = stationary_from_log_rates(src, dst, log_rate, n)
    assert method == "gth-log"
    np.testing.assert_allclose(pi, _exact(src, dst, log_rate, n), rtol=0, atol=1e-14)


def test_small_underflowing_chains_keep_the_exact_elimination():
    rng = np.random.default_rng(1)
    src, dst, log_rate, n = _two_population_chain(rng, 10, 9, spread=400.0)
    assert n < _markov.FLUSHED_GTH_MIN_STATES
    _, method = stationary_from_log_rates(src, dst, log_rate, n)
    assert method == "gth-log"


def test_an_elimination_that_overflows_falls_back_to_the_log_space_one(monkeypatch):
    """Subnormal totals can overflow the linear elimination's quotients (seen
    on HELM Lite at two alphas of its sweep): NaN never leaves the solver."""
    rng = np.random.default_rng(2)
    src, dst, log_rate, n = _two_population_chain(rng, 40, 9, spread=400.0)
    monkeypatch.setattr(_markov, "_gth_linear",
                        lambda R: np.full(R.shape[0], np.nan))
    pi, method = stationary_from_log_rates(src, dst, log_rate, n)
    assert method == "gth-log"
    np.testing.assert_allclose(pi, _exact(src, dst, log_rate, n), atol=1e-15)


def test_a_subnormal_exit_total_takes_the_log_space_elimination():
    """No rate underflows, but eliminating states 2-4 leaves state 1 an exit
    total of 1e-320 (subnormal: four digits): the linear elimination would
    be off by 1e-5 relative; the log-space one is exact."""
    R = np.zeros((5, 5))
    R[0, 1], R[0, 4], R[4, 0], R[1, 2] = 1e-300, 1.0, 1.0, 1.0
    R[2, 1], R[2, 3], R[3, 2], R[3, 0] = 1.0, 1e-160, 1.0, 1e-160
    src, dst = np.nonzero(R)
    pi, method = stationary_from_log_rates(src, dst, np.log(R[src, dst]), 5)
    assert method == "gth-log"
    np.testing.assert_allclose(pi, [5e-21, 0.5, 0.5, 5e-161, 5e-21], rtol=1e-12)
