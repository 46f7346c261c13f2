"""M-step of the marginal-likelihood EM: Newton on the expected counts.

Given the E-step's expected successes ``r`` and observations ``n`` per (node,
item), each item's expected complete-data log-likelihood
``sum_k r_k logit_k + n_k log(1 - P_k)`` (plus log-priors) is concave in the
slope-intercept coordinates ``(a, d = -a b)``; the M-step takes a few Newton
steps with backtracking for all items at once. Under a prior on the
difficulty the step works in ``(a, b)``, where the prior is normal.
"""

import numpy as np
from scipy.special import expit, log_expit

from ._kernels import HAVE_NUMBA, kernel


def _prior_logpdf(x, prior):
    if prior is None:
        return np.zeros_like(x)
    mean, sd = prior
    return -0.5 * ((x - mean) / sd) ** 2


def _item_objective(a, b, r, n, nodes, a_prior, b_prior):
    """Expected complete-data log-likelihood plus log-priors, per item."""
    if HAVE_NUMBA:
        value = np.empty(a.shape)
        kernel("item_objective")(a, b, r, n, nodes, value)
    else:
        logits = a * (nodes[:, None] - b)
        value = (r * logits + n * log_expit(-logits)).sum(axis=0)
    return value + _prior_logpdf(a, a_prior) + _prior_logpdf(b, b_prior)


def _slope_intercept_derivatives(a, b, r, n, nodes):
    """Gradient and Fisher information in (a, d) with logit = a * q + d."""
    if HAVE_NUMBA:
        sums = np.empty((5, a.shape[0]))
        kernel("item_derivatives")(a, b, r, n, nodes, sums)
        return (sums[0], sums[1]), (sums[2], sums[3], sums[4])
    P = expit(a * (nodes[:, None] - b))
    resid = r - n * P
    weight = n * P * (1.0 - P)
    q = nodes[:, None]
    grad = (np.sum(resid * q, axis=0), np.sum(resid, axis=0))
    info = (
        np.sum(weight * q * q, axis=0),
        np.sum(weight * q, axis=0),
        np.sum(weight, axis=0),
    )
    return grad, info


def _to_discrimination_difficulty(a, b, grad, info):
    """Chain rule from (a, d = -a b) to (a, b): gradient and information."""
    ga, gd = grad
    iaa, iad, idd = info
    grad_ab = (ga - b * gd, -a * gd)
    info_ab = (iaa - 2.0 * b * iad + b * b * idd, a * (b * idd - iad), a * a * idd)
    return grad_ab, info_ab


def _add_priors(grad, info, a, second, a_prior, b_prior):
    ga, g2 = grad
    iaa, ia2, i22 = info
    if a_prior is not None:
        ga = ga - (a - a_prior[0]) / a_prior[1] ** 2
        iaa = iaa + 1.0 / a_prior[1] ** 2
    if b_prior is not None:
        g2 = g2 - (second - b_prior[0]) / b_prior[1] ** 2
        i22 = i22 + 1.0 / b_prior[1] ** 2
    return (ga, g2), (iaa, ia2, i22)


def _solve_2x2(grad, info):
    ga, g2 = grad
    iaa, ia2, i22 = info
    ridge = 1e-9 * (iaa + i22) + 1e-12
    iaa, i22 = iaa + ridge, i22 + ridge
    det = iaa * i22 - ia2 * ia2
    return (i22 * ga - ia2 * g2) / det, (iaa * g2 - ia2 * ga) / det


def _cap(step, value):
    """Largest move per Newton step: 1 + |value| (at most doubling)."""
    return np.minimum(1.0, (1.0 + np.abs(value)) / np.maximum(np.abs(step), 1e-300))


def _m_step_2pl(a, b, r, n, nodes, a_prior, b_prior, n_newton=4):
    """Newton steps with backtracking for every item at once."""
    use_ab = b_prior is not None
    objective = _item_objective(a, b, r, n, nodes, a_prior, b_prior)
    for _ in range(n_newton):
        grad, info = _slope_intercept_derivatives(a, b, r, n, nodes)
        if use_ab:
            grad, info = _to_discrimination_difficulty(a, b, grad, info)
            second = b
        else:
            second = -a * b
        grad, info = _add_priors(grad, info, a, second, a_prior, b_prior)
        step_a, step_2 = _solve_2x2(grad, info)
        scale = np.minimum(_cap(step_a, a), _cap(step_2, second))
        accepted = np.zeros(a.shape, dtype=bool)
        new_a, new_b = a.copy(), b.copy()
        for _halving in range(30):
            # only the items still halving are evaluated (per-item sums)
            trial = np.flatnonzero(~accepted)
            if trial.size == 0:
                break
            every = trial.size == a.size
            cand_a = a[trial] + scale[trial] * step_a[trial]
            cand_2 = second[trial] + scale[trial] * step_2[trial]
            with np.errstate(divide="ignore", invalid="ignore"):
                cand_b = cand_2 if use_ab else -cand_2 / cand_a
            cand_b = np.where(np.isfinite(cand_b), cand_b, b[trial])
            value = _item_objective(cand_a, cand_b, r if every else r[:, trial],
                                    n if every else n[:, trial], nodes, a_prior,
                                    b_prior)
            current = objective[trial]
            ok = np.isfinite(value) & (value >= current - 1e-12 * np.abs(current))
            done = trial[ok]
            new_a[done], new_b[done] = cand_a[ok], cand_b[ok]
            objective[done] = value[ok]
            accepted[done] = True
            scale = np.where(accepted, scale, 0.5 * scale)
        moved = np.max(np.abs(new_a - a)) + np.max(np.abs(new_b - b))
        a, b = new_a, new_b
        if moved < 1e-10:
            break
    return a, b


def _m_step_common(a, b, r, n, nodes, a_prior, b_prior, estimate_a, n_newton=4):
    """Newton steps when every item shares one discrimination ``a``.

    The Hessian in (b_1..b_J, a) is an arrow matrix, solved in O(J).
    """
    a = float(a[0])
    b = b.copy()

    def total(a_value, b_value):
        return float(
            _item_objective(np.full_like(b_value, a_value), b_value, r, n, nodes,
                            None, b_prior).sum()
            + _prior_logpdf(np.array([a_value]), a_prior if estimate_a else None)[0]
        )

    objective = total(a, b)
    for _ in range(n_newton):
        grad, info = _slope_intercept_derivatives(np.full_like(b, a), b, r, n, nodes)
        (ga, gb), (iaa, iab, ibb) = _to_discrimination_difficulty(a, b, grad, info)
        if b_prior is not None:
            gb = gb - (b - b_prior[0]) / b_prior[1] ** 2
            ibb = ibb + 1.0 / b_prior[1] ** 2
        ibb = ibb + 1e-9 * ibb + 1e-12
        if estimate_a:
            g_a, i_a = ga.sum(), iaa.sum()
            if a_prior is not None:
                g_a -= (a - a_prior[0]) / a_prior[1] ** 2
                i_a += 1.0 / a_prior[1] ** 2
            schur = i_a - np.sum(iab * iab / ibb)
            step_a = (g_a - np.sum(iab * gb / ibb)) / max(schur, 1e-12)
            step_b = (gb - iab * step_a) / ibb
        else:
            step_a, step_b = 0.0, gb / ibb
        scale = min(1.0, float(np.min(_cap(step_b, b))),
                    float(_cap(np.array([step_a]), np.array([a]))[0]))
        for _halving in range(30):
            cand_a, cand_b = a + scale * step_a, b + scale * step_b
            value = total(cand_a, cand_b)
            if np.isfinite(value) and value >= objective - 1e-12 * abs(objective):
                break
            scale *= 0.5
        else:
            break
        moved = abs(cand_a - a) + np.max(np.abs(cand_b - b))
        a, b, objective = cand_a, cand_b, value
        if moved < 1e-10:
            break
    return np.full_like(b, a), b


def _log_prior(a, b, a_prior, b_prior, model):
    value = float(_prior_logpdf(b, b_prior).sum())
    if model == "2PL":
        value += float(_prior_logpdf(a, a_prior).sum())
    elif model == "1PL":
        value += float(_prior_logpdf(a[:1], a_prior).sum())
    return value
