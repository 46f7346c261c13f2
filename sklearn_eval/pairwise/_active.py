"""Active sampling of comparisons: which pairs to vote on next, and when to stop."""

from __future__ import annotations

import heapq
from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from ..utils import check_and_encode_matches
from ..utils._simultaneous import pairwise_inference
from ._base import rating_state
from ._elo import EloRanker
from ._intervals import _is_batch_bradley_terry, bradley_terry_covariance

__all__ = ["ActiveSampler"]

_TARGETS = ("top-1", "top-k", "ranking")


class ActiveSampler:
    """Choose the next comparisons to collect, and stop when the ranking is settled.

    A data-collection helper rather than a scikit-learn estimator (it
    predicts nothing): it holds the votes so far, aggregated per (pair,
    outcome), fits a batch
    Bradley-Terry ranking on them and the sandwich covariance of its
    ratings, and from these the simultaneous rank sets of
    :func:`~sklearn_eval.uncertainty.rank_sets` (max-:math:`|t|` step-down).

    The rule of :meth:`next_pairs`: the candidate pairs are those whose
    order is not yet confident and matters for the goal: for
    ``strategy="top-k"``, pairs of undecided agents (whose rank set
    straddles k: ``rank_low <= k < rank_high``, or ``rank_low <= k`` while
    more than k agents may be in the top k); for ``"ranking"``, every pair
    not yet separated. Each of the n pairs returned is, greedily, the
    candidate whose next vote most reduces the variance of its rating
    difference, ``V - 1 / (1 / V + I)`` with ``I = p (1 - p)`` the
    information of a vote at the current estimates (after choosing a pair
    its variance is updated as if the vote were in, so a batch spreads over
    the candidates). ``"uniform"`` draws pairs uniformly (the baseline).

    Parameters
    ----------
    estimator : EloRanker or None, default=None
        A batch Bradley-Terry rater (``EloRanker(method="batch")``, with any
        ``alpha``, ``scale`` or tie model); None: ``EloRanker(method="batch")``.
    strategy : {"top-k", "ranking", "uniform"}, default="top-k"
    k : int, default=1
        The size of the top set of ``strategy="top-k"``.
    confidence_level : float, default=0.95
        Of the rank sets behind the candidate pairs.
    n_draws : int, default=500
        Normal draws for the simultaneous critical value.
    random_state : int, RandomState or None, default=None
        For the normal draws and the uniform strategy.

    Attributes
    ----------
    agents_ : ndarray
        The agents seen so far (sorted labels).
    agent_scores_ : ndarray
        Their ratings.
    covariance_ : ndarray
        Sandwich covariance of the ratings.
    rank_low_, rank_high_ : ndarray
        Simultaneous rank sets at ``confidence_level``.
    n_votes_ : float
        Votes so far (sum of the weights).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import ActiveSampler
    >>> X, y = make_matches(n_players=8, n_matches=2000, random_state=0)
    >>> sampler = ActiveSampler(random_state=0).fit(X, y)
    >>> sampler.next_pairs(3).shape
    (3, 2)
    >>> isinstance(sampler.is_settled("top-1"), bool)
    True
    """

    def __init__(self, estimator=None, *, strategy="top-k", k=1,
                 confidence_level=0.95, n_draws=500, random_state=None):
        self.estimator = estimator
        self.strategy = strategy
        self.k = k
        self.confidence_level = confidence_level
        self.n_draws = n_draws
        self.random_state = random_state

    def __repr__(self):
        return (f"ActiveSampler(estimator={self.estimator!r}, "
                f"strategy={self.strategy!r}, k={self.k!r})")

    def _check_params(self):
        if self.strategy not in ("top-k", "ranking", "uniform"):
            raise ValueError(
                "strategy must be 'top-k', 'ranking' or 'uniform'; got "
                f"{self.strategy!r}."
            )
        if not isinstance(self.k, Integral) or isinstance(self.k, bool) or self.k < 1:
            raise ValueError(f"k must be an int >= 1; got {self.k!r}.")
        if not isinstance(self.confidence_level, Real) or not (
            0 < self.confidence_level < 1
        ):
            raise ValueError(
                f"confidence_level must lie in (0, 1); got {self.confidence_level!r}."
            )
        if not isinstance(self.n_draws, Integral) or self.n_draws < 10:
            raise ValueError(f"n_draws must be an int >= 10; got {self.n_draws!r}.")
        self._rater()

    # ---------------------------------------------------------------- data
    def _rater(self):
        rater = EloRanker(method="batch") if self.estimator is None else self.estimator
        if not _is_batch_bradley_terry(rater):
            raise ValueError(
                f"estimator must be EloRanker(method='batch'); got {rater!r}."
            )
        return rater

    @staticmethod
    def _aggregate(labels, first, second, y, weight):
        """Votes per (first label, second label, outcome), as a dict."""
        counts = {}
        for a, b, o, w in zip(labels[first], labels[second], y, weight,
                              strict=True):
            key = (a, b, float(o))
            counts[key] = counts.get(key, 0.0) + float(w)
        return counts

    def _votes(self, X, y, sample_weight):
        matches, players, first, second = check_and_encode_matches(X, y,
                                                                   sample_weight)
        # aggregate by codes first: linear in the votes, dict only per cell
        y_code = np.rint(2 * matches.y).astype(np.int64)
        n = players.shape[0]
        key = (first * n + second) * 3 + y_code
        keys, inverse = np.unique(key, return_inverse=True)
        weight = np.bincount(inverse, weights=matches.sample_weight)
        return self._aggregate(players, (keys // 3) // n, (keys // 3) % n,
                               (keys % 3) / 2.0, weight)

    def _refit(self, counts):
        rater = clone(self._rater())
        keys = list(counts)
        X = np.empty((len(keys), 2), dtype=object)
        X[:, 0] = [key[0] for key in keys]
        X[:, 1] = [key[1] for key in keys]
        y = np.array([key[2] for key in keys])
        weight = np.array([counts[key] for key in keys])
        with threadpool_limits(limits=1, user_api="blas"):
            rater.fit(X, y, sample_weight=weight)
            cov = bradley_terry_covariance(rater, X, y, weight,
                                           frequency_weights=True)
            inference = self._inference(rater.ratings_, cov, self.confidence_level)
        return rater, cov, inference, float(weight.sum())

    def _inference(self, scores, cov, level):
        rng = np.random.default_rng(check_random_state(self.random_state).randint(
            2**31 - 1))
        return pairwise_inference(scores, cov=cov, confidence_level=level,
                                  n_draws=self.n_draws, random_state=rng)

    def _publish(self, counts, fitted):
        rater, cov, inference, n_votes = fitted
        self.counts_ = counts
        self.rater_ = rater
        self.agents_ = np.asarray(rater.players_)
        self.agent_scores_ = np.asarray(rater.ratings_, dtype=np.float64)
        self.covariance_ = cov
        self.inference_ = inference
        self.rank_low_ = inference.rank_low
        self.rank_high_ = inference.rank_high
        self.n_votes_ = n_votes
        self._settled_cache = {float(self.confidence_level): inference}

    def fit(self, X, y, sample_weight=None):
        """Fit on the votes so far (replacing any earlier ones).

        Parameters
        ----------
        X : array-like of shape (n_votes, 2)
            The two agents of each vote.
        y : array-like of shape (n_votes,)
            Outcome for the first agent: 1, 0 or 0.5.
        sample_weight : array-like of shape (n_votes,), default=None
            Vote counts (frequency weights).

        Returns
        -------
        self
        """
        self._check_params()
        counts = self._votes(X, y, sample_weight)
        self._publish(counts, self._refit(counts))
        return self

    def partial_fit(self, X, y, sample_weight=None):
        """Add votes and refit on the aggregated counts.

        The refit's cost depends on the number of distinct (pair, outcome)
        cells, not on the number of votes.

        Parameters
        ----------
        X, y, sample_weight
            New votes, as in :meth:`fit`.

        Returns
        -------
        self
        """
        if not hasattr(self, "counts_"):
            return self.fit(X, y, sample_weight)
        self._check_params()
        new = self._votes(X, y, sample_weight)
        counts = dict(self.counts_)
        for key, value in new.items():
            counts[key] = counts.get(key, 0.0) + value
        self._publish(counts, self._refit(counts))
        return self

    # ------------------------------------------------------------ decisions
    def _check_fitted(self):
        if not hasattr(self, "inference_"):
            raise NotFittedError(
                "This ActiveSampler is not fitted yet: call fit with the votes "
                "so far."
            )

    def _settled_inference(self, level):
        level = float(level)
        if level not in self._settled_cache:
            self._settled_cache[level] = self._inference(
                self.agent_scores_, self.covariance_, level)
        return self._settled_cache[level]

    def is_settled(self, target="top-1", k=1, confidence_level=0.95):
        """Whether the simultaneous rank sets settle the target.

        Parameters
        ----------
        target : {"top-1", "top-k", "ranking"}, default="top-1"
            ``"top-1"``: one agent alone can be first; ``"top-k"``: exactly
            k agents can be among the top k (so they are known);
            ``"ranking"``: every agent's rank is known.
        k : int, default=1
        confidence_level : float, default=0.95

        Returns
        -------
        bool
        """
        self._check_fitted()
        if target not in _TARGETS:
            raise ValueError(f"target must be one of {_TARGETS}; got {target!r}.")
        if not 0 < confidence_level < 1:
            raise ValueError(
                f"confidence_level must lie in (0, 1); got {confidence_level!r}."
            )
        n = self.agents_.shape[0]
        if target == "top-1":
            k = 1
        if not isinstance(k, Integral) or isinstance(k, bool) or not 1 <= k <= n:
            raise ValueError(f"k must be an int in [1, {n}]; got {k!r}.")
        inference = self._settled_inference(confidence_level)
        if target == "ranking":
            return bool((inference.rank_low == inference.rank_high).all())
        return bool((inference.rank_low <= k).sum() == k)

    def _candidates(self):
        inference = self.inference_
        first, second = inference.first, inference.second
        open_pairs = ~inference.separated
        if self.strategy == "ranking":
            return open_pairs
        k = min(self.k, self.agents_.shape[0] - 1)
        low, high = inference.rank_low, inference.rank_high
        undecided = (low <= k) & (high > k)
        if (low <= k).sum() > k:
            undecided |= low <= k
        chosen = open_pairs & undecided[first] & undecided[second]
        return chosen if chosen.any() else open_pairs

    def next_pairs(self, n=1):
        """The next n comparisons to collect, by the rule in the class docstring.

        Parameters
        ----------
        n : int, default=1

        Returns
        -------
        ndarray of shape (n, 2)
            Agent labels, one pair per row (a pair may repeat).
        """
        self._check_fitted()
        if not isinstance(n, Integral) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n must be an int >= 1; got {n!r}.")
        inference = self.inference_
        first, second = inference.first, inference.second
        if self.strategy == "uniform":
            rng = check_random_state(self.random_state)
            picks = rng.randint(0, first.shape[0], size=n)
            return np.column_stack([self.agents_[first[picks]],
                                    self.agents_[second[picks]]])
        candidates = np.flatnonzero(self._candidates())
        if candidates.size == 0:
            candidates = np.arange(first.shape[0])
        units = rating_state(self.rater_).units_per_logit
        d = (self.agent_scores_[first] - self.agent_scores_[second]) / units
        p = expit(d[candidates])
        info = p * (1 - p)
        var = (inference.se[candidates] / units) ** 2

        def gain(v, i):
            return v - 1.0 / (1.0 / max(v, 1e-300) + i)

        heap = [(-gain(v, i), c, v) for c, (v, i) in enumerate(zip(var, info,
                                                                     strict=True))]
        heapq.heapify(heap)
        out = np.empty(n, dtype=np.intp)
        for step in range(n):
            _, c, v = heapq.heappop(heap)
            out[step] = candidates[c]
            v = 1.0 / (1.0 / max(v, 1e-300) + info[c])
            heapq.heappush(heap, (-gain(v, info[c]), c, v))
        return np.column_stack([self.agents_[first[out]], self.agents_[second[out]]])
