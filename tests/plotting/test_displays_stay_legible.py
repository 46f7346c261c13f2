"""Displays stay legible for 30-130 agents (user guide, plotting).

The names of a Nash figure never overlap, whatever their number and the space
the figure is given (the report draws on a page-wide figure): they get the
largest type that fits, and below 4 points only every k-th name is shown. An
item curve figure draws each item's observed responses as a rug row of its
own, fainter the more agents there are, instead of one jittered band.
"""

from functools import cache

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.game import NashAverager
from sklearn_eval.irt import IRT2PL
from sklearn_eval.plotting import ItemCurveDisplay, NashDisplay


@cache
def _league(n):
    skill = np.random.default_rng(n).normal(size=n)
    P = 1 / (1 + np.exp(-(skill[:, None] - skill[None, :])))
    names = [f"Team {k:03d} Athletic" for k in range(n)]
    frame = pd.DataFrame(P, index=names, columns=names)
    return NashAverager(game="agent_vs_agent", payoff="probability").fit(frame)


def _overlaps(ax, axis):
    """Pairs of neighbouring visible tick labels whose boxes overlap."""
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    texts = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    shown = [t for t in texts if t.get_text() and t.get_visible()]
    boxes = [t.get_window_extent(renderer) for t in shown]
    low = np.array([b.x0 if axis == "x" else b.y0 for b in boxes])
    high = np.array([b.x1 if axis == "x" else b.y1 for b in boxes])
    order = np.argsort(low)
    return int(np.sum(low[order][1:] < high[order][:-1] - 0.5)), shown


@pytest.mark.parametrize(
    "n", [29, pytest.param(60, marks=pytest.mark.slow),
          pytest.param(130, marks=pytest.mark.slow)]
)
@pytest.mark.parametrize("orientation", ["vertical", "horizontal"])
@pytest.mark.parametrize("figsize", [None, (10.8, 4.0)])
def test_nash_names_never_overlap(n, orientation, figsize):
    ax = None
    if figsize is not None:
        _, axes = plt.subplots(1, 2, figsize=figsize, layout="constrained")
        ax = list(axes)
    display = NashDisplay.from_estimator(_league(n), orientation=orientation, ax=ax)
    axis = "x" if orientation == "vertical" else "y"
    for panel in display.axes_.values():
        overlapping, shown = _overlaps(panel, axis)
        assert overlapping == 0
        assert all(t.get_fontsize() >= 4.0 for t in shown)
        # at least a quarter of the names even on the smallest page
        assert len(shown) >= n / 4


def test_all_29_names_are_shown_on_a_figure_of_its_own():
    display = NashDisplay.from_estimator(_league(29), orientation="horizontal")
    for panel in display.axes_.values():
        _, shown = _overlaps(panel, "y")
        assert len(shown) == 29


@pytest.mark.parametrize("n_agents", [30, 130])
def test_item_responses_are_one_rug_row_per_item(n_agents):
    X = make_irt_responses(n_agents, 8, random_state=0)
    model = IRT2PL(random_state=0).fit(X)
    display = ItemCurveDisplay.from_estimator(
        model, X, items=[0, 1, 2], show_responses=True, n_points=41
    )
    rows = []
    for k, ticks in enumerate(display.response_lines_):
        levels = np.unique(np.round(ticks.get_ydata(), 9))
        assert len(levels) <= 2  # one row of successes, one of failures
        assert np.all((levels > 1.0) | (levels < 0.0))
        n_high = int(np.sum(ticks.get_ydata() > 1.0))
        assert n_high == int(np.nansum(X[:, k]))
        rows.append(set(levels.tolist()))
    assert not (rows[0] & rows[1]) and not (rows[1] & rows[2])
    low, high = display.ax_.get_ylim()
    for ticks in display.response_lines_:
        assert low < ticks.get_ydata().min() and ticks.get_ydata().max() < high


def test_rugs_fade_with_more_agents():
    alphas = []
    for n_agents in (30, 130):
        X = make_irt_responses(n_agents, 8, random_state=0)
        model = IRT2PL(random_state=0).fit(X)
        display = ItemCurveDisplay.from_estimator(
            model, X, items=[0], show_responses=True, n_points=41
        )
        alphas.append(display.response_lines_[0].get_alpha())
    assert alphas[1] < alphas[0]
