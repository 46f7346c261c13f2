"""IRT2PL and IRT on Dask input: what the estimators call, data left on the workers.

The estimator's hooks are three: :func:`dask_fit_data` validates and codes
the input on the workers in place of the in-memory validation,
:func:`dask_input` does the same for new data (``transform``,
``score_samples``), and :func:`stack_columns` keeps ``transform``'s output a
Dask array. The fit itself runs through the in-memory code path
(:func:`._fit._fit_model` sees coded Dask input and builds the distributed
store of :mod:`._dask_responses` in place of an in-memory one), so the EM
engine, the standard errors and the abilities are the same code.

Per-agent results (abilities, their sd, success rates, response counts) are
Dask arrays over the agents, one chunk per partition, held on the workers;
item parameters, the log-likelihood and standard errors are numpy. The
agents' labels (``agents_``) are collected: the ranking protocol indexes by
them, and they are small next to the responses.
"""

import numpy as np

from ..utils._dask import is_dask_collection, stack_columns
from ._continuous import CONTINUOUS_MODELS
from ._dask_continuous import (
    continuous_dask_data,
    continuous_dask_pass,
    continuous_dask_predict,
    fit_continuous_dask,
)
from ._dask_graded import (
    fit_graded_dask,
    fit_graded_factors_dask,
    graded_dask_data,
    graded_dask_pass,
    graded_dask_proba,
    graded_dask_store,
)
from ._dask_input import long_columns, read_dask_array, read_long_table, summary_of
from ._graded import GRADED_MODELS

__all__ = ["check_dask_model", "continuous_dask_pass", "continuous_dask_predict",
           "dask_continuous_fit_data", "dask_fit_data", "dask_graded_fit_data",
           "dask_input", "fit_continuous_dask", "fit_graded_dask",
           "fit_graded_factors_dask", "graded_dask_pass", "graded_dask_proba",
           "graded_dask_store", "is_dask_collection", "stack_columns"]

# the models of IRT that read Dask input: binary, graded and continuous (the
# 2PL, GRM and GPCM with several factors too)
DASK_MODELS = ("1PL", "2PL", "3PL", "4PL", *GRADED_MODELS, *CONTINUOUS_MODELS)


def _kind(model):
    """What the scores of ``model`` are (the validation on the workers)."""
    if model in GRADED_MODELS:
        return "graded"
    return "continuous" if model in CONTINUOUS_MODELS else "binary"


def _read(X, *, items=None, n_items=None, kind="binary"):
    """Coded Dask input: a Dask array or a Dask DataFrame long table."""
    if hasattr(X, "columns") and hasattr(X, "to_delayed"):
        long_columns(X)
        return read_long_table(X, items, kind=kind)
    if hasattr(X, "chunks") and hasattr(X, "to_delayed"):
        return read_dask_array(X, n_items, kind=kind)
    raise TypeError(
        "Dask input must be a Dask array (agents x items) or a Dask DataFrame "
        f"long table (agent, item, score); got {type(X).__name__}."
    )


def dask_fit_data(X, drop_empty=False, *, name="IRT2PL"):
    """``_check_fit_responses`` for Dask input: ``(data, labels, summary, agents)``.

    ``data`` is the input coded on the workers (it has ``shape``); only the
    labels and per-item counts reach the driver. ``drop_empty`` has nothing
    to do: a long table has no agent without a response, and a Dask array
    with one is an error naming its chunk and row. ``name``: the estimator
    the errors name.
    """
    data = _read(X)
    n_agents, n_items = data.shape
    if n_items < 2:
        raise ValueError(f"{name} needs at least 2 items (columns); got {n_items}.")
    if n_agents < 2:
        raise ValueError(f"{name} needs at least 2 agents (rows); got {n_agents}.")
    summary = summary_of(data.totals)
    if summary.keep.sum() < 2:
        raise ValueError(
            f"{name} needs at least 2 items with both successes and failures; "
            f"got {int(summary.keep.sum())} of {n_items}."
        )
    labels = (np.arange(n_items) if data.items is None
              else np.asarray(data.items, dtype=object))
    agents = np.arange(n_agents) if data.agents is None else np.asarray(data.agents)
    return data, labels, summary, agents


def dask_graded_fit_data(X, model):
    """``check_graded_fit`` for Dask input (GRM, GPCM), coded on the workers."""
    return graded_dask_data(_read(X, kind="graded"), model)


def dask_continuous_fit_data(X, clip):
    """``summarise_scores`` for Dask input (beta, logit-normal), on the workers."""
    return continuous_dask_data(_read(X, kind="continuous"), clip)


def check_dask_model(estimator):
    """ValueError naming the model unless :class:`IRT` reads Dask input for it.

    Every model runs on the distributed stores: the one-factor binary,
    graded and continuous models and the 2PL, GRM and GPCM with several
    factors (``n_factors`` with other models is refused by the estimator's
    own parameter check, as in memory).
    """
    model = estimator.model
    if model not in DASK_MODELS:
        raise ValueError(
            f"IRT with model={model!r} does not read Dask input: only the "
            "binary (1PL, 2PL, 3PL, 4PL), graded (GRM, GPCM) and continuous "
            "(beta, logit-normal) models run on a Dask cluster. Collect the "
            "data first (X.compute()) or choose one of those."
        )


def dask_input(X, estimator):
    """New Dask input coded on the workers against a fitted estimator's items."""
    return _read(X, items=estimator.tasks_ if hasattr(X, "columns") else None,
                 n_items=estimator.n_features_in_,
                 kind=_kind(estimator.model))
