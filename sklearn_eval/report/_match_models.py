"""The rating models of the match report: prior, tie model, transitive null.

Each model is fitted once on the matches; the choices made on the way (the
prior, the tie model) are pure checks or held-out comparisons, and each says
why in a note the report prints.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils import Bunch

from ..game import hodge_decomposition
from ..pairwise import EloRanker, maximum_likelihood_exists
from ..utils import lookup_players

__all__ = []

# the L2 prior used when maximum likelihood has no finite ratings (a player
# undefeated, winless or disconnected): N(0, 100) on the logit ratings
FALLBACK_ALPHA = 0.01
TIE_MODELS = ("davidson", "rao-kupper")
_TIE_NAMES = {"half": "half", "davidson": "Davidson", "rao-kupper": "Rao-Kupper"}
N_FOLDS = 5
N_NULL = 200
ALL_DRAWS_NOTE = (
    "Every match is a draw, so no tie model applies (Davidson's or Rao-Kupper's "
    "tie parameter would be infinite) and there is no decided match: a draw "
    "counts as half a win and half a loss, and every player gets the same "
    "rating. "
)


def choose_alpha(matches, alpha):
    """``(alpha, note)``: the given prior, or the pure existence check's choice."""
    if alpha is not None:
        return float(alpha), ""
    if maximum_likelihood_exists(matches.X, matches.y, matches.sample_weight):
        return 0.0, ""
    return FALLBACK_ALPHA, (
        "Some players never both win and lose against the others (undefeated, "
        "winless or disconnected), so maximum-likelihood ratings are infinite or "
        "undetermined: the ratings use a weak L2 prior "
        f"(alpha={FALLBACK_ALPHA:g}, a N(0, 100) prior on logit ratings). Players "
        "with few matches are pulled toward the mean; their intervals stay wide. "
    )


def held_out_log_likelihood(estimator, X, y, w, random_state):
    """Mean held-out three-outcome log-likelihood per match (K-fold)."""
    folds = KFold(N_FOLDS, shuffle=True, random_state=random_state)
    total = weight = 0.0
    for train, test in folds.split(y):
        model = clone(estimator).fit(_rows(X, train), y[train], sample_weight=w[train])
        proba = model.predict_proba(_rows(X, test))
        column = np.searchsorted(model.classes_, y[test])
        p = np.clip(proba[np.arange(test.size), column], 1e-300, None)
        total += float(np.sum(w[test] * np.log(p)))
        weight += float(np.sum(w[test]))
    return total / weight


def _rows(X, index):
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


def choose_ties(matches, ties, base, random_state):
    """``(ties, scores, note)``: the given tie model, or the held-out best.

    With draws and decided matches in the data and no tie model given,
    Davidson's and Rao-Kupper's models are compared by their mean held-out
    log-likelihood (5-fold cross-validation); "half" scores a draw as half a
    win and half a loss and is no probability model of draws, so it is not a
    candidate. When every match is a draw no tie model has a finite tie
    parameter: the ratings count draws as half (every player rates the
    same), and the note says so.
    """
    draws = matches.y == 0.5
    if draws.all() and ties in (None, "half"):
        return "half", {}, ALL_DRAWS_NOTE
    if ties is not None or not draws.any():
        return ties or "half", {}, ""
    X = matches.model_X
    scores = {
        name: held_out_log_likelihood(
            clone(base).set_params(ties=name, alpha=max(base.alpha, FALLBACK_ALPHA)),
            X, matches.y, matches.sample_weight, random_state,
        )
        for name in TIE_MODELS
    }
    best = max(TIE_MODELS, key=lambda name: (scores[name], name == "davidson"))
    compared = " against ".join(
        f"{_TIE_NAMES[name]} {scores[name]:.4f}"
        for name in sorted(TIE_MODELS, key=lambda n: n != best)
    )
    share = float(np.mean(matches.y == 0.5))
    note = (
        f"{share:.0%} of the matches are draws, so the ratings use a tie model, "
        f"chosen by held-out likelihood: {_TIE_NAMES[best]} "
        f"(mean {N_FOLDS}-fold held-out log-likelihood per match: {compared}). "
    )
    return best, scores, note


def fit_ratings(matches, *, alpha, ties, first_advantage, random_state):
    """The report's Bradley-Terry model, fitted once, with its notes."""
    alpha, prior_note = choose_alpha(matches, alpha)
    base = EloRanker(
        method="batch",
        alpha=alpha,
        first_advantage=0.0 if first_advantage is None else first_advantage,
    )
    ties, scores, tie_note = choose_ties(matches, ties, base, random_state)
    model = clone(base).set_params(ties=ties).fit(
        matches.model_X, matches.y, sample_weight=matches.sample_weight
    )
    return Bunch(
        model=model, alpha=alpha, ties=ties, tie_scores=scores,
        note=prior_note + tie_note,
    )


def _win_rate_logits(first, second, y, w, n, clip, fill):
    """The clipped log-odds game of the matches (unplayed pairs from ``fill``)."""
    wins = np.bincount(first * n + second, weights=w * y, minlength=n * n)
    wins += np.bincount(second * n + first, weights=w * (1.0 - y), minlength=n * n)
    counts = np.bincount(first * n + second, weights=w, minlength=n * n)
    counts += np.bincount(second * n + first, weights=w, minlength=n * n)
    wins, counts = wins.reshape(n, n), counts.reshape(n, n)
    P = np.where(counts > 0, wins / np.where(counts > 0, counts, 1.0), fill)
    P = np.clip(0.5 * (P + 1.0 - P.T), clip, 1.0 - clip)
    A = np.log(P) - np.log1p(-P)
    np.fill_diagonal(A, 0.0)
    return 0.5 * (A - A.T)


def transitive_null(matches, model, *, clip, random_state, n_draws=N_NULL):
    """Cyclic shares of games simulated from a transitive model, same schedule.

    Parametric bootstrap: each draw replays every match of the file with an
    outcome drawn from the fitted Bradley-Terry model (with its tie model),
    builds the win-rate game as the report does and splits it (Hodge). The
    pairs that never met are filled by the same model's win probabilities,
    so they add no cyclic part.
    """
    players = np.asarray(model.agents_, dtype=object)
    n = len(players)
    first = lookup_players(matches.X[:, 0], players)
    second = lookup_players(matches.X[:, 1], players)
    proba = model.predict_proba(matches.model_X)
    fill = np.full((n, n), 0.5)
    if n <= 400:  # the model's win probability for every ordered pair
        rows, cols = np.nonzero(~np.eye(n, dtype=bool))
        pairs = np.column_stack([players[rows], players[cols]])
        if matches.covariates is not None:  # covariates at 0: no effect
            import pandas as pd

            pairs = pd.DataFrame(pairs, columns=["first", "second"], dtype=object)
            for column in matches.covariates.columns:
                pairs[column] = 0.0
        p = model.predict_proba(pairs)
        fill[rows, cols] = p[:, -1] + (0.5 * p[:, 1] if p.shape[1] == 3 else 0.0)
    w = matches.sample_weight
    rng = np.random.default_rng(random_state)
    cumulative = np.cumsum(proba, axis=1)
    values = np.array([0.0, 0.5, 1.0]) if proba.shape[1] == 3 else np.array([0.0, 1.0])
    shares = np.empty(n_draws)
    for b in range(n_draws):
        u = rng.random(len(first))[:, None]
        outcome = values[np.minimum((u > cumulative).sum(axis=1), len(values) - 1)]
        A = _win_rate_logits(first, second, outcome, w, n, clip, fill)
        shares[b] = hodge_decomposition(A).cyclic_share if np.any(A) else 0.0
    return shares
