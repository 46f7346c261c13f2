"""``sklearn-eval report``: one self-contained HTML report of every analysis."""

from __future__ import annotations

import sys

import numpy as np

from ._inputs import benchmark, read_scores
from ._options import (
    add_matrix_input,
    add_report_output,
    add_resampling,
    add_selection_options,
    add_success_options,
)
from ._output import OutputError, printable

#: exit status of a report written with error boxes (some sections failed)
EXIT_PARTIAL = 3

__all__ = []


def add_parser(commands):
    parser = commands.add_parser("report", help="one HTML report of every analysis")
    add_matrix_input(parser)
    add_success_options(parser)
    add_selection_options(parser)
    add_report_output(parser)
    add_resampling(parser, default=100)
    parser.set_defaults(handler=run)
    return parser


def write(args, bench):
    """Run every analysis and write the HTML file; return (analysis, result).

    ``result`` is the report's :class:`~sklearn_eval.report.ReportResult`:
    ``str(result)`` is the path, ``result.ok`` says whether every section
    was drawn.
    """
    from ..report import analyze_benchmark, write_report

    progress = None if args.quiet else True
    analysis = analyze_benchmark(
        bench,
        n_tasks=args.n_tasks,
        spread=args.spread,
        irt_prior=not args.no_prior,
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        progress=progress,
    )
    try:
        path = write_report(
            analysis, args.output, figures=not args.no_figures, progress=progress
        )
    except OSError as exc:
        raise OutputError(
            f"cannot write {args.output}: {exc.strerror or exc}"
        ) from None
    return analysis, path


def _names(labels):
    return ", ".join(printable(label) for label in labels)


def print_summary(analysis, out):
    """The headline of each analysis that succeeded (failed ones are skipped)."""
    nash, block, irt = analysis.nash, analysis.block, analysis.irt
    if nash is not None and block is not None:
        core = block.agents[
            nash.core_agents[np.argsort(-nash.agent_probability[nash.core_agents])]
        ]
        out.write(f"Nash core agents ({len(core)}): {_names(core)}\n")
        tasks = block.tasks[
            nash.core_tasks[np.argsort(-nash.task_probability[nash.core_tasks])]
        ]
        out.write(f"Nash core tasks ({len(tasks)}): {_names(tasks)}\n")
    if irt is not None:
        best = np.argsort(-irt.ability, kind="stable")[:5]
        agents = analysis.benchmark.agents
        out.write(
            "Highest IRT abilities: "
            + ", ".join(f"{printable(agents[a])} ({irt.ability[a]:.2f})" for a in best)
            + "\n"
        )
    if analysis.hodge is not None:
        share = analysis.hodge.transitive
        out.write(f"Hodge transitive share (agents vs tasks): {share:.1%}\n")
    selection = analysis.selection
    if selection is None or block is None:
        return
    line = (
        f"Reduced subset ({len(selection.order)} tasks): "
        f"{_names(block.tasks[selection.order])}"
    )
    if selection.agreement is not None:
        line += (
            "; Kendall tau with the full benchmark "
            f"{selection.agreement.kendall_tau:.3f}"
        )
    out.write(line + "\n")


def finish(analysis, result, out):
    """Print the summary and the report's path; the exit status.

    0 when every section was drawn; ``EXIT_PARTIAL`` (3) when the report was
    written with error boxes, which stderr names.
    """
    print_summary(analysis, out)
    out.write(f"report written to {result}\n")
    if getattr(result, "ok", True):
        return 0
    failed = ", ".join(result.failed_sections)
    sys.stderr.write(
        f"sklearn-eval: warning: the report was written, but {len(result.failures)} "
        f"part(s) failed and show an error box ({printable(failed)}); "
        "--debug prints the tracebacks\n"
    )
    return EXIT_PARTIAL


def run(args, out):
    bench = benchmark(args, read_scores(args))
    analysis, result = write(args, bench)
    return finish(analysis, result, out)
