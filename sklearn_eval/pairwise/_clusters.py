"""Clustered uncertainty of batch Bradley-Terry ratings.

With ``groups`` (one cluster label per match: the prompt, the session),
the bootstrap draws whole clusters and the sandwich sums each cluster's
scores before their outer product (cluster-robust covariance, with the
small-sample factor ``G / (G - 1)``). A cluster keeps all of its rows, so
reading the weights as frequencies or not makes no difference here: the
votes of a row always travel together.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from threadpoolctl import threadpool_limits

from ..utils import check_and_encode_matches
from ..utils._clusters import ClusterCounts, check_groups
from ._base import _mean_positive, rating_state
from ._extended_intervals import (
    ExtendedRows,
    extended_parameter_covariance,
    full_parameters,
)
from ._ties import _outcome_scores, build_cells
from ._unplayed import embed_covariance

__all__ = [
    "cluster_chunk",
    "cluster_counts",
    "cluster_meat",
    "extended_cluster_covariance",
]

MATCH_ROWS = "match (row of X)"


def cluster_counts(groups, row_unit, n_units):
    """The cluster draws of a fast path whose rows map to ``row_unit``."""
    codes, n_groups = check_groups(groups, row_unit.shape[0], MATCH_ROWS)
    return ClusterCounts(codes, n_groups, row_unit, np.ones(row_unit.shape[0]),
                         n_units)


def cluster_chunk(refit, draws, seeds):
    """Refits on the unit counts of cluster-bootstrap resamples."""
    rows = []
    with threadpool_limits(limits=1):
        for seed in seeds:
            rows.append(refit(draws.draw(np.random.default_rng(seed))))
    return rows


def cluster_meat(ratings_logit, advantage, X, y, sample_weight, groups):
    """Cluster-summed outer products of the Bradley-Terry scores (logits).

    The score of a match of weight w between i and j is
    ``w (y - p) (e_i - e_j)``; with S the matrix of the scores summed per
    cluster, the meat is ``G / (G - 1) S^T S``.
    """
    matches, _, first, second = check_and_encode_matches(X, y, sample_weight)
    codes, n_groups = check_groups(groups, first.shape[0], MATCH_ROWS)
    n = ratings_logit.shape[0]
    p = expit(ratings_logit[first] - ratings_logit[second] + advantage)
    residual = matches.sample_weight * (matches.y - p)
    summed = np.bincount(codes * n + first, weights=residual,
                         minlength=n_groups * n)
    summed -= np.bincount(codes * n + second, weights=residual,
                          minlength=n_groups * n)
    summed = summed.reshape(n_groups, n)
    return summed.T @ summed * (n_groups / (n_groups - 1.0))


def extended_cluster_covariance(estimator, X, y, sample_weight, groups):
    """Cluster-robust sandwich of the extended model's parameters (logits).

    Tie models, covariates, a fitted advantage: the bread is the observed
    information of all the parameters (as for the ordinary sandwich); the
    meat sums each match's score vector (ratings, coefficients, tie
    parameter) within its cluster, ``G / (G - 1) S^T S``. Rows in the order
    of the fitted parameter vector.
    """
    rows = ExtendedRows(estimator, X, y, sample_weight, False)
    codes, n_groups = check_groups(groups, rows.category.shape[0], MATCH_ROWS)
    bread = extended_parameter_covariance(estimator, X, y, sample_weight,
                                          covariance="observed",
                                          frequency_weights=False)
    n = rows.n_players
    scale = _mean_positive(rows.weight)
    state = rating_state(estimator)
    fit_advantage = state.fitted_advantage
    fixed = 0.0 if fit_advantage else state.advantage
    cells, index = build_cells(
        rows.first, rows.second, rows.y, rows.count * rows.weight / scale, n,
        rows.covariates, fit_advantage=fit_advantage, offset=fixed,
        ordered=fit_advantage or fixed != 0.0, return_index=True,
    )
    # the rows hold unit-size covariates: their coefficients, as refitted
    theta = full_parameters(estimator, rows.covariate_units)
    model = state.tie_model or "half"
    q = cells.design.shape[1]
    if bread.shape[0] < theta.shape[0]:  # no tie in the data: boundary, fixed
        model, theta = "half", theta[:-1]
    d = theta[:n][cells.first] - theta[:n][cells.second] + cells.offset
    if q:
        d = d + cells.design @ theta[n:n + q]
    s_d, s_t = _outcome_scores(model, d, theta[-1] if model != "half" else None)
    position = index[rows.category]  # per match: 3 * cell + outcome
    valid = position >= 0
    cell, outcome = position[valid] // 3, position[valid] % 3
    group = codes[valid]
    weight = (rows.weight / scale)[rows.category][valid]
    score_d = weight * s_d[cell, outcome]
    parts = [
        np.bincount(group * n + cells.first[cell], score_d, n_groups * n)
        .reshape(n_groups, n)
        - np.bincount(group * n + cells.second[cell], score_d, n_groups * n)
        .reshape(n_groups, n)
    ]
    for column in range(q):
        parts.append(np.bincount(group, score_d * cells.design[cell, column],
                                 n_groups)[:, None])
    if s_t is not None:
        parts.append(np.bincount(group, weight * s_t[cell, outcome],
                                 n_groups)[:, None])
    summed = np.hstack(parts)
    if rows.covariate_units is not None:
        # scores of the coefficients in the covariates' own units (the bread's)
        start = n + fit_advantage
        summed[:, start:start + rows.covariate_units.shape[0]] *= (
            rows.covariate_units)
    meat = summed.T @ summed * (n_groups / (n_groups - 1.0))
    # players without a match of positive weight: NaN rows of the bread,
    # zero scores; the others' covariance, NaN for them
    keep = ~np.isnan(np.diag(bread))
    sub = np.ix_(keep, keep)
    cov = bread[sub] @ meat[sub] @ bread[sub]
    return embed_covariance(0.5 * (cov + cov.T), keep, keep.shape[0])
