"""EloRanker: online Elo and order-independent batch Bradley-Terry ratings."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from . import _kernels
from ._base import BaseMatchRater, effective_alpha
from ._batch import fit_bradley_terry
from ._intervals import elo_interval_plan

__all__ = ["EloRanker"]


class EloRanker(BaseMatchRater):
    """Elo ratings from matches: online Elo or batch Bradley-Terry.

    ``method="online"`` runs Elo's update in the given match order: after a
    match between i and j with outcome s for i (1 win, 0.5 draw, 0 loss),
    ``R_i += K w (s - p_ij)`` and ``R_j -= K w (s - p_ij)`` on the 400-point
    scale, where ``p_ij = 1 / (1 + 10 ** ((R_j - R_i - h) / 400))``, ``w`` is
    the match weight and ``h`` the first-player advantage. Internally the
    ratings live on the natural-logit scale, where the step is
    ``K ln(10) / 400`` (about 0.0921 for K = 16).

    ``method="batch"`` ignores the order and maximises the (weighted)
    Bradley-Terry likelihood, optionally with an L2 prior ``alpha/2 |r|^2`` on
    the natural-logit ratings. At the optimum (with ``alpha=0``) each player's
    predicted and actual scores agree (Proposition 1 of Balduzzi et al.,
    2018). Newton's method with a line search is run until the largest rating
    change is below ``tol`` logits; ratings are anchored so that their mean
    is ``initial_rating``.

    A win-probability matrix P enters as weighted matches built by
    :func:`sklearn_eval.utils.win_probability_to_matches`, so that every pair
    counts equally.

    Parameters
    ----------
    method : {"online", "batch"}, default="online"
        Order-dependent online updates, or the order-independent
        maximum-likelihood fit.
    k_factor : float, default=16.0
        Online step in points of the 400-point scale (16 or 32 are
        conventional); ignored by the batch fit.
    initial_rating : float or None, default=None
        Rating of a new player, on ``scale``; None means 1500 for
        ``scale="elo"`` and 0 for ``scale="logit"``. Batch ratings have this
        mean. Players unseen during fitting are predicted with it.
    scale : {"elo", "logit"}, default="elo"
        Scale of the reported ratings: the 400-point Elo scale
        (``10 ** (dR / 400)`` odds) or the natural-logit scale
        (``exp(dr)`` odds); 1 logit = 400 / ln(10), about 173.7 Elo points.
    first_advantage : float, default=0.0
        Fixed advantage of the first-listed player (e.g. home advantage), in
        the units of ``scale``; added to its rating when predicting.
    alpha : float, default=0.0
        Batch only: strength of the L2 prior on the natural-logit ratings
        (prior N(0, 1/alpha)), added to the summed negative log-likelihood.
        Needed for meaningful finite ratings when a player is undefeated,
        winless or the players are disconnected: with ``alpha=0`` such data
        raise a ConvergenceWarning and a vanishing prior (1e-6) is used.
    tol : float, default=1e-8
        Batch only: convergence tolerance on the largest rating change of a
        Newton step, in logits.
    max_iter : int, default=100
        Batch only: maximum number of Newton iterations.
    keep_history : bool, default=False
        Record the players' ratings after every online match
        (``history_``, :meth:`rating_history`).

    Attributes
    ----------
    players_ : ndarray of shape (n_players,)
        Player labels, sorted.
    ratings_ : ndarray of shape (n_players,)
        Ratings aligned with ``players_``, on ``scale``.
    classes_ : ndarray of shape (2,)
        ``[0, 1]``: column 1 of :meth:`predict_proba` is "first player wins".
    n_iter_ : int
        Newton iterations of the batch fit (1 for online fits).
    n_matches_seen_ : int
        Matches used so far (``fit`` plus later ``partial_fit`` calls).
    n_features_in_ : int
        Always 2 (the two player columns).
    feature_names_in_ : ndarray of shape (2,)
        Column names of ``X`` when it was a DataFrame with string names.

    See Also
    --------
    MultiElo : Elo plus cyclic (rock-paper-scissors) interactions.
    sklearn_eval.metrics.match_log_loss : The log-loss with draws as half wins.

    Notes
    -----
    Only rating differences matter: ``initial_rating`` shifts every rating.
    Online Elo is zero-sum, so the mean rating stays ``initial_rating`` until
    new players arrive with :meth:`partial_fit` (they also start at it).

    References
    ----------
    D. Balduzzi, K. Tuyls, J. Perolat and T. Graepel. "Re-evaluating
    evaluation". NeurIPS 2018, section 2.1.

    Examples
    --------
    >>> from sklearn_eval.pairwise import EloRanker
    >>> X = [["alice", "bob"], ["bob", "carol"], ["alice", "carol"]]
    >>> y = [1, 0.5, 1]
    >>> elo = EloRanker(k_factor=32).fit(X, y)
    >>> elo.players_.tolist()
    ['alice', 'bob', 'carol']
    >>> elo.ratings_.round(1).tolist()
    [1531.2, 1484.7, 1484.0]
    >>> elo.predict_proba([["alice", "bob"]]).round(3).tolist()
    [[0.433, 0.567]]
    >>> batch = EloRanker(method="batch", alpha=0.1).fit(X, y)
    >>> bool(batch.ratings_.mean().round(6) == 1500)
    True
    """

    _parameter_constraints: dict = {**BaseMatchRater._parameter_constraints}

    _model = "bradley_terry"

    def __init__(
        self,
        *,
        method="online",
        k_factor=16.0,
        initial_rating=None,
        scale="elo",
        first_advantage=0.0,
        alpha=0.0,
        tol=1e-8,
        max_iter=100,
        keep_history=False,
    ):
        self.method = method
        self.k_factor = k_factor
        self.initial_rating = initial_rating
        self.scale = scale
        self.first_advantage = first_advantage
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.keep_history = keep_history

    # ----------------------------------------------------------- state hooks
    def _new_state(self, n_players):
        return {"ratings": np.zeros(n_players)}

    def _extend_state(self, state, old_to_merged, n_players):
        ratings = np.zeros(n_players)
        ratings[old_to_merged] = state["ratings"]
        return {"ratings": ratings}

    def _run_online(self, state, first, second, outcome, weight, history):
        _kernels.elo_scan(
            first, second, outcome, weight, state["ratings"], self._step_logit(),
            self._advantage_logit(), history,
        )

    def _run_batch(self, state, stats, players, alpha):
        alpha, flagged = effective_alpha(
            stats, players, alpha, type(self).__name__
        )
        ratings, n_iter, converged = fit_bradley_terry(
            stats, alpha=alpha, advantage=self._advantage_logit(),
            tol=float(self.tol), max_iter=int(self.max_iter),
        )
        if not converged and not flagged:
            warnings.warn(
                f"EloRanker batch fit did not converge in {n_iter} Newton "
                f"iterations (tol={self.tol}); increase max_iter or set alpha > 0.",
                ConvergenceWarning,
                stacklevel=4,
            )
        return {"ratings": ratings}, n_iter

    def _logits(self, first, second):
        ratings = np.append(self._state["ratings"], 0.0)
        return ratings[first] - ratings[second] + self._advantage_logit()

    def _publish(self):
        self.ratings_ = self._to_reported(self._state["ratings"])

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Batch ratings get the fast multinomial bootstrap and analytic
        sandwich intervals; online ratings a bootstrap over matches kept in
        order (descriptive, see the result's ``note``).

        Parameters
        ----------
        target : {"ratings"} or None, default=None

        Returns
        -------
        plan : IntervalPlan
        """
        return elo_interval_plan(self, target)
