"""``sklearn-eval rank``: matches -> Elo, Bradley-Terry or mElo ratings."""

from __future__ import annotations

import warnings

import numpy as np

from ..utils._ranks import agent_ranks
from ._inputs import rating_options, read_groups, read_match_file
from ._options import (
    add_groups,
    add_match_input,
    add_metric,
    add_rating_model_options,
    add_resampling,
    add_separator,
    add_table_output,
    non_negative_float,
    positive_float,
    positive_int,
)
from ._output import Table, UsageError, emit, fixed, say

__all__ = []

# old --method spellings -> (--model, --method)
METHOD_ALIASES = {
    "elo": ("elo", "online"),
    "bt": ("elo", "batch"),
    "melo": ("melo", "online"),
    "melo-batch": ("melo", "batch"),
}
MODELS = {"elo": "EloRanker", "melo": "MultiElo"}


def add_parser(commands):
    parser = commands.add_parser(
        "rank", help="matches CSV -> Elo / Bradley-Terry / mElo ratings"
    )
    parser.add_argument(
        "path",
        help="matches CSV (one game per row), or an evaluation tool's results "
        "file or folder (every pair of models compared item by item; "
        "AlpacaEval: the judged pairs; see --metric)",
    )
    add_match_input(parser)
    add_metric(parser)
    add_separator(parser)
    parser.add_argument(
        "--model",
        choices=tuple(MODELS),
        default=None,
        help="elo: EloRanker (default); melo: MultiElo, Elo with cyclic "
        "components (--n-components planes)",
    )
    parser.add_argument(
        "--method",
        choices=("online", "batch", *METHOD_ALIASES),
        default=None,
        help="batch: the maximum-likelihood (Bradley-Terry) fit, order-free "
        "(default); online: sequential updates in file order. The old "
        "spellings elo, bt, melo and melo-batch still work",
    )
    parser.add_argument(
        "--k-factor", type=positive_float, default=16.0, help="online step size"
    )
    parser.add_argument(
        "--alpha",
        type=non_negative_float,
        default=None,
        help="L2 prior of the batch fit (default: the estimator's, 0 for elo "
        "and 0.01 for melo; needed for undefeated players)",
    )
    parser.add_argument(
        "--n-components", type=positive_int, default=1, help="mElo cyclic planes"
    )
    parser.add_argument("--scale", choices=("elo", "logit"), default="elo")
    add_rating_model_options(parser)
    add_resampling(parser, default=0, aliases=("--intervals",), what="the matches")
    parser.add_argument(
        "--tiers", action="store_true",
        help="also print simultaneous 95%% rank sets and tiers (rank_sets)",
    )
    add_groups(parser, what="one label per match, e.g. the prompt; with --tiers")
    add_table_output(parser, beside=("tiers",))
    parser.set_defaults(handler=run)
    return parser


def model_and_method(args):
    """The (model, method) pair from --model/--method and the old spellings."""
    model, method = args.model, args.method
    if method in METHOD_ALIASES:
        alias = METHOD_ALIASES[method]
        if model is not None and model != alias[0]:
            raise UsageError(
                f"--method {method} means --model {alias[0]} --method {alias[1]}, "
                f"which contradicts --model {model}"
            )
        warnings.warn(
            f"--method {method} is the old spelling of --model {alias[0]} "
            f"--method {alias[1]}",
            FutureWarning,
            stacklevel=2,
        )
        return alias
    return model or "elo", method or "batch"


def estimator(args, model, method):
    from ..pairwise import EloRanker, MultiElo

    params = {"method": method, "scale": args.scale}
    if method == "online":
        params["k_factor"] = args.k_factor
    elif args.alpha is not None:
        params["alpha"] = args.alpha
    extended = rating_options(args)
    if model == "elo":
        return EloRanker(**params, **extended)
    if extended or args.covariates:
        given = "--ties" if "ties" in extended else (
            "--first-advantage" if extended else "--covariates"
        )
        raise UsageError(f"{given} is an option of --model elo (EloRanker)")
    return MultiElo(
        n_components=args.n_components, random_state=args.random_state, **params
    )


def intervals(args, model, matches):
    from ..uncertainty import bootstrap_ranking

    say(args, f"bootstrap: {args.n_resamples} resamples of the matches")
    weights = matches.sample_weight
    return bootstrap_ranking(
        model,
        matches.model_X,
        matches.y,
        statistic="agent_scores_",
        resample="matches",
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
        fit_params=None if weights is None else {"sample_weight": weights},
    )


def games_played(X, players):
    from ..utils import lookup_players

    index = np.concatenate(
        [lookup_players(X[:, 0], players), lookup_players(X[:, 1], players)]
    )
    return np.bincount(index[index >= 0], minlength=len(players))


def ratings_table(model, matches, bounds, title):
    agents = np.asarray(model.agents_, dtype=object)
    scores = np.asarray(model.agent_scores_, dtype=np.float64)
    games = games_played(matches.X, agents)
    ranks = agent_ranks(model)  # the estimator's ranks: ties up to rounding share
    order = np.lexsort((-scores, ranks))  # by score within a tie
    header = ["rank", "player", "rating", "games"]
    formats = [str, None, fixed(1), str]
    if bounds is not None:
        header += ["low", "high", "rank range"]
        formats += [fixed(1), fixed(1), None]
    transitive = getattr(model, "transitive_ratings_", None)
    if transitive is not None:
        header.append("transitive rating")
        formats.append(fixed(1))
    rows = []
    for k in order:
        row = [int(ranks[k]), agents[k], float(scores[k]), int(games[k])]
        if bounds is not None:
            row += [
                float(bounds.low[k]),
                float(bounds.high[k]),
                f"{int(bounds.rank_low[k])}-{int(bounds.rank_high[k])}",
            ]
        if transitive is not None:
            row.append(float(transitive[k]))
        rows.append(row)
    return Table(header, rows, formats, title=title, key="ratings")


def run(args, out):
    from sklearn.base import clone

    model_name, method = model_and_method(args)
    matches = read_match_file(args)
    unfitted = estimator(args, model_name, method)
    name = type(unfitted).__name__
    say(args, f"fitting {name} ({method})")
    model = clone(unfitted).fit(
        matches.model_X, matches.y, sample_weight=matches.sample_weight
    )
    bounds = intervals(args, unfitted, matches) if args.n_resamples else None
    title = (
        f"{name} ({method}) ratings of {len(model.agents_)} players from "
        f"{len(matches.y)} matches"
    )
    for line in extended_lines(model):
        out.write(line + "\n")
    tables = [ratings_table(model, matches, bounds, title)]
    if args.tiers:
        from ._tiers import tiers_table

        groups = read_groups(args, n_matches=len(matches.y))
        tables.append(tiers_table(args, unfitted, matches, groups=groups))
    elif args.groups is not None:
        raise UsageError("--groups applies to --tiers (the rank sets)")
    emit(args, out, *tables)
    return 0


def extended_lines(model):
    """The fitted tie parameter, first-player advantage and covariate effects."""
    lines = []
    tie = getattr(model, "tie_param_", None)
    if tie is not None:
        lines.append(f"tie parameter ({model.ties}): {tie:.4g}")
    se = getattr(model, "first_advantage_se_", None)
    if se is not None:
        lines.append(
            f"first-player advantage: {model.first_advantage_:.1f} "
            f"(standard error {se:.1f})"
        )
    names = getattr(model, "covariate_names_", None)
    if names is not None:
        for name, coef, err in zip(
            names, model.covariate_coef_, model.covariate_se_, strict=True
        ):
            lines.append(
                f"covariate {name}: {coef:.4g} per unit (standard error {err:.2g})"
            )
    return lines
