"""The sections of the HTML report, one function each.

A section function takes the page being written (``page.input``,
``page.figure(key, caption)``, ``page.error(what, reason)``) and returns the
section's HTML body, reading only its typed input (``page.input``: a frozen
dataclass of :mod:`._benchmark_inputs`, built from the analysis before the
section renders). Building the input raises when the section's main
analysis is missing (:class:`~sklearn_eval.report._figures.MissingAnalysis`);
the page then shows an error box instead of the body. Parts that come from
other analyses (the Nash columns of the ranking, the bootstrap intervals)
degrade to "—" with a note, or to an error box inside the section. Tables come from
:mod:`._tables` (full, sortable, every user string escaped).
"""

from __future__ import annotations

import numpy as np

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


def _unavailable(available, name, what):
    """A note that ``what`` is missing because the analysis ``name`` failed."""
    from ._analysis import STEPS

    if available:
        return ""
    return note(f"{what}: {_DASH} (the {STEPS[name]} failed; see its section).")


def _ordered_tags(tags, order):
    return None if tags is None else [tags[k] for k in order]


# ---------------------------------------------------------------------------
# Sections (each reads its typed input, page.input: see ._benchmark_inputs)
# ---------------------------------------------------------------------------
def summary_section(page):
    s = page.input  # a BenchmarkSummaryInput
    complete = (
        "{} x {}".format(*s.complete_block) if s.complete_block is not None else "none"
    )
    rows = [
        ("agents", s.n_agents),
        ("tasks", s.n_tasks),
        ("missing results", f"{s.n_missing} ({s.missing_share:.1%})"),
        ("complete block (agents x tasks)", complete),
        ("success rule (IRT, generality)", s.response_rule),
        ("overall success rate", f"{s.success_rate:.1%}"),
    ]
    if s.reference_agents:
        how = (
            "ranked with the others (marked)"
            if s.reference_included
            else "not ranked; shown apart under the ranking"
        )
        rows.append(("reference agents", f"{', '.join(s.reference_agents)} ({how})"))
    for label, dropped in (("agents", s.dropped_agents), ("tasks", s.dropped_tasks)):
        if dropped:
            shown = ", ".join(map(str, dropped[:10])) + (
                " ..." if len(dropped) > 10 else ""
            )
            rows.append((f"{label} without any result (left out)", shown))
    parts = [table(("quantity", "value"), rows, labels=2)]
    if s.block_failure is not None:
        parts.append(page.error("complete block", s.block_failure))
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


def _ranking_rows(r):
    order = np.lexsort((-r.scores, r.ranks))  # by ability within a tie
    rows = [
        (
            r.agents[agent],
            rank_cell(r.ranks[agent]),
            num(r.scores[agent], 2),
            interval(r.ability_interval, agent, 2),
            num(r.uniform[agent]),
            interval(r.uniform_interval, agent),
            num(r.nash[agent]),
            interval(r.nash_interval, agent),
            num(r.nash_probability[agent]),
        )
        for agent in order
    ]
    return rows, _ordered_tags(r.tags, order)


def _reference_part(ref):
    """The reference agents' table (they are not ranked unless included)."""
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
    r = page.input  # a RankingInput
    errors = "".join(page.error(part, reason) for part, reason in r.interval_failures)
    rows, tags = _ranking_rows(r)
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
    if r.interval_level is not None:
        confidence_level, n_resamples = r.interval_level
        level = (
            f"Intervals: {confidence_level:.0%} percentile bootstrap over "
            f"{n_resamples} resamples of the tasks. "
        )
    return (
        errors
        + table(header, rows, tags=tags, key="ranking")
        + _unavailable(r.nash_available, "nash", "Nash averages")
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
        + _reference_part(r.reference)
    )


def _core_rows(labels, probability, nash, uniform, core):
    return [
        (labels[k], num(probability[k]), num(nash[k]), num(uniform[k]))
        for k in core[np.argsort(-probability[core], kind="stable")]
    ]


def nash_section(page):
    nash = page.input  # a BenchmarkNashInput
    agent_rows = _core_rows(nash.agents, nash.agent_probability, nash.agent_nash,
                            nash.agent_uniform, nash.core_agents)
    task_rows = _core_rows(nash.tasks, nash.task_probability, nash.task_nash,
                           nash.task_uniform, nash.core_tasks)
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
    h = page.input  # a BenchmarkHodgeInput
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
    order = np.argsort(-h.skill, kind="stable")
    rows = [(h.agents[k], num(h.skill[k]), num(h.residual[k])) for k in order]
    agents = table(
        ("agent", "Hodge skill (div)", "residual RMS"),
        rows,
        tags=_ordered_tags(h.tags, order),
        key="hodge",
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
    t = page.input  # a TasksInput
    flags = t.flags
    # hardest first; a negative discrimination reverses what the difficulty
    # means, so those tasks come after the others instead of among the easiest
    reversed_ = flags == "negative discrimination"
    key = np.where(reversed_, -np.inf, np.nan_to_num(t.difficulty, nan=-np.inf))
    order = np.lexsort((-key, reversed_))
    rows = [
        (
            t.tasks[k],
            num(t.difficulty[k], 2),
            num(t.discrimination[k], 2),
            percent(t.success_rate[k]),
            num(t.information_gain[k], 2),
            num(t.nash_probability[k]),
            Cell("", np.nan)
            if t.subset_step[k] is None
            else Cell(str(t.subset_step[k]), t.subset_step[k]),
            flags[k],
        )
        for k in order
    ]
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
        if t.prior
        else ""
    )
    left_out = t.tasks[~np.isfinite(t.difficulty)]
    notes = (
        f"Left out of the IRT model: {', '.join(map(str, left_out))}."
        if left_out.size
        else ""
    )
    return (
        table(header, rows, key="tasks")
        + _unavailable(t.selection_available, "selection", "Information gain")
        + _unavailable(t.nash_available, "nash", "Nash probabilities")
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
    g = page.input  # a GeneralityInput
    order = np.argsort(-g.ability, kind="stable")
    rows = [
        (
            g.agents[k],
            num(g.ability[k], 2),
            percent(g.success_rate[k]),
            num(g.generality[k], 2),
            num(g.capability[k], 2),
            num(g.spread[k], 2),
            num(g.normalized_generality[k], 2),
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
        table(header, rows, tags=_ordered_tags(g.tags, order), key="generality")
        + note(
            "generality = 1 / sum over difficulty bins of the within-bin variance "
            "of the agent's successes (Martinez-Plumed and Hernandez-Orallo, "
            "2018): an agent that solves exactly the easy tasks is general (∞ "
            "for a perfect step). capability and spread are the mean and spread "
            f"of the agent response curve over {g.n_bins} difficulty "
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
    sel = page.input  # a SubsetInput
    rows = [
        (
            step,
            sel.tasks[t],
            num(sel.information_gain[t], 2),
            num(sel.cumulative_gain[step - 1], 2),
        )
        for step, t in enumerate(sel.order, start=1)
    ]
    parts = [
        paragraph(
            f"Greedy forward selection by continuous information gain "
            f"(Stephenson et al., 2020) keeps {len(rows)} of "
            f"{len(sel.tasks)} tasks, identifying "
            f"{sel.cumulative_gain[-1]:.2f} of "
            f"{sel.max_information:.2f} bits (log2 of the number of agents)."
            + _excluded_text(sel.excluded)
        ),
        table(
            ("step", "task", "gain alone (bits)", "cumulative gain (bits)"),
            rows,
            labels=0,
            key="subset",
        ),
    ]
    agreement = sel.agreement
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
            f"Spreads: {sel.spread_rule}. Agreement compares the agents' mean "
            "min-max score over all tasks of the block with their mean over the "
            "subset (subset_agreement)."
        )
    )
    parts.append(
        page.figure("information_gain", "Information gain along the selection order")
    )
    return "".join(parts)


def _excluded_text(excluded):
    if not excluded:
        return ""
    listed = ", ".join(f"{task} ({flag})" for task, flag in excluded)
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
