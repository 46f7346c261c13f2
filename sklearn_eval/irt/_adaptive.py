"""Computerised adaptive testing on a calibrated item response model.

:class:`AdaptiveTester` gives each model the item that is most informative at
its current ability estimate (the posterior mean on the calibration's grid,
EAP), updates the posterior with the response, and stops at a target
posterior standard deviation or after ``max_items`` items. After every step
it also estimates the model's accuracy on the whole benchmark: the responses
seen so far plus every other item's success probability averaged over the
ability posterior.

All models of a simulation advance together: one step is a handful of
(n_models x n_nodes) and (n_models x n_items) array operations.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..base import FitTemplateMixin
from ..utils import check_binary_values, check_result_matrix
from ..utils._logistic import four_pl_information
from ..utils._sklearn_compat import HasMethods, Interval
from ..utils._validation import accuracy_truth
from ._calibration import CALIBRATION_ATTRIBUTES, calibrate_irt
from ._curves_scored import is_scored

__all__ = ["AdaptiveTester"]

_FLOOR = 1e-12
# Gain of an uncalibrated item: below any calibrated one, above "not available".
_UNINFORMATIVE = -np.finfo(np.float64).max


def _check_irt_kind(irt):
    """Refuse, before any fitting, an ``irt`` that is no item response model."""
    if irt is None or callable(getattr(irt, "icc", None)):
        return
    raise TypeError(
        "irt must be an item response model: an IRT2PL (fitted or not) or a "
        f"FrozenEstimator of one; got {type(irt).__name__}, which has no icc "
        "method (item characteristic curves)."
    )
def _is_fitted(model):
    try:
        check_is_fitted(model, "difficulty_")
    except Exception:  # NotFittedError, or not an estimator at all
        return False
    return True


class AdaptiveTester(FitTemplateMixin, BaseEstimator):
    """Adaptive testing: the most informative item next, one model at a time.

    Calibrate (or take) an item response model, then test each model
    adaptively: start at the prior ability 0, give the item of maximum
    Fisher information at the current ability estimate (EAP), update the
    ability posterior with the response, and stop when its standard
    deviation reaches ``se_target`` or after ``max_items`` items. Use
    :meth:`next_item` live (the caller runs the model on the item and
    passes the responses back) or :meth:`simulate` to replay models whose
    responses to all items are known.

    Read more in the :ref:`User Guide <efficient_evaluation>`.

    Parameters
    ----------
    irt : IRT2PL, IRT, FrozenEstimator or None, default=None
        Item response model: any binary model (:class:`IRT2PL`, or
        :class:`IRT` with ``model`` in 1PL-4PL: the items' information then
        includes their asymptotes, and a multiple-choice benchmark's guessing
        floor no longer makes hard items look informative at low ability);
        graded (GRM, GPCM) and continuous (beta, logit-normal) models make
        the estimate a mean item score on [0, 1] (see the User Guide,
        :ref:`efficient_evaluation_scored`); models with ``n_factors > 1``
        are refused. None calibrates
        ``IRT2PL(model="1PL")`` on the
        ``X`` given to :meth:`fit` (one shared discrimination: on fine-tunes
        of one base model, free discriminations over-fit the items that
        nearly separate them and the expected accuracy drifts from the
        observed one). An ``IRT2PL`` or ``IRT`` is cloned and fitted on ``X``; a
        fitted one (or ``sklearn.frozen.FrozenEstimator(fitted)``) is used as
        it is when :meth:`fit` gets no ``X``.
    max_items : int, default=50
        Largest number of items per model.
    se_target : float or None, default=None
        Stop a model's test once the posterior standard deviation of its
        ability is at most this value. None: always ``max_items`` items.
    randomesque : int, default=1
        Exposure control (Kingsbury and Zara 1989): the next item is drawn
        uniformly among the ``randomesque`` most informative ones (1: the
        most informative). Larger values spread the item exposure over more
        items at a small cost in precision.
    random_state : int, RandomState instance or None, default=None
        Seeds the randomesque draws: :meth:`simulate` and :meth:`predict`
        start from it at every call (reproducible), :meth:`next_item`
        advances a generator seeded in :meth:`fit`.

    Attributes
    ----------
    irt_ : IRT2PL or IRT
        The calibrated item response model.
    item_information_ : ndarray of shape (n_features,)
        Fisher information of every item averaged over the ability prior.
    tasks_ : ndarray of shape (n_features,)
        Item labels (column names, else column indices).
    n_features_in_ : int
        Number of items.
    feature_names_in_ : ndarray of str
        Item names, when known.

    See Also
    --------
    sklearn_eval.selection.SubsetScoreEstimator : one fixed subset of items
        for every model.

    References
    ----------
    H. Wainer (ed.), "Computerized Adaptive Testing: A Primer", 2000. G. G.
    Kingsbury and A. R. Zara, "Procedures for selecting items for
    computerized adaptive tests", Applied Measurement in Education, 1989.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.irt import AdaptiveTester
    >>> X = make_irt_responses(400, 120, random_state=0)
    >>> tester = AdaptiveTester(max_items=20, random_state=0).fit(X[:300])
    >>> log = tester.simulate(X[300:])
    >>> list(log.columns)
    ['agent', 'step', 'item', 'response', 'ability', 'se', 'accuracy']
    >>> int(log["step"].max())
    20
    >>> first = tester.next_item(np.full(120, np.nan))  # the first item to give
    >>> 0 <= first < 120
    True
    """

    _parameter_constraints: dict = {
        "irt": [HasMethods(["fit"]), None],
        "max_items": [Interval(Integral, 1, None, closed="left")],
        "se_target": [Interval(Real, 0, None, closed="neither"), None],
        "randomesque": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, irt=None, *, max_items=50, se_target=None, randomesque=1,
                 random_state=None):
        self.irt = irt
        self.max_items = max_items
        self.se_target = se_target
        self.randomesque = randomesque
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = False
        return tags

    _prefer_skip_nested_validation = False

    def fit(self, X=None, y=None):
        """Calibrate the item response model (or take the given one).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_items) or None
            0/1 responses of a calibration population (NaN = not run);
            category codes or scores in [0, 1] for a graded or continuous
            ``irt``.
            None uses ``irt`` as it is; it must then be fitted.
        y : None
            Ignored.

        Returns
        -------
        self : AdaptiveTester
            The fitted tester.
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        _check_irt_kind(self.irt)
        if X is None:
            if self.irt is None or not _is_fitted(self.irt):
                raise ValueError(
                    "fit() without X needs a fitted irt; pass the calibration "
                    "responses X or a fitted IRT2PL."
                )
            return None, None, None
        checked = check_result_matrix(X, allow_nan=True)
        if is_scored(self.irt):  # the model's own fit checks its categories
            return X, checked, checked.values
        return X, checked, check_binary_values(checked.values)

    def _solve(self, inputs):
        X, checked, values = inputs
        if X is None:
            irt, rate, names = self.irt, None, None
        else:
            irt = calibrate_irt(self.irt, X)
            if is_scored(irt):
                values = irt.item_scores(None, values)
            with np.errstate(invalid="ignore", divide="ignore"):
                rate = np.nansum(values, axis=0) / np.sum(~np.isnan(values), axis=0)
            names = checked.tasks
        missing = [name for name in CALIBRATION_ATTRIBUTES if not hasattr(irt, name)]
        if missing:
            raise TypeError(
                f"irt must be an IRT2PL (or a FrozenEstimator of one); "
                f"{type(irt).__name__} lacks {missing}."
            )
        nodes = np.asarray(irt.quadrature_nodes_, dtype=np.float64)
        scored = is_scored(irt)
        score = _node_probabilities(irt, nodes, rate, "expected_score")
        probability = score if scored else _node_probabilities(irt, nodes, rate)
        a = np.nan_to_num(np.asarray(irt.discrimination_, dtype=np.float64))
        b = np.nan_to_num(np.asarray(irt.difficulty_, dtype=np.float64))
        g, u = (None, None) if scored else _asymptotes(irt, a.size)
        weights = np.asarray(irt.quadrature_weights_, dtype=np.float64)
        if scored:
            info = weights @ irt.item_information(nodes)
        elif g is None:
            info = (weights @ (probability * (1.0 - probability))) * a * a
        else:
            info = weights @ _information(a, b, g, u, nodes)

        fitted = {
            "irt_": irt,
            "item_information_": info,
            "n_features_in_": probability.shape[1],
        }
        if names is None:
            names = getattr(irt, "feature_names_in_", None)
        if names is not None and all(isinstance(t, str) for t in names):
            fitted["feature_names_in_"] = np.asarray(names, dtype=object)
        fitted["tasks_"] = (np.asarray(names, dtype=object) if names is not None
                            else np.arange(probability.shape[1]))
        calibrated = a != 0
        fitted.update(
            _a=a,
            _b=b,
            _g=g,
            _u=u,
            _common_a=bool(not scored and g is None and calibrated.any()
                           and np.ptp(a[calibrated]) == 0),
            _scored=scored,
            _nodes=nodes,
            _log_prior=np.log(weights),
            _P=(probability if scored
                else np.clip(probability, _FLOOR, 1.0 - _FLOOR)),
            _P_total=score.sum(axis=1),
            _rng=check_random_state(self.random_state),
        )
        return fitted

    # ------------------------------------------------------------ live use
    def next_item(self, responses):
        """The item to give next, given the responses so far.

        Parameters
        ----------
        responses : array-like of shape (n_features,) or (n_models, \
n_features)
            0/1 for the items already given, NaN for the others.

        Returns
        -------
        int or None, or ndarray of int
            For one model, the column index of the next item, or None when
            the test is over (``max_items`` given, ``se_target`` reached, or
            no item left). For several models, an array with -1 where the
            test is over. Each call advances the tester's random generator
            (randomesque draws).
        """
        check_is_fitted(self, "irt_")
        single = np.ndim(responses) == 1
        values = self._check_responses(np.atleast_2d(responses))
        state = self._state(values)
        available = np.isnan(values)
        done = self._stopped(state, available)
        items = self._choose(state["ability"], available, self._rng)
        items[done] = -1
        if single:
            return None if items[0] < 0 else int(items[0])
        return items

    def estimate(self, responses):
        """Ability, its posterior sd and the full-benchmark accuracy so far.

        Parameters
        ----------
        responses : array-like of shape (n_models, n_features)
            0/1 for the items given, NaN for the others.

        Returns
        -------
        ability, se, accuracy : ndarray of shape (n_models,)
        """
        check_is_fitted(self, "irt_")
        values = self._check_responses(np.atleast_2d(responses))
        state = self._state(values)
        return state["ability"], state["se"], state["accuracy"]

    # --------------------------------------------------------- simulation
    def simulate(self, X):
        """Replay adaptive tests of models whose responses are known.

        Each model (row) is tested independently; an item it has no response
        to (NaN) is never given to it.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_features)
            0/1 responses to all items (NaN = unknown).

        Returns
        -------
        pandas.DataFrame
            One row per (model, step): ``agent`` (row position), ``step``
            (1-based), ``item`` (column position), ``response``, and after
            that response ``ability`` (EAP), ``se`` (posterior sd) and
            ``accuracy`` (estimated full-benchmark accuracy).
        """

        log, _ = self._run(X)
        return pd.DataFrame(log)

    def predict(self, X):
        """Full-benchmark accuracy of each model after its adaptive test.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_features)
            0/1 responses to all items (NaN = unknown), replayed as in
            :meth:`simulate`.

        Returns
        -------
        ndarray of shape (n_models,)
        """
        _, final = self._run(X)
        return final

    def score(self, X, y=None):
        """Minus the mean absolute error of :meth:`predict`.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_features)
            Full responses; the truth is each row's observed mean.
        y : array-like of shape (n_models,), default=None
            True accuracies, if known otherwise.

        Returns
        -------
        float
        """
        truth = self._check_truth(X, y)
        prediction = self.predict(X)
        return -float(np.mean(np.abs(prediction - truth)))

    def _check_truth(self, X, y):
        """The true accuracies (mean scores) for :meth:`score`."""
        values = self._validate_X(X)
        if self._scored:
            values = self.irt_.item_scores(None, values)
        return accuracy_truth(values, y)

    def task_table(self):
        """Item parameters and information as a DataFrame indexed by item.

        Returns
        -------
        pandas.DataFrame
            Index ``task``; columns ``discrimination``, ``difficulty``
            (``guessing`` and ``upper`` for a calibration with asymptotes)
            and ``information`` (averaged over the ability prior).
        """

        check_is_fitted(self, "irt_")
        columns = {
            "discrimination": np.asarray(self.irt_.discrimination_, dtype=float),
            "difficulty": np.asarray(self.irt_.difficulty_, dtype=float),
        }
        if self._g is not None:
            columns.update(guessing=self._g, upper=self._u)
        columns["information"] = self.item_information_
        return pd.DataFrame(columns, index=pd.Index(self.tasks_, name="task"))

    # ------------------------------------------------------------ internals
    def _check_responses(self, values):
        checked = check_result_matrix(values, allow_nan=True, name="responses")
        values = checked.values
        if not self._scored:
            values = check_binary_values(values, name="responses")
        if values.shape[1] != self.n_features_in_:
            raise ValueError(
                f"responses have {values.shape[1]} items; the tester has "
                f"{self.n_features_in_}."
            )
        if self._scored:
            self.irt_.item_scores(None, values)  # a clear error for a bad one
        return values

    def _validate_X(self, X):
        check_is_fitted(self, "irt_")
        checked = check_result_matrix(X, allow_nan=True)
        values = checked.values
        if not self._scored:
            values = check_binary_values(values)
        if values.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {values.shape[1]} columns; the tester has "
                f"{self.n_features_in_} items."
            )
        if self._scored:
            self.irt_.item_scores(None, values)  # a clear error for a bad one
        names = getattr(self, "feature_names_in_", None)
        if checked.tasks is not None and names is not None and not np.array_equal(
                np.asarray(checked.tasks, dtype=object), names):
            raise ValueError("X's column names differ from the items seen in fit.")
        return values

    def _state(self, values):
        """Posterior summaries of models with the given responses."""
        observed = ~np.isnan(values)
        if self._scored:
            log_post = (self.irt_.response_log_likelihood(self._nodes, None, values)
                        + self._log_prior)
            values = self.irt_.item_scores(None, values)
        Y = np.where(observed, values, 0.0)
        if not self._scored:
            log_post = (Y @ np.log(self._P).T + (observed - Y)
                        @ np.log1p(-self._P).T + self._log_prior)
        post = _softmax(log_post)
        ability = post @ self._nodes
        se = np.sqrt(np.maximum(post @ self._nodes**2 - ability**2, 0.0))
        unseen = post @ self._P_total - np.einsum("ik,ik->i", post,
                                                  observed @ self._P.T)
        accuracy = (Y.sum(axis=1) + unseen) / self.n_features_in_
        return {"ability": ability, "se": se, "accuracy": accuracy,
                "n_given": observed.sum(axis=1)}

    def _stopped(self, state, available):
        done = (state["n_given"] >= self.max_items) | ~available.any(axis=1)
        if self.se_target is not None:
            done |= (state["se"] <= self.se_target) & (state["n_given"] > 0)
        return done

    def _choose(self, ability, available, rng):
        """Most informative available item (randomesque among the top k).

        With one discrimination shared by all items (1PL, Rasch) the
        information ``a^2 P (1 - P)`` decreases with ``|theta - b|``, so the
        nearest difficulty is the most informative item: the same choice
        without evaluating any logistic function.
        """
        if self._common_a:
            gain = -np.abs(ability[:, None] - self._b)
            gain[:, self._a == 0] = _UNINFORMATIVE
        elif self._scored:
            gain = self.irt_.item_information(ability)
        elif self._g is not None:
            gain = _information(self._a, self._b, self._g, self._u, ability)
        else:
            P = expit(self._a * (ability[:, None] - self._b))
            gain = self._a * self._a * P * (1.0 - P)
        np.putmask(gain, ~available, -np.inf)
        k = min(self.randomesque, gain.shape[1])
        if k == 1:
            return np.argmax(gain, axis=1)
        top = np.argpartition(-gain, k - 1, axis=1)[:, :k]
        top_gain = np.take_along_axis(gain, top, axis=1)
        n_ok = np.maximum((top_gain > -np.inf).sum(axis=1), 1)
        # available candidates first, then a uniform draw among them
        top = np.take_along_axis(top, np.argsort(top_gain == -np.inf, axis=1,
                                                 kind="stable"), axis=1)
        pick = np.floor(rng.random_sample(ability.shape[0]) * n_ok).astype(np.intp)
        return top[np.arange(top.shape[0]), pick]

    def _run(self, X):
        """Vectorised replay of every model's test.

        Returns the log (a dict of columns) and every model's final accuracy
        estimate (the prior's for a model with no response at all).
        """
        values = self._validate_X(X)
        n_models = values.shape[0]
        rng = check_random_state(self.random_state)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_P, log_Q = np.log(self._P), np.log1p(-self._P)
        log_post = np.tile(self._log_prior, (n_models, 1))
        available = ~np.isnan(values)
        given_sum = np.zeros((n_models, self._nodes.size))
        seen = np.zeros(n_models)
        n_given = np.zeros(n_models, dtype=np.int64)
        ability = np.zeros(n_models)
        se = np.ones(n_models)
        active = np.arange(n_models)
        rows = {key: [] for key in ("agent", "step", "item", "response",
                                    "ability", "se", "accuracy")}
        prior = _softmax(self._log_prior[None, :])[0]
        final = np.full(n_models, float(prior @ self._P_total) / self.n_features_in_)
        for step in range(1, self.max_items + 1):
            keep = available[active].any(axis=1)
            if self.se_target is not None and step > 1:
                keep &= se[active] > self.se_target
            active = active[keep]
            if active.size == 0:
                break
            items = self._choose(ability[active], available[active], rng)
            response = values[active, items]
            available[active, items] = False
            if self._scored:
                log_post[active] += self.irt_.response_log_likelihood(
                    self._nodes, items, response)
                seen[active] += self.irt_.item_scores(items, response)
            else:
                log_post[active] += np.where(response[:, None] == 1.0,
                                             log_P[:, items].T, log_Q[:, items].T)
                seen[active] += response
            given_sum[active] += self._P[:, items].T
            n_given[active] += 1
            post = _softmax(log_post[active])
            ability[active] = post @ self._nodes
            se[active] = np.sqrt(np.maximum(post @ self._nodes**2
                                            - ability[active] ** 2, 0.0))
            unseen = post @ self._P_total - np.einsum("ik,ik->i", post,
                                                      given_sum[active])
            accuracy = (seen[active] + unseen) / self.n_features_in_
            final[active] = accuracy
            for key, value in (("agent", active), ("step", np.full(active.size, step)),
                               ("item", items), ("response", response),
                               ("ability", ability[active]), ("se", se[active]),
                               ("accuracy", accuracy)):
                rows[key].append(value)
        log = {key: (np.concatenate(parts) if parts else np.empty(0))
               for key, parts in rows.items()}
        for key in ("agent", "step", "item"):
            log[key] = log[key].astype(np.int64)
        return log, final


def _softmax(log_weights):
    shifted = log_weights - log_weights.max(axis=1, keepdims=True)
    weights = np.exp(shifted)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def _asymptotes(irt, n_items):
    """Lower and upper asymptotes of a calibration with guessing (3PL, 4PL).

    ``(None, None)`` when every item has ``g = 0`` and ``u = 1`` (1PL,
    2PL): the information is then ``a^2 P (1 - P)``.
    """
    g = np.asarray(getattr(irt, "guessing_", np.zeros(n_items)), dtype=np.float64)
    u = np.asarray(getattr(irt, "upper_", np.ones(n_items)), dtype=np.float64)
    g, u = np.nan_to_num(g, nan=0.0), np.nan_to_num(u, nan=1.0)
    if np.all(g == 0.0) and np.all(u == 1.0):
        return None, None
    return g, u


def _information(a, b, g, u, theta):
    """Fisher information ``P'^2 / (P (1 - P))`` of 4PL items at ``theta``."""
    return four_pl_information(a, a * (theta[:, None] - b), g, u)


def _node_probabilities(irt, nodes, rate, method="icc"):
    """(n_nodes, n_items) success probabilities; rates for uncalibrated items.

    ``method="expected_score"`` reads the model's expected score per item
    (its success probability for a binary item; :meth:`icc` when the model
    has no such method).
    """
    curve = getattr(irt, method, None) or irt.icc
    probability = np.asarray(curve(nodes), dtype=np.float64)
    missing = np.isnan(probability).any(axis=0)
    if missing.any():
        if rate is None or np.isnan(rate[missing]).any():
            item = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"Item {item} has no calibration and no known success rate; fit "
                "with the calibration responses X."
            )
        probability[:, missing] = rate[missing]
    return probability
