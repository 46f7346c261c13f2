"""RatingTableDisplay checks both of its interval pairs the same way.

``low > high`` was refused but ``rank_low > rank_high`` was drawn as an
inverted rank range; the messages showed numpy reprs ("np.float64(nan)").
"""

import re

import matplotlib
import numpy as np
import pytest

from sklearn_eval.plotting import RatingTableDisplay

matplotlib.use("Agg")

LABELS = ["a", "b", "c"]


@pytest.mark.parametrize("pair", [("low", "high"), ("rank_low", "rank_high")])
@pytest.mark.parametrize("build", ["from_data", "plot"])
def test_a_reversed_bound_pair_is_refused(pair, build):
    bounds = {pair[0]: [1.0, 3.0, 3.0], pair[1]: [1.0, 2.0, 3.0]}
    other = ("rank_low", "rank_high") if pair[0] == "low" else ("low", "high")
    bounds.update({other[0]: [0.5, 1.5, 2.5], other[1]: [1.5, 2.5, 3.5]})
    if "rank_low" in pair:
        bounds.update(low=[0.5, 1.5, 2.5], high=[1.5, 2.5, 3.5])
    message = re.escape(f"{pair[0]} must not exceed {pair[1]}; item 'b' has "
                        f"{pair[0]} 3.0 > {pair[1]} 2.0.")
    with pytest.raises(ValueError, match=message):
        if build == "from_data":
            RatingTableDisplay.from_data(LABELS, [1.0, 2.0, 3.0], **bounds)
        else:
            RatingTableDisplay(LABELS, [1.0, 2.0, 3.0], **bounds).plot()


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_a_non_finite_estimate_is_shown_as_a_number(value):
    with pytest.raises(ValueError) as info:
        RatingTableDisplay.from_data(LABELS, [1.0, value, 3.0])
    assert f"non-finite value {value!r} at index 1" in str(info.value)
    assert "np.float64" not in str(info.value)
