"""Cluster labels and cluster bootstrap counts (Cameron and Miller, 2015)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.utils._clusters import ClusterCounts, check_groups, cluster_members


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=2, max_size=8),
       n_units=st.integers(1, 5), seed=st.integers(0, 1000))
def test_a_resample_is_a_sum_of_whole_clusters(sizes, n_units, seed):
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(codes)
    row_unit = rng.integers(0, n_units, codes.shape[0])
    base = rng.integers(1, 4, codes.shape[0]).astype(float)
    draws = ClusterCounts(codes, len(sizes), row_unit, base, n_units)
    counts = draws.draw(np.random.default_rng(seed))
    times = np.bincount(np.random.default_rng(seed).integers(0, len(sizes),
                                                             len(sizes)),
                        minlength=len(sizes))
    expected = np.bincount(row_unit, weights=times[codes] * base,
                           minlength=n_units)
    np.testing.assert_allclose(counts, expected)
    members = cluster_members(codes, len(sizes))
    assert sorted(np.concatenate(members).tolist()) == list(range(codes.shape[0]))
    assert all((codes[m] == g).all() for g, m in enumerate(members))


def test_labels_of_any_type_are_coded_and_bad_ones_named():
    codes, n = check_groups(["q2", "q1", "q2", "q3"], 4, "task")
    assert n == 3 and codes.tolist() == [1, 0, 1, 2]
    with pytest.raises(ValueError, match="one label per task"):
        check_groups([1, 2], 4, "task")
    with pytest.raises(ValueError, match="missing label"):
        check_groups([1.0, np.nan, 2.0], 3, "task")
    with pytest.raises(ValueError, match="single cluster"):
        check_groups(["a"] * 3, 3, "task")
    with pytest.raises(ValueError, match="1-D"):
        check_groups(np.zeros((2, 2)), 2, "task")
