"""Figures of the benchmark report, drawn by the library's Display classes.

Each figure of :data:`FIGURES` is drawn by one function here from the
analysis of :func:`~sklearn_eval.report.analyze_benchmark`, using only the
:mod:`sklearn_eval.plotting` displays (their ``from_*`` constructors, or the
constructor and ``plot`` for values the analysis already computed): the
report has no drawing code of its own. :func:`draw_figure` raises whatever
goes wrong; the page shows it as an error box in the figure's place.
:func:`to_png_base64` encodes a figure for embedding in HTML;
:func:`import_pyplot` gives pyplot on the off-screen Agg backend.
"""

from __future__ import annotations

import base64
import io
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

__all__ = [
    "BENCHMARK_DRAWERS",
    "FIGURES",
    "LAYOUT",
    "PAGE_INCHES",
    "draw_figure",
    "import_pyplot",
    "to_png_base64",
]

_MAX_BARS = 40
# figures are drawn at most the page's width (1100 CSS px at 100 dpi), so the
# browser never shrinks them and their text keeps its point size
_DPI = 100
PAGE_INCHES = 10.8
#: the report's own figures are drawn without a layout engine and laid out
#: once, when encoded (:func:`to_png_base64`): constrained layout measured
#: every label twice per pass, and again in each Display that settles its
#: layout to fit its labels
LAYOUT = None
# margin (in font sizes) around the laid-out Axes
_PAD = 0.5


class MissingAnalysis(RuntimeError):
    """A figure or section needs the analysis ``step``, which failed."""

    def __init__(self, step, message):
        super().__init__(message)
        self.step = step


def import_pyplot():
    """matplotlib.pyplot on the Agg backend (the report draws off screen)."""
    if matplotlib.get_backend().lower() != "agg":
        matplotlib.use("Agg", force=True)
    return plt


def to_png_base64(fig):
    """Encode a figure as base64 PNG text and close it."""
    buffer = io.BytesIO()
    try:
        # drawn once, at the size shown (the page is PAGE_INCHES wide at
        # _DPI): a figure with a layout engine (a Display's own figure) is
        # laid out once here and the engine switched off; the report's own
        # figures (no engine) get margins from one measuring pass. The Agg
        # canvas renders without savefig's extra layout draw; a tight
        # bounding box would redraw it
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig.set_dpi(_DPI)
        engine = fig.get_layout_engine()
        if engine is not None:
            engine.execute(fig)
            fig.set_layout_engine("none")
        else:
            with warnings.catch_warnings():
                # an Axes the tight layout cannot place keeps its position
                warnings.simplefilter("ignore", UserWarning)
                fig.tight_layout(pad=_PAD)
        canvas = fig.canvas
        if not isinstance(canvas, FigureCanvasAgg):
            canvas = FigureCanvasAgg(fig)
        canvas.print_png(buffer)
    finally:
        plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def needs(analysis, *names):
    """The analyses ``names`` of ``analysis``; MissingAnalysis if one failed."""
    from ._analysis import STEPS

    titles = analysis.get("step_names", STEPS)
    failures = analysis.get("failures", {})
    parts = []
    for name in names:
        part = analysis[name]
        if part is None:
            reason = failures.get(name, "it was not run")
            raise MissingAnalysis(name, f"the {titles[name]} failed: {reason}")
        parts.append(part)
    return parts[0] if len(parts) == 1 else parts


def short_labels(labels, width=28):
    """Labels cut to ``width`` characters (an ellipsis marks the cut)."""
    return [
        str(s) if len(str(s)) <= width else str(s)[: width - 1] + "…" for s in labels
    ]


def _missing(plotting, plt, analysis):
    """Observed and missing results, with the complete block outlined."""
    bench, block = analysis.benchmark, analysis.block
    masks = {}
    if block is not None:
        masks = {"agent_mask": block.agent_mask, "task_mask": block.task_mask}
    display = plotting.MissingResultsDisplay(
        ~np.isnan(bench.scores),
        agent_names=short_labels(bench.agents, 24),
        task_names=short_labels(bench.tasks, 18),
        **masks,
    )
    return display.plot().figure_


def _ranking(plotting, plt, analysis):
    """Estimates and bootstrap intervals of the three rankings, one panel each."""
    bench, block, nash = analysis.benchmark, analysis.block, analysis.nash
    irt = needs(analysis, "irt")
    panels = [
        (
            "IRT ability",
            "IRT ability (all agents)",
            irt.ability,
            bench.agents,
            "ability",
        )
    ]
    if block is not None:
        uniform = block.scaled.mean(axis=1)
        panels.append(
            (
                "uniform average (min-max)",
                "Uniform average (complete block)",
                uniform,
                block.agents,
                "uniform",
            )
        )
    if nash is not None:
        panels.append(
            (
                "Nash average (min-max)",
                "Nash average (complete block)",
                nash.agent_nash,
                block.agents,
                "nash",
            )
        )
    intervals = analysis.intervals or {}
    n = min(len(bench.agents), _MAX_BARS)
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(PAGE_INCHES * len(panels) / 3, 0.2 * n + 1.4),
        squeeze=False,
        layout=LAYOUT,
    )
    for ax, (xlabel, title, estimate, labels, key) in zip(
        axes[0], panels, strict=True
    ):
        result = intervals.get(key)
        bounds = {}
        if result is not None:
            bounds = dict(
                low=result.low,
                high=result.high,
                rank_low=result.rank_low,
                rank_high=result.rank_high,
            )
        plotting.RatingTableDisplay.from_data(
            short_labels(labels, 24),
            estimate,
            xlabel=xlabel,
            ax=ax,
            max_items=_MAX_BARS,
            **bounds,
        )
        shown = min(len(labels), _MAX_BARS)
        if shown < len(labels):
            title += f" (best {shown} of {len(labels)})"
        ax.set_title(title, fontsize=9)
    levels = {
        intervals[key].confidence_level
        for *_, key in panels
        if intervals.get(key) is not None
    }
    if len(levels) == 1:
        # said once: repeated in three narrow panel titles it ran off the page
        fig.suptitle(f"Rankings with {levels.pop():.0%} intervals", fontsize=10)
    return fig


def _nash_display(plotting, plt, analysis, panels):
    nash, block = needs(analysis, "nash", "block")
    n = min(max(len(block.agents), len(block.tasks)), _MAX_BARS)
    fig, axes = plt.subplots(
        1, 2, figsize=(PAGE_INCHES, 0.19 * n + 1.3), layout=LAYOUT
    )
    display = plotting.NashDisplay.from_estimator(
        nash.model,
        agent_names=short_labels(block.agents, 36),
        task_names=short_labels(block.tasks, 24),
        panels=panels,
        max_items=_MAX_BARS,
        orientation="horizontal",
        ax=axes,
    )
    return display.figure_


def _nash_distributions(plotting, plt, analysis):
    """Figure 1 of Balduzzi et al.: the Nash distributions over agents and tasks."""
    return _nash_display(
        plotting, plt, analysis, ["agent_distribution", "task_distribution"]
    )


def _nash_vs_uniform(plotting, plt, analysis):
    """Figure 2 of Balduzzi et al.: uniform against Nash averages."""
    return _nash_display(plotting, plt, analysis, ["agent_average", "task_average"])


def _hodge(plotting, plt, analysis):
    """Transitive and cyclic shares of the agent-vs-task game."""
    hodge = needs(analysis, "hodge")
    display = plotting.HodgeDisplay(
        hodge.transitive,
        hodge.cyclic,
        plane_shares=hodge.plane_shares[None, :],
        game_names=["agents vs tasks"],
    )
    # the display's own size (one game), on the report's figure
    fig, ax = plt.subplots(figsize=(8.5, 2.05), layout=LAYOUT)
    return display.plot(ax=ax).figure_


# the curves drawn together must be told apart: their difficulties (where
# each curve crosses 0.5) at least this far apart on the ability scale
_MIN_DIFFICULTY_GAP = 0.5


def _spread_pick(order, difficulty, n=3, gap=_MIN_DIFFICULTY_GAP, exclude=()):
    """The first ``n`` items of ``order`` whose difficulties are ``gap`` apart.

    Items too close to an earlier pick are skipped (three near-identical
    curves show one); when fewer than ``n`` qualify the closest others are
    taken in order.
    """
    order = [k for k in order if k not in set(exclude)]
    chosen = []
    for k in order:
        if all(abs(difficulty[k] - difficulty[j]) >= gap for j in chosen):
            chosen.append(k)
        if len(chosen) == n:
            break
    for k in order:
        if len(chosen) == n:
            break
        if k not in chosen:
            chosen.append(k)
    return np.array(chosen, dtype=int)


def _extreme_items(irt):
    """Up to 3 most and (other) 3 least discriminating estimated items.

    Each trio is the most (least) discriminating tasks whose difficulties
    are at least half an ability unit apart, so their curves can be told
    apart.
    """
    estimated = np.flatnonzero(
        np.isfinite(irt.discrimination) & np.isfinite(irt.difficulty)
    )
    order = estimated[np.argsort(-irt.discrimination[estimated], kind="stable")]
    most = _spread_pick(order, irt.difficulty)
    least = _spread_pick(order[::-1], irt.difficulty, exclude=most)
    return most, least


def _icc(plotting, plt, analysis):
    """Item characteristic curves of the most and least discriminating tasks.

    The dots (empirical success rates) need the generality scorer; without it
    the model curves are drawn alone.
    """
    irt = needs(analysis, "irt")
    bench, generality = analysis.benchmark, analysis.generality
    most, least = _extreme_items(irt)
    panels = [(most, "most discriminating tasks")]
    if least.size:
        panels.append((least, "least discriminating tasks"))
    theta_range = (min(-3.0, irt.ability.min()), max(3.0, irt.ability.max()))
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(PAGE_INCHES * len(panels) / 2, 3.8),
        sharey=True,
        squeeze=False,
        layout=LAYOUT,
    )
    for ax, (chosen, title) in zip(axes[0], panels, strict=True):
        plotting.ItemCurveDisplay.from_estimator(
            irt.model,
            bench.responses,
            items=chosen,
            theta_range=theta_range,
            scorer=None if generality is None else generality.model,
            abilities=irt.ability,
            item_names=short_labels(bench.tasks, 22),
            ax=ax,
        )
        ax.set_title(title)
    return fig


def _curve_agents(ability, n=6):
    """About ``n`` agents evenly spread over the ability ranking, best first."""
    order = np.argsort(-ability, kind="stable")
    picks = np.unique(np.linspace(0, len(order) - 1, min(n, len(order))).round())
    return order[picks.astype(int)]


def _acc(plotting, plt, analysis):
    """Agent characteristic curves (success rate per difficulty bin)."""
    irt, generality = needs(analysis, "irt", "generality")
    display = plotting.AgentCurveDisplay.from_estimator(
        generality.model,
        analysis.benchmark.responses,
        agents=_curve_agents(irt.ability),
        agent_names=short_labels(analysis.benchmark.agents),
        ribbon=False,
    )
    return display.figure_


# names in the ability-generality scatter: beyond this many, the middle of
# the cloud is a blot of overlapping names (every agent is in the table)
_MAX_SCATTER_LABELS = 16


def _ability_generality(plotting, plt, analysis):
    """Ability against generality (infinite generality drawn at the top)."""
    irt, generality = needs(analysis, "irt", "generality")
    display = plotting.AbilityGeneralityDisplay.from_data(
        irt.ability,
        generality.table["generality"],
        agent_names=short_labels(analysis.benchmark.agents, 20),
        xlabel="ability (IRT)",
        max_labels=_MAX_SCATTER_LABELS,
    )
    return display.figure_


def _information_gain(plotting, plt, analysis):
    """Cumulative information gain along the greedy selection order."""
    selection, block = needs(analysis, "selection", "block")
    # the selector saw the candidate tasks only (flagged ones left out)
    tasks = block.tasks[selection.get("candidates", slice(None))]
    display = plotting.InfoGainDisplay.from_estimator(
        selection.model, task_names=short_labels(tasks, 20)
    )
    return display.figure_


BENCHMARK_DRAWERS = {
    "missing": _missing,
    "ranking": _ranking,
    "nash_distributions": _nash_distributions,
    "nash_vs_uniform": _nash_vs_uniform,
    "hodge": _hodge,
    "icc": _icc,
    "acc": _acc,
    "ability_generality": _ability_generality,
    "information_gain": _information_gain,
}

FIGURES = tuple(BENCHMARK_DRAWERS)


def draw_figure(plt, key, analysis, drawers=None):
    """Draw the report figure ``key`` with the Display classes; return the Figure.

    ``drawers`` maps figure keys to drawing functions (the benchmark
    report's when None). Raises whatever the drawing raises
    (MissingAnalysis when the figure needs an analysis that failed); figures
    opened by a failed drawing are closed first.
    """
    from .. import plotting

    drawers = BENCHMARK_DRAWERS if drawers is None else drawers
    opened = set(plt.get_fignums())
    try:
        return drawers[key](plotting, plt, analysis)
    except BaseException:
        for number in set(plt.get_fignums()) - opened:
            plt.close(number)
        raise
