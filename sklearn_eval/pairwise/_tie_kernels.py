"""Per-cell terms of the extended likelihood: one fused pass over the cells.

For the strength differences ``d`` of the cells, the tie parameter and the
weighted outcome counts (loss, tie, win), :func:`cell_terms` returns the
negative log-likelihood, its first derivatives in ``d`` (per cell) and in
the tie parameter (summed), and the second derivatives ``h_dd``, ``h_dt``
(per cell) and ``h_tt`` (summed); see ``_ties`` for the models. With numba
(and unless ``SKLEARN_EVAL_DISABLE_NUMBA`` is set, as for the online scans)
one compiled loop computes everything, otherwise vectorised numpy does; both
give the same numbers up to rounding.
"""

import math

import numpy as np
from scipy.special import expit

from ._kernels import HAVE_NUMBA

__all__ = ["MODEL_CODES", "cell_terms"]

MODEL_CODES = {"half": 0, "davidson": 1, "rao-kupper": 2}


def _terms_loop(code, d, tie, counts, g_d, h_dd, h_dt):
    """The compiled body: fills g_d, h_dd, h_dt, returns (loss, g_t, h_tt)."""
    loss = 0.0
    g_t = 0.0
    h_tt = 0.0
    ties = 0.0
    for c in range(d.shape[0]):
        lo = counts[c, 0]
        ti = counts[c, 1]
        wi = counts[c, 2]
        total = lo + ti + wi
        z = d[c]
        if code == 0:
            e = math.exp(-abs(z))
            softplus = max(z, 0.0) + math.log1p(e)
            p = 1.0 / (1.0 + e) if z >= 0.0 else e / (1.0 + e)
            score = wi + 0.5 * ti
            loss += total * softplus - score * z
            g_d[c] = total * p - score
            h_dd[c] = total * p * (1.0 - p)
            h_dt[c] = 0.0
        elif code == 1:
            u = 0.5 * z
            top = max(abs(u), tie)
            e_loss = math.exp(-u - top)
            e_tie = math.exp(tie - top)
            e_win = math.exp(u - top)
            norm = e_loss + e_tie + e_win
            p_loss = e_loss / norm
            p_tie = e_tie / norm
            p_win = e_win / norm
            loss += total * (top + math.log(norm)) + (lo - wi) * u - ti * tie
            gap = p_win - p_loss
            g_d[c] = 0.5 * (total * gap - wi + lo)
            g_t += total * p_tie - ti
            h_dd[c] = 0.25 * total * (p_win + p_loss - gap * gap)
            h_dt[c] = -0.5 * total * gap * p_tie
            h_tt += total * p_tie * (1.0 - p_tie)
        else:
            a1 = z - tie
            a2 = -z - tie
            e1 = math.exp(-abs(a1))
            e2 = math.exp(-abs(a2))
            sp1 = max(a1, 0.0) + math.log1p(e1)
            sp2 = max(a2, 0.0) + math.log1p(e2)
            s1 = 1.0 / (1.0 + e1) if a1 >= 0.0 else e1 / (1.0 + e1)
            s2 = 1.0 / (1.0 + e2) if a2 >= 0.0 else e2 / (1.0 + e2)
            loss += wi * (sp1 - a1) + lo * (sp2 - a2) + ti * (sp1 + sp2)
            g1 = (wi + ti) * s1 - wi
            g2 = (lo + ti) * s2 - lo
            g_d[c] = g1 - g2
            g_t += -g1 - g2
            h1 = (wi + ti) * s1 * (1.0 - s1)
            h2 = (lo + ti) * s2 * (1.0 - s2)
            h_dd[c] = h1 + h2
            h_dt[c] = h2 - h1
            h_tt += h1 + h2
            ties += ti
    if code == 2:
        # the tie term -T log(1 - e^(-2 kappa)) and its derivatives
        loss -= ties * math.log(-math.expm1(-2.0 * tie))
        g_t += ties * (-2.0 / math.expm1(2.0 * tie))
        h_tt += ties * 4.0 / (math.expm1(2.0 * tie) * -math.expm1(-2.0 * tie))
    return loss, g_t, h_tt


def _terms_numpy(code, d, tie, counts):
    lo, ti, wi = counts[:, 0], counts[:, 1], counts[:, 2]
    total = lo + ti + wi
    if code == 0:
        p = expit(d)
        score = wi + 0.5 * ti
        loss = total @ np.logaddexp(0.0, d) - score @ d
        curvature = total * p * (1.0 - p)
        return loss, total * p - score, 0.0, curvature, np.zeros_like(d), 0.0
    if code == 1:
        u = 0.5 * d
        top = np.maximum(np.abs(u), tie)
        e = np.exp(np.column_stack([-u - top, np.full_like(u, tie) - top, u - top]))
        norm = e.sum(axis=1)
        p = e / norm[:, None]
        loss = total @ (top + np.log(norm)) + (lo - wi) @ u - ti.sum() * tie
        gap = p[:, 2] - p[:, 0]
        return (
            loss, 0.5 * (total * gap - wi + lo), total @ p[:, 1] - ti.sum(),
            0.25 * total * (p[:, 2] + p[:, 0] - gap * gap),
            -0.5 * total * gap * p[:, 1], total @ (p[:, 1] * (1.0 - p[:, 1])),
        )
    a1, a2 = d - tie, -d - tie
    sp1, sp2 = np.logaddexp(0.0, a1), np.logaddexp(0.0, a2)
    s1, s2 = expit(a1), expit(a2)
    ties = ti.sum()
    loss = (wi @ (sp1 - a1) + lo @ (sp2 - a2) + ti @ (sp1 + sp2)
            - ties * math.log(-math.expm1(-2.0 * tie)))
    g1 = (wi + ti) * s1 - wi
    g2 = (lo + ti) * s2 - lo
    h1 = (wi + ti) * s1 * (1.0 - s1)
    h2 = (lo + ti) * s2 * (1.0 - s2)
    g_t = -(g1 + g2).sum() + ties * (-2.0 / math.expm1(2.0 * tie))
    h_tt = (h1 + h2).sum() + ties * 4.0 / (
        math.expm1(2.0 * tie) * -math.expm1(-2.0 * tie)
    )
    return loss, g1 - g2, g_t, h1 + h2, h2 - h1, h_tt


_COMPILED = []


def _compiled():
    if not _COMPILED:
        import numba

        _COMPILED.append(numba.njit(cache=True, nogil=True)(_terms_loop))
    return _COMPILED[0]


def cell_terms(model, d, tie, counts, *, compiled=None):
    """Loss, gradient and curvature terms of the cells.

    Parameters
    ----------
    model : {"half", "davidson", "rao-kupper"}
    d : ndarray of shape (m,)
    tie : float
        Internal tie parameter (ignored for "half"); kappa > 0 for
        Rao-Kupper.
    counts : ndarray of shape (m, 3)
    compiled : bool or None
        Force the numba loop (True) or numpy (False); None picks numba when
        available.

    Returns
    -------
    loss : float
    g_d : ndarray (m,)
    g_t : float
    h_dd, h_dt : ndarray (m,)
    h_tt : float
    """
    code = MODEL_CODES[model]
    tie = 0.0 if tie is None else float(tie)
    use_numba = HAVE_NUMBA if compiled is None else compiled
    if not use_numba:
        return _terms_numpy(code, d, tie, counts)
    g_d = np.empty_like(d)
    h_dd = np.empty_like(d)
    h_dt = np.empty_like(d)
    loss, g_t, h_tt = _compiled()(
        code, np.ascontiguousarray(d, dtype=np.float64), tie,
        np.ascontiguousarray(counts, dtype=np.float64), g_d, h_dd, h_dt,
    )
    return loss, g_d, g_t, h_dd, h_dt, h_tt
