"""The item response model a calibration-based estimator works with."""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ._curves_scored import check_one_ability
from ._irt2pl import IRT2PL

__all__ = ["calibrate_irt"]

# what an estimator reads from a calibrated item response model
CALIBRATION_ATTRIBUTES = (
    "discrimination_",
    "difficulty_",
    "quadrature_nodes_",
    "quadrature_weights_",
    "n_features_in_",
    "icc",
)


def calibrate_irt(irt, X):
    """Fit the item response model of a calibration on responses ``X``.

    The rule shared by :class:`~sklearn_eval.irt.AdaptiveTester` and
    :class:`~sklearn_eval.selection.SubsetScoreEstimator`: None calibrates a
    Rasch model ``IRT2PL(model="1PL")``; an :class:`~sklearn_eval.irt.IRT2PL`
    is cloned and fitted on ``X``; a ``sklearn.frozen.FrozenEstimator`` of a
    fitted one keeps its calibration as it is.

    Parameters
    ----------
    irt : IRT2PL, IRT, FrozenEstimator or None
        The item response model: any one-ability model (binary, graded or
        continuous scores); a model with ``n_factors > 1`` is refused.
    X : array-like, sparse matrix or DataFrame of shape (n_agents, n_items)
        Calibration responses in {0, 1}, NaN where missing.

    Returns
    -------
    model : IRT2PL or FrozenEstimator
        Fitted, with ``discrimination_``, ``difficulty_``, the quadrature
        and ``icc``.

    Raises
    ------
    TypeError
        When ``irt`` lacks what a calibration provides.
    ValueError
        When ``irt`` is calibrated on another number of items than ``X`` has,
        or has several abilities (``n_factors > 1``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.irt import calibrate_irt
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((40, 5)) < np.linspace(0.2, 0.8, 5)).astype(float)
    >>> model = calibrate_irt(None, X)
    >>> model.model, model.difficulty_.shape
    ('1PL', (5,))
    """
    if irt is not None and not callable(getattr(irt, "icc", None)):
        # refused before any fitting: a regressor would fail inside its fit
        raise TypeError(
            "irt must be an item response model: an IRT2PL (fitted or not) or "
            f"a FrozenEstimator of one; got {type(irt).__name__}, which has no "
            "icc method (item characteristic curves)."
        )
    check_one_ability(irt, "AdaptiveTester and SubsetScoreEstimator")
    model = IRT2PL(model="1PL") if irt is None else clone(irt)
    model.fit(X, None)  # FrozenEstimator.fit requires y
    missing = [name for name in CALIBRATION_ATTRIBUTES if not hasattr(model, name)]
    if missing:
        raise TypeError(
            f"irt must be an IRT2PL (or a FrozenEstimator of one); "
            f"{type(model).__name__} lacks {missing}."
        )
    n_items = int(np.shape(X)[1])
    if model.n_features_in_ != n_items:
        raise ValueError(
            f"irt is calibrated on {model.n_features_in_} items; X has {n_items}."
        )
    return model
