"""The binary item models of :class:`IRT`: 2PL, 3PL and 4PL on one curve.

Every item has ``P(theta) = g + (u - g) / (1 + exp(-(a theta + d)))`` with a
lower asymptote ``g`` (guessing) and an upper asymptote ``u``; the 2PL fixes
``g = 0, u = 1``, the 3PL frees ``g``, the 4PL both. Internally an item is the
row ``(a, d, gamma, upsilon)`` with ``g = expit(gamma)`` and
``u = expit(upsilon)`` (a fixed asymptote is ``gamma = -inf`` or
``upsilon = +inf``). Here: the log tables the E-step reads, the scores and
information per item, and the M-step (Fisher scoring with backtracking for
all items at once on the E-step's expected counts).
"""

import numpy as np
from scipy.special import expit, log_expit, logit

from ._binary_kernels import HAVE_NUMBA, kernel
from ._em import _check_prior, _pooled_moments

# which of (a, d, gamma, upsilon) each model estimates
FREE = {"2PL": (0, 1), "3PL": (0, 1, 2), "4PL": (0, 1, 2, 3)}
# |gamma|, |upsilon| stay below this: g, u within 1e-9 of 0 and 1 at most
_LOGIT_CAP = 20.7
_TINY = 1e-300


def asymptotes(params):
    """Lower and upper asymptotes ``g``, ``u`` of every item."""
    return expit(params[:, 2]), expit(params[:, 3])


def log_tables(params, nodes):
    """``log P`` and ``log(1 - P)`` per (node, item), computed stably.

    An item whose asymptotes are out of order (``g >= u``, outside the model:
    the M-step and the extrapolation never go there) gets the direct formula,
    so the tables stay a probability distribution whatever the parameters.
    """
    if HAVE_NUMBA and np.ndim(nodes) == 1 and np.ndim(params) == 2:
        # the same formulas in one pass (:mod:`._binary_kernels`), item by
        # item: each item's column contiguous (the sparse E-step reads the
        # tables by item, so its transposes are then free)
        shape = (np.shape(nodes)[0], params.shape[0])
        log_p, log_q = np.empty(shape, order="F"), np.empty(shape, order="F")
        kernel("binary_log_tables")(np.asarray(params, dtype=np.float64),
                                    np.asarray(nodes, dtype=np.float64), log_p,
                                    log_q)
        return log_p, log_q
    a, d, gamma, upsilon = params.T
    z = nodes[:, None] * a + d
    g, u = asymptotes(params)
    span = u - g
    ordered = span > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_span = np.log(np.where(ordered, span, 1.0))
        log_p = np.logaddexp(log_expit(gamma), log_span + log_expit(z))
        log_q = np.logaddexp(log_expit(-upsilon), log_span + log_expit(-z))
        if not ordered.all():
            P = np.clip(g + span * expit(z), _TINY, 1.0)
            Q = np.clip(1.0 - g - span * expit(z), _TINY, 1.0)
            log_p = np.where(ordered, log_p, np.log(P))
            log_q = np.where(ordered, log_q, np.log(Q))
    return log_p, log_q


def ordered(params):
    """Whether every item has its lower asymptote below its upper one."""
    g, u = asymptotes(params)
    return bool(np.all(g < u))


def standardise_latent(params, mass, nodes):
    """The items after a parameter-expanded EM step in the latent scale.

    The E-step's pooled posterior (``mass`` per node) has mean ``mu`` and
    variance ``s^2``; the expanded model ``theta ~ N(mu, s^2)`` maps back to
    ``N(0, 1)`` by ``a <- a s``, ``d <- d + a mu`` (``a theta + d`` is
    unchanged for ``theta = mu + s theta'``); the asymptotes do not move.
    At the marginal maximum ``mu = 0`` and ``s = 1``, so the solution is a
    fixed point.
    """
    moments = _pooled_moments(mass, nodes)
    if moments is None:
        return params
    mu, var = moments
    out = params.copy()
    out[:, 1] = params[:, 1] + params[:, 0] * mu
    out[:, 0] = params[:, 0] * np.sqrt(var)
    return out


def probabilities(params, nodes):
    """``P(x = 1)`` per (node, item)."""
    return np.exp(log_tables(params, nodes)[0])


def _first_derivatives(params, nodes, free):
    """``dP`` (n_nodes, n_items, n_free) and the pieces the second need."""
    a, d, gamma, upsilon = params.T
    s = expit(nodes[:, None] * a + d)
    w = s * (1.0 - s)
    g, u = asymptotes(params)
    span = u - g
    q = np.broadcast_to(nodes[:, None], s.shape)
    # g (1 - g) as g expit(-gamma): no cancellation with g or u near 1
    dg, du = g * expit(-gamma), u * expit(-upsilon)
    columns = {0: span * w * q, 1: span * w, 2: dg * (1.0 - s), 3: du * s}
    return (np.stack([columns[c] for c in free], axis=-1),
            (s, w, g, u, span, q, dg, du))


def _second_derivatives(pieces, free):
    """``d2P`` (n_nodes, n_items, n_free, n_free)."""
    s, w, g, u, span, q, dg, du = pieces
    w2 = w * (1.0 - 2.0 * s)
    table = {
        (0, 0): span * w2 * q * q, (0, 1): span * w2 * q, (1, 1): span * w2,
        (0, 2): -dg * w * q, (1, 2): -dg * w, (2, 2): dg * (1.0 - 2.0 * g) * (1.0 - s),
        (0, 3): du * w * q, (1, 3): du * w, (3, 3): du * (1.0 - 2.0 * u) * s,
        (2, 3): np.zeros_like(s),
    }
    p = len(free)
    out = np.empty((*s.shape, p, p))
    for i, ci in enumerate(free):
        for k, ck in enumerate(free):
            out[..., i, k] = table[(min(ci, ck), max(ci, ck))]
    return out


def scores(params, nodes, free):
    """Scores of the free parameters for a success and a failure per (node, item)."""
    log_p, log_q = log_tables(params, nodes)
    dP, _ = _first_derivatives(params, nodes, free)
    P = np.exp(log_p)[..., None]
    Q = np.exp(log_q)[..., None]
    return dP / np.maximum(P, _TINY), -dP / np.maximum(Q, _TINY)


def prior_terms(params, free, priors):
    """Gradient and information of the log-priors on gamma and upsilon."""
    grad = np.zeros((params.shape[0], len(free)))
    info = np.zeros((params.shape[0], len(free)))
    value = np.zeros(params.shape[0])
    for index, column in enumerate(free):
        prior = priors.get(column)
        if prior is None:
            continue
        mean, sd = prior
        x = params[:, column]
        value -= 0.5 * ((x - mean) / sd) ** 2
        grad[:, index] = -(x - mean) / sd**2
        info[:, index] = 1.0 / sd**2
    return value, grad, info


def item_objective(params, r, n, nodes, free, priors):
    """Expected complete-data log-likelihood plus log-priors, per item."""
    if HAVE_NUMBA:
        value = np.empty(params.shape[0])
        kernel("binary_objective")(*_kernel_arrays(params, r, n, nodes), value)
        return value + prior_terms(params, free, priors)[0]
    log_p, log_q = log_tables(params, nodes)
    with np.errstate(invalid="ignore"):
        value = (np.where(r > 0, r * log_p, 0.0)
                 + np.where(n - r > 0, (n - r) * log_q, 0.0)).sum(axis=0)
    return value + prior_terms(params, free, priors)[0]


def _kernel_arrays(params, r, n, nodes):
    """The M-step kernels' arguments as float64 arrays (any memory layout: the
    kernels read the counts item by item, so the column subsets of the
    M-step's backtracking, which numpy lays out by column, need no copy)."""
    return tuple(np.asarray(x, dtype=np.float64) for x in (params, r, n, nodes))


def _gradient_information(params, r, n, nodes, free, priors, exact=False):
    """Gradient and Fisher information of every item's objective (plus the
    priors'); with ``exact`` the negated Hessian instead of the information
    (:func:`._binary_kernels.binary_gradient_information`)."""
    if HAVE_NUMBA:  # one compiled pass (:mod:`._binary_kernels`)
        grad = np.empty((params.shape[0], len(free)))
        info = np.empty((params.shape[0], len(free), len(free)))
        kernel("binary_gradient_information")(
            *_kernel_arrays(params, r, n, nodes), np.asarray(free, dtype=np.int64),
            bool(exact), grad, info)
    else:
        log_p, log_q = log_tables(params, nodes)
        P, Q = np.exp(log_p), np.exp(log_q)
        dP, pieces = _first_derivatives(params, nodes, free)
        pq = np.maximum(P * Q, _TINY)
        resid = (r - n * P) / pq
        grad = np.einsum("kj,kjc->jc", resid, dP)
        if exact:
            a = dP / np.maximum(P, _TINY)[..., None]
            b = dP / np.maximum(Q, _TINY)[..., None]
            d2P = _second_derivatives(pieces, free)
            info = (np.einsum("kj,kjc,kje->jce", r, a, a)
                    + np.einsum("kj,kjc,kje->jce", n - r, b, b)
                    - np.einsum("kj,kjce->jce", resid, d2P))
        else:
            info = np.einsum("kj,kjc,kje->jce", n / pq, dP, dP)
    _, prior_grad, prior_info = prior_terms(params, free, priors)
    info[:, np.arange(len(free)), np.arange(len(free))] += prior_info
    return grad + prior_grad, info


def m_step(params, r, n, nodes, free, priors, n_newton=4, max_newton=None,
           step_tol=1e-8, exact=False):
    """Fisher scoring with backtracking on every item's objective at once.

    Never lowers an item's objective; the asymptotes' logits stay within
    ``+-_LOGIT_CAP`` and every step moves a parameter by at most
    ``1 + |value|``. ``n_newton`` steps for every item; with ``max_newton``
    the items whose last step moved a parameter by more than ``step_tol``
    go on, alone, up to ``max_newton`` steps in all (an M-step run to its
    maximum: EM then needs fewer E-steps where they cost more than the
    M-step, see :func:`._irt_fit._em_binary_grid`), and the items with an
    asymptote at a bound are scored again from the interior
    (:func:`_escape_bounds`); with ``max_newton`` an asymptote past its
    bound and still pulled out goes to its cap (:func:`_settle_at_bound`).
    With ``exact`` the steps are Newton's (the
    negated Hessian of the item's objective) where that is positive definite,
    Fisher's elsewhere: near the maximum Newton converges quadratically,
    Fisher scoring only at the rate the asymptote's latent guess leaves.
    """
    params = params.copy()
    objective = item_objective(params, r, n, nodes, free, priors)
    free = tuple(free)
    _score_items(params, objective, np.arange(params.shape[0]), r, n, nodes, free,
                 priors, n_newton, max_newton, step_tol, exact)
    if max_newton is not None:
        _escape_bounds(params, objective, r, n, nodes, free, priors, n_newton,
                       max_newton, step_tol, exact)
    return params


def _score_items(params, objective, active, r, n, nodes, free, priors, n_newton,
                 max_newton, step_tol, exact=False):
    """The Fisher (``exact``: Newton) steps of :func:`m_step` for the items
    ``active`` (in place)."""
    for iteration in range(max(n_newton, max_newton or 0)):
        if max_newton is not None:
            _settle_at_bound(params, objective, active, r, n, nodes, free, priors)
        moved = _fisher_step(params, objective, active, r, n, nodes, free, priors,
                             exact)
        if iteration + 1 < n_newton:
            # item by item, never over the set: an item's steps must not
            # depend on which others it is scored with (the M-step's chunks
            # on threads end where the whole M-step ends, to the bit)
            active = active[moved >= 1e-10]
            if active.size == 0:
                break
            continue
        active = active[moved > step_tol]
        if max_newton is None or active.size == 0:
            break


# An asymptote's logit past this (g below 3.4e-4, u above 1 - 3.4e-4) is at a
# bound, where it is scored again from an interior start (_escape_bounds).
_AT_BOUND = 8.0
_INTERIOR = 2.2  # |logit| of the interior start: g = 0.1, u = 0.9
# the direction away from each asymptote's bound: g rises from 0, u falls from 1
_INWARD = {2: 1.0, 3: -1.0}


def at_bound(logits, column):
    """Where the asymptote ``column`` (2: guessing, 3: upper) is at its bound:
    its logit below ``-_AT_BOUND`` (guessing) or above ``_AT_BOUND`` (upper)."""
    return _INWARD[column] * logits < -_AT_BOUND
_ESCAPE_STEPS = 50  # Newton or Fisher steps at most from the interior start


def _inward_scores(params, items, r, n, nodes, free, priors):
    """The score of ``items`` in each free parameter, signed so that it is
    positive where an asymptote's objective rises away from its bound
    (``_INWARD``; the other columns as they are)."""
    grad, _ = _gradient_information(params[items], r[:, items], n[:, items], nodes,
                                    free, priors)
    return grad * np.array([_INWARD.get(c, 1.0) for c in free])


def _settle_at_bound(params, objective, active, r, n, nodes, free, priors):
    """Asymptotes at their bound and still pulled out, moved to the cap.

    Where an asymptote's maximum is on the boundary (``g = 0``) its logit
    moves out by a steady amount per step (the score and information both
    fall with ``g``), and every small move still raises the objective a
    little, so EM's increments stay above its stopping rule for many
    E-steps. An asymptote past its bound whose score points out is set to
    ``-+_LOGIT_CAP`` at once, the item's other parameters refitted there
    (four Fisher steps), wherever the objective does not fall (in place); one
    pulled back in is left to :func:`_escape_bounds`. Greedy: an interior
    maximum beyond the bound can be passed over (tested: rare, and a gain in
    all).
    """
    for index, column in enumerate(free):
        if column < 2:
            continue
        cap = -_INWARD[column] * _LOGIT_CAP
        items = active[at_bound(params[active, column], column)
                       & (params[active, column] != cap)]
        if items.size == 0:
            continue
        items = items[_inward_scores(params, items, r, n, nodes, free,
                                     priors)[:, index] < 0]
        if items.size == 0:
            continue
        trial = params[items].copy()
        trial[:, column] = cap
        r_items, n_items = r[:, items], n[:, items]
        value = item_objective(trial, r_items, n_items, nodes, free, priors)
        # the other parameters refitted at the cap (they were fitted to the
        # asymptote's last value), then a discrete comparison: no room for
        # rounding in the objective
        _score_items(trial, value, np.arange(items.size), r_items, n_items, nodes,
                     tuple(c for c in free if c != column), priors, 4, None, 0.0)
        ok = np.isfinite(value) & (value >= objective[items])
        params[items[ok]] = trial[ok]
        objective[items[ok]] = value[ok]


def _escape_bounds(params, objective, r, n, nodes, free, priors, n_newton,
                   max_newton, step_tol, exact=False):
    """Items with an asymptote at a bound, scored again from the interior.

    Near a bound an asymptote's score and information fall with the
    asymptote itself (its square), so once an early M-step has put it there
    the Fisher steps bring it back by a small fraction of the way per
    E-step, even where the maximum is well inside (measured: logits crawling
    from -18 to -4 over 30 E-steps, which kept EM going on thousands of
    items). Each such item is scored again from ``g = 0.1`` (``u = 0.9``)
    and keeps whichever of the two results has the higher objective, so the
    M-step still never lowers an item's objective (in place).
    """
    columns = [c for c in free if c >= 2]
    if not columns:
        return
    bound = np.zeros(params.shape[0], dtype=bool)
    for c in columns:
        bound |= at_bound(params[:, c], c)
    items = np.flatnonzero(bound)
    if items.size == 0:
        return
    # only where the objective rises away from the bound (a maximum on the
    # bound itself, its score pointing out, is left as it is)
    pull = _inward_scores(params, items, r, n, nodes, free, priors)
    inward = np.zeros(items.size, dtype=bool)
    for index, c in enumerate(free):
        if c in _INWARD:
            inward |= at_bound(params[items, c], c) & (pull[:, index] > 0)
    items = items[inward]
    if items.size == 0:
        return
    trial = params[items].copy()
    for c in columns:
        trial[:, c] = -_INWARD[c] * _INTERIOR
    r_items, n_items = r[:, items], n[:, items]
    value = item_objective(trial, r_items, n_items, nodes, free, priors)
    _score_items(trial, value, np.arange(items.size), r_items, n_items, nodes, free,
                 priors, n_newton, max(max_newton or 0, _ESCAPE_STEPS), step_tol,
                 exact)
    better = np.isfinite(value) & (value > objective[items])
    params[items[better]] = trial[better]
    objective[items[better]] = value[better]


def _fisher_step(params, objective, items, r, n, nodes, free, priors, exact=False):
    """One backtracked Fisher step of ``items`` (in place); returns how far
    each item's parameters moved (largest absolute change).

    With ``exact`` a Newton step (the negated Hessian) where that is positive
    definite, the Fisher step elsewhere.
    """
    if items.size < params.shape[0]:
        r, n = r[:, items], n[:, items]
    grad, info = _gradient_information(params[items], r, n, nodes, free, priors,
                                       exact=exact)
    if exact:
        eigen = np.linalg.eigvalsh(info)
        indefinite = ~(eigen[:, 0] > 1e-10 * np.abs(eigen[:, -1]))
        if indefinite.any():
            _, info[indefinite] = _gradient_information(
                params[items[indefinite]], r[:, indefinite], n[:, indefinite],
                nodes, free, priors)
    ridge = 1e-9 * np.trace(info, axis1=1, axis2=2) + 1e-12
    info[:, np.arange(len(free)), np.arange(len(free))] += ridge[:, None]
    step = np.linalg.solve(info, grad[..., None])[..., 0]
    current = params[np.ix_(items, free)]
    cap = (1.0 + np.abs(current)) / np.maximum(np.abs(step), 1e-300)
    scale = np.minimum(1.0, cap.min(axis=1))
    accepted = np.zeros(items.size, dtype=bool)
    asymptote = [column for column in free if column >= 2]
    for _halving in range(30):
        trial = np.flatnonzero(~accepted)
        if trial.size == 0:
            break
        candidate = params[items[trial]].copy()
        candidate[:, free] = current[trial] + scale[trial, None] * step[trial]
        candidate[:, asymptote] = np.clip(candidate[:, asymptote], -_LOGIT_CAP,
                                          _LOGIT_CAP)
        value = item_objective(candidate, r[:, trial], n[:, trial], nodes, free,
                               priors)
        g, u = asymptotes(candidate)
        before = objective[items[trial]]
        ok = np.isfinite(value) & (g < u) & (
            value >= before - 1e-12 * np.abs(before))
        done = trial[ok]
        params[items[done]] = candidate[ok]
        objective[items[done]] = value[ok]
        accepted[done] = True
        scale = np.where(accepted, scale, 0.5 * scale)
    return np.max(np.abs(params[np.ix_(items, free)] - current), axis=1)


def louis_information(params, state, outer, nodes, free, priors):
    """Observed information of every item's free parameters (Louis 1982).

    ``state``: the E-step's expected counts at ``params``; ``outer``: the
    per-item sums ``sum_i E_i[s] E_i[s]^T``. Items are taken one at a time
    (the covariance between items is ignored, as for the 2PL).
    """
    r, n = state["r"], state["n"]
    log_p, log_q = log_tables(params, nodes)
    P, Q = np.exp(log_p), np.exp(log_q)
    _, pieces = _first_derivatives(params, nodes, free)
    d2P = _second_derivatives(pieces, free)
    weight = (r - n * P) / np.maximum(P * Q, _TINY)
    info = -np.einsum("kj,kjce->jce", weight, d2P) + outer
    _, _, prior_info = prior_terms(params, free, priors)
    info[:, np.arange(len(free)), np.arange(len(free))] += prior_info
    return info


def reported_covariance(params, info, free):
    """Covariance of (discrimination, difficulty, guessing, upper) per item.

    The inverse information in the internal coordinates, mapped by the
    Jacobian of ``b = -d / a``, ``g = expit(gamma)``, ``u = expit(upsilon)``;
    NaN for an item whose information is not positive definite (singular,
    not finite, or indefinite: not at an interior maximum, where the inverse
    is no covariance and its mapped variances can be negative).
    """
    J, p = params.shape[0], len(free)
    cov = np.full((J, 4, 4), np.nan)
    inverse = np.full((J, p, p), np.nan)
    finite = np.all(np.isfinite(info), axis=(1, 2))
    try:
        inverse[finite] = np.linalg.inv(info[finite])
    except np.linalg.LinAlgError:  # one singular item: the items one by one
        for j in np.flatnonzero(finite):
            try:
                inverse[j] = np.linalg.inv(info[j])
            except np.linalg.LinAlgError:
                continue
    valid = np.all(np.isfinite(inverse), axis=(1, 2))
    if valid.any():
        symmetric = 0.5 * (inverse[valid] + np.swapaxes(inverse[valid], 1, 2))
        valid[valid] = np.linalg.eigvalsh(symmetric)[:, 0] > 0
    a, d = params[:, 0], params[:, 1]
    g, u = asymptotes(params)
    jac = np.zeros((J, 4, p))
    with np.errstate(divide="ignore", invalid="ignore"):
        for index, column in enumerate(free):
            if column == 0:
                jac[:, 0, index] = 1.0
                jac[:, 1, index] = d / a**2
            elif column == 1:
                jac[:, 1, index] = -1.0 / a
            elif column == 2:
                jac[:, 2, index] = g * (1.0 - g)
            else:
                jac[:, 3, index] = u * (1.0 - u)
    cov[valid] = np.einsum("jac,jce,jbe->jab", jac[valid], inverse[valid],
                           jac[valid])
    return cov


def logit_prior(prior, name):
    """A (mean, sd) prior on an asymptote: mean in (0, 1), sd of its logit > 0."""
    if prior is None:
        return None
    mean, sd = _check_prior(prior, name)
    if not 0.0 < mean < 1.0:
        raise ValueError(
            f"{name} mean must lie in (0, 1) (a probability); got {mean!r}."
        )
    return float(logit(mean)), sd


def posterior_predictive(data, log_p, log_q, grid, keep, fill):
    """``E[P_j(theta) | responses]`` for every agent and item of a dense store.

    ``data``: dense storage of the kept items (``blocks()``); ``log_p``,
    ``log_q``: the kept items' log tables on ``grid``; items outside ``keep``
    get ``fill``. Returns an array of shape ``(data.n_agents, keep.size)``.
    Runs where the store is (on a Dask worker for Dask input).
    """
    out = np.empty((data.n_agents, keep.size))
    out[:, ~keep] = fill[~keep]
    for rows, Y, M in data.blocks():
        table = Y @ (log_p - log_q).T + (
            log_q.sum(axis=1) if M is None else M @ log_q.T)
        table += grid.log_weights
        table -= table.max(axis=1, keepdims=True)
        post = np.exp(table)
        post /= post.sum(axis=1, keepdims=True)
        out[rows, keep] = post @ np.exp(log_p)
    return out
