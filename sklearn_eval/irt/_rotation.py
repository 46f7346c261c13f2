"""Factor rotations of the loadings of a multidimensional IRT model.

Gradient projection (Jennrich 2001, 2002; Bernaards & Jennrich 2005, the
algorithms of R's ``GPArotation``): the oblique rotation minimises the
oblimin criterion (``gamma = 0``, quartimin) of ``L = A (T^T)^{-1}`` over
matrices ``T`` with unit-length columns; the orthogonal one minimises the
varimax criterion of ``L = A T`` over orthogonal ``T``. Either way the
rotated factors are ``eta = T^T theta`` with correlations ``T^T T``, and
``L eta = A theta``: the model, hence the likelihood, does not change.
"""

import numpy as np

__all__ = ["rotate_loadings"]

_N_STARTS = 10  # the identity and random orthogonal starts (local minima)


def _oblimin(L):
    """Quartimin value and gradient (Jennrich 2002, ``gamma = 0``)."""
    L2 = L * L
    X = L2 @ (np.ones((L.shape[1], L.shape[1])) - np.eye(L.shape[1]))
    return float(np.sum(L2 * X) / 4.0), L * X


def _varimax(L):
    """Varimax value and gradient (``GPArotation::vgQ.varimax``)."""
    QL = L * L - (L * L).mean(axis=0)
    return float(-np.sum(QL * QL) / 4.0), -L * QL


def _oblique(A, T, max_iter=1000, eps=1e-6):
    """``GPFoblq``: oblique gradient projection from ``T``."""
    alpha = 1.0
    L = A @ np.linalg.inv(T).T
    f, Gq = _oblimin(L)
    G = -(L.T @ Gq @ np.linalg.inv(T)).T
    for _ in range(max_iter):
        Gp = G - T * np.sum(T * G, axis=0)
        s = np.linalg.norm(Gp)
        if s < eps:
            break
        alpha *= 2.0
        for _halving in range(11):
            X = T - alpha * Gp
            Tt = X / np.sqrt(np.sum(X * X, axis=0))
            L = A @ np.linalg.inv(Tt).T
            ft, Gq = _oblimin(L)
            if ft < f - 0.5 * s * s * alpha:
                break
            alpha /= 2.0
        T, f = Tt, ft
        G = -(L.T @ Gq @ np.linalg.inv(Tt)).T
    return T, f


def _orthogonal(A, T, max_iter=1000, eps=1e-6):
    """``GPForth``: orthogonal gradient projection from ``T``."""
    alpha = 1.0
    f, Gq = _varimax(A @ T)
    G = A.T @ Gq
    for _ in range(max_iter):
        M = T.T @ G
        Gp = G - T @ ((M + M.T) / 2.0)
        s = np.linalg.norm(Gp)
        if s < eps:
            break
        alpha *= 2.0
        for _halving in range(11):
            U, _, Vt = np.linalg.svd(T - alpha * Gp)
            Tt = U @ Vt
            ft, Gq = _varimax(A @ Tt)
            if ft < f - 0.5 * s * s * alpha:
                break
            alpha /= 2.0
        T, f = Tt, ft
        G = A.T @ Gq
    return T, f


def _random_orthogonal(rng, m):
    q, r = np.linalg.qr(rng.standard_normal((m, m)))
    return q * np.sign(np.diag(r))


def rotate_loadings(A, method, weights=None):
    """Rotation matrix ``T`` of the loadings ``A`` (n_items, m).

    ``method`` is ``"oblimin"``, ``"varimax"`` or None. The criterion is
    evaluated on ``weights[:, None] * A`` (the standardised loadings when
    ``weights`` holds each item's scale factor). Several starts (the
    identity and random orthogonal matrices from a fixed seed) guard
    against local minima; the best is kept. ``None`` gives the principal
    axes of ``A`` (orthogonal: the first factor is the direction that
    explains most of the loadings). The factors are then signed so that
    their loadings sum to a positive number and ordered by decreasing sum
    of squared rotated loadings.

    Returns ``T`` of shape (m, m); the rotated loadings are
    ``A @ inv(T).T``, the factor correlations ``T.T @ T``.
    """
    A = np.asarray(A, dtype=np.float64)
    m = A.shape[1]
    B = A if weights is None else A * np.asarray(weights)[:, None]
    if method is None:
        T = np.linalg.svd(B, full_matrices=False)[2].T
    else:
        solve = _oblique if method == "oblimin" else _orthogonal
        rng = np.random.default_rng(0)
        starts = [np.eye(m)] + [_random_orthogonal(rng, m)
                                for _ in range(_N_STARTS - 1)]
        best = min((solve(B, start) for start in starts), key=lambda r: r[1])
        T = best[0]
    L = A @ np.linalg.inv(T).T
    T = T * np.where(L.sum(axis=0) < 0, -1.0, 1.0)
    L = A @ np.linalg.inv(T).T
    return T[:, np.argsort(-np.sum(L * L, axis=0), kind="stable")]
