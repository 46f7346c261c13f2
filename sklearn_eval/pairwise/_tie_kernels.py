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

from ..utils._jit import jit_kernel
from ._kernels import COMPILED_FROM, HAVE_NUMBA

__all__ = [
    "MODEL_CODES",
    "cell_terms",
    "meat_terms",
    "newton_dense",
]

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
        # divided in turn: the product of the two expm1 underflows to 0 for
        # kappa below about 1e-162 (a rare tie), where h_tt is still finite
        h_tt += ties * 4.0 / math.expm1(2.0 * tie) / -math.expm1(-2.0 * tie)
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
    h_tt = (h1 + h2).sum() + (
        ties * 4.0 / math.expm1(2.0 * tie) / -math.expm1(-2.0 * tie)
    )
    return loss, g1 - g2, g_t, h1 + h2, h2 - h1, h_tt


def _assemble_loop(first, second, design, g_d, h_dd, h_dt, n, hessian, grad):
    """Adds the cells' gradient and Hessian to ``grad`` and ``hessian`` (upper
    triangle of the covariate/tie block only; the caller mirrors it)."""
    q = design.shape[1]
    tie = hessian.shape[0] > n + q
    for c in range(first.shape[0]):
        f = first[c]
        s = second[c]
        g = g_d[c]
        h = h_dd[c]
        grad[f] += g
        grad[s] -= g
        hessian[f, f] += h
        hessian[s, s] += h
        hessian[f, s] -= h
        hessian[s, f] -= h
        for j in range(q):
            x = design[c, j]
            grad[n + j] += g * x
            hessian[f, n + j] += h * x
            hessian[s, n + j] -= h * x
            for k in range(j, q):
                hessian[n + j, n + k] += h * x * design[c, k]
        if tie:
            t = h_dt[c]
            hessian[f, n + q] += t
            hessian[s, n + q] -= t
            for j in range(q):
                hessian[n + j, n + q] += t * design[c, j]


def _meat_loop(code, d, tie, weights, w_dd, w_dt):
    """Per-cell sum over outcomes of weights * (score_d^2, score_d score_t);
    returns the summed weights * score_t^2 (see ``_ties._outcome_scores``)."""
    w_tt = 0.0
    dq = 0.0
    if code == 2:
        dq = -2.0 / math.expm1(2.0 * tie)
    for c in range(d.shape[0]):
        z = d[c]
        if code == 0:
            p = 1.0 / (1.0 + math.exp(-z)) if z >= 0.0 else 1.0 - 1.0 / (
                1.0 + math.exp(z)
            )
            w_dd[c] = (weights[c, 0] * p * p + weights[c, 1] * (p - 0.5) ** 2
                       + weights[c, 2] * (p - 1.0) ** 2)
            w_dt[c] = 0.0
            continue
        if code == 1:
            u = 0.5 * z
            top = max(abs(u), tie)
            e_loss = math.exp(-u - top)
            e_tie = math.exp(tie - top)
            e_win = math.exp(u - top)
            norm = e_loss + e_tie + e_win
            gap = (e_win - e_loss) / norm
            p_tie = e_tie / norm
            sd0, sd1, sd2 = 0.5 * (gap + 1.0), 0.5 * gap, 0.5 * (gap - 1.0)
            st0, st1, st2 = p_tie, p_tie - 1.0, p_tie
        else:
            a1 = z - tie
            a2 = -z - tie
            s1 = 1.0 / (1.0 + math.exp(-a1)) if a1 >= 0.0 else 1.0 - 1.0 / (
                1.0 + math.exp(a1)
            )
            s2 = 1.0 / (1.0 + math.exp(-a2)) if a2 >= 0.0 else 1.0 - 1.0 / (
                1.0 + math.exp(a2)
            )
            sd0, sd1, sd2 = 1.0 - s2, s1 - s2, s1 - 1.0
            st0, st1, st2 = 1.0 - s2, dq - s1 - s2, 1.0 - s1
        w0, w1, w2 = weights[c, 0], weights[c, 1], weights[c, 2]
        w_dd[c] = w0 * sd0 * sd0 + w1 * sd1 * sd1 + w2 * sd2 * sd2
        w_dt[c] = w0 * sd0 * st0 + w1 * sd1 * st1 + w2 * sd2 * st2
        w_tt += w0 * st0 * st0 + w1 * st1 * st1 + w2 * st2 * st2
    return w_tt


def _evaluate_loop(code, first, second, design, offset, counts, n, theta, alpha,
                   d, g_d, h_dd, h_dt):
    """Logits, loss (penalised; inf outside the parameter space) and terms."""
    q = design.shape[1]
    for c in range(first.shape[0]):
        z = theta[first[c]] - theta[second[c]] + offset
        for j in range(q):
            z += design[c, j] * theta[n + j]
        d[c] = z
    tie = theta[n + q] if code != 0 else 0.0
    if code == 2 and not tie > 0.0:
        return np.inf, 0.0, 0.0
    loss, g_t, h_tt = _terms_jit(code, d, tie, counts, g_d, h_dd, h_dt)
    penalty = 0.0
    for i in range(n):
        penalty += theta[i] * theta[i]
    return loss + 0.5 * alpha * penalty, g_t, h_tt


def _newton_loop(code, first, second, design, offset, counts, n, theta, alpha,
                 tol, max_iter):
    """Newton's method on the dense system, the loop of ``_ties.fit_tie_model``.

    Returns (theta, n_iter, status): 0 converged, 1 out of iterations,
    2 singular Hessian or non-finite step (no maximum), 3 line search stalled.
    """
    m = first.shape[0]
    size = theta.shape[0]
    q = design.shape[1]
    has_tie = size > n + q
    d = np.empty(m)
    g_d, h_dd, h_dt = np.empty(m), np.empty(m), np.empty(m)
    d2 = np.empty(m)
    g_d2, h_dd2, h_dt2 = np.empty(m), np.empty(m), np.empty(m)
    loss, g_t, h_tt = _evaluate_jit(code, first, second, design, offset, counts, n,
                                    theta, alpha, d, g_d, h_dd, h_dt)
    status = 1
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        hessian = np.zeros((size, size))
        grad = np.zeros(size)
        _assemble_jit(first, second, design, g_d, h_dd, h_dt, n, hessian, grad)
        if has_tie:
            grad[size - 1] = g_t
            hessian[size - 1, size - 1] = h_tt
        for a in range(n, size):
            for b in range(a + 1, size):
                hessian[b, a] = hessian[a, b]
            for i in range(n):
                hessian[a, i] = hessian[i, a]
        gauge = 1.0 / n if alpha == 0.0 else 0.0
        for i in range(n):
            grad[i] += alpha * theta[i]
            hessian[i, i] += alpha
            for j in range(n):
                hessian[i, j] += gauge
        try:
            lower = np.linalg.cholesky(hessian)
        except Exception:  # noqa: BLE001 - numba raises LinAlgError
            status = 2
            break
        step = -grad.copy()
        for i in range(size):  # forward substitution
            for j in range(i):
                step[i] -= lower[i, j] * step[j]
            step[i] /= lower[i, i]
        for i in range(size - 1, -1, -1):  # back substitution
            for j in range(i + 1, size):
                step[i] -= lower[j, i] * step[j]
            step[i] /= lower[i, i]
        if alpha == 0.0 and n > 0:
            mean = 0.0
            for i in range(n):
                mean += step[i]
            mean /= n
            for i in range(n):
                step[i] -= mean
        largest = 0.0
        finite = True
        for i in range(size):
            if not np.isfinite(step[i]):
                finite = False
            largest = max(largest, abs(step[i]))
        if not finite:
            status = 2
            break
        if largest <= tol:
            theta = theta + step
            status = 0
            break
        slope = 0.0
        for i in range(size):
            slope += grad[i] * step[i]
        slack = 1e-12 * (1.0 + abs(loss))
        t = 1.0
        moved = False
        while t >= 1e-12:
            candidate = theta + t * step
            new_loss, new_g_t, new_h_tt = _evaluate_jit(
                code, first, second, design, offset, counts, n, candidate, alpha,
                d2, g_d2, h_dd2, h_dt2,
            )
            if new_loss <= loss + 1e-4 * t * slope + slack:
                theta, loss, g_t, h_tt = candidate, new_loss, new_g_t, new_h_tt
                d, d2 = d2, d
                g_d, g_d2 = g_d2, g_d
                h_dd, h_dd2 = h_dd2, h_dd
                h_dt, h_dt2 = h_dt2, h_dt
                moved = True
                break
            t *= 0.5
        if not moved:
            status = 3
            break
    return theta, n_iter, status


_COMPILED = {}


def compiled_for(n_cells):
    """Whether the compiled loops serve a problem with ``n_cells`` cells
    (``COMPILED_FROM``: see :mod:`._kernels`)."""
    return HAVE_NUMBA and n_cells >= COMPILED_FROM


def _compiled(name="terms"):
    """The numba-compiled loops, compiled (or loaded from cache) on first use."""
    if not _COMPILED:
        jit = jit_kernel
        global _terms_jit, _assemble_jit, _evaluate_jit
        _terms_jit = _COMPILED["terms"] = jit(_terms_loop)
        _assemble_jit = _COMPILED["assemble"] = jit(_assemble_loop)
        _COMPILED["meat"] = jit(_meat_loop)
        _evaluate_jit = _COMPILED["evaluate"] = jit(_evaluate_loop)
        _COMPILED["newton"] = jit(_newton_loop)
    return _COMPILED[name]


# the compiled loops call each other through these names (set by _compiled)
_terms_jit = _terms_loop
_assemble_jit = _assemble_loop
_evaluate_jit = _evaluate_loop


def newton_dense(model, first, second, design, offset, counts, n, theta, alpha,
                 tol, max_iter):
    """Compiled Newton iterations on the dense system (see ``_newton_loop``)."""
    return _compiled("newton")(
        MODEL_CODES[model], first, second, np.ascontiguousarray(design),
        float(offset), np.ascontiguousarray(counts, dtype=np.float64), int(n),
        np.array(theta, dtype=np.float64), float(alpha), float(tol), int(max_iter),
    )


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
        available and the cells are many (:func:`compiled_for`).

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
    use_numba = compiled_for(d.shape[0]) if compiled is None else compiled
    if not use_numba:
        return _terms_numpy(code, d, tie, counts)
    g_d = np.empty_like(d)
    h_dd = np.empty_like(d)
    h_dt = np.empty_like(d)
    loss, g_t, h_tt = _compiled("terms")(
        code, np.ascontiguousarray(d, dtype=np.float64), tie,
        np.ascontiguousarray(counts, dtype=np.float64), g_d, h_dd, h_dt,
    )
    return loss, g_d, g_t, h_dd, h_dt, h_tt


def meat_terms(model, d, tie, weights):
    """Compiled per-cell meat weights (w_dd, w_dt, summed w_tt) of the sandwich.

    Only used with numba; ``_ties._meat_weights`` has the numpy version.
    """
    code = MODEL_CODES[model]
    w_dd = np.empty_like(d)
    w_dt = np.empty_like(d)
    w_tt = _compiled("meat")(
        code, np.ascontiguousarray(d, dtype=np.float64),
        0.0 if tie is None else float(tie),
        np.ascontiguousarray(weights, dtype=np.float64), w_dd, w_dt,
    )
    if code == 0:
        return w_dd, None, None
    return w_dd, w_dt, w_tt
