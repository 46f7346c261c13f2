"""Command line interface: ``sklearn-eval`` and ``python -m sklearn_eval``.

Commands
--------
``rank``        matches CSV -> Elo, Bradley-Terry or mElo rating table
``nash``        result matrix, win-rate matrix or matches -> Nash averages
``irt``         result matrix -> 2PL item parameters and agent abilities
``generality``  result matrix -> ability, generality and response-curve indicators
``select``      result matrix -> reduced task subset by information gain
``report``      result matrix -> one self-contained HTML report of all the above
``demo``        the report on the built-in Atari data

Every command prints its result on stdout; progress of long work goes to
stderr; errors in the user's input are one line on stderr and a non-zero exit
code (1 for bad data, 2 for bad options), never a traceback (``--debug``
shows it).
"""

from __future__ import annotations

import argparse
import csv
import sys
import warnings

import numpy as np

from . import __version__

__all__ = ["main"]


class CommandError(Exception):
    """An error in the user's input, reported as one line."""


# ---------------------------------------------------------------------------
# Output helpers
# ---------------------------------------------------------------------------
def _format_table(header, rows):
    table = [[str(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[k]) for row in table) for k in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))

    lines = [line(table[0]), line(["-" * w for w in widths])]
    lines += [line(row) for row in table[1:]]
    return "\n".join(text.rstrip() for text in lines)


def _num(value, digits=3):
    value = float(value)
    if np.isnan(value):
        return "-"
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _emit(args, out, header, rows, title=None):
    """Print a table (at most ``--top`` rows) and write it all to ``--csv``."""
    if title:
        out.write(title + "\n")
    top = getattr(args, "top", None)
    shown = rows if not top else rows[:top]
    out.write(_format_table(header, shown) + "\n")
    if top and len(rows) > top:
        out.write(f"... {len(rows) - top} more rows (--top 0 shows all)\n")
    path = getattr(args, "csv", None)
    if path:
        try:
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(header)
                writer.writerows(rows)
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None
        out.write(f"table written to {path}\n")


def _progress(args):
    if getattr(args, "quiet", False):
        return None
    return True


def _say(args, message):
    if not getattr(args, "quiet", False):
        sys.stderr.write(f"[sklearn-eval] {message}\n")
        sys.stderr.flush()


# ---------------------------------------------------------------------------
# Reading inputs
# ---------------------------------------------------------------------------
def _read_scores(args):
    from .report import read_result_matrix

    fmt = args.format
    if fmt == "auto" and (args.task_col is not None or args.score_col is not None):
        fmt = "long"
    table = read_result_matrix(
        args.path,
        format=fmt,
        agent_col=args.agent_col,
        task_col=args.task_col or "task",
        score_col=args.score_col or "score",
        sep=args.sep,
    )
    _say(
        args,
        f"read {table.values.shape[0]} agents x {table.values.shape[1]} tasks from "
        f"{args.path} ({np.isnan(table.values).mean():.1%} missing)",
    )
    return table


def _baselines(args, table):
    """Per-task low/high baselines from the rows named by --low/--high-agent."""
    low_name, high_name = args.low_agent, args.high_agent
    if low_name is None and high_name is None:
        return None, None
    if low_name is None or high_name is None:
        raise CommandError("give both --low-agent and --high-agent, or neither")
    agents = [str(a) for a in table.agents]
    rows = []
    for option, name in (("--low-agent", low_name), ("--high-agent", high_name)):
        if name not in agents:
            raise CommandError(f"{option} {name!r} is not an agent of {table.source}")
        rows.append(table.values[agents.index(name)])
    low, high = rows
    bad = np.flatnonzero(np.isnan(low) | np.isnan(high) | (high == low))
    if bad.size:
        raise CommandError(
            f"the baselines {low_name!r} and {high_name!r} are missing or equal on "
            f"task {table.tasks[bad[0]]!r}; baseline normalisation needs both on "
            "every task"
        )
    return low, high


def _threshold(args):
    value = args.threshold
    if value is None or value == "median":
        return value
    try:
        return float(value)
    except ValueError:
        raise CommandError(
            f"--threshold must be a number or 'median'; got {value!r}"
        ) from None


def _benchmark(args, table):
    from .report import prepare_benchmark

    low, high = _baselines(args, table)
    return prepare_benchmark(
        table.values,
        agents=table.agents,
        tasks=table.tasks,
        low=low,
        high=high,
        threshold=_threshold(args),
        stds=table.stds
        if table.counts is not None and (table.counts > 1).any()
        else None,
        name=args.title or str(args.path),
    )


def _read_match_file(args):
    from .report import read_matches

    table = read_matches(
        args.path,
        first_col=args.first_col,
        second_col=args.second_col,
        outcome_col=args.outcome_col,
        first_score_col=args.first_score_col,
        second_score_col=args.second_score_col,
        weight_col=args.weight_col,
        sep=args.sep,
    )
    _say(args, f"read {len(table.y)} matches from {args.path}")
    return table


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------
def _rank_estimator(args):
    from .pairwise import EloRanker, MultiElo

    if args.method == "elo":
        return EloRanker(k_factor=args.k_factor, scale=args.scale)
    if args.method == "bt":
        return EloRanker(method="batch", alpha=args.alpha, scale=args.scale)
    return MultiElo(
        n_components=args.n_components,
        method="batch" if args.method == "melo-batch" else "online",
        k_factor=args.k_factor,
        scale=args.scale,
        random_state=args.random_state,
        **({"alpha": args.alpha} if args.method == "melo-batch" and args.alpha else {}),
    )


def _rank(args, out):
    from sklearn.base import clone

    from .uncertainty import bootstrap_ranking

    matches = _read_match_file(args)
    estimator = _rank_estimator(args)
    _say(args, f"fitting {type(estimator).__name__} ({args.method})")
    model = clone(estimator).fit(
        matches.X, matches.y, sample_weight=matches.sample_weight
    )
    intervals = None
    if args.intervals:
        _say(args, f"bootstrap: {args.intervals} resamples of the matches")
        intervals = bootstrap_ranking(
            estimator,
            matches.X,
            matches.y,
            statistic="ratings_",
            resample="matches",
            n_resamples=args.intervals,
            random_state=args.random_state,
            n_jobs=args.n_jobs,
            fit_params=None
            if matches.sample_weight is None
            else {"sample_weight": matches.sample_weight},
        )
    games = _games_played(matches.X, model.players_)
    order = np.argsort(-model.ratings_, kind="stable")
    header = ["rank", "player", "rating", "games"]
    if intervals is not None:
        header += ["low", "high", "rank range"]
    transitive = getattr(model, "transitive_ratings_", None)
    if transitive is not None:
        header.append("transitive rating")
    rows = []
    for rank, k in enumerate(order, start=1):
        row = [rank, model.players_[k], _num(model.ratings_[k], 1), int(games[k])]
        if intervals is not None:
            row += [
                _num(intervals.low[k], 1),
                _num(intervals.high[k], 1),
                f"{int(intervals.rank_low[k])}-{int(intervals.rank_high[k])}",
            ]
        if transitive is not None:
            row.append(_num(transitive[k], 1))
        rows.append(row)
    title = (
        f"{type(model).__name__} ({args.method}) ratings of "
        f"{len(model.players_)} players from {len(matches.y)} matches"
    )
    _emit(args, out, header, rows, title)
    return 0


def _games_played(X, players):
    from .utils import lookup_players

    index = np.concatenate(
        [lookup_players(X[:, 0], players), lookup_players(X[:, 1], players)]
    )
    return np.bincount(index[index >= 0], minlength=len(players))


def _nash_matrix(args):
    """The game for ``nash``: (matrix, row labels, column labels, game, payoff)."""
    from .game import complete_submatrix, fill_win_rates

    if args.input == "matches":
        matches = _read_match_file(args)
        _say(args, "win rates from the matches (unplayed pairs filled by mElo)")
        P, players, _ = fill_win_rates(matches.X, matches.y, matches.sample_weight)
        return P, players, players, "agent_vs_agent"
    table = _read_scores(args)
    if args.input == "win-rates":
        return _win_rate_matrix(table), table.agents, table.agents, "agent_vs_agent"
    values, rows, cols = complete_submatrix(table.values, return_masks=True)
    if values.shape[0] < 2 or values.shape[1] < 1:
        raise CommandError(f"{args.path} has no complete block of 2 agents x 1 task")
    if not (rows.all() and cols.all()):
        _say(
            args,
            f"missing results: using the complete block of {values.shape[0]} "
            f"agents x {values.shape[1]} tasks",
        )
    return values, table.agents[rows], table.tasks[cols], "agent_vs_task"


def _win_rate_matrix(table):
    values = table.values
    if values.shape[0] != values.shape[1]:
        raise CommandError(
            f"a win-rate matrix must be square (agents x the same agents); "
            f"{table.source} is {values.shape[0]} x {values.shape[1]}"
        )
    if [str(a) for a in table.agents] != [str(t) for t in table.tasks]:
        raise CommandError(
            f"the columns of {table.source} must name the same agents as its rows, "
            "in the same order"
        )
    values = values.copy()
    np.fill_diagonal(values, 0.5)
    if np.isnan(values).any():
        i, j = np.unravel_index(np.argmax(np.isnan(values)), values.shape)
        raise CommandError(
            f"{table.source}: missing win rate of {table.agents[i]!r} against "
            f"{table.agents[j]!r}; give matches (--input matches) to fill unplayed "
            "pairs with a model"
        )
    return values


def _nash(args, out):
    from .game import NashAverager

    matrix, row_labels, col_labels, game = _nash_matrix(args)
    normalize = None if args.normalize == "none" else args.normalize
    if game == "agent_vs_agent":
        estimator = NashAverager(game=game, payoff="probability", clip=args.clip)
    else:
        estimator = NashAverager(normalize=normalize)
    _say(
        args,
        f"solving the {game.replace('_', '-')} game ({matrix.shape[0]} x "
        f"{matrix.shape[1]})",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = estimator.fit(matrix)
    # below 1e-12 the digits are rounding noise (they differ between -0.0 and
    # 0.0 inputs); print the bound instead
    gap = model.exploitability_
    gap_text = f"{gap:.1e}" if gap >= 1e-12 else "< 1e-12"
    out.write(f"value {model.value_:.4f}, exploitability {gap_text}\n")
    out.write(f"Hodge transitive share: {_transitive_share(model, game):.1%}\n")
    # the uniform average: mean payoff against all tasks (or all agents)
    uniform = model.payoff_.mean(axis=1)
    order = np.lexsort((-uniform, -model.agent_skill_))
    rows = [
        [
            k + 1,
            row_labels[a],
            _num(model.agent_distribution_[a]),
            _num(model.agent_skill_[a]),
            _num(uniform[a]),
        ]
        for k, a in enumerate(order)
    ]
    _emit(
        args,
        out,
        ["rank", "agent", "Nash probability", "Nash average", "uniform average"],
        rows,
        "agents (core agents have p > 0):",
    )
    if game == "agent_vs_task":
        out.write("\n")
        tasks = np.argsort(-model.difficulty_, kind="stable")
        core = [t for t in tasks if model.task_distribution_[t] > 0]
        task_rows = [
            [
                col_labels[t],
                _num(model.task_distribution_[t]),
                _num(model.difficulty_[t]),
            ]
            for t in core
        ]
        out.write("core tasks (Nash probability > 0):\n")
        out.write(
            _format_table(["task", "Nash probability", "Nash difficulty"], task_rows)
            + "\n"
        )
    return 0


def _transitive_share(model, game):
    """Transitive share of the solved game (logits, or the AvT flow)."""
    from .game import avt_embedding, hodge_decomposition

    payoff = model.payoff_
    if game == "agent_vs_task":
        payoff = avt_embedding(payoff).flow
    return hodge_decomposition(payoff).transitive_share


def _fit_irt(args, bench):
    from .irt import IRT2PL

    estimator = (
        IRT2PL() if args.no_prior else IRT2PL(a_prior=(1.0, 2.0), b_prior=(0.0, 2.0))
    )
    _say(args, f"fitting IRT2PL on {bench.response_rule}")
    return estimator.fit(bench.responses)


def _irt(args, out):
    bench = _benchmark(args, _read_scores(args))
    model = _fit_irt(args, bench)
    rate = np.nanmean(bench.responses, axis=0)
    order = np.argsort(-np.nan_to_num(model.difficulty_, nan=-np.inf), kind="stable")
    rows = [
        [
            bench.tasks[t],
            _num(model.difficulty_[t], 2),
            _num(model.discrimination_[t], 2),
            _num(rate[t], 2),
        ]
        for t in order
    ]
    out.write(
        f"IRT 2PL: log-likelihood {model.log_likelihood_:.2f}, "
        f"{model.n_iter_} EM iterations; {bench.response_rule}\n"
    )
    _emit(
        args,
        out,
        ["task", "difficulty", "discrimination", "success rate"],
        rows,
        "tasks, hardest first:",
    )
    out.write("\nagents, most able first:\n")
    agents = np.argsort(-model.abilities_, kind="stable")
    out.write(
        _format_table(
            ["agent", "ability", "sd"],
            [
                [
                    bench.agents[a],
                    _num(model.abilities_[a], 2),
                    _num(model.abilities_sd_[a], 2),
                ]
                for a in agents
            ],
        )
        + "\n"
    )
    return 0


def _generality(args, out):
    from sklearn.frozen import FrozenEstimator

    from .irt import GeneralityScorer

    bench = _benchmark(args, _read_scores(args))
    irt = _fit_irt(args, bench)
    scorer = GeneralityScorer(difficulty=FrozenEstimator(irt), bins=args.bins)
    scorer.fit(bench.responses)
    values = scorer.transform(bench.responses)
    names = list(scorer.get_feature_names_out())
    order = np.argsort(-irt.abilities_, kind="stable")
    columns = [
        "generality",
        "capability",
        "spread",
        "normalized_generality",
        "mean_score",
    ]
    rows = [
        [bench.agents[a], _num(irt.abilities_[a], 2)]
        + [_num(values[a, names.index(c)], 3) for c in columns]
        for a in order
    ]
    _emit(
        args,
        out,
        ["agent", "ability", *columns],
        rows,
        f"generality over {len(scorer.bin_counts_)} IRT difficulty bins "
        f"({bench.response_rule}):",
    )
    return 0


def _select(args, out):
    from .report._analysis import _complete_block, _selection

    bench = _benchmark(args, _read_scores(args))
    block = _complete_block(bench)
    _say(
        args,
        f"information gain on the complete block {block.scaled.shape[0]} x "
        f"{block.scaled.shape[1]}",
    )
    result = _selection(bench, block, args.n_tasks, args.spread)
    rows = [
        [
            step,
            block.tasks[t],
            _num(result.information_gain[t]),
            _num(result.cumulative_gain[step - 1]),
        ]
        for step, t in enumerate(result.order, start=1)
    ]
    _emit(
        args,
        out,
        ["step", "task", "gain alone (bits)", "cumulative gain (bits)"],
        rows,
        f"selected {len(rows)} of {block.scaled.shape[1]} tasks "
        f"(max {result.max_information:.3f} bits; {result.spread_rule}):",
    )
    if result.agreement is not None:
        out.write(
            f"agreement with the full benchmark: Kendall tau "
            f"{result.agreement.kendall_tau:.3f}, Spearman rho "
            f"{result.agreement.spearman_rho:.3f}\n"
        )
    return 0


def _write_report(args, bench, out):
    from .report import analyze_benchmark, write_report

    analysis = analyze_benchmark(
        bench,
        n_tasks=args.n_tasks,
        spread=args.spread,
        irt_prior=not args.no_prior,
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        progress=_progress(args),
    )
    try:
        path = write_report(
            analysis, args.output, figures=not args.no_figures, progress=_progress(args)
        )
    except OSError as exc:
        raise CommandError(
            f"cannot write {args.output}: {exc.strerror or exc}"
        ) from None
    return analysis, path


def _report(args, out):
    bench = _benchmark(args, _read_scores(args))
    analysis, path = _write_report(args, bench, out)
    _print_report_summary(analysis, out)
    out.write(f"report written to {path}\n")
    return 0


def _print_report_summary(analysis, out):
    nash, block, irt = analysis.nash, analysis.block, analysis.irt
    core = block.agents[
        nash.core_agents[np.argsort(-nash.agent_probability[nash.core_agents])]
    ]
    out.write(f"Nash core agents ({len(core)}): {', '.join(map(str, core))}\n")
    tasks = block.tasks[
        nash.core_tasks[np.argsort(-nash.task_probability[nash.core_tasks])]
    ]
    out.write(f"Nash core tasks ({len(tasks)}): {', '.join(map(str, tasks))}\n")
    best = np.argsort(-irt.ability, kind="stable")[:5]
    out.write(
        "Highest IRT abilities: "
        + ", ".join(
            f"{analysis.benchmark.agents[a]} ({irt.ability[a]:.2f})" for a in best
        )
        + "\n"
    )
    h = analysis.hodge
    out.write(f"Hodge transitive share (agents vs tasks): {h.transitive:.1%}\n")
    sel = analysis.selection
    line = (
        f"Reduced subset ({len(sel.order)} tasks): "
        f"{', '.join(map(str, block.tasks[sel.order]))}"
    )
    if sel.agreement is not None:
        line += f"; Kendall tau with the full benchmark {sel.agreement.kendall_tau:.3f}"
    out.write(line + "\n")


def _atari_benchmark():
    from .datasets import load_atari, load_atari_reference_scores
    from .report import prepare_benchmark

    atari = load_atari()
    reference = load_atari_reference_scores()
    position = {game: k for k, game in enumerate(reference.games)}
    index = [position[game] for game in atari.feature_names]
    return prepare_benchmark(
        atari.data,
        agents=atari.agent_names,
        tasks=atari.feature_names,
        low=reference.random[index],
        high=reference.human[index],
        threshold=100.0,
        name="Atari 57 (rldb, no-op starts)",
    )


def _demo(args, out):
    from .datasets import describe_datasets

    out.write(f"sklearn-eval {__version__}: built-in benchmark data\n\n")
    rows = [
        (d["name"], "x".join(str(s) for s in d["shape"]), d["kind"], d["licence"])
        for d in describe_datasets()
    ]
    out.write(_format_table(("dataset", "shape", "kind", "licence"), rows) + "\n\n")
    bench = _atari_benchmark()
    scores = bench.scores
    complete = ~np.isnan(scores).any(axis=0)
    out.write(
        f"Atari (rldb, no-op starts): {len(bench.agents)} agents x {scores.shape[1]} "
        f"games, {np.isnan(scores).mean():.1%} missing, {complete.sum()} games "
        "scored by every agent.\n"
    )
    ranks = np.argsort(np.argsort(-scores[:, complete], axis=0), axis=0) + 1
    mean_rank = ranks.mean(axis=1)
    order = np.argsort(mean_rank)[:10]
    rows = [
        (k + 1, bench.agents[a], f"{mean_rank[a]:.1f}") for k, a in enumerate(order)
    ]
    out.write("Top 10 agents by mean per-game rank (uniform average over games):\n")
    out.write(_format_table(("#", "agent", "mean rank"), rows) + "\n\n")
    out.write(
        "Report on Atari: success = human-normalised score >= 100 "
        "(random = 0, human = 100)\n"
    )
    analysis, path = _write_report(args, bench, out)
    _print_report_summary(analysis, out)
    out.write(f"report written to {path}\n")
    return 0


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------
def _add_common(parser):
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="no progress messages on stderr"
    )
    parser.add_argument(
        "--debug", action="store_true", help="show the full traceback of an error"
    )


def _add_csv_options(parser):
    parser.add_argument(
        "--sep",
        default=None,
        help="field separator (default: sniffed; ',' when unsure)",
    )
    parser.add_argument(
        "--csv",
        metavar="PATH",
        default=None,
        help="also write the main table to this CSV file",
    )
    parser.add_argument(
        "--top", type=int, default=0, help="print only the first N rows (default: all)"
    )


def _add_matrix_options(parser, *, tables=True):
    parser.add_argument("path", help="CSV file (long or wide; .gz accepted)")
    parser.add_argument(
        "--format",
        choices=("auto", "long", "wide"),
        default="auto",
        help="long: one (agent, task, score) per row, repeats are "
        "runs; wide: one row per agent, one column per task; auto: "
        "long when the task and score columns exist",
    )
    parser.add_argument(
        "--agent-col",
        default="agent",
        help="agent column (wide: default the first column)",
    )
    parser.add_argument(
        "--task-col",
        default=None,
        help="task column of a long file (default 'task'; giving it "
        "implies --format long)",
    )
    parser.add_argument(
        "--score-col",
        default=None,
        help="score column of a long file (default 'score'; giving "
        "it implies --format long)",
    )
    if tables:
        _add_csv_options(parser)
    else:
        parser.add_argument(
            "--sep",
            default=None,
            help="field separator (default: sniffed; ',' when unsure)",
        )
    parser.add_argument("--title", default=None, help="name of the benchmark")


def _add_success_options(parser):
    parser.add_argument(
        "--threshold",
        default=None,
        help="success = score >= THRESHOLD (a number or 'median', "
        "the task's median); default: the scores if already 0/1, "
        "else 'median'",
    )
    parser.add_argument(
        "--low-agent",
        default=None,
        help="agent whose scores are 0 after baseline "
        "normalisation (e.g. a random agent)",
    )
    parser.add_argument(
        "--high-agent",
        default=None,
        help="agent whose scores are 100 after baseline "
        "normalisation (e.g. human); the threshold then applies "
        "to the normalised scores",
    )
    parser.add_argument(
        "--no-prior",
        action="store_true",
        help="fit IRT by plain marginal maximum likelihood (default: "
        "weak priors a ~ N(1, 2), b ~ N(0, 2), needed with few "
        "agents)",
    )


def _add_selection_options(parser):
    parser.add_argument(
        "--n-tasks",
        type=_positive_int,
        default=10,
        help="size of the reduced task subset (default 10)",
    )
    parser.add_argument(
        "--spread",
        type=_positive_float,
        default=0.05,
        help="run-to-run spread assumed on each task's min-max "
        "scale when the data have one score per agent and task "
        "(default 0.05)",
    )


def _add_match_options(parser):
    parser.add_argument("--first-col", default="first", help="first player column")
    parser.add_argument("--second-col", default="second", help="second player column")
    parser.add_argument(
        "--outcome-col",
        default="outcome",
        help="first player's outcome: 1/0/0.5 or win/loss/draw",
    )
    parser.add_argument(
        "--first-score-col",
        default=None,
        help="first player's score (with --second-score-col, "
        "instead of an outcome column)",
    )
    parser.add_argument(
        "--second-score-col", default=None, help="second player's score"
    )
    parser.add_argument("--weight-col", default=None, help="match weights")


def _add_report_options(parser, default_resamples):
    parser.add_argument(
        "--output",
        "-o",
        default="sklearn-eval-report.html",
        help="HTML file to write (default: sklearn-eval-report.html)",
    )
    parser.add_argument(
        "--n-resamples",
        type=_non_negative_int,
        default=default_resamples,
        help="bootstrap resamples of the tasks for the ranking "
        f"intervals; 0 skips them (default {default_resamples})",
    )
    parser.add_argument(
        "--no-figures", action="store_true", help="tables only (no matplotlib needed)"
    )
    parser.add_argument("--random-state", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=None)


def _positive_int(text):
    value = _non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {text!r}")
    return value


def _non_negative_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0; got {text!r}")
    return value


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number; got {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    """Argument parser whose usage errors are one line (exit code 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {_one_line(message)} (see --help)\n")


def _build_parser():
    parser = _Parser(
        prog="sklearn-eval",
        description="Evaluate the evaluators: rankings and diagnostics for "
        "benchmark results.",
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=_Parser
    )

    rank = commands.add_parser("rank", help="matches CSV -> Elo/BT/mElo ratings")
    rank.add_argument("path", help="matches CSV (one game per row)")
    _add_match_options(rank)
    rank.add_argument(
        "--method",
        choices=("elo", "bt", "melo", "melo-batch"),
        default="bt",
        help="elo: online Elo (order matters); bt: "
        "batch Bradley-Terry (default); melo / melo-batch: "
        "multidimensional Elo, online or batch",
    )
    rank.add_argument("--k-factor", type=_positive_float, default=16.0)
    rank.add_argument(
        "--alpha",
        type=float,
        default=0.0,
        help="L2 prior of the batch fits (needed for undefeated players)",
    )
    rank.add_argument(
        "--n-components", type=_positive_int, default=1, help="mElo cyclic planes"
    )
    rank.add_argument("--scale", choices=("elo", "logit"), default="elo")
    rank.add_argument(
        "--intervals",
        type=_non_negative_int,
        default=0,
        help="bootstrap resamples of the matches for intervals",
    )
    rank.add_argument("--random-state", type=int, default=0)
    rank.add_argument("--n-jobs", type=int, default=None)
    _add_csv_options(rank)
    rank.set_defaults(handler=_rank)

    nash = commands.add_parser("nash", help="Nash averaging of agents (and tasks)")
    _add_matrix_options(nash)
    _add_match_options(nash)
    nash.add_argument(
        "--input",
        choices=("scores", "win-rates", "matches"),
        default="scores",
        help="scores: agents x tasks (default); "
        "win-rates: square matrix of P(row beats column); matches: "
        "a matches CSV (unplayed pairs filled by mElo)",
    )
    nash.add_argument(
        "--normalize",
        choices=("minmax", "zscore", "none"),
        default="minmax",
        help="per-task rescaling of scores (default minmax, as the paper)",
    )
    nash.add_argument(
        "--clip",
        type=float,
        default=1e-3,
        help="win rates clipped to [clip, 1 - clip] before the logit",
    )
    nash.set_defaults(handler=_nash)

    for name, handler, text in (
        ("irt", _irt, "2PL item difficulty/discrimination and agent ability"),
        ("generality", _generality, "agent ability, generality and response curves"),
    ):
        command = commands.add_parser(name, help=text)
        _add_matrix_options(command)
        _add_success_options(command)
        if name == "generality":
            command.add_argument(
                "--bins",
                type=_positive_int,
                default=10,
                help="difficulty bins (default 10)",
            )
        command.set_defaults(handler=handler)

    select = commands.add_parser(
        "select", help="reduced task subset by information gain"
    )
    _add_matrix_options(select)
    _add_selection_options(select)
    select.add_argument("--threshold", default=None, help=argparse.SUPPRESS)
    select.set_defaults(handler=_select, low_agent=None, high_agent=None)

    report = commands.add_parser("report", help="one HTML report of every analysis")
    _add_matrix_options(report, tables=False)
    _add_success_options(report)
    _add_selection_options(report)
    _add_report_options(report, default_resamples=100)
    report.set_defaults(handler=_report)

    demo = commands.add_parser(
        "demo", help="summarise the built-in data and write the Atari report"
    )
    _add_selection_options(demo)
    _add_report_options(demo, default_resamples=100)
    demo.set_defaults(handler=_demo, no_prior=False)

    for command in commands.choices.values():
        _add_common(command)
    return parser


def _one_line(exc):
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def main(argv=None, out=None):
    """Run the command line interface; return the exit code.

    Parameters
    ----------
    argv : list of str or None, default=None
        Arguments (``sys.argv[1:]`` when None).
    out : file-like or None, default=None
        Where results are printed (stdout when None). Progress and errors go
        to stderr.

    Returns
    -------
    int
        0 on success, 1 for an error in the data, 2 for a usage error.

    Examples
    --------
    >>> import io, os, tempfile
    >>> from sklearn_eval.cli import main
    >>> path = os.path.join(tempfile.mkdtemp(), "m.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("first,second,outcome\\na,b,1\\nb,c,1\\nc,a,0\\na,c,0.5\\n")
    >>> out = io.StringIO()
    >>> main(["rank", path, "--method", "elo", "--quiet"], out=out)
    0
    >>> print(out.getvalue().splitlines()[3])
    1     a       1514.9  3
    """
    out = sys.stdout if out is None else out
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version or a usage error
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "handler", None) is None:
        parser.print_help(out)
        return 2
    if args.debug:
        return args.handler(args, out)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            return args.handler(args, out)
        except KeyboardInterrupt:
            sys.stderr.write(f"sklearn-eval {args.command}: interrupted\n")
            return 130
        except (CommandError, ValueError, TypeError, OSError) as exc:
            sys.stderr.write(f"sklearn-eval {args.command}: error: {_one_line(exc)}\n")
            return 1
        except Exception as exc:  # never a traceback: one line, details on --debug
            sys.stderr.write(
                f"sklearn-eval {args.command}: error: {type(exc).__name__}: "
                f"{_one_line(exc)} (rerun with --debug for details)\n"
            )
            return 1


def _show_warning(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(f"sklearn-eval: warning: {_one_line(message)}\n")
