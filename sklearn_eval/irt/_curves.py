"""Per-agent curves and indicators against binned task difficulty.

Pure functions behind :class:`~sklearn_eval.irt.GeneralityScorer`: the
within-bin weighted mean and variance of each agent's responses (the agent
response curve and its dispersion), the filling of empty bins, and the
indicators read from the curve (generality, regularity, slope, capability,
spread, normalised generality, C-test score). See the user guide page
"Generality" (``docs/user_guide/generality.rst``).
"""

import numpy as np
from scipy import sparse

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
    """Mean and variance of each agent's responses in each difficulty bin.

    ``responses`` is a dense array (NaN = missing) or a CSR holding the
    observed results only (:func:`_sparse_moments`).
    """
    if sparse.issparse(responses):
        return _sparse_moments(responses, weights, task_bin, n_bins)
    membership = _membership(task_bin, weights, n_bins)
    return _blocked_moments(responses, membership, np.maximum(task_bin, 0))


def _overall_moments(responses, weights):
    """Weighted mean and population variance of each agent over all tasks."""
    group = np.zeros(responses.shape[1], dtype=np.int64)
    if sparse.issparse(responses):
        mean, variance = _sparse_moments(responses, weights, group, 1)
    else:
        membership = _membership(group, weights, 1)
        mean, variance = _blocked_moments(responses, membership, group)
    return mean[:, 0], variance[:, 0]


def _sparse_moments(responses, weights, task_group, n_groups):
    """:func:`_weighted_moments` of a CSR of observed results, in O(results).

    Tasks with ``task_group < 0`` belong to no group. Row blocks keep the
    temporaries small.
    """
    n_agents = responses.shape[0]
    total = np.zeros((n_agents, n_groups))
    sums = np.zeros((n_agents, n_groups))
    squares = np.zeros((n_agents, n_groups))
    binary = bool(np.all((responses.data == 0.0) | (responses.data == 1.0)))
    rows_per_block = max(1, (_BLOCK_ELEMENTS * 16) // max(
        responses.nnz // max(n_agents, 1), 1))
    for start in range(0, n_agents, rows_per_block):
        block = responses[start:start + rows_per_block]
        row = np.repeat(np.arange(block.shape[0]), np.diff(block.indptr))
        group = task_group[block.indices]
        inside = group >= 0
        cell = (row * n_groups + group)[inside]
        weight = weights[block.indices][inside]
        value = block.data[inside]
        size = block.shape[0] * n_groups
        part_total = np.bincount(cell, weights=weight, minlength=size)
        part_sums = np.bincount(cell, weights=weight * value, minlength=size)
        rows = slice(start, start + block.shape[0])
        total[rows] = part_total.reshape(-1, n_groups)
        sums[rows] = part_sums.reshape(-1, n_groups)
        if not binary:
            with np.errstate(invalid="ignore", divide="ignore"):
                block_mean = np.where(part_total > 0, part_sums / part_total, 0.0)
            deviation = value - block_mean[cell]
            squares[rows] = np.bincount(cell, weights=weight * deviation**2,
                                        minlength=size).reshape(-1, n_groups)
    absent = ~(total > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / total
        variance = mean * (1.0 - mean) if binary else squares / total
    if not binary:
        variance[variance < _ZERO_VARIANCE] = 0.0
    mean[absent] = np.nan
    variance[absent] = np.nan
    return mean, variance


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



def _area_step(curve, edges):
    """Area under the piecewise-constant ARC over ``[edges[0], edges[-1]]``."""
    return curve @ np.diff(edges)


def _area_trapezoid(curve, points):
    """Area under the piecewise-linear ARC over ``[points[0], points[-1]]``."""
    return ((curve[:, :-1] + curve[:, 1:]) / 2.0) @ np.diff(points)


def _arc_points(bin_medians, bin_centers):
    """x coordinates of the bins for trapezoid integration."""
    return np.where(np.isnan(bin_medians), bin_centers, bin_medians)


def _arc_indicators(curve, edges, points, integration):
    """Capability, spread and normalised generality of each ARC.

    The area ``A`` under the curve is summed from the curve itself, not taken
    as ``capability - low``: the difference loses the digits of a tiny area
    when the difficulty scale is far from 0, and ``A (W - A)`` divides the
    normalised generality.
    """
    if integration == "trapezoid" and curve.shape[1] > 1:
        capability, second = _capability_and_spread_trapezoid(curve, points)
        area = _area_trapezoid(curve, points)
        low, high = points[0], points[-1]
    else:
        capability, second = _capability_and_spread_step(curve, edges)
        area = _area_step(curve, edges)
        low, high = edges[0], edges[-1]
    second = np.where(second < 0, 0.0, second)
    spread = np.sqrt(second)
    width = high - low
    denominator = area * (width - area)
    degenerate = denominator <= _DEGENERATE_TOL * width**2
    with np.errstate(divide="ignore", invalid="ignore"):
        normalized = np.where(
            degenerate, 0.0, 1.0 - second / np.where(degenerate, 1, denominator)
        )
    normalized = np.where(np.isnan(capability), np.nan, normalized)
    return capability, spread, normalized


def _indicator_matrix(responses, raw_curve, bin_variance, *, task_weights,
                      bin_edges, bin_medians, bin_centers, empty_bins,
                      dispersion, integration, ctest_exponent, max_generality):
    """The indicator matrix (columns ``FEATURE_NAMES``) of validated responses.

    ``raw_curve`` and ``bin_variance`` are the per-bin moments of
    ``responses`` (:func:`_bin_moments`); the keyword arguments describe the
    fitted bins and the scorer's parameters.
    """
    curve = _fill_empty_bins(raw_curve, empty_bins)
    mean, variance = _overall_moments(responses, task_weights)
    spread_per_bin = bin_variance if dispersion == "var" else np.sqrt(bin_variance)
    generality = _reciprocal(np.nansum(spread_per_bin, axis=1), max_generality)
    regularity = _reciprocal(variance, max_generality)
    slope = _first_crossing_slope(raw_curve, bin_medians)
    capability, spread, normalized = _arc_indicators(
        curve, bin_edges, _arc_points(bin_medians, bin_centers), integration
    )
    spread_generality = _reciprocal(spread, max_generality)
    levels = np.arange(1, curve.shape[1] + 1, dtype=np.float64)
    level_weights = levels**ctest_exponent
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
