"""``sklearn-eval advise``: which ranking method fits this file, and why.

Reads the files ``report`` and ``rank`` read (a result matrix, long or wide,
or a table of matches) and prints the advisor's diagnostics, its candidate
models with their held-out scores and the explanation of its choice;
``--csv`` writes the two tables.
"""

from __future__ import annotations

from ._inputs import input_format, read_match_file, read_scores
from ._options import (
    add_drop_empty,
    add_match_input,
    add_matrix_input,
    add_table_output,
    n_jobs,
    positive_int,
    seed,
)
from ._output import Table, emit, fixed, number, say

__all__ = []

KINDS = ("auto", "matches", "game", "binary", "graded", "continuous", "scores")


def add_parser(commands):
    parser = commands.add_parser(
        "advise",
        help="which ranking method fits the data, and why (diagnostics, "
        "held-out comparison of the candidate models, recommendation)",
    )
    add_matrix_input(parser, matches=True)
    add_match_input(parser, defaults_known=True)
    add_drop_empty(parser)
    parser.add_argument(
        "--kind", choices=KINDS, default="auto",
        help="the data kind (default: detected)",
    )
    parser.add_argument(
        "--cv", type=positive_int, default=5,
        help="folds of the held-out comparison (default 5)",
    )
    parser.add_argument(
        "--max-factors", type=positive_int, default=2,
        help="the most abilities of an item response candidate; 1 skips the "
        "2-factor 2PL (default 2)",
    )
    parser.add_argument("--random-state", type=seed, default=0)
    parser.add_argument(
        "--n-jobs", type=n_jobs, default=None,
        help="parallel workers (-1: every core; default one)",
    )
    add_table_output(parser, beside=("candidates",))
    # its methods work at unit scale or on the order of the scores: any finite
    # span of scores is data (see _inputs.read_scores)
    parser.set_defaults(handler=run, any_score_span=True)
    return parser


def advice_for(args):
    """The advice on the file of ``args`` (matches or a result matrix)."""
    import pandas as pd

    from ..advice import advise

    if input_format(args) == "matches":
        table = read_match_file(args)
        say(args, "comparing the candidate rating models by held-out votes")
        return advise(table.model_X, table.y, sample_weight=table.sample_weight,
                      kind="matches" if args.kind == "auto" else args.kind,
                      cv=args.cv, random_state=args.random_state,
                      n_jobs=args.n_jobs)
    table = read_scores(args)
    frame = pd.DataFrame(table.values, index=[str(a) for a in table.agents],
                         columns=[str(t) for t in table.tasks])
    say(args, "comparing the candidate models by held-out results")
    return advise(frame, kind=args.kind, cv=args.cv,
                  random_state=args.random_state, n_jobs=args.n_jobs,
                  max_factors=args.max_factors, drop_empty=args.drop_empty)


def tables(advice):
    """The diagnostics and candidates as printable tables."""
    diagnostics = Table(
        ["check", "value", "verdict"],
        [[check, row["value"], row["verdict"]]
         for check, row in advice.diagnostics.iterrows()],
        title="Diagnostics", key="diagnostics", ranked=False,
    )
    out = [diagnostics]
    if advice.candidates is not None:
        rows = [
            [name, row["heldout_loglik"], row["heldout_se"], row["diff_to_best"],
             row["diff_se"], int(row["n_parameters"]),
             "yes" if row["within_noise"] else "no",
             "<-" if row["recommended"] else ""]
            for name, row in advice.candidates.iterrows()
        ]
        out.append(Table(
            ["model", "heldout_loglik", "se", "behind_best", "paired_se",
             "n_parameters", "within_noise", "recommended"],
            rows,
            formats=[None, fixed(4), fixed(4), fixed(4), fixed(4), None, None, None],
            title="Candidates (held-out log-likelihood, mean over folds)",
            key="candidates", ranked=False,
        ))
    return out


def run(args, out):
    advice = advice_for(args)
    emit(args, out, *tables(advice))
    out.write("\n" + advice.explain() + "\n")
    if advice.agreement is not None:
        movers = advice.agreement.movers.head(5)
        out.write(
            "Agents that move most between methods: "
            + ", ".join(f"{name} ({number(spread, 0)})"
                        for name, spread in movers["rank_spread"].items())
            + "\n"
        )
    return 0
