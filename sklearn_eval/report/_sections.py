"""The sections of the HTML report, one function each.

A section function takes the page being written (``page.analysis``,
``page.figure(key, caption)``, ``page.error(what, reason)``) and returns the
section's HTML body. It raises when its main analysis is missing
(:class:`~sklearn_eval.report._figures.MissingAnalysis`); the page then shows
an error box instead of the body. Parts that come from other analyses (the
Nash columns of the ranking, the bootstrap intervals) degrade to "—" with a
note, or to an error box inside the section. Tables come from
:mod:`._tables` (full, sortable, every user string escaped).
"""

from __future__ import annotations

import numpy as np

from ..utils import rank_scores
from ._figures import needs
from ._tables import (
    DASH,
    Cell,
    heading,
    interval,
    note,
    num,
    paragraph,
    percent,
    rank_cell,
    table,
)

__all__ = ["SECTIONS", "SECTION_RENDERERS"]

SECTIONS = {
    "summary": "Data summary",
    "ranking": "Ranking of the agents",
    "nash": "Nash core agents and tasks",
    "hodge": "Transitive and cyclic structure (Hodge decomposition)",
    "tasks": "Tasks: IRT difficulty, discrimination and information gain",
    "generality": "Agent generality",
    "subset": "Recommended reduced task subset",
}

_DASH = DASH


def _unavailable(analysis, name, what):
    """A note that ``what`` is missing because the analysis ``name`` failed."""
    from ._analysis import STEPS

    if analysis[name] is not None:
        return ""
    return note(f"{what}: {_DASH} (the {STEPS[name]} failed; see its section).")


def _block_index(bench, block):
    """Row of each agent in the complete block (-1 outside it, or no block)."""
    index = np.full(len(bench.agents), -1)
    if block is not None:
        index[block.agent_mask] = np.arange(block.agent_mask.sum())
    return index


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
def _reference_tags(bench):
    """Per ranked agent: "reference" for an included reference agent, else None."""
    mask = bench.get("reference_mask")
    if mask is None or not np.any(mask):
        return None
    return ["reference" if flag else None for flag in mask]


def summary_section(page):
    analysis = page.analysis
    s = analysis.summary
    complete = (
        f"{s.complete_agents} x {s.complete_tasks}"
        if s.complete_agents is not None
        else "none"
    )
    rows = [
        ("agents", s.n_agents),
        ("tasks", s.n_tasks),
        ("missing results", f"{s.n_missing} ({s.missing_share:.1%})"),
        ("complete block (agents x tasks)", complete),
        ("success rule (IRT, generality)", s.response_rule),
        ("overall success rate", f"{s.success_rate:.1%}"),
    ]
    references = s.get("reference_agents", [])
    if references:
        how = (
            "ranked with the others (marked)"
            if s.get("reference_included")
            else "not ranked; shown apart under the ranking"
        )
        rows.append(("reference agents", f"{', '.join(references)} ({how})"))
    for label, dropped in (("agents", s.dropped_agents), ("tasks", s.dropped_tasks)):
        if dropped:
            shown = ", ".join(map(str, dropped[:10])) + (
                " ..." if len(dropped) > 10 else ""
            )
            rows.append((f"{label} without any result (left out)", shown))
    parts = [table(("quantity", "value"), rows, labels=2)]
    if analysis.block is None:
        parts.append(page.error("complete block", analysis.failures["block"]))
    parts.append(
        note(
            "Nash averaging, uniform averages, the Hodge decomposition and the "
            "task selection need the same agents on the same tasks: they use the "
            "largest complete block found by greedy peeling (complete_submatrix), "
            "with every task min-max scaled to [0, 1] over the block's agents, as "
            "in Balduzzi et al. (2018). IRT and generality use every result, "
            "missing ones left out of the likelihood."
        )
    )
    parts.append(
        page.figure(
            "missing",
            "Observed and missing results; the "
            "complete block used by Nash averaging is outlined",
        )
    )
    return "".join(parts)


def _interval_errors(page):
    """Error boxes for the bootstraps that raised, and the results by key.

    A bootstrap not run because its point estimate failed (Nash averaging)
    has no box here: that failure has its own section.
    """
    analysis = page.analysis
    if analysis.intervals is None:
        return "", {}
    raised = analysis.get("tracebacks", {})
    boxes = [
        page.error(
            f"bootstrap intervals ({key})", analysis.failures[f"intervals.{key}"]
        )
        for key, result in analysis.intervals.items()
        if result is None and f"intervals.{key}" in raised
    ]
    found = {k: v for k, v in analysis.intervals.items() if v is not None}
    return "".join(boxes), found


def _ranking_rows(analysis, intervals):
    bench, block, nash, irt = (
        analysis.benchmark,
        analysis.block,
        analysis.nash,
        analysis.irt,
    )
    block_index = _block_index(bench, block)
    uniform = None if block is None else block.scaled.mean(axis=1)
    ranks = rank_scores(irt.ability)  # the library's rank rule, as agent_table()
    order = np.lexsort((-irt.ability, ranks))  # by ability within a tie
    rows = []
    for agent in order:
        b = block_index[agent]
        in_block = b >= 0
        with_nash = in_block and nash is not None
        rows.append(
            (
                bench.agents[agent],
                rank_cell(ranks[agent]),
                num(irt.ability[agent], 2),
                interval(intervals.get("ability"), agent, 2),
                num(uniform[b]) if in_block else Cell(_DASH, np.nan),
                interval(intervals.get("uniform"), b),
                num(nash.agent_nash[b]) if with_nash else Cell(_DASH, np.nan),
                interval(intervals.get("nash"), b),
                num(nash.agent_probability[b]) if with_nash else Cell(_DASH, np.nan),
            )
        )
    tags = _reference_tags(bench)
    return rows, None if tags is None else [tags[a] for a in order]


def _reference_part(analysis):
    """The reference agents' table (they are not ranked unless included)."""
    ref = analysis.get("reference")
    if ref is None:
        return ""
    scale = "normalised score" if ref.normalized else "score"
    rows = [
        (
            ref.agents[k],
            ref.kinds[k],
            int(ref.n_results[k]),
            num(ref.mean_score[k], 2),
            percent(ref.success_rate[k]),
            num(ref.ability[k], 2),
            Cell(str(ref.ability_rank[k]), float(ref.ability_rank[k]))
            if ref.ability_rank[k] > 0
            else Cell(_DASH, np.nan),
        )
        for k in range(len(ref.agents))
    ]
    header = (
        "reference agent",
        "kind",
        "tasks with a result",
        f"mean {scale}",
        "success rate",
        "IRT ability",
        "ability rank among the agents",
    )
    if ref.included:
        title = "Reference agents (ranked with the others, marked in the tables)"
        how = (
            "They are anchors of the scores, not competitors: leave them out "
            "(the default) to rank the methods only."
        )
    else:
        title = "Reference agents (not ranked)"
        how = (
            "They anchor the scores (e.g. human = 100, random = 0 after "
            "normalisation) and are left out of every ranking, block and "
            "model above; their IRT ability is scored on the fitted tasks, and "
            "the last column is the rank it would take. Rank them with the "
            "others with --include-reference (include_reference=True)."
        )
    return heading(title) + table(header, rows, labels=2, key="reference") + note(how)


def ranking_section(page):
    analysis = page.analysis
    needs(analysis, "irt")
    errors, intervals = _interval_errors(page)
    rows, tags = _ranking_rows(analysis, intervals)
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
    if intervals:
        result = next(iter(intervals.values()))
        level = (
            f"Intervals: {result.confidence_level:.0%} percentile bootstrap over "
            f"{result.samples.shape[0]} resamples of the tasks. "
        )
    return (
        errors
        + table(header, rows, tags=tags, key="ranking")
        + _unavailable(analysis, "nash", "Nash averages")
        + note(
            level + "Uniform and Nash averages are on the min-max scale of the "
            f"complete block ({_DASH} for agents outside it). No agent's Nash "
            "average exceeds the game value; the core agents (Nash probability "
            "> 0) reach it, so they tie at the top."
        )
        + page.figure(
            "ranking",
            "The three rankings with bootstrap intervals: IRT ability (all "
            "agents), uniform and Nash averages (complete block)",
        )
        + _reference_part(analysis)
    )


def nash_section(page):
    nash, block = needs(page.analysis, "nash", "block")
    agent_rows = [
        (
            block.agents[k],
            num(nash.agent_probability[k]),
            num(nash.agent_nash[k]),
            num(nash.agent_uniform[k]),
        )
        for k in nash.core_agents[
            np.argsort(-nash.agent_probability[nash.core_agents], kind="stable")
        ]
    ]
    task_rows = [
        (
            block.tasks[k],
            num(nash.task_probability[k]),
            num(nash.task_nash[k]),
            num(nash.task_uniform[k]),
        )
        for k in nash.core_tasks[
            np.argsort(-nash.task_probability[nash.core_tasks], kind="stable")
        ]
    ]
    return (
        paragraph(
            f"Value of the agent-vs-task game: {nash.value:.4f} (exploitability "
            f"{nash.exploitability:.1e}). {len(agent_rows)} core agents and "
            f"{len(task_rows)} core tasks carry the maximum-entropy Nash "
            "equilibrium: the core agents tie at the value, and the core tasks "
            "are the hardest mixture of tasks for them."
        )
        + table(
            ("core agent", "Nash probability", "Nash average", "uniform average"),
            agent_rows,
            key="core-agents",
        )
        + table(
            ("core task", "Nash probability", "Nash difficulty", "uniform difficulty"),
            task_rows,
            key="core-tasks",
        )
        + page.figure(
            "nash_distributions",
            "Nash distributions over agents and tasks (as Figure 1 of "
            "Balduzzi et al., 2018)",
        )
        + page.figure(
            "nash_vs_uniform",
            "Uniform vs Nash averages of agents (skill) and tasks "
            "(difficulty), as Figure 2 of Balduzzi et al. (2018)",
        )
    )


def hodge_section(page):
    h, block = needs(page.analysis, "hodge", "block")
    shares = table(
        ("game", "transitive share", "cyclic share"),
        [
            (
                "agents vs tasks (complete block)",
                percent(h.transitive, 1),
                percent(h.cyclic, 1),
            )
        ],
    )
    order = np.argsort(-h.agent_skill, kind="stable")
    rows = [
        (block.agents[k], num(h.agent_skill[k]), num(h.agent_residual[k]))
        for k in order
    ]
    mask = page.analysis.benchmark.get("reference_mask")
    tags = None
    if mask is not None and np.any(mask):
        in_block = np.asarray(mask)[block.agent_mask]
        tags = ["reference" if in_block[k] else None for k in order]
    agents = table(
        ("agent", "Hodge skill (div)", "residual RMS"), rows, tags=tags, key="hodge"
    )
    return (
        shares
        + note(
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
        + page.figure(
            "hodge",
            "Transitive vs cyclic shares (with the leading cyclic Schur planes)",
        )
    )


def tasks_section(page):
    analysis = page.analysis
    irt = needs(analysis, "irt")
    bench, block = analysis.benchmark, analysis.block
    selection, nash = analysis.selection, analysis.nash
    task_index = np.full(len(bench.tasks), -1)
    if block is not None:
        task_index[block.task_mask] = np.arange(block.task_mask.sum())
    picked = {}
    if selection is not None:
        picked = {int(t): step for step, t in enumerate(selection.order, start=1)}
    flags = irt.flags
    # hardest first; a negative discrimination reverses what the difficulty
    # means, so those tasks come after the others instead of among the easiest
    reversed_ = flags == "negative discrimination"
    key = np.where(reversed_, -np.inf, np.nan_to_num(irt.difficulty, nan=-np.inf))
    order = np.lexsort((-key, reversed_))
    missing = Cell(_DASH, np.nan)
    rows = []
    for t in order:
        b = task_index[t]
        step = picked.get(int(b)) if b >= 0 else None
        rows.append(
            (
                bench.tasks[t],
                num(irt.difficulty[t], 2),
                num(irt.discrimination[t], 2),
                percent(irt.success_rate[t]),
                num(selection.information_gain[b], 2)
                if b >= 0 and selection is not None
                else missing,
                num(nash.task_probability[b])
                if b >= 0 and nash is not None
                else missing,
                Cell("", np.nan) if step is None else Cell(str(step), step),
                flags[t],
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
        "flag",
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
        table(header, rows, key="tasks")
        + _unavailable(analysis, "selection", "Information gain")
        + _unavailable(analysis, "nash", "Nash probabilities")
        + note(
            prior + "Difficulty is on the ability scale (higher is harder); "
            "information gain is of each task alone, on the complete block. "
            "Tasks without difficulty have the same result for every agent and "
            "carry no information for IRT. Flagged tasks: nobody or everyone "
            "succeeds (0% or 100%: they separate no agents), or a negative "
            "discrimination (the abler agents succeed less often: a broken or "
            "mislabelled task, or one that rewards a quirk); they are listed "
            "last or by their success, and left out of the recommended subset "
            "(include_flagged_tasks=True, --include-flagged-tasks keeps them). "
            + notes
        )
        + page.figure(
            "icc",
            "Item characteristic curves (model lines, empirical success "
            "rate per ability group as dots)",
        )
    )


def generality_section(page):
    analysis = page.analysis
    irt, gen = needs(analysis, "irt", "generality")
    bench, values = analysis.benchmark, gen.table
    order = np.argsort(-irt.ability, kind="stable")
    rows = [
        (
            bench.agents[k],
            num(irt.ability[k], 2),
            percent(values["mean_score"][k]),
            num(values["generality"][k], 2),
            num(values["capability"][k], 2),
            num(values["spread"][k], 2),
            num(values["normalized_generality"][k], 2),
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
    tags = _reference_tags(bench)
    return (
        table(
            header,
            rows,
            tags=None if tags is None else [tags[k] for k in order],
            key="generality",
        )
        + note(
            "generality = 1 / sum over difficulty bins of the within-bin variance "
            "of the agent's successes (Martinez-Plumed and Hernandez-Orallo, "
            "2018): an agent that solves exactly the easy tasks is general (∞ "
            "for a perfect step). capability and spread are the mean and spread "
            f"of the agent response curve over {len(gen.bin_points)} difficulty "
            "bins; normalised generality is 1 for a decreasing step, 0 for a flat "
            "curve, and negative when the curve rises: the agent succeeds more "
            "often on the harder tasks than on the easier ones (it fails easy "
            "tasks others solve), which its IRT ability does not show."
        )
        + page.figure(
            "acc",
            "Agent characteristic curves of agents across the ability range",
        )
        + page.figure("ability_generality", "Ability vs generality")
    )


def subset_section(page):
    selection, block = needs(page.analysis, "selection", "block")
    rows = [
        (
            step,
            block.tasks[t],
            num(selection.information_gain[t], 2),
            num(selection.cumulative_gain[step - 1], 2),
        )
        for step, t in enumerate(selection.order, start=1)
    ]
    parts = [
        paragraph(
            f"Greedy forward selection by continuous information gain "
            f"(Stephenson et al., 2020) keeps {len(rows)} of "
            f"{len(block.tasks)} tasks, identifying "
            f"{selection.cumulative_gain[-1]:.2f} of "
            f"{selection.max_information:.2f} bits (log2 of the number of agents)."
            + _excluded_text(selection, block)
        ),
        table(
            ("step", "task", "gain alone (bits)", "cumulative gain (bits)"),
            rows,
            labels=0,
            key="subset",
        ),
    ]
    agreement = selection.agreement
    if agreement is not None:
        parts.append(
            table(
                ("agreement of the subset with the full benchmark", "value"),
                [
                    ("Kendall tau of mean scores", num(agreement.kendall_tau)),
                    ("Spearman rho of mean scores", num(agreement.spearman_rho)),
                    (
                        "mean absolute error of the predicted full mean "
                        "(leave one agent out)",
                        num(agreement.mean_absolute_error),
                    ),
                ],
            )
        )
    parts.append(
        note(
            f"Spreads: {selection.spread_rule}. Agreement compares the agents' mean "
            "min-max score over all tasks of the block with their mean over the "
            "subset (subset_agreement)."
        )
    )
    parts.append(
        page.figure("information_gain", "Information gain along the selection order")
    )
    return "".join(parts)


def _excluded_text(selection, block):
    excluded = selection.get("excluded")
    if excluded is None or not len(excluded):
        return ""
    listed = ", ".join(
        f"{block.tasks[t]} ({flag})"
        for t, flag in zip(excluded, selection.excluded_flags, strict=True)
    )
    return (
        f" Left out of the candidates as flagged (see the tasks section): {listed}."
    )


SECTION_RENDERERS = {
    "summary": summary_section,
    "ranking": ranking_section,
    "nash": nash_section,
    "hodge": hodge_section,
    "tasks": tasks_section,
    "generality": generality_section,
    "subset": subset_section,
}
