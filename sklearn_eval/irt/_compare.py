"""Which item response model a benchmark needs: held-out responses and AIC/BIC."""

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.stats import false_discovery_control
from sklearn.base import clone
from sklearn.utils import check_random_state

from ..utils._sparse import is_sparse_input
from ._binary_curves import BINARY_MODELS
from ._continuous import CONTINUOUS_MODELS, check_scores
from ._graded import GRADED_MODELS
from ._graded_fit import graded_values, known_categories
from ._irt import IRT
from ._responses import _check_responses


def _observed_cells(values):
    """Rows, columns and values of the observed responses."""
    if is_sparse_input(values):
        coo = sparse.coo_array(values)
        seen = ~np.isnan(coo.data)
        return coo.row[seen], coo.col[seen], coo.data[seen]
    rows, cols = np.nonzero(~np.isnan(values))
    return rows, cols, values[rows, cols]


def _matrix(shape, rows, cols, data, as_sparse):
    if as_sparse:
        return sparse.csr_array((data, (rows, cols)), shape=shape)
    out = np.full(shape, np.nan)
    out[rows, cols] = data
    return out


def _candidate(model, params):
    """An IRT from a name, a ``(name, n_factors)`` pair or an IRT instance."""
    if isinstance(model, IRT):
        return model
    if not isinstance(model, str | tuple):
        raise TypeError(
            f"models takes names, (name, n_factors) pairs or IRT instances; got "
            f"{model!r} (IRT(model='2PL') is the 2PL)."
        )
    if isinstance(model, tuple):
        if len(model) != 2 or not isinstance(model[1], int | np.integer):
            raise ValueError(
                f"A model given as a tuple is (name, n_factors), e.g. ('2PL', 2); "
                f"got {model!r}."
            )
        return IRT(model=model[0], **{**params, "n_factors": int(model[1])})
    return IRT(model=model, **params)


def _label(estimator):
    """Row label: the model name, with the number of factors when > 1."""
    if estimator.n_factors == 1:
        return estimator.model
    return f"{estimator.model} ({estimator.n_factors} factors)"


def compare_models(X, models=("1PL", "2PL", "3PL"), *, cv=5, random_state=None,
                   return_item_fit=False, misfit_alpha=0.05, **params):
    """Held-out log-likelihood, AIC and BIC of several IRT models on ``X``.

    The observed responses (not the agents) are split at random into ``cv``
    folds. For each fold every model is fitted on the other responses; the
    held-out log-likelihood of an agent is
    ``log p(all its responses) - log p(its training responses)`` under the
    fitted items, i.e. the log predictive probability of its held-out
    responses given its training ones (the ability integrated out). It is
    summed over agents and folds and divided by the number of held-out
    responses scored (responses to an item left out of a fold's fit, because
    its training responses were constant, are not scored). AIC and BIC come
    from a fit on all responses, and so does the item fit: every item's
    chi-square and p-value (:meth:`IRT.item_fit`, an S-X2-type statistic on
    rest-of-test posteriors, Orlando and Thissen 2000, generalised to ordered
    categories as in Kang and Chen 2008); an item is flagged as
    misfit when its p-value stays below ``misfit_alpha`` after the
    Benjamini-Hochberg correction over the model's items.

    Parameters
    ----------
    X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
            (n_agents, n_items)
        Responses in {0, 1} (ordered categories 0, 1, 2, ... for ``"GRM"``
        and ``"GPCM"``); NaN (or an absent sparse entry) is missing.
        Held-out responses in a category the fold's training responses never
        had for that item are not scored. Scores in [0, 1] for the continuous
        models (``"beta"``, ``"logit-normal"``), whose held-out
        log-likelihood is a log-density per response on the score scale.
    models : sequence of str, (str, int) or IRT, default=("1PL", "2PL", "3PL")
        Model names (``IRT(model=name, **params)``), ``(name, n_factors)``
        pairs for several abilities (``("2PL", 2)``: ``IRT(model="2PL",
        n_factors=2, **params)``, labelled ``"2PL (2 factors)"``) or IRT
        instances.
    cv : int, default=5
        Number of folds of responses (at least 2).
    random_state : int, RandomState instance or None, default=None
        Seeds the split of the responses.
    return_item_fit : bool, default=False
        Also return the item fit of every model and item.
    misfit_alpha : float, default=0.05
        False discovery rate at which items are flagged as misfit.
    **params : dict
        Further parameters of every :class:`IRT` built from a name.

    Returns
    -------
    table : pandas.DataFrame
        Indexed by model, with columns ``heldout_loglik_per_response``,
        ``heldout_loglik_se`` (over folds), ``n_heldout``, ``log_likelihood``,
        ``n_parameters``, ``aic``, ``bic``, ``n_misfit_items`` (NaN for the
        models without an item-fit statistic: continuous and several
        factors); best held-out model first.
    item_fit : pandas.DataFrame
        With ``return_item_fit``: indexed by (model, item), columns
        ``statistic``, ``pvalue`` and ``misfit`` (NaN and False for items
        left out of a model's fit).

    Examples
    --------
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.irt import compare_models
    >>> X = make_irt_responses(200, 8, random_state=0)
    >>> table = compare_models(X, models=["1PL", "2PL"], cv=3, random_state=0)
    >>> table.columns[:3].tolist()
    ['heldout_loglik_per_response', 'heldout_loglik_se', 'n_heldout']
    """
    if not isinstance(cv, int | np.integer) or isinstance(cv, bool) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2; got {cv!r}.")
    if not (isinstance(misfit_alpha, float | int) and 0 < misfit_alpha < 1):
        raise ValueError(
            f"misfit_alpha must be a number in (0, 1); got {misfit_alpha!r}.")
    pair = (isinstance(models, tuple) and len(models) == 2
            and isinstance(models[0], str) and isinstance(models[1], int | np.integer))
    if isinstance(models, str | IRT) or pair:
        raise TypeError(
            f"models must be a list of models, e.g. [{models!r}]; got {models!r}.")
    estimators = [_candidate(model, params) for model in models]
    if not estimators:
        raise ValueError("models must name at least one model.")
    continuous = [e.model in CONTINUOUS_MODELS for e in estimators]
    if any(continuous) and not all(continuous):
        raise ValueError(
            "models mixes continuous-score models (beta, logit-normal) with "
            "models of 0/1 or categorical responses; compare models of one kind.")
    graded = any(estimator.model in GRADED_MODELS for estimator in estimators)
    if all(continuous):
        values = check_scores(X)[0]
    elif graded:
        values = graded_values(X)
    else:
        values = _check_responses(X)[0]
    rows, cols, data = _observed_cells(values)
    if rows.size < cv:
        raise ValueError(
            f"cv={cv} folds of the observed responses need at least {cv} of them; "
            f"X has {rows.size}.")
    fold = check_random_state(random_state).permutation(rows.size) % cv
    as_sparse = is_sparse_input(values)
    records, fits = [], []
    for estimator in estimators:
        per_fold, n_scored = [], 0
        for k in range(cv):
            train = fold != k
            held = ~train
            seen = np.bincount(rows[train], minlength=values.shape[0]) > 0
            index = np.cumsum(seen) - 1  # agents with training responses
            keep_rows = seen[rows]
            fitted = clone(estimator).fit(_matrix(
                (int(seen.sum()), values.shape[1]), index[rows[train & keep_rows]],
                cols[train & keep_rows], data[train & keep_rows], as_sparse))
            scored = held & fitted._keep[cols]
            if fitted.model in GRADED_MODELS:  # a category unseen in training
                scored &= known_categories(fitted, cols, data)
            both = train | scored
            full = fitted._pass(_matrix(values.shape, rows[both], cols[both],
                                        data[both], as_sparse), moments=True)
            part = fitted._pass(_matrix(values.shape, rows[train], cols[train],
                                        data[train], as_sparse), moments=True)
            per_fold.append(float(full["per_agent"].sum() - part["per_agent"].sum()))
            n_scored += int(scored.sum())
        whole = clone(estimator).fit(X)
        criteria = whole.information_criteria()
        if (whole.model in BINARY_MODELS or whole.model in GRADED_MODELS) and (
                whole.n_factors == 1):
            statistic, pvalue = whole.item_fit(X)
        else:  # the item-fit statistics are of one-ability binary and graded models
            statistic = pvalue = np.full(len(whole.tasks_), np.nan)
        misfit = _misfit(pvalue, misfit_alpha)
        fits.append(pd.DataFrame({"model": _label(estimator), "item": whole.tasks_,
                                  "statistic": statistic, "pvalue": pvalue,
                                  "misfit": misfit}))
        per_fold = np.asarray(per_fold)
        fold_sizes = n_scored / cv
        records.append({
            "model": _label(estimator),
            "heldout_loglik_per_response": per_fold.sum() / max(n_scored, 1),
            "heldout_loglik_se": float(np.std(per_fold / fold_sizes, ddof=1)
                                       / np.sqrt(cv)),
            "n_heldout": n_scored,
            "log_likelihood": criteria["log_likelihood"],
            "n_parameters": criteria["n_parameters"],
            "aic": criteria["aic"],
            "bic": criteria["bic"],
            "n_misfit_items": (int(misfit.sum()) if np.isfinite(pvalue).any()
                               else np.nan),
        })
    table = pd.DataFrame.from_records(records).set_index("model")
    table = table.sort_values("heldout_loglik_per_response", ascending=False)
    if return_item_fit:
        return table, pd.concat(fits).set_index(["model", "item"])
    return table


def _misfit(pvalue, alpha):
    """Items whose p-value is below ``alpha`` after Benjamini-Hochberg."""
    out = np.zeros(pvalue.shape, dtype=bool)
    scored = np.isfinite(pvalue)
    if scored.any():
        out[scored] = false_discovery_control(pvalue[scored]) < alpha
    return out
