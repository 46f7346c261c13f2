"""One self-contained HTML page from the analyses of a benchmark.

The page has no external resource: styles are inline and figures are PNG
images embedded as base64 data URIs, so the file can be mailed or archived.
Every section is a ``<section>`` with a stable ``id`` (``summary``,
``ranking``, ``nash``, ``hodge``, ``tasks``, ``generality``, ``subset``) and
an ``<h2>`` heading; a small inline script records, once the page has
loaded, how many images decoded (``data-images-loaded`` on ``<body>``), which
the browser test reads.
"""

from __future__ import annotations

import html
import os
import sys

import numpy as np

from .. import __version__
from ._figures import FIGURES, draw_figure, import_pyplot, to_png_base64

__all__ = ["SECTIONS", "render_report", "write_report"]

SECTIONS = {
    "summary": "Data summary",
    "ranking": "Ranking of the agents",
    "nash": "Nash core agents and tasks",
    "hodge": "Transitive and cyclic structure (Hodge decomposition)",
    "tasks": "Tasks: IRT difficulty, discrimination and information gain",
    "generality": "Agent generality",
    "subset": "Recommended reduced task subset",
}

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.86em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
td { white-space: nowrap; }
th { background: #f3f3f3; }
td.label, th.label { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
.note { font-size: 0.88em; color: #555; }
.scroll { max-height: 32em; overflow-y: auto; display: inline-block; }
nav a { margin-right: 1em; }
"""

_SCRIPT = """
window.addEventListener("load", function () {
  var images = document.querySelectorAll("figure img");
  var loaded = 0;
  images.forEach(function (img) {
    if (img.complete && img.naturalWidth > 0) { loaded += 1; }
  });
  document.body.setAttribute("data-images-loaded", String(loaded));
  document.body.setAttribute("data-tables", String(
    document.querySelectorAll("section table").length));
});
"""


def _fmt(value, digits=3):
    if value is None:
        return "—"
    if isinstance(value, (str, np.str_)):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    value = float(value)
    if np.isnan(value):
        return "—"
    if np.isinf(value):
        return "∞" if value > 0 else "-∞"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _interval(result, index, digits=3):
    if result is None or index < 0:
        return "—"
    low, high = result.low[index], result.high[index]
    if np.isnan(low) or np.isnan(high):
        return "—"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _table(header, rows, *, labels=1, scroll=False, caption=None):
    """HTML table; the first ``labels`` columns are left-aligned text."""
    head = "".join(
        f'<th class="label">{html.escape(h)}</th>'
        if k < labels
        else f"<th>{html.escape(h)}</th>"
        for k, h in enumerate(header)
    )
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="label">{html.escape(str(c))}</td>'
            if k < labels
            else f"<td>{html.escape(str(c))}</td>"
            for k, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    table = (
        f"<table>{title}<thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    return f'<div class="scroll">{table}</div>' if scroll else table


def _paragraph(text):
    return f"<p>{html.escape(text)}</p>"


def _note(text):
    return f'<p class="note">{html.escape(text)}</p>'


def _figure(figures, key, caption):
    data = figures.get(key)
    if data is None:
        return _note(f"[figure '{key}' not drawn: matplotlib is not installed]")
    return (
        f'<figure id="figure-{key}"><img alt="{html.escape(caption)}" '
        f'src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
def _summary_section(analysis, figures):
    s = analysis.summary
    rows = [
        ("agents", s.n_agents),
        ("tasks", s.n_tasks),
        ("missing results", f"{s.n_missing} ({s.missing_share:.1%})"),
        (
            "complete block (agents x tasks)",
            f"{s.complete_agents} x {s.complete_tasks}",
        ),
        ("success rule (IRT, generality)", s.response_rule),
        ("overall success rate", f"{s.success_rate:.1%}"),
    ]
    for label, dropped in (("agents", s.dropped_agents), ("tasks", s.dropped_tasks)):
        if dropped:
            shown = ", ".join(map(str, dropped[:10])) + (
                " ..." if len(dropped) > 10 else ""
            )
            rows.append((f"{label} without any result (left out)", shown))
    return (
        _table(("quantity", "value"), rows, labels=2)
        + _note(
            "Nash averaging, uniform averages, the Hodge decomposition and the "
            "task selection need the same agents on the same tasks: they use the "
            "largest complete block found by greedy peeling (complete_submatrix), "
            "with every task min-max scaled to [0, 1] over the block's agents, as "
            "in Balduzzi et al. (2018). IRT and generality use every result, "
            "missing ones left out of the likelihood."
        )
        + _figure(
            figures,
            "missing",
            "Observed and missing results; the "
            "complete block used by Nash averaging is outlined",
        )
    )


def _ranking_section(analysis, figures):
    bench, block, nash, irt = (
        analysis.benchmark,
        analysis.block,
        analysis.nash,
        analysis.irt,
    )
    intervals = analysis.intervals or {}
    block_index = np.full(len(bench.agents), -1)
    block_index[block.agent_mask] = np.arange(block.agent_mask.sum())
    order = np.argsort(-irt.ability, kind="stable")
    rows = []
    for rank, agent in enumerate(order, start=1):
        b = block_index[agent]
        rows.append(
            (
                bench.agents[agent],
                rank,
                _fmt(irt.ability[agent], 2),
                _interval(intervals.get("ability"), agent, 2),
                _fmt(nash.agent_uniform[b]) if b >= 0 else "—",
                _interval(intervals.get("uniform"), b),
                _fmt(nash.agent_nash[b]) if b >= 0 else "—",
                _interval(intervals.get("nash"), b),
                _fmt(nash.agent_probability[b]) if b >= 0 else "—",
            )
        )
    header = (
        "agent",
        "rank (ability)",
        "IRT ability",
        "interval",
        "uniform average",
        "interval",
        "Nash average",
        "interval",
        "Nash probability",
    )
    level = ""
    if analysis.intervals is not None:
        result = analysis.intervals.ability
        level = (
            f"Intervals: {result.confidence_level:.0%} percentile bootstrap over "
            f"{result.samples.shape[0]} resamples of the tasks. "
        )
    return (
        _table(header, rows, scroll=True)
        + _note(
            level + "Uniform and Nash averages are on the min-max scale of the "
            "complete block (— for agents outside it). No agent's Nash average "
            "exceeds the game value; the core agents (Nash probability > 0) "
            "reach it, so they tie at the top."
        )
        + _figure(figures, "ranking", "Rankings with bootstrap intervals")
    )


def _nash_section(analysis, figures):
    nash, block = analysis.nash, analysis.block
    agent_rows = [
        (
            block.agents[k],
            _fmt(nash.agent_probability[k]),
            _fmt(nash.agent_nash[k]),
            _fmt(nash.agent_uniform[k]),
        )
        for k in nash.core_agents[np.argsort(-nash.agent_probability[nash.core_agents])]
    ]
    task_rows = [
        (
            block.tasks[k],
            _fmt(nash.task_probability[k]),
            _fmt(nash.task_nash[k]),
            _fmt(nash.task_uniform[k]),
        )
        for k in nash.core_tasks[np.argsort(-nash.task_probability[nash.core_tasks])]
    ]
    return (
        _paragraph(
            f"Value of the agent-vs-task game: {nash.value:.4f} (exploitability "
            f"{nash.exploitability:.1e}). {len(agent_rows)} core agents and "
            f"{len(task_rows)} core tasks carry the maximum-entropy Nash "
            "equilibrium: the core agents tie at the value, and the core tasks "
            "are the hardest mixture of tasks for them."
        )
        + _table(
            ("core agent", "Nash probability", "Nash average", "uniform average"),
            agent_rows,
        )
        + _table(
            ("core task", "Nash probability", "Nash difficulty", "uniform difficulty"),
            task_rows,
        )
        + _figure(
            figures,
            "nash_distributions",
            "Nash distributions over agents and tasks (as Figure 1 of "
            "Balduzzi et al., 2018)",
        )
        + _figure(
            figures,
            "nash_vs_uniform",
            "Uniform vs Nash averages of agents (skill) and tasks "
            "(difficulty), as Figure 2 of Balduzzi et al. (2018)",
        )
    )


def _hodge_section(analysis, figures):
    h, block = analysis.hodge, analysis.block
    shares = _table(
        ("game", "transitive share", "cyclic share"),
        [
            (
                "agents vs tasks (complete block)",
                f"{h.transitive:.1%}",
                f"{h.cyclic:.1%}",
            )
        ],
    )
    order = np.argsort(-h.agent_skill, kind="stable")
    rows = [
        (block.agents[k], _fmt(h.agent_skill[k]), _fmt(h.agent_residual[k]))
        for k in order
    ]
    agents = _table(("agent", "Hodge skill (div)", "residual RMS"), rows, scroll=True)
    return (
        shares
        + _note(
            "The agent-vs-task flow of Balduzzi et al. (2018, section 3.3) on the "
            "centred min-max block: its transitive part is skill_i - "
            "difficulty_j (one number per agent and per task), its cyclic part "
            "the residual that no such pair of numbers explains. The shares are "
            "of the squared Frobenius norm and add up to 100%. A large cyclic "
            "share means rankings depend on the mix of tasks, which is when Nash "
            "averaging and uniform averaging disagree. Residual RMS: how far an "
            "agent's results are from skill - difficulty."
        )
        + agents
        + _figure(
            figures,
            "hodge",
            "Transitive vs cyclic shares (with the leading cyclic Schur planes)",
        )
    )


def _tasks_section(analysis, figures):
    bench, irt, block, selection = (
        analysis.benchmark,
        analysis.irt,
        analysis.block,
        analysis.selection,
    )
    task_index = np.full(len(bench.tasks), -1)
    task_index[block.task_mask] = np.arange(block.task_mask.sum())
    picked = {int(t): step for step, t in enumerate(selection.order, start=1)}
    order = np.argsort(-np.nan_to_num(irt.difficulty, nan=-np.inf), kind="stable")
    rows = []
    for t in order:
        b = task_index[t]
        rows.append(
            (
                bench.tasks[t],
                _fmt(irt.difficulty[t], 2),
                _fmt(irt.discrimination[t], 2),
                f"{irt.success_rate[t]:.0%}"
                if np.isfinite(irt.success_rate[t])
                else "—",
                _fmt(selection.information_gain[b], 2) if b >= 0 else "—",
                _fmt(analysis.nash.task_probability[b]) if b >= 0 else "—",
                picked.get(int(b), "") if b >= 0 else "",
            )
        )
    header = (
        "task",
        "IRT difficulty",
        "discrimination",
        "success rate",
        "information gain (bits)",
        "Nash probability",
        "subset step",
    )
    prior = (
        "The 2PL model is fitted with weak priors a ~ N(1, 2), b ~ N(0, 2): with "
        "few agents plain maximum likelihood sends the discrimination of tasks "
        "that separate the agents to infinity. "
        if irt.prior
        else ""
    )
    left_out = bench.tasks[~np.isfinite(irt.difficulty)]
    notes = (
        f"Left out of the IRT model: {', '.join(map(str, left_out))}."
        if left_out.size
        else ""
    )
    return (
        _table(header, rows, scroll=True)
        + _note(
            prior + "Difficulty is on the ability scale (higher is harder); "
            "information gain is of each task alone, on the complete block. "
            "Tasks without difficulty have the same result for every agent and "
            "carry no information for IRT. " + notes
        )
        + _figure(
            figures,
            "icc",
            "Item characteristic curves (model lines, empirical success "
            "rate per ability group as dots)",
        )
    )


def _generality_section(analysis, figures):
    bench, irt, gen = analysis.benchmark, analysis.irt, analysis.generality
    table = gen.table
    order = np.argsort(-irt.ability, kind="stable")
    rows = [
        (
            bench.agents[k],
            _fmt(irt.ability[k], 2),
            f"{table['mean_score'][k]:.0%}",
            _fmt(table["generality"][k], 2),
            _fmt(table["capability"][k], 2),
            _fmt(table["spread"][k], 2),
            _fmt(table["normalized_generality"][k], 2),
        )
        for k in order
    ]
    header = (
        "agent",
        "IRT ability",
        "success rate",
        "generality",
        "capability",
        "spread",
        "normalised generality",
    )
    return (
        _table(header, rows, scroll=True)
        + _note(
            "generality = 1 / sum over difficulty bins of the within-bin variance "
            "of the agent's successes (Martinez-Plumed and Hernandez-Orallo, "
            "2018): an agent that solves exactly the easy tasks is general (∞ "
            "for a perfect step). capability and spread are the mean and spread "
            f"of the agent response curve over {len(gen.bin_points)} difficulty "
            "bins; normalised generality is 1 for a decreasing step, 0 for a flat "
            "curve."
        )
        + _figure(
            figures,
            "acc",
            "Agent characteristic curves of agents across the ability range",
        )
        + _figure(figures, "ability_generality", "Ability vs generality")
    )


def _subset_section(analysis, figures):
    selection, block = analysis.selection, analysis.block
    rows = [
        (
            step,
            block.tasks[t],
            _fmt(selection.information_gain[t], 2),
            _fmt(selection.cumulative_gain[step - 1], 2),
        )
        for step, t in enumerate(selection.order, start=1)
    ]
    parts = [
        _paragraph(
            f"Greedy forward selection by continuous information gain "
            f"(Stephenson et al., 2020) keeps {len(rows)} of "
            f"{len(block.tasks)} tasks, identifying "
            f"{selection.cumulative_gain[-1]:.2f} of "
            f"{selection.max_information:.2f} bits (log2 of the number of agents)."
        ),
        _table(
            ("step", "task", "gain alone (bits)", "cumulative gain (bits)"),
            rows,
            labels=2,
        ),
    ]
    agreement = selection.agreement
    if agreement is not None:
        parts.append(
            _table(
                ("agreement of the subset with the full benchmark", "value"),
                [
                    ("Kendall tau of mean scores", _fmt(agreement.kendall_tau)),
                    ("Spearman rho of mean scores", _fmt(agreement.spearman_rho)),
                    (
                        "mean absolute error of the predicted full mean "
                        "(leave one agent out)",
                        _fmt(agreement.mean_absolute_error),
                    ),
                ],
            )
        )
    parts.append(
        _note(
            f"Spreads: {selection.spread_rule}. Agreement compares the agents' mean "
            "min-max score over all tasks of the block with their mean over the "
            "subset (subset_agreement)."
        )
    )
    parts.append(
        _figure(
            figures, "information_gain", "Information gain along the selection order"
        )
    )
    return "".join(parts)


_RENDERERS = {
    "summary": _summary_section,
    "ranking": _ranking_section,
    "nash": _nash_section,
    "hodge": _hodge_section,
    "tasks": _tasks_section,
    "generality": _generality_section,
    "subset": _subset_section,
}


def _draw_figures(analysis, progress):
    plt = import_pyplot()
    if plt is None:
        progress("matplotlib is not installed: the report has no figures")
        return {}
    figures = {}
    for key in FIGURES:
        progress(f"figure: {key}")
        figures[key] = to_png_base64(draw_figure(plt, key, analysis, warn=progress))
    return figures


def render_report(analysis, *, figures=True, progress=None):
    """The HTML page of a benchmark analysis.

    Parameters
    ----------
    analysis : Bunch
        From :func:`~sklearn_eval.report.analyze_benchmark`.
    figures : bool, default=True
        Draw and embed the figures (needs matplotlib; skipped with a note in
        the page when it is missing).
    progress : callable or None, default=None
        Called with a short message before each figure.

    Returns
    -------
    str
        A complete HTML document.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.report import (analyze_benchmark, prepare_benchmark,
    ...                                  render_report)
    >>> X = make_irt_responses(30, 10, random_state=0)
    >>> analysis = analyze_benchmark(prepare_benchmark(X), n_tasks=3,
    ...                              n_resamples=0)
    >>> page = render_report(analysis, figures=False)
    >>> page.count("<section")
    7
    """
    progress = progress or (lambda message: None)
    drawn = _draw_figures(analysis, progress) if figures else {}
    name = html.escape(analysis.summary.name)
    nav = "".join(
        f'<a href="#{key}">{html.escape(title)}</a>' for key, title in SECTIONS.items()
    )
    sections = "".join(
        f'<section id="{key}"><h2>{html.escape(title)}</h2>'
        f"{_RENDERERS[key](analysis, drawn)}</section>"
        for key, title in SECTIONS.items()
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>sklearn-eval report: {name}</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>Benchmark report: {name}</h1>"
        f'<p class="note">Generated by sklearn-eval {html.escape(__version__)}.</p>'
        f"<nav>{nav}</nav>{sections}"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_report(analysis, path, *, figures=True, progress=None):
    """Render the report and write it to ``path`` (UTF-8); return the path.

    Parameters
    ----------
    analysis : Bunch
        From :func:`~sklearn_eval.report.analyze_benchmark`.
    path : str or path-like
    figures : bool, default=True
    progress : callable, bool or None, default=None
        A callable taking a message, or True for lines on stderr.

    Returns
    -------
    str
        The absolute path written.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.datasets import make_agent_task_scores
    >>> from sklearn_eval.report import (analyze_benchmark, prepare_benchmark,
    ...                                  write_report)
    >>> scores = make_agent_task_scores(12, 8, random_state=0)
    >>> analysis = analyze_benchmark(prepare_benchmark(scores, threshold=0.5),
    ...                              n_tasks=3, n_resamples=0)
    >>> path = write_report(analysis, os.path.join(tempfile.mkdtemp(), "r.html"),
    ...                     figures=False)
    >>> open(path, encoding="utf-8").read().count("<h2>")
    7
    """
    if progress is True:

        def progress(message):
            sys.stderr.write(f"[sklearn-eval] {message}\n")

    page = render_report(analysis, figures=figures, progress=progress)
    path = os.path.abspath(os.fspath(path))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(page)
    return path
