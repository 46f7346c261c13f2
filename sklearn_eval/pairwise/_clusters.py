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

__all__ = ["cluster_chunk", "cluster_counts", "cluster_meat"]

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
