"""Figures of the benchmark report, rendered to base64 PNG (matplotlib, Agg).

Each ``figure_*`` function takes the analysis from
:func:`~sklearn_eval.report.analyze_benchmark` and returns a
matplotlib Figure; :func:`to_png_base64` encodes one for embedding in HTML.
matplotlib is an optional dependency: :func:`import_pyplot` returns None
when it is missing, and the report is then written without figures.
"""

from __future__ import annotations

import base64
import io

import numpy as np

__all__ = ["FIGURES", "draw_figure", "import_pyplot", "to_png_base64"]

_MAX_BARS = 40
_DPI = 90


def import_pyplot():
    """matplotlib.pyplot on the Agg backend, or None when not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    if matplotlib.get_backend().lower() != "agg":
        matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def to_png_base64(fig):
    """Encode a figure as base64 PNG text and close it."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _short(labels, width=28):
    return [
        str(s) if len(str(s)) <= width else str(s)[: width - 1] + "…" for s in labels
    ]


def _barh(ax, labels, values, color, title, xlabel):
    positions = np.arange(len(values))
    ax.barh(positions, values, color=color)
    ax.set_yticks(positions, _short(labels))
    ax.invert_yaxis()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.tick_params(axis="y", labelsize=8)


def figure_missing(plt, analysis):
    """Observed and missing results, with the complete block outlined."""
    bench, block = analysis.benchmark, analysis.block
    observed = ~np.isnan(bench.scores)
    rows = np.concatenate(
        [np.flatnonzero(block.agent_mask), np.flatnonzero(~block.agent_mask)]
    )
    cols = np.concatenate(
        [np.flatnonzero(block.task_mask), np.flatnonzero(~block.task_mask)]
    )
    n_agents, n_tasks = observed.shape
    fig, ax = plt.subplots(
        figsize=(min(11, 2 + 0.12 * n_tasks), min(8, 1.5 + 0.12 * n_agents)),
        layout="constrained",
    )
    cmap = plt.get_cmap("Greys", 2)
    ax.imshow(
        observed[np.ix_(rows, cols)],
        aspect="auto",
        cmap=cmap,
        vmin=0,
        vmax=1,
        interpolation="nearest",
    )
    m, n = int(block.agent_mask.sum()), int(block.task_mask.sum())
    ax.add_patch(
        plt.Rectangle(
            (-0.5, -0.5),
            n,
            m,
            fill=False,
            edgecolor="tab:red",
            linewidth=2,
            label="complete block",
        )
    )
    ax.set_xlabel(f"tasks ({n_tasks}; complete block first)")
    ax.set_ylabel(f"agents ({n_agents})")
    ax.set_title("observed (dark) and missing (light) results")
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    return fig


def figure_nash_distributions(plt, analysis):
    """Figure 1 style: the Nash distributions over agents and tasks (supports)."""
    nash, block = analysis.nash, analysis.block
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    for ax, probability, labels, title, color in (
        (axes[0], nash.agent_probability, block.agents, "agents", "tab:blue"),
        (axes[1], nash.task_probability, block.tasks, "tasks", "tab:red"),
    ):
        order = np.argsort(-probability, kind="stable")
        order = order[probability[order] > 0][:_MAX_BARS]
        _barh(
            ax,
            labels[order],
            probability[order],
            color,
            f"Nash distribution over {title} (core {title})",
            "probability",
        )
    return fig


def _paired_bars(ax, labels, uniform, nash, title, xlabel):
    positions = np.arange(len(labels))
    ax.barh(positions - 0.2, uniform, height=0.4, color="0.65", label="uniform average")
    ax.barh(positions + 0.2, nash, height=0.4, color="tab:purple", label="Nash average")
    ax.set_yticks(positions, _short(labels))
    ax.invert_yaxis()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(loc="best", fontsize=8)


def figure_nash_vs_uniform(plt, analysis):
    """Figure 2 style: uniform against Nash averages, for agents and tasks."""
    nash, block = analysis.nash, analysis.block
    a_order = np.argsort(-nash.agent_nash, kind="stable")[:_MAX_BARS]
    t_order = np.argsort(-nash.task_nash, kind="stable")[:_MAX_BARS]
    height = 0.22 * max(len(a_order), len(t_order)) + 1.5
    fig, axes = plt.subplots(1, 2, figsize=(10, height), layout="constrained")
    _paired_bars(
        axes[0],
        block.agents[a_order],
        nash.agent_uniform[a_order],
        nash.agent_nash[a_order],
        "agent skill",
        "average min-max score",
    )
    _paired_bars(
        axes[1],
        block.tasks[t_order],
        nash.task_uniform[t_order],
        nash.task_nash[t_order],
        "task difficulty",
        "minus average score",
    )
    return fig


def figure_ranking(plt, analysis):
    """Estimates and bootstrap intervals of the three rankings (by ability)."""
    bench, block, intervals = analysis.benchmark, analysis.block, analysis.intervals
    ability = analysis.irt.ability
    order = np.argsort(-ability, kind="stable")[:_MAX_BARS]
    block_index = np.full(len(ability), -1)
    block_index[block.agent_mask] = np.arange(block.agent_mask.sum())
    panels = (
        ("IRT ability", ability, "ability", np.arange(len(ability))),
        ("uniform average", analysis.nash.agent_uniform, "uniform", block_index),
        ("Nash average", analysis.nash.agent_nash, "nash", block_index),
    )
    fig, axes = plt.subplots(
        1, 3, figsize=(11, 0.22 * len(order) + 1.5), sharey=True, layout="constrained"
    )
    positions = np.arange(len(order))
    for ax, (title, estimate, key, index) in zip(axes, panels, strict=True):
        rows = index[order]
        valid = rows >= 0
        if intervals is not None:
            result = intervals[key]
            ax.hlines(
                positions[valid],
                result.low[rows[valid]],
                result.high[rows[valid]],
                color="0.55",
                label="95% interval",
            )
        ax.plot(
            estimate[rows[valid]],
            positions[valid],
            "o",
            color="tab:blue",
            markersize=4,
            label="estimate",
        )
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(positions, _short(bench.agents[order]))
    axes[0].invert_yaxis()
    axes[0].tick_params(axis="y", labelsize=7)
    axes[0].legend(fontsize=7, loc="lower right")
    return fig


def figure_hodge(plt, analysis):
    """Transitive and cyclic shares of the agent-vs-task game (stacked bar)."""
    hodge = analysis.hodge
    fig, ax = plt.subplots(figsize=(6, 1.8), layout="constrained")
    ax.barh(
        ["agents vs tasks"], [hodge.transitive], color="tab:green", label="transitive"
    )
    ax.barh(
        ["agents vs tasks"],
        [hodge.cyclic],
        left=[hodge.transitive],
        color="tab:orange",
        label="cyclic",
    )
    ax.text(
        hodge.transitive / 2, 0, f"{hodge.transitive:.0%}", ha="center", va="center"
    )
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the squared norm of the game")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.45), ncol=2, fontsize=8)
    ax.set_title("Hodge decomposition")
    return fig


def _extreme_items(irt):
    estimated = np.flatnonzero(np.isfinite(irt.discrimination))
    order = estimated[np.argsort(-irt.discrimination[estimated], kind="stable")]
    most = order[:3]
    least = order[::-1][:3]
    return most, np.array([k for k in least if k not in set(most)], dtype=int)


def figure_icc(plt, analysis):
    """Item characteristic curves of the most and least discriminating tasks."""
    irt, bench = analysis.irt, analysis.benchmark
    items = analysis.generality.item_curves
    most, least = _extreme_items(irt)
    theta = np.linspace(min(-3.0, irt.ability.min()), max(3.0, irt.ability.max()), 200)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True, layout="constrained")
    for ax, chosen, title in (
        (axes[0], most, "most discriminating tasks"),
        (axes[1], least, "least discriminating tasks"),
    ):
        for k, item in enumerate(chosen):
            a, b = irt.discrimination[item], irt.difficulty[item]
            color = f"C{k}"
            ax.plot(
                theta,
                1 / (1 + np.exp(-a * (theta - b))),
                color=color,
                label=f"{_short([bench.tasks[item]], 22)[0]} (a={a:.2f}, b={b:.2f})",
            )
            ax.plot(
                items.ability_medians,
                items.success_rate[item],
                "o",
                color=color,
                markersize=4,
            )
        ax.set_title(title)
        ax.set_xlabel("agent ability")
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("P(success)")
    return fig


def _curve_agents(ability, n=6):
    order = np.argsort(-ability, kind="stable")
    picks = np.unique(np.linspace(0, len(order) - 1, min(n, len(order))).round())
    return order[picks.astype(int)]


def figure_acc(plt, analysis):
    """Agent characteristic curves (success rate per difficulty bin)."""
    gen, bench = analysis.generality, analysis.benchmark
    chosen = _curve_agents(analysis.irt.ability)
    fig, ax = plt.subplots(figsize=(6.5, 3.6), layout="constrained")
    for k, agent in enumerate(chosen):
        ax.plot(
            gen.bin_points,
            gen.curves[agent],
            "o-",
            color=f"C{k}",
            label=_short([bench.agents[agent]], 26)[0],
            markersize=4,
        )
    ax.set_xlabel("task difficulty (IRT, bin median)")
    ax.set_ylabel("success rate in bin")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("agent characteristic curves")
    ax.legend(fontsize=7, loc="lower left")
    return fig


def figure_ability_generality(plt, analysis):
    """Ability against generality (infinite generality drawn at the top)."""
    ability = analysis.irt.ability
    generality = analysis.generality.table["generality"]
    finite = np.isfinite(generality)
    top = 1.15 * np.max(generality[finite]) if finite.any() else 1.0
    fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
    ax.scatter(ability[finite], generality[finite], color="tab:blue", label="agents")
    if (~finite).any():
        ax.scatter(
            ability[~finite],
            np.full((~finite).sum(), top),
            marker="^",
            color="tab:red",
            label="infinite generality",
        )
    labels = analysis.benchmark.agents
    for k in np.argsort(-ability, kind="stable")[:3]:
        y = generality[k] if finite[k] else top
        ax.annotate(
            _short([labels[k]], 20)[0],
            (ability[k], y),
            fontsize=7,
            xytext=(3, 3),
            textcoords="offset points",
        )
    ax.set_xlabel("ability (IRT)")
    ax.set_ylabel("generality")
    ax.set_title("ability vs generality")
    ax.legend(fontsize=8)
    return fig


def figure_information_gain(plt, analysis):
    """Cumulative information gain along the greedy selection order."""
    selection, block = analysis.selection, analysis.block
    steps = np.arange(1, len(selection.order) + 1)
    fig, ax = plt.subplots(figsize=(6.5, 3.6), layout="constrained")
    ax.plot(
        steps,
        selection.cumulative_gain,
        "o-",
        color="tab:blue",
        label="selected subset",
    )
    ax.axhline(
        selection.max_information,
        color="0.4",
        linestyle="--",
        label="log2(number of agents)",
    )
    ax.set_xticks(
        steps,
        _short(block.tasks[selection.order], 16),
        rotation=60,
        ha="right",
        fontsize=7,
    )
    ax.set_ylabel("information gain (bits)")
    ax.set_title("information gain along the selection order")
    ax.legend(fontsize=8, loc="lower right")
    return fig


_BUILTIN = {
    "missing": figure_missing,
    "ranking": figure_ranking,
    "nash_distributions": figure_nash_distributions,
    "nash_vs_uniform": figure_nash_vs_uniform,
    "hodge": figure_hodge,
    "icc": figure_icc,
    "acc": figure_acc,
    "ability_generality": figure_ability_generality,
    "information_gain": figure_information_gain,
}


# ---------------------------------------------------------------------------
# The same figures drawn by the library's Display classes (when they import)
# ---------------------------------------------------------------------------
def _display_ranking(plt, analysis, plotting):
    bench, block, intervals = analysis.benchmark, analysis.block, analysis.intervals
    panels = (
        ("IRT ability", analysis.irt.ability, bench.agents, "ability"),
        (
            "uniform average (min-max)",
            analysis.nash.agent_uniform,
            block.agents,
            "uniform",
        ),
        ("Nash average (min-max)", analysis.nash.agent_nash, block.agents, "nash"),
    )
    n = min(len(bench.agents), _MAX_BARS)
    fig, axes = plt.subplots(1, 3, figsize=(14, 0.24 * n + 1.8), layout="constrained")
    for ax, (xlabel, estimate, labels, key) in zip(axes, panels, strict=True):
        bounds = {}
        if intervals is not None:
            result = intervals[key]
            bounds = dict(
                low=result.low,
                high=result.high,
                rank_low=result.rank_low,
                rank_high=result.rank_high,
            )
        plotting.RatingTableDisplay.from_data(
            _short(labels),
            estimate,
            xlabel=xlabel,
            ax=ax,
            max_items=_MAX_BARS,
            **bounds,
        )
    return fig


def _nash_display(plotting, analysis):
    nash, block = analysis.nash, analysis.block
    return plotting.NashDisplay(
        nash.agent_probability,
        nash.agent_nash,
        nash.agent_uniform,
        agent_names=_short(block.agents),
        task_distribution=nash.task_probability,
        task_nash_average=nash.task_nash,
        task_uniform_average=nash.task_uniform,
        task_names=_short(block.tasks),
        value=nash.value,
    )


def _display_nash_distributions(plt, analysis, plotting):
    display = _nash_display(plotting, analysis).plot(
        panels=["agent_distribution", "task_distribution"], max_items=_MAX_BARS
    )
    return display.figure_


def _display_nash_vs_uniform(plt, analysis, plotting):
    display = _nash_display(plotting, analysis).plot(
        panels=["agent_average", "task_average"], max_items=_MAX_BARS
    )
    return display.figure_


def _display_hodge(plt, analysis, plotting):
    hodge = analysis.hodge
    display = plotting.HodgeDisplay(
        hodge.transitive,
        hodge.cyclic,
        plane_shares=hodge.plane_shares[None, :],
        game_names=["agents vs tasks"],
    ).plot()
    return display.figure_


def _display_icc(plt, analysis, plotting):
    irt, bench = analysis.irt, analysis.benchmark
    items = analysis.generality.item_curves
    most, least = _extreme_items(irt)
    theta = np.linspace(min(-3.0, irt.ability.min()), max(3.0, irt.ability.max()), 241)
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True, layout="constrained")
    for ax, chosen, title in (
        (axes[0], most, "most discriminating tasks"),
        (axes[1], least, "least discriminating tasks"),
    ):
        a, b = irt.discrimination[chosen], irt.difficulty[chosen]
        probabilities = 1.0 / (1.0 + np.exp(-a[None, :] * (theta[:, None] - b)))
        plotting.ItemCurveDisplay(
            theta,
            probabilities,
            item_names=_short(bench.tasks[chosen], 22),
            difficulty=b,
            discrimination=a,
            empirical_ability=items.ability_medians,
            empirical_rate=items.success_rate[chosen],
        ).plot(ax=ax)
        ax.set_title(title)
    return fig


def _display_acc(plt, analysis, plotting):
    gen, bench, irt = analysis.generality, analysis.benchmark, analysis.irt
    chosen = _curve_agents(irt.ability)
    binned = gen.model.task_bin_ >= 0
    display = plotting.AgentCurveDisplay(
        gen.bin_points,
        gen.curves[chosen],
        agent_names=_short(bench.agents[chosen]),
        task_difficulty=gen.model.difficulty_[binned],
    ).plot(ribbon=False)
    return display.figure_


def _display_ability_generality(plt, analysis, plotting):
    display = plotting.AbilityGeneralityDisplay.from_data(
        analysis.irt.ability,
        analysis.generality.table["generality"],
        agent_names=_short(analysis.benchmark.agents, 20),
        xlabel="ability (IRT)",
    )
    return display.figure_


def _display_information_gain(plt, analysis, plotting):
    selection, block = analysis.selection, analysis.block
    display = plotting.InfoGainDisplay(
        _short(block.tasks[selection.order], 20),
        selection.cumulative_gain,
        task_gain=selection.information_gain[selection.order],
        max_information=selection.max_information,
    ).plot()
    return display.figure_


_DISPLAYS = {
    "ranking": _display_ranking,
    "nash_distributions": _display_nash_distributions,
    "nash_vs_uniform": _display_nash_vs_uniform,
    "hodge": _display_hodge,
    "icc": _display_icc,
    "acc": _display_acc,
    "ability_generality": _display_ability_generality,
    "information_gain": _display_information_gain,
}

FIGURES = tuple(_BUILTIN)


def draw_figure(plt, key, analysis, *, warn=None):
    """Draw one report figure, by the library's Display when there is one.

    Falls back to the report's own drawing when ``sklearn_eval.plotting``
    cannot be imported or its Display fails (``warn`` is then called with the
    reason).
    """
    drawer = _DISPLAYS.get(key)
    if drawer is not None:
        try:
            from .. import plotting
        except ImportError as exc:
            plotting = None
            if warn is not None:
                warn(f"sklearn_eval.plotting unavailable ({exc}); built-in figures")
        if plotting is not None:
            try:
                return drawer(plt, analysis, plotting)
            except Exception as exc:  # a Display change must not lose the report
                plt.close("all")
                if warn is not None:
                    warn(
                        f"figure {key!r}: Display failed ({type(exc).__name__}: "
                        f"{exc}); drawing the built-in version"
                    )
    return _BUILTIN[key](plt, analysis)
