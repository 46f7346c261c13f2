"""MultiElo: multidimensional Elo (mElo_2k) for cyclic games."""

import copy
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import Interval
from ..utils._stack import find_stack_level
from ..utils._twins import twin_classes
from . import _kernels
from ._base import BaseMatchRater
from ._batch import fit_bradley_terry, fit_melo_lbfgs, omega_product
from ._covariates import reject_extra_columns
from ._intervals import melo_interval_plan
from ._melo_start import canonical_stats, melo_start, pair_matrices
from ._vanishing import effective_alpha

__all__ = ["MultiElo"]


class MultiElo(BaseMatchRater):
    """Multidimensional Elo (mElo_2k): ratings plus cyclic interactions.

    Each player i has a rating ``r_i`` and a vector ``c_i`` of length 2k
    (k = ``n_components``). The first player wins with probability

    ``p_ij = sigmoid(r_i - r_j + h + c_i^T Omega c_j)``

    on the natural-logit scale, with ``Omega`` block-diagonal with k blocks
    ``[[0, 1], [-1, 0]]`` (Balduzzi et al., 2018, section 3.1). The
    antisymmetric term ``c_i^T Omega c_j`` is a low-rank model of the cyclic
    (rock-paper-scissors) part of the game that Elo cannot represent; with
    ``n_components=0`` the model is Elo.

    ``method="online"`` applies the paper's appendix E updates in match
    order, generalised to any k: with ``d = w (s - p_ij)``,
    ``r_i += eta_r d``, ``r_j -= eta_r d``, ``c_i += eta_c d Omega c_j`` and
    ``c_j -= eta_c d Omega c_i``, where ``eta_r = k_factor ln(10) / 400``
    (``k_factor`` in Elo points, as in :class:`EloRanker`) and
    ``eta_c = lr_vectors``. The vectors start random and non-zero (zero is a
    fixed point of the updates), drawn ``N(0, init_scale^2)`` with
    ``random_state``.

    ``method="batch"`` ignores the order: it starts from the batch Elo
    ratings and minimises the full (weighted) negative log-likelihood, plus
    ``alpha/2 (|r|^2 + |C|^2)``, by L-BFGS. The likelihood is not convex and
    L-BFGS stops at ``tol``, so where it ends depends on where it starts;
    the start is therefore a function of the data alone, not of the labels
    or ``random_state``: the vectors begin in the leading planes of the
    Bradley-Terry residuals (the eigenvectors of ``i A``, with ``A`` the
    antisymmetric matrix of observed minus predicted scores), scaled to
    ``init_scale``, and the players are processed in an order computed from
    their pair statistics. What is invariant, and what is not:

    - batch: renaming the players renames the fit (exactly when their pair
      statistics differ, else to rounding); the order of the matches and
      ``random_state`` do not matter; exact copies of a player (players
      whose swap leaves every pair's games and scores unchanged) share
      their rating and vector, so they tie. Among the optima of the
      non-convex likelihood the fit is the one reached from this start (the
      vectors are only defined up to a rotation within each plane);
    - online: the updates follow the order of the matches and the random
      initial vectors (``random_state``, drawn by player position), so
      neither renaming, reordering nor copies leave the fit unchanged.

    Parameters
    ----------
    n_components : int, default=1
        k, the number of cyclic planes (vectors have 2k entries).
    method : {"online", "batch"}, default="online"
        Order-dependent online updates, or the full-likelihood batch fit.
    k_factor : float, default=16.0
        Online rating step in points of the 400-point scale.
    lr_vectors : float, default=0.1
        Online step of the cyclic vectors (natural-logit units).
    init_scale : float, default=0.1
        Standard deviation of the random initial vectors (online), root
        mean square of the initial vectors in each plane (batch).
    initial_rating : float or None, default=None
        Rating of a new player, on ``scale``; None means 1500 for
        ``scale="elo"`` and 0 for ``scale="logit"``. Unseen players are
        predicted with it and a zero vector.
    scale : {"elo", "logit"}, default="elo"
        Scale of the reported ratings (see :class:`EloRanker`). The vectors
        are always in natural-logit units.
    first_advantage : float, default=0.0
        Fixed advantage of the first-listed player, in the units of ``scale``.
    alpha : float, default=1e-2
        Batch only: L2 penalty ``alpha/2 (|r|^2 + |C|^2)`` added to the summed
        negative log-likelihood (natural-logit units). The default weak prior
        keeps the fit well posed: without it the vectors can grow without
        bound (the model's extra freedom lets some logits go to infinity, and
        ``c -> (s x, y / s)`` within a plane leaves predictions unchanged).
        Use 0 for the plain maximum-likelihood fit.
    tol : float, default=1e-6
        Batch only: L-BFGS tolerance on the largest gradient entry of the
        mean negative log-likelihood.
    max_iter : int, default=2000
        Batch only: maximum number of L-BFGS iterations.
    keep_history : bool, default=False
        Record the players' ratings ``r`` after every online match.
    random_state : int, RandomState instance or None, default=None
        Seed of the online fit's initial vectors (also those of players
        first seen in :meth:`partial_fit`); a batch fit does not use it.

    Attributes
    ----------
    players_ : ndarray of shape (n_players,)
        Player labels, sorted.
    ratings_ : ndarray of shape (n_players,)
        The ratings ``r`` aligned with ``players_``, on ``scale``.
    vectors_ : ndarray of shape (n_players, 2 * n_components)
        The cyclic vectors ``c_i`` (natural-logit units).
    transitive_ratings_ : ndarray of shape (n_players,)
        Each player's average fitted logit against all fitted players, on
        ``scale`` with mean ``initial_rating``: ``r_i + c_i^T Omega c_mean``,
        i.e. the transitive (Hodge divergence) part of the fitted game
        restricted to the fitted players.
    classes_ : ndarray of shape (2,)
        ``[0, 1]``: column 1 of :meth:`predict_proba` is "first player wins".
    n_iter_ : int
        L-BFGS iterations of the batch fit (1 for online fits).
    n_matches_seen_ : int
        Matches used so far.
    n_features_in_ : int
        Always 2.
    feature_names_in_ : ndarray of shape (2,)
        Column names of ``X`` when it was a DataFrame with string names.

    See Also
    --------
    EloRanker : Ratings without cyclic interactions.

    References
    ----------
    D. Balduzzi, K. Tuyls, J. Perolat and T. Graepel. "Re-evaluating
    evaluation". NeurIPS 2018, section 3.1 and appendix E.

    Examples
    --------
    Rock beats scissors, scissors beat paper, paper beats rock:

    >>> import numpy as np
    >>> from sklearn_eval.pairwise import MultiElo
    >>> X = np.array([["rock", "scissors"], ["scissors", "paper"],
    ...               ["paper", "rock"]] * 50)
    >>> y = np.ones(len(X))
    >>> melo = MultiElo(method="batch", random_state=0).fit(X, y)
    >>> melo.predict([["rock", "scissors"], ["rock", "paper"]]).tolist()
    [1, 0]
    >>> bool(melo.predict_proba([["rock", "scissors"]])[0, 1] > 0.99)
    True

    Elo cannot represent the cycle: it rates all three equally.

    >>> from sklearn_eval.pairwise import EloRanker
    >>> elo = EloRanker(method="batch").fit(X, y)
    >>> elo.predict_proba([["rock", "scissors"]])[:, 1].round(3).tolist()
    [0.5]
    >>> melo.embedding(0).shape
    (3, 2)
    """

    _parameter_constraints: dict = {
        **BaseMatchRater._parameter_constraints,
        "n_components": [Interval(Integral, 0, None, closed="left")],
        "lr_vectors": [Interval(Real, 0, None, closed="left")],
        "init_scale": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    _model = "melo"

    def __init__(
        self,
        n_components=1,
        *,
        method="online",
        k_factor=16.0,
        lr_vectors=0.1,
        init_scale=0.1,
        initial_rating=None,
        scale="elo",
        first_advantage=0.0,
        alpha=1e-2,
        tol=1e-6,
        max_iter=2000,
        keep_history=False,
        random_state=None,
    ):
        self.n_components = n_components
        self.method = method
        self.k_factor = k_factor
        self.lr_vectors = lr_vectors
        self.init_scale = init_scale
        self.initial_rating = initial_rating
        self.scale = scale
        self.first_advantage = first_advantage
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.keep_history = keep_history
        self.random_state = random_state

    # ----------------------------------------------------------- state hooks
    def _check_training_data(self, X, y, sample_weight, what="fit"):
        reject_extra_columns(
            X, "MultiElo", "reads only the two player columns: per-match "
            "covariates and tie models are fitted by EloRanker(method='batch').",
        )
        return super()._check_training_data(X, y, sample_weight, what)

    def _random_vectors(self, rng, n_players):
        width = 2 * int(self.n_components)
        return float(self.init_scale) * rng.standard_normal((n_players, width))

    def _new_state(self, n_players):
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        rng = np.random.RandomState(seed)
        return {
            "ratings": np.zeros(n_players),
            "vectors": self._random_vectors(rng, n_players),
            "rng": rng,
        }

    def _extend_state(self, state, old_to_merged, n_players):
        width = state["vectors"].shape[1]
        if width != 2 * int(self.n_components):
            raise ValueError(
                f"n_components changed from {width // 2} to {self.n_components} "
                "since fit; call fit to start again."
            )
        rng = copy.deepcopy(state["rng"])
        ratings = np.zeros(n_players)
        ratings[old_to_merged] = state["ratings"]
        is_new = np.ones(n_players, dtype=bool)
        is_new[old_to_merged] = False
        vectors = np.empty((n_players, width))
        vectors[old_to_merged] = state["vectors"]
        vectors[is_new] = self._random_vectors(rng, int(is_new.sum()))
        return {"ratings": ratings, "vectors": vectors, "rng": rng}

    def _run_online(self, state, first, second, outcome, weight, history):
        _kernels.melo_scan(
            first, second, outcome, weight, state["ratings"], state["vectors"],
            self._step_logit(), float(self.lr_vectors), self._advantage_logit(),
            history,
        )

    def _run_batch(self, state, stats, players, alpha, weight_scale=1.0):
        alpha, flagged = effective_alpha(
            stats, players, alpha, type(self).__name__, weight_scale
        )
        advantage = self._advantage_logit()
        # the fit runs on the players in an order free of their labels, from
        # a start that depends on the data alone (not the random vectors of
        # the online fit), and exact copies share their parameters: renaming
        # players renames the fit, and copies tie (see _melo_start)
        ordered = advantage != 0.0
        stats, position = canonical_stats(stats, ordered=ordered)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ratings, _, _ = fit_bradley_terry(stats, alpha=alpha, advantage=advantage)
        start = melo_start(stats, ratings, advantage, state["vectors"].shape[1],
                           float(self.init_scale))
        classes = twin_classes(*pair_matrices(stats, ordered=ordered))
        ratings, vectors, n_iter, converged = fit_melo_lbfgs(
            stats, ratings, start, alpha=alpha,
            advantage=advantage, tol=float(self.tol), max_iter=int(self.max_iter),
            groups=classes if classes.max() + 1 < classes.shape[0] else None,
        )
        ratings, vectors = ratings[position], vectors[position]
        if not converged and not flagged:
            warnings.warn(
                f"MultiElo batch fit did not converge in {n_iter} L-BFGS "
                f"iterations (tol={self.tol}); increase max_iter or alpha.",
                ConvergenceWarning,
                stacklevel=find_stack_level(),
            )
        return {"ratings": ratings, "vectors": vectors, "rng": state["rng"]}, n_iter

    def _logits(self, first, second):
        ratings = np.append(self._state["ratings"], 0.0)
        vectors = self._state["vectors"]
        vectors = np.vstack([vectors, np.zeros((1, vectors.shape[1]))])
        return (
            ratings[first] - ratings[second] + self._advantage_logit()
            + omega_product(vectors[first], vectors[second])
        )

    def _published(self, state):
        ratings = state["ratings"]
        vectors = state["vectors"]
        mean_vector = vectors.mean(axis=0, keepdims=True)
        towards_mean = omega_product(
            vectors, np.broadcast_to(mean_vector, vectors.shape)
        )
        transitive = ratings - ratings.mean() + towards_mean
        return {
            "ratings_": self._to_reported(ratings),
            "vectors_": vectors.copy(),
            "transitive_ratings_": self._to_reported(transitive),
        }

    def _agent_columns(self):
        return {"transitive_rating": self.transitive_ratings_}

    def embedding(self, component=0):
        """Players' coordinates in one cyclic plane.

        Parameters
        ----------
        component : int, default=0
            Index of the plane, ``0 <= component < n_components``.

        Returns
        -------
        coordinates : ndarray of shape (n_players, 2)
            ``vectors_[:, 2 * component : 2 * component + 2]``; the cyclic
            logit between i and j in this plane is the signed area
            ``x_i y_j - y_i x_j``.
        """
        check_is_fitted(self)
        n_planes = self.vectors_.shape[1] // 2
        if not isinstance(component, Integral) or not 0 <= component < n_planes:
            raise ValueError(
                f"component must be an integer in [0, {n_planes}); got {component!r}."
            )
        return self.vectors_[:, 2 * component: 2 * component + 2].copy()

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Matches are resampled (in order, for online fits) and the ratings or
        transitive ratings refitted; the cyclic vectors are not summarised.

        Parameters
        ----------
        target : {"ratings", "transitive_ratings"} or None, default=None

        Returns
        -------
        plan : IntervalPlan
        """
        return melo_interval_plan(self, target)
