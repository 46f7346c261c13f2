"""The advisor's path for matches (long tables of two players and an outcome)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..pairwise import EloRanker
from ..report import analyze_matches, prepare_matches
from ..uncertainty import rank_sets
from ._choice import MIN_GAIN, Z, candidate_table
from ._diagnostics import (
    Checks,
    add_connectivity_check,
    add_reference_check,
    add_stability_check,
)
from ._matches import (
    build,
    first_win_share,
    heldout_matches,
    match_candidates,
    match_table,
    n_parameters,
    pair_counts,
    rng_for,
    vote_folds,
)

__all__ = []

# fewer votes than this per fold: no cross-validation
MIN_VOTES_PER_FOLD = 10


def _covariates(X):
    if isinstance(X, pd.DataFrame) and X.shape[1] > 2:
        return X.iloc[:, 2:].reset_index(drop=True)
    return None


def run_matches(X, y, sample_weight, cv, random_state):
    """Diagnostics, candidates and the fitted plausible models of matches."""
    pairs, model_X, y, w, has_cov = match_table(X, y, sample_weight)
    candidates, draws, both_orders, players = match_candidates(pairs, y, w, has_cov)
    counts = pair_counts(pairs, w, players)
    n = players.size
    total = float(w.sum())
    checks = Checks()
    checks.add("data kind", "matches", "detected",
               "Ratings from pairwise outcomes (Bradley-Terry family).")
    checks.add("shape", f"{total:,.0f} votes in {len(y):,} rows, {n} players",
               "ok", "The number of votes bounds what can be learnt per player.")
    add_connectivity_check(checks, counts, "players")
    played = counts[np.triu_indices(n, 1)]
    played = played[played > 0]
    checks.add(
        "votes per pair",
        f"median {np.median(played):.0f}, min {played.min():.0f}; "
        f"{played.size} of {n * (n - 1) // 2} pairs played",
        "sparse" if played.size < 0.5 * n * (n - 1) / 2 else "dense",
        "Unplayed pairs are predicted by the model, not measured: a transitive "
        "model fills them by transitivity, a cyclic one by its planes.",
    )
    _add_draw_checks(checks, draws, first_win_share(y, w), both_orders)
    add_reference_check(checks, players)
    fold_size = total / cv
    result = {"checks": checks, "kind": "matches", "unit": "vote",
              "players": players, "estimators": {}, "split": ""}
    if fold_size < MIN_VOTES_PER_FOLD or n < 3:
        result["too_small"] = (
            f"{total:.0f} votes between {n} players are too few for {cv}-fold "
            f"cross-validation (at least {MIN_VOTES_PER_FOLD} votes per fold and "
            "3 players are needed)"
        )
        return result
    folds, split = vote_folds(w, cv, rng_for(random_state))
    result["split"] = split
    fit_X = _coded(model_X, pairs, players, has_cov)
    scores, reasons = _cross_validate(
        candidates, _fold_table(model_X, fit_X, pairs, players, has_cov), y, w, folds,
        random_state)
    if not scores:
        result["too_small"] = "no candidate could be fitted on the folds: " + \
            "; ".join(f"{k}: {v}" for k, v in reasons.items())
        return result
    n_cov = model_X.shape[1] - 2 if has_cov else 0
    candidates = [c for c in candidates if c.name in scores or c.name in reasons]
    n_params = {c.name: n_parameters(c, n, draws, n_cov) for c in candidates}
    reprs = {c.name: repr(build(c, None)) for c in candidates}
    table, chosen, unsure = candidate_table(candidates, scores, n_params, reprs)
    by_name = {c.name: c for c in candidates}
    result.update(candidates=table, chosen=by_name[chosen], unsure=unsure,
                  reasons=reasons)
    _effective_dimension(checks, table, scores)
    fitted = _fit_plausible(table, by_name, fit_X, y, w, random_state)
    result["fitted"] = {
        name: pd.Series(model.agent_scores_, index=(
            model.agents_ if has_cov else players[np.asarray(model.agents_, int)]))
        for name, model in fitted.items()
    }
    _hodge_and_nash(checks, result, pairs, y, w, model_X, by_name[chosen],
                    random_state)
    result["rank_sets"] = _rank_sets(fitted.get(chosen), fit_X, y, w,
                                     random_state)
    add_stability_check(checks, result["rank_sets"])
    return result


def _add_draw_checks(checks, draws, share, both_orders):
    """The draw rate and first-player advantage rows, in words at the extremes.

    Every vote a draw leaves no decided vote: no tie model has a finite tie
    parameter, no first-player share exists, and the ratings are all equal.
    """
    if draws == 0:
        verdict = "no ties"
    elif draws < 1:
        verdict = "ties present: tie models compared"
    else:
        verdict = "all ties: no tie model fits"
    checks.add(
        "draw rate", f"{draws:.1%}", verdict,
        "With ties, Davidson's or Rao-Kupper's model predicts them; 'half' "
        "counts a tie as half a win and half a loss. When every vote is a "
        "tie, a tie model's parameter would be infinite: ties count as half "
        "and every player rates the same."
        if draws == 1 else
        "With ties, Davidson's or Rao-Kupper's model predicts them; 'half' "
        "counts a tie as half a win and half a loss.",
    )
    if np.isnan(share):
        value, verdict = "no decided votes (every vote a draw)", "not identified"
    else:
        value = f"first listed wins {share:.1%} of decided votes" + (
            "" if both_orders else " (pairs never in both orders)")
        verdict = "testable" if both_orders else "not identified"
    checks.add(
        "first-player advantage", value, verdict,
        "A home or first-shown advantage biases ratings unless it is fitted.",
    )


def _coded(model_X, pairs, players, has_cov):
    """Players as integer codes (the fits then skip coding labels each time)."""
    if has_cov:
        return model_X
    index = {p: i for i, p in enumerate(players)}
    strings = pairs.astype(str)
    return np.column_stack([
        np.fromiter((index[p] for p in strings[:, 0]), np.int64, len(strings)),
        np.fromiter((index[p] for p in strings[:, 1]), np.int64, len(strings)),
    ])


def _fold_table(model_X, fit_X, pairs, players, has_cov):
    """The folds' match table: player codes and covariates in one float array.

    The fits on the folds then skip parsing labels and covariate columns
    (of a DataFrame) each time; the players keep their sorted order, so the
    fits and their held-out numbers are those on the labelled table.
    Covariates that are not numbers are left to the estimators' checks.
    """
    if not has_cov:
        return fit_X
    try:
        if isinstance(model_X, pd.DataFrame):
            covariates = model_X.iloc[:, 2:].to_numpy(dtype=np.float64)
        else:
            covariates = np.asarray(np.asarray(model_X)[:, 2:], dtype=np.float64)
    except (TypeError, ValueError):
        return fit_X
    if not np.all(np.isfinite(covariates)):
        return fit_X
    codes = _coded(model_X, pairs, players, False)
    return np.column_stack([codes.astype(np.float64), covariates])


def _cross_validate(candidates, X, y, w, folds, random_state):
    """Held-out scores; MultiElo k+1 only after k planes beat k - 1."""
    plain = [c for c in candidates if c.family != "MultiElo"]
    melo = [c for c in candidates if c.family == "MultiElo"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, _, reasons = heldout_matches(plain, X, y, w, folds, random_state)
        previous = "Bradley-Terry"
        for candidate in melo:
            more, _, why = heldout_matches([candidate], X, y, w, folds,
                                           random_state)
            scores.update(more)
            reasons.update(why)
            if candidate.name not in more or not _gains(scores, candidate.name,
                                                        previous):
                break
            previous = candidate.name
    return scores, reasons


def _gains(scores, name, base):
    """Whether ``name`` beats ``base`` on held-out votes beyond noise (paired).

    The gain must also exceed a fifth of the advisor's practical threshold
    (0.001 nats per vote): on a million votes a negligible gain is
    significant.
    """
    if base not in scores:
        return False
    diff = scores[name] - scores[base]
    se = float(np.std(diff, ddof=1) / np.sqrt(diff.size))
    return bool(diff.mean() > Z * se and diff.mean() > MIN_GAIN / 5)


def _effective_dimension(checks, table, scores):
    melo = [m for m in table.index if m.startswith("MultiElo")]
    if not melo or "Bradley-Terry" not in table.index:
        checks.add("effective dimension", "not tested", "n/a",
                   "MultiElo needs at least 4 players and no covariates.")
        return
    base = table.loc["Bradley-Terry", "heldout_loglik"]
    gains = ", ".join(
        f"k={m[-1]}: {table.loc[m, 'heldout_loglik'] - base:+.4f}" for m in melo)
    best = max(melo, key=lambda m: table.loc[m, "heldout_loglik"])
    cyclic = _gains(scores, best, "Bradley-Terry")
    checks.add(
        "effective dimension",
        f"held-out gain per vote of MultiElo over Bradley-Terry: {gains}",
        f"cyclic (k={best[-1]})" if cyclic else "one dimension (transitive)",
        "Cyclic planes pay off only where the game is rock-paper-scissors; "
        "otherwise they fit noise.",
    )


def _fit_plausible(table, by_name, X, y, w, random_state):
    fitted = {}
    names = list(table.index[table["within_noise"]])
    if "Bradley-Terry" in table.index and "Bradley-Terry" not in names:
        names.append("Bradley-Terry")
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted[name] = build(by_name[name], random_state).fit(
                    X, y, sample_weight=w)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            continue
    return fitted


def _hodge_and_nash(checks, result, pairs, y, w, model_X, chosen, random_state):
    """The report's Hodge split against its transitive null, and Nash."""
    try:
        matches = prepare_matches(pairs, y, w, covariates=_covariates(model_X))
        params = chosen.params if chosen.family == "EloRanker" else {}
        advantage = params.get("first_advantage")
        analysis = analyze_matches(
            matches, n_resamples=0, ties=params.get("ties", "half"),
            first_advantage=advantage, random_state=random_state,
        )
    except (ValueError, ArithmeticError) as exc:
        checks.add("intransitivity", "not computed", "n/a", str(exc))
        return
    hodge = analysis.hodge
    if hodge is None or hodge.get("zero", True):
        checks.add("intransitivity", "not computed", "n/a",
                   "The win-rate game is empty or its analysis failed.")
    else:
        null = hodge.null
        value = f"cyclic share {hodge.cyclic:.1%}"
        if null is not None:
            value += (f"; transitive noise {null.mean:.1%} (95%: "
                      f"{null.cutoff:.1%})")
        checks.add(
            "intransitivity", value,
            "cyclic beyond noise" if hodge.beyond_noise else "within noise",
            "Hodge split of the win-rate log-odds; a transitive model's games "
            "on the same schedule show this much cyclic share from noise alone.",
        )
        result["hodge"] = hodge
    nash = analysis.nash
    if nash is not None:
        result["nash"] = pd.Series(nash.model.agent_scores_, index=nash.players)


def _rank_sets(model, X, y, w, random_state):
    if not isinstance(model, EloRanker):  # MultiElo: a bootstrap of refits
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return rank_sets(model, X, y, sample_weight=w, n_resamples=200,
                             random_state=random_state, frequency_weights=True)
    except (ValueError, TypeError, ArithmeticError, NotImplementedError):
        return None
