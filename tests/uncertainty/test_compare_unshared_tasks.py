"""compare_agents("mean") warns when the compared agents' means are over
different tasks (missing results): the difference then also reflects the
tasks each lacks."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.uncertainty import compare_agents


def _messages(X, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_agents("mean", X, n_resamples=50, random_state=0, **kwargs)
    return [str(w.message) for w in caught if "different tasks" in str(w.message)]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), holes=st.integers(0, 6))
def test_warns_exactly_when_a_compared_pair_differs_in_its_tasks(seed, holes):
    rng = np.random.default_rng(seed)
    X = (rng.random((4, 25)) < rng.uniform(0.2, 0.9, (4, 1))).astype(float)
    rows, cols = rng.integers(0, 4, holes), rng.integers(0, 25, holes)
    X[rows, cols] = np.nan
    frame = pd.DataFrame(X, index=["a", "b", "c", "d"])
    observed = ~np.isnan(X)
    differ = any(np.any(observed[i] ^ observed[j])
                 for i in range(4) for j in range(i + 1, 4))
    messages = _messages(frame, pairs="all")
    assert bool(messages) == differ
    if differ:
        assert len(messages) == 1 and "shared" in messages[0]


def test_the_message_names_the_pair_and_its_counts():
    X = np.ones((3, 10))
    X[1] = 0.0
    X[0, 4:] = np.nan
    frame = pd.DataFrame(X, index=["one", "two", "three"])
    (message,) = _messages(frame, pairs=[("one", "two")])
    assert "'one' on 4 tasks and 'two' on 10, 4 shared" in message
    # a pair that shares every task says nothing
    assert not _messages(frame, pairs=[("two", "three")])


@pytest.mark.parametrize("pairs", ["adjacent", "all"])
def test_complete_matrices_never_warn(pairs):
    X = np.random.default_rng(0).random((5, 12))
    assert not _messages(X, pairs=pairs)


@pytest.mark.parametrize("index", [pd.RangeIndex(10, 14), pd.Index([10, 11, 12, 13])])
def test_agents_are_found_by_their_labels_whatever_the_index(index):
    """A DataFrame cut from a larger one keeps a RangeIndex from 10."""
    nan = np.nan
    values = [[1, 0, 1, 0], [0, 1, 1, 0], [1, nan, nan, nan], [0, 1, 0, 1]]
    (message,) = _messages(pd.DataFrame(values, index=index), pairs="all")
    assert "12 on 1 tasks" in message
