"""Paired comparisons of agents, with multiplicity control."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.stats import norm
from threadpoolctl import threadpool_limits

from ..utils._stack import find_stack_level
from ..utils._validation import check_result_matrix
from ._joint import joint_scores

__all__ = ["adjust_p_values", "compare_agents"]

_CORRECTIONS = ("holm", "bh", None)


def adjust_p_values(p_values, correction="holm"):
    """Holm (familywise error) or Benjamini-Hochberg (false discovery rate).

    Parameters
    ----------
    p_values : array-like of shape (m,)
    correction : {"holm", "bh", None}, default="holm"
        ``"holm"``: Holm's step-down, which controls the familywise error
        rate under any dependence; ``"bh"``: Benjamini-Hochberg step-up,
        which controls the false discovery rate for independent or
        positively dependent tests; None: unadjusted.

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> from sklearn_eval.uncertainty import adjust_p_values
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if correction not in _CORRECTIONS:
        raise ValueError(
            f"correction must be one of {_CORRECTIONS}; got {correction!r}."
        )
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1 or np.isnan(p).any() or ((p < 0) | (p > 1)).any():
        raise ValueError("p_values must be a 1-D array of values in [0, 1].")
    m = p.shape[0]
    if correction is None or m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if correction == "holm":
        adjusted = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:
        adjusted = np.minimum.accumulate(m / np.arange(m, 0, -1) * ranked[::-1])
        adjusted = adjusted[::-1]
    out = np.empty(m)
    out[order] = np.clip(adjusted, 0.0, 1.0)
    return out


def _resolve_pairs(pairs, labels, score):
    """Pairs as index arrays (a, b); a is the better-scored of adjacent pairs."""
    order = np.argsort(-score, kind="stable")
    order = order[~np.isnan(score[order])]
    if isinstance(pairs, str):
        if pairs == "adjacent":
            return order[:-1], order[1:]
        if pairs == "all":
            first, second = np.triu_indices(order.shape[0], k=1)
            return order[first], order[second]
        raise ValueError(
            f"pairs must be 'adjacent', 'all' or a list of (agent, agent); "
            f"got {pairs!r}."
        )
    position = {label: k for k, label in enumerate(labels.tolist())}
    try:
        listed = [tuple(pair) for pair in pairs]
    except TypeError:
        raise ValueError(
            "pairs must be 'adjacent', 'all' or a list of (agent, agent) pairs."
        ) from None
    if not listed or any(len(pair) != 2 for pair in listed):
        raise ValueError("pairs must be a non-empty list of (agent, agent) pairs.")
    unknown = sorted({str(a) for pair in listed for a in pair if a not in position})
    if unknown:
        raise ValueError(
            f"pairs names unknown agents {unknown[:10]}; known agents include "
            f"{[str(a) for a in labels[:5].tolist()]}."
        )
    first = np.array([position[a] for a, _ in listed], dtype=np.intp)
    second = np.array([position[b] for _, b in listed], dtype=np.intp)
    if (first == second).any():
        raise ValueError("pairs compares an agent with itself.")
    return first, second


def compare_agents(
    estimator,
    X,
    y=None,
    *,
    sample_weight=None,
    pairs="adjacent",
    groups=None,
    correction="holm",
    confidence_level=0.95,
    method="auto",
    n_resamples=1000,
    random_state=None,
    n_jobs=None,
    target=None,
    frequency_weights=False,
):
    """Is agent A really ahead of agent B? Paired tests of score differences.

    Each difference is taken where the data are paired: from the joint
    covariance of the scores (analytic paths: every rating fitted on the
    same matches, or the means of agents answering the same items), or
    from bootstrap replicates in which both agents are refitted on the same
    resample (the same matches, tasks or clusters). Never two independent
    intervals. The test of no difference is a two-sided Wald test; the
    p-values are adjusted over the pairs compared.

    Parameters
    ----------
    estimator : estimator instance or "mean"
        Unfitted; any estimator with ``__sklearn_eval_intervals__``;
        ``"mean"`` compares the rows of a result matrix by their mean over
        the tasks, paired on the tasks.
    X, y, sample_weight
        The estimator's training data.
    pairs : "adjacent", "all" or list of (agent, agent), default="adjacent"
        ``"adjacent"``: neighbours in the score order (better first);
        ``"all"``: every pair; or the pairs to compare, by agent label.
    groups : array-like, default=None
        Cluster labels (one per match, or per task): cluster bootstrap or
        cluster-robust covariance, as in :func:`ranking_intervals`.
    correction : {"holm", "bh", None}, default="holm"
        Adjustment of the p-values (see :func:`adjust_p_values`).
    confidence_level : float, default=0.95
        Of each pair's (unadjusted) interval.
    method : {"auto", "analytic", "bootstrap"}, default="auto"
    n_resamples : int, default=1000
    random_state : int, SeedSequence, RandomState or None, default=None
    n_jobs : int, default=None
    target : str, default=None
    frequency_weights : bool, default=False
        Read ``sample_weight`` as counts of identical matches.

    Returns
    -------
    DataFrame
        One row per pair: ``agent_a``, ``agent_b``, ``difference``
        (score of a minus score of b), ``se``, ``low``, ``high``,
        ``p_value``, ``p_adjusted``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.uncertainty import compare_agents
    >>> rng = np.random.default_rng(0)
    >>> X = (rng.random((3, 400)) < [[0.8], [0.6], [0.59]]).astype(float)
    >>> table = compare_agents("mean", X, pairs="all")
    >>> list(table.columns)
    ['agent_a', 'agent_b', 'difference', 'se', 'low', 'high', 'p_value', 'p_adjusted']
    >>> bool(table["p_adjusted"].iloc[0] < 0.05)
    True
    """
    if correction not in _CORRECTIONS:
        raise ValueError(
            f"correction must be one of {_CORRECTIONS}; got {correction!r}."
        )
    with threadpool_limits(limits=1, user_api="blas"):
        joint = joint_scores(
            estimator, X, y, sample_weight=sample_weight, target=target,
            method=method, groups=groups, n_resamples=n_resamples,
            confidence_level=confidence_level, random_state=random_state,
            n_jobs=n_jobs, frequency_weights=frequency_weights,
        )
    first, second = _resolve_pairs(pairs, joint.labels, joint.score)
    if isinstance(estimator, str) and estimator == "mean":
        _warn_unshared_tasks(X, joint.labels[first], joint.labels[second])
    difference = joint.score[first] - joint.score[second]
    if joint.cov is not None:
        cov = joint.cov
        var = cov[first, first] + cov[second, second] - 2.0 * cov[first, second]
        se = np.sqrt(np.clip(var, 0.0, None))
    else:
        paired = joint.samples[:, first] - joint.samples[:, second]
        se = np.nanstd(paired, axis=0, ddof=1)
    z = norm.ppf(0.5 + confidence_level / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(difference) / se
    t = np.where(se > 0, t, np.where(difference != 0, np.inf, 0.0))
    p_value = 2.0 * norm.sf(t)
    # on the estimator's own scale (higher or lower may be better)
    difference = joint.sign * difference
    return pd.DataFrame({
        "agent_a": joint.labels[first], "agent_b": joint.labels[second],
        "difference": difference, "se": se,
        "low": difference - z * se, "high": difference + z * se,
        "p_value": p_value,
        "p_adjusted": adjust_p_values(p_value, correction),
    })


def _warn_unshared_tasks(X, left, right):
    """Warn when compared agents' means are over different tasks.

    With missing results each agent's mean is over the tasks it has, so the
    difference of two means also differs by the tasks each lacks (their
    difficulty), not by the agents alone; the bootstrap resamples the tasks
    jointly but cannot pair what one agent never did.
    """
    checked = check_result_matrix(X, allow_nan=True)
    observed = ~np.isnan(checked.values)
    if observed.all():
        return
    # the labels of joint_scores: a DataFrame's index (any kind), else rows
    agents = (np.asarray(X.index) if isinstance(X, pd.DataFrame)
              else np.arange(observed.shape[0]))
    row = {label: k for k, label in enumerate(agents)}
    worst, n_pairs = None, 0
    for a, b in zip(left, right, strict=True):
        if a not in row or b not in row:
            continue
        mask_a, mask_b = observed[row[a]], observed[row[b]]
        alone = int(np.sum(mask_a ^ mask_b))
        n_pairs += alone > 0
        if alone and (worst is None or alone > worst[0]):
            worst = (alone, a, b, int(mask_a.sum()), int(mask_b.sum()),
                     int(np.sum(mask_a & mask_b)))
    if worst is None:
        return
    _, a, b, n_a, n_b, shared = worst
    a, b = (x.item() if isinstance(x, np.generic) else x for x in (a, b))
    warnings.warn(
        f"{n_pairs} compared pair(s) of agents have results on different tasks "
        f"(e.g. {a!r} on {n_a} tasks and {b!r} on {n_b}, {shared} shared): their "
        "mean scores are over different tasks, so a difference also reflects the "
        "tasks each lacks. Compare agents on the tasks they share (drop the "
        "others) for a difference of the agents alone.",
        UserWarning,
        stacklevel=find_stack_level(),
    )
