"""Shared machinery of the match-based rating estimators (EloRanker, MultiElo).

Both estimators read matches (see the user guide's data page): ``X`` of shape
(n_matches, 2) with the two players' labels, ``y`` the first player's outcome
(1 win, 0 loss, 0.5 draw). They keep their state on the natural-logit scale,
relative to the initial rating (so an unseen player has internal rating 0),
and publish it on the scale the user asked for.
"""

import math
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import AgentRankerMixin, FitTemplateMixin, input_attributes
from ..metrics import three_outcome_log_loss
from ..utils import (
    check_and_encode_matches,
    check_matches,
    encode_players,
    lookup_players,
)
from ..utils._protocol import deprecated_alias
from ..utils._sklearn_compat import Interval, StrOptions
from ..utils._stack import find_stack_level
from . import _kernels
from ._batch import aggregate_pairs
from ._covariates import split_covariates
from ._dask_matches import reject_dask_matches
from ._ties import expected_score, outcome_probabilities
from ._unplayed import embed_state, played_mask, played_subset, warn_unplayed

__all__ = [
    "ELO_UNITS_PER_LOGIT",
    "BaseMatchRater",
    "RatingState",
    "rating_state",
]

#: Elo points per natural-logit unit: 400 / ln(10), about 173.72.
ELO_UNITS_PER_LOGIT = 400.0 / math.log(10.0)

_DEFAULT_INITIAL = {"elo": 1500.0, "logit": 0.0}


def _log_sigmoid(z):
    """log(sigmoid(z)) computed without overflow."""
    return -np.logaddexp(0.0, -z)


def _forward_fill(values):
    """Replace NaN in each column by the last non-NaN value above it."""
    index = np.where(np.isnan(values), 0, np.arange(values.shape[0])[:, None])
    np.maximum.accumulate(index, axis=0, out=index)
    return np.take_along_axis(values, index, axis=0)


@dataclass(frozen=True)
class RatingState:
    """A fitted match rater's state and scale: what interval code reads.

    Handed out by :func:`rating_state` (declared as ``fitted_state`` in the
    estimator's interval plan), so resampling and covariance code never
    reads the estimator's private attributes.

    Attributes
    ----------
    ratings : ndarray of shape (n_players,)
        Natural-logit ratings relative to the initial rating.
    advantage : float
        First-player advantage on the natural-logit scale (fitted or given).
    fitted_advantage : bool
        Whether the advantage was estimated (``first_advantage="fit"``).
    coef : ndarray of shape (n_covariates,) or None
        Covariate coefficients (natural-logit scale), None without.
    tie : float or None
        The tie model's internal parameter, None without a tie model.
    tie_model : {"davidson", "rao-kupper"} or None
        None: a draw counts as half a win.
    initial : float
        Reported rating of the logit origin (``initial_rating``).
    units_per_logit : float
        Reported units per natural-logit unit (about 173.7 for Elo points).
    step : float
        Online update step on the natural-logit scale.
    played : ndarray of bool of shape (n_players,)
        Which players have a match of positive weight; the others have no
        data (their rating is the initial rating) and no interval.
    """

    ratings: np.ndarray
    advantage: float
    fitted_advantage: bool
    coef: np.ndarray | None
    tie: float | None
    tie_model: str | None
    initial: float
    units_per_logit: float
    step: float
    played: np.ndarray

    def to_reported(self, logit_ratings):
        """Natural-logit ratings on the estimator's reporting scale."""
        return self.initial + self.units_per_logit * logit_ratings


def rating_state(estimator):
    """The frozen :class:`RatingState` of a fitted EloRanker or MultiElo."""
    check_is_fitted(estimator)
    state = estimator._state
    return RatingState(
        ratings=state["ratings"],
        advantage=estimator._advantage_logit(),
        fitted_advantage=estimator.first_advantage == "fit",
        coef=state.get("coef"),
        tie=state.get("tie"),
        tie_model=estimator._tie_model,
        initial=estimator._initial(),
        units_per_logit=estimator._units_per_logit(),
        step=estimator._step_logit(),
        played=getattr(estimator, "_played", np.ones(state["ratings"].shape[0], bool)),
    )


class CheckedMatches(NamedTuple):
    """A training table parsed once: what ``_solve`` reads."""

    X: object
    table: object  # MatchTable: player columns and covariates
    matches: object  # MatchData
    players: np.ndarray
    first: np.ndarray
    second: np.ndarray


class BaseMatchRater(
    AgentRankerMixin, ClassifierMixin, FitTemplateMixin, BaseEstimator
):
    """Common fit / partial_fit / predict logic of the match-based raters.

    Subclasses implement ``_new_state``, ``_extend_state``, ``_run_online``,
    ``_run_batch``, ``_logits`` and ``_published``. The state is a dict of
    numpy arrays on the natural-logit scale; ``"ratings"`` is always present,
    ``"coef"`` when per-match covariates were fitted and ``"tie"`` with a tie
    model. The base holds both parts: ``X`` is parsed once per call into the
    player columns and covariates (``_parse``), and ``_tie_model`` (None: a
    draw counts as half a win) decides the outcome probabilities of every
    prediction.
    """

    #: Fitted tie model ("davidson", "rao-kupper"), None for two outcomes.
    _tie_model = None

    _parameter_constraints: dict = {
        "method": [StrOptions({"online", "batch"})],
        "k_factor": [Interval(Real, 0, None, closed="neither")],
        "initial_rating": [Interval(Real, None, None, closed="neither"), None],
        "scale": [StrOptions({"elo", "logit"})],
        "first_advantage": [Interval(Real, None, None, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "keep_history": ["boolean"],
    }

    # ----------------------------------------------------------------- scale
    def _units_per_logit(self):
        return ELO_UNITS_PER_LOGIT if self.scale == "elo" else 1.0

    def _initial(self):
        if self.initial_rating is None:
            return _DEFAULT_INITIAL[self.scale]
        return float(self.initial_rating)

    def _advantage_logit(self):
        return float(self.first_advantage) / self._units_per_logit()

    def _step_logit(self):
        """Online rating step on the natural-logit scale (K points -> K / 173.7)."""
        return float(self.k_factor) / ELO_UNITS_PER_LOGIT

    def _to_reported(self, logit_ratings):
        return self._initial() + self._units_per_logit() * logit_ratings

    # ------------------------------------------------------------ validation
    def _parse(self, X):
        """The one parse of ``X`` per call: player columns and covariates."""
        reject_dask_matches(self, X, "predict, score")
        return split_covariates(X)

    def _check_table(self, table, what):
        """Reject a parsed table the estimator cannot fit (hook)."""

    def _check_training_data(self, X, y, sample_weight, what="fit"):
        table = self._parse(X)
        self._check_table(table, what)
        return CheckedMatches(
            X, table, *check_and_encode_matches(table.players, y, sample_weight)
        )

    def _logits_for(self, X, table, matches):
        """``decision_function`` on a parsed table (``matches``: its checks)."""
        validate_data(self, X, reset=False, skip_check_array=True)
        logits = self._logits(
            lookup_players(matches.first, self.players_),
            lookup_players(matches.second, self.players_),
        )
        if table.covariates is not None:
            logits = logits + table.covariates @ self._state["coef"]
        return logits

    # ------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
        """Rate the players from a table of matches.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2)
            Labels of the first and second player of each match, in
            chronological order (the order matters for ``method="online"``
            only).
        y : array-like of shape (n_matches,)
            Outcome for the first player: 1 win, 0 loss, 0.5 draw.
        sample_weight : array-like of shape (n_matches,), default=None
            Non-negative match weights, not all zero. Online, a weight
            multiplies the update step; in batch, it multiplies the match's
            log-likelihood.

        Returns
        -------
        self : object
            The fitted estimator.

        Raises
        ------
        ValueError
            For malformed matches, or weights that are negative or sum to 0
            (no match would count).
        """
        reject_dask_matches(self, X, "fit")
        return super().fit(X, y, sample_weight=sample_weight)

    def _check_fit_data(self, X, y, sample_weight=None):
        return self._check_training_data(X, y, sample_weight)

    def _solve(self, checked):
        _, _, matches, players, first, second = checked
        n_players = players.shape[0]
        played = played_mask(first, second, matches.sample_weight, n_players)
        warn_unplayed(players, ~played, type(self).__name__)
        if self.method == "batch":
            state, n_iter = self._batch_state(matches, players, first, second, played)
            # A batch fit records no matches: trajectories start from it.
            history = np.empty((0, 2)) if self.keep_history else None
            first, second = first[:0], second[:0]
            origin = state["ratings"].copy()
        else:
            state = self._new_state(n_players)
            history = self._history_buffer(first.shape[0])
            origin = state["ratings"].copy()
            self._warn_large_steps(matches.sample_weight)
            self._run_online(
                state, first, second, matches.y, matches.sample_weight, history
            )
            _check_finite_state(state)
            n_iter = 1
        return self._fitted_state(
            checked.X, players, state, n_iter=n_iter,
            n_matches_seen=int(matches.y.shape[0]),
            history=self._recorded_history(None, history, first, second, origin),
            played=played,
        )

    def _batch_state(self, matches, players, first, second, played):
        """The batch fit's state; players without a match are left out of it."""
        # The batch loss is a weighted sum: dividing the weights and alpha
        # by the same constant keeps the minimiser, and unit-scale weights
        # keep the Newton/L-BFGS sums clear of overflow and underflow.
        weight_scale = _mean_positive(matches.sample_weight)
        alpha = float(self.alpha) / weight_scale
        weight, y = matches.sample_weight / weight_scale, matches.y
        n_players = players.shape[0]
        if played.all():
            present = None
        else:  # the unplayed players have no data: fit the others only
            if not played.any():
                return self._new_state(n_players), 0
            present, first, second, keep = played_subset(
                first, second, weight, played)
            weight, y, players = weight[keep], y[keep], players[present]
        stats = aggregate_pairs(
            first, second, y, weight, players.shape[0],
            ordered=self._advantage_logit() != 0.0,
        )
        state, n_iter = self._run_batch(
            self._new_state(players.shape[0]), stats, players, alpha, weight_scale)
        if present is not None:
            state = embed_state(state, present, n_players)
        return state, n_iter

    def _fitted_state(self, X, players, state, *, n_iter, n_matches_seen, history,
                      tie_model=None, played=None):
        """Every fitted attribute of a fit on ``X`` (assigned in one step)."""
        return {
            "_played": (np.ones(players.shape[0], dtype=bool) if played is None
                        else played),
            **input_attributes(X),
            "players_": players,
            "classes_": (np.array([0, 1]) if tie_model is None
                         else np.array([0.0, 0.5, 1.0])),
            "n_iter_": n_iter,
            "n_matches_seen_": n_matches_seen,
            "_state": state,
            "_tie_model": tie_model,
            "_history": history,
            **self._published(state),
        }

    def _warn_large_steps(self, sample_weight):
        """Warn when one weighted online update can move a rating absurdly far."""
        step = float(self.k_factor) / ELO_UNITS_PER_LOGIT * float(
            np.max(sample_weight, initial=0.0)
        )
        if step > _MAX_SENSIBLE_STEP:
            warnings.warn(
                f"One online update can move a rating by up to "
                f"{step * ELO_UNITS_PER_LOGIT:.3g} Elo points (k_factor times the "
                "largest sample_weight): single matches dominate the ratings. "
                "Rescale the weights or use method='batch'.",
                UserWarning,
                stacklevel=find_stack_level(),
            )

    def partial_fit(self, X, y, sample_weight=None):
        """Continue online rating from the fitted state with more matches.

        Runs the online updates (whatever ``method`` was used by ``fit``)
        over the new matches in order, starting from the current ratings.
        Players not seen before enter with ``initial_rating``. On an unfitted
        estimator this is ``fit`` with online updates.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2)
            The new matches, in chronological order.
        y : array-like of shape (n_matches,)
            Outcome for the first player: 1 win, 0 loss, 0.5 draw.
        sample_weight : array-like of shape (n_matches,), default=None
            Non-negative weights multiplying each update step, not all zero.

        Returns
        -------
        self : object
            The updated estimator.
        """
        self._validate_params()
        reject_dask_matches(self, X, "partial_fit")
        checked = self._check_partial_fit_data(X, y, sample_weight)
        return self._assign_fitted(self._solve_partial(checked))

    def _check_partial_fit_data(self, X, y, sample_weight):
        checked = self._check_training_data(X, y, sample_weight, "partial_fit")
        if hasattr(self, "players_"):
            validate_data(self, X, reset=False, skip_check_array=True)
        return checked

    def _solve_partial(self, checked):
        """Online updates from the fitted state (pure: returns the new one)."""
        X, _, matches, new_players, first, second = checked
        fitted = hasattr(self, "players_")
        if fitted:
            players, old_to_merged = _merge_players(self.players_, new_players)
            to_merged = lookup_players(new_players, players)
            first, second = to_merged[first], to_merged[second]
            state = self._extend_state(self._state, old_to_merged, players.shape[0])
        else:
            players = new_players
            state = self._new_state(players.shape[0])
        history = self._history_buffer(first.shape[0])
        origin = state["ratings"].copy()
        self._warn_large_steps(matches.sample_weight)
        self._run_online(
            state, first, second, matches.y, matches.sample_weight, history
        )
        _check_finite_state(state)
        played = played_mask(first, second, matches.sample_weight, players.shape[0])
        if not fitted:
            warn_unplayed(players, ~played, type(self).__name__)
            return self._fitted_state(
                X, players, state, n_iter=1, n_matches_seen=int(first.shape[0]),
                history=self._recorded_history(None, history, first, second, origin),
                played=played,
            )
        before = np.zeros(players.shape[0], dtype=bool)
        before[old_to_merged] = rating_state(self).played
        new = np.ones(players.shape[0], dtype=bool)
        new[old_to_merged] = False
        # warn about this call's new players only: the others were named before
        warn_unplayed(players, new & ~played, type(self).__name__)
        current = _remapped_history(
            getattr(self, "_history", None), old_to_merged, players.shape[0]
        )
        return {
            **self._fitted_attributes(),
            "players_": players,
            "n_matches_seen_": self.n_matches_seen_ + int(first.shape[0]),
            "_state": state,
            "_played": before | played,
            "_history": self._recorded_history(
                current, history, first, second, origin
            ),
            **self._published(state),
        }

    # --------------------------------------------------------------- history
    def _history_buffer(self, n_matches):
        if self.keep_history:
            return np.empty((n_matches, 2), dtype=np.float64)
        return _kernels.no_history()

    def _recorded_history(self, current, history, first, second, origin):
        """``current`` with post-match ratings (natural scale) and pairs appended.

        History is contiguous: a call with ``keep_history=False`` drops it,
        and recording restarts (from ``origin``, the ratings before the scan)
        at the next call that keeps it.
        """
        if not self.keep_history or history is None:
            return None
        pairs = np.column_stack([first, second]).astype(np.int64)
        if current is None:
            return {"values": history, "pairs": pairs, "origin": origin}
        return {
            "values": np.concatenate([current["values"], history]),
            "pairs": np.concatenate([current["pairs"], pairs]),
            "origin": current["origin"],
        }

    @property
    def history_(self):
        """Ratings of the two players after each online match, shape (n, 2).

        Reported on ``scale``; only available when ``keep_history=True``
        (``None`` otherwise). Row t holds the first and the second player's
        rating right after match t (over all ``fit``/``partial_fit`` calls
        since the last ``fit``; a batch ``fit`` records no matches).
        """
        check_is_fitted(self)
        current = getattr(self, "_history", None)
        if current is None:
            return None
        return self._to_reported(current["values"])

    def rating_history(self, players=None):
        """Rating trajectories over the recorded matches.

        Parameters
        ----------
        players : array-like of labels, default=None
            Players whose trajectories to return; all of ``players_`` when
            None (memory grows as n_matches x n_players).

        Returns
        -------
        trajectories : ndarray of shape (n_recorded_matches + 1, n_selected)
            Row 0 holds the ratings before the first recorded match, row t the
            ratings after match t (a player's rating stays constant between
            its matches). Reported on ``scale``.

        Raises
        ------
        ValueError
            If history was not kept (``keep_history=False``) or a label is
            unknown.
        """
        check_is_fitted(self)
        current = getattr(self, "_history", None)
        if current is None:
            raise ValueError(
                "No rating history was recorded; fit with keep_history=True."
            )
        selected = self.players_ if players is None else np.asarray(players)
        if selected.ndim == 0:
            selected = selected.reshape(1)
        columns = lookup_players(selected, self.players_)
        if (columns < 0).any():
            bad = selected[int(np.argmax(columns < 0))]
            raise ValueError(f"Unknown player {bad!r}; it is not in players_.")
        n_steps = current["values"].shape[0]
        column_of = np.full(self.players_.shape[0], -1, dtype=np.int64)
        column_of[columns] = np.arange(columns.shape[0])
        out = np.full((n_steps + 1, columns.shape[0]), np.nan)
        out[0] = current["origin"][columns]
        for side in (0, 1):
            col = column_of[current["pairs"][:, side]]
            rows = np.flatnonzero(col >= 0)
            out[rows + 1, col[rows]] = current["values"][rows, side]
        return self._to_reported(_forward_fill(out))

    # ------------------------------------------------------------ prediction
    def decision_function(self, X):
        """First player's advantage on the natural-logit scale.

        ``d = r_first - r_second + h + x . beta``: the logit of the first
        player winning (without a tie model), and the strength difference
        every tie model builds on (``x . beta``: per-match covariates, fitted
        by ``EloRanker(method="batch")``). Players unseen during fitting get
        ``initial_rating`` (and, for MultiElo, a zero vector, i.e. no cyclic
        interaction).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
            Pairs of player labels, then the covariates seen in ``fit``.

        Returns
        -------
        logits : ndarray of shape (n_matches,)
        """
        check_is_fitted(self)
        table = self._parse(X)
        matches = check_matches(table.players, require_y=False)
        return self._logits_for(X, table, matches)

    def _outcome_proba(self, logits):
        """Outcome probabilities, in the order of ``classes_``."""
        if self._tie_model is not None:
            return outcome_probabilities(self._tie_model, logits, self._state["tie"])
        proba = np.empty((logits.shape[0], 2))
        proba[:, 1] = 0.5 * (1.0 + np.tanh(0.5 * logits))
        proba[:, 0] = 0.5 * (1.0 - np.tanh(0.5 * logits))
        return proba

    def _expected_score(self, logits):
        """The first player's expected score (its win probability without ties)."""
        if self._tie_model is not None:
            return expected_score(self._tie_model, logits, self._state["tie"])
        return 0.5 * (1.0 + np.tanh(0.5 * logits))

    def predict_proba(self, X):
        """Probability of each outcome of a match.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
            Pairs of player labels (unseen players get ``initial_rating``),
            then the covariates.

        Returns
        -------
        proba : ndarray of shape (n_matches, 2) or (n_matches, 3)
            Columns in the order of ``classes_``: without a tie model
            (``classes_ = [0, 1]``), the second player wins, the first player
            wins; with one, the second player wins, tie, the first player
            wins.
        """
        return self._outcome_proba(self.decision_function(X))

    def win_probabilities(self, players=None):
        """Predicted win-probability matrix among players (covariates at zero).

        With a tie model the entries are expected scores,
        ``P(win) + P(tie) / 2``, so that ``P[i, j] + P[j, i] = 1`` (a
        win-rate game for :class:`~sklearn_eval.game.NashAverager`).

        Parameters
        ----------
        players : array-like of labels, default=None
            The players, in the order wanted; ``players_`` when None. Unseen
            labels get ``initial_rating``.

        Returns
        -------
        P : ndarray of shape (n_selected, n_selected)
            ``P[i, j]`` = probability that player i beats player j (as the
            first-listed player); 0.5 on the diagonal.
        """
        check_is_fitted(self)
        selected = self.players_ if players is None else np.asarray(players)
        index = lookup_players(selected, self.players_)
        n = index.shape[0]
        logits = self._logits(np.repeat(index, n), np.tile(index, n)).reshape(n, n)
        P = self._expected_score(logits)
        np.fill_diagonal(P, 0.5)
        return P

    def predict(self, X):
        """Most likely outcome (a value of ``classes_``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
            Pairs of player labels, then the covariates.

        Returns
        -------
        y_pred : ndarray of shape (n_matches,)
            Without a tie model 1 if the first player is favoured, else 0
            (int); with one, the most probable of 0, 0.5 and 1.
        """
        if self._tie_model is None:
            return (self.decision_function(X) > 0).astype(np.int64)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def score(self, X, y, sample_weight=None):
        """Mean log-likelihood per match (higher is better).

        Without a tie model, draws count as half a win:
        ``mean(y log p + (1 - y) log(1 - p))``, with p the predicted
        probability that the first player wins, which equals
        ``-sklearn_eval.metrics.match_log_loss(y, p)``. With a tie model it
        is the three-outcome log-likelihood of the observed outcome,
        ``-sklearn_eval.metrics.three_outcome_log_loss(y, predict_proba(X))``
        (probabilities clipped at machine epsilon). Weighted by
        ``sample_weight``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
            Pairs of player labels, then the covariates.
        y : array-like of shape (n_matches,)
            Outcome for the first player: 1 win, 0 loss, 0.5 draw.
        sample_weight : array-like of shape (n_matches,), default=None
            Non-negative weights.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        table = self._parse(X)
        matches = check_matches(table.players, y, sample_weight, require_y=True)
        logits = self._logits_for(X, table, matches)
        if self._tie_model is not None:
            return self._tie_score(matches, logits)
        loglik = matches.y * _log_sigmoid(logits) + (1.0 - matches.y) * _log_sigmoid(
            -logits
        )
        total = matches.sample_weight.sum()
        if total <= 0:
            raise ValueError("sample_weight sums to zero; the score is undefined.")
        return float(matches.sample_weight @ loglik / total)

    def _tie_score(self, matches, logits):
        """Mean three-outcome log-likelihood (with a tie model)."""
        if matches.sample_weight.sum() <= 0:
            raise ValueError("sample_weight sums to zero; the score is undefined.")
        return -three_outcome_log_loss(
            matches.y, self._outcome_proba(logits), sample_weight=matches.sample_weight
        )

    # -------------------------------------------------------------- protocol
    @property
    def agents_(self):
        """Player labels (the ranking protocol's name for ``players_``)."""
        check_is_fitted(self)
        return self.players_

    @property
    def agent_scores_(self):
        """What the ranking is by (higher is better): ``ratings_``."""
        check_is_fitted(self)
        return self.ratings_

    def rating_table(self):
        """Deprecated alias of :meth:`agent_table` (removed in 0.3).

        Returns
        -------
        table : pandas.DataFrame
        """
        deprecated_alias("rating_table()", "agent_table()")
        return self.agent_table()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.target_tags.required = True
        return tags


def _mean_positive(weights):
    """Mean of the positive weights (1.0 when there is none)."""
    positive = weights[weights > 0]
    if positive.shape[0] == 0:
        return 1.0
    # max-first: the mean of huge weights must not overflow in the sum
    top = float(positive.max())
    return top * float(np.mean(positive / top))


class RatingDivergenceError(ValueError, FloatingPointError):
    """Online updates overflowed for these settings and data.

    A ``ValueError`` (the settings do not suit the data: lower ``k_factor`` or
    the weights) that is also a ``FloatingPointError``.
    """


# A single online update larger than this many logits (about 1,700 Elo
# points) means one match can overturn everything seen before it.
_MAX_SENSIBLE_STEP = 10.0


def _check_finite_state(state):
    """Raise if online updates overflowed (the fitted state stays untouched)."""
    for name, values in state.items():
        if not isinstance(values, np.ndarray):
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.isfinite(values * ELO_UNITS_PER_LOGIT).all()
        if not finite:
            raise RatingDivergenceError(
                f"The online updates diverged: the {name} became infinite or NaN. "
                "Lower k_factor (or lr_vectors for MultiElo) or the sample weights."
            )


def _remapped_history(current, old_to_merged, n_players):
    """A recorded history with the players renumbered after a merge."""
    if current is None:
        return None
    origin = np.zeros(n_players)
    origin[old_to_merged] = current["origin"]
    return {
        "values": current["values"],
        "pairs": old_to_merged[current["pairs"]],
        "origin": origin,
    }


def _merge_players(old, new):
    """Sorted union of fitted and new labels, and where the old ones moved."""
    unseen = lookup_players(new, old) < 0
    if not unseen.any():
        return old, np.arange(old.shape[0])
    extra = new[unseen]
    if old.dtype.kind != extra.dtype.kind:
        # Never let numpy turn 1 into "1": mixed kinds are compared as objects.
        old, extra = old.astype(object), extra.astype(object)
    combined = np.concatenate([old, extra])
    merged, codes, _ = encode_players(combined, combined[:0])
    return merged, codes[: old.shape[0]]
