"""compare_agents: paired tests, their level, and Holm/BH multiplicity control.

Holm (1979) controls the familywise error rate under any dependence;
Benjamini and Hochberg (1995) the false discovery rate for independent or
positively dependent tests. Differences are paired wherever the agents were
measured on the same items or matches (see the user guide, "Is the ranking
settled?").
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.datasets import make_matches
from sklearn_eval.pairwise import EloRanker
from sklearn_eval.uncertainty import adjust_p_values, compare_agents


def _items(accuracy, n_items, rng, shared=0.0):
    """0/1 results; ``shared`` mixes a common item easiness in (correlation)."""
    accuracy = np.asarray(accuracy, dtype=float)
    easy = rng.random(n_items)
    own = rng.random((accuracy.shape[0], n_items))
    u = np.where(rng.random(n_items) < shared, easy, own)
    return (u < accuracy[:, None]).astype(float)


@pytest.mark.slow
def test_type_one_error_is_nominal_for_equal_agents_on_shared_items():
    rng = np.random.default_rng(0)
    rejections = 0
    n_reps = 600
    for _ in range(n_reps):
        X = _items([0.6, 0.6], 200, rng, shared=0.5)
        table = compare_agents("mean", X, pairs=[(0, 1)], correction=None)
        rejections += table["p_value"].iloc[0] < 0.05
    rate = rejections / n_reps
    assert 0.05 - 3 * np.sqrt(0.05 * 0.95 / n_reps) <= rate <= 0.05 + 3 * np.sqrt(
        0.05 * 0.95 / n_reps)


def test_pairing_uses_the_correlation_of_shared_items():
    rng = np.random.default_rng(1)
    X = _items([0.7, 0.65], 500, rng, shared=0.6)
    paired = compare_agents("mean", X, pairs=[(0, 1)])
    single = [X[i].std(ddof=1) / np.sqrt(X.shape[1]) for i in range(2)]
    # positively correlated items: the paired se is well below the se of
    # two independent means
    assert paired["se"].iloc[0] < 0.8 * np.hypot(*single)
    d = X[0] - X[1]
    np.testing.assert_allclose(paired["se"].iloc[0],
                               d.std(ddof=1) / np.sqrt(d.shape[0]), rtol=1e-10)
    np.testing.assert_allclose(paired["difference"].iloc[0], d.mean())


@pytest.mark.slow
def test_holm_controls_familywise_error_and_bh_the_false_discovery_rate():
    rng = np.random.default_rng(2)
    accuracy = np.array([0.6, 0.6, 0.6, 0.75, 0.75])
    null = {(a, b) for a in range(5) for b in range(5)
            if a != b and accuracy[a] == accuracy[b]}
    n_reps = 500
    familywise, fdp = 0, 0.0
    for _ in range(n_reps):
        X = _items(accuracy, 300, rng)
        holm = compare_agents("mean", X, pairs="all", correction="holm")
        bh = compare_agents("mean", X, pairs="all", correction="bh")
        pairs = list(zip(holm["agent_a"], holm["agent_b"], strict=True))
        false = np.array([p in null for p in pairs])
        familywise += bool((false & (holm["p_adjusted"] < 0.05)).any())
        rejected = (bh["p_adjusted"] < 0.05).to_numpy()
        fdp += (false & rejected).sum() / max(rejected.sum(), 1)
    margin = 3 * np.sqrt(0.05 * 0.95 / n_reps)
    assert familywise / n_reps <= 0.05 + margin
    assert fdp / n_reps <= 0.05 + margin


def test_matches_adjacent_pairs_and_bootstrap_agree():
    X, y = make_matches(n_players=5, n_matches=2000, random_state=0)
    analytic = compare_agents(EloRanker(method="batch"), X, y)
    assert len(analytic) == 4 and (analytic["difference"] >= 0).all()
    assert (analytic["p_adjusted"] >= analytic["p_value"]).all()
    boot = compare_agents(EloRanker(method="batch"), X, y, method="bootstrap",
                          n_resamples=300, random_state=0)
    np.testing.assert_allclose(boot["se"], analytic["se"], rtol=0.25)
    np.testing.assert_allclose(boot["difference"], analytic["difference"])


def _holm_reference(p):
    m = len(p)
    order = np.argsort(p)
    out = np.empty(m)
    running = 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[k]))
        out[k] = running
    return out


def _bh_reference(p):
    m = len(p)
    return np.array([min(1.0, min(m * p[j] / (np.sum(p <= p[j]))
                                  for j in range(m) if p[j] >= p[i]))
                     for i in range(m)])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_adjustments_match_their_definitions(values):
    p = np.array(values)
    np.testing.assert_allclose(adjust_p_values(p, "holm"), _holm_reference(p))
    np.testing.assert_allclose(adjust_p_values(p, "bh"), _bh_reference(p))
    assert (adjust_p_values(p, "bh") <= adjust_p_values(p, "holm") + 1e-12).all()
    np.testing.assert_array_equal(adjust_p_values(p, None), p)


def test_bad_arguments_are_named():
    X = _items([0.6, 0.5, 0.4], 50, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"unknown agents \['7'\]"):
        compare_agents("mean", X, pairs=[(0, 7)])
    with pytest.raises(ValueError, match="itself"):
        compare_agents("mean", X, pairs=[(1, 1)])
    with pytest.raises(ValueError, match="pairs must be"):
        compare_agents("mean", X, pairs="neighbours")
    with pytest.raises(ValueError, match="correction"):
        compare_agents("mean", X, correction="bonferroni")
    with pytest.raises(ValueError, match="groups has 3 labels"):
        compare_agents("mean", X, groups=[0, 1, 1])
    with pytest.raises(ValueError, match="estimator must be"):
        compare_agents("median", X)
    with pytest.raises(ValueError, match="p_values"):
        adjust_p_values([0.2, 1.5])


@pytest.mark.parametrize("scale", [1e155, 1e300])
def test_means_too_large_for_their_covariance_are_a_clear_error(scale):
    # the covariance of the means holds squares of the scores: beyond the
    # float range it is refused in words, not a linear-algebra failure
    X = np.array([[1.0, 0.2, 0.5], [0.0, 1.0, 0.3], [0.4, 0.1, 0.9]]) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="rescale them"):
            compare_agents("mean", X, pairs="all")
    table = compare_agents("mean", X / scale, pairs="all")
    assert np.isfinite(table["se"]).all()
