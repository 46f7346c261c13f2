"""RankSetDisplay draws the rank sets and tiers of every ranker.

The sets are those of :func:`sklearn_eval.uncertainty.rank_sets` (Mogstad,
Romano, Shaikh and Wilhelm, "Inference for ranks", Review of Economic
Studies 2024); the display reads only the ranking protocol, so each ranker
of the library is drawn by its agent labels (user guide: "Is the ranking
settled?").
"""

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_eval.plotting import RankSetDisplay
from sklearn_eval.uncertainty import RankSets, rank_sets

from .test_displays_show_protocol_labels import (
    RANKERS,
    _binary,
    _matches,
    _scores,
    _win_rates,
    assert_shows,
    fitted,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*bin\\(s\\) hold fewer:UserWarning",
    "ignore:.*descriptive:UserWarning",
)


def _data(name):
    if name in ("elo-online", "elo-batch", "melo", "nash-ava"):
        return _matches()  # an agent-vs-agent game is resampled by its matches
    if name == "alpharank-ava":
        return (_win_rates(),)
    if name in ("irt", "generality"):
        return (_binary(),)
    return (_scores(),)


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name in RANKERS if name != "alpharank-ava"])
def test_every_ranker_is_drawn_by_its_labels_and_its_sets(name):
    estimator = clone(fitted(name))
    data = _data(name)
    display = RankSetDisplay.from_estimator(
        estimator, *data, n_resamples=40, random_state=0
    )
    expected = rank_sets(clone(estimator), *data, n_resamples=40, random_state=0)
    present = expected.rank_low >= 1
    assert_shows(display, expected.labels[present])
    # one bar per agent, spanning its rank set, best agent on the top row
    drawn = {label: (low, high) for label, low, high in zip(
        display.labels[display.order_],
        display.rank_low[display.order_], display.rank_high[display.order_],
        strict=True)}
    for label, low, high in zip(expected.labels[present], expected.rank_low[present],
                                expected.rank_high[present], strict=True):
        assert drawn[label] == (low, high)
    top = display.ax_.get_yticklabels()[0].get_text()  # ticks set top row first
    assert expected.rank[present][list(expected.labels[present]).index(top)] == 1
    # one shaded span per tier
    assert len(display.spans_) == len(set(expected.tier[present]))


def test_a_ranker_without_a_resampling_unit_says_so():
    """alpha-Rank on a win-rate matrix has no data to resample (see its docs)."""
    with pytest.raises(ValueError, match="no resampling unit"):
        RankSetDisplay.from_estimator(
            clone(fitted("alpharank-ava")), *_data("alpharank-ava"), n_resamples=10
        )


def _league(n, seed=0):
    """Rank sets of ``n`` agents in tiers of about five, as rank_sets returns."""
    rng = np.random.default_rng(seed)
    rank = np.arange(1, n + 1)
    tier = 1 + (rank - 1) // 5
    low = np.maximum(1, rank - rng.integers(0, 6, n))
    high = np.minimum(n, rank + rng.integers(0, 6, n))
    labels = np.array([f"provider-{k % 7}/model-{k}-instruct" for k in range(n)],
                      dtype=object)
    return RankSets(labels, -rank.astype(float), rank, low, high, tier,
                    confidence_level=0.95, simultaneous=True,
                    method="sandwich")


@pytest.mark.parametrize("n", [30, 80, 130])
def test_labels_do_not_overlap_for_large_leagues(n):
    display = RankSetDisplay.from_result(_league(n))
    figure = display.figure_
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    shown = [t for t in display.ax_.get_yticklabels() if t.get_visible()]
    assert len(shown) >= min(n, 60)  # thinned only when they cannot all fit
    boxes = sorted((t.get_window_extent(renderer) for t in shown),
                   key=lambda box: box.y0)
    for below, above in zip(boxes[:-1], boxes[1:], strict=True):
        assert below.y1 <= above.y0 + 0.5
    assert min(t.get_fontsize() for t in shown) >= 4.0
    assert len(display.spans_) == len(set(_league(n).tier))


def test_tiers_are_shaded_and_numbered_in_order():
    result = _league(12)
    display = RankSetDisplay.from_result(result)
    assert [t.get_text() for t in display.texts_] == ["tier 1", "tier 2", "tier 3"]
    # the bars are the rank sets, best agent on the top row
    segments = display.bars_.get_segments()
    assert segments[0][0][0] == result.rank_low[0]
    assert segments[0][1][0] == result.rank_high[0]
    assert segments[0][0][1] == len(result.labels) - 1
    assert display.ax_.get_title().startswith("Simultaneous rank sets and tiers (95%)")


def test_bad_sets_are_rejected_by_name():
    with pytest.raises(ValueError, match="agent 'b' has 3 <= 2 <= 2"):
        RankSetDisplay(["a", "b"], [1, 2], [1, 3], [2, 2], [1, 1]).plot()
    with pytest.raises(TypeError, match="needs a RankSets"):
        RankSetDisplay.from_result(object())
    with pytest.raises(ValueError, match="max_agents"):
        RankSetDisplay.from_result(_league(5), max_agents=0)
