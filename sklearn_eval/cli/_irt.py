"""``sklearn-eval irt``: 2PL item difficulty/discrimination and agent ability."""

from __future__ import annotations

import numpy as np

from ._inputs import benchmark, read_scores
from ._options import add_matrix_input, add_success_options, add_table_output
from ._output import Table, emit, fixed, say

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "irt", help="2PL item difficulty/discrimination and agent ability"
    )
    add_matrix_input(parser)
    add_success_options(parser)
    add_table_output(parser)
    parser.set_defaults(handler=run)
    return parser


def fit_irt(args, bench):
    """IRT2PL fitted to the benchmark's 0/1 successes."""
    from ..irt import IRT2PL

    estimator = (
        IRT2PL() if args.no_prior else IRT2PL(a_prior=(1.0, 2.0), b_prior=(0.0, 2.0))
    )
    n_agents, n_tasks = bench.responses.shape
    say(
        args,
        f"fitting IRT2PL to {n_agents} agents x {n_tasks} tasks; {bench.response_rule}",
    )
    return estimator.fit(bench.responses)


def task_table(model, bench):
    rate = np.nanmean(bench.responses, axis=0)
    order = np.argsort(-np.nan_to_num(model.difficulty_, nan=-np.inf), kind="stable")
    rows = [
        [
            bench.tasks[t],
            float(model.difficulty_[t]),
            float(model.discrimination_[t]),
            float(rate[t]),
        ]
        for t in order
    ]
    return Table(
        ["task", "difficulty", "discrimination", "success rate"],
        rows,
        [None, fixed(2), fixed(2), fixed(2)],
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
        f"IRT 2PL: log-likelihood {model.log_likelihood_:.2f}, "
        f"{model.n_iter_} EM iterations; {bench.response_rule}\n"
    )
    emit(args, out, task_table(model, bench), ability_table(model, bench))
    return 0
