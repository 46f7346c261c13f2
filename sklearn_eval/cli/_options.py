"""Argument parsing shared by the commands: value types and option groups.

Options carry the names of the Python API's parameters (``--k-factor`` for
``k_factor``, ``--n-resamples`` for ``n_resamples``, ...); the spellings of
earlier releases stay accepted as aliases.
"""

from __future__ import annotations

import argparse
import math

from ._output import one_line

__all__ = []


class Parser(argparse.ArgumentParser):
    """Argument parser whose usage errors are one line (exit code 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see --help)\n")


# ---------------------------------------------------------------------------
# Value types
# ---------------------------------------------------------------------------
def _parsed(text, kind):
    """``text`` as an ``int`` or ``float``, else the usage error naming it."""
    try:
        return kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None


def non_negative_int(text):
    value = _parsed(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0; got {text!r}")
    return value


def positive_int(text):
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {text!r}")
    return value


def positive_float(text):
    value = _parsed(text, float)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number; got {text!r}")
    return value


def non_negative_float(text):
    value = _parsed(text, float)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a number >= 0; got {text!r}")
    return value


def n_jobs(text):
    """joblib's ``n_jobs``: a non-zero integer (-1: every core)."""
    value = _parsed(text, int)
    if value == 0:
        raise argparse.ArgumentTypeError(
            "must be a non-zero integer (N workers, or -1 for every core); got "
            f"{text!r}"
        )
    return value


def seed(text):
    """A random seed: an integer in [0, 2**32 - 1], as numpy takes it."""
    value = _parsed(text, int)
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(
            f"must be an integer in [0, 2**32 - 1]; got {text!r}"
        )
    return value


def int_at_least(low):
    """A type: an integer >= ``low``."""

    def parse(text):
        value = _parsed(text, int)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}; got {text!r}")
        return value

    parse.__name__ = f"int_at_least_{low}"
    return parse


def number_in(low, high, *, low_closed=False):
    """A type: a finite number in (low, high), or [low, high) if ``low_closed``."""
    interval = f"{'[' if low_closed else '('}{low:g}, {high:g})"

    def parse(text):
        value = _parsed(text, float)
        above = value >= low if low_closed else value > low
        if not (math.isfinite(value) and above and value < high):
            raise argparse.ArgumentTypeError(f"must lie in {interval}; got {text!r}")
        return value

    parse.__name__ = f"number_in_{interval}"
    return parse


#: a probability strictly between 0 and 1 (confidence levels, power)
open_fraction = number_in(0.0, 1.0)


def clip_fraction(text):
    """A win-rate clip in (0, 0.5), as NashAverager's clip."""
    value = _parsed(text, float)
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be in (0, 0.5); got {text!r}")
    return value


_SEPARATORS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}


def separator(text):
    """One field separator character (``tab`` or ``\\t`` for a tab)."""
    value = _SEPARATORS.get(text, text)
    if len(value) != 1 or value in "\r\n\"'":
        raise argparse.ArgumentTypeError(
            f"must be one character (or 'tab'); got {text!r}"
        )
    return value


# ---------------------------------------------------------------------------
# Option groups
# ---------------------------------------------------------------------------
def add_common(parser):
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="no progress messages on stderr"
    )
    parser.add_argument(
        "--debug", action="store_true", help="show the full traceback of an error"
    )


def add_separator(parser):
    parser.add_argument(
        "--sep",
        type=separator,
        default=None,
        help="field separator of the input (default: sniffed; ',' when unsure)",
    )


def add_table_output(parser, *, top=0, beside=(), main="the first"):
    """``--csv`` and ``--top``; ``beside`` names the tables written beside PATH.

    The command's main table (``main`` says which, for ``--help``) is written
    to ``PATH``, the others to ``PATH`` with their key appended; declaring
    their keys lets every output path be checked against the inputs before
    the command runs.
    """
    parser.set_defaults(csv_beside=tuple(beside))
    example = f"out_{beside[0]}.csv" if beside else "out_agents.csv"
    parser.add_argument(
        "--csv",
        metavar="PATH",
        default=None,
        help=f"also write the printed tables to CSV: {main} to PATH, the "
        f"others to PATH with the table's name appended (e.g. {example})",
    )
    parser.add_argument(
        "--top",
        type=non_negative_int,
        default=top,
        help="print only the first N rows of each ranking (the CSV keeps all); "
        f"0 prints all (default {top})",
    )


def add_metric(parser):
    """``--metric``: the metric of an evaluation tool's output."""
    parser.add_argument(
        "--metric",
        default=None,
        help="the metric to use when PATH is an evaluation tool's output "
        "(lm-evaluation-harness, inspect_ai, HELM or AlpacaEval files, or "
        "a folder of them, detected); needed when it holds several",
    )


def add_matrix_input(parser, *, matches=False):
    what = "long, wide or matches" if matches else "long or wide"
    parser.add_argument(
        "path",
        help=f"CSV file ({what}; .gz accepted), or an evaluation tool's "
        "results file or folder (read as models x items; see --metric)",
    )
    add_metric(parser)
    choices = ("auto", "long", "wide") + (("matches",) if matches else ())
    detail = (
        "; matches: one game per row (--first-col, --second-col, "
        "--outcome-col); auto: matches when the player columns exist, else "
        "long when the task and score columns exist, else wide"
        if matches
        else "; auto: long when the task and score columns exist"
    )
    parser.add_argument(
        "--format",
        choices=choices,
        default="auto",
        help="long: one (agent, task, score) per row, repeats are "
        "runs; wide: one row per agent, one column per task" + detail,
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
    add_separator(parser)
    parser.add_argument("--title", default=None, help="name of the benchmark")


def add_drop_empty(parser):
    parser.add_argument(
        "--drop-empty",
        action="store_true",
        help="leave out the agents with no result at all, with a warning "
        "naming them (default: such agents are an error that names them)",
    )


def add_success_options(parser):
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
    add_drop_empty(parser)


def add_selection_options(parser):
    parser.add_argument(
        "--n-tasks",
        type=positive_int,
        default=10,
        help="size of the reduced task subset (default 10)",
    )
    parser.add_argument(
        "--spread",
        type=positive_float,
        default=0.05,
        help="run-to-run spread assumed on each task's min-max "
        "scale when the data have one score per agent and task "
        "(default 0.05)",
    )


def add_match_input(parser, *, defaults_known=False):
    """The columns of a matches file.

    With ``defaults_known``, an option left out is None (its default,
    "first", "second" or "outcome", applies), so that a command reading
    several formats can tell that a match column was named.
    """

    def default(name):
        return None if defaults_known else name

    parser.add_argument(
        "--first-col",
        default=default("first"),
        help="first player column (default 'first')",
    )
    parser.add_argument(
        "--second-col",
        default=default("second"),
        help="second player column (default 'second')",
    )
    parser.add_argument(
        "--outcome-col",
        default=default("outcome"),
        help="first player's outcome: 1/0/0.5 or win/loss/draw (default "
        "'outcome')",
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


def add_groups(parser, *, what):
    """``--groups COL``: the cluster label column, resampled as units."""
    parser.add_argument(
        "--groups", default=None, metavar="COL",
        help=f"cluster label column ({what}): clusters are resampled whole "
        "and analytic intervals are cluster-robust (correlated outcomes within "
        "a cluster do not count as independent); of an evaluation tool's "
        "output: 'item' (an item within its task), 'task' or another column "
        "of its rows",
    )


def add_resampling(parser, *, default, aliases=(), what="the tasks"):
    parser.add_argument(
        "--n-resamples",
        *aliases,
        dest="n_resamples",
        type=non_negative_int,
        default=default,
        help=f"bootstrap resamples of {what} for the ranking intervals; 0 skips "
        f"them (default {default})",
    )
    parser.add_argument("--random-state", type=seed, default=0)
    parser.add_argument(
        "--n-jobs", type=n_jobs, default=None,
        help="parallel workers (-1: every core; default one)",
    )


def add_reference_options(parser):
    parser.add_argument(
        "--reference-agent",
        action="append",
        default=[],
        metavar="NAME",
        help="a reference agent (a human, random or constant baseline): left "
        "out of the rankings and shown apart; repeat for several. "
        "--low-agent and --high-agent are reference agents too",
    )
    parser.add_argument(
        "--include-reference",
        action="store_true",
        help="rank the reference agents with the others (marked in the tables)",
    )


def add_report_output(parser):
    parser.add_argument(
        "--output",
        "-o",
        default="sklearn-eval-report.html",
        help="HTML file to write (default: sklearn-eval-report.html)",
    )
    parser.add_argument(
        "--no-figures", action="store_true", help="tables only (no matplotlib needed)"
    )


def first_advantage(text):
    """``fit`` or a number: EloRanker's ``first_advantage``."""
    if text == "fit":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be 'fit' or a number; got {text!r}"
        ) from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite; got {text!r}")
    return value


def add_rating_model_options(parser, *, ties_default="half"):
    """EloRanker's ties, first_advantage and covariates, with the API's names."""
    parser.add_argument(
        "--ties",
        choices=("half", "davidson", "rao-kupper"),
        default=None,
        help="how a draw enters the ratings (EloRanker's ties): half a win and "
        "half a loss (half), or a fitted three-outcome model (davidson, "
        f"rao-kupper); default {ties_default}",
    )
    parser.add_argument(
        "--first-advantage",
        type=first_advantage,
        default=None,
        metavar="{fit,NUMBER}",
        help="advantage of the first player (home advantage, first-shown "
        "answer) on the rating scale, or 'fit' to estimate it (EloRanker's "
        "first_advantage; default 0)",
    )
    parser.add_argument(
        "--covariates",
        nargs="+",
        default=None,
        metavar="COL",
        help="numeric columns of the file fitted jointly with the ratings, "
        "as per-match covariates of the first player's advantage (the "
        "covariate columns of EloRanker's X)",
    )
