"""``sklearn-eval irt``: item parameters and agent ability.

Binary models (1PL to 4PL) on the 0/1 successes; the graded models (GRM,
GPCM) on the category codes and the continuous ones (beta, logit-normal) on
scores in [0, 1] (the baseline-normalised scores with ``--low-agent`` and
``--high-agent``, as fractions).
"""

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

BINARY = ("1PL", "2PL", "3PL", "4PL")
GRADED = ("GRM", "GPCM")
CONTINUOUS = ("beta", "logit-normal")


def add_parser(commands):
    parser = commands.add_parser(
        "irt", help="item difficulty/discrimination (1PL-4PL, graded, continuous) "
        "and agent ability"
    )
    add_matrix_input(parser)
    add_success_options(parser)
    parser.add_argument(
        "--model",
        choices=[*BINARY, *GRADED, *CONTINUOUS],
        default="2PL",
        help="item response model (default 2PL): 3PL adds a guessing floor per "
        "item (multiple-choice benchmarks), 4PL an upper asymptote as well; "
        "the weak priors of --no-prior apply to the 1PL and 2PL, the one on "
        "the discriminations to the 3PL and 4PL too. GRM and GPCM "
        "(graded response, generalised partial credit) read the scores as "
        "ordered categories 0, 1, 2, ...; beta and logit-normal read scores "
        "in [0, 1] (exact 0 and 1 moved to 0.001 and 0.999)",
    )
    parser.add_argument(
        "--n-factors",
        type=positive_int,
        default=1,
        help="number of latent abilities (2PL, GRM, GPCM; default 1): more "
        "than 1 fits an exploratory multidimensional model, oblimin-rotated",
    )
    parser.add_argument(
        "--n-options",
        type=positive_int,
        default=None,
        help="number of answer options of the items (3PL, 4PL): a prior on the "
        "guessing floor centred at 1/n-options (default: maximum likelihood)",
    )
    add_table_output(parser, beside=("agents",))
    # its methods work at unit scale or on the order of the scores: any finite
    # span of scores is data (see _inputs.read_scores)
    parser.set_defaults(handler=run, any_score_span=True)
    return parser


def irt_estimator(args):
    """The estimator of ``sklearn-eval irt`` for the parsed options.

    1PL and 2PL: ``IRT2PL(model=...)`` with the weak priors unless
    ``--no-prior``; 3PL and 4PL: ``IRT(model=..., n_options=...)`` with the
    weak prior on the discriminations unless ``--no-prior``; the
    others and several factors: ``IRT(model=..., n_factors=...)``.
    """
    from ..irt import IRT, IRT2PL

    model = getattr(args, "model", "2PL")
    n_options = getattr(args, "n_options", None)
    n_factors = getattr(args, "n_factors", 1)
    if n_factors is not None and n_factors < 1:
        raise UsageError(f"--n-factors must be at least 1; got {n_factors}")
    if n_factors > 1 and model not in ("2PL", *GRADED):
        raise UsageError(
            f"--n-factors applies to --model 2PL, GRM or GPCM, not {model}")
    if model not in BINARY or n_factors > 1:
        if n_options is not None:
            raise UsageError(
                f"--n-options applies to --model 3PL or 4PL, not {model}")
        return IRT(model=model, n_factors=n_factors)
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
    if args.no_prior:
        return IRT(model=model, n_options=n_options)
    # the 2PL's weak prior on the discriminations: without it, items that
    # (nearly) separate the agents have no finite maximum
    return IRT(model=model, n_options=n_options, discrimination_prior=(1.0, 2.0))


def fit_irt(args, bench):
    """The IRT model of the options fitted to the benchmark's 0/1 successes."""
    estimator = irt_estimator(args)
    values, rule = model_input(estimator, bench)
    n_agents, n_tasks = values.shape
    say(
        args,
        f"fitting {_label(estimator)} to {n_agents} agents x {n_tasks} tasks; "
        f"{rule}",
    )
    return estimator.fit(values)


def model_input(estimator, bench):
    """What the model reads: 0/1 successes, category codes or [0, 1] scores."""
    if estimator.model in GRADED:
        return bench.scores, "the scores as ordered categories"
    if estimator.model in CONTINUOUS:
        if bench.normalized is not None:
            return bench.normalized / 100.0, "baseline-normalised scores / 100"
        return bench.scores, "the scores in [0, 1]"
    return bench.responses, bench.response_rule


def _label(estimator):
    name = type(estimator).__name__
    factors = getattr(estimator, "n_factors", 1)
    if estimator.model == "2PL" and factors == 1:
        return name
    if factors == 1:
        return f"{name}(model={estimator.model!r})"
    return f"{name}(model={estimator.model!r}, n_factors={factors})"


def task_table(model, bench):
    if model.model not in BINARY or getattr(model, "n_factors", 1) > 1:
        return _parameter_table(model, bench)
    rate = np.nanmean(bench.responses, axis=0)
    order, title = _hardest_first(model.difficulty_, model.discrimination_, rate)
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
        title=title,
        key="tasks",
    )


# Beyond this |difficulty| no agent of the N(0, 1) ability scale is near the
# curve's midpoint (the quadrature grid ends at 6): a near-flat curve, whose
# difficulty -intercept / discrimination runs to hundreds and ranks nothing.
_OFF_SCALE = 6.0


def _hardest_first(difficulty, discrimination, success_rate):
    """Task order and table title: by difficulty, hardest first; then the
    tasks whose discrimination is negative (the difficulty means the
    opposite there), then those whose difficulty is off the ability scale
    (or undefined) by success rate, lowest first, as the report orders its
    tasks."""
    difficulty = np.asarray(difficulty, dtype=np.float64)
    off = ~(np.abs(difficulty) <= _OFF_SCALE)
    negative = ~off & (np.asarray(discrimination) < 0)
    group = np.where(off, 2, np.where(negative, 1, 0))
    key = np.where(off, -np.nan_to_num(success_rate, nan=-1.0), difficulty)
    order = np.lexsort((-key, group))
    notes = []
    if negative.any():
        notes.append(f"{int(negative.sum())} with a negative discrimination")
    if off.any():
        notes.append(f"{int(off.sum())} whose difficulty is off the ability "
                     f"scale (|difficulty| > {_OFF_SCALE:g} or undefined: a "
                     "near-flat curve)")
    title = "tasks, hardest first"
    if notes:
        title += " (then " + ", then ".join(notes) + ")"
    return order, title + ":"


# bookkeeping columns of IRT.task_table that are no item parameter
_NOT_PARAMETERS = ("n_categories", "left_out")


def _parameter_table(model, bench):
    """The item parameters of ``IRT.task_table`` (no standard errors).

    The columns of the API in its order (``threshold_k`` or ``step_k``,
    ``precision`` or ``residual_sd``, ``discrimination_f`` and ``intercept``
    with several factors), hardest task first (the lowest intercept with
    several factors).
    """
    frame = model.task_table()
    columns = [c for c in frame.columns
               if not c.endswith("_se") and c not in _NOT_PARAMETERS]
    key = "difficulty" if "difficulty" in frame else "intercept"
    values = frame[key].to_numpy(dtype=np.float64)
    if key == "intercept":
        values = -values
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
    rows = [[bench.tasks[t], *(float(frame[c].iloc[t]) for c in columns)]
            for t in order]
    return Table(
        ["task", *columns],
        rows,
        [None, *(fixed(3) for _ in columns)],
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
    factors = getattr(model, "n_factors", 1)
    out.write(
        f"IRT {model.model}"
        + (f" with {factors} factors" if factors > 1 else "")
        + f": log-likelihood {model.log_likelihood_:.2f}, "
        f"{model.n_iter_} EM iterations; {model_input(model, bench)[1]}\n"
    )
    emit(args, out, task_table(model, bench), ability_table(model, bench))
    return 0
