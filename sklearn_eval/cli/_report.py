"""``sklearn-eval report``: one self-contained HTML report of every analysis.

A result matrix (long or wide CSV) gets the benchmark report; a table of
matches (detected by its player columns, or ``--format matches``) gets the
match report. Both exit 0 when every section was written, 3 when the report
was written with error boxes, 2 for bad input.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from ._inputs import (
    benchmark,
    input_format,
    rating_options,
    read_match_file,
    read_scores,
    warn_ignored,
)
from ._options import (
    add_match_input,
    add_matrix_input,
    add_rating_model_options,
    add_reference_options,
    add_report_output,
    add_resampling,
    add_selection_options,
    add_success_options,
    clip_fraction,
    non_negative_float,
    positive_int,
)
from ._output import (
    EXIT_PARTIAL,
    CommandError,
    OutputError,
    UsageError,
    printable,
    say,
)

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "report",
        help="one HTML report of every analysis (result matrix or matches)",
    )
    add_matrix_input(parser, matches=True)
    add_match_input(parser, defaults_known=True)
    add_success_options(parser)
    add_reference_options(parser)
    add_selection_options(parser)
    parser.add_argument(
        "--include-flagged-tasks",
        action="store_true",
        help="let the recommended subset hold flagged tasks (0%% or 100%% "
        "success, negative IRT discrimination), left out by default",
    )
    group = parser.add_argument_group("match reports")
    group.add_argument(
        "--interval-method",
        choices=("analytic", "bootstrap"),
        default="analytic",
        help="rating intervals: analytic (sandwich, default) or a bootstrap "
        "over matches (ranking_intervals' method)",
    )
    group.add_argument(
        "--alpha",
        type=non_negative_float,
        default=None,
        help="L2 prior of the Bradley-Terry fit (default: none when maximum "
        "likelihood has finite ratings, else 0.01, said in the report)",
    )
    add_rating_model_options(
        group,
        ties_default="half without draws (and when every match is a draw), "
        "else davidson or rao-kupper, whichever has the higher held-out "
        "likelihood (said in the report)",
    )
    group.add_argument(
        "--n-components",
        type=positive_int,
        default=1,
        help="cyclic planes of the mElo model (default 1)",
    )
    group.add_argument(
        "--clip",
        type=clip_fraction,
        default=1e-3,
        help="win rates clipped to [clip, 1 - clip] before the logit of the "
        "Nash game",
    )
    add_report_output(parser)
    add_resampling(parser, default=100, what="the tasks (matches: the matches)")
    parser.set_defaults(handler=run)
    return parser


def report_format(args):
    """The input's format (see :func:`._inputs.input_format`)."""
    return input_format(args)


def _write(args, analysis):
    from ..report import write_report

    progress = None if args.quiet else True
    try:
        return write_report(
            analysis, args.output, figures=not args.no_figures, progress=progress
        )
    except OSError as exc:
        raise OutputError(
            f"cannot write {args.output}: {exc.strerror or exc}"
        ) from None


def write(args, bench):
    """Run every analysis and write the HTML file; return (analysis, result).

    ``result`` is the report's :class:`~sklearn_eval.report.ReportResult`:
    ``str(result)`` is the path, ``result.ok`` says whether every section
    was drawn.
    """
    from ..report import analyze_benchmark

    progress = None if args.quiet else True
    advice = _advice(args, bench.scores, agents=bench.agents, tasks=bench.tasks)
    analysis = analyze_benchmark(
        bench,
        n_tasks=args.n_tasks,
        spread=args.spread,
        irt_prior=not args.no_prior,
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        progress=progress,
        include_flagged_tasks=getattr(args, "include_flagged_tasks", False),
    )
    analysis["advice"] = advice
    return analysis, _write(args, analysis)


def _advice(args, X, y=None, sample_weight=None, *, agents=None, tasks=None):
    """The advisor's answer for the report's first section (None if it fails)."""
    import pandas as pd

    from ..advice import advise

    if y is None:
        X = pd.DataFrame(X, index=[str(a) for a in agents],
                         columns=[str(t) for t in tasks])
    say(args, "which method fits this data (held-out comparison of the models)")
    try:
        return advise(X, y, sample_weight=sample_weight,
                      random_state=args.random_state, n_jobs=args.n_jobs)
    except ValueError as exc:  # the report's own checks say more
        say(args, f"no advice: {exc}")
        return None


def _recommended_options(args, advice):
    """The ties and first advantage of the recommended model, unless given.

    Options given on the command line (``--ties``, ``--first-advantage``,
    ``--covariates``) are the model, exactly as in Python: the advice fills
    in only when none is given.
    """
    options = rating_options(args)
    if any(key in options for key in ("ties", "first_advantage", "covariates")):
        return options
    model = None if advice is None else advice.recommendation
    params = model.get_params() if model is not None else {}
    if params.get("method") != "batch" or "ties" not in params:
        return options
    options.setdefault("ties", params["ties"])
    if params["first_advantage"] == "fit":
        options.setdefault("first_advantage", "fit")
    return options


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
        core = nash.core_tasks[np.argsort(-nash.task_probability[nash.core_tasks])]
        flags = _block_flags(analysis)
        tasks = [
            block.tasks[t] if not flags[t] else f"{block.tasks[t]} [{flags[t]}]"
            for t in core
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


def _block_flags(analysis):
    """The task flags of the report (see the tasks section) on the block."""
    block, irt = analysis.block, analysis.irt
    if irt is None:
        return np.full(len(block.tasks), "", dtype=object)
    return irt.flags[block.task_mask]


def print_reference(analysis, out):
    """One line naming the reference agents and how they were treated."""
    summary = analysis.summary
    names = summary.get("reference_agents", [])
    if not names:
        return
    how = (
        "ranked with the others"
        if summary.get("reference_included")
        else "shown apart, not ranked; --include-reference ranks them"
    )
    out.write(f"Reference agents ({how}): {_names(names)}\n")


def print_match_summary(analysis, out):
    """The headline of each match analysis that succeeded."""
    ratings, nash, melo, hodge = (
        analysis.ratings,
        analysis.nash,
        analysis.melo,
        analysis.hodge,
    )
    if ratings is not None:
        best = np.argsort(-ratings.ratings, kind="stable")[:5]
        out.write(
            "Highest ratings: "
            + ", ".join(
                f"{printable(ratings.players[k])} ({ratings.ratings[k]:.0f})"
                for k in best
            )
            + "\n"
        )
    if nash is not None:
        core = nash.players[nash.core[np.argsort(-nash.probability[nash.core])]]
        out.write(f"Nash core players ({len(core)}): {_names(core)}\n")
    if hodge is not None and not hodge.zero:
        line = f"Hodge transitive share (win-rate game): {hodge.transitive:.1%}"
        if hodge.get("null") is not None:
            line += (
                f"; cyclic share {hodge.cyclic:.1%} against "
                f"{hodge.null.mean:.1%} expected from the ratings alone ("
                + ("cyclic beyond noise" if hodge.beyond_noise else "within noise")
                + ")"
            )
        out.write(line + "\n")
    if melo is not None:
        out.write(
            f"mElo log-loss {melo.log_loss:.4f} (ratings alone "
            f"{melo.elo_log_loss:.4f})\n"
        )


def finish(analysis, result, out, *, show_reference=True):
    """Print the summary and the report's path; the exit status.

    0 when every section was drawn; ``EXIT_PARTIAL`` (3) when the report was
    written with error boxes, which stderr names.
    """
    if analysis.get("kind") == "matches":
        print_match_summary(analysis, out)
    else:
        print_summary(analysis, out)
    if show_reference:
        print_reference(analysis, out)
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


def _check_benchmark_options(args):
    """Options of a result matrix that a table of matches cannot use."""
    given = [
        option
        for option, value in (
            ("--threshold", args.threshold),
            ("--low-agent", args.low_agent),
            ("--high-agent", args.high_agent),
        )
        if value is not None
    ]
    if given:
        raise UsageError(
            f"{given[0]} applies to a result matrix, not to a table of matches"
        )


def _no_timer(name):
    return contextlib.nullcontext()


def run_matches(args, out, *, phase=None):
    """The match report: read, advise, analyse, write; the exit status.

    ``phase(name)``, when given, is a context manager entered around each
    phase (``"read"``, ``"advice"``, ``"analyses"``, ``"report"``): the
    benchmark times what the command runs with it.
    """
    from ..report import analyze_matches, prepare_matches

    phase = phase or _no_timer
    _check_benchmark_options(args)
    with phase("read"):
        table = read_match_file(args)
        matches = prepare_matches(
            table.X,
            table.y,
            table.sample_weight,
            name=args.title or str(args.path),
            reference_agents=args.reference_agent or None,
            include_reference=args.include_reference,
            covariates=table.covariates,
        )
        _check_tie_model(args, table.y, table.sample_weight)
    with phase("advice"):
        advice = _advice(args, matches.model_X, matches.y, matches.sample_weight)
    with phase("analyses"):
        analysis = analyze_matches(
            matches,
            alpha=args.alpha,
            interval_method=args.interval_method,
            n_resamples=args.n_resamples,
            n_components=args.n_components,
            clip=args.clip,
            random_state=args.random_state,
            n_jobs=args.n_jobs,
            progress=None if args.quiet else True,
            **_recommended_options(args, advice),
        )
    analysis["advice"] = advice
    with phase("report"):
        result = _write(args, analysis)
    return finish(analysis, result, out)


def _labels_in_two_columns(path, sep):
    """Whether the first data row has two or more non-numeric fields."""
    from ..report import CSVError, read_csv

    try:
        _, rows = read_csv(path, sep=sep)
    except CSVError:
        return False
    numeric = 0
    for field in rows[0]:
        try:
            float(field)
        except ValueError:
            continue
        numeric += 1
    return len(rows[0]) - numeric >= 2


def read_result_table(args, detected):
    """The result matrix; a matches hint when a wide file looks like matches."""
    from ..report import CSVError

    try:
        return read_scores(args)
    except CSVError as exc:
        if detected != "wide" or not _labels_in_two_columns(args.path, args.sep):
            raise
        raise CommandError(
            f"{exc}; if it is a table of matches, name its columns: --first-col, "
            "--second-col and --outcome-col (or --format matches)"
        ) from None


def _check_tie_model(args, y, sample_weight):
    """Refuse a tie model asked for on matches that are all ties, as ``rank``
    does (its parameter would be infinite), before any section is built."""
    ties = getattr(args, "ties", None)
    if ties in (None, "half"):
        return
    y = np.asarray(y, dtype=np.float64)
    weight = (np.ones(y.shape[0]) if sample_weight is None
              else np.asarray(sample_weight, dtype=np.float64))
    if not np.any((y != 0.5) & (weight > 0)):
        raise CommandError(
            f"--ties {ties} cannot be fitted when every match (with positive weight) "
            "is a tie: the tie parameter would be infinite. Use --ties half or add "
            "decided matches.")


#: the options of the "match reports" group
MATCH_REPORT_OPTIONS = ("interval_method", "alpha", "ties", "first_advantage",
                        "n_components", "clip")


def run(args, out):
    detected = report_format(args)
    if detected == "matches":
        return run_matches(args, out)
    warn_ignored(args, MATCH_REPORT_OPTIONS,
                 f"{args.path} is a result table; the option applies to the "
                 "report of a table of matches")
    bench = benchmark(args, read_result_table(args, detected))
    analysis, result = write(args, bench)
    return finish(analysis, result, out)
