"""The advisor on matches: held-out likelihood per vote and the match checks.

Votes are split into folds *multinomially* when the weights are whole
numbers (vote counts given as weighted rows: each vote of a row goes to a
fold at random, so every row is seen in training and held out), else by row.
Every candidate is scored by the three-outcome log-likelihood of each
held-out vote (win, tie, loss): a model without a tie model ("half", MultiElo)
predicts a tie with the share of ties in its training votes and splits the
rest by its win probability, as ``EloRanker(ties="half").score`` does, so
every candidate is scored on the same outcomes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils import check_random_state

from ..pairwise import EloRanker, MultiElo
from ..utils import check_matches
from ._kinds import Candidate

__all__ = []

TIE_NAMES = {"half": "half", "davidson": "Davidson", "rao-kupper": "Rao-Kupper"}
# a tie model is fitted with this weak prior on the ratings, as the report does
_ALPHA = 1e-2
_MELO_ALPHA = 1e-2


def match_table(X, y, sample_weight):
    """``(pairs, model_X, y, w, has_covariates)``; refuses what EloRanker refuses."""
    n_columns = X.shape[1] if hasattr(X, "shape") and len(X.shape) == 2 else 2
    if isinstance(X, pd.DataFrame):
        pairs = X.iloc[:, :2].to_numpy(dtype=object)
    else:
        array = np.asarray(X, dtype=object)
        if array.ndim != 2 or array.shape[1] < 2:
            raise ValueError(
                "X must be a table of matches with the two players in its first "
                f"two columns; got shape {array.shape}."
            )
        pairs = array[:, :2]
    data = check_matches(pairs, y, sample_weight, require_y=True)
    w = np.asarray(data.sample_weight, dtype=np.float64)
    if not w.sum() > 0:
        raise ValueError(
            "sample_weight is zero for every match: there are no votes to "
            "compare models on.")
    return pairs, X, np.asarray(data.y, dtype=np.float64), w, n_columns > 2


def _rows(X, index):
    if isinstance(X, pd.DataFrame):
        return X.iloc[index]
    return np.asarray(X, dtype=object)[index]


def vote_folds(w, cv, rng):
    """Weights of every row in each fold, shape (n_rows, cv), and how.

    Whole-number weights are vote counts: each vote goes to a fold at random
    (a multinomial split of the row's count). Other weights split by row.
    """
    whole = np.all(w == np.round(w)) and np.all(w < 2**31)
    if whole:
        counts = w.astype(np.int64)
        folds = np.zeros((w.size, cv))
        remaining = counts.copy()
        for k in range(cv - 1):  # sequential binomials = one multinomial
            share = 1.0 / (cv - k)
            folds[:, k] = rng.binomial(remaining, share)
            remaining -= folds[:, k].astype(np.int64)
        folds[:, cv - 1] = remaining
        return folds, "votes (multinomial split of each row's count)"
    assignment = rng.permutation(w.size) % cv
    folds = np.zeros((w.size, cv))
    folds[np.arange(w.size), assignment] = w
    return folds, "rows (weights are not whole vote counts)"


def three_outcome_loglik(model, X, y, tie_share):
    """Log-probability of each outcome under ``model`` (see module doc)."""
    proba = model.predict_proba(X)
    if proba.shape[1] == 3:
        column = np.searchsorted(model.classes_, y)
        p = proba[np.arange(y.size), column]
    else:
        win = proba[:, 1]
        p = np.where(
            y == 1.0,
            (1.0 - tie_share) * win,
            np.where(y == 0.0, (1.0 - tie_share) * (1.0 - win), tie_share),
        )
    return np.log(np.clip(p, 1e-300, None))


def match_candidates(pairs, y, w, has_covariates):
    """The candidate rating models for these matches, by data features."""
    draws = float(np.sum(w * (y == 0.5)) / w.sum())
    players = np.unique(pairs.astype(str))
    ordered = {(a, b) for a, b in pairs.astype(str).tolist()}
    both_orders = any((b, a) in ordered for a, b in ordered if a != b)
    ties = ["half"] + (["davidson", "rao-kupper"] if 0.0 < draws < 1.0 else [])
    candidates = []
    for order, tie in enumerate(ties):
        candidates.append(Candidate(
            _bt_name(tie, False), "EloRanker",
            {"method": "batch", "ties": tie, **({"alpha": _ALPHA} if tie != "half"
                                                else {})}, min(order, 1)))
    if both_orders:
        for order, tie in enumerate(ties):
            candidates.append(Candidate(
                _bt_name(tie, True), "EloRanker",
                {"method": "batch", "ties": tie, "first_advantage": "fit",
                 **({"alpha": _ALPHA} if tie != "half" else {})}, min(order, 1)))
    if not has_covariates and players.size >= 4:
        for k in (1, 2):
            if players.size >= 2 * k + 2:
                candidates.append(Candidate(
                    f"MultiElo k={k}", "MultiElo",
                    {"n_components": k, "method": "batch", "alpha": _MELO_ALPHA},
                    0))
    return candidates, draws, both_orders, players


def _bt_name(tie, advantage):
    name = "Bradley-Terry" if tie == "half" else f"Bradley-Terry, {TIE_NAMES[tie]} ties"
    return name + (", first-player advantage" if advantage else "")


def build(candidate, random_state):
    """The unfitted estimator of ``candidate``."""
    if candidate.family == "MultiElo":
        return MultiElo(**candidate.params, random_state=random_state)
    return EloRanker(**candidate.params)


def n_parameters(candidate, n_players, draws, n_covariates):
    """Free parameters: ratings (one fixed), tie, advantage, cyclic vectors."""
    count = n_players - 1 + n_covariates + (1 if draws > 0 else 0)
    if candidate.params.get("first_advantage") == "fit":
        count += 1
    if candidate.family == "MultiElo":
        k = candidate.params["n_components"]
        count += 2 * k * n_players - k  # one rotation per plane is free
    return count


def heldout_matches(candidates, X, y, w, folds, random_state):
    """Per-fold held-out log-likelihood per vote of each candidate.

    Returns ``(scores, fitted_on_all)``: ``scores[name]`` is an array of the
    fold means, ``fitted_on_all`` maps names to estimators fitted on every
    vote. A candidate whose fit fails on a fold is left out (its reason kept).
    """
    cv = folds.shape[1]
    scores, totals, reasons = {}, {}, {}
    for candidate in candidates:
        estimator = build(candidate, random_state)
        fold_means, fold_totals = np.empty(cv), np.empty(cv)
        try:
            for k in range(cv):
                test_w = folds[:, k]
                train_w = w - test_w
                train, test = train_w > 0, test_w > 0
                tie_share = float(np.sum(train_w * (y == 0.5)) / train_w.sum())
                model = clone(estimator).fit(
                    _rows(X, np.flatnonzero(train)), y[train],
                    sample_weight=train_w[train],
                )
                loglik = three_outcome_loglik(
                    model, _rows(X, np.flatnonzero(test)), y[test], tie_share)
                fold_totals[k] = float(test_w[test] @ loglik)
                fold_means[k] = fold_totals[k] / test_w[test].sum()
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            reasons[candidate.name] = str(exc).splitlines()[0]
            continue
        scores[candidate.name] = fold_means
        totals[candidate.name] = fold_totals.sum() / w.sum()
    return scores, totals, reasons


def first_win_share(y, w):
    """Weighted share of decided votes the first-listed player won."""
    decided = y != 0.5
    if not np.any(w[decided] > 0):
        return float("nan")
    return float(np.sum(w[decided] * (y[decided] == 1.0)) / np.sum(w[decided]))


def pair_counts(pairs, w, players):
    """Votes per unordered pair (``players`` sorted): a dense matrix."""
    index = {p: i for i, p in enumerate(players)}
    a = np.array([index[p] for p in pairs[:, 0].astype(str)])
    b = np.array([index[p] for p in pairs[:, 1].astype(str)])
    n = players.size
    counts = np.bincount(a * n + b, weights=w, minlength=n * n).reshape(n, n)
    return counts + counts.T


def rng_for(random_state):
    return check_random_state(random_state)
