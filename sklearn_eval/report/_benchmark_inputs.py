"""Typed inputs of the benchmark report's sections, computed once.

Each is a frozen dataclass built from the analysis by the section's
``inputs`` function (registered with :func:`~._pipeline.register_section`)
before the section renders; the section (:mod:`._sections`) reads only its
input (``page.input``). A failed analysis raises
:class:`~._figures.MissingAnalysis` here, which the page shows as the
section's error box. Per-agent and per-task arrays cover every agent or task
of the benchmark; a value an agent or task does not have (outside the
complete block, or its analysis failed) is NaN, shown as a dash.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..utils._ranks import agent_ranks
from ._figures import needs

__all__ = [
    "BenchmarkHodgeInput",
    "BenchmarkNashInput",
    "BenchmarkReference",
    "BenchmarkSummaryInput",
    "GeneralityInput",
    "IntervalColumn",
    "RankingInput",
    "SubsetAgreement",
    "SubsetInput",
    "TasksInput",
    "benchmark_hodge_input",
    "benchmark_nash_input",
    "benchmark_summary_input",
    "generality_input",
    "ranking_input",
    "subset_input",
    "tasks_input",
]


@dataclass(frozen=True)
class BenchmarkSummaryInput:
    """What the data summary shows: the sizes of the data."""

    n_agents: int
    n_tasks: int
    n_missing: int
    missing_share: float
    complete_block: tuple | None  # (agents, tasks); None without a block
    block_failure: str | None  # why there is no complete block
    response_rule: str
    success_rate: float
    reference_agents: tuple
    reference_included: bool
    dropped_agents: tuple
    dropped_tasks: tuple


@dataclass(frozen=True)
class IntervalColumn:
    """Bootstrap intervals of one ranking, per agent (NaN: no interval)."""

    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class BenchmarkReference:
    """The reference agents' scores (anchors of the scale, not competitors)."""

    agents: tuple
    kinds: tuple
    n_results: np.ndarray
    mean_score: np.ndarray
    success_rate: np.ndarray
    ability: np.ndarray
    ability_rank: np.ndarray  # 0: no rank
    normalized: bool
    included: bool


@dataclass(frozen=True)
class RankingInput:
    """What the ranking section shows, one entry per agent of the benchmark.

    ``uniform``, ``nash`` and ``nash_probability`` are on the complete
    block (NaN outside it, or without Nash averaging). The three
    ``*_interval`` are the bootstrap intervals of the three rankings (None
    when not computed); ``interval_failures`` holds the ``(part, reason)``
    of each bootstrap that raised.
    """

    agents: np.ndarray
    scores: np.ndarray  # IRT abilities, the ranking's scores
    ranks: np.ndarray
    uniform: np.ndarray
    nash: np.ndarray
    nash_probability: np.ndarray
    ability_interval: IntervalColumn | None
    uniform_interval: IntervalColumn | None
    nash_interval: IntervalColumn | None
    interval_failures: tuple
    interval_level: tuple | None  # (confidence level, resamples)
    nash_available: bool
    tags: tuple | None
    reference: BenchmarkReference | None


@dataclass(frozen=True)
class BenchmarkNashInput:
    """What the Nash section shows: the equilibrium on the complete block."""

    agents: np.ndarray
    agent_probability: np.ndarray
    agent_nash: np.ndarray
    agent_uniform: np.ndarray
    core_agents: np.ndarray
    tasks: np.ndarray
    task_probability: np.ndarray
    task_nash: np.ndarray
    task_uniform: np.ndarray
    core_tasks: np.ndarray
    value: float
    exploitability: float


@dataclass(frozen=True)
class BenchmarkHodgeInput:
    """What the Hodge section shows: the shares and the agents' skills."""

    transitive: float
    cyclic: float
    agents: np.ndarray  # of the complete block
    skill: np.ndarray
    residual: np.ndarray
    tags: tuple | None


@dataclass(frozen=True)
class TasksInput:
    """What the tasks section shows, one entry per task of the benchmark.

    ``information_gain`` and ``nash_probability`` are on the complete
    block (NaN outside it, or when the analysis failed); ``subset_step`` is
    the task's step in the recommended subset (None: not picked).
    """

    tasks: np.ndarray
    difficulty: np.ndarray
    discrimination: np.ndarray
    success_rate: np.ndarray
    flags: np.ndarray
    information_gain: np.ndarray
    nash_probability: np.ndarray
    subset_step: tuple
    prior: bool
    selection_available: bool
    nash_available: bool


@dataclass(frozen=True)
class GeneralityInput:
    """What the generality section shows, one entry per agent."""

    agents: np.ndarray
    ability: np.ndarray
    success_rate: np.ndarray
    generality: np.ndarray
    capability: np.ndarray
    spread: np.ndarray
    normalized_generality: np.ndarray
    n_bins: int
    tags: tuple | None


@dataclass(frozen=True)
class SubsetAgreement:
    """How the subset's ranking agrees with the full benchmark's."""

    kendall_tau: float
    spearman_rho: float
    mean_absolute_error: float


@dataclass(frozen=True)
class SubsetInput:
    """What the subset section shows: the selection order and its gains."""

    tasks: np.ndarray  # of the complete block
    order: np.ndarray  # indices into ``tasks``, in selection order
    information_gain: np.ndarray
    cumulative_gain: np.ndarray
    max_information: float
    agreement: SubsetAgreement | None
    spread_rule: str
    excluded: tuple  # (task, flag) of the flagged tasks left out


def _reference_tags(bench):
    """Per ranked agent: "reference" for an included reference agent, else None."""
    mask = bench.get("reference_mask")
    if mask is None or not np.any(mask):
        return None
    return tuple("reference" if flag else None for flag in mask)


def _on_all(values, index):
    """Values of the complete block spread over every agent or task (NaN outside)."""
    out = np.full(index.shape, np.nan)
    inside = index >= 0
    out[inside] = np.asarray(values, dtype=np.float64)[index[inside]]
    return out


def _block_index(mask, n):
    """Row of each agent (or task) in the complete block; -1 outside it."""
    index = np.full(n, -1)
    if mask is not None:
        index[mask] = np.arange(mask.sum())
    return index


def benchmark_summary_input(analysis):
    """The data summary's input, from ``analysis.summary``."""
    s = analysis.summary
    complete = None
    if s.complete_agents is not None:
        complete = (s.complete_agents, s.complete_tasks)
    failure = None
    if analysis.block is None:
        failure = analysis.failures.get("block", "it was not run")
    return BenchmarkSummaryInput(
        n_agents=s.n_agents, n_tasks=s.n_tasks, n_missing=s.n_missing,
        missing_share=s.missing_share, complete_block=complete,
        block_failure=failure, response_rule=s.response_rule,
        success_rate=s.success_rate,
        reference_agents=tuple(s.get("reference_agents", [])),
        reference_included=bool(s.get("reference_included")),
        dropped_agents=tuple(s.dropped_agents),
        dropped_tasks=tuple(s.dropped_tasks),
    )


def _interval_parts(analysis, index):
    """The ranking's interval columns, failures and level."""
    intervals = analysis.intervals
    if intervals is None:
        return {}, (), None
    raised = analysis.get("tracebacks", {})
    failures = tuple(
        (f"bootstrap intervals ({key})", analysis.failures[f"intervals.{key}"])
        for key, result in intervals.items()
        if result is None and f"intervals.{key}" in raised
    )
    found = {k: v for k, v in intervals.items() if v is not None}
    columns = {}
    for key, result in found.items():
        if key == "ability":  # every agent
            columns[key] = IntervalColumn(np.asarray(result.low, dtype=np.float64),
                                          np.asarray(result.high, dtype=np.float64))
        else:  # the complete block's agents
            columns[key] = IntervalColumn(_on_all(result.low, index),
                                          _on_all(result.high, index))
    level = None
    if found:
        first = next(iter(found.values()))
        level = (first.confidence_level, int(first.samples.shape[0]))
    return columns, failures, level


def _reference(analysis):
    ref = analysis.get("reference")
    if ref is None:
        return None
    return BenchmarkReference(
        agents=tuple(ref.agents), kinds=tuple(ref.kinds), n_results=ref.n_results,
        mean_score=ref.mean_score, success_rate=ref.success_rate,
        ability=ref.ability, ability_rank=ref.ability_rank,
        normalized=bool(ref.normalized), included=bool(ref.included),
    )


def ranking_input(analysis):
    """The ranking section's input; MissingAnalysis when IRT failed."""
    irt = needs(analysis, "irt")
    bench, block, nash = analysis.benchmark, analysis.block, analysis.nash
    n = len(bench.agents)
    index = _block_index(None if block is None else block.agent_mask, n)
    nan = np.full(n, np.nan)
    columns, failures, level = _interval_parts(analysis, index)
    return RankingInput(
        agents=bench.agents,
        scores=np.asarray(irt.model.agent_scores_, dtype=np.float64),
        ranks=agent_ranks(irt.model),
        uniform=nan if block is None else _on_all(block.scaled.mean(axis=1),
                                                    index),
        nash=nan if nash is None else _on_all(nash.agent_nash, index),
        nash_probability=(nan if nash is None
                          else _on_all(nash.agent_probability, index)),
        ability_interval=columns.get("ability"),
        uniform_interval=columns.get("uniform"),
        nash_interval=columns.get("nash"),
        interval_failures=failures, interval_level=level,
        nash_available=nash is not None, tags=_reference_tags(bench),
        reference=_reference(analysis),
    )


def benchmark_nash_input(analysis):
    """The Nash section's input; MissingAnalysis without Nash averaging."""
    nash, block = needs(analysis, "nash", "block")
    return BenchmarkNashInput(
        agents=block.agents, agent_probability=nash.agent_probability,
        agent_nash=np.asarray(nash.model.agent_scores_, dtype=np.float64),
        agent_uniform=nash.agent_uniform, core_agents=nash.core_agents,
        tasks=block.tasks, task_probability=nash.task_probability,
        task_nash=nash.task_nash, task_uniform=nash.task_uniform,
        core_tasks=nash.core_tasks, value=nash.value,
        exploitability=nash.exploitability,
    )


def benchmark_hodge_input(analysis):
    """The Hodge section's input; MissingAnalysis without the split."""
    h, block = needs(analysis, "hodge", "block")
    tags = None
    mask = analysis.benchmark.get("reference_mask")
    if mask is not None and np.any(mask):
        in_block = np.asarray(mask)[block.agent_mask]
        tags = tuple("reference" if flag else None for flag in in_block)
    return BenchmarkHodgeInput(
        transitive=h.transitive, cyclic=h.cyclic, agents=block.agents,
        skill=h.agent_skill, residual=h.agent_residual, tags=tags,
    )


def tasks_input(analysis):
    """The tasks section's input; MissingAnalysis when IRT failed."""
    irt = needs(analysis, "irt")
    bench, block = analysis.benchmark, analysis.block
    selection, nash = analysis.selection, analysis.nash
    index = _block_index(None if block is None else block.task_mask,
                         len(bench.tasks))
    nan = np.full(len(bench.tasks), np.nan)
    steps = [None] * len(bench.tasks)
    if selection is not None:
        picked = {int(t): step for step, t in enumerate(selection.order, start=1)}
        steps = [picked.get(int(b)) if b >= 0 else None for b in index]
    return TasksInput(
        tasks=bench.tasks, difficulty=irt.difficulty,
        discrimination=irt.discrimination, success_rate=irt.success_rate,
        flags=irt.flags,
        information_gain=(nan if selection is None
                          else _on_all(selection.information_gain, index)),
        nash_probability=(nan if nash is None
                          else _on_all(nash.task_probability, index)),
        subset_step=tuple(steps), prior=bool(irt.prior),
        selection_available=selection is not None,
        nash_available=nash is not None,
    )


def generality_input(analysis):
    """The generality section's input; MissingAnalysis without generality."""
    irt, gen = needs(analysis, "irt", "generality")
    values = gen.table
    return GeneralityInput(
        agents=analysis.benchmark.agents,
        ability=np.asarray(irt.model.agent_scores_, dtype=np.float64),
        success_rate=values["mean_score"], generality=values["generality"],
        capability=values["capability"], spread=values["spread"],
        normalized_generality=values["normalized_generality"],
        n_bins=len(gen.bin_points), tags=_reference_tags(analysis.benchmark),
    )


def subset_input(analysis):
    """The subset section's input; MissingAnalysis without a selection."""
    selection, block = needs(analysis, "selection", "block")
    agreement = selection.agreement
    if agreement is not None:
        agreement = SubsetAgreement(
            kendall_tau=agreement.kendall_tau,
            spearman_rho=agreement.spearman_rho,
            mean_absolute_error=agreement.mean_absolute_error,
        )
    excluded = selection.get("excluded")
    left_out = ()
    if excluded is not None and len(excluded):
        left_out = tuple(
            (block.tasks[t], flag)
            for t, flag in zip(excluded, selection.excluded_flags, strict=True)
        )
    return SubsetInput(
        tasks=block.tasks, order=np.asarray(selection.order),
        information_gain=selection.information_gain,
        cumulative_gain=selection.cumulative_gain,
        max_information=selection.max_information, agreement=agreement,
        spread_rule=selection.spread_rule, excluded=left_out,
    )
