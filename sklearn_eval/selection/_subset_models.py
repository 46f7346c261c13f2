"""How :class:`SubsetScoreEstimator` turns responses on a few items into an accuracy.

An :class:`ItemBank` holds the calibrated success probability of every item of
the benchmark at every node of an ability grid. Given the responses of some
models on the chosen items it computes, in a few matrix products:

- the ability posterior of each model on the grid (prior N(0, 1)), its mean
  (EAP ability) and the expected full-benchmark accuracy: observed responses
  count as they are, every other item by its posterior expected success
  (tinyBenchmarks' p-IRT);
- the weighted mean of the observed responses (the "mean" estimator);
- the responses with the missing ones replaced by their posterior expected
  success (regression features).

The estimators built on these features are small fitted objects
(:class:`FittedEstimate`): "mean", "irt", "gp-irt" (a convex blend of the two,
its weight fitted by least squares on the training population) and
"regression" (a regressor of the residual of the IRT estimate on the chosen
responses and the ability, so that with few training models a strongly
regularised regressor falls back to the IRT estimate rather than to a
constant).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.linear_model import RidgeCV

from ..utils._logistic import four_pl_information

__all__ = ["ESTIMATORS", "FittedEstimate", "ItemBank", "conformal_halfwidth",
           "is_scored"]

ESTIMATORS = ("mean", "irt", "gp-irt", "regression")
_PROBABILITY_FLOOR = 1e-12


# item response models whose responses are category codes or scores in [0, 1]
# (the calibration checks them); the others take 0/1 responses
_SCORED_MODELS = ("GRM", "GPCM", "beta", "logit-normal")


def is_scored(irt):
    """Whether ``irt`` is a graded or continuous IRT (item scores on [0, 1])."""
    return getattr(irt, "model", None) in _SCORED_MODELS


def default_regressor():
    """Ridge with its penalty chosen by efficient leave-one-out (GCV)."""
    return RidgeCV(alphas=np.logspace(-3, 5, 17))


class ItemBank:
    """Success probabilities of all items on an ability grid.

    Parameters
    ----------
    discrimination, difficulty : ndarray of shape (n_items,)
        2PL item parameters; NaN for items without a calibration (left out
        of the IRT fit because every training model answered them alike).
    success_rate : ndarray of shape (n_items,)
        Training success rate, the probability used for uncalibrated items.
    nodes, weights : ndarray of shape (n_nodes,)
        Ability grid and prior weights (summing to one).
    guessing, upper : ndarray of shape (n_items,) or None, default=None
        Lower and upper asymptotes of 3PL/4PL items
        (``P = g + (u - g) / (1 + exp(-a (theta - b)))``); None: 0 and 1.
    scored : IRT or None, default=None
        A fitted graded or continuous :class:`~sklearn_eval.irt.IRT`: the
        table is then its expected item score (on [0, 1]), the posterior its
        response likelihood, the information its own; ``success_rate`` is the
        mean item score.
    """

    def __init__(self, discrimination, difficulty, success_rate, nodes, weights,
                 guessing=None, upper=None, scored=None):
        self.scored = scored
        self.discrimination = np.asarray(discrimination, dtype=np.float64)
        self.difficulty = np.asarray(difficulty, dtype=np.float64)
        self.success_rate = np.asarray(success_rate, dtype=np.float64)
        self.nodes = np.asarray(nodes, dtype=np.float64)
        self.log_prior = np.log(np.asarray(weights, dtype=np.float64))
        self.guessing = (None if guessing is None else
                         np.nan_to_num(np.asarray(guessing, dtype=np.float64)))
        self.upper = (None if upper is None else
                      np.nan_to_num(np.asarray(upper, dtype=np.float64), nan=1.0))
        if (self.guessing is not None and self.upper is not None
                and np.all(self.guessing == 0.0) and np.all(self.upper == 1.0)):
            self.guessing = self.upper = None  # a 2PL: the 2PL's formulas
        calibrated = np.isfinite(self.discrimination) & np.isfinite(self.difficulty)
        self.probability = np.where(calibrated, self._curve(self.nodes),
                                    self.success_rate)  # (K, J)
        if scored is None:
            self.variance = self.probability * (1.0 - self.probability)
        else:
            self.variance = np.where(calibrated, self._curve(self.nodes, True)[1],
                                     0.0)

    def _parameters(self):
        calibrated = np.isfinite(self.discrimination) & np.isfinite(self.difficulty)
        a = np.where(calibrated, self.discrimination, 0.0)
        b = np.where(calibrated, self.difficulty, 0.0)
        g = 0.0 if self.guessing is None else self.guessing
        u = 1.0 if self.upper is None else self.upper
        return a, b, g, u

    def _curve(self, theta, variance=False):
        if self.scored is not None:
            return self.scored.expected_score(np.asarray(theta),
                                              return_variance=variance)
        a, b, g, u = self._parameters()
        s = expit(a * (np.asarray(theta)[:, None] - b))
        return s if self.guessing is None and self.upper is None else g + (u - g) * s

    @property
    def n_items(self):
        return self.probability.shape[1]

    def information(self, theta):
        """Fisher information of every item at abilities ``theta``.

        ``a^2 P (1 - P)`` for 2PL items, ``P'^2 / (P (1 - P))`` with
        asymptotes.
        """
        if self.scored is not None:
            return self.scored.item_information(np.asarray(theta))
        a, b, g, u = self._parameters()
        z = a * (np.asarray(theta)[:, None] - b)
        if self.guessing is None and self.upper is None:
            s = expit(z)
            return a * a * s * (1.0 - s)
        return four_pl_information(a, z, g, u)

    def embedding(self, theta, n_points=21):
        """Items' success probabilities at quantiles of the abilities ``theta``."""
        levels = np.quantile(theta, np.linspace(0.025, 0.975, n_points))
        calibrated = np.isfinite(self.discrimination) & np.isfinite(self.difficulty)
        return np.where(calibrated, self._curve(levels), self.success_rate).T

    def subset(self, items):
        """A :class:`SubsetFeatures` computer for the chosen ``items``."""
        return SubsetFeatures(self, np.asarray(items, dtype=np.intp))


class SubsetFeatures:
    """Features of responses on a fixed set of chosen items."""

    def __init__(self, bank, items):
        self.bank = bank
        self.items = items
        rest = np.ones(bank.n_items, dtype=bool)
        rest[items] = False
        P = bank.probability
        self.rest_sum = P[:, rest].sum(axis=1)
        self.rest_var = bank.variance[:, rest].sum(axis=1)
        if bank.scored is not None:
            self.P, self.V = P[:, items], bank.variance[:, items]
            return
        self.P = np.clip(P[:, items], _PROBABILITY_FLOOR, 1.0 - _PROBABILITY_FLOOR)
        self.V = self.P * (1 - self.P)
        self.log_P = np.log(self.P)
        self.log_Q = np.log1p(-self.P)

    def posterior(self, responses):
        """Posterior weights on the grid, shape (n_models, n_nodes)."""
        if self.bank.scored is not None:
            table = self.bank.scored.response_log_likelihood(
                self.bank.nodes, self.items, responses)
        else:
            observed = ~np.isnan(responses)
            Y = np.where(observed, responses, 0.0)
            table = Y @ self.log_P.T + (observed - Y) @ self.log_Q.T
        table += self.bank.log_prior
        table -= table.max(axis=1, keepdims=True)
        np.exp(table, out=table)
        table /= table.sum(axis=1, keepdims=True)
        return table

    def compute(self, responses, weights):
        """All features of ``responses`` (n_models, n_chosen; NaN = missing).

        Returns a dict with ``posterior``, ``ability`` (EAP), ``irt`` (the
        p-IRT accuracy), ``irt_var`` (its posterior variance, including the
        binomial spread of the items not seen), ``mean`` (weighted mean of
        the observed responses; NaN without any), ``filled`` (responses with
        missing entries replaced by their posterior expected success) and
        ``observed`` (the mask).
        """
        observed = ~np.isnan(responses)
        post = self.posterior(responses)
        if self.bank.scored is not None:  # category codes as item scores
            responses = self.bank.scored.item_scores(self.items, responses)
        expected = post @ self.P  # (n, n_chosen): posterior E[P_j]
        filled = np.where(observed, responses, expected)
        n_items = self.bank.n_items
        # accuracy at each node: known part + expected unseen part
        seen = np.where(observed, responses, 0.0).sum(axis=1)
        node_sum = self.rest_sum[None, :] + (~observed) @ self.P.T  # (n, K)
        node_var = self.rest_var[None, :] + (~observed) @ self.V.T
        mean_sum = np.einsum("ik,ik->i", post, node_sum)
        second = np.einsum("ik,ik->i", post, node_var + node_sum**2)
        irt = (seen + mean_sum) / n_items
        irt_var = np.maximum(second - mean_sum**2, 0.0) / n_items**2
        w = np.where(observed, weights, 0.0)
        total = w.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(total > 0, (filled * w).sum(axis=1) / total, np.nan)
        return {
            "posterior": post,
            "ability": post @ self.bank.nodes,
            "irt": irt,
            "irt_var": irt_var,
            "mean": mean,
            "filled": filled,
            "observed": observed,
        }


def _design(features):
    return np.column_stack([features["filled"], features["ability"]])


class FittedEstimate:
    """One fitted estimator of the full accuracy from subset features.

    Parameters
    ----------
    kind : {"mean", "irt", "gp-irt", "regression"}
    fallback : float
        Prediction of "mean" for a model without any observed chosen
        response (the training population's mean accuracy).
    """

    def __init__(self, kind, fallback):
        self.kind = kind
        self.fallback = float(fallback)
        self.blend = None
        self.regressor = None

    def fit(self, features, target, regressor=None):
        if self.kind == "gp-irt":
            diff = _mean_or(features, self.fallback) - features["irt"]
            denom = float(diff @ diff)
            blend = float((target - features["irt"]) @ diff) / denom if denom else 0.0
            self.blend = float(np.clip(blend, 0.0, 1.0))
        elif self.kind == "regression":
            model = clone(default_regressor() if regressor is None else regressor)
            self.regressor = model.fit(_design(features), target - features["irt"])
        return self

    def predict(self, features):
        if self.kind == "mean":
            return _mean_or(features, self.fallback)
        if self.kind == "irt":
            return features["irt"].copy()
        if self.kind == "gp-irt":
            mean = _mean_or(features, self.fallback)
            return self.blend * mean + (1.0 - self.blend) * features["irt"]
        correction = np.asarray(self.regressor.predict(_design(features)),
                                dtype=np.float64).reshape(-1)
        return features["irt"] + correction


def _mean_or(features, fallback):
    mean = features["mean"]
    return np.where(np.isnan(mean), fallback, mean)


def conformal_halfwidth(residuals, level):
    """Split-conformal half-width from absolute residuals.

    The ``ceil((n + 1) level)``-th smallest absolute residual; when that
    rank exceeds ``n`` (too few residuals for the level) the largest one.
    """
    absolute = np.sort(np.abs(np.asarray(residuals, dtype=np.float64)))
    n = absolute.size
    rank = int(np.ceil((n + 1) * level))
    return float(absolute[min(max(rank, 1), n) - 1])
