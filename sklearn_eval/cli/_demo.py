"""``sklearn-eval demo``: the built-in data and the report on Atari."""

from __future__ import annotations

import numpy as np

from .. import __version__
from ..utils import rank_scores
from ._options import (
    add_report_output,
    add_resampling,
    add_selection_options,
    add_table_output,
)
from ._output import Table, fixed, save_csv, show_table
from ._report import finish, write

__all__ = []


def add_parser(commands):
    parser = commands.add_parser(
        "demo", help="summarise the built-in data and write the Atari report"
    )
    add_selection_options(parser)
    parser.add_argument(
        "--include-reference",
        action="store_true",
        help="rank the human and random reference agents with the others "
        "(default: shown apart, not ranked)",
    )
    add_report_output(parser)
    add_resampling(parser, default=100)
    add_table_output(parser, top=10, beside=("datasets",),
                     main="the agents (the demo's ranking, printed second)")
    parser.set_defaults(handler=run, no_prior=False)
    return parser


def atari_benchmark(include_reference=False):
    """Atari no-op scores, human-normalised; success = at least human level.

    The human and random reference rows (``reference_agents`` of the data)
    are shown apart, not ranked, unless ``include_reference``.
    """
    from ..datasets import load_atari, load_atari_reference_scores
    from ..report import prepare_benchmark

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
        reference_agents=atari.reference_agents,
        include_reference=include_reference,
    )


def datasets_table():
    from ..datasets import describe_datasets

    rows = [
        [
            d["name"],
            "x".join(str(s) for s in d["shape"]),
            d["kind"],
            d["licence"],
            ", ".join(d["reference_agents"]),
        ]
        for d in describe_datasets()
    ]
    return Table(
        ["dataset", "shape", "kind", "licence", "reference agents"],
        rows,
        key="datasets",
        ranked=False,
    )


def agent_table(bench, analysis):
    """Agents in the report's order (IRT ability), their mean per-game rank beside.

    The terminal and the report name the same agents first, second, ...: the
    report ranks by IRT ability; the mean per-game rank (a uniform average
    over the games every agent played) is shown for comparison.
    """
    scores = bench.scores
    complete = ~np.isnan(scores).any(axis=0)
    ranks = rank_scores(scores[:, complete].T).T  # per game; equal scores tie
    mean_rank = ranks.mean(axis=1)
    irt = analysis.irt
    if irt is None:  # the IRT fit failed: the mean rank alone orders them
        key, header = -mean_rank, ["#", "agent", "mean rank"]
    else:
        key, header = irt.ability, ["#", "agent", "IRT ability", "mean rank"]
    order = np.argsort(-key, kind="stable")
    rows = [
        [k, bench.agents[a], *([float(irt.ability[a])] if irt is not None else []),
         float(mean_rank[a])]
        for k, a in enumerate(order, start=1)
    ]
    return Table(
        header,
        rows,
        [str, None, *([fixed(2)] if irt is not None else []), fixed(1)],
        title="Agents as the report ranks them (IRT ability), with their mean "
        "per-game rank over the games every agent played:",
        key="agents",
    )


def run(args, out):
    out.write(f"sklearn-eval {__version__}: built-in benchmark data\n\n")
    datasets = datasets_table()
    show_table(args, out, datasets)
    bench = atari_benchmark(args.include_reference)
    scores = bench.scores
    complete = ~np.isnan(scores).any(axis=0)
    out.write(
        f"\nAtari (rldb, no-op starts): {len(bench.agents)} agents x "
        f"{scores.shape[1]} games, {np.isnan(scores).mean():.1%} missing, "
        f"{complete.sum()} games scored by every agent.\n"
    )
    reference = bench.reference
    if args.include_reference:
        out.write(
            f"Reference agents ranked with the others: {', '.join(reference.agents)}"
            "\n"
        )
    else:
        out.write(
            "Reference agents (shown apart, not ranked; --include-reference ranks "
            f"them): {', '.join(reference.agents)}\n"
        )
    out.write(
        "\nReport on Atari: success = human-normalised score >= 100 "
        "(random = 0, human = 100)\n"
    )
    analysis, result = write(args, bench)
    agents = agent_table(bench, analysis)
    show_table(args, out, agents)
    # the demo's result, the agents' ranking, goes to --csv PATH; the datasets
    # overview, printed first, beside it (command line guide, "Tables")
    save_csv(args, out, [agents, datasets])
    return finish(analysis, result, out, show_reference=False)
