"""EloRanker: online Elo and order-independent batch Bradley-Terry ratings."""

import warnings
from numbers import Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..metrics import three_outcome_log_loss
from ..utils import check_matches
from ..utils._dask import is_dask_collection
from ..utils._sklearn_compat import Interval, StrOptions
from ..utils._stack import find_stack_level
from . import _kernels
from ._base import BaseMatchRater, _mean_positive
from ._batch import fit_bradley_terry
from ._covariates import reject_extra_columns
from ._dask_matches import aggregate_matches
from ._extended import fit_extended, tie_parameter, warn_not_converged
from ._intervals import elo_interval_plan
from ._ties import TIE_MODELS
from ._unplayed import embed_state, played_mask, played_subset, warn_unplayed
from ._vanishing import effective_alpha

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

    **Ties, covariates, fitted advantage (batch only).** ``ties="davidson"``
    or ``"rao-kupper"`` fits a three-outcome model (y = 0.5 is a tie) with
    its tie parameter learned (``tie_param_``); ``predict_proba`` then has
    three columns (``classes_ = [0., 0.5, 1.]``: second player wins, tie,
    first player wins). :meth:`score` is the mean three-outcome
    log-likelihood for every ``ties`` setting (so that a grid search over
    ``ties`` compares like with like): ``ties="half"`` predicts a tie with
    the share of ties seen in training (``tie_probability_``) and splits
    the rest by its win probability (:meth:`predict_outcome_proba`).
    Numeric columns of ``X`` after the two player columns are per-match
    covariates (e.g. the difference in answer length between the
    two chatbots), fitted jointly with the ratings (``covariate_coef_``),
    so the ratings are controlled for them. ``first_advantage="fit"``
    estimates the first player's advantage (``first_advantage_``). The
    extended model is, on the natural-logit scale,
    ``d = r_first - r_second + h + x . beta``, with Davidson's
    ``P(win, tie, loss)`` proportional to ``(e^(d/2), nu, e^(-d/2))`` and
    Rao-Kupper's ``P(win) = sigmoid(d - log theta)``,
    ``P(loss) = sigmoid(-d - log theta)``; both reduce to Bradley-Terry
    without ties. They are fitted by Newton's method on the matches
    aggregated per pair (per match with covariates), so a table of vote
    counts given as weighted rows costs O(distinct pairs). See the user
    guide's "Ranking chatbots" page.

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
    first_advantage : float or "fit", default=0.0
        Advantage of the first-listed player (e.g. home advantage or the
        first-shown answer), in the units of ``scale``; added to its rating
        when predicting. ``"fit"`` estimates it by maximum likelihood
        (``method="batch"`` only; the data must hold pairs in both orders or
        cycles that identify it).
    alpha : float, default=0.0
        Batch only: strength of the L2 prior on the natural-logit ratings
        (prior N(0, 1/alpha)), added to the summed negative log-likelihood.
        Needed for meaningful finite ratings when a player is undefeated,
        winless or the players are disconnected: with ``alpha=0`` such data
        raise a ConvergenceWarning and a vanishing prior (1e-6 per unit of
        ``sample_weight``, so repeated rows and their count as a weight give
        one fit) is used.
    tol : float, default=1e-8
        Batch only: convergence tolerance on the largest rating change of a
        Newton step, in logits.
    max_iter : int, default=100
        Batch only: maximum number of Newton iterations.
    keep_history : bool, default=False
        Record the players' ratings after every online match
        (``history_``, :meth:`rating_history`).
    ties : {"half", "davidson", "rao-kupper"}, default="half"
        How a tie (y = 0.5) enters. ``"half"``: as half a win and half a loss
        (Elo's and Bradley-Terry's convention; both methods). ``"davidson"``
        (Davidson, 1970) or ``"rao-kupper"`` (Rao and Kupper, 1967): a
        three-outcome model with a tie parameter fitted by maximum
        likelihood (``method="batch"`` only). For arena votes, "tie" and
        "tie, both bad" are both y = 0.5.

    Attributes
    ----------
    players_ : ndarray of shape (n_players,)
        Player labels, sorted.
    ratings_ : ndarray of shape (n_players,)
        Ratings aligned with ``players_``, on ``scale``.
    classes_ : ndarray of shape (2,) or (3,)
        ``[0, 1]``: column 1 of :meth:`predict_proba` is "first player wins";
        with a tie model ``[0.0, 0.5, 1.0]``: second player wins, tie, first
        player wins (the values of y).
    tie_param_ : float
        With a tie model: Davidson's ``nu >= 0`` (tie odds against
        ``sqrt`` of the win odds: ``P(tie) = nu / (e^(d/2) + nu + e^(-d/2))``)
        or Rao-Kupper's ``theta >= 1`` (``P(win) = 1 / (1 + theta e^-d)``).
        0 and 1 mean no ties.
    tie_probability_ : float
        With ``ties="half"``: the probability of a tie that
        :meth:`predict_outcome_proba` and :meth:`score` use, the
        (weighted) share of ties among the matches seen (0 when no match has
        a positive weight).
    first_advantage_ : float
        The first-player advantage used, in the units of ``scale``: fitted
        with ``first_advantage="fit"``, else the given value.
    first_advantage_se_ : float
        With ``first_advantage="fit"``: its sandwich standard error.
    covariate_coef_ : ndarray of shape (n_covariates,)
        With covariates: the change in the first player's advantage per unit
        of each covariate, in the units of ``scale`` (positive favours the
        first player).
    covariate_se_ : ndarray of shape (n_covariates,)
        Sandwich (robust) standard errors of ``covariate_coef_``, with each
        match's weight applied to its score (as
        :func:`bradley_terry_covariance`; for vote counts given as weights
        use that function with ``frequency_weights=True``).
    covariate_names_ : ndarray of shape (n_covariates,)
        The covariates' column labels (DataFrame), else ``"x2"``, ``"x3"``,
        ... (their positions in ``X``).
    n_iter_ : int
        Newton iterations of the batch fit (1 for online fits).
    n_matches_seen_ : int
        Matches used so far (``fit`` plus later ``partial_fit`` calls).
    n_features_in_ : int
        2 (the two player columns) plus the number of covariates.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of ``X`` when it was a DataFrame with string names.

    See Also
    --------
    MultiElo : Elo plus cyclic (rock-paper-scissors) interactions.
    sklearn_eval.metrics.match_log_loss : The log-loss with draws as half wins.
    sklearn_eval.metrics.three_outcome_log_loss : The log-loss of a tie model.

    Notes
    -----
    Only rating differences matter: ``initial_rating`` shifts every rating.
    Online Elo is zero-sum, so the mean rating stays ``initial_rating`` until
    new players arrive with :meth:`partial_fit` (they also start at it).

    How ``X`` is read: its first two columns are the players; any further
    columns are numeric per-match covariates. A DataFrame's covariate columns
    must have numeric dtypes; an array (object, string or numeric dtype) has
    them converted to float64. Covariates, tie models and
    ``first_advantage="fit"`` need ``method="batch"`` (a clear ValueError
    otherwise) and are not available in :class:`MultiElo` or
    :meth:`partial_fit`, which run Elo's online update.

    References
    ----------
    D. Balduzzi, K. Tuyls, J. Perolat and T. Graepel. "Re-evaluating
    evaluation". NeurIPS 2018, section 2.1.

    R. R. Davidson. "On extending the Bradley-Terry model to accommodate ties
    in paired comparison experiments". JASA 65(329), 1970.

    P. V. Rao and L. L. Kupper. "Ties in paired-comparison experiments: a
    generalization of the Bradley-Terry model". JASA 62(317), 1967.

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

    A tie model, and a covariate (say, answer A's length minus B's, in
    thousands of characters):

    >>> from sklearn_eval.datasets import make_matches
    >>> X, y = make_matches(n_players=4, n_matches=3000, draw_rate=0.2,
    ...                     random_state=0)
    >>> davidson = EloRanker(method="batch", ties="davidson").fit(X, y)
    >>> davidson.classes_.tolist(), davidson.predict_proba(X[:1]).shape
    ([0.0, 0.5, 1.0], (1, 3))
    >>> bool(0 < davidson.tie_param_ < 2)
    True
    >>> import numpy as np
    >>> length = np.random.default_rng(0).normal(size=len(y))
    >>> Xc = np.column_stack([X.astype(object), length])
    >>> styled = EloRanker(method="batch", ties="davidson").fit(Xc, y)
    >>> styled.covariate_names_.tolist(), styled.covariate_coef_.shape
    (['x2'], (1,))
    """

    _parameter_constraints: dict = {
        **BaseMatchRater._parameter_constraints,
        "first_advantage": [
            Interval(Real, None, None, closed="neither"),
            StrOptions({"fit"}),
        ],
        "ties": [StrOptions(set(TIE_MODELS))],
    }

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
        ties="half",
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
        self.ties = ties

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

    def _run_batch(self, state, stats, players, alpha, weight_scale=1.0):
        alpha, flagged = effective_alpha(
            stats, players, alpha, type(self).__name__, weight_scale
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
                stacklevel=find_stack_level(),
            )
        return {"ratings": ratings}, n_iter

    # ------------------------------------------------------------------- fit
    def _is_extended(self, table):
        return (self.ties != "half" or self.first_advantage == "fit"
                or table.covariates is not None)

    def _require_batch(self, table, what):
        if self.method == "batch":
            return
        if self.ties != "half":
            raise ValueError(
                f"ties={self.ties!r} is a maximum-likelihood tie model: it needs "
                f"method='batch' ({what} runs Elo's online update, which scores "
                "a draw as half a win)."
            )
        if self.first_advantage == "fit":
            raise ValueError(
                f"first_advantage='fit' is estimated by maximum likelihood: it "
                f"needs method='batch' ({what} runs Elo's online update); or "
                "give the advantage as a number."
            )
        if table.covariates is not None:
            raise ValueError(
                f"X has {2 + table.n_covariates} columns: the two players and "
                f"{table.n_covariates} per-match covariate column(s). Covariates "
                "are fitted jointly with the ratings by method='batch'; "
                f"{what} runs Elo's online update, which cannot use them. Pass "
                "only the two player columns, or use method='batch'."
            )

    def _check_table(self, table, what):
        if what == "partial_fit":
            fitted_extended = self._tie_model is not None or hasattr(
                self, "covariate_coef_"
            )
            if self._is_extended(table) or fitted_extended:
                raise ValueError(
                    "partial_fit runs Elo's online update, which has no tie model, "
                    "covariates or fitted first-player advantage (ties="
                    f"{self.ties!r}, first_advantage={self.first_advantage!r}, "
                    f"{table.n_covariates} covariate column(s)); refit with "
                    "fit(method='batch') on all the matches instead."
                )
        elif self._is_extended(table):
            self._require_batch(table, "fit with method='online'")

    def fit(self, X, y, sample_weight=None):
        """Rate the players from a table of matches.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
            Labels of the first and second player of each match, in
            chronological order (the order matters for ``method="online"``
            only), then any numeric per-match covariates (batch only).
        y : array-like of shape (n_matches,)
            Outcome for the first player: 1 win, 0 loss, 0.5 draw (a tie).
        sample_weight : array-like of shape (n_matches,), default=None
            Non-negative match weights. Online, a weight multiplies the
            update step; in batch, it multiplies the match's log-likelihood
            (so vote counts can be given as the weights of distinct rows).

        Returns
        -------
        self : object
            The fitted estimator.

        Notes
        -----
        ``X`` may be a Dask DataFrame of matches (``y`` and ``sample_weight``
        Dask Series aligned with it, or names of its columns) with
        ``method="batch"``: the matches are counted per distinct row by a
        groupby on the workers, and the batch fit runs on the counts (user
        guide, "More data than one machine").
        """
        if is_dask_collection(X):
            X, y, sample_weight = self._dask_counts(X, y, sample_weight)
        return super().fit(X, y, sample_weight=sample_weight)

    def _dask_counts(self, X, y, sample_weight):
        if self.method != "batch":
            raise ValueError(
                "EloRanker(method='online') updates the ratings one match at a "
                "time in match order, which does not run on partitions of a Dask "
                "DataFrame; use method='batch' (it depends on the matches only "
                "through their counts per distinct row, computed on the workers)."
            )
        return aggregate_matches(X, y, sample_weight)

    def _solve(self, checked):
        X, table, matches, players, first, second = checked
        if not self._is_extended(table):
            fitted = super()._solve(checked)
            return {
                **fitted,
                "first_advantage_": float(self.first_advantage),
                **_tie_share(matches),
            }
        units = self._units_per_logit()
        weight_scale = _mean_positive(matches.sample_weight)
        fit_advantage = self.first_advantage == "fit"
        fixed = 0.0 if fit_advantage else float(self.first_advantage) / units
        n_players = players.shape[0]
        played = played_mask(first, second, matches.sample_weight, n_players)
        rows = (first, second, matches.y, matches.sample_weight / weight_scale,
                players, table.covariates)
        if not played.all() and played.any():
            # players without a match of positive weight have no data: the
            # model is fitted on the others, which keep the initial rating
            present, sub_first, sub_second, keep = played_subset(
                first, second, matches.sample_weight, played)
            rows = (sub_first, sub_second, matches.y[keep], rows[3][keep],
                    players[present],
                    None if table.covariates is None else table.covariates[keep])
        result = fit_extended(
            *rows, table.names, ties=self.ties,
            fit_advantage=fit_advantage,
            fixed_advantage=fixed,
            alpha=float(self.alpha) / weight_scale, tol=float(self.tol),
            max_iter=int(self.max_iter), weight_scale=weight_scale,
        )
        if not result.converged and not result.flagged:
            warn_not_converged(result.n_iter, self.tol)
        warn_unplayed(players, ~played, type(self).__name__)
        state = result.state
        if rows[4].shape[0] != n_players:
            state = embed_state(state, present, n_players)
        tie_model = None if self.ties == "half" else self.ties
        fitted = self._fitted_state(
            X, players, state, n_iter=result.n_iter,
            n_matches_seen=int(matches.y.shape[0]),
            history=self._recorded_history(
                None, np.empty((0, 2)) if self.keep_history else None,
                first[:0], second[:0], state["ratings"].copy(),
            ),
            tie_model=tie_model, played=played,
        )
        fitted["first_advantage_"] = float(state["advantage"]) * units
        if fit_advantage:
            fitted["first_advantage_se_"] = result.advantage_se * units
        if tie_model is not None:
            fitted["tie_param_"] = tie_parameter(tie_model, state["tie"])
        else:
            fitted.update(_tie_share(matches))
        if table.covariates is not None:
            fitted["covariate_coef_"] = state["coef"] * units
            fitted["covariate_se_"] = result.coef_se * units
            fitted["covariate_names_"] = np.asarray(table.names, dtype=object)
        return fitted

    def partial_fit(self, X, y, sample_weight=None):
        """Continue online rating from the fitted state with more matches.

        Runs the online updates (whatever ``method`` was used by ``fit``)
        over the new matches in order, starting from the current ratings.
        Players not seen before enter with ``initial_rating``. On an unfitted
        estimator this is ``fit`` with online updates. Not available with a
        tie model, covariates or ``first_advantage="fit"`` (ValueError).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2)
            The new matches, in chronological order.
        y : array-like of shape (n_matches,)
            Outcome for the first player: 1 win, 0 loss, 0.5 draw.
        sample_weight : array-like of shape (n_matches,), default=None
            Non-negative weights multiplying each update step.

        Returns
        -------
        self : object
            The updated estimator.
        """
        return super().partial_fit(X, y, sample_weight)

    def _check_partial_fit_data(self, X, y, sample_weight):
        # the online update takes no covariates, numeric or not: say so
        # before reading the extra columns as covariates
        reject_extra_columns(
            X, "EloRanker.partial_fit",
            "runs Elo's online update, which takes only the two player "
            "columns; per-match covariates are fitted by fit with "
            "method='batch' on all the matches.",
        )
        return super()._check_partial_fit_data(X, y, sample_weight)

    def _solve_partial(self, checked):
        previous = getattr(self, "_ties_seen", None)
        fitted = super()._solve_partial(checked)
        fitted.setdefault("first_advantage_", float(self.first_advantage))
        seen = _tie_totals(checked.matches.y, checked.matches.sample_weight)
        if hasattr(self, "players_") and previous is not None:
            seen = _add_totals(previous, seen)
        fitted["_ties_seen"] = seen
        fitted["tie_probability_"] = _share(seen)
        return fitted

    # ------------------------------------------------------------ prediction
    def _advantage_logit(self):
        if isinstance(self.first_advantage, str):  # "fit": the fitted value
            state = getattr(self, "_state", None) or {}
            return float(state.get("advantage", 0.0))
        return float(self.first_advantage) / self._units_per_logit()

    def _logits(self, first, second):
        ratings = np.append(self._state["ratings"], 0.0)
        advantage = self._state.get("advantage")
        advantage = self._advantage_logit() if advantage is None else float(advantage)
        return ratings[first] - ratings[second] + advantage

    def _published(self, state):
        return {"ratings_": self._to_reported(state["ratings"])}

    def _three_outcome_proba(self, logits):
        """P(second wins), P(tie), P(first wins) for every ``ties`` setting."""
        if self._tie_model is not None:
            return self._outcome_proba(logits)
        win = self._outcome_proba(logits)[:, 1]
        tie = float(getattr(self, "tie_probability_", 0.0))
        return np.column_stack(
            [(1.0 - tie) * (1.0 - win), np.full(win.shape, tie), (1.0 - tie) * win]
        )

    def predict_outcome_proba(self, X):
        """Probability of each of the three outcomes, for every ``ties``.

        With a tie model this is :meth:`predict_proba`. With
        ``ties="half"`` a tie has the probability ``t = tie_probability_``
        (the share of ties in training) and the decided matches split as
        the win probability ``p`` (column 1 of :meth:`predict_proba`):
        ``[(1 - t)(1 - p), t, (1 - t) p]``, so that the win probability
        given a decided match is ``predict_proba``'s.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
            Pairs of player labels (unseen players get ``initial_rating``),
            then the covariates.

        Returns
        -------
        proba : ndarray of shape (n_matches, 3)
            P(second player wins), P(tie), P(first player wins).

        Examples
        --------
        >>> from sklearn_eval.pairwise import EloRanker
        >>> X = [["a", "b"], ["b", "c"], ["a", "c"], ["c", "a"]]
        >>> elo = EloRanker(method="batch", alpha=0.1).fit(X, [1, 0.5, 1, 0])
        >>> elo.tie_probability_
        0.25
        >>> elo.predict_outcome_proba([["a", "b"]]).round(3).tolist()
        [[0.048, 0.25, 0.702]]
        """
        return self._three_outcome_proba(self.decision_function(X))

    def score(self, X, y, sample_weight=None):
        """Mean three-outcome log-likelihood per match (higher is better).

        The log-probability of the observed outcome (win, tie or loss) under
        :meth:`predict_outcome_proba`,
        ``-sklearn_eval.metrics.three_outcome_log_loss(y,
        predict_outcome_proba(X))`` (probabilities clipped at machine
        epsilon), weighted by ``sample_weight``. The same quantity for every
        ``ties`` setting, so ``GridSearchCV`` over ``ties`` chooses by
        held-out fit. (Before 0.2 the score of ``ties="half"`` was the
        two-outcome ``-match_log_loss(y, p)`` that counts a tie as half a
        win.)

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
        y : array-like of shape (n_matches,)
            Outcome for the first player: 1 win, 0 loss, 0.5 draw.
        sample_weight : array-like of shape (n_matches,), default=None

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        table = self._parse(X)
        matches = check_matches(table.players, y, sample_weight, require_y=True)
        logits = self._logits_for(X, table, matches)
        if not matches.sample_weight.sum() > 0:
            raise ValueError("sample_weight sums to zero; the score is undefined.")
        return -three_outcome_log_loss(
            matches.y, self._three_outcome_proba(logits),
            sample_weight=matches.sample_weight,
        )

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Batch ratings get the fast multinomial bootstrap and analytic
        sandwich intervals (tie models and covariates included); online
        ratings a bootstrap over matches kept in order (descriptive, see the
        result's ``note``).

        Parameters
        ----------
        target : {"ratings"} or None, default=None

        Returns
        -------
        plan : IntervalPlan
        """
        return elo_interval_plan(self, target)


def _tie_share(matches):
    """The tie totals of validated matches and their share (fitted values)."""
    seen = _tie_totals(matches.y, matches.sample_weight)
    return {"_ties_seen": seen, "tie_probability_": _share(seen)}


def _tie_totals(y, weight):
    """(share of ties, total weight) of validated matches, without overflow."""
    top = float(np.max(weight, initial=0.0))
    if not top > 0:
        return 0.0, 0.0
    unit = weight / top
    total = float(unit.sum())
    return float(unit[y == 0.5].sum()) / total, min(top * total, _LARGEST)


def _add_totals(old, new):
    """The tie share of two batches of matches together."""
    (share_a, total_a), (share_b, total_b) = old, new
    top = max(total_a, total_b)
    if not top > 0:
        return 0.0, 0.0
    a, b = total_a / top, total_b / top
    return (share_a * a + share_b * b) / (a + b), min(total_a + total_b, _LARGEST)


def _share(totals):
    return float(totals[0])


_LARGEST = float(np.finfo(np.float64).max)
