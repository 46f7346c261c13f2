"""``sklearn-eval irt``: item parameters (1PL to 4PL) and agent ability."""

from __future__ import annotations

import numpy as np

from ._inputs import benchmark, read_scores
from ._options import (
    add_matrix_input,
    add_success_options,
    add_table_output,
    positive_int,
)
from ._output import Table, UsageError, emit, fixed, say

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "irt", help="item difficulty/discrimination (1PL-4PL) and agent ability"
    )
    add_matrix_input(parser)
    add_success_options(parser)
    parser.add_argument(
        "--model",
        choices=["1PL", "2PL", "3PL", "4PL"],
        default="2PL",
        help="item response model (default 2PL): 3PL adds a guessing floor per "
        "item (multiple-choice benchmarks), 4PL an upper asymptote as well; "
        "the priors of --no-prior apply to the 1PL and 2PL",
    )
    parser.add_argument(
        "--n-options",
        type=positive_int,
        default=None,
        help="number of answer options of the items (3PL, 4PL): a prior on the "
        "guessing floor centred at 1/n-options (default: maximum likelihood)",
    )
    add_table_output(parser)
    parser.set_defaults(handler=run)
    return parser


def irt_estimator(args):
    """The estimator of ``sklearn-eval irt`` for the parsed options.

    1PL and 2PL: ``IRT2PL(model=...)`` with the weak priors unless
    ``--no-prior``; 3PL and 4PL: ``IRT(model=..., n_options=...)``.
    """
    from ..irt import IRT, IRT2PL

    model = getattr(args, "model", "2PL")
    n_options = getattr(args, "n_options", None)
    if model in ("1PL", "2PL"):
        if n_options is not None:
            raise UsageError(
                f"--n-options applies to --model 3PL or 4PL, not {model}"
            )
        if args.no_prior:
            return IRT2PL(model=model)
        return IRT2PL(model=model, a_prior=(1.0, 2.0), b_prior=(0.0, 2.0))
    if n_options is not None and n_options < 2:
        raise UsageError(f"--n-options must be at least 2; got {n_options}")
    return IRT(model=model, n_options=n_options)


def fit_irt(args, bench):
    """The IRT model of the options fitted to the benchmark's 0/1 successes."""
    estimator = irt_estimator(args)
    n_agents, n_tasks = bench.responses.shape
    say(
        args,
        f"fitting {_label(estimator)} to {n_agents} agents x {n_tasks} tasks; "
        f"{bench.response_rule}",
    )
    return estimator.fit(bench.responses)


def _label(estimator):
    name = type(estimator).__name__
    return name if estimator.model == "2PL" else f"{name}(model={estimator.model!r})"


def task_table(model, bench):
    rate = np.nanmean(bench.responses, axis=0)
    order = np.argsort(-np.nan_to_num(model.difficulty_, nan=-np.inf), kind="stable")
    extra = [name for name in ("guessing", "upper")
             if model.model in ({"3PL", "4PL"} if name == "guessing" else {"4PL"})]
    rows = [
        [
            bench.tasks[t],
            float(model.difficulty_[t]),
            float(model.discrimination_[t]),
            *(float(getattr(model, name + "_")[t]) for name in extra),
            float(rate[t]),
        ]
        for t in order
    ]
    return Table(
        ["task", "difficulty", "discrimination", *extra, "success rate"],
        rows,
        [None, fixed(2), fixed(2), *(fixed(3) for _ in extra), fixed(2)],
        title="tasks, hardest first:",
        key="tasks",
    )


def ability_table(model, bench):
    order = np.argsort(-model.abilities_, kind="stable")
    rows = [
        [bench.agents[a], float(model.abilities_[a]), float(model.abilities_sd_[a])]
        for a in order
    ]
    return Table(
        ["agent", "ability", "sd"],
        rows,
        [None, fixed(2), fixed(2)],
        title="agents, most able first:",
        key="agents",
    )


def run(args, out):
    bench = benchmark(args, read_scores(args))
    model = fit_irt(args, bench)
    out.write(
        f"IRT {model.model}: log-likelihood {model.log_likelihood_:.2f}, "
        f"{model.n_iter_} EM iterations; {bench.response_rule}\n"
    )
    emit(args, out, task_table(model, bench), ability_table(model, bench))
    return 0
