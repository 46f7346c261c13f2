"""Log-loss of match predictions: draws as half a win, or three outcomes."""

import numpy as np
from sklearn.metrics import make_scorer

from ..utils._validation import as_float_array

__all__ = [
    "match_log_loss",
    "match_log_loss_scorer",
    "three_outcome_log_loss",
    "three_outcome_log_loss_scorer",
]


def _outcome_vector(y_true):
    """``y_true`` as a non-empty 1-D float array (a column vector is raveled)."""
    y = _as_vector(y_true, "y_true")
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y_true must be 1-D; got shape {y.shape}.")
    if y.shape[0] == 0:
        raise ValueError("y_true holds no matches; at least one is required.")
    return y


def _as_vector(values, name):
    return as_float_array(values, name)


def _first_wins_probability(y_prob, n):
    prob = _as_vector(y_prob, "y_prob")
    if prob.ndim == 2:
        if prob.shape[1] != 2:
            raise ValueError(
                "y_prob must be 1-D (probability that the first player wins) or "
                f"of shape (n_matches, 2) as from predict_proba; got {prob.shape}."
            )
        prob = prob[:, 1]
    if prob.ndim != 1:
        raise ValueError(f"y_prob must be 1-D or 2-D; got shape {prob.shape}.")
    if prob.shape[0] != n:
        raise ValueError(
            f"y_prob has {prob.shape[0]} entries but y_true has {n}; "
            "they must have the same length."
        )
    bad = ~((prob >= 0) & (prob <= 1))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"y_prob must hold probabilities in [0, 1]; got {prob[row]!r} at row {row}."
        )
    return prob


def _check_weights(sample_weight, n):
    if sample_weight is None:
        return np.ones(n)
    weights = _as_vector(sample_weight, "sample_weight").reshape(-1)
    if weights.shape[0] != n:
        raise ValueError(
            f"sample_weight has {weights.shape[0]} entries but y_true has {n}; "
            "they must have the same length."
        )
    bad = ~(np.isfinite(weights) & (weights >= 0))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            "sample_weight must be finite and non-negative; got "
            f"{weights[row]!r} at row {row}."
        )
    if weights.sum() <= 0:
        raise ValueError("sample_weight sums to zero; the loss is undefined.")
    return weights


def match_log_loss(y_true, y_prob, *, sample_weight=None):
    """Mean log-loss of match predictions, with draws as half a win.

    ``-mean(y log p + (1 - y) log(1 - p))`` over matches, where ``y`` is the
    first player's score (1 win, 0.5 draw, 0 loss) and ``p`` the predicted
    probability that the first player wins. A draw costs
    ``-(log p + log(1 - p)) / 2``, i.e. counts as half a win and half a
    loss. scikit-learn's ``log_loss`` (and the ``"neg_log_loss"`` scorer)
    rejects ``y = 0.5``; this function does not. Lower is better.

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        The first player's score, in [0, 1] (usually 0, 0.5 or 1; any
        expected score in between is accepted, making this the
        cross-entropy with soft targets).
    y_prob : array-like of shape (n_matches,) or (n_matches, 2)
        Probability that the first player wins, or ``predict_proba`` output
        whose column 1 is that probability.
    sample_weight : array-like of shape (n_matches,), default=None
        Non-negative match weights.

    Returns
    -------
    loss : float
        Probabilities are clipped to ``[eps, 1 - eps]`` (float64 machine
        epsilon) so a confident wrong prediction costs about 36 nats, not inf.

    Raises
    ------
    ValueError
        On lengths that differ, no matches, ``y_true`` outside [0, 1],
        probabilities outside [0, 1] or NaN, negative weights or weights
        summing to zero.

    See Also
    --------
    match_log_loss_scorer : The scorer for ``GridSearchCV(scoring=...)``.

    Examples
    --------
    >>> from sklearn_eval.metrics import match_log_loss
    >>> round(match_log_loss([1, 0, 0.5], [0.8, 0.3, 0.5]), 4)
    0.4243
    """
    y = _outcome_vector(y_true)
    n = y.shape[0]
    bad = ~((y >= 0) & (y <= 1))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            "y_true must be the first player's score in [0, 1] (1 win, 0.5 draw, "
            f"0 loss); got {y[row]!r} at row {row}."
        )
    p = _first_wins_probability(y_prob, n)
    weights = _check_weights(sample_weight, n)
    total = weights.sum()
    eps = np.finfo(np.float64).eps
    p = np.clip(p, eps, 1.0 - eps)
    losses = -(y * np.log(p) + (1.0 - y) * np.log1p(-p))
    return float(weights @ losses / total)


match_log_loss_scorer = make_scorer(
    match_log_loss, greater_is_better=False, response_method="predict_proba"
)
match_log_loss_scorer.__doc__ = """Scorer for ``scoring=``: minus match_log_loss.

Calls the estimator's ``predict_proba`` and returns
``-match_log_loss(y, p)`` (greater is better), so it works with draws
(``y = 0.5``), unlike ``scoring="neg_log_loss"``. Supports ``sample_weight``
through metadata routing like any scikit-learn scorer.
"""


_OUTCOMES = (0.0, 0.5, 1.0)


def _three_outcome_probabilities(y_prob, n):
    prob = _as_vector(y_prob, "y_prob")
    if prob.ndim != 2 or prob.shape[1] != 3:
        raise ValueError(
            "y_prob must have shape (n_matches, 3): the probabilities that the "
            "second player wins, of a tie and that the first player wins, as "
            f"from a tie model's predict_proba; got shape {prob.shape}. For "
            "two-outcome predictions use match_log_loss."
        )
    if prob.shape[0] != n:
        raise ValueError(
            f"y_prob has {prob.shape[0]} rows but y_true has {n}; "
            "they must have the same length."
        )
    bad = ~((prob >= 0) & (prob <= 1)).all(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"y_prob must hold probabilities in [0, 1]; got {prob[row].tolist()} "
            f"at row {row}."
        )
    off = np.abs(prob.sum(axis=1) - 1.0) > 1e-6
    if off.any():
        row = int(np.argmax(off))
        raise ValueError(
            f"Each row of y_prob must sum to 1; row {row} sums to "
            f"{prob[row].sum()!r}."
        )
    return prob


def three_outcome_log_loss(y_true, y_prob, *, sample_weight=None):
    """Mean log-loss of three-outcome match predictions (win, tie, loss).

    ``-mean(log P(observed outcome))`` over matches, where the outcome is
    the first player's result ``y`` (0 loss, 0.5 tie, 1 win) and ``y_prob``
    holds P(second player wins), P(tie), P(first player wins), the
    ``predict_proba`` of ``EloRanker(ties="davidson")`` or
    ``ties="rao-kupper"`` (``classes_ = [0, 0.5, 1]``). Unlike
    :func:`match_log_loss` a tie is an outcome of its own, predicted with
    its own probability. Lower is better.

    Parameters
    ----------
    y_true : array-like of shape (n_matches,)
        The first player's result: 0, 0.5 or 1.
    y_prob : array-like of shape (n_matches, 3)
        Probabilities of the three outcomes, columns in the order of the
        values of ``y``; rows sum to 1.
    sample_weight : array-like of shape (n_matches,), default=None
        Non-negative match weights (e.g. vote counts).

    Returns
    -------
    loss : float
        In nats per (weighted) match. Probabilities are clipped to
        ``[eps, 1]`` (float64 machine epsilon) so a confident wrong
        prediction costs about 36 nats, not inf.

    Raises
    ------
    ValueError
        On lengths that differ, no matches, ``y_true`` outside
        {0, 0.5, 1}, probabilities outside [0, 1] or rows not summing to 1,
        negative weights or weights summing to zero.

    See Also
    --------
    three_outcome_log_loss_scorer : The scorer for ``GridSearchCV(scoring=...)``.
    match_log_loss : Two outcomes, a tie counted as half a win.

    Examples
    --------
    >>> from sklearn_eval.metrics import three_outcome_log_loss
    >>> proba = [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]
    >>> round(three_outcome_log_loss([1, 0.5], proba), 4)
    0.9486
    """
    y = _outcome_vector(y_true)
    n = y.shape[0]
    bad = ~np.isin(y, _OUTCOMES)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            "y_true must be the first player's result: 0 (loss), 0.5 (tie) or "
            f"1 (win); got {y[row]!r} at row {row}."
        )
    prob = _three_outcome_probabilities(y_prob, n)
    weights = _check_weights(sample_weight, n)
    observed = prob[np.arange(n), np.rint(2.0 * y).astype(np.intp)]
    losses = -np.log(np.clip(observed, np.finfo(np.float64).eps, 1.0))
    return float(weights @ losses / weights.sum())


three_outcome_log_loss_scorer = make_scorer(
    three_outcome_log_loss,
    greater_is_better=False,
    response_method=("predict_outcome_proba", "predict_proba"),
)
three_outcome_log_loss_scorer.__doc__ = """Scorer: minus three_outcome_log_loss.

Calls the estimator's ``predict_outcome_proba`` when it has one (every
``EloRanker``, including ``ties="half"``), else ``predict_proba`` (three
columns: second player wins, tie, first player wins) and returns
``-three_outcome_log_loss(y, proba)`` (greater is better), e.g. to choose
between ``ties="half"``, ``"davidson"`` and ``"rao-kupper"`` or an L2 prior
with ``GridSearchCV``. Supports ``sample_weight`` through metadata routing
like any scikit-learn scorer.
"""
