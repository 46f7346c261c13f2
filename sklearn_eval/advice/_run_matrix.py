"""The advisor's paths for result matrices and square games."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..game import NashAverager, VotingRanker, hodge_decomposition
from ..irt import IRT
from ..uncertainty import rank_sets
from ..utils import check_empty_agents, check_result_matrix
from ._choice import candidate_table
from ._diagnostics import (
    Checks,
    add_connectivity_check,
    add_duplicates_check,
    add_reference_check,
    add_stability_check,
)
from ._items import (
    MIN_DUPLICATE_POINTS,
    cell_folds,
    duplicated_columns,
    fast_irt,
    gaussian_candidates,
    gaussian_n_parameters,
    heldout_gaussian,
    heldout_irt,
    irt_n_parameters,
    nan_mean,
    nan_std,
    point_biserial,
)
from ._kinds import KINDS, item_candidates, n_factors
from ._matches import rng_for

__all__ = []

MIN_CELLS_PER_FOLD = 10
# cyclic share of a square game above which Nash averaging is recommended
CYCLIC_SHARE = 0.1
# guessing floor: success rate of the weakest decile above this on hard items
FLOOR = 0.15
# models with a guessing floor, tested only where the data show one (each
# costs many EM iterations where the floor is zero)
GUESSING_MODELS = ("3PL", "4PL")
# a candidate with several abilities (factors) is compared only on data
# large enough to estimate a slope per factor for every item, and at bounded
# cost (its EM runs on a product grid, ~20 times the nodes of one factor)
MIN_FACTOR_AGENTS = 500
MAX_FACTOR_CELLS = 250_000
# rank sets test every pair of agents: beyond this many, left to the user
MAX_RANK_SET_AGENTS = 300


def _labels(X, n, axis):
    if isinstance(X, pd.DataFrame):
        return np.asarray(X.index if axis == 0 else X.columns, dtype=object)
    return np.arange(n)


def matrix_values(X, kind):
    """Float64 values of a result matrix or game, checked for ``kind``.

    Refuses what the estimators refuse (not 2-D, empty, infinite values,
    non-numeric columns: the library's result-matrix check) and values the
    forced ``kind`` cannot read (a game that is not square, 0/1 responses
    that are not 0 or 1, ...), naming the problem.
    """
    values = check_result_matrix(X, allow_nan=True).values
    observed = ~np.isnan(values)
    if not observed.any():
        raise ValueError("X has no observed result: every entry is NaN.")
    if kind == "game":
        if values.shape[0] != values.shape[1] or values.shape[0] < 2:
            raise ValueError(
                "kind='game' needs a square agents x agents matrix of at least "
                f"2 x 2 (row agent against column agent); got shape {values.shape}.")
        return values
    bad = _outside_kind(values, kind) & observed
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        value = float(values[i, j])
        raise ValueError(
            f"kind={kind!r} needs {_KIND_VALUES[kind]}; X has {value!r} at "
            f"row {i}, column {j}. Leave kind='auto' to detect the kind.")
    return values


# what each matrix kind reads, for the messages of a forced kind
_KIND_VALUES = {
    "binary": "0/1 responses (NaN for missing)",
    "graded": "ordered categories coded 0, 1, 2, ... (NaN for missing)",
    "continuous": "scores in [0, 1] (NaN for missing)",
}


def _outside_kind(values, kind):
    """Cells that ``kind`` cannot read (False where NaN)."""
    with np.errstate(invalid="ignore"):
        if kind == "binary":
            return (values != 0) & (values != 1)
        if kind == "graded":
            return (values < 0) | (values != np.round(values))
        if kind == "continuous":
            return (values < 0) | (values > 1)
    return np.zeros(values.shape, dtype=bool)


def run_matrix(X, kind, cv, random_state, n_jobs, max_factors=2, drop_empty=False):
    """Diagnostics, candidates and fitted plausible models of a matrix."""
    values = matrix_values(X, kind)
    agents = _labels(X, values.shape[0], 0)
    if kind == "game":
        return _run_game(values, agents)
    # no estimator ranks an agent without results: the library's one rule
    # (an error naming them, or left out with a warning)
    keep = check_empty_agents(values, agents, drop_empty=drop_empty, what="advise")
    values, agents = values[keep], agents[keep]
    checks = Checks()
    checks.add("data kind", kind, "detected", KINDS[kind])
    n_agents, n_tasks = values.shape
    missing = float(np.isnan(values).mean())
    checks.add("shape", f"{n_agents} agents x {n_tasks} tasks", "ok",
               "Agents are rows, tasks (items) are columns.")
    add_connectivity_check(checks, _bipartite(values), "agents and tasks")
    checks.add(
        "missingness", f"{missing:.1%} of results missing",
        "complete" if missing == 0 else (
            "agents saw different tasks" if missing > 0.05 else "few gaps"),
        "Averages over different task sets are not comparable; model-based "
        "scores (IRT, additive) adjust for which tasks each agent saw.",
    )
    flat = _constant_tasks_check(checks, values)
    duplicated = duplicated_columns(values)
    redundant = add_duplicates_check(checks, duplicated, n_tasks, "tasks",
                                     n_agents, MIN_DUPLICATE_POINTS)
    add_reference_check(checks, agents)
    result = {"checks": checks, "kind": kind, "unit": "response",
              "players": agents, "tasks": _labels(X, n_tasks, 1),
              "estimators": {}, "redundant": redundant,
              "split": "responses (observed cells), not agents"}
    floor = _item_checks(checks, values) if kind == "binary" else None
    if flat:
        result["too_small"] = flat
        return result
    observed = int(np.sum(~np.isnan(values)))
    if observed / cv < MIN_CELLS_PER_FOLD or n_agents < 3 or n_tasks < 2:
        result["too_small"] = (
            f"{observed} observed results from {n_agents} agents on {n_tasks} "
            f"tasks are too few for {cv}-fold cross-validation")
        return result
    rows, cols, fold = cell_folds(values, cv, rng_for(random_state),
                                  by_category=kind == "graded")
    if kind == "graded":
        _rare_categories_check(checks, result, values, rows, cols, fold)
    if np.sum(fold >= 0) / cv < MIN_CELLS_PER_FOLD:
        result["too_small"] = (
            f"{int(np.sum(fold >= 0))} results that can be held out are too few "
            f"for {cv}-fold cross-validation")
        return result
    candidates = item_candidates(kind)
    if floor is not None and floor <= FLOOR:  # no floor: no guessing model
        candidates = [c for c in candidates
                      if c.params["model"] not in GUESSING_MODELS]
    if n_agents < MIN_FACTOR_AGENTS or observed > MAX_FACTOR_CELLS:
        candidates = [c for c in candidates if n_factors(c) == 1]
    candidates = [c for c in candidates if n_factors(c) <= max_factors]
    if candidates:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores, reasons = heldout_irt(candidates, values, rows, cols, fold,
                                          random_state, n_jobs)
        n_params = {c.name: irt_n_parameters(c, values) for c in candidates}
        reprs = {c.name: repr(IRT(**c.params)) for c in candidates}
    else:
        result["unit"] = "result"
        candidates = gaussian_candidates(n_agents, n_tasks)
        cells = standardized(values) if kind == "scores" else values
        scores, reasons = heldout_gaussian(candidates, cells, rows, cols, fold), {}
        n_params = {c.name: gaussian_n_parameters(c, n_agents, n_tasks)
                    for c in candidates}
        reprs = {c.name: c.name for c in candidates}
    if not scores:
        result["too_small"] = "no candidate could be fitted: " + "; ".join(
            f"{k}: {v}" for k, v in reasons.items())
        return result
    by_name = {c.name: c for c in candidates}
    excluded = {}
    while True:  # a candidate that cannot fit all the data is no recommendation
        table, chosen, unsure = candidate_table(candidates, scores, n_params, reprs)
        fitted, failed = _fit_plausible(table, by_name, values, random_state, n_jobs)
        if chosen not in failed:
            break
        excluded[reprs[chosen]] = failed[chosen]
        scores = {name: s for name, s in scores.items() if name != chosen}
        if not scores:
            result["too_small"] = "no candidate could be fitted on all the data: " + \
                "; ".join(f"{k}: {v}" for k, v in excluded.items())
            return result
    result.update(candidates=table, chosen=by_name[chosen], unsure=unsure,
                  reasons=reasons)
    _dimension_check(checks, table)
    alternatives, missing, tried = _alternatives(values)
    fitted.update(alternatives)
    result["fitted"] = {n: _scores(m, agents) for n, m in fitted.items()}
    result["left_out"] = {f"IRT {name}": why for name, why in failed.items()}
    result["left_out"].update(missing)
    recommended, refused = fitting_recommendation(
        _matrix_options(by_name[chosen], redundant, kind), values, tried)
    excluded.update(refused)
    result["excluded"] = excluded
    if recommended is None:
        result["too_small"] = "no estimator can take these data: " + "; ".join(
            f"{k}: {v}" for k, v in excluded.items())
        return result
    result["recommended"] = recommended
    result["rank_sets"], why = _rank_sets(recommended, values, random_state)
    add_stability_check(checks, result["rank_sets"], why)
    return result


def _matrix_options(candidate, redundant, kind):
    """The estimators to recommend for ``candidate``, preferred first: the
    one :func:`recommend_matrix` names, then the candidate's IRT, then a
    rank aggregation (for data the first cannot take)."""
    options = [recommend_matrix(candidate, redundant, kind)]
    if candidate.family == "IRT":
        options.append(IRT(**candidate.params))
    options.append(VotingRanker(method="borda"))
    return options


def fitting_recommendation(options, values, tried=None):
    """The first of ``options`` that can fit ``values``, and the refused ones.

    An IRT option was fitted with the plausible candidates (it is first only
    when its fit succeeded); any other is fitted here unless ``tried`` (repr
    to the reason it failed, or None) already knows. Returns ``(estimator or
    None, {repr: reason})``.
    """
    tried = {} if tried is None else tried
    refused = {}
    for estimator in options:
        name = repr(estimator)
        if name in refused:
            continue
        if isinstance(estimator, IRT):
            return estimator, refused
        why = tried[name] if name in tried else cannot_fit(estimator, values)
        if why is None:
            return estimator, refused
        refused[name] = why
    return None, refused


def cannot_fit(estimator, values):
    """Why a clone of ``estimator`` cannot fit ``values`` (its error's first
    line), or None when it can."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clone(estimator).fit(values)
    except (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError) as exc:
        return str(exc).splitlines()[0]
    return None


def _constant_tasks_check(checks, values):
    """The constant-tasks row; the reason there is nothing to rank, or None.

    A task is constant when every agent with a result on it has the same
    one (all pass, all fail, every score 0.5, a single result); a task
    without results is counted apart. When every task is constant (or the
    whole table is one value) no agent differs from another.
    """
    seen = ~np.isnan(values)
    n_tasks = values.shape[1]
    observed = seen.any(axis=0)
    low = np.where(seen, values, np.inf).min(axis=0)
    high = np.where(seen, values, -np.inf).max(axis=0)
    constant = observed & (low == high)
    count, never = int(constant.sum()), int((~observed).sum())
    checks.add(
        "constant tasks",
        f"{count} of {n_tasks}" + (f"; {never} without any result" if never else ""),
        "uninformative tasks" if count or never else "none",
        "A task on which every agent has the same result (all pass, all fail, "
        "every score equal) says nothing about ranking, nor does one without "
        "results; the item response models leave such tasks out.",
    )
    if constant[observed].all():
        value = values[seen]
        if np.all(value == value[0]):
            return (f"every observed result is {float(value[0]):g}: there is "
                    "nothing to rank")
        return ("every task gives all its agents the same result (the agents "
                "differ on none): there is nothing to rank")
    return None


def _rare_categories_check(checks, result, values, rows, cols, fold):
    """Responses that are the only one of their category on their item.

    They are never held out (a model fitted without them could not score
    them): the row counts them and a note (a warning) says so.
    """
    single = fold < 0
    items = np.unique(cols[single])
    labels = _task_labels(result, values.shape[1])
    shown = ", ".join(str(labels[j]) for j in items[:5]) + (
        ", ..." if items.size > 5 else "")
    checks.add(
        "rare categories",
        f"{int(single.sum())} response(s) alone in their category"
        + (f" (items {shown})" if items.size else ""),
        "kept in training, not scored" if single.any() else "none",
        "Held-out responses are dealt round the folds by (item, category), so "
        "every category seen twice is in every training fold; a category an "
        "item has once is never held out, since a model fitted without it "
        "could not score it.",
    )
    if single.any():
        result.setdefault("notes", []).append(
            f"{int(single.sum())} graded response(s) are the only one of their "
            f"category on their item (item(s) {shown}): they are kept in every "
            "training "
            "fold and not scored in the held-out comparison")


def _task_labels(result, n_tasks):
    return result.get("tasks", np.arange(n_tasks))


def standardized(values):
    """Each task's scores in standard units (tasks on unrelated scales)."""
    sd = nan_std(values, axis=0)
    return (values - nan_mean(values, axis=0)) / np.where(sd > 0, sd, 1.0)


def recommend_matrix(candidate, redundant, kind=None):
    """The unfitted estimator for a matrix candidate.

    Duplicated tasks of a score table (continuous or unbounded scores) call
    for Nash averaging, which gives a task and its copies the weight of one,
    whichever model fits the cells best; items of a binary or graded bank
    stay with the IRT model, which calibrates each item on its own.
    """
    if candidate.family == "IRT" and not (redundant and kind == "continuous"):
        return IRT(**candidate.params)
    if redundant or candidate.params["n_factors"] > 0:
        return NashAverager(game="agent_vs_task")
    return VotingRanker(method="borda")


def _bipartite(values):
    n, m = values.shape
    seen = (~np.isnan(values)).astype(float)
    adjacency = np.zeros((n + m, n + m))
    adjacency[:n, n:] = seen
    adjacency[n:, :n] = seen.T
    return adjacency


def _item_checks(checks, values):
    pb = point_biserial(values)
    negative = int(np.sum(pb < 0))
    checks.add("negative discrimination", f"{negative} item(s) with r < 0",
               "suspect items" if negative else "none",
               "An item the stronger agents fail more often is mis-keyed or "
               "measures something else; it pulls every model's ranking.")
    totals = nan_mean(values, axis=1)
    weakest = totals <= np.nanquantile(totals, 0.1)
    rates = nan_mean(values, axis=0)
    hard = rates < np.nanquantile(rates, 0.25)
    floor = float(nan_mean(values[np.ix_(weakest, hard)])) if hard.any() else 0.0
    floor = 0.0 if np.isnan(floor) else floor  # the weakest saw no hard item
    checks.add(
        "guessing floor",
        f"weakest 10% of agents pass {floor:.1%} of the hardest quarter of items",
        "floor present: 3PL tested" if floor > FLOOR else
        "no floor: 3PL not tested",
        "Multiple-choice items give points to an agent that knows nothing; a "
        "2PL reads that as an easy item, a 3PL as a guessing floor.",
    )
    return floor


def _dimension_check(checks, table):
    names = list(table.index)
    checks.add(
        "effective dimension",
        "; ".join(f"{n}: {table.loc[n, 'heldout_loglik']:.4f}" for n in names),
        f"best supported: {table.index[table['recommended']][0]}",
        "Held-out log-likelihood per result of models of increasing "
        "complexity: extra dimensions that do not predict held-out results "
        "fit noise.",
    )


def _fit_plausible(table, by_name, values, random_state, n_jobs):
    """The plausible IRT candidates fitted on all the data, and the reasons
    of those that cannot be (name to the error's first line)."""
    fitted, failed = {}, {}
    for name in table.index[table["within_noise"]]:
        candidate = by_name[name]
        if candidate.family != "IRT":
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted[f"IRT {name}"] = IRT(
                    **candidate.params, **fast_irt(candidate.params),
                    random_state=random_state, n_jobs=n_jobs).fit(values)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            failed[name] = str(exc).splitlines()[0]
    return fitted, failed


def _alternatives(values):
    """Rankings of the standard alternatives: mean, Borda, Nash averaging.

    Returns the fitted ones by name, the reasons of those that could not be
    fitted by name, and for Borda and Nash averaging the reason (None when
    fitted) by the estimator's repr.
    """
    out, missing, tried = {"mean score": nan_mean(values, axis=1)}, {}, {}
    for name, estimator in (("Borda", VotingRanker(method="borda")),
                            ("Nash averaging", NashAverager(game="agent_vs_task"))):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[name] = clone(estimator).fit(values)
            why = None
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            why = missing[name] = str(exc).splitlines()[0]
        tried[repr(estimator)] = why
    return out, missing, tried


def _scores(model, agents):
    scores = model if isinstance(model, np.ndarray) else model.agent_scores_
    return pd.Series(np.asarray(scores, dtype=float), index=agents)


def _rank_sets(model, values, random_state):
    """Rank sets of the recommended model, or None and why not (None: the
    standard reason, not analytic or too many agents)."""
    if not isinstance(model, IRT) or values.shape[0] > MAX_RANK_SET_AGENTS:
        return None, None  # a bootstrap of refits, or too many pairs: the user's
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return rank_sets(model, values, n_resamples=200,
                             random_state=random_state), None
    except (ValueError, TypeError, ArithmeticError, NotImplementedError) as exc:
        return None, str(exc).splitlines()[0]


def _even_game(checks, values, agents):
    """A game whose every pair is even (or symmetric payoffs): no advice."""
    checks.add("intransitivity", "cyclic share 0.0%", "n/a",
               "Every pair of agents is even: the game has no transitive and "
               "no cyclic part.")
    add_reference_check(checks, agents)
    return {"checks": checks, "kind": "game", "unit": None, "players": agents,
            "too_small": "every pair of agents is even (the game's antisymmetric "
                         "part is zero): there is nothing to rank"}


def _run_game(values, agents):
    """A square game: Hodge shares and duplicated agents decide (no folds)."""
    checks = Checks()
    checks.add("data kind", "game", "detected", KINDS["game"])
    n = values.shape[0]
    checks.add("shape", f"{n} x {n} agents", "ok", "Row agent against column agent.")
    probability = bool(np.nanmin(values) >= 0 and np.nanmax(values) <= 1)
    P = np.where(np.isnan(values), 0.5 if probability else 0.0, values)
    if probability:
        clipped = np.clip(P, 1e-3, 1 - 1e-3)
        A = np.log(clipped) - np.log1p(-clipped)
    else:
        A = P
    A = 0.5 * (A - A.T)
    if not np.any(A):  # every pair even: no order, no cycle
        return _even_game(checks, values, agents)
    split = hodge_decomposition(A)
    cyclic = float(split.cyclic_share) if np.any(A) else 0.0
    checks.add(
        "intransitivity", f"cyclic share {cyclic:.1%}",
        "cyclic" if cyclic > CYCLIC_SHARE else "mostly transitive",
        "Hodge split of the game's log-odds. Without vote counts there is no "
        f"noise reference: above {CYCLIC_SHARE:.0%} the cycles are taken as real.",
    )
    duplicated = duplicated_columns(values.T)  # missing pairs: not evidence
    redundant = add_duplicates_check(checks, duplicated, n, "agents", n,
                                     MIN_DUPLICATE_POINTS, "opponents")
    add_reference_check(checks, agents)
    payoff = "probability" if probability else "logit"
    options = [VotingRanker(method="borda")]
    if cyclic > CYCLIC_SHARE or redundant:
        options.insert(0, NashAverager(game="agent_vs_agent", payoff=payoff))
    # the game the recommendation is fitted on: as given, or its antisymmetric
    # part for payoffs that are only nearly antisymmetric (the note says so)
    exact = probability or np.allclose(values, -values.T, equal_nan=True)
    recommended, excluded = fitting_recommendation(
        options, values if exact else 0.5 * (values - values.T))
    if recommended is None:
        return {"checks": checks, "kind": "game", "unit": None, "players": agents,
                "too_small": "no estimator can take this game: " + "; ".join(
                    f"{k}: {v}" for k, v in excluded.items())}
    fitted = {}
    for name, estimator in (
        ("Nash averaging", NashAverager(game="agent_vs_agent", payoff=payoff)),
    ):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted[name] = _scores(estimator.fit(P if probability else A),
                                       agents)
        except (ValueError, ArithmeticError):
            continue
    fitted["mean win rate" if probability else "mean payoff"] = pd.Series(
        nan_mean(values, axis=1), index=agents)
    return {"checks": checks, "kind": "game", "unit": None, "players": agents,
            "recommended": recommended, "cyclic": cyclic, "redundant": redundant,
            "fitted": fitted, "split": "", "excluded": excluded,
            "note": "a square game holds no votes to cross-validate: the "
                    "recommendation follows the Hodge split and redundancy"
                    + ("" if exact else
                       "; the payoffs are only nearly antisymmetric: fit it on "
                       "(X - X.T) / 2")}
