"""GeneralityScorer: ability, generality and response curves against difficulty.

Two papers, two notions of generality, kept apart by name (DESIGN.md section 4):

* ``generality`` is the gamma of Martinez-Plumed & Hernandez-Orallo (2018),
  "Dual Indicators to Analyse AI Benchmarks": one over the sum, across
  difficulty bins, of the within-bin (population) variance of the agent's
  responses. Together with ``regularity`` (one over the variance over all
  tasks) and the ``slope`` proxy of the paper's Fig. 9.
* ``capability``, ``spread``, ``spread_generality`` and
  ``normalized_generality`` come from the agent response curve (ARC) of
  Hernandez-Orallo's C-test note (2014) as developed in his later work
  (Sci. Rep. 2021; R code ``jorallo/generality``): the ARC padded with 1 below
  the easiest bin and 0 above the hardest is read as a survival function whose
  mean is the capability and whose standard deviation is the spread.
"""

import numbers
import warnings

import numpy as np
from scipy import sparse, special
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context, clone
from sklearn.frozen import FrozenEstimator
from sklearn.utils import Bunch
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import check_in_bounds, check_result_matrix
from ._binning import (
    assign_right_closed,
    bin_medians,
    make_difficulty_bins,
    merge_small_bins,
    quantile_edges,
)
from ._intervals import generality_interval_plan

__all__ = [
    "GeneralityScorer",
    "ctest_score",
    "policy_difficulty",
    "theoretical_generality",
]

FEATURE_NAMES = (
    "generality",
    "regularity",
    "slope",
    "capability",
    "spread",
    "spread_generality",
    "normalized_generality",
    "mean_score",
    "ctest_score",
)

# Within-group variances below this are rounding noise of equal responses
# (responses lie in [0, 1]; it is a standard deviation of 1e-10).
_ZERO_VARIANCE = 1e-20

# Agents are processed in blocks of about this many results, so temporaries
# stay small enough to be reused rather than freshly mapped on every call.
_BLOCK_ELEMENTS = 1 << 18

# Relative tolerance (times the squared difficulty range) under which the
# denominator A (W - A) of the normalised generality counts as zero.
_DEGENERATE_TOL = 1e-12


# ---------------------------------------------------------------------------
# Public helper: the C-test aggregate
# ---------------------------------------------------------------------------
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
    if method not in ("shortest", "soft"):
        raise ValueError(
            f"method must be 'shortest', 'soft' or 'ratio'; got {method!r}."
        )
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


# ---------------------------------------------------------------------------
# Per-bin statistics (vectorised over agents and tasks)
# ---------------------------------------------------------------------------
def _membership(task_bin, weights, n_bins):
    """Sparse (n_tasks, n_bins) matrix holding each binned task's weight.

    Sparse products are single-threaded and proportional to the number of
    results; a dense BLAS product with this thin matrix was up to 100 times
    slower on a loaded machine (thread contention), see
    ``benchmarks/bench_generality.py``.
    """
    binned = np.flatnonzero(task_bin >= 0)
    return sparse.csr_array(
        (weights[binned], (binned, task_bin[binned])),
        shape=(task_bin.shape[0], n_bins),
    )


def _blocked_moments(responses, membership, task_group):
    """:func:`_weighted_moments` over blocks of agents (bounded temporaries)."""
    n_agents, n_tasks = responses.shape
    rows = max(1, _BLOCK_ELEMENTS // max(n_tasks, 1))
    blocks = [
        _weighted_moments(responses[start : start + rows], membership, task_group)
        for start in range(0, n_agents, rows)
    ]
    if len(blocks) == 1:
        return blocks[0]
    return tuple(np.vstack(parts) for parts in zip(*blocks, strict=True))


def _weighted_moments(responses, membership, task_group):
    """Weighted mean and population variance of each agent within groups.

    ``membership`` (n_tasks, n_groups) holds the task weights of each group
    (a dense column vector or a sparse matrix); ``task_group`` gives the group
    of every task (any valid index for tasks outside every group). Returns
    ``(mean, variance)`` of shape (n_agents, n_groups), NaN where the agent has
    no observed, positively weighted task in a group. For 0/1 responses the
    variance is ``mean (1 - mean)``; otherwise it is computed in two passes and
    variances below ``_ZERO_VARIANCE`` are rounding noise of equal responses
    and are set to exactly 0, so perfect steps give an infinite generality.
    """
    missing = np.isnan(responses)
    observed = np.logical_not(missing).astype(np.float64)
    filled = responses.copy()
    filled[missing] = 0.0
    total = observed @ membership
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (filled @ membership) / total
    absent = ~(total > 0)
    mean[absent] = np.nan
    if not np.any((filled != 0.0) & (filled != 1.0)):
        # 0/1 responses: the population variance is exactly mean (1 - mean),
        # and 0 when every observed response of a group is equal (mean 0 or 1).
        return mean, mean * (1.0 - mean)
    squares = np.subtract(
        filled, np.take(np.where(absent, 0.0, mean), task_group, axis=1), out=filled
    )
    squares *= squares
    squares *= observed
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (squares @ membership) / total
    variance[variance < _ZERO_VARIANCE] = 0.0
    variance[absent] = np.nan
    return mean, variance


def _bin_moments(responses, weights, task_bin, n_bins):
    """Mean and variance of each agent's responses in each difficulty bin."""
    membership = _membership(task_bin, weights, n_bins)
    return _blocked_moments(responses, membership, np.maximum(task_bin, 0))


def _overall_moments(responses, weights):
    """Weighted mean and population variance of each agent over all tasks."""
    group = np.zeros(responses.shape[1], dtype=np.int64)
    membership = _membership(group, weights, 1)
    mean, variance = _blocked_moments(responses, membership, group)
    return mean[:, 0], variance[:, 0]


def _fill_empty_bins(curve, mode):
    """Fill bins without an observed task for an agent (vectorised).

    ``"interpolate"``: linear interpolation (over the bin index) between the
    nearest observed bins; empty bins before the first observed one get 1 and
    after the last one get 0 (the optimistic padding of the ARC). ``"nan"``:
    leave NaN.
    """
    missing = np.isnan(curve)
    if mode == "nan" or not missing.any():
        return curve
    n_bins = curve.shape[1]
    positions = np.broadcast_to(np.arange(n_bins), curve.shape)
    previous = np.maximum.accumulate(np.where(missing, -1, positions), axis=1)
    following = np.minimum.accumulate(
        np.where(missing, n_bins, positions)[:, ::-1], axis=1
    )[:, ::-1]
    rows = np.arange(curve.shape[0])[:, None]
    left = np.where(previous >= 0, curve[rows, np.clip(previous, 0, None)], 1.0)
    right = np.where(
        following < n_bins, curve[rows, np.clip(following, None, n_bins - 1)], 0.0
    )
    inside = (previous >= 0) & (following < n_bins)
    span = np.maximum(following - previous, 1)
    fraction = np.where(inside, (positions - previous) / span, 0.0)
    filled = left + fraction * (right - left)
    # before the first observed bin: 1; after the last one: 0
    filled = np.where(previous < 0, 1.0, filled)
    filled = np.where((previous >= 0) & (following >= n_bins), 0.0, filled)
    filled = np.where(missing, filled, curve)
    # an agent with no observed bin at all keeps NaN
    return np.where(missing.all(axis=1, keepdims=True), np.nan, filled)


# ---------------------------------------------------------------------------
# Indicators from the response curve
# ---------------------------------------------------------------------------
def _first_crossing_slope(curve, medians):
    """Slope proxy of Fig. 9: first drop from above 0.5 to below 0.5.

    Over the bins observed for each agent (in increasing difficulty), find the
    first consecutive pair with ``psi_j > 0.5`` and ``psi_{j+1} < 0.5`` and
    return ``|psi_{j+1} - psi_j| / |median_{j+1} - median_j|``; NaN when the
    curve never drops through 0.5.
    """
    n_agents = curve.shape[0]
    slope = np.full(n_agents, np.nan)
    prev_value = np.full(n_agents, np.nan)
    prev_median = np.full(n_agents, np.nan)
    found = np.zeros(n_agents, dtype=bool)
    for column in range(curve.shape[1]):
        if np.isnan(medians[column]):
            continue
        value = curve[:, column]
        valid = ~np.isnan(value)
        cross = valid & ~found & (prev_value > 0.5) & (value < 0.5)
        slope[cross] = np.abs(value[cross] - prev_value[cross]) / np.abs(
            medians[column] - prev_median[cross]
        )
        found |= cross
        prev_value = np.where(valid, value, prev_value)
        prev_median = np.where(valid, medians[column], prev_median)
    return slope


def _capability_and_spread_step(curve, edges):
    """Mean and variance of -d(psi)/dh for the padded piecewise-constant ARC.

    With 1 padded below the first edge and 0 above the last, the ARC drops by
    ``psi_{k-1} - psi_k`` at edge ``k``: point masses whose mean is the
    capability ``h_lo + sum_k width_k psi_k`` and whose variance is the
    squared spread. Computed about the mean (two-pass), so a perfect step has
    a variance of exactly 0.
    """
    n_agents = curve.shape[0]
    padded = np.hstack([np.ones((n_agents, 1)), curve, np.zeros((n_agents, 1))])
    masses = padded[:, :-1] - padded[:, 1:]
    capability = np.sum(masses * edges, axis=1)
    deviation = edges[None, :] - capability[:, None]
    return capability, np.sum(masses * deviation**2, axis=1)


def _capability_and_spread_trapezoid(curve, points):
    """Mean and variance of -d(psi)/dh for a piecewise-linear ARC.

    The padded ARC falls by ``1 - psi_0`` at the first point, linearly inside
    each segment (a uniform density of mass ``psi_k - psi_{k+1}``) and by
    ``psi_last`` at the last point.
    """
    start_mass = 1.0 - curve[:, 0]
    end_mass = curve[:, -1]
    segment_mass = curve[:, :-1] - curve[:, 1:]
    middles = (points[:-1] + points[1:]) / 2.0
    widths = points[1:] - points[:-1]
    capability = (
        start_mass * points[0]
        + np.sum(segment_mass * middles, axis=1)
        + end_mass * points[-1]
    )
    spread_inside = (middles[None, :] - capability[:, None]) ** 2 + widths**2 / 12.0
    second = (
        start_mass * (points[0] - capability) ** 2
        + end_mass * (points[-1] - capability) ** 2
        + np.sum(segment_mass * spread_inside, axis=1)
    )
    return capability, second


def _reciprocal(values, cap):
    """``1 / values`` with ``inf`` at 0 (and NaN kept), optionally capped."""
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(values == 0, np.inf, 1.0 / np.where(values == 0, 1, values))
    result = np.where(np.isnan(values), np.nan, result)
    if cap is not None:
        result = np.minimum(result, cap)
    return result


def _check_weights(task_weights, n_tasks):
    """Validate task weights: finite, non-negative, one per task, not all 0."""
    if task_weights is None:
        return np.ones(n_tasks)
    weights = np.asarray(task_weights, dtype=np.float64)
    if weights.shape != (n_tasks,):
        raise ValueError(
            f"task_weights must have one entry per task ({n_tasks}); got shape "
            f"{weights.shape}."
        )
    bad = ~np.isfinite(weights) | (weights < 0)
    if bad.any():
        column = int(np.flatnonzero(bad)[0])
        raise ValueError(
            "task_weights must be finite and >= 0; got "
            f"{weights[column]!r} for task {column}."
        )
    if not weights.sum() > 0:
        raise ValueError("task_weights must not all be zero.")
    return weights


def _task_name(tasks, column):
    """Human-readable name of a task column for error messages."""
    if tasks is None:
        return f"column {column}"
    return f"column {column} ({tasks[column]!r})"


class GeneralityScorer(TransformerMixin, BaseEstimator):
    """Per-agent ability, generality and response curves against task difficulty.

    Fit learns the tasks' difficulties and bins them; ``transform`` maps each
    agent (row) to indicators computed from its responses per difficulty bin.
    Two notions of generality are reported under different names:

    - ``generality``: gamma of Martinez-Plumed & Hernandez-Orallo (2018),
      ``1 / sum_h sigma_h^2`` where ``sigma_h^2`` is the population variance of
      the agent's responses among the tasks of bin ``h`` (``dispersion="std"``
      uses ``1 / sum_h sigma_h``). Infinite for a perfect step whose edge lies
      on a bin boundary (and for all-0 / all-1 agents).
    - ``spread_generality``: ``1 / spread`` of the agent response curve (ARC),
      with ``capability`` and ``spread`` the mean and standard deviation of
      the density ``-d psi / dh`` of the ARC padded with 1 below the easiest
      bin and 0 above the hardest (Hernandez-Orallo's later work).

    Parameters
    ----------
    difficulty : {"irt", "rate"}, array-like of shape (n_tasks,) or estimator, \
            default="irt"
        Where task difficulties come from (higher = harder).

        - ``"irt"``: fit :class:`~sklearn_eval.irt.IRT2PL` (default settings)
          on the binary responses and use its ``difficulty_``.
        - an IRT2PL-like estimator (exposes ``difficulty_`` and, optionally,
          ``discrimination_`` after fit): cloned and fitted on the responses;
          wrap an already fitted one in :class:`sklearn.frozen.FrozenEstimator`
          to use it as is (it then survives ``clone``).
        - ``"rate"``: ``1 -`` the population success rate of each task (mean
          response over the agents observed on it).
        - an array: given difficulties, one finite value per task. A pandas
          Series is aligned on the column names of a DataFrame ``X``.
    bins : int, "unique" or array-like of edges, default=10
        - int: at most this many equal-frequency (quantile) bins on the
          difficulties, from the easiest to the hardest task; cuts fall
          half-way between distinct difficulties (tied tasks share a bin) and
          adjacent bins are merged until each holds at least
          ``min_tasks_per_bin`` tasks. Equal-width bins would collapse on IRT
          scales, where a few items reach difficulties far from the rest
          (GVGAI runs from -30 to 85).
        - array of strictly increasing finite edges: right-closed intervals
          ``(e_k, e_{k+1}]`` as R's ``cut`` (the paper's cut points, e.g.
          ``[-11, -1, 0, 1, 10]`` on ALE). Tasks outside are left out of the
          binned indicators, with a warning.
        - ``"unique"``: one bin per distinct difficulty (C-test levels), with
          edges half-way between consecutive values.
    min_tasks_per_bin : int, default=5
        Minimum number of tasks per quantile bin. Explicit edges and
        ``"unique"`` bins are kept as given, with a warning when a non-empty
        bin holds fewer tasks (unstable variances).
    threshold : float, default=None
        If given, a result counts as a success when ``X >= threshold`` and
        the indicators use these 0/1 responses; ``X`` may then hold any
        finite scores (e.g. 100 on human-normalised Atari scores). If None,
        ``X`` must lie in ``[0, 1]`` (binary successes or continuous scores).
    exclude_negative_discrimination : bool, default=True
        With an IRT difficulty, leave items whose discrimination is negative
        out of the bins (as the paper does: their ``b`` is not a difficulty).
        Items with no finite difficulty (constant items dropped by the IRT
        model) are always left out.
    task_weights : array-like of shape (n_tasks,), default=None
        Non-negative task weights ``p_j`` (uniform if None). Within a bin the
        response curve is the ``p``-weighted mean; ``mean_score`` is the
        ``p``-weighted mean over all tasks.
    dispersion : {"var", "std"}, default="var"
        ``generality = 1 / sum_h sigma_h^2`` ("var", the paper's rebuilt eq. 3;
        with one bin it equals ``regularity``) or ``1 / sum_h sigma_h``.
    empty_bins : {"interpolate", "nan"}, default="interpolate"
        Response-curve value of a bin with no observed task for an agent (an
        empty bin, or missing results): linear interpolation over the bin
        index between the nearest observed bins, with 1 before the first and
        0 after the last observed bin (the ARC's optimistic padding); or NaN,
        which then propagates to ``capability``, ``spread``,
        ``spread_generality``, ``normalized_generality`` and ``ctest_score``.
        ``generality`` and ``slope`` use only observed bins either way. An
        agent with no observed task in any bin (all its results are on tasks
        left out of the bins) has a NaN curve in both modes.
    integration : {"step", "trapezoid"}, default="step"
        How the ARC is integrated. "step": piecewise constant on the bins over
        ``[bin_edges_[0], bin_edges_[-1]]`` (exact for the C-test's unit bins;
        a step at a bin edge has spread exactly 0). "trapezoid": piecewise
        linear through ``(bin point, psi)`` over ``[first point, last point]``
        as the reference R code, where a bin's point is the median difficulty
        of its tasks (the bin centre for an empty bin); with a single bin it
        falls back to "step".
    ctest_exponent : float, default=1.0
        Exponent ``e`` of the C-test aggregate. The ``ctest_score`` column is
        the normalised eq. 1, ``sum_b b**e psi_b / sum_b b**e`` with
        ``b = 1..n_bins`` the bin index (in ``[0, 1]``); the raw eq. 1 is
        :func:`~sklearn_eval.irt.ctest_score`.
    max_generality : float, default=None
        If given, cap ``generality``, ``regularity`` and ``spread_generality``
        at this value (they are ``np.inf`` for zero dispersion otherwise).

    Attributes
    ----------
    difficulty_ : ndarray of shape (n_tasks,)
        Difficulty of every task (NaN where the IRT model has none).
    task_bin_ : ndarray of shape (n_tasks,), int64
        Bin of every task; -1 for tasks left out of the bins.
    excluded_tasks_ : ndarray
        Tasks left out of the bins (labels if ``X`` had column names, else
        indices): negative discrimination, no difficulty, or outside edges.
    bin_edges_ : ndarray of shape (n_bins + 1,)
        Bin edges (right-closed intervals).
    bin_counts_ : ndarray of shape (n_bins,)
        Number of tasks per bin.
    bin_medians_ : ndarray of shape (n_bins,)
        Median difficulty per bin (NaN for empty bins); the x coordinate of
        the empirical agent characteristic curve and of ``slope``.
    bin_centers_ : ndarray of shape (n_bins,)
        Midpoints of the bins.
    bin_weights_ : ndarray of shape (n_bins,)
        Share of the (binned) task weight in each bin; with all tasks binned
        and complete data, ``response_curves(X) @ bin_weights_ == mean_score``
        (Prop. 1 of the C-test note).
    task_weights_ : ndarray of shape (n_tasks,)
        The task weights used (ones when ``task_weights`` is None).
    difficulty_model_ : estimator or None
        The fitted IRT model when the difficulty came from one.
    n_features_in_ : int
        Number of tasks seen in fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Task names, when ``X`` had string column names.

    See Also
    --------
    sklearn_eval.irt.IRT2PL : the 2PL model that estimates task difficulties.

    Notes
    -----
    ``regularity`` is ``1 / sigma^2`` with ``sigma^2`` the population variance
    of the agent's responses over all tasks (paper eq. 2); for binary
    responses it is a function of the mean alone. ``slope`` is the paper's
    Fig. 9 proxy: the slope of the empirical agent characteristic curve
    (success rate per bin against the bins' median difficulty) at its first
    drop from above 0.5 to below 0.5, NaN when it never drops through 0.5.
    ``normalized_generality`` is ``1 - spread^2 / (A (W - A))`` with ``A`` the
    ARC's area and ``W`` the difficulty range: 1 for a decreasing step, 0 for a
    flat curve, -1 for an increasing step; 0 by convention when
    ``A (W - A) = 0`` (all-0 and all-1 agents). All indicators depend on the
    population of agents and tasks (IRT difficulties are populational) and on
    the bins: never compare values computed with different bins.

    References
    ----------
    F. Martinez-Plumed and J. Hernandez-Orallo, "Dual Indicators to Analyse AI
    Benchmarks: Difficulty, Discrimination, Ability and Generality", IEEE
    Transactions on Games, 2018 (arXiv:1811.08186).

    J. Hernandez-Orallo, "A note about the generalisation of the C-tests",
    arXiv:1412.8529, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.irt import GeneralityScorer
    >>> difficulty = np.repeat([1.0, 2.0, 3.0, 4.0], 5)
    >>> step = np.repeat([1.0, 1.0, 0.0, 0.0], 5)   # solves levels 1-2 only
    >>> specialist = np.array([1, 1, 1, 0, 0] * 3 + [1, 0, 0, 0, 0], float)
    >>> X = np.vstack([step, specialist])
    >>> scorer = GeneralityScorer(difficulty=difficulty, bins="unique").fit(X)
    >>> out = scorer.transform(X)
    >>> names = list(scorer.get_feature_names_out())
    >>> out[:, names.index("generality")].round(5).tolist()
    [inf, 1.13636]
    >>> out[:, names.index("regularity")].tolist()
    [4.0, 4.0]
    >>> scorer.response_curves(X)[1].tolist()
    [0.6, 0.6, 0.6, 0.2]
    """

    _parameter_constraints: dict = {
        "difficulty": [
            StrOptions({"irt", "rate"}),
            "array-like",
            HasMethods(["fit"]),
        ],
        "bins": [
            Interval(numbers.Integral, 1, None, closed="left"),
            StrOptions({"unique"}),
            "array-like",
        ],
        "min_tasks_per_bin": [Interval(numbers.Integral, 1, None, closed="left")],
        "threshold": [numbers.Real, None],
        "exclude_negative_discrimination": ["boolean"],
        "task_weights": ["array-like", None],
        "dispersion": [StrOptions({"var", "std"})],
        "empty_bins": [StrOptions({"interpolate", "nan"})],
        "integration": [StrOptions({"step", "trapezoid"})],
        "ctest_exponent": [Interval(numbers.Real, 0, None, closed="left")],
        "max_generality": [Interval(numbers.Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        difficulty="irt",
        *,
        bins=10,
        min_tasks_per_bin=5,
        threshold=None,
        exclude_negative_discrimination=True,
        task_weights=None,
        dispersion="var",
        empty_bins="interpolate",
        integration="step",
        ctest_exponent=1.0,
        max_generality=None,
    ):
        self.difficulty = difficulty
        self.bins = bins
        self.min_tasks_per_bin = min_tasks_per_bin
        self.threshold = threshold
        self.exclude_negative_discrimination = exclude_negative_discrimination
        self.task_weights = task_weights
        self.dispersion = dispersion
        self.empty_bins = empty_bins
        self.integration = integration
        self.ctest_exponent = ctest_exponent
        self.max_generality = max_generality

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Learn task difficulties and the difficulty bins.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results of agents (rows) on tasks (columns): 0/1 successes or
            scores in [0, 1] (any finite scores with ``threshold``). NaN marks
            a missing result.
        y : None
            Ignored.

        Returns
        -------
        self : GeneralityScorer
            The fitted scorer.
        """
        responses, agents, tasks = self._responses(X)
        weights = _check_weights(self.task_weights, responses.shape[1])
        edges = self._check_bins_param()
        difficulty, eligible, model = self._difficulties(X, responses, tasks)
        bins = make_difficulty_bins(difficulty, eligible, edges, self.min_tasks_per_bin)
        self._warn_about_bins(bins)
        binned = bins.task_bin >= 0
        bin_mass = np.bincount(
            bins.task_bin[binned], weights=weights[binned], minlength=bins.counts.size
        )
        if not bin_mass.sum() > 0:
            raise ValueError("task_weights are zero for every binned task.")
        # Everything validated: only now touch the fitted state.
        validate_data(self, X, reset=True, skip_check_array=True)
        self.difficulty_ = difficulty
        self.task_bin_ = bins.task_bin
        excluded = np.flatnonzero(~binned)
        self.excluded_tasks_ = excluded if tasks is None else tasks[excluded]
        self.bin_edges_ = bins.edges
        self.bin_counts_ = bins.counts
        self.bin_medians_ = bins.medians
        self.bin_centers_ = (bins.edges[:-1] + bins.edges[1:]) / 2.0
        self.bin_weights_ = bin_mass / bin_mass.sum()
        self.difficulty_model_ = model
        self.task_weights_ = weights
        return self

    def _check_bins_param(self):
        """Validate explicit edges (ints and "unique" pass through)."""
        if isinstance(self.bins, str) or np.ndim(self.bins) == 0:
            return self.bins
        edges = np.asarray(self.bins, dtype=np.float64)
        if edges.ndim != 1 or edges.size < 2:
            raise ValueError(
                "bins given as edges must be a 1-D array of at least 2 values; "
                f"got shape {edges.shape}."
            )
        if not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
            raise ValueError(
                f"bin edges must be finite and strictly increasing; got {edges}."
            )
        return edges

    def _responses(self, X):
        """Validate ``X`` and return the responses used by every indicator."""
        values, agents, tasks = check_result_matrix(X, allow_nan=True)
        if self.threshold is not None:
            if not np.isfinite(self.threshold):
                raise ValueError(f"threshold must be finite; got {self.threshold}.")
            success = (values >= self.threshold).astype(np.float64)
            responses = np.where(np.isnan(values), np.nan, success)
        else:
            try:
                responses = check_in_bounds(values, 0.0, 1.0)
            except ValueError as error:
                raise ValueError(
                    f"{error} GeneralityScorer needs results in [0, 1] (binary "
                    "successes or normalised scores); pass threshold= to turn "
                    "other scores into successes."
                ) from None
        empty_rows = np.all(np.isnan(responses), axis=1)
        if empty_rows.any():
            row = int(np.flatnonzero(empty_rows)[0])
            label = "" if agents is None else f" ({agents[row]!r})"
            raise ValueError(f"X row {row}{label} has no observed result.")
        return responses, agents, tasks

    def _difficulties(self, X, responses, tasks):
        """Task difficulties, the tasks eligible for binning, and the model."""
        n_tasks = responses.shape[1]
        source = self.difficulty
        if isinstance(source, str) and source == "rate":
            observed = ~np.isnan(responses)
            empty = ~observed.any(axis=0)
            if empty.any():
                column = int(np.flatnonzero(empty)[0])
                raise ValueError(
                    f"X {_task_name(tasks, column)} has no observed result, so "
                    "its success rate (difficulty='rate') is undefined."
                )
            difficulty = 1.0 - np.nanmean(responses, axis=0)
            return difficulty, np.ones(n_tasks, dtype=bool), None
        if isinstance(source, str) or hasattr(source, "fit"):
            return self._irt_difficulties(X, responses, tasks)
        difficulty = self._given_difficulties(source, tasks, n_tasks)
        return difficulty, np.ones(n_tasks, dtype=bool), None

    @staticmethod
    def _given_difficulties(source, tasks, n_tasks):
        """Validate a user-supplied difficulty vector."""
        if hasattr(source, "reindex") and tasks is not None:
            missing = [task for task in tasks if task not in source.index]
            if not missing:
                source = source.reindex(tasks)
        difficulty = np.asarray(source, dtype=np.float64)
        if difficulty.ndim != 1 or difficulty.shape[0] != n_tasks:
            raise ValueError(
                f"difficulty must have one value per task (column of X): expected "
                f"shape ({n_tasks},), got {difficulty.shape}."
            )
        bad = ~np.isfinite(difficulty)
        if bad.any():
            column = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"difficulty must be finite; got {difficulty[column]} for task "
                f"{_task_name(tasks, column)}. Drop that column from X (and "
                "from difficulty) to leave the task out."
            )
        return difficulty

    def _irt_difficulties(self, X, responses, tasks):
        """Difficulties from an IRT model (fitted here, or frozen)."""
        n_tasks = responses.shape[1]
        binary = np.isnan(responses) | (responses == 0) | (responses == 1)
        if not binary.all():
            row, column = np.argwhere(~binary)[0]
            raise ValueError(
                "An IRT difficulty needs binary responses; X has "
                f"{responses[row, column]!r} at row {row}, "
                f"{_task_name(tasks, column)}. Pass threshold= to binarise "
                "scores, or use difficulty='rate' or a difficulty array."
            )
        if isinstance(self.difficulty, str):
            from ._irt2pl import IRT2PL

            model = IRT2PL()
        else:
            model = self.difficulty
        if not isinstance(model, FrozenEstimator):
            model = clone(model).fit(_like(X, responses))
        difficulty = np.asarray(getattr(model, "difficulty_", None), dtype=np.float64)
        if difficulty.shape != (n_tasks,):
            raise ValueError(
                f"The difficulty model's difficulty_ has shape {difficulty.shape}; "
                f"expected one value per task ({n_tasks},). A frozen model must "
                "have been fitted on the same tasks."
            )
        eligible = np.isfinite(difficulty)
        discrimination = getattr(model, "discrimination_", None)
        if self.exclude_negative_discrimination and discrimination is not None:
            eligible &= ~(np.asarray(discrimination, dtype=np.float64) < 0)
        if not eligible.any():
            raise ValueError(
                "No task is left to bin: every task has a negative "
                "discrimination or no finite difficulty."
            )
        return difficulty, eligible, model

    def _warn_about_bins(self, bins):
        """Warnings for tasks outside explicit edges and fragile bins."""
        if bins.n_outside:
            warnings.warn(
                f"{bins.n_outside} task(s) have a difficulty outside the bin edges "
                f"({bins.edges[0]}, {bins.edges[-1]}] and are left out of the "
                "binned indicators.",
                UserWarning,
                stacklevel=4,
            )
        if not (bins.counts > 0).any():
            raise ValueError(
                "No task falls inside the bin edges "
                f"({bins.edges[0]}, {bins.edges[-1]}]."
            )
        if np.sum(bins.counts > 0) == 1 and bins.counts.sum() > 1:
            warnings.warn(
                "All binned tasks fall in one difficulty bin: generality then "
                "equals the regularity of those tasks and the response curve "
                "is a single point. Use more bins or finer edges.",
                UserWarning,
                stacklevel=4,
            )
        small = (bins.counts > 0) & (bins.counts < self.min_tasks_per_bin)
        if small.any() and not (np.ndim(self.bins) == 0 and self.bins != "unique"):
            warnings.warn(
                f"{int(small.sum())} bin(s) hold fewer than min_tasks_per_bin="
                f"{self.min_tasks_per_bin} tasks (counts {bins.counts.tolist()}); "
                "their variances are unstable.",
                UserWarning,
                stacklevel=4,
            )

    # ------------------------------------------------------------ transform
    def _check_transform_input(self, X):
        """Validate ``X`` against the fitted tasks and return responses."""
        check_is_fitted(self, "bin_edges_")
        responses, agents, _ = self._responses(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        return responses, agents

    def _curves(self, responses):
        """Raw per-bin means (NaN where unobserved) and variances."""
        return _bin_moments(
            responses, self.task_weights_, self.task_bin_, self.bin_counts_.size
        )

    def transform(self, X):
        """Compute the per-agent indicators against the fitted bins.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results on the tasks seen in fit (same validation as ``fit``).

        Returns
        -------
        indicators : ndarray of shape (n_agents, 9)
            Columns named by :meth:`get_feature_names_out`: generality,
            regularity, slope, capability, spread, spread_generality,
            normalized_generality, mean_score, ctest_score.
        """
        responses, _ = self._check_transform_input(X)
        return self._indicators(responses)

    def _indicators(self, responses):
        """The indicator matrix of validated responses (see ``transform``)."""
        raw_curve, bin_variance = self._curves(responses)
        curve = _fill_empty_bins(raw_curve, self.empty_bins)
        mean, variance = _overall_moments(responses, self.task_weights_)
        dispersion = bin_variance if self.dispersion == "var" else np.sqrt(bin_variance)
        cap = self.max_generality
        generality = _reciprocal(np.nansum(dispersion, axis=1), cap)
        regularity = _reciprocal(variance, cap)
        slope = _first_crossing_slope(raw_curve, self.bin_medians_)
        capability, spread, normalized = self._arc_indicators(curve)
        spread_generality = _reciprocal(spread, cap)
        levels = np.arange(1, curve.shape[1] + 1, dtype=np.float64)
        level_weights = levels**self.ctest_exponent
        ctest = curve @ (level_weights / level_weights.sum())
        return np.column_stack(
            [
                generality,
                regularity,
                slope,
                capability,
                spread,
                spread_generality,
                normalized,
                mean,
                ctest,
            ]
        )

    def _arc_points(self):
        """x coordinates of the bins for trapezoid integration."""
        return np.where(
            np.isnan(self.bin_medians_), self.bin_centers_, self.bin_medians_
        )

    def _arc_indicators(self, curve):
        """Capability, spread and normalised generality of each ARC."""
        if self.integration == "trapezoid" and curve.shape[1] > 1:
            points = self._arc_points()
            capability, second = _capability_and_spread_trapezoid(curve, points)
            low, high = points[0], points[-1]
        else:
            capability, second = _capability_and_spread_step(curve, self.bin_edges_)
            low, high = self.bin_edges_[0], self.bin_edges_[-1]
        second = np.where(second < 0, 0.0, second)
        spread = np.sqrt(second)
        width = high - low
        area = capability - low
        denominator = area * (width - area)
        degenerate = denominator <= _DEGENERATE_TOL * width**2
        with np.errstate(divide="ignore", invalid="ignore"):
            normalized = np.where(
                degenerate, 0.0, 1.0 - second / np.where(degenerate, 1, denominator)
            )
        normalized = np.where(np.isnan(capability), np.nan, normalized)
        return capability, spread, normalized

    def get_feature_names_out(self, input_features=None):
        """Names of the indicator columns returned by ``transform``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Ignored (the output columns do not depend on the tasks).

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        check_is_fitted(self, "bin_edges_")
        return np.asarray(FEATURE_NAMES, dtype=object)

    # ------------------------------------------------------------- curves
    def response_curves(self, X):
        """Each agent's success rate per difficulty bin (the empirical ACC).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results on the tasks seen in fit.

        Returns
        -------
        curves : ndarray of shape (n_agents, n_bins) or DataFrame
            Weighted mean response of each agent over the tasks of each bin
            (bins ordered by difficulty; x coordinates in ``bin_medians_`` or
            ``bin_centers_``). Bins without an observed task follow
            ``empty_bins``. A DataFrame (agents x bin intervals) when ``X``
            is a DataFrame.
        """
        responses, _ = self._check_transform_input(X)
        raw_curve, _ = self._curves(responses)
        curve = _fill_empty_bins(raw_curve, self.empty_bins)
        if hasattr(X, "iloc"):
            import pandas as pd

            return pd.DataFrame(curve, index=X.index, columns=self._bin_labels())
        return curve

    def _bin_labels(self):
        """Interval labels of the bins, e.g. ``"(-1, 0]"``."""
        edges = [f"{edge:g}" for edge in self.bin_edges_]
        pairs = zip(edges[:-1], edges[1:], strict=True)
        return [f"({low}, {high}]" for low, high in pairs]

    def item_curves(self, X, abilities=None, *, bins=5):
        """Each task's empirical success rate against binned agent ability.

        The item characteristic data: agents are grouped by ability, and each
        task's mean response is computed within each group.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results on the tasks seen in fit.
        abilities : array-like of shape (n_agents,), default=None
            Agent abilities. If None: the IRT model's abilities for ``X``
            (``estimate_abilities``, else the first column of ``transform``)
            when the difficulties came from an IRT model, else
            the agents' ``capability`` (on the same scale as the difficulties).
        bins : int or array-like of edges, default=5
            An int gives equal-frequency ability groups (merged so that each
            holds at least one agent); edges give right-closed intervals.

        Returns
        -------
        result : Bunch
            ``success_rate`` (n_tasks, n_ability_bins), NaN where no agent of
            the group was observed on the task; ``counts`` (n_tasks,
            n_ability_bins) observed responses; ``ability_edges``;
            ``ability_medians`` (median ability per group); ``abilities``
            (n_agents,) and ``ability_bin`` (n_agents,), -1 outside edges.
        """
        responses, _ = self._check_transform_input(X)
        theta = self._abilities(X, responses, abilities)
        if np.ndim(bins) == 0:
            if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
                raise TypeError(f"bins must be an int or edges; got {bins!r}.")
            if bins < 1:
                raise ValueError(f"bins must be >= 1; got {bins}.")
            edges = merge_small_bins(theta, quantile_edges(theta, int(bins)), 1)
            group = assign_right_closed(theta, edges, include_lowest=True)
        else:
            edges = np.asarray(bins, dtype=np.float64)
            if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
                raise ValueError("bins edges must be 1-D and strictly increasing.")
            group = assign_right_closed(theta, edges)
        n_groups = edges.size - 1
        membership = np.zeros((responses.shape[0], n_groups))
        inside = group >= 0
        membership[np.flatnonzero(inside), group[inside]] = 1.0
        observed = ~np.isnan(responses)
        counts = observed.T.astype(np.float64) @ membership
        successes = np.where(observed, responses, 0.0).T @ membership
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = successes / counts
        rate[counts == 0] = np.nan
        return Bunch(
            success_rate=rate,
            counts=counts.astype(np.int64),
            ability_edges=edges,
            ability_medians=bin_medians(theta, group, n_groups),
            abilities=theta,
            ability_bin=group,
        )

    def _abilities(self, X, responses, abilities):
        """Abilities for item curves: given, from the IRT model, or capability."""
        if abilities is not None:
            theta = np.asarray(abilities, dtype=np.float64).ravel()
            if theta.shape != (responses.shape[0],) or not np.all(np.isfinite(theta)):
                raise ValueError(
                    "abilities must hold one finite value per agent (row of X); "
                    f"got shape {np.shape(abilities)}."
                )
            return theta
        model = self.difficulty_model_
        if model is not None and hasattr(model, "estimate_abilities"):
            theta, _ = model.estimate_abilities(_like(X, responses))
            return np.asarray(theta, dtype=np.float64)
        if model is not None and hasattr(model, "transform"):
            theta = np.asarray(model.transform(_like(X, responses)), float)
            return theta if theta.ndim == 1 else theta[:, 0]
        return self._indicators(responses)[:, FEATURE_NAMES.index("capability")]

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Tasks are resampled with their given difficulties and weights, and
        any ``transform`` column can be ranked (``"generality"`` by default).

        Parameters
        ----------
        target : str or None, default=None
            A column of ``get_feature_names_out()``.

        Returns
        -------
        plan : IntervalPlan
        """
        return generality_interval_plan(self, target, FEATURE_NAMES)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = False
        return tags


def _like(X, values):
    """``values`` as a DataFrame shaped like ``X`` when ``X`` is one."""
    if hasattr(X, "iloc"):
        import pandas as pd

        return pd.DataFrame(values, index=X.index, columns=X.columns)
    return values
