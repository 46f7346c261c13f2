"""EloRanker's extended batch fit: tie models, covariates, fitted advantage.

Pure functions from coded matches to the fitted state; the estimator only
validates before and assigns after. See ``_ties`` for the likelihoods and
the Newton solver.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..utils._stack import find_stack_level
from ._batch import _blas_controller, aggregate_pairs
from ._ties import (
    NoMaximumError,
    build_cells,
    check_identifiable,
    expected_score,
    fit_tie_model,
    outcome_probabilities,
    parameter_covariance,
)
from ._vanishing import VANISHING_ALPHA, effective_alpha, vanishing_alpha

__all__ = [
    "ADVANTAGE_NAME",
    "ExtendedFit",
    "covariate_units",
    "expected_score",
    "fit_extended",
    "outcome_probabilities",
    "tie_parameter",
]

#: How the fitted first-player advantage is named among the coefficients.
ADVANTAGE_NAME = "first_advantage"

# Internal tie parameter when the data hold no tie (the boundary of the
# parameter space, where both tie models are Bradley-Terry).
_NO_TIE = {"davidson": -np.inf, "rao-kupper": 0.0}
_EPS = float(np.finfo(np.float64).eps)


class ExtendedFit:
    """Result of :func:`fit_extended` (natural-logit units)."""

    __slots__ = ("state", "coef_se", "advantage_se", "n_iter", "converged",
                 "flagged")

    def __init__(self, state, coef_se, advantage_se, n_iter, converged, flagged):
        self.state = state
        self.coef_se = coef_se
        self.advantage_se = advantage_se
        self.n_iter = n_iter
        self.converged = converged
        self.flagged = flagged


def tie_parameter(model, tie):
    """The reported tie parameter: Davidson's nu = e^tau, Rao-Kupper's theta."""
    return float(np.exp(tie))


def _check_outcomes(ties, y, weight):
    """Tie models need decided matches; without ties they reduce to Bradley-Terry."""
    if not float(weight.sum()) > 0:
        raise ValueError(
            "sample_weight is zero for every match: there is nothing to fit "
            "(give at least one match a positive weight)."
        )
    if ties == "half":
        return ties
    decided = float(weight[y != 0.5].sum())
    tied = float(weight[y == 0.5].sum())
    if decided <= 0:
        raise ValueError(
            f"ties={ties!r} cannot be fitted when every match (with positive "
            "weight) is a tie: the tie parameter would be infinite. Use "
            "ties='half' or add decided matches."
        )
    if tied <= 0:
        warnings.warn(
            f"ties={ties!r}: the data hold no tie, so the tie parameter is at its "
            "boundary (no ties: Davidson's nu = 0, Rao-Kupper's theta = 1) and "
            "the fit is plain Bradley-Terry.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
        return "half"
    if ties == "rao-kupper" and tied <= _EPS * decided:
        # theta = 1 + O(tie share) rounds to 1, and Newton's curvature in
        # log theta (about 1 / share) would overflow for denormal shares
        warnings.warn(
            f"ties={ties!r}: the ties weigh {tied:.3g} against {decided:.3g} "
            "for the decided matches, below the resolution of float64, so the "
            "tie parameter is at its boundary (theta = 1) and the fit is plain "
            "Bradley-Terry.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
        return "half"
    return ties


def fit_extended(first, second, y, weight, players, covariates, names, *, ties,
                 fit_advantage, fixed_advantage, alpha, tol, max_iter,
                 weight_scale=1.0):
    """Fit ratings, covariate coefficients, advantage and tie parameter.

    Parameters
    ----------
    first, second : ndarray of int64
        Coded players.
    y, weight : ndarray of float64
        Outcomes (0, 0.5, 1) and weights (rescaled to mean one by the caller).
    players : ndarray
        Labels (for warnings).
    covariates : ndarray of shape (n, p) or None
    names : array of p names, or None
    ties : {"half", "davidson", "rao-kupper"}
    fit_advantage : bool
    fixed_advantage : float
        Fixed first-player advantage (logits), when not fitted.
    alpha, tol, max_iter
        As in the estimator (alpha rescaled with the weights).
    weight_scale : float, default=1.0
        What the caller divided the weights by: the vanishing prior of data
        without a finite maximum is per unit of the caller's weights
        (:func:`._vanishing.effective_alpha`).

    Returns
    -------
    ExtendedFit
        ``state`` has ``ratings``, ``coef`` (covariates only), ``advantage``
        and, for a tie model, ``tie``.
    """
    # memory-bound products with a few columns: threaded BLAS only slows them
    with _blas_controller().limit(limits=1, user_api="blas"):
        return _fit_extended(
            first, second, y, weight, players, covariates, names, ties=ties,
            fit_advantage=fit_advantage, fixed_advantage=fixed_advantage,
            alpha=alpha, tol=tol, max_iter=max_iter, weight_scale=weight_scale,
        )


def covariate_units(covariates):
    """Per-column powers of two bringing each covariate to unit size.

    The fit runs on ``covariates / units`` (an exact rescaling) and the
    coefficients and their standard errors are mapped back by ``/ units``:
    the estimates are equivariant, so covariates measured in 1e-300 or 1e300
    are neither called collinear nor slow to converge.
    """
    top = np.max(np.abs(covariates), axis=0)
    exponent = np.frexp(np.where(top > 0, top, 1.0))[1] - 1
    return np.ldexp(1.0, exponent)


def _to_covariate_scale(values, units, names, what):
    """Coefficients (or SEs) of the unit-size fit on the covariates' scale."""
    with np.errstate(over="ignore"):
        out = values / units
    bad = np.isinf(out) & np.isfinite(values)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(
            f"The covariate {names[k]!r} is too small in magnitude (largest "
            f"|value| {units[k]:.3g}): its {what} exceeds the largest double. "
            "Rescale it (e.g. multiply it by 1e100)."
        )
    return out


def _fit_extended(first, second, y, weight, players, covariates, names, *, ties,
                  fit_advantage, fixed_advantage, alpha, tol, max_iter,
                  weight_scale=1.0):
    n = players.shape[0]
    model = _check_outcomes(ties, y, weight)
    units = None
    if covariates is not None:
        units = covariate_units(covariates)
        covariates = covariates / units
    ordered = fit_advantage or fixed_advantage != 0.0
    stats = aggregate_pairs(first, second, y, weight, n, ordered=True)
    alpha, flagged = effective_alpha(stats, players, alpha, "EloRanker",
                                     weight_scale)
    vanishing = vanishing_alpha(weight_scale)
    cells = build_cells(
        first, second, y, weight, n, covariates, fit_advantage=fit_advantage,
        offset=0.0 if fit_advantage else fixed_advantage, ordered=ordered,
    )
    p = 0 if covariates is None else covariates.shape[1]
    all_names = ([ADVANTAGE_NAME] if fit_advantage else []) + (
        [] if names is None else list(names)
    )
    check_identifiable(cells, all_names, alpha)
    try:
        theta, n_iter, converged = fit_tie_model(
            cells, model, alpha=alpha, tol=tol, max_iter=max_iter
        )
    except NoMaximumError as exc:
        if alpha >= vanishing:
            raise _no_maximum(ties, alpha * weight_scale, all_names) from exc
        # e.g. a player who never loses and only ties with someone who never
        # wins: the tie model's likelihood has no maximum, the tie parameter
        # and some ratings run off to infinity
        _warn_no_estimate(ties)
        alpha, flagged = vanishing, True
        try:
            theta, n_iter, converged = fit_tie_model(
                cells, model, alpha=alpha, tol=tol, max_iter=max_iter
            )
        except NoMaximumError as again:
            # the prior holds the ratings only: a coefficient still runs off
            raise _no_maximum(ties, alpha * weight_scale, all_names) from again
    q = cells.design.shape[1]
    se = np.zeros(0)
    if q:
        cov = parameter_covariance(cells, model, theta, alpha=alpha, ratings=False)
        lost = np.isinf(np.diag(cov)[:q])
        if model != "half" and lost.any():
            # the Newton loop stopped (out of steps or iterations) on a
            # coefficient running off: the same error as a singular Hessian
            raise _no_maximum(ties, alpha * weight_scale,
                              [all_names[k] for k in np.flatnonzero(lost)])
        se = _standard_errors(np.diag(cov)[:q], all_names)
    coef = theta[n:n + q]
    state = {
        "ratings": theta[:n].copy(),
        "coef": coef[q - p:].copy(),
        "advantage": np.array(coef[0] if fit_advantage else fixed_advantage),
    }
    if p:
        state["coef"] = _to_covariate_scale(state["coef"], units, names,
                                            "coefficient")
        se = np.concatenate([se[:q - p], _to_covariate_scale(
            se[q - p:], units, names, "standard error")])
    if ties != "half":
        state["tie"] = np.array(theta[-1] if model != "half" else _NO_TIE[ties])
    return ExtendedFit(
        state, se[q - p:], float(se[0]) if fit_advantage else None, n_iter,
        converged, flagged,
    )


def _no_maximum(ties, alpha, names):
    """The ValueError of a likelihood without maximum, naming what can cause it."""
    if names:
        listed = ", ".join(repr(name) for name in names)
        return ValueError(
            f"EloRanker(ties={ties!r}): the likelihood has no maximum (Newton's "
            f"Hessian became singular with the prior alpha={alpha:g} on the "
            f"ratings): a coefficient runs off to infinity, typically because "
            f"one of {listed} separates the outcomes (e.g. every match with a "
            "positive value won). Drop or coarsen that column."
        )
    return ValueError(
        f"EloRanker(ties={ties!r}): the likelihood has no maximum even with the "
        f"prior alpha={alpha:g} (Newton's Hessian became singular); increase "
        "alpha."
    )


def _standard_errors(variances, names):
    """Standard errors from the diagonal of the covariance, never zero.

    A coefficient whose variance is zero, negative or not finite has no
    finite maximum-likelihood estimate (e.g. a covariate that separates the
    outcomes: the likelihood keeps growing as its coefficient runs off):
    its standard error is reported as inf, with a warning naming it.
    """
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.where(variances > 0, variances, np.nan))
    lost = ~np.isfinite(se)
    if lost.any():
        listed = ", ".join(repr(names[k]) for k in np.flatnonzero(lost))
        warnings.warn(
            f"EloRanker: the coefficient of {listed} has no finite estimate "
            "(its covariate separates the outcomes, or is collinear at the "
            "estimate): its standard error is reported as inf.",
            ConvergenceWarning,
            stacklevel=find_stack_level(),
        )
    return np.where(lost, np.inf, se)


def _warn_no_estimate(ties):
    warnings.warn(
        f"EloRanker(ties={ties!r}): the maximum-likelihood estimate does not "
        "exist for these data (the likelihood keeps increasing as some ratings "
        "or the tie parameter go to infinity, e.g. a player who never loses "
        "and only ties with one who never wins). A vanishing prior "
        f"(alpha={VANISHING_ALPHA:g}) keeps them finite, but the affected "
        "ratings are arbitrary: set alpha > 0 for meaningful finite ratings.",
        ConvergenceWarning,
        stacklevel=find_stack_level(),
    )


def warn_not_converged(n_iter, tol):
    warnings.warn(
        f"EloRanker batch fit did not converge in {n_iter} Newton iterations "
        f"(tol={tol}); increase max_iter or set alpha > 0.",
        ConvergenceWarning,
        stacklevel=find_stack_level(),
    )
