"""Item models for continuous scores in (0, 1): Beta and logit-normal.

Both are exponential families in two statistics of the score ``x``: the log
density of item ``j`` at ability ``theta_k`` is

``c0[k, j] + A[k, j] T1(x) + B[k, j] T2(x) + h(x)``

with ``(T1, T2, h) = (log x, log(1 - x), 0)`` for the Beta model and
``(logit x, logit(x)**2, -log x - log(1 - x))`` for the logit-normal one
(``h`` is the Jacobian that makes it a density on the score scale, so the
two models' likelihoods compare). The per-(agent, node) log-likelihood is then
three matrix products over the observed cells and the M-step needs only
per-(node, item) sums of the posterior mass, of ``T1`` and of ``T2``.

Each item has three parameters ``(a, d, s)``: the linear predictor is
``eta = a theta + d`` and ``s`` is the log precision ``log(phi)`` (Beta) or
the log residual sd ``log(sigma)`` (logit-normal). A model gives the tables,
their first and second derivatives in ``(eta, s)`` and the expected score.
"""

import numpy as np
from scipy.special import digamma, expit, gammaln, logit

__all__ = ["BetaModel", "LogitNormalModel", "MODELS"]

# |eta| above this is clipped: the Beta tables stay finite (1 - mu > 0)
_ETA_BOUND = 35.0
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)
_GH_X, _GH_W = np.polynomial.hermite.hermgauss(32)


def trigamma(x):
    """``polygamma(1, x)`` for ``x > 0``: recurrence to ``x >= 10``, then the
    asymptotic series (relative error below 1e-12; several times faster)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    y = x.copy()
    for _ in range(10):
        low = y < 10.0
        if not low.any():
            break
        out += np.where(low, 1.0 / (y * y), 0.0)
        y = np.where(low, y + 1.0, y)
    inv = 1.0 / y
    inv2 = inv * inv
    series = inv + inv2 * (0.5 + inv * (1.0 / 6.0 + inv2 * (
        -1.0 / 30.0 + inv2 * (1.0 / 42.0 + inv2 * (-1.0 / 30.0 + inv2 * 5.0 / 66.0)))))
    return out + series


class BetaModel:
    """``x ~ Beta(phi mu, phi (1 - mu))``, ``mu = expit(a theta + d)``, ``phi = e^s``.
    """

    name = "beta"
    scale_name = "precision"

    @staticmethod
    def statistics(x):
        return np.log(x), np.log1p(-x), np.zeros_like(x)

    @staticmethod
    def _parts(params, nodes):
        eta = np.clip(np.outer(nodes, params[:, 0]) + params[:, 1], -_ETA_BOUND,
                      _ETA_BOUND)
        phi = np.exp(params[:, 2])
        mu, nu = expit(eta), expit(-eta)  # nu = 1 - mu without cancellation
        return mu, nu, phi, phi * mu, phi * nu

    @classmethod
    def tables(cls, params, nodes):
        """``(c0, A, B)``, each of shape (n_nodes, n_items)."""
        _, _, phi, p, q = cls._parts(params, nodes)
        return gammaln(phi) - gammaln(p) - gammaln(q), p - 1.0, q - 1.0

    @classmethod
    def derivatives(cls, params, nodes):
        """First ``(d_eta, d_s)`` and second ``(d_eta2, d_eta_s, d_s2)``
        derivatives of ``c0``, ``A`` and ``B``: dict of name -> tuple."""
        mu, nu, phi, p, q = cls._parts(params, nodes)
        w = mu * nu
        pw = phi * w
        curv = pw * (nu - mu)  # d2 mu / d eta2 times phi
        dg_p, dg_q, dg_phi = digamma(p), digamma(q), digamma(phi)
        tg_p, tg_q, tg_phi = trigamma(p), trigamma(q), trigamma(phi)
        diff = dg_q - dg_p
        c0 = ((pw * diff, phi * dg_phi - p * dg_p - q * dg_q),
              (-pw * pw * (tg_p + tg_q) + curv * diff,
               -pw * (p * tg_p - q * tg_q) + pw * diff,
               phi * dg_phi + phi * phi * tg_phi - p * dg_p - p * p * tg_p
               - q * dg_q - q * q * tg_q))
        A = ((pw, p), (curv, pw, p))
        B = ((-pw, q), (-curv, -pw, q))
        return {"c0": c0, "A": A, "B": B}

    @classmethod
    def mean(cls, params, nodes):
        """Expected score at each node, shape (n_nodes, n_items)."""
        return cls._parts(params, nodes)[0]

    @staticmethod
    def start_scale(x_resid_var, mu_var):
        """Starting ``s`` from the residual variance of the scores."""
        phi = np.clip(mu_var / np.maximum(x_resid_var, 1e-12) - 1.0, 1.0, 1e4)
        return np.log(phi)

    @staticmethod
    def report_scale(s):
        return np.exp(s)


class LogitNormalModel:
    """``logit(x) ~ N(a theta + d, sigma^2)``, ``sigma = e^s``.

    Samejima's continuous response model in the parameterisation of Wang and
    Zeng (1998) is this model: its ``(a, b, alpha)`` map one to one onto the
    slope, intercept and residual sd of the logit score.
    """

    name = "logit-normal"
    scale_name = "residual_sd"

    @staticmethod
    def statistics(x):
        z = logit(x)
        return z, z * z, -np.log(x) - np.log1p(-x)

    @staticmethod
    def _parts(params, nodes):
        eta = np.outer(nodes, params[:, 0]) + params[:, 1]
        tau = np.exp(-2.0 * params[:, 2])
        return eta, tau * np.ones_like(eta)

    @classmethod
    def tables(cls, params, nodes):
        eta, tau = cls._parts(params, nodes)
        c0 = -_HALF_LOG_2PI - params[:, 2] - 0.5 * eta * eta * tau
        return c0, eta * tau, -0.5 * tau

    @classmethod
    def derivatives(cls, params, nodes):
        eta, tau = cls._parts(params, nodes)
        zero = np.zeros_like(eta)
        c0 = ((-eta * tau, -1.0 + eta * eta * tau),
              (-tau, 2.0 * eta * tau, -2.0 * eta * eta * tau))
        A = ((tau, -2.0 * eta * tau), (zero, -2.0 * tau, 4.0 * eta * tau))
        B = ((zero, tau), (zero, zero, -2.0 * tau))
        return {"c0": c0, "A": A, "B": B}

    @classmethod
    def mean(cls, params, nodes):
        """``E[expit(z)]`` for ``z ~ N(eta, sigma^2)`` (32-node Gauss-Hermite)."""
        eta = np.outer(nodes, params[:, 0]) + params[:, 1]
        sigma = np.exp(params[:, 2])
        z = eta[..., None] + np.sqrt(2.0) * sigma[None, :, None] * _GH_X
        return expit(z) @ (_GH_W / np.sqrt(np.pi))

    @staticmethod
    def start_scale(z_resid_var, _):
        return 0.5 * np.log(np.maximum(z_resid_var, 1e-6))

    @staticmethod
    def report_scale(s):
        return np.exp(s)


MODELS = {"beta": BetaModel, "logit-normal": LogitNormalModel}


def item_objective(model, params, nodes, stats):
    """Expected complete-data log-likelihood of every item, shape (n_items,)."""
    c0, A, B = model.tables(params, nodes)
    return (stats["N"] * c0 + stats["S1"] * A + stats["S2"] * B).sum(axis=0)


def _node_terms(model, params, nodes, stats):
    """Per (node, item): d/d(eta, s) and d2/d(eta, s)^2 of the objective."""
    der = model.derivatives(params, nodes)
    weights = {"c0": stats["N"], "A": stats["S1"], "B": stats["S2"]}
    first = [sum(weights[k] * der[k][0][i] for k in weights) for i in range(2)]
    second = [sum(weights[k] * der[k][1][i] for k in weights) for i in range(3)]
    return first, second


def chain(nodes, first, second):
    """Gradient (n_items, 3) and Hessian (n_items, 3, 3) in ``(a, d, s)``."""
    t = nodes[:, None]
    g_eta, g_s = first
    h_ee, h_es, h_ss = second
    grad = np.stack([(t * g_eta).sum(0), g_eta.sum(0), g_s.sum(0)], axis=1)
    aa, ad, dd = (t * t * h_ee).sum(0), (t * h_ee).sum(0), h_ee.sum(0)
    as_, ds, ss = (t * h_es).sum(0), h_es.sum(0), h_ss.sum(0)
    hess = np.stack([np.stack([aa, ad, as_], -1), np.stack([ad, dd, ds], -1),
                     np.stack([as_, ds, ss], -1)], axis=1)
    return grad, hess


def gradient_hessian(model, params, nodes, stats):
    return chain(nodes, *_node_terms(model, params, nodes, stats))


def m_step(model, params, nodes, stats, n_newton=1):
    """Damped Newton ascent of every item's objective from ``params``.

    The step is Newton's with the eigenvalues of the negated Hessian made
    positive (:func:`_ascent_step`) and is halved until the item's objective
    does not decrease (at most ``_HALVINGS`` times, else the item keeps its
    parameters), so each M-step raises the expected complete-data
    log-likelihood: a generalised EM step. Nodes that no
    posterior reaches are skipped (they add exactly 0).
    """
    mass = stats["N"].sum(axis=1)
    used = mass > 1e-300 + 1e-14 * mass.max()
    nodes = nodes[used]
    stats = {key: stats[key][used] for key in ("N", "S1", "S2")}
    params = params.copy()
    value = item_objective(model, params, nodes, stats)
    for _ in range(n_newton):
        grad, hess = gradient_hessian(model, params, nodes, stats)
        step = _ascent_step(-hess, grad)
        step[~np.all(np.isfinite(step), axis=1)] = 0.0
        # no parameter moves by more than 1 + |value| in one step (a direction
        # of nearly no curvature would otherwise ask for a huge one)
        longest = np.max(np.abs(step) / (1.0 + np.abs(params)), axis=1)
        step /= np.maximum(longest, 1.0)[:, None]
        pending = np.abs(step).max(axis=1) > 1e-12
        length = np.ones(params.shape[0])
        for _ in range(_HALVINGS):
            if not pending.any():
                break
            trial = clip_params(params + length[:, None] * step)
            new = item_objective(model, trial[pending], nodes, _columns(
                stats, pending))
            ok = np.zeros_like(pending)
            ok[pending] = np.isfinite(new) & (
                new >= value[pending] - 1e-13 * np.abs(value[pending]))
            params[ok] = trial[ok]
            value[ok] = new[ok[pending]]
            pending &= ~ok
            length[pending] *= 0.5
        if np.abs(step).max() < 1e-9:
            break
    return params


# halvings of a step before an item keeps its parameters for this M-step
_HALVINGS = 40


def _ascent_step(neg, grad):
    """Newton's step on ``-hess`` with every eigenvalue made positive.

    Where the item's objective is not concave (an item drawn towards a flat
    curve, ``a`` near 0, by a bad start) the eigenvalues of ``-hess`` are
    replaced by their absolute values, floored at ``1e-8`` of the largest:
    the step ascends along every eigenvector and its length along a
    direction of negative curvature is set by that curvature, not by a
    shift that leaves the system nearly singular.
    """
    w, v = np.linalg.eigh(neg)
    top = np.maximum(np.abs(w).max(axis=1, keepdims=True), 1e-300)
    w = np.maximum(np.abs(w), 1e-8 * top)
    return np.einsum("jpk,jk,jqk,jq->jp", v, 1.0 / w, v, grad)


def _columns(stats, items):
    return {key: value[:, items] for key, value in stats.items()}


def clip_params(params):
    """Bounds that keep the tables finite: |a|, |d| <= 50, s in [-10, 15]."""
    out = params.copy()
    out[:, :2] = np.clip(out[:, :2], -50.0, 50.0)
    out[:, 2] = np.clip(out[:, 2], -10.0, 15.0)
    return out
