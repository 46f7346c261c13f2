"""Helpers of Hernandez-Orallo's C-test note and the dual-indicators paper.

``ctest_score`` (the C-test aggregate), ``policy_difficulty`` (difficulty
from the size of the agents that solve a task) and ``theoretical_generality``
(the generality a 2PL agent would have). See the user guide page
"Generality" (``docs/user_guide/generality.rst``).
"""

from numbers import Real

import numpy as np
from scipy import special

from ..utils import check_in_bounds, check_result_matrix
from ..utils._sklearn_compat import StrOptions, validate_params

__all__ = ["ctest_score", "policy_difficulty", "theoretical_generality"]


@validate_params(
    {
        "response_curve": ["array-like"],
        "exponent": [Real],
        "index": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def ctest_score(response_curve, exponent=0.0, *, index=None):
    """C-test aggregate, eq. 1 of Hernandez-Orallo (2014): ``sum_h h**e psi_h``.

    Parameters
    ----------
    response_curve : array-like of shape (n_bins,) or (n_agents, n_bins)
        Success rate per difficulty level (the agent response curve), ordered
        from the easiest level to the hardest.
    exponent : float, default=0.0
        The exponent ``e``; 0 weighs every level equally, larger values favour
        the harder levels. The weights ``h**e`` are not normalised.
    index : array-like of shape (n_bins,), default=None
        The level ``h`` of each bin; ``1, 2, ..., n_bins`` when None (the note
        relabels Kt 7..14 as 1..8 in its Fig. 2).

    Returns
    -------
    float or ndarray of shape (n_agents,)

    Examples
    --------
    >>> ctest_score([1, 1, 0.5, 0], exponent=1)
    4.5
    >>> ctest_score([1, 1, 0.5, 0], exponent=2, index=[7, 8, 9, 10])
    153.5
    """
    psi = np.asarray(response_curve, dtype=np.float64)
    if psi.ndim not in (1, 2) or psi.shape[-1] == 0:
        raise ValueError(
            "response_curve must be a non-empty 1-D or 2-D array; got shape "
            f"{psi.shape}."
        )
    if index is None:
        levels = np.arange(1, psi.shape[-1] + 1, dtype=np.float64)
    else:
        levels = np.asarray(index, dtype=np.float64)
        if levels.shape != (psi.shape[-1],):
            raise ValueError(
                f"index must have one entry per bin ({psi.shape[-1]}); got shape "
                f"{levels.shape}."
            )
    result = psi @ (levels**exponent)
    return float(result) if np.ndim(result) == 0 else result



@validate_params(
    {
        "X": ["array-like"],
        "agent_sizes": ["array-like"],
        "threshold": [Real, None],
        "method": [StrOptions({"shortest", "soft", "ratio"})],
    },
    prefer_skip_nested_validation=True,
)
def policy_difficulty(X, agent_sizes, *, threshold=None, method="shortest"):
    """Task difficulty from the size of the agents that solve it (C-test note).

    Hernandez-Orallo (2014) defines difficulty through the simplest
    acceptable policy. Given the results of a population of agents and a
    size per agent (program length in bits, parameters, any resource proxy),
    these are empirical upper bounds: an untested smaller agent might pass.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_tasks)
        Results; NaN (not tested) never counts as acceptable.
    agent_sizes : array-like of shape (n_agents,)
        Finite size ``L_i`` of each agent.
    threshold : float, default=None
        Acceptability ``A_ij = X_ij >= threshold`` (eq. 8 with threshold
        ``1 - epsilon``, inclusive). If None, ``X`` must be 0/1 (or NaN) and
        ``A = X``. Not used by ``method="ratio"``.
    method : {"shortest", "soft", "ratio"}, default="shortest"
        - "shortest" (eq. 13): ``min {L_i : A_ij = 1}``.
        - "soft" (eq. 14): ``-0.5 log2 sum_i 2**(-2 L_i) A_ij``; never above
          "shortest", equal to it with a single acceptable agent.
        - "ratio" (section 4.2, "bits per reward unit"): ``min_i L_i / X_ij``
          over ``X_ij > 0`` (``X`` must be non-negative).

    Returns
    -------
    difficulty : ndarray of shape (n_tasks,)
        ``np.inf`` for a task no agent makes acceptable (a "hell" task).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0]])
    >>> policy_difficulty(A, [1, 2, 3]).tolist()
    [1.0, 2.0, inf]
    >>> policy_difficulty([[0.42], [0.78], [1.0]], [1, 2, 3], method="ratio").round(6)
    array([2.380952])
    """
    values, _, _ = check_result_matrix(X, allow_nan=True)
    sizes = np.asarray(agent_sizes, dtype=np.float64)
    if sizes.shape != (values.shape[0],) or not np.all(np.isfinite(sizes)):
        raise ValueError(
            "agent_sizes must hold one finite value per agent (row of X); got "
            f"shape {sizes.shape}."
        )
    if method == "ratio":
        check_in_bounds(values, 0.0, np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(values > 0, sizes[:, None] / values, np.inf)
        return np.min(np.where(np.isnan(ratios), np.inf, ratios), axis=0)
    if threshold is None:
        binary = np.isnan(values) | (values == 0) | (values == 1)
        if not binary.all():
            raise ValueError(
                "X must be 0/1 (or NaN) without a threshold; pass threshold= "
                "to define acceptability."
            )
        acceptable = values == 1
    else:
        acceptable = values >= threshold
    if method == "shortest":
        return np.min(np.where(acceptable, sizes[:, None], np.inf), axis=0)
    log_terms = np.where(acceptable, -2.0 * sizes[:, None] * np.log(2.0), -np.inf)
    with np.errstate(divide="ignore"):
        log_sum = special.logsumexp(log_terms, axis=0) / np.log(2.0)
    return -0.5 * log_sum



@validate_params(
    {
        "abilities": ["array-like", Real],
        "difficulty_levels": ["array-like"],
        "discrimination": [Real],
    },
    prefer_skip_nested_validation=True,
)
def theoretical_generality(abilities, difficulty_levels, discrimination=1.0):
    """Model-implied generality of 2PL agents, the paper's section V equation.

    ``gamma(theta) = 1 / sum_h P(theta, h) (1 - P(theta, h))`` with
    ``P(theta, h) = 1 / (1 + exp(-a (theta - h)))``: the Bernoulli variance of
    an agent of ability ``theta`` at each difficulty level ``h``, all items
    sharing the discrimination ``a``. Over equally spaced levels (spacing
    ``Delta``) reaching well past ``theta`` it is about ``a Delta`` whatever
    ``theta`` is: generality is dual to discrimination.

    Parameters
    ----------
    abilities : float or array-like of shape (n_agents,)
        Abilities ``theta``.
    difficulty_levels : array-like of shape (n_levels,)
        The difficulty levels ``h``.
    discrimination : float, default=1.0
        The common discrimination ``a``.

    Returns
    -------
    float or ndarray of shape (n_agents,)

    Examples
    --------
    >>> round(theoretical_generality(0.0, np.arange(-10, 11)), 4)
    1.0001
    >>> theoretical_generality([0.0, 2.0], np.arange(-3, 4)).round(4).tolist()
    [1.0598, 1.2229]
    """
    theta = np.asarray(abilities, dtype=np.float64)
    levels = np.asarray(difficulty_levels, dtype=np.float64).ravel()
    a = float(discrimination)
    if levels.size == 0:
        raise ValueError("difficulty_levels must hold at least one level.")
    for name, values in (
        ("abilities", theta),
        ("difficulty_levels", levels),
        ("discrimination", a),
    ):
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{name} must be finite (no NaN or inf).")
    p = special.expit(a * (theta[..., None] - levels))
    result = 1.0 / np.sum(p * (1.0 - p), axis=-1)
    return float(result) if result.ndim == 0 else result

