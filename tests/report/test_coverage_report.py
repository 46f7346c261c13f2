"""The report's built-in figures: the fallback when a Display fails.

The report draws its figures with the library's Display classes; when one
fails (or ``sklearn_eval.plotting`` cannot be imported) it must still produce
every figure with its own drawing code, and say why. Also the ``python -m``
entry point in-process.
"""

from __future__ import annotations

import runpy
import sys

import numpy as np
import pytest

from sklearn_eval.datasets import make_agent_task_scores
from sklearn_eval.report import analyze_benchmark, prepare_benchmark

plt = pytest.importorskip("matplotlib.pyplot")
from sklearn_eval.report import _figures  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def analysis():
    scores = make_agent_task_scores(12, 10, noise=0.8, random_state=1)
    scores[0, 3] = np.nan  # one missing result: the missing-data figure has data
    bench = prepare_benchmark(scores, threshold=0.5, name="small")
    return analyze_benchmark(bench, n_tasks=3, n_resamples=4, random_state=0)


@pytest.mark.parametrize("key", _figures.FIGURES)
def test_builtin_figure_draws_data(key, analysis):
    fig = _figures._BUILTIN[key](plt, analysis)
    try:
        axes = fig.get_axes()
        assert axes
        drawn = sum(
            len(ax.patches) + len(ax.lines) + len(ax.collections) + len(ax.images)
            for ax in axes
        )
        assert drawn > 0, key
        assert any(ax.get_title() for ax in axes)
        png = _figures.to_png_base64(fig)
    finally:
        plt.close("all")
    import base64

    assert base64.b64decode(png).startswith(PNG_MAGIC)


@pytest.mark.parametrize("key", sorted(_figures._DISPLAYS))
def test_failing_display_falls_back_to_the_builtin_figure(key, analysis, monkeypatch):
    def broken(plt, analysis, plotting):
        raise RuntimeError("display broke")

    monkeypatch.setitem(_figures._DISPLAYS, key, broken)
    messages = []
    fig = _figures.draw_figure(plt, key, analysis, warn=messages.append)
    try:
        assert fig.get_axes()
    finally:
        plt.close("all")
    assert len(messages) == 1
    assert (
        f"figure {key!r}: Display failed (RuntimeError: display broke)" in messages[0]
    )


def test_unimportable_plotting_is_reported(analysis, monkeypatch):
    import sklearn_eval

    monkeypatch.setitem(sys.modules, "sklearn_eval.plotting", None)
    monkeypatch.delattr(sklearn_eval, "plotting", raising=False)
    messages = []
    key = sorted(_figures._DISPLAYS)[0]
    fig = _figures.draw_figure(plt, key, analysis, warn=messages.append)
    plt.close("all")
    assert fig is not None
    assert messages and "unavailable" in messages[0]


def test_python_dash_m_in_process(monkeypatch, capsys):
    from sklearn_eval import __version__

    monkeypatch.setattr(sys, "argv", ["sklearn-eval", "--version"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_module("sklearn_eval", run_name="__main__")
    assert exit_info.value.code == 0
    assert __version__ in capsys.readouterr().out
