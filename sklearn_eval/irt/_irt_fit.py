"""The fit of :class:`IRT` as a pure function of the validated data.

The 1PL and 2PL run the EM engine of :class:`IRT2PL` unchanged (same
numbers). The 3PL and 4PL start from the 2PL's moment estimates and run EM
on the same response storage: the store's E-step from the model's log tables
(:meth:`e_step_tables`), the M-step of :mod:`._binary_models`, accelerated
by SQUAREM and kept monotone. Everything fitted comes back in a dict.
"""

import warnings

import numpy as np
from scipy.special import expit, logit
from sklearn.exceptions import ConvergenceWarning

from ..utils._stack import find_stack_level
from ._binary_models import (
    _LOGIT_CAP,
    FREE,
    asymptotes,
    at_bound,
    log_tables,
    louis_information,
    m_step,
    ordered,
    prior_terms,
    reported_covariance,
    scores,
    standardise_latent,
)
from ._blocks import run_chunks
from ._coarse import accept_coarse, em_coarse_to_fine, single_threaded_blas
from ._em import (
    _RUNAWAY,
    _EMSettings,
    _occupied_nodes,
    _squarem_vector,
    _use_rescale,
)
from ._em_loop import squarem_em
from ._fit import (
    STEEP,
    _fit_storage,
    _scatter,
    _warn_constant_items,
    warn_steep_items,
)
from ._fitted import shared_fitted
from ._information import covariance_errors
from ._responses import _make_storage
from ._starts import _initial_items

N_PARAMETERS = {"1PL": lambda J: J + 1, "2PL": lambda J: 2 * J,
                "3PL": lambda J: 3 * J, "4PL": lambda J: 4 * J}


# Newton (or Fisher) steps of an M-step at most where the agents answer many
# items: each item goes on until its step is below 1e-8
# (:func:`._binary_models.m_step`)
_MAX_NEWTON = 25


def _prior_value(params, free, priors):
    """Sum of the log-priors on the asymptotes' logits."""
    return float(prior_terms(params, free, priors)[0].sum())


def _em_binary(data, grid, params, model, priors, max_iter, tol,
               coarse_final=False, rescale=False, parallel=None):
    """EM for a binary item model from ``params``; SQUAREM, monotone.

    Returns ``(params, loglik, n_iter, converged, grid)``; ``n_iter`` counts
    E-steps; ``grid``: the one fitted on. An extrapolated point is kept only
    when it raises the penalised log-likelihood, so the objective never
    decreases. Runs on the coarse grids of :mod:`._coarse` first where they
    are accurate; with ``coarse_final`` (the default grid) the 61-node
    grid's solution is the fit where that grid integrates it exactly to
    rounding (:func:`._coarse.accept_coarse`). ``rescale``: standardise the
    latent scale after every M-step (:func:`_em_binary_grid`). ``parallel``:
    the fit's threads, over which the M-step's items are spread
    (:func:`_m_step_chunks`).
    """
    return em_coarse_to_fine(
        lambda p, on, n: _em_binary_grid(data, on, p, model, priors, n, tol,
                                         rescale, parallel),
        params, grid, data, max_iter,
        accept=accept_coarse if coarse_final else None)


def _em_binary_grid(data, grid, params, model, priors, max_iter, tol,
                    rescale=False, parallel=None):
    """:func:`_em_binary` on ``grid`` only.

    With ``rescale`` every EM map is parameter-expanded in the latent
    location and scale (:func:`._binary_models.standardise_latent`), as the
    2PL's (``IRT2PL(rescale_latent=...)``): with many responses per agent the
    posteriors are narrow and plain EM moves the items' common location and
    scale by a small fraction of the way per E-step. Measured on 3PL draws,
    11,785 x 4,000 at 10% observed (400 responses per agent): 90 E-steps
    instead of 276 to the same stopping rule (4 Fisher steps per M-step).
    An expanded point that lowers the objective is replaced by the plain EM
    point, and a run whose discriminations pass ``_RUNAWAY`` (an item without
    a finite maximum) goes on without the expansion.

    There the posteriors carry nearly all the information, so EM's progress
    per E-step is bounded by the M-step's: with ``rescale`` each item's
    Fisher scoring goes on to a step below 1e-8 (at most ``_MAX_NEWTON``
    steps, 4 otherwise). Measured on the data above: 58 E-steps and 91 s
    instead of 90 E-steps and 137 s, 1.2 log-likelihood units higher (312 s
    and 276 E-steps with neither). With few responses per agent (20,000 x
    60) the longer M-step cost more than the E-steps it saved. With
    ``rescale`` the M-step also restarts the items whose asymptote sits at a
    bound from the interior (:func:`._binary_models._escape_bounds`) and the
    extrapolation moves those and steep items by plain EM (:func:`_squarem`):
    14 E-steps and 9 s of CPU on the data above (58 and 30 s without, on a
    quieter machine than the figures before). The M-step's steps are
    Newton's where an item's objective is concave (``exact``), and an
    asymptote still pulled out past its bound goes to its cap at once
    (:func:`._binary_models._settle_at_bound`): on 11,785 x 36,259 at 10%
    observed, 32 E-steps and 80 s on two threads instead of 50 and 171 s, the
    same log-likelihood to 3 decimals (56 s since the M-step runs on the
    threads, :func:`_m_step_chunks`). When the fit uses it:
    :func:`_expand_latent`.
    """
    free = FREE[model]

    def e_step(p):
        return data.e_step_tables(*log_tables(p, grid.nodes), grid)

    def objective(p, state):
        return state["loglik"] + _prior_value(p, free, priors)

    def em_map(state, p):
        r, n, nodes = _occupied_nodes(state["r"], state["n"], grid.nodes)
        options = ({"n_newton": 1, "max_newton": _MAX_NEWTON, "exact": True}
                   if rescale else {})
        return _m_step_chunks(parallel, p, r, n, nodes, free, priors, options)

    def expand(state, p):
        return standardise_latent(p, state["mass"], grid.nodes)

    params, state, n_iter, converged = squarem_em(
        params, e_step=e_step, em_map=em_map, objective=objective,
        extrapolate=lambda p0, p1, p2: _squarem(p0, p1, p2, free, apart=rescale),
        max_iter=max_iter, tol=tol, n_agents=data.n_agents,
        expand=expand if rescale else None,
        keep_expanding=lambda p: bool(np.max(np.abs(p[:, 0])) < _RUNAWAY))
    return params, state["loglik"], n_iter, converged


# Items per M-step chunk at least (each chunk pays the M-step's Python loop)
_MIN_CHUNK_ITEMS = 2000
_N_CHUNKS = 8


def _m_step_chunks(parallel, params, r, n, nodes, free, priors, options):
    """:func:`._binary_models.m_step` of every item, its items in chunks on
    ``parallel`` (the fit's threads; one call without).

    Each item's M-step reads only its own counts and parameters, so the
    result is the same to the bit however the items are split (tested); the
    kernels release the GIL. Up to ``_N_CHUNKS`` chunks of at least
    ``_MIN_CHUNK_ITEMS`` items (several per thread even out the items whose
    asymptote is restarted from the interior). Measured on 3PL draws, 11,785
    x 36,259 at 10% observed, two threads: the M-step took 0.56 s instead of
    1.08 s per E-step (2, 4 or 16 chunks: within 2% of the whole fit's time).
    """
    parts = _item_chunks(parallel, params.shape[0], lambda items: m_step(
        params[items], r[:, items], n[:, items], nodes, free, priors, **options))
    return np.concatenate(parts)


def _squarem(p0, p1, p2, free, max_step=64.0, apart=False):
    """SQUAREM (S3) extrapolation of the free parameters; None if degenerate.

    The asymptotes are extrapolated as probabilities ``g``, ``u``, not as
    their logits: an asymptote drifting to 0 or 1 (its logit to -+inf, a
    maximum on the boundary) moves its logit by a steady amount per EM step,
    which would dominate the global step length and throw every other
    parameter far along its secant; as a probability it hardly moves.
    With ``apart`` (where the EM runs each M-step to its maximum, see
    :func:`_em_binary_grid`), steep items (``|a| > 10`` at any of the three
    points: a ridge in ``a``) and items with an asymptote at its bound at
    any of them (:func:`._binary_models.at_bound`) are left out of the step
    length and take the third point ``p2``, a plain EM step.
    Measured on 3PL draws, 11,785 x 12,000 at 10% observed: one item at ``a
    = 390`` growing by 100 per step set the step length, and the guessing of
    some 900 items at the bound jumped between ``g = 1e-9`` and the interior;
    the extrapolation then hardly moved the slow common drift of all items'
    (a, d, g) and EM took 44 E-steps, 26 without them.
    """
    free = list(free)
    # steep items (a ridge without a finite maximum: their a grows by a
    # steady amount per EM step) and items with an asymptote at a bound
    # (whose M-step may jump between the bound and the interior, see
    # _binary_models._escape_bounds) would set the global step length and
    # throw every other item along its secant: they take the plain EM point
    keep = np.ones(p0.shape[0], dtype=bool)
    if apart:
        for p in (p0, p1, p2):
            keep &= np.abs(p[:, 0]) <= STEEP
            for column in free:
                if column >= 2:
                    keep &= ~at_bound(p[:, column], column)
    if not keep.any():
        return None
    v = _squarem_vector(*(_extrapolation_scale(p[keep], free).ravel()
                          for p in (p0, p1, p2)), max_step)
    if v is None or not np.all(np.isfinite(v)):
        return None
    v = v.reshape(int(keep.sum()), len(free))
    out = p2.copy()
    for index, column in enumerate(free):
        out[keep, column] = (v[:, index] if column < 2 else
                             logit(np.clip(v[:, index], _CAP, 1.0 - _CAP)))
    return out if ordered(out) else None



# the asymptotes' logits stay within +-_LOGIT_CAP (as in the M-step)
_CAP = expit(-_LOGIT_CAP)


def _extrapolation_scale(params, free):
    """The free parameters with the asymptotes as probabilities ``g``, ``u``."""
    out = params[:, free].copy()
    for index, column in enumerate(free):
        if column >= 2:
            out[:, index] = expit(out[:, index])
    return out


# Agents from which the 3PL's EM is expanded in the latent scale (with as
# many responses per agent as the 2PL's rule asks): measured, see below
_EXPAND_MIN_AGENTS = 500


def _expand_latent(data, model, settings):
    """Whether the 3PL's EM standardises the latent scale (:func:`_em_binary_grid`).

    Measured to the default stopping rule (3PL draws, CPU seconds, E-steps):
    11,785 x 4,000 at 10% observed 91 s / 58 against 312 s / 276; 500 x 400
    1.5 s / 20 against 4.5 s / 132; 2,000 x 300 with 30% missing 1.2 s / 24
    against 1.7 s / 68, each ending as high or higher. Not below 500 agents
    (80 x 200: 874 E-steps against 250, though 2.6 units higher) nor for the
    4PL, whose likelihood has several maxima: on 500 x 400 the expanded run
    ended at one 8 units lower than plain EM's.
    """
    return (model == "3PL" and data.n_agents >= _EXPAND_MIN_AGENTS
            and _use_rescale(data, settings.rescale_latent))


def _two_pl_start(data):
    """Starting ``(a, d)`` of the 3PL/4PL: the moment estimates of the 2PL.

    Item-total correlations and marginal logits (as :class:`IRT2PL`'s first
    start). Measured on simulated 3PL data (5,000 x 60, 10% missing, two
    seeds): EM from here took 22 passes over the responses in all, against
    25-27 after a rough 2PL fit (tol 1e-2 per agent) and 77-119 after a full
    one, and ended at the same or a higher likelihood.
    """
    a, b, _ = _initial_items(data, "2PL")
    return a, -a * b


def _fit_irt(values, labels, summary, *, model, priors, start, grid, settings,
             chunk_size, parallel, rng, algorithm, coarse_final=False):
    """Everything :meth:`IRT.fit` learns, as a dict of fitted attributes.

    ``start``: initial ``(g, u)`` of the 3PL/4PL asymptotes.
    ``coarse_final`` (the default grid): the 3PL/4PL fit may end on the 61
    nodes of its 121-node ``grid`` where those integrate it exactly to
    rounding (:func:`._coarse.accept_coarse`). Dask input
    (coded on the workers, see :mod:`._dask_fit`) is fitted on a store that
    stays on the workers, by the same code.
    """
    keep = summary.keep
    _warn_constant_items(keep, labels)
    options = {"model": model, "priors": priors, "start": start, "grid": grid,
               "settings": settings, "rng": rng,
               "coarse_final": coarse_final}
    if hasattr(values, "fit_with"):  # Dask input, coded on the workers
        return values.fit_with(_fit_irt_storage, labels, keep, summary.rate,
                               algorithm=algorithm, chunk_size=chunk_size,
                               **options)
    data = _make_storage(values, keep, algorithm=algorithm, chunk_size=chunk_size,
                         parallel=parallel, n_observed=summary.n_observed)
    return _fit_irt_storage(data, labels, keep, summary.rate, values.shape[0],
                            parallel=parallel, **options)


def _fit_irt_storage(data, labels, keep, rate, n_agents, *, model, priors, start,
                     grid, settings, rng, should_flip=None, coarse_final=False,
                     parallel=None):
    """:func:`_fit_irt` on built storage ``data`` of the kept items.

    ``should_flip``: how :func:`._fit._fit_storage` orients the latent axis
    of the 1PL and 2PL (a distributed store computes it on the workers).
    ``parallel``: the fit's threads, for the 3PL/4PL M-step (None: one).
    """
    n_items = keep.shape[0]
    # the call named in the warning about steep items (the 1PL's common
    # slope has no prior: its users are pointed to the 2PL's)
    prior_model = "2PL" if model == "1PL" else model
    remedy = f"IRT(model={prior_model!r}, discrimination_prior=(1.0, 2.0))"
    if model in ("1PL", "2PL"):
        fitted = _fit_storage(data, labels, keep, rate, n_agents, settings=_EMSettings(
            model=model, max_iter=settings.max_iter, tol=settings.tol,
            a_prior=priors.get(0), prior_remedy=remedy),
            grid=grid, ability_grid=grid, ability_method="eap", rng=rng,
            should_flip=should_flip)
        a, b = fitted["discrimination_"][keep], fitted["difficulty_"][keep]
        params = np.column_stack([a, -a * b, np.full(a.size, -np.inf),
                                  np.full(a.size, np.inf)])
        cov = np.full((a.size, 4, 4), np.nan)
        cov[:, 0, 0] = fitted["discrimination_se_"][keep] ** 2
        cov[:, 1, 1] = fitted["difficulty_se_"][keep] ** 2
        loglik, n_iter, converged = (fitted["log_likelihood_"], fitted["n_iter_"],
                                     True)
    else:
        a, d = _two_pl_start(data)
        g0, u0 = start
        params = np.column_stack([a, d, np.full(a.size, logit(g0)), np.full(
            a.size, logit(u0) if model == "4PL" else np.inf)])
        with single_threaded_blas():
            params, loglik, n_iter, converged, grid = _em_binary(
                data, grid, params, model, priors, settings.max_iter,
                settings.tol, coarse_final=coarse_final,
                rescale=_expand_latent(data, model, settings), parallel=parallel)
            # one last pass gives the abilities and the counts of the covariance
            tables = log_tables(params, grid.nodes)
            final = data.e_step_tables(*tables, grid, moments=True)
            cov = _covariance(data, grid, params, model, priors, final, tables,
                              parallel)
    if not converged:
        warnings.warn(
            f"EM did not converge in max_iter={settings.max_iter} iterations "
            f"(tol={settings.tol}); increase max_iter.", ConvergenceWarning,
            stacklevel=find_stack_level())
    if model in ("3PL", "4PL") and 0 not in priors:
        warn_steep_items(params[:, 0], labels[keep], remedy=remedy)
    moments = final if model not in ("1PL", "2PL") else data.e_step_tables(
        *log_tables(params, grid.nodes), grid, counts=False, moments=True)
    g, u = asymptotes(params)
    se = covariance_errors(cov)
    b = -params[:, 1] / params[:, 0] if model not in ("1PL", "2PL") else b
    n_params = N_PARAMETERS[model](int(keep.sum()))
    n_obs = float(data.n_observed().sum())
    return {
        "discrimination_": _scatter(params[:, 0], keep, n_items),
        "difficulty_": _scatter(b, keep, n_items),
        "guessing_": _scatter(g, keep, n_items),
        "upper_": _scatter(u, keep, n_items),
        "discrimination_se_": _scatter(se[:, 0], keep, n_items),
        "difficulty_se_": _scatter(se[:, 1], keep, n_items),
        "guessing_se_": _scatter(se[:, 2], keep, n_items),
        "upper_se_": _scatter(se[:, 3], keep, n_items),
        **shared_fitted(loglik=loglik, n_params=n_params, n_obs=n_obs,
                        n_iter=n_iter, moments=moments, labels=labels, keep=keep,
                        grid=grid),
        "_item_params": params,
        "_success_rate_items": rate,
        "_agent_success_rate": data.success_rate(),
    }


def _covariance(data, grid, params, model, priors, state, tables, parallel=None):
    """Covariance of every item's reported parameters (Louis, per item).

    ``state``: the E-step's expected counts at ``params``; ``tables``: the
    log tables ``(log_p, log_q)`` of that E-step. The per-item pieces run in
    chunks of items on ``parallel`` (:func:`_item_chunks`; the same numbers
    to the bit).
    """
    free = FREE[model]
    pairs = _item_chunks(parallel, params.shape[0], lambda items: scores(
        params[items], grid.nodes, free))
    g1, g0 = (np.concatenate([pair[k] for pair in pairs], axis=1) for k in (0, 1))
    outer = data.score_products(*tables, grid, g1, g0)

    def information(items):
        counts = {"r": state["r"][:, items], "n": state["n"][:, items]}
        return louis_information(params[items], counts, outer[items], grid.nodes,
                                 free, priors)

    info = np.concatenate(_item_chunks(parallel, params.shape[0], information))
    return reported_covariance(params, info, free)


def _item_chunks(parallel, n_items, function):
    """``function(items)`` for slices ``items`` of ``n_items`` items, on
    ``parallel`` where there are enough items (:func:`_m_step_chunks`), in
    order; one call over every item otherwise."""
    n_chunks = min(_N_CHUNKS, n_items // _MIN_CHUNK_ITEMS)
    if parallel is None or n_chunks < 2:
        return [function(slice(0, n_items))]
    edges = np.linspace(0, n_items, n_chunks + 1).astype(int)
    return run_chunks(parallel, function, [(slice(start, stop),) for start, stop
                                           in zip(edges[:-1], edges[1:], strict=True)])
