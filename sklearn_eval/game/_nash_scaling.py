"""Overflow-free arithmetic on payoffs for Nash averaging.

Any finite payoff is legal, up to the largest double (about 1.8e308). The
differences and sums that Nash averaging needs (``X - X.T``, ``max - min``,
``X - shift``) can overflow there although their results, once halved or
scaled, are representable; these helpers compute them on halves. The
equilibrium itself is computed at unit scale by the solver.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "antisymmetric_part",
    "antisymmetry_ratio",
    "column_normalization",
    "normalize_columns",
]


def antisymmetric_part(X):
    """``(X - X.T) / 2`` without overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        A = 0.5 * (X - X.T)
    if not np.all(np.isfinite(A)):
        A = 0.5 * X - 0.5 * X.T
    return A


def antisymmetry_ratio(X, scale):
    """``|X + X.T| / scale`` without overflow (``scale > 0``)."""
    with np.errstate(over="ignore", invalid="ignore"):
        excess = np.abs(X + X.T) / scale
    if not np.all(np.isfinite(excess)):
        excess = np.abs(0.5 * X + 0.5 * X.T) / (0.5 * scale)
    return excess


def _column_mean(X):
    """Column means of X, at unit scale per column (no overflow of the sum)."""
    size = np.max(np.abs(X), axis=0)
    size = np.where(size > 0, size, 1.0)
    return size * (X / size).mean(axis=0), size


def column_normalization(X, kind):
    """Per-column ``shift`` and *half* scale of a normalisation, and the
    constant columns.

    ``kind`` is None (identity), ``"minmax"`` (to [0, 1]) or ``"zscore"``.
    Normalised values are ``(X - shift) / (2 * half_scale)``, evaluated by
    :func:`normalize_columns` on halves so that neither ``max - min`` nor
    ``X - shift`` overflows. Constant columns get ``half_scale = 0.5`` and
    ``flat = True`` (the caller maps them to 0).
    """
    n = X.shape[1]
    if kind is None:
        shift, half = np.zeros(n), np.full(n, 0.5)
    elif kind == "minmax":
        shift = X.min(axis=0)
        half = 0.5 * X.max(axis=0) - 0.5 * shift
    else:
        shift, size = _column_mean(X)
        # std of X / max|X|, rescaled: no overflow or underflow of the
        # squares at extreme magnitudes (1e300, 1e-300)
        half = 0.5 * size * (X / size).std(axis=0)
    flat = ~(half > 0)
    if flat.any():
        shift = np.where(flat, _column_mean(X)[0], shift)
        half = np.where(flat, 0.5, half)
    return shift, half, flat


def normalize_columns(X, shift, half_scale):
    """``(X - shift) / (2 * half_scale)``, recomputed on halves where the
    direct evaluation overflows (exact for the identity normalisation)."""
    with np.errstate(over="ignore", invalid="ignore"):
        Z = (X - shift) / half_scale * 0.5
        if not np.all(np.isfinite(Z)):
            # still infinite only beyond the double range (caller's error)
            Z = (0.5 * X - 0.5 * shift) / half_scale
    return Z
