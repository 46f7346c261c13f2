"""Step-down max-|t| inference on pairwise differences, projected to ranks.

Mogstad, Romano, Shaikh and Wilhelm (2024), "Inference for ranks": the
simultaneous family holds every pair, each agent's marginal family only its
own pairs, so marginal sets are nested in simultaneous ones; the step-down
rejects at least what the single-step max-|t| test rejects.
"""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from sklearn_eval.utils._simultaneous import leader_tiers, pairwise_inference


def _problem(seed, n):
    rng = np.random.default_rng(seed)
    score = np.sort(rng.normal(0, 2, n))[::-1]
    root = rng.normal(size=(n, n)) * 0.3
    cov = root @ root.T + np.diag(rng.uniform(0.05, 0.5, n))
    return score, cov


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 9),
       level=st.sampled_from([0.8, 0.9, 0.95]))
@example(seed=5497, n=2, level=0.95)  # one pair: finite draws undercut z
def test_rank_sets_are_consistent_and_nested(seed, n, level):
    score, cov = _problem(seed, n)
    def run(simultaneous):
        return pairwise_inference(score, cov=cov, confidence_level=level,
                                  simultaneous=simultaneous, n_draws=400,
                                  random_state=np.random.default_rng(seed))
    joint, marginal = run(True), run(False)
    point = np.arange(1, n + 1)  # score is sorted best first
    for sets in (joint, marginal):
        assert ((1 <= sets.rank_low) & (sets.rank_low <= point)).all()
        assert ((point <= sets.rank_high) & (sets.rank_high <= n)).all()
    # a marginal family is a subset of the pairs: its sets are never wider
    assert (marginal.rank_low >= joint.rank_low).all()
    assert (marginal.rank_high <= joint.rank_high).all()
    # the step-down rejects at least the single-step max-|t| rejections,
    # and nothing a pairwise test at the same level would keep
    t = np.abs(joint.difference) / joint.se
    assert (joint.separated >= (t > joint.critical.max())).all()
    z = norm.ppf(0.5 + level / 2)
    assert not (joint.separated & (t <= z)).any()


def test_a_separated_order_gives_single_ranks_and_ties_give_full_sets():
    n = 6
    rng = np.random.default_rng(0)
    far = pairwise_inference(np.arange(n, 0, -1) * 10.0, cov=np.eye(n) * 0.01,
                             random_state=rng)
    assert (far.rank_low == far.rank_high).all()
    tied = pairwise_inference(np.zeros(n) + rng.normal(0, 1e-3, n),
                              cov=np.eye(n), random_state=rng)
    assert (tied.rank_low == 1).all() and (tied.rank_high == n).all()


def test_bootstrap_replicates_and_their_normal_match():
    # the same normal distribution given as a covariance or as draws
    score, cov = _problem(3, 6)
    draws = np.random.default_rng(1).multivariate_normal(score, cov, 4000)
    analytic = pairwise_inference(score, cov=cov, n_draws=4000,
                                  random_state=np.random.default_rng(2))
    replicated = pairwise_inference(score, samples=draws)
    np.testing.assert_allclose(replicated.se, analytic.se, rtol=0.05)
    assert abs(replicated.critical[0] - analytic.critical[0]) < 0.15


def test_leader_tiers_are_contiguous_and_follow_the_leader():
    score = np.array([5.0, 4.0, 3.9, 2.0, 1.9, 0.0])
    above = np.zeros((6, 6), dtype=bool)
    above[0, 2:] = True   # the leader is confidently above 2.. but not 1
    above[2, 5] = True
    tier = leader_tiers(score, above)
    assert tier.tolist() == [1, 1, 2, 2, 2, 3]


def test_an_agent_absent_from_every_replicate_is_never_separated():
    rng = np.random.default_rng(0)
    score = np.array([3.0, 2.0, 1.0])
    samples = score + rng.normal(0, 0.1, (200, 3))
    samples[:, 2] = np.nan
    sets = pairwise_inference(score, samples=samples)
    assert sets.rank_low.tolist() == [1, 2, 1]
    assert sets.rank_high.tolist() == [2, 3, 3]
