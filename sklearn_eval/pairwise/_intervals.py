"""Intervals for the match raters: fast and analytic paths, and their plans.

Two paths that avoid refitting the estimator on resampled rows:

- :func:`bootstrap_bradley_terry`: a bootstrap resample of n matches is a
  multinomial draw of counts over the matches; identical matches (same
  ordered pair, outcome and weight) are merged first, so one resample costs a
  multinomial draw over the distinct outcomes (at most three per pair and
  weight) and a Newton fit on the aggregated pairs, started from the
  full-data ratings (warm start: two or three Newton steps).
- :func:`bradley_terry_intervals`: Wald intervals from the sandwich (robust)
  or the observed-information covariance of the maximum-likelihood ratings,
  under the mean-zero anchoring the estimator uses.

Both cover EloRanker's extended batch model too (tie models, covariates, a
fitted first-player advantage; see ``_extended_intervals``), and both accept
``frequency_weights=True``: a weight k then stands for k identical matches
(vote counts), which are what is resampled and summed.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from joblib import Parallel, delayed
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit
from scipy.stats import norm
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ..utils import check_and_encode_matches
from ..utils._resampling import (
    IntervalPlan,
    check_resampling,
    multinomial_counts,
    normal_draws,
    normal_prob_above,
    resample_chunks,
    rng_streams,
    summarize_samples,
    unknown_target,
)
from . import _kernels
from ._base import _mean_positive, rating_state
from ._batch import (
    _bt_gradient,
    _line_search,
    aggregate_pairs,
    code_played_players,
    fit_bradley_terry,
)
from ._clusters import (
    cluster_chunk,
    cluster_counts,
    cluster_meat,
    extended_cluster_covariance,
)
from ._extended_intervals import (
    ExtendedRows,
    Resampler,
    as_frequencies,
    extended_parameter_covariance,
    is_extended,
    resample_chunk,
)
from ._unplayed import (
    _bread_inverse,
    _laplacian,
    embed_covariance,
    mask_unplayed,
    zero_width_note,
)
from ._vanishing import effective_alpha

__all__ = [
    "bootstrap_bradley_terry",
    "bootstrap_online_elo",
    "bradley_terry_covariance",
    "bradley_terry_intervals",
    "elo_interval_plan",
    "melo_interval_plan",
]

_COVARIANCES = ("sandwich", "observed")
# Up to this many players a resample's Newton steps use a dense Cholesky
# solve (faster than conjugate gradients at this size).
_DIRECT_LIMIT = 400

ONLINE_ELO_NOTE = (
    "Online Elo ratings depend on the order of the matches and estimate no "
    "fixed parameter (with a constant K they do not converge as data grow), "
    "so these bootstrap intervals describe the spread of the ratings over "
    "resampled match histories; they are not confidence intervals for a "
    "true strength. Use method='batch' for those."
)
MELO_NOTE = (
    "Intervals of the ratings; the cyclic vectors are identified only up to "
    "rotation and are not summarised."
)
_NEEDS_OUTCOMES = "{} intervals need y, the match outcomes."


def _is_batch_bradley_terry(estimator):
    return getattr(estimator, "_model", None) == "bradley_terry" and (
        estimator.method == "batch"
    )


def _is_online_elo(estimator):
    return (getattr(estimator, "_model", None) == "bradley_terry"
            and estimator.method == "online" and not estimator.keep_history)


def _check_batch_elo(estimator):
    if not _is_batch_bradley_terry(estimator):
        raise TypeError(
            "This path needs EloRanker(method='batch') (Bradley-Terry ratings); "
            f"got {estimator!r}. Use bootstrap_ranking for other raters."
        )


def _bound(function, estimator):
    def path(X, y, sample_weight, **options):
        return function(estimator, X, y, sample_weight, **options)

    return path


def _analytic(estimator):
    def path(X, y, sample_weight, *, confidence_level, n_draws, random_state,
             **options):
        return bradley_terry_intervals(
            estimator, X, y, sample_weight, confidence_level=confidence_level,
            n_draws=n_draws, random_state=random_state, **options,
        )

    return path


def elo_interval_plan(estimator, target):
    """The uncertainty plan of an EloRanker (see ``IntervalPlan``)."""
    if target not in (None, "ratings", "agent_scores"):
        raise unknown_target(target, ("ratings",), "EloRanker")
    batch = estimator.method == "batch"
    fast = None
    if batch:
        fast = _bound(bootstrap_bradley_terry, estimator)
    elif _is_online_elo(estimator):
        fast = _bound(bootstrap_online_elo, estimator)
    return IntervalPlan(
        # the fast paths leave players without a match out themselves
        target="ratings",
        statistic="ratings_" if fast is not None else _PlayedOnly("ratings_"),
        resample="matches", note="" if batch else ONLINE_ELO_NOTE,
        requires_y=_NEEDS_OUTCOMES.format("EloRanker"),
        bootstrap=fast, analytic=_analytic(estimator) if batch else None,
        fitted_state=rating_state,
        options=("groups", "frequency_weights") if batch else (),
    )


def melo_interval_plan(estimator, target):
    """The uncertainty plan of a MultiElo (see ``IntervalPlan``)."""
    allowed = ("ratings", "transitive_ratings")
    if target not in (None, "agent_scores", *allowed):
        raise unknown_target(target, allowed, "MultiElo")
    target = "ratings" if target in (None, "agent_scores") else target
    return IntervalPlan(
        target=target, statistic=_PlayedOnly(f"{target}_"), resample="matches",
        note=MELO_NOTE if estimator.method == "batch" else ONLINE_ELO_NOTE,
        requires_y=_NEEDS_OUTCOMES.format("MultiElo"),
        fitted_state=rating_state,
    )


class _PlayedOnly:
    """A refit's ratings, NaN for players without a match of positive weight.

    A statistic for :func:`~sklearn_eval.uncertainty.bootstrap_ranking`: in a
    resample (and in the full data) such a player keeps the initial rating,
    which is no estimate, so it counts as absent.
    """

    def __init__(self, name):
        self.name = name

    def __call__(self, estimator):
        values = getattr(estimator, self.name)
        return mask_unplayed(values, rating_state(estimator).played)

    def __repr__(self):
        return f"{self.name} of the players with a match"


class _Outcomes:
    """Distinct (first, second, outcome, weight) rows and how often each occurs."""

    __slots__ = ("first", "second", "y", "weight", "count", "category",
                 "n_players", "n_matches")

    def __init__(self, first, second, y, weight, n_players):
        n = int(n_players)
        y_code = np.rint(2.0 * y).astype(np.int64)  # 0, 1, 2 (draw = 1)
        w_values, w_code = np.unique(weight, return_inverse=True)
        key = ((first * n + second) * 3 + y_code) * w_values.shape[0] + w_code
        keys, category, count = np.unique(
            key, return_inverse=True, return_counts=True
        )
        self.category = category.astype(np.int32 if keys.shape[0] < 2**31 else
                                        np.int64)
        w_index = keys % w_values.shape[0]
        rest = keys // w_values.shape[0]
        self.y = (rest % 3) / 2.0
        pair = rest // 3
        self.first, self.second = pair // n, pair % n
        self.weight = w_values[w_index]
        self.count = count.astype(np.float64)
        self.n_players = n
        self.n_matches = int(first.shape[0])

    def as_frequencies(self):
        """Read each weight as that many identical unit-weight matches."""
        self.count = as_frequencies(self.count, self.weight)
        self.weight = np.ones_like(self.weight)
        self.n_matches = int(self.count.sum())
        self.category = None
        return self


def _logit_ratings(estimator):
    """Fitted ratings on the natural-logit scale, relative to the initial rating."""
    state = rating_state(estimator)
    return (estimator.ratings_ - state.initial) / state.units_per_logit


def _every_player_scores_and_concedes(stats):
    """Cheap necessary condition for finite maximum-likelihood ratings."""
    n = stats.n_players
    scored = np.bincount(stats.first, stats.score, n) + np.bincount(
        stats.second, stats.games - stats.score, n
    )
    conceded = np.bincount(stats.first, stats.games - stats.score, n) + np.bincount(
        stats.second, stats.score, n
    )
    return bool((scored > 0).all() and (conceded > 0).all())


def _direct_newton(stats, init, alpha, advantage, tol, max_iter):
    """Newton's method with dense Cholesky steps, from a warm start.

    The same iteration, stopping rule and line search as
    ``fit_bradley_terry``; only the linear solve differs.
    """
    n = stats.n_players
    gauge = 1.0 / n if alpha == 0.0 else 0.0
    r = np.array(init, dtype=np.float64)
    grad, curvature = _bt_gradient(stats, r, alpha, advantage)
    for _ in range(max_iter):
        hessian = _laplacian(stats.first, stats.second, curvature, n)
        hessian[np.diag_indices(n)] += alpha
        hessian += gauge
        try:
            factor = cho_factor(hessian)
        except np.linalg.LinAlgError:
            return r, False
        step = cho_solve(factor, -grad)
        if alpha == 0.0:
            step -= step.mean()
        if np.max(np.abs(step)) <= tol:
            r = r + step
            if alpha == 0.0:
                r -= r.mean()
            return r, True
        r, grad, curvature = _line_search(stats, r, step, grad, alpha, advantage)
    return r, False


def _fit_stats(stats, present, estimator, init, alpha, weight_scale=1.0):
    """Ratings (logit) as EloRanker's batch fit finds them, warm-started."""
    advantage = rating_state(estimator).advantage
    tol, max_iter = float(estimator.tol), int(estimator.max_iter)
    if stats.n_players <= _DIRECT_LIMIT and (
        alpha > 0 or _every_player_scores_and_concedes(stats)
    ):
        ratings, converged = _direct_newton(
            stats, init, alpha, advantage, tol, max_iter
        )
        if converged:
            return ratings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alpha, _ = effective_alpha(stats, present, alpha, "EloRanker",
                                   weight_scale)
        ratings, _, _ = fit_bradley_terry(
            stats, alpha=alpha, advantage=advantage, tol=tol, max_iter=max_iter,
            init=init,
        )
    return ratings


def _fit_counts(outcomes, counts, estimator, init):
    """Batch Bradley-Terry ratings (reported scale) for match counts.

    Players without a game in this resample get NaN; the others are fitted
    and anchored exactly as EloRanker does on the matches they played.
    """
    n = outcomes.n_players
    state = rating_state(estimator)
    used = (counts > 0) & (outcomes.weight > 0)  # a zero weight is no match
    first, second = outcomes.first[used], outcomes.second[used]
    present, code = code_played_players(first, second, n)
    # as EloRanker's batch fit: unit-scale weights (and alpha scaled alike)
    # keep the Newton sums clear of under- and overflow
    scale = _mean_positive(outcomes.weight)
    stats = aggregate_pairs(
        code[first], code[second], outcomes.y[used],
        counts[used] * outcomes.weight[used] / scale, present.shape[0],
        ordered=state.advantage != 0.0,
    )
    alpha = float(estimator.alpha) / scale
    ratings = _fit_stats(stats, present, estimator, init[present], alpha, scale)
    out = np.full(n, np.nan)
    out[present] = state.to_reported(ratings)
    return out


def _draw_counts(outcomes, rng):
    """Bootstrap counts of the distinct outcomes (multinomial in distribution).

    Drawing n match indices and counting them is cheaper than a multinomial
    draw over many categories when there are few matches per category.
    """
    n_matches = outcomes.n_matches
    if outcomes.category is not None and n_matches <= 10 * outcomes.count.shape[0]:
        picks = rng.integers(0, n_matches, size=n_matches)
        counts = np.bincount(
            outcomes.category[picks], minlength=outcomes.count.shape[0]
        )
        return counts.astype(np.float64)
    return multinomial_counts(rng, n_matches, outcomes.count)


def _resample_chunk(outcomes, estimator, init, seeds):
    rows = []
    with threadpool_limits(limits=1):
        for seed in seeds:
            counts = _draw_counts(outcomes, np.random.default_rng(seed))
            rows.append(_fit_counts(outcomes, counts, estimator, init))
    return rows


def _encode(full, X, y, sample_weight, frequency_weights=False):
    matches, players, first, second = check_and_encode_matches(X, y, sample_weight)
    if not np.array_equal(players, full.players_):  # pragma: no cover - safety
        raise ValueError("Player coding differs from the fitted estimator's.")
    outcomes = _Outcomes(first, second, matches.y, matches.sample_weight,
                         len(players))
    return outcomes.as_frequencies() if frequency_weights else outcomes


def _check_frequency_flag(frequency_weights):
    if not isinstance(frequency_weights, bool | np.bool_):
        raise TypeError(
            f"frequency_weights must be a bool; got {frequency_weights!r}."
        )


def _fit_full(estimator, X, y, sample_weight):
    full = clone(estimator)
    if sample_weight is None:
        return full.fit(X, y)
    return full.fit(X, y, sample_weight=sample_weight)


def bootstrap_bradley_terry(
    estimator,
    X,
    y,
    sample_weight=None,
    *,
    n_resamples=1000,
    confidence_level=0.95,
    random_state=None,
    n_jobs=None,
    note="",
    frequency_weights=False,
    groups=None,
):
    """Bootstrap of batch Bradley-Terry ratings by multinomial match counts.

    Equivalent in distribution to refitting ``EloRanker(method="batch")`` on
    n matches drawn with replacement, but each resample is a multinomial
    draw over the distinct (pair, outcome, weight) rows and a Newton fit on
    the aggregated pairs warm-started at the full-data ratings, so its cost
    depends on the number of distinct pairs, not on the number of matches.

    Parameters
    ----------
    estimator : EloRanker
        With ``method="batch"``; unfitted (it is cloned).
    X : array-like or DataFrame of shape (n_matches, 2)
        The two players of each match.
    y : array-like of shape (n_matches,)
        Outcome for the first player: 1, 0.5 or 0.
    sample_weight : array-like of shape (n_matches,), default=None
        Match weights; a resampled match keeps its weight.
    n_resamples : int, default=1000
    confidence_level : float, default=0.95
    random_state : int, SeedSequence, RandomState or None, default=None
        Root of the per-resample streams (one ``SeedSequence`` child each).
    n_jobs : int, default=None
        joblib workers; results do not depend on it.
    note : str, default=""
        Caveat stored on the result.
    frequency_weights : bool, default=False
        False: a match keeps its weight when resampled (the rows are the
        units). True: a weight k stands for k identical matches (vote counts
        given as weighted rows; weights must be whole numbers), and the
        ``sum(sample_weight)`` matches are what is resampled.
    groups : array-like of shape (n_matches,), default=None
        A cluster label per match (a prompt, a session): whole clusters are
        drawn with replacement (cluster bootstrap), for outcomes correlated
        within clusters. A row's votes stay together, so
        ``frequency_weights`` makes no difference then.

    Returns
    -------
    BootstrapResult
        Items are ``players_``; a player absent from a resample (or present
        in zero-weight matches only) is NaN there, and one without any match
        of positive weight has a NaN estimate and interval.

    Notes
    -----
    With a tie model (``ties="davidson"`` or ``"rao-kupper"``), covariates
    or ``first_advantage="fit"``, each resample refits that whole model
    (ratings, coefficients, tie parameter) by Newton's method, warm-started
    at the full-data fit; the intervals are those of the ratings.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.pairwise import bootstrap_bradley_terry
    >>> X, y = make_matches(n_players=5, n_matches=2000, random_state=0)
    >>> res = bootstrap_bradley_terry(EloRanker(method="batch"), X, y,
    ...                               n_resamples=200, random_state=0)
    >>> bool((res.low < res.estimate).all() and (res.estimate < res.high).all())
    True
    >>> res.prob_above.shape
    (5, 5)
    """
    _check_batch_elo(estimator)
    _check_frequency_flag(frequency_weights)
    check_resampling(n_resamples, confidence_level, "matches")
    full = _fit_full(estimator, X, y, sample_weight)
    seeds = rng_streams(random_state, n_resamples)
    if groups is not None:
        results = _clustered_bootstrap(full, X, y, sample_weight, groups, seeds,
                                       n_resamples, n_jobs)
    elif is_extended(full):
        resampler = Resampler(
            ExtendedRows(full, X, y, sample_weight, frequency_weights), full
        )
        results = Parallel(n_jobs=n_jobs)(
            delayed(resample_chunk)(resampler, [seeds[k] for k in chunk])
            for chunk in resample_chunks(n_resamples, n_jobs)
        )
    else:
        outcomes = _encode(full, X, y, sample_weight, frequency_weights)
        init = _logit_ratings(full)
        results = Parallel(n_jobs=n_jobs)(
            delayed(_resample_chunk)(outcomes, full, init, [seeds[k] for k in chunk])
            for chunk in resample_chunks(n_resamples, n_jobs)
        )
    samples = np.vstack([row for chunk in results for row in chunk])
    return summarize_samples(
        full.players_, _estimate(full), samples, confidence_level=confidence_level,
        higher_is_better=True, note=note,
        method="percentile bootstrap" if groups is None else "cluster bootstrap",
    )


def _estimate(full):
    """The fitted ratings, NaN for players without a match (no estimate)."""
    return mask_unplayed(full.ratings_, rating_state(full).played)


def _clustered_bootstrap(full, X, y, sample_weight, groups, seeds, n_resamples,
                         n_jobs):
    """Cluster-bootstrap refits: unit counts from whole clusters drawn."""
    if is_extended(full):
        rows = ExtendedRows(full, X, y, sample_weight, False)
        refit = Resampler(rows, full).refit
        draws = cluster_counts(groups, rows.category, rows.count.shape[0])
    else:
        outcomes = _encode(full, X, y, sample_weight)
        refit = partial(_fit_counts, outcomes, estimator=full,
                        init=_logit_ratings(full))
        draws = cluster_counts(groups, outcomes.category, outcomes.count.shape[0])
    return Parallel(n_jobs=n_jobs)(
        delayed(cluster_chunk)(refit, draws, [seeds[k] for k in chunk])
        for chunk in resample_chunks(n_resamples, n_jobs)
    )


def _online_chunk(first, second, y, weight, n_players, estimator, seeds):
    """Online Elo on resampled matches in chronological order.

    The draws are those of the generic path (``np.sort`` of n uniform
    indices, written as a repeat of counts), so the result is the same as
    refitting EloRanker on the resampled rows, without re-validating and
    re-coding the labels each time.
    """
    n = first.shape[0]
    state = rating_state(estimator)
    step, advantage = state.step, state.advantage
    rows = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
        idx = np.repeat(np.arange(n), counts)
        ratings = np.zeros(n_players)
        _kernels.elo_scan(first[idx], second[idx], y[idx], weight[idx], ratings,
                          step, advantage, _kernels.no_history())
        played = np.zeros(n_players, dtype=bool)  # a zero weight is no match
        played[first[idx][weight[idx] > 0]] = True
        played[second[idx][weight[idx] > 0]] = True
        rows.append(np.where(played, state.to_reported(ratings), np.nan))
    return rows


def bootstrap_online_elo(
    estimator,
    X,
    y,
    sample_weight=None,
    *,
    n_resamples=1000,
    confidence_level=0.95,
    random_state=None,
    n_jobs=None,
    note="",
):
    """Bootstrap of online Elo ratings over matches kept in their order.

    Matches are drawn with replacement and replayed in chronological order
    through the compiled Elo scan on the coded players (labels are checked
    and coded once). The draws, and so the results, are the same as
    :func:`bootstrap_ranking` refitting ``EloRanker()`` on the resampled
    rows with the same ``random_state``. Online ratings estimate no fixed
    parameter: read the intervals as descriptive (see ``note``).

    Parameters
    ----------
    estimator : EloRanker
        With ``method="online"``; unfitted (it is cloned).
    X : array-like or DataFrame of shape (n_matches, 2)
    y : array-like of shape (n_matches,)
    sample_weight : array-like of shape (n_matches,), default=None
    n_resamples : int, default=1000
    confidence_level : float, default=0.95
    random_state : int, SeedSequence, RandomState or None, default=None
    n_jobs : int, default=None
    note : str, default=""

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.pairwise import bootstrap_online_elo
    >>> X, y = make_matches(n_players=5, n_matches=2000, random_state=0)
    >>> res = bootstrap_online_elo(EloRanker(k_factor=16), X, y,
    ...                            n_resamples=100, random_state=0)
    >>> res.samples.shape
    (100, 5)
    """
    if not _is_online_elo(estimator):
        raise TypeError(
            "bootstrap_online_elo needs EloRanker(method='online') without "
            f"keep_history; got {estimator!r}."
        )
    check_resampling(n_resamples, confidence_level, "matches")
    full = _fit_full(estimator, X, y, sample_weight)
    matches, players, first, second = check_and_encode_matches(X, y, sample_weight)
    seeds = rng_streams(random_state, n_resamples)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_online_chunk)(first, second, matches.y, matches.sample_weight,
                               len(players), full, [seeds[k] for k in chunk])
        for chunk in resample_chunks(n_resamples, n_jobs)
    )
    samples = np.vstack([row for chunk in results for row in chunk])
    return summarize_samples(
        full.players_, _estimate(full), samples, confidence_level=confidence_level,
        higher_is_better=True, note=note,
    )


def bradley_terry_covariance(estimator, X, y, sample_weight=None, *,
                             covariance="sandwich", frequency_weights=False,
                             groups=None):
    """Covariance of fitted batch Bradley-Terry ratings (reported scale).

    With ``L(p)`` the weighted Laplacian of the comparison graph with pair
    weights ``p``, the (penalised) Hessian of the negative log-likelihood is
    ``H = L(w p (1 - p)) + alpha I`` and the meat of the sandwich is
    ``J = L(w^2 (y - p)^2)``, summed over matches. The observed-information
    covariance is ``H^-1``; the sandwich ``H^-1 J H^-1`` stays valid when
    draws (scored as half wins) or model misspecification make the outcome
    variance differ from ``p (1 - p)``. With ``alpha = 0`` the ratings are
    anchored to mean zero and ``H^-1`` is the pseudo-inverse on that
    subspace.

    With a tie model, covariates or a fitted first-player advantage the
    same holds for all the parameters jointly (H and J of the extended
    likelihood, whose per-match scores include the covariates' and the tie
    parameter's); the ratings' block is returned, so their intervals
    account for the uncertainty of the coefficients.

    Parameters
    ----------
    estimator : EloRanker
        Fitted with ``method="batch"`` on ``X, y, sample_weight``.
    X, y, sample_weight
        The training matches.
    covariance : {"sandwich", "observed"}, default="sandwich"
    frequency_weights : bool, default=False
        True: a weight k stands for k identical matches (vote counts), so
        the meat sums ``w (y - p)^2`` instead of ``w^2 (y - p)^2``; weights
        must be whole numbers. The observed information is the same either
        way.
    groups : array-like of shape (n_matches,), default=None
        A cluster label per match: the cluster-robust sandwich, whose meat
        sums the scores within each cluster before their outer product
        (times ``G / (G - 1)``), valid when outcomes are correlated within
        clusters. With a tie model, covariates or a fitted advantage, the
        scores of all the parameters are summed.

    Returns
    -------
    cov : ndarray of shape (n_players, n_players)
        On the estimator's ``scale`` (Elo points squared by default). A
        player whose matches all have zero weight has no data: its row and
        column are NaN, and the others' covariance is that of the matches
        without it.
    """
    if covariance not in _COVARIANCES:
        raise ValueError(
            f"covariance must be one of {_COVARIANCES}; got {covariance!r}."
        )
    _check_frequency_flag(frequency_weights)
    state = rating_state(estimator)
    if groups is not None and covariance == "sandwich" and is_extended(estimator):
        n = estimator.players_.shape[0]
        cov = extended_cluster_covariance(estimator, X, y, sample_weight, groups)
        return cov[:n, :n] * state.units_per_logit ** 2
    if is_extended(estimator):
        n = estimator.players_.shape[0]
        cov = extended_parameter_covariance(
            estimator, X, y, sample_weight, covariance=covariance,
            frequency_weights=frequency_weights,
        )[:n, :n]
        return cov * state.units_per_logit ** 2
    outcomes = _encode(estimator, X, y, sample_weight, frequency_weights)
    n = outcomes.n_players
    r = _logit_ratings(estimator)
    p = expit(r[outcomes.first] - r[outcomes.second] + state.advantage)
    weight = outcomes.count * outcomes.weight
    alpha = float(estimator.alpha)
    # players without a match of positive weight have no data: the others'
    # covariance (anchored among them, as their fit), NaN for them
    keep = np.ix_(state.played, state.played)
    hessian = _laplacian(outcomes.first, outcomes.second, weight * p * (1 - p), n)
    hessian += alpha * np.eye(n)
    bread = _bread_inverse(hessian[keep], alpha)
    if covariance == "observed":
        cov = bread
    elif groups is not None:
        meat = cluster_meat(r, state.advantage, X, y, sample_weight,
                            groups)
        cov = bread @ meat[keep] @ bread
    else:
        meat_weight = outcomes.count * outcomes.weight**2 * (outcomes.y - p) ** 2
        meat = _laplacian(outcomes.first, outcomes.second, meat_weight, n)
        cov = bread @ meat[keep] @ bread
    cov = embed_covariance(0.5 * (cov + cov.T), state.played, n)
    return cov * state.units_per_logit ** 2


def bradley_terry_intervals(
    estimator,
    X,
    y,
    sample_weight=None,
    *,
    covariance="sandwich",
    confidence_level=0.95,
    n_draws=2000,
    random_state=None,
    frequency_weights=False,
    groups=None,
):
    """Analytic (Wald) intervals for batch Bradley-Terry ratings.

    ``rating +- z * se`` with the standard errors of
    :func:`bradley_terry_covariance` (sandwich by default). ``prob_above``
    is the normal probability that one rating exceeds another, using the
    full covariance; rank intervals come from ``n_draws`` draws of the
    ratings from that normal distribution. The intervals cover the true
    (mean-centred) strengths at the nominal rate when the Bradley-Terry
    model holds and every player has enough games (tested: 95% intervals
    cover 92-98% of the time). With ``alpha > 0`` the ratings are shrunk and
    the intervals describe the penalised estimate; with players that are
    undefeated, winless or disconnected there is no finite estimate and the
    intervals are meaningless (the estimator warns). When every match's
    outcome equals its fitted probability (every match a draw, counted as
    half a win) the sandwich variance is zero: the intervals then have zero
    width, which does not mean certainty, and a warning (also the result's
    ``note``) says so.

    Parameters
    ----------
    estimator : EloRanker
        With ``method="batch"``; unfitted (it is cloned and fitted).
    X : array-like or DataFrame of shape (n_matches, 2)
    y : array-like of shape (n_matches,)
    sample_weight : array-like of shape (n_matches,), default=None
    covariance : {"sandwich", "observed"}, default="sandwich"
    confidence_level : float, default=0.95
    n_draws : int, default=2000
        Normal draws for the rank intervals.
    random_state : int, SeedSequence, RandomState or None, default=None
    frequency_weights : bool, default=False
        Read each weight as that many identical matches (vote counts); see
        :func:`bradley_terry_covariance`.
    groups : array-like of shape (n_matches,), default=None
        A cluster label per match: cluster-robust sandwich (see
        :func:`bradley_terry_covariance`).

    Returns
    -------
    BootstrapResult
        With ``method`` "sandwich" or "observed information" and
        ``covariance`` set.

    Warns
    -----
    UserWarning
        When every interval has zero width (see above).

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.pairwise import bradley_terry_intervals
    >>> X, y = make_matches(n_players=4, n_matches=5000, random_state=0)
    >>> res = bradley_terry_intervals(EloRanker(method="batch"), X, y,
    ...                               random_state=0)
    >>> res.method, res.covariance.shape
    ('sandwich', (4, 4))
    >>> bool(((res.high - res.low) < 60).all())
    True
    """
    _check_batch_elo(estimator)
    check_resampling(n_draws, confidence_level, "matches")
    full = _fit_full(estimator, X, y, sample_weight)
    cov = bradley_terry_covariance(full, X, y, sample_weight, covariance=covariance,
                                   frequency_weights=frequency_weights,
                                   groups=groups)
    # players without a match of positive weight: NaN estimate and interval
    estimate = _estimate(full)
    half_width = norm.ppf(0.5 + confidence_level / 2.0) * np.sqrt(
        np.clip(np.diag(cov), 0.0, None)
    )
    played = rating_state(full).played
    keep = np.ix_(played, played)
    draws = np.full((n_draws, estimate.shape[0]), np.nan)
    draws[:, played] = normal_draws(estimate[played], cov[keep], n_draws,
                                    random_state)
    prob_above = embed_covariance(normal_prob_above(estimate[played], cov[keep]),
                                  played, estimate.shape[0])
    np.fill_diagonal(prob_above, 0.5)
    name = "sandwich" if covariance == "sandwich" else "observed information"
    if groups is not None and covariance == "sandwich":
        name = "cluster-robust sandwich"
    note = zero_width_note(name, half_width)
    return summarize_samples(
        full.players_, estimate, draws, confidence_level=confidence_level,
        low=estimate - half_width, high=estimate + half_width,
        prob_above=prob_above, method=name, note=note, covariance=cov,
    )

