"""The report's figures are drawn once, by the plotting Display classes only.

Every Axes of every report figure belongs to a Display, and what the Displays
draw is the analysis: the model's item curves, the bootstrap intervals, the
Nash distributions.
"""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from sklearn_eval import plotting
from sklearn_eval.report import _figures


@pytest.fixture
def drawn_axes(monkeypatch):
    """Records the Axes of every Display drawn (plot patched to log them)."""
    axes = []
    for name in plotting.__all__:
        display_class = getattr(plotting, name)
        original = display_class.plot

        def plot(self, *args, _original=original, **kwargs):
            result = _original(self, *args, **kwargs)
            axes.extend(
                result.axes_.values() if hasattr(result, "axes_") else [result.ax_]
            )
            return result

        monkeypatch.setattr(display_class, "plot", plot)
    return axes


def _own_axes(figure):
    """The figure's Axes, without colour bars (drawn by their Display)."""
    return [ax for ax in figure.axes if ax.get_label() != "<colorbar>"]


@pytest.mark.parametrize("key", _figures.FIGURES)
def test_every_axes_of_every_figure_is_a_display(key, synthetic, drawn_axes):
    analysis, _ = synthetic
    figure = _figures.draw_figure(plt, key, analysis)
    try:
        own = _own_axes(figure)
        assert own and all(any(ax is d for d in drawn_axes) for ax in own), key
        drawn = sum(
            len(ax.patches) + len(ax.lines) + len(ax.collections) + len(ax.images)
            for ax in own
        )
        assert drawn > 0
    finally:
        plt.close(figure)


def test_icc_figure_draws_the_model_curves(synthetic):
    analysis, _ = synthetic
    figure = _figures.draw_figure(plt, "icc", analysis)
    model = analysis.irt.model
    try:
        most, least = _figures._extreme_items(analysis.irt)
        for ax, chosen in zip(figure.axes, (most, least), strict=True):
            curves = [line for line in ax.lines if line.get_linestyle() == "-"]
            curves = [line for line in curves if len(line.get_xdata()) > 50]
            assert len(curves) == len(chosen)
            for line, item in zip(curves, chosen, strict=True):
                theta = line.get_xdata()
                expected = model.icc(theta)[:, item]
                np.testing.assert_allclose(line.get_ydata(), expected, atol=1e-12)
    finally:
        plt.close(figure)


def test_ranking_figure_shows_the_intervals(synthetic):
    analysis, _ = synthetic
    figure = _figures.draw_figure(plt, "ranking", analysis)
    try:
        ability_ax = figure.axes[0]
        points = ability_ax.lines[0]
        order = np.argsort(-analysis.irt.ability, kind="stable")
        np.testing.assert_allclose(points.get_xdata(), analysis.irt.ability[order])
        result = analysis.intervals.ability
        segments = ability_ax.collections[0].get_segments()
        np.testing.assert_allclose(
            [s[0, 0] for s in segments], result.low[order], atol=1e-12
        )
        np.testing.assert_allclose(
            [s[1, 0] for s in segments], result.high[order], atol=1e-12
        )
        assert len(figure.axes) == 3
    finally:
        plt.close(figure)


def test_nash_figure_bars_are_the_equilibrium(synthetic):
    analysis, _ = synthetic
    figure = _figures.draw_figure(plt, "nash_distributions", analysis)
    try:
        agents, tasks = figure.axes
        # horizontal bars (names readable beside them): the length is the width
        widths = sorted(bar.get_width() for bar in agents.patches)
        np.testing.assert_allclose(
            widths, np.sort(analysis.nash.agent_probability), atol=1e-12
        )
        total = sum(bar.get_width() for bar in tasks.patches)
        assert total == pytest.approx(1.0)
    finally:
        plt.close(figure)


def test_a_failing_drawing_leaves_no_figure_open(synthetic, monkeypatch):
    analysis, _ = synthetic

    def broken(self, *args, **kwargs):
        plt.figure()
        raise RuntimeError("display broke")

    monkeypatch.setattr(plotting.HodgeDisplay, "plot", broken)
    before = plt.get_fignums()
    with pytest.raises(RuntimeError, match="display broke"):
        _figures.draw_figure(plt, "hodge", analysis)
    assert plt.get_fignums() == before
