"""The IRT2PL fit as a pure function of the validated data and the parameters.

:func:`_fit_model` runs the EM engine, orients the latent axis, computes the
item standard errors and the training agents' abilities, and returns every
fitted attribute in a dict: the estimator assigns them only once all of them
are computed, so a failure leaves its previous fitted state untouched.
"""

import warnings
from contextlib import nullcontext

import numpy as np
from joblib import effective_n_jobs
from joblib.parallel import ThreadingBackend, get_active_backend
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.parallel import Parallel

from ..utils._stack import find_stack_level
from ..utils._validation import _first_duplicate, _py
from ._abilities import _ability_estimates
from ._blocks import ThreadPool
from ._em import _fit_items
from ._estep import _e_step
from ._information import _item_information_louis, _standard_errors
from ._responses import _item_summary, _make_storage

_N_FREE_PARAMS = {"2PL": lambda J: 2 * J, "1PL": lambda J: J + 1, "Rasch": lambda J: J}


def _executor(n_jobs):
    """Threads for the passes (they release the GIL), or None for one job.

    joblib's choice of backend decides: its threads are run by
    :class:`._blocks.ThreadPool` (the same threads without joblib's 10 ms
    polling per call); any other backend (``joblib.parallel_config(backend=
    "dask")``, ``"loky"``) by a running ``joblib.Parallel``.
    """
    n_workers = effective_n_jobs(n_jobs)
    if n_workers == 1:
        return nullcontext(None)
    backend, _ = get_active_backend(prefer="threads")
    if type(backend) is ThreadingBackend:
        return ThreadPool(n_workers)
    return Parallel(n_jobs=n_jobs, prefer="threads")


def _fit_model(values, labels, *, settings, grid, ability_grid, ability_method,
               chunk_size, parallel, rng, algorithm="auto", summary=None):
    """Everything ``IRT2PL.fit`` learns, as a dict of fitted attributes.

    Item parameters by EM on the informative items, the orientation of the
    latent axis, standard errors and the training agents' abilities (on
    ``ability_grid``; the fit's posterior moments are reused when it is
    ``grid``). ``summary``: the validation's item summary (computed here
    when None). Reads nothing from and writes nothing to an estimator.
    """
    keep, rate, n_observed = _item_summary(values) if summary is None else summary
    _warn_constant_items(keep, labels)
    if hasattr(values, "fit_with"):  # Dask input, coded on the workers
        return values.fit_with(_fit_storage, labels, keep, rate, algorithm=algorithm,
                               chunk_size=chunk_size, settings=settings, grid=grid,
                               ability_grid=ability_grid,
                               ability_method=ability_method, rng=rng)
    data = _make_storage(values, keep, algorithm=algorithm, chunk_size=chunk_size,
                         parallel=parallel, n_observed=n_observed)
    return _fit_storage(data, labels, keep, rate, values.shape[0], settings=settings,
                        grid=grid, ability_grid=ability_grid,
                        ability_method=ability_method, rng=rng)


def _fit_storage(data, labels, keep, rate, n_agents, *, settings, grid,
                 ability_grid, ability_method, rng, should_flip=None):
    """:func:`_fit_model` on built storage ``data`` of the kept items.

    ``should_flip(mean, proportion)`` decides the orientation of the latent
    axis (default :func:`_should_flip`; a distributed store computes it
    where the per-agent values are).
    """
    a, b, loglik, n_iter, converged = _fit_items(data, grid, settings, rng)
    moments = _e_step(data, a, b, grid, counts=False, moments=True)
    proportion = data.success_rate()
    if (should_flip or _should_flip)(moments["mean"], proportion):
        a, b = -a, -b
        moments = _e_step(data, a, b, grid, counts=False, moments=True)
    _warn_about_fit(converged, a, labels[keep], settings)
    info = _item_information_louis(data, a, b, grid, settings.a_prior,
                                   settings.b_prior)
    se_a, se_b = _standard_errors(info, settings.model)
    theta, sd = _ability_estimates(
        data, a, b, ability_grid, ability_method,
        moments=moments if ability_grid is grid else None,
    )
    n_items = keep.shape[0]
    n_free = _N_FREE_PARAMS[settings.model](a.size)
    return {
        "discrimination_": _scatter(a, keep, n_items),
        "difficulty_": _scatter(b, keep, n_items),
        "discrimination_se_": _scatter(se_a, keep, n_items),
        "difficulty_se_": _scatter(se_b, keep, n_items),
        "constant_items_": labels[~keep],
        "negative_items_": labels[keep][a < 0],
        "log_likelihood_": float(loglik),
        "aic_": -2.0 * loglik + 2.0 * n_free,
        "bic_": -2.0 * loglik + n_free * np.log(n_agents),
        "n_iter_": n_iter,
        "quadrature_nodes_": grid.nodes,
        "quadrature_weights_": np.exp(grid.log_weights),
        "abilities_": theta,
        "abilities_sd_": sd,
        "agent_scores_": theta,
        "tasks_": labels,
        "_keep": keep,
        "_success_rate_items": rate,
        "_agent_success_rate": proportion,
        "_agent_n_responses": data.n_observed().astype(np.int64),
    }


def _warn_constant_items(keep, labels):
    """UserWarning naming the items left out of estimation (``~keep``)."""
    constant = ~keep
    if constant.any():
        warnings.warn(
            f"{int(constant.sum())} item(s) answered all 0, all 1 or never "
            f"were left out of estimation: {[_py(v) for v in labels[constant][:10]]}"
            + (" ..." if constant.sum() > 10 else ""),
            UserWarning,
            stacklevel=find_stack_level(),
        )


def _warn_about_fit(converged, a, labels, settings):
    """ConvergenceWarning, and a warning for (nearly) separating items."""
    if not converged:
        warnings.warn(
            f"EM did not converge in max_iter={settings.max_iter} iterations "
            f"(tol={settings.tol}); increase max_iter or set priors.",
            ConvergenceWarning,
            stacklevel=find_stack_level(),
        )
    if settings.a_prior is None:
        warn_steep_items(a, labels, remedy=settings.prior_remedy)


# |a| past which an item is steep: it (nearly) separates the agents, and its
# likelihood has no finite maximum in a (the warning below; the 3PL's
# extrapolation moves such items by plain EM)
STEEP = 10.0


def warn_steep_items(a, labels, remedy):
    """UserWarning naming the items with ``|a| > STEEP`` (no finite maximum) and
    ``remedy``, the estimator call that sets a discrimination prior."""
    steep = np.abs(a) > STEEP
    if steep.any():
        names = labels[steep].tolist()
        warnings.warn(
            f"{len(names)} item(s) have |discrimination| > {STEEP:g}: they "
            "(nearly) separate the agents, so the likelihood has no finite "
            "maximum in their a, which is where EM stopped (it grows as tol "
            f"falls): {names[:10]}" + (" ..." if len(names) > 10 else "")
            + f". A prior keeps them finite: {remedy}.",
            UserWarning,
            stacklevel=find_stack_level(),
        )


def _should_flip(theta, proportion):
    ok = np.isfinite(proportion)
    if ok.sum() < 2 or np.std(theta[ok]) == 0 or np.std(proportion[ok]) == 0:
        return False
    return np.corrcoef(theta[ok], proportion[ok])[0, 1] < 0


def _scatter(values, keep, n_items):
    out = np.full(n_items, np.nan)
    out[keep] = values
    return out


def _calibration_state(discrimination, difficulty, item_names, grid):
    """The fitted attributes of a model built from published item parameters.

    NaN in both ``discrimination`` and ``difficulty`` marks an uncalibrated
    item (treated like an item left out in fit).
    """
    a = np.asarray(discrimination, dtype=np.float64)
    b = np.asarray(difficulty, dtype=np.float64)
    for name, value in (("discrimination", a), ("difficulty", b)):
        if value.ndim != 1:
            raise ValueError(
                f"{name} must be 1-dimensional (one value per item); got shape "
                f"{value.shape}.")
    if a.shape != b.shape or a.size < 1:
        raise ValueError(
            "discrimination and difficulty must be non-empty and of equal "
            f"length; got {a.size} and {b.size}."
        )
    missing = np.isnan(a) | np.isnan(b)
    if np.any(np.isinf(a) | np.isinf(b)):
        raise ValueError("Item parameters must be finite (NaN = uncalibrated).")
    if np.any(np.isnan(a) != np.isnan(b)):
        item = int(np.flatnonzero(np.isnan(a) != np.isnan(b))[0])
        raise ValueError(
            f"Item {item} has only one of discrimination/difficulty as NaN."
        )
    state = {}
    labels = np.arange(a.size)
    if item_names is not None:
        names = np.asarray(item_names, dtype=object)
        if names.ndim != 1 or names.size != a.size:
            raise ValueError(
                f"item_names must be 1-dimensional with one name per item; got "
                f"shape {names.shape} for {a.size} items.")
        if not all(isinstance(name, str) for name in names):
            wrong = next(name for name in names if not isinstance(name, str))
            raise TypeError(
                "item_names must be strings (the column names DataFrame input "
                f"will carry); got {wrong!r} of type {type(wrong).__name__}.")
        duplicate = _first_duplicate(names)
        if duplicate is not None:
            raise ValueError(f"item_names has {duplicate[0]!r} twice; names must be "
                             "unique.")
        state["feature_names_in_"] = labels = names
    keep = ~missing
    state.update({
        "discrimination_": np.where(keep, a, np.nan),
        "difficulty_": np.where(keep, b, np.nan),
        "discrimination_se_": np.full(a.size, np.nan),
        "difficulty_se_": np.full(a.size, np.nan),
        "constant_items_": labels[missing],
        "negative_items_": labels[keep & (a < 0)],
        "quadrature_nodes_": grid.nodes,
        "quadrature_weights_": np.exp(grid.log_weights),
        "n_features_in_": a.size,
        "tasks_": labels,
        "_keep": keep,
        "_success_rate_items": np.full(a.size, np.nan),
    })
    return state
