"""The advisor on result matrices: held-out likelihood per response (cell).

The observed cells, not the agents, are split at random into folds (as
:func:`sklearn_eval.irt.compare_models` does), so every agent and every item
is seen in training. An item response model is scored by the log predictive
probability of an agent's held-out responses given its training responses
(ability integrated out): ``log p(train + held out) - log p(train)``, both
from the fitted model's public ``score``. Scores that are not 0/1 and for
which no item response model is available are compared as Gaussian cell
models: the additive model ``mu + a_i + b_j`` (one dimension of merit, tasks
of different difficulty) and that model plus ``d`` low-rank factors; scores
on unrelated scales (not within [0, 1]) are first put in standard units per
task.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ..irt import IRT
from ._kinds import Candidate

__all__ = []

MAX_FACTORS = 2
# the comparison's fits: Gauss-Hermite quadrature (21 nodes) and a looser EM
# tolerance move the log-likelihood by far less than the models differ, at a
# fraction of the cost of the default rectangular grid
FAST_IRT = {"quadrature": "gauss-hermite", "tol": 1e-5}
# continuous scores give narrow posteriors that 21 Gauss-Hermite nodes miss
# (EM then crawls to max_iter): their fits keep the model's own grid
CONTINUOUS_MODELS = ("beta", "logit-normal")


def fast_irt(params):
    """The comparison's fit settings for an IRT candidate's parameters."""
    if params.get("model") in CONTINUOUS_MODELS:
        return {"tol": FAST_IRT["tol"]}
    return FAST_IRT
_SOFT_IMPUTE_ITER = 100


def cell_folds(values, cv, rng, by_category=False):
    """``(rows, cols, fold)`` of the observed cells, folds at random.

    With ``by_category`` (graded responses) the cells of every (item,
    category) pair are dealt round the folds in turn, so a pair observed at
    least twice keeps an occurrence in every training fold and an item
    never meets, held out, a category its training responses lack (a model
    fitted without that category cannot score it). A response that is the
    only one of its category on its item is never held out: its ``fold``
    is -1 (in every training fold, never scored).
    """
    rows, cols = np.nonzero(~np.isnan(values))
    if not by_category:
        return rows, cols, rng.permutation(rows.size) % cv
    pairs = np.column_stack([cols, values[rows, cols]])
    _, group, counts = np.unique(pairs, axis=0, return_inverse=True,
                                 return_counts=True)
    group = group.ravel()
    order = np.lexsort((rng.random(rows.size), group))  # a pair's cells together
    dealt = order[counts[group[order]] > 1]
    fold = np.full(rows.size, -1)
    fold[dealt] = (np.arange(dealt.size) + int(rng.randint(cv))) % cv
    return rows, cols, fold


def known_categories(model, cols, data):
    """Whether each cell's code is a category its item had in ``model``'s fit.

    True everywhere for models without categories (``categories_``).
    """
    categories = getattr(model, "categories_", None)
    if categories is None:
        return np.ones(cols.size, dtype=bool)
    out = np.zeros(cols.size, dtype=bool)
    for j, known in enumerate(categories):
        here = cols == j
        out[here] = np.isin(data[here], known)
    return out


def _matrix(shape, rows, cols, data):
    out = np.full(shape, np.nan)
    out[rows, cols] = data
    return out


def _total_loglik(model, matrix, kept):
    n_obs = int(np.sum(~np.isnan(matrix[:, kept])))
    return model.score(matrix) * n_obs if n_obs else 0.0, n_obs


def heldout_irt(candidates, values, rows, cols, fold, random_state, n_jobs):
    """Per-fold mean held-out log-likelihood per response of each IRT model.

    ``fold`` -1 marks a cell kept in every training fold. Held-out responses
    to an item left out of a fold's fit, or in a category the item's training
    responses lack, are not scored (as in :func:`sklearn_eval.irt.
    compare_models`).
    """
    cv = int(fold.max()) + 1
    data = values[rows, cols]
    scores, reasons = {}, {}
    for candidate in candidates:
        estimator = IRT(**candidate.params, **fast_irt(candidate.params),
                        random_state=random_state, n_jobs=n_jobs)
        means = np.empty(cv)
        try:
            for k in range(cv):
                train = fold != k
                seen = np.bincount(rows[train], minlength=values.shape[0]) > 0
                index = np.cumsum(seen) - 1
                fitted = clone(estimator).fit(_matrix(
                    (int(seen.sum()), values.shape[1]), index[rows[train]],
                    cols[train], data[train]))
                kept = ~np.isin(np.arange(values.shape[1]),
                                np.asarray(fitted.constant_items_, dtype=float))
                scored = ~train & kept[cols] & known_categories(fitted, cols, data)
                both = train | scored
                full, n_full = _total_loglik(fitted, _matrix(
                    values.shape, rows[both], cols[both], data[both]), kept)
                part, n_part = _total_loglik(fitted, _matrix(
                    values.shape, rows[train], cols[train], data[train]), kept)
                means[k] = (full - part) / max(n_full - n_part, 1)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            reasons[candidate.name] = str(exc).splitlines()[0]
            continue
        if not np.isfinite(means).all():
            reasons[candidate.name] = "the held-out log-likelihood is not finite"
            continue
        scores[candidate.name] = means
    return scores, reasons


def irt_n_parameters(candidate, values):
    """Free item parameters of an item response candidate on ``values``.

    A slope and one threshold (or step) per boundary between the observed
    categories of every graded item with two or more (the model collapses
    unused codes and leaves a constant item out); slope, location and
    precision (or spread) for continuous scores;
    ``m`` slopes and an intercept per item for ``m`` factors, less the
    ``m (m - 1) / 2`` of a rotation.
    """
    model = candidate.params["model"]
    n_items = values.shape[1]
    m = int(candidate.params.get("n_factors", 1))
    if model in ("GRM", "GPCM"):
        levels = np.array([np.unique(column[~np.isnan(column)]).size
                           for column in values.T])
        return int(levels[levels >= 2].sum())  # a slope and levels - 1 boundaries
    if model == "1PL":
        return n_items + 1  # one common slope
    per_item = {"2PL": 2, "3PL": 3, "4PL": 4, "beta": 3, "logit-normal": 3}
    return (per_item.get(model, 0) + m - 1) * n_items - m * (m - 1) // 2


def gaussian_candidates(n_agents, n_items):
    """The additive model and up to MAX_FACTORS extra low-rank factors."""
    limit = min(MAX_FACTORS, n_agents - 2, n_items - 2)
    return [Candidate("additive (one dimension)", "additive", {"n_factors": 0}, 0)] + [
        Candidate(f"additive + {d} factor(s)", "additive", {"n_factors": d}, d)
        for d in range(1, max(limit, 0) + 1)
    ]


def gaussian_n_parameters(candidate, n_agents, n_items):
    d = candidate.params["n_factors"]
    return n_agents + n_items - 1 + d * (n_agents + n_items - d) + 1


def fit_cells(matrix, n_factors, n_iter=_SOFT_IMPUTE_ITER):
    """Additive fit plus a rank-``n_factors`` residual, missing cells imputed."""
    seen = ~np.isnan(matrix)
    filled = np.where(seen, matrix, nan_mean(matrix))
    fit = filled
    for _ in range(n_iter):
        mu = filled.mean()
        a = filled.mean(axis=1, keepdims=True) - mu
        b = filled.mean(axis=0, keepdims=True) - mu
        additive = mu + a + b
        fit = additive
        if n_factors:
            u, s, vt = np.linalg.svd(filled - additive, full_matrices=False)
            fit = additive + (u[:, :n_factors] * s[:n_factors]) @ vt[:n_factors]
        new = np.where(seen, matrix, fit)
        if np.max(np.abs(new - filled)) < 1e-8:
            break
        filled = new
    return fit


def heldout_gaussian(candidates, values, rows, cols, fold):
    """Per-fold mean held-out Gaussian log-likelihood per cell of each model."""
    cv = int(fold.max()) + 1
    data = values[rows, cols]
    scores = {}
    for candidate in candidates:
        d = candidate.params["n_factors"]
        means = np.empty(cv)
        for k in range(cv):
            train = fold != k
            fit = fit_cells(_matrix(values.shape, rows[train], cols[train],
                                    data[train]), d)
            resid = data[train] - fit[rows[train], cols[train]]
            n_par = gaussian_n_parameters(candidate, *values.shape)
            dof = max(train.sum() - n_par, 1)
            var = max(float(resid @ resid) / dof, 1e-12)
            held = data[~train] - fit[rows[~train], cols[~train]]
            means[k] = float(np.mean(-0.5 * (np.log(2 * np.pi * var) + held**2 / var)))
        scores[candidate.name] = means
    return scores


def _unit_scale(values):
    """``values`` divided by their largest magnitude: correlations unchanged.

    Scores near the float maximum would overflow the squares of a standard
    deviation; one common factor leaves every correlation as it is.
    """
    finite = np.abs(values[np.isfinite(values)])
    scale = float(finite.max()) if finite.size else 0.0
    return values / scale if scale > 0 else values


def nan_mean(values, axis=None):
    """Mean of the observed (non-NaN) values, NaN where there is none.

    As :func:`numpy.nanmean`, without its "Mean of empty slice" warning: a
    task or an agent without results is a documented case of the advisor,
    not a numerical accident.
    """
    values = np.asarray(values, dtype=float)
    seen = ~np.isnan(values)
    total = np.where(seen, values, 0.0).sum(axis=axis)
    count = seen.sum(axis=axis)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def nan_std(values, axis=None):
    """Standard deviation of the observed values (ddof 0), NaN where none."""
    values = np.asarray(values, dtype=float)
    mean = nan_mean(values, axis=axis)
    centred = values - (mean if axis is None else np.expand_dims(mean, axis))
    return np.sqrt(nan_mean(centred**2, axis=axis))


# two points always correlate +-1 and three or four nearly do by chance: a
# pair of columns is called a near duplicate only on this many common agents
MIN_DUPLICATE_POINTS = 5


def duplicated_columns(values, threshold=0.99, min_points=MIN_DUPLICATE_POINTS):
    """Indices of columns (tasks) that nearly duplicate an earlier one.

    Two columns are near duplicates when their Pearson correlation over the
    agents that have a result on both is above ``threshold``, on at least
    ``min_points`` such agents; columns constant over those agents are
    never duplicates.
    """
    correlation = _pairwise_correlation(
        _unit_scale(np.asarray(values, dtype=float)), min_points)
    np.fill_diagonal(correlation, 0.0)
    upper = np.triu(correlation > threshold, 1)
    return np.flatnonzero(upper.any(axis=0))


def _pairwise_correlation(values, min_points):
    """Correlation of every two columns over the rows where both are
    observed (0 where fewer than ``min_points`` rows or no spread)."""
    seen = ~np.isnan(values)
    sd = nan_std(values, axis=0)
    scale = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
    z = np.where(seen, (values - nan_mean(values, axis=0)) / scale, 0.0)
    mask = seen.astype(np.float64)
    count = mask.T @ mask
    if seen.all():  # every pair over every row: one product
        var = (z * z).mean(axis=0)
        cov = (z.T @ z) / max(values.shape[0], 1)
        denominator = np.sqrt(np.outer(var, var))
    else:  # moments of each column over the rows it shares with another
        n = np.maximum(count, 1.0)
        first = (z.T @ mask) / n  # [a, b]: mean of a over rows with b
        second = ((z * z).T @ mask) / n
        cov = (z.T @ z) / n - first * first.T
        var = np.clip(second - first**2, 0.0, None)  # [a, b]: of a, rows with b
        denominator = np.sqrt(var * var.T)
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = np.where(denominator > 1e-12, cov / denominator, 0.0)
    correlation[count < min_points] = 0.0
    return correlation


def point_biserial(values):
    """Correlation of each item with the rest score (NaN for constant items)."""
    mean = nan_mean(values, axis=0)
    filled = _unit_scale(
        np.where(np.isnan(values), np.where(np.isnan(mean), 0.0, mean), values))
    total = filled.sum(axis=1)
    out = np.full(values.shape[1], np.nan)
    for j in range(values.shape[1]):
        rest = total - filled[:, j]
        if filled[:, j].std() > 0 and rest.std() > 0:
            out[j] = float(np.corrcoef(filled[:, j], rest)[0, 1])
    return out
