"""Thresholds compare with a tolerance: rounding never decides success."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.utils import baseline_normalize, binarize_scores


@settings(max_examples=60, deadline=None)
@given(threshold=st.floats(-1e6, 1e6, allow_nan=False),
       ulps=st.integers(-4, 4))
def test_scores_a_few_ulps_from_the_threshold_count_as_equal(threshold, ulps):
    score = threshold
    step = np.inf if ulps > 0 else -np.inf
    for _ in range(abs(ulps)):
        score = np.nextafter(score, step)
    assert binarize_scores([[score]], threshold).item() == 1.0
    assert binarize_scores([[score]], threshold, inclusive=False).item() == 0.0


@settings(max_examples=60, deadline=None)
@given(threshold=st.floats(-1e6, 1e6, allow_nan=False),
       gap=st.floats(1e-6, 1e6))
def test_scores_clearly_apart_are_decided_by_the_side(threshold, gap):
    margin = gap * max(1.0, abs(threshold))
    above = binarize_scores([[threshold + margin]], threshold).item()
    below = binarize_scores([[threshold - margin]], threshold).item()
    assert (above, below) == (1.0, 0.0)


def test_human_normalised_score_equal_to_human_is_a_success():
    # up_n_down in the Atari data: the human score normalises to 99.99999999999999
    raw = np.array([[11693.2]])
    normalised = baseline_normalize(raw, low=533.4, high=11693.2)
    assert binarize_scores(normalised, 100.0).item() == 1.0


def test_exact_comparison_is_available():
    assert binarize_scores([[99.99999999999999]], 100.0, rtol=0.0).item() == 0.0
    with pytest.raises(ValueError, match="rtol"):
        binarize_scores([[1.0]], 1.0, rtol=-1.0)
