"""The ordered-category item models of :class:`IRT`: GRM and GPCM.

An item ``j`` with ``K`` categories ``0..K-1`` is the row
``(a, d_1, ..., d_{K-1})`` of a parameter array of shape
``(n_items, K_max)``; entries past an item's own categories are ``-inf`` (and
its categories there have probability 0).

- Samejima's graded response model (GRM):
  ``P(X >= k | theta) = expit(a theta + d_k)`` for ``k = 1..K-1``, with
  ``d_1 > d_2 > ... > d_{K-1}``, and ``P(X = k) = P(X >= k) - P(X >= k + 1)``.
  The reported thresholds are ``b_k = -d_k / a`` (increasing in ``k``).
- Muraki's generalised partial credit model (GPCM):
  ``P(X = k | theta) ∝ exp(k a theta + d_k)`` with ``d_0 = 0``, i.e.
  ``exp(sum_{v <= k} a (theta - b_v))``: the reported steps are
  ``b_k = -(d_k - d_{k-1}) / a`` (not necessarily ordered).

Here: the log category probabilities per (node, item, category), their
scores, the M-step (Fisher scoring with backtracking for all items at once on
the E-step's expected category counts) and Louis' observed information.
"""

import numpy as np
from scipy.special import expit, log_expit

GRADED_MODELS = ("GRM", "GPCM")
_TINY = 1e-300


def _log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0`` (``-inf`` at 0).

    ``-expm1(x)`` keeps the relative precision near 0; for very negative
    ``x`` the result rounds to 0, an absolute error below 1e-16.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(-np.expm1(x))


def n_slopes(nodes):
    """Slope columns of the parameters: 1 for nodes ``(Q,)``, m for ``(Q, m)``."""
    return 1 if np.ndim(nodes) == 1 else nodes.shape[1]


def category_mask(params, n_slopes=1):
    """``(n_items, n_params)``: which parameters (categories) an item has."""
    mask = np.isfinite(params)
    mask[:, :n_slopes] = True
    return mask


def _categories(params, m):
    """``(n_items, K_max)``: which categories an item has (``m`` slopes)."""
    return np.column_stack([np.ones(params.shape[0], dtype=bool),
                            np.isfinite(params[:, m:])])


def _linear(params, nodes):
    """``u = a . theta`` per (node, item) and ``u + d_k`` per k = 1..K_max-1.

    ``nodes``: ``(Q,)`` (one ability, params ``(a, d_1, ...)``) or points
    ``(Q, m)`` (several, params ``(a_1, ..., a_m, d_1, ...)``); ``-inf``
    padded.
    """
    m = n_slopes(nodes)
    if m == 1 and np.ndim(nodes) == 1:
        u = nodes[:, None] * params[None, :, 0]
    else:
        u = nodes @ params[:, :m].T
    return u, u[:, :, None] + params[None, :, m:]


def _grm_bounds(z):
    """The logits above and below every GRM category (``+-inf`` at the ends)."""
    top = np.full(z.shape[:2] + (1,), np.inf)
    bottom = np.full(z.shape[:2] + (1,), -np.inf)
    return np.concatenate([top, z], axis=2), np.concatenate([z, bottom], axis=2)


def log_probabilities(model, params, nodes):
    """``log P(X = k | node)`` of shape ``(n_nodes, n_items, K_max)``.

    ``-inf`` for the categories an item does not have. ``nodes`` may be
    points ``(Q, m)`` of several abilities (see :func:`_linear`).
    """
    m = n_slopes(nodes)
    valid = _categories(params, m)
    u, z = _linear(params, nodes)
    with np.errstate(invalid="ignore"):
        if model == "GRM":
            upper, lower = _grm_bounds(z)
            out = (log_expit(upper) + log_expit(-lower)
                   + _log1mexp(lower - upper))
        else:
            k = np.arange(valid.shape[1])
            s = np.concatenate([np.zeros(z.shape[:2] + (1,)), z], axis=2)
            s[..., 1:] += (k[1:] - 1) * u[:, :, None]
            peak = s.max(axis=2, keepdims=True)
            out = s - (peak + np.log(np.exp(s - peak).sum(axis=2, keepdims=True)))
    return np.where(valid[None], out, -np.inf)


def scores(model, params, nodes, log_p=None):
    """``d log P(X = k) / d (a, d_1, ...)``: ``(n_nodes, n_items, K_max, n_params)``.

    Zero for the categories and parameters an item does not have.
    ``log_p``: :func:`log_probabilities` at ``params``, when known. With
    points ``(Q, m)`` the first ``m`` parameters are the slopes.
    """
    m = n_slopes(nodes)
    valid, categories = category_mask(params, m), _categories(params, m)
    Q, (J, n_params) = nodes.shape[0], params.shape
    K = categories.shape[1]
    _, z = _linear(params, nodes)
    theta = nodes[:, None, None] if np.ndim(nodes) == 1 else nodes[:, None, None, :]
    g = np.zeros((Q, J, K, n_params))
    with np.errstate(invalid="ignore", over="ignore"):
        if model == "GRM":
            upper, lower = _grm_bounds(z)
            du = 1.0 - expit(upper) - expit(lower)
            gap = _log1mexp(lower - upper)
            # d/d d_k of category k and of category k - 1
            own = np.exp(log_expit(-upper) - log_expit(-lower) - gap)
            below = -np.exp(log_expit(lower) - log_expit(upper) - gap)
            index = np.arange(1, K)
            g[:, :, index, m - 1 + index] = own[..., 1:]
            g[:, :, index - 1, m - 1 + index] = below[..., :-1]
        else:
            if log_p is None:
                log_p = log_probabilities(model, params, nodes)
            P = np.exp(log_p)
            k = np.arange(K)
            du = k - (P * k).sum(axis=2, keepdims=True)
            g[..., m:] = np.eye(K)[None, None, :, 1:] - P[:, :, None, 1:]
        if np.ndim(nodes) == 1:
            g[..., 0] = theta * du
        else:
            g[..., :m] = theta * du[..., None]
    both = categories[:, :, None] & valid[:, None, :]
    return np.where(both[None] & np.isfinite(g), g, 0.0)


def ordered_items(model, params, n_slopes=1):
    """Per item: whether its GRM intercepts strictly decrease (GPCM: True)."""
    if model != "GRM":
        return np.ones(params.shape[0], dtype=bool)
    d = params[:, n_slopes:]
    with np.errstate(invalid="ignore"):
        step = d[:, 1:] - d[:, :-1]
    return np.all((step < 0) | ~np.isfinite(d[:, 1:]), axis=1)


def ordered(model, params, n_slopes=1):
    """Whether every GRM item has strictly decreasing intercepts."""
    return bool(np.all(ordered_items(model, params, n_slopes)))


def item_objective(model, params, R, nodes):
    """Expected complete-data log-likelihood per item (``R``: counts by category)."""
    log_p = log_probabilities(model, params, nodes)
    with np.errstate(invalid="ignore"):
        return np.where(R > 0, R * log_p, 0.0).sum(axis=(0, 2))


def _gradient_information(model, params, R, nodes):
    """Gradient and Fisher information of every item's objective."""
    valid = category_mask(params, n_slopes(nodes))
    log_p = log_probabilities(model, params, nodes)
    P = np.exp(log_p)
    g = scores(model, params, nodes, log_p)
    grad = np.einsum("qjk,qjkp->jp", R, g)
    info = np.einsum("qj,qjkp,qjke->jpe", R.sum(axis=2), P[..., None] * g, g)
    diagonal = np.arange(params.shape[1])
    info[:, diagonal, diagonal] += ~valid
    return grad, info


def m_step(model, params, R, nodes, n_newton=2, fixed=None, cap=None):
    """Fisher scoring with backtracking on every item's objective at once.

    Never lowers an item's objective; every step moves a parameter by at most
    ``1 + |value|``; GRM intercepts stay ordered. ``nodes`` may be points
    ``(Q, m)`` (several abilities); ``fixed`` (n_items, n_params) marks the
    parameters held at their value; with ``cap`` no parameter leaves
    ``[-cap, cap]``.
    """
    params = params.copy()
    m = n_slopes(nodes)
    valid = category_mask(params, m)
    objective = item_objective(model, params, R, nodes)
    for _ in range(n_newton):
        grad, info = _gradient_information(model, params, R, nodes)
        ridge = 1e-9 * np.trace(info, axis1=1, axis2=2) + 1e-12
        diagonal = np.arange(params.shape[1])
        info[:, diagonal, diagonal] += ridge[:, None]
        if fixed is not None:
            grad = np.where(fixed, 0.0, grad)
            info = np.where(fixed[:, :, None] | fixed[:, None, :], 0.0, info)
            info[:, diagonal, diagonal] += fixed
        try:
            step = np.linalg.solve(info, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            break
        step = np.where(valid & np.isfinite(step), step, 0.0)
        current = params.copy()
        size = np.where(valid, np.abs(step), 0.0)
        room = np.where(valid, 1.0 + np.abs(np.where(valid, current, 0.0)), np.inf)
        scale = np.minimum(1.0, (room / np.maximum(size, 1e-300)).min(axis=1))
        accepted = np.zeros(params.shape[0], dtype=bool)
        for _halving in range(30):
            trial = np.flatnonzero(~accepted)
            if trial.size == 0:
                break
            candidate = current[trial] + scale[trial, None] * step[trial]
            if cap is not None:
                candidate = np.where(valid[trial], np.clip(candidate, -cap, cap),
                                     candidate)
            value = item_objective(model, candidate, R[:, trial], nodes)
            ok = np.isfinite(value) & (
                value >= objective[trial] - 1e-12 * np.abs(objective[trial]))
            ok &= ordered_items(model, candidate, m)
            done = trial[ok]
            params[done] = candidate[ok]
            objective[done] = value[ok]
            accepted[done] = True
            scale = np.where(accepted, scale, 0.5 * scale)
        moved = np.abs(np.where(valid, params, 0.0) - np.where(valid, current, 0.0))
        if np.max(moved) < 1e-10:
            break
    return params


def louis_information(model, params, R, outer, nodes):
    """Observed information of every item's parameters (Louis 1982).

    ``R``: expected counts by (node, item, category) at ``params``;
    ``outer``: per item ``sum_i E_i[s] E_i[s]^T``. The second derivatives of
    the log probabilities come from central differences of the analytic
    scores (items are independent: one shift per parameter column). Items
    are taken one at a time, as for the binary models.
    """
    valid = category_mask(params, n_slopes(nodes))
    g = scores(model, params, nodes)
    K = params.shape[1]
    hessian = np.empty(g.shape + (K,))
    for p in range(K):
        h = 1e-5 * (1.0 + np.abs(np.where(valid[:, p], params[:, p], 0.0)))
        shift = np.zeros_like(params)
        shift[:, p] = np.where(valid[:, p], h, 0.0)
        up = scores(model, params + shift, nodes)
        down = scores(model, params - shift, nodes)
        hessian[..., p] = (up - down) / (2.0 * h)[None, :, None, None]
    second = hessian + g[..., :, None] * g[..., None, :]
    info = -np.einsum("qjk,qjkpe->jpe", R, second) + outer
    return 0.5 * (info + info.transpose(0, 2, 1))


def reported(model, params):
    """``(a, b)`` with ``b`` the thresholds (GRM) or steps (GPCM), NaN padded."""
    a, d = params[:, 0], params[:, 1:]
    with np.errstate(invalid="ignore"):
        if model == "GRM":
            b = -d / a[:, None]
        else:
            previous = np.concatenate([np.zeros((d.shape[0], 1)), d[:, :-1]], axis=1)
            b = -(d - previous) / a[:, None]
    return a, np.where(np.isfinite(d), b, np.nan)


def reported_covariance(model, params, info):
    """Covariance of ``(a, b_1, ..., b_{K-1})`` per item (delta method).

    NaN for an item whose information is singular.
    """
    valid = category_mask(params)
    J, K = params.shape
    cov = np.full((J, K, K), np.nan)
    for j in range(J):
        free = np.flatnonzero(valid[j])
        block = info[j][np.ix_(free, free)]
        try:
            inverse = np.linalg.inv(block)
        except np.linalg.LinAlgError:
            continue
        if not np.all(np.isfinite(inverse)) or np.any(np.diag(inverse) <= 0):
            continue
        a, d = params[j, 0], params[j, free[1:]]
        m = free.size
        jac = np.zeros((m, m))
        jac[0, 0] = 1.0
        for k in range(1, m):
            if model == "GRM":
                jac[k, 0] = d[k - 1] / a**2
                jac[k, k] = -1.0 / a
            else:
                before = d[k - 2] if k >= 2 else 0.0
                jac[k, 0] = (d[k - 1] - before) / a**2
                jac[k, k] = -1.0 / a
                if k >= 2:
                    jac[k, k - 1] = 1.0 / a
        cov[j][np.ix_(free, free)] = jac @ inverse @ jac.T
    return cov


def start_values(model, counts, correlation=None, slopes=None):
    """Starting ``(a, d)`` from the category proportions (``counts``: J x K_max).

    ``a`` from each item's correlation with the agents' mean score
    (``a = 1.7 r / sqrt(1 - r^2)``, the normal-ogive relation, in [0.25, 4];
    1 when not given), and intercepts reproducing each item's observed
    proportions under a N(0, 1) ability (the logistic-normal approximation
    ``E expit(a theta + d) ~ expit(1.702 d / sqrt(1.702^2 + a^2))``).
    ``slopes`` (J, m): given slopes of several abilities ``theta ~ N(0,
    I_m)`` instead (``a^2`` is then ``|a_j|^2``); the result is
    ``(a_1, ..., a_m, d_1, ...)``.
    """
    J, K = counts.shape
    present = counts > 0
    m = 1 if slopes is None else slopes.shape[1]
    params = np.full((J, m + K - 1), -np.inf)
    a = np.ones(J)
    if slopes is not None:
        a = np.sqrt(np.sum(slopes**2, axis=1))
    elif correlation is not None:
        r = np.clip(np.nan_to_num(correlation, nan=0.5), 0.25, 0.9)
        a = np.clip(1.7 * r / np.sqrt(1.0 - r * r), 0.25, 4.0)
    params[:, :m] = a[:, None] if slopes is None else slopes
    total = counts.sum(axis=1, keepdims=True)
    scale = (np.sqrt(1.702**2 + a * a) / 1.702)[:, None]
    if model == "GRM":
        tail = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1] / total  # P(X >= k)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = scale * np.log(tail[:, 1:] / (1.0 - tail[:, 1:]))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            d = scale * np.log(counts[:, 1:] / counts[:, :1])
    params[:, m:] = np.where(present[:, 1:], d, -np.inf)
    return params
