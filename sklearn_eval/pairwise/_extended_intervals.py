"""Intervals of EloRanker's extended batch fit (tie models, covariates, advantage).

The same two paths as for plain Bradley-Terry (see ``_intervals``):

- a bootstrap that draws multinomial counts over the distinct rows (a pair,
  an outcome and a weight without covariates; every match with them) and
  refits the extended model on the resampled cells by Newton's method,
  warm-started at the full-data parameters;
- the sandwich or observed-information covariance of all parameters, whose
  rating block gives Wald intervals.

With ``frequency_weights=True`` a weight k stands for k identical matches
(vote counts): the bootstrap then resamples the matches themselves and the
sandwich sums the scores of each of them.
"""

import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from ..utils import check_and_encode_matches
from ..utils._resampling import multinomial_counts
from ._base import _mean_positive, rating_state
from ._batch import aggregate_pairs, code_played_players
from ._covariates import split_covariates
from ._extended import covariate_units
from ._ties import (
    Cells,
    NoMaximumError,
    build_cells,
    fit_tie_model,
    parameter_covariance,
)
from ._unplayed import embed_covariance
from ._vanishing import effective_alpha, vanishing_alpha

__all__ = [
    "ExtendedRows",
    "Resampler",
    "extended_parameter_covariance",
    "is_extended",
    "refit_extended",
]


def is_extended(estimator):
    """Whether a fitted EloRanker used the extended (tie/covariate) model."""
    state = rating_state(estimator)
    return (state.tie_model is not None or hasattr(estimator, "covariate_coef_")
            or state.fitted_advantage)


def as_frequencies(count, weight):
    """Counts of unit matches from frequency weights (which must be integers)."""
    units = count * weight
    rounded = np.rint(units)
    if not np.allclose(units, rounded, rtol=0.0, atol=1e-6 * max(1.0, units.max())):
        raise ValueError(
            "frequency_weights=True reads each weight as a number of identical "
            "matches, so the weights must be whole numbers; got e.g. "
            f"{weight[np.argmax(np.abs(units - rounded))]!r}."
        )
    if not rounded.sum() > 0:
        raise ValueError(
            "frequency_weights=True reads each weight as a number of identical "
            "matches, and every weight is zero: there is no match to resample."
        )
    return rounded


class ExtendedRows:
    """Distinct resampling units of the training matches, coded once.

    Without covariates the units are the distinct (first, second, outcome,
    weight) rows with their multiplicities; with covariates every match is
    a unit. ``category`` maps each match to its unit (None with frequency
    weights, where the units are the votes a weight stands for).
    """

    def __init__(self, estimator, X, y, sample_weight, frequency_weights):
        table = split_covariates(X)
        matches, players, first, second = check_and_encode_matches(
            table.players, y, sample_weight
        )
        if not np.array_equal(players, estimator.players_):  # pragma: no cover
            raise ValueError("Player coding differs from the fitted estimator's.")
        n = players.shape[0]
        weight = matches.sample_weight
        self.n_players = n
        self.n_matches = int(first.shape[0])
        self.covariate_units = None
        if table.covariates is None:
            code = np.rint(2.0 * matches.y).astype(np.int64)
            w_values, w_code = np.unique(weight, return_inverse=True)
            key = ((first * n + second) * 3 + code) * w_values.shape[0] + w_code
            keys, category, count = np.unique(key, return_inverse=True,
                                              return_counts=True)
            rest = keys // w_values.shape[0]
            self.first, self.second = (rest // 3) // n, (rest // 3) % n
            self.y = (rest % 3) / 2.0
            self.weight = w_values[keys % w_values.shape[0]]
            self.count = count.astype(np.float64)
            self.category = category
            self.covariates = None
        else:
            self.first, self.second, self.y = first, second, matches.y
            self.weight = weight
            self.count = np.ones(first.shape[0])
            self.category = np.arange(first.shape[0])
            # refits run on unit-size covariates, as the estimator's fit does
            self.covariate_units = covariate_units(table.covariates)
            self.covariates = table.covariates / self.covariate_units
        # the size of one unit of weight in the refits: the estimator's
        # (weights rescaled to mean one), or the mean count of frequencies
        self.unit_scale = _mean_positive(weight)
        if frequency_weights:
            self.count = as_frequencies(self.count, self.weight)
            self.unit_scale = _mean_positive(self.count)
            self.weight = np.ones_like(self.weight)
            self.n_matches = int(self.count.sum())
            self.category = None
            if self.covariates is None:
                self._merge_identical(n)

    def _merge_identical(self, n):
        """One unit per (pair, outcome): all its votes are now alike."""
        key = (self.first * n + self.second) * 3 + np.rint(2.0 * self.y).astype(
            np.int64
        )
        keys, inverse = np.unique(key, return_inverse=True)
        self.count = np.bincount(inverse, weights=self.count)
        self.first, self.second = (keys // 3) // n, (keys // 3) % n
        self.y = (keys % 3) / 2.0
        self.weight = np.ones(keys.shape[0])

    def draw(self, rng):
        """Bootstrap counts of the units (multinomial in distribution)."""
        if self.category is not None and self.n_matches <= 10 * self.count.shape[0]:
            picks = rng.integers(0, self.n_matches, size=self.n_matches)
            counts = np.bincount(self.category[picks], minlength=self.count.shape[0])
            return counts.astype(np.float64)
        return multinomial_counts(rng, self.n_matches, self.count)


def full_parameters(estimator, covariate_units=None):
    """The fitted parameter vector (logits): ratings, coefficients, tie.

    With ``covariate_units`` the covariates' coefficients are those of the
    unit-size covariates ``covariates / covariate_units`` (as refitted).
    """
    state = rating_state(estimator)
    coef = [np.atleast_1d(state.advantage)] if state.fitted_advantage else []
    if state.coef is not None:
        units = 1.0 if covariate_units is None else covariate_units
        coef.append(state.coef * units)
    tie = [np.atleast_1d(state.tie)] if state.tie is not None else []
    return np.concatenate([state.ratings, *coef, *tie])


def _settings(estimator):
    units = rating_state(estimator).units_per_logit
    fit_advantage = estimator.first_advantage == "fit"
    fixed = 0.0 if fit_advantage else float(estimator.first_advantage) / units
    return fit_advantage, fixed, fit_advantage or fixed != 0.0


def _cells(rows, used, code, n_present, weights, estimator):
    fit_advantage, fixed, ordered = _settings(estimator)
    covariates = None if rows.covariates is None else rows.covariates[used]
    return build_cells(
        code[rows.first[used]], code[rows.second[used]], rows.y[used], weights,
        n_present, covariates, fit_advantage=fit_advantage, offset=fixed,
        ordered=ordered,
    )


def refit_extended(rows, counts, estimator, init):
    """Ratings (reported scale) of the extended model refitted on unit counts.

    Players without a match in the resample get NaN; with a tie model but no
    tie (or no decided match) in the resample, the tie parameter sits on its
    boundary and the ratings are those of Bradley-Terry (or NaN).
    """
    n = rows.n_players
    used = (counts > 0) & (rows.weight > 0)  # a zero weight is no match
    first, second = rows.first[used], rows.second[used]
    present, code = code_played_players(first, second, n)
    weights = counts[used] * rows.weight[used]
    scale = rows.unit_scale
    weights = weights / scale
    state = rating_state(estimator)
    model = state.tie_model or "half"
    y = rows.y[used]
    out = np.full(n, np.nan)
    tied = weights[y == 0.5].sum()
    if model != "half" and tied >= weights.sum():
        return out
    cells = _cells(rows, used, code, present.shape[0], weights, estimator)
    start = np.concatenate([init[present], init[n:]])
    if model != "half" and tied <= 0:
        model, start = "half", start[:-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = aggregate_pairs(code[first], code[second], y, weights,
                                present.shape[0], ordered=True)
        alpha, _ = effective_alpha(stats, estimator.players_[present],
                                   float(estimator.alpha) / scale, "EloRanker",
                                   scale)
    settings = {"tol": float(estimator.tol), "max_iter": int(estimator.max_iter),
                "init": start}
    try:
        theta, _, _ = fit_tie_model(cells, model, alpha=alpha, **settings)
    except NoMaximumError:
        if alpha >= vanishing_alpha(scale):
            return out  # no estimate in this resample, as the estimator would fail
        theta, _, _ = fit_tie_model(cells, model, alpha=vanishing_alpha(scale),
                                    **settings)
    out[present] = state.to_reported(theta[:present.shape[0]])
    return out


class Resampler:
    """Refits of the extended model on resampled counts of the same units.

    The cells of the full data are built once, with the position of every
    unit's weight in them; a resample whose units cover every player (each
    scoring and conceding) is aggregated by one bincount and refitted by
    Newton's method from the full-data parameters. Other resamples take
    the general path (:func:`refit_extended`), as does a refit that does not
    converge (ratings that do not exist without a prior).
    """

    def __init__(self, rows, estimator):
        self.rows = rows
        self.estimator = estimator
        self.init = full_parameters(estimator, rows.covariate_units)
        self.state = rating_state(estimator)
        self.model = self.state.tie_model or "half"
        self.scale = rows.unit_scale
        self.alpha = float(estimator.alpha) / self.scale
        fit_advantage, fixed, ordered = _settings(estimator)
        self.cells, index = build_cells(
            rows.first, rows.second, rows.y, rows.count * rows.weight / self.scale,
            rows.n_players, rows.covariates, fit_advantage=fit_advantage,
            offset=fixed, ordered=ordered, return_index=True,
        )
        self.valid = index >= 0
        self.index = index[self.valid]

    def _counts(self, counts):
        weights = (counts * self.rows.weight / self.scale)[self.valid]
        size = 3 * self.cells.first.shape[0]
        return np.bincount(self.index, weights=weights, minlength=size).reshape(-1, 3)

    def _well_posed(self, cell_counts):
        n = self.rows.n_players
        cells = self.cells
        first_score = cell_counts[:, 2] + 0.5 * cell_counts[:, 1]
        second_score = cell_counts[:, 0] + 0.5 * cell_counts[:, 1]
        scored = np.bincount(cells.first, first_score, n) + np.bincount(
            cells.second, second_score, n
        )
        conceded = np.bincount(cells.first, second_score, n) + np.bincount(
            cells.second, first_score, n
        )
        if self.alpha == 0.0 and not ((scored > 0).all() and (conceded > 0).all()):
            return False
        played = scored + conceded
        outcome_totals = cell_counts.sum(axis=0)
        decided = outcome_totals[0] + outcome_totals[2]
        return bool((played > 0).all() and (
            self.model == "half" or (outcome_totals[1] > 0 and decided > 0)
        ))

    def refit(self, counts):
        """Ratings (reported scale) for bootstrap counts of the units."""
        cell_counts = self._counts(counts)
        if self._well_posed(cell_counts):
            base = self.cells
            cells = Cells(base.first, base.second, base.design, cell_counts,
                          cell_counts, base.offset, base.n_players)
            try:
                theta, _, converged = fit_tie_model(
                    cells, self.model, alpha=self.alpha,
                    tol=float(self.estimator.tol),
                    max_iter=int(self.estimator.max_iter), init=self.init,
                )
            except NoMaximumError:
                converged = False
            if converged:
                return self.state.to_reported(theta[:base.n_players])
        return refit_extended(self.rows, counts, self.estimator, self.init)


def resample_chunk(resampler, seeds):
    out = []
    with threadpool_limits(limits=1):
        for seed in seeds:
            counts = resampler.rows.draw(np.random.default_rng(seed))
            out.append(resampler.refit(counts))
    return out


def extended_parameter_covariance(estimator, X, y, sample_weight, *, covariance,
                                  frequency_weights):
    """Covariance of all fitted parameters (ratings, coefficients, tie), logits.

    Returns
    -------
    cov : ndarray
        Rows in the order of :func:`full_parameters`.
    """
    rows = ExtendedRows(estimator, X, y, sample_weight, frequency_weights)
    scale = _mean_positive(rows.weight)
    n = rows.n_players
    played = rating_state(estimator).played
    # players without a match of positive weight have no data: the others'
    # covariance, as fitted without them, and NaN for them
    used = (np.ones(rows.count.shape[0], dtype=bool) if played.all()
            else rows.count * rows.weight > 0)
    present, code = code_played_players(rows.first[used], rows.second[used], n)
    weights = (rows.count * rows.weight)[used] / scale
    cells = _cells(rows, used, code, present.shape[0], weights, estimator)
    # squared weights: a unit's count of identical matches, each weighted w^2
    cells.squares = _cells(
        rows, used, code, present.shape[0],
        (rows.count * (rows.weight / scale) ** 2)[used], estimator,
    ).counts
    alpha = float(estimator.alpha) / scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = aggregate_pairs(code[rows.first[used]], code[rows.second[used]],
                                rows.y[used], weights, present.shape[0],
                                ordered=True)
        alpha, _ = effective_alpha(stats, estimator.players_[present], alpha,
                                   "EloRanker", scale)
    model = rating_state(estimator).tie_model or "half"
    # in the coordinates of the unit-size covariates: the rating block, all
    # that the callers use, is the same in any units
    theta = full_parameters(estimator, rows.covariate_units)
    theta = np.concatenate([theta[present], theta[n:]])
    if (model == "davidson" and not np.isfinite(theta[-1])) or (
        model == "rao-kupper" and theta[-1] <= 0
    ):
        # no tie in the data: the tie parameter is on its boundary, fixed
        model, theta = "half", theta[:-1]
    with threadpool_limits(limits=1, user_api="blas"):
        cov = parameter_covariance(cells, model, theta, alpha=alpha,
                                   covariance=covariance,
                                   frequency_weights=frequency_weights)
    if present.shape[0] < n:
        index = np.concatenate([present, np.arange(n, n + cov.shape[0]
                                                   - present.shape[0])])
        cov = embed_covariance(cov, index, n + cov.shape[0] - present.shape[0])
    if rows.covariate_units is None:
        return cov
    # back to the covariates' own units (the coefficients scale as 1 / unit;
    # their variances may underflow at extreme units, the ratings' never)
    units = np.ones(cov.shape[0])
    start = rows.n_players + (estimator.first_advantage == "fit")
    units[start:start + rows.covariate_units.shape[0]] = rows.covariate_units
    with np.errstate(over="ignore", under="ignore"):
        return cov / np.outer(units, units)
