"""The one rank rule of the library: "min" ranks with ties up to rounding.

Every ``rank`` column (``agent_table()`` of every estimator, interval tables and
their ``rank_low``/``rank_high``, the command line's and the report's tables)
comes from :func:`rank_scores`, so the same scores get the same ranks in every
entry point, and rounding noise never decides a rank: a Nash average gives every
agent of the equilibrium support the same value, but computed as different sums
those values differ in their last bits.
"""

import numpy as np

__all__ = ["RANK_RTOL", "agent_ranks", "rank_scores"]

#: Relative tolerance under which two scores tie: ``|a - b| <= RANK_RTOL *
#: max(1, max|score|)``. Far below any difference a benchmark can resolve, far
#: above float64 rounding (about 1e-16 relative per operation).
RANK_RTOL = 1e-9


def rank_scores(scores, *, rtol=RANK_RTOL, higher_is_better=True):
    """Competition ("min") ranks, 1 = best, with scores equal up to ``rtol`` tied.

    Scores are sorted best first; a score within ``rtol * max(1, max|score|)``
    (the maximum over the finite scores) of the next better one ties with it
    and takes its rank, and the next distinct score takes the rank after all
    tied ones (1, 1, 3). Chains of such gaps form one tie, so ties are decided
    in the same way whatever the order of the input.

    Parameters
    ----------
    scores : array-like of shape (n_items,) or (n_rows, n_items)
        Scores; NaN for an item without one. A 2-D array is ranked row by row
        (e.g. bootstrap resamples), each row with its own scale.
    rtol : float, default=RANK_RTOL
        Relative tolerance (1e-9); 0 ties only equal scores. Estimators whose
        scores come from an iterative solver use their solver's tolerance.
    higher_is_better : bool, default=True
        Rank 1 is the highest score, else the lowest.

    Returns
    -------
    ranks : ndarray of the shape of ``scores``
        int64 when every score is a number; float64 with NaN at the NaN scores
        otherwise (pandas' convention).

    Examples
    --------
    >>> from sklearn_eval.utils import rank_scores
    >>> rank_scores([0.354972, 0.354972 + 1e-16, 0.2, 0.354972 - 2e-16]).tolist()
    [1, 1, 4, 1]
    >>> rank_scores([3.0, float("nan"), 1.0]).tolist()
    [1.0, nan, 2.0]
    >>> rank_scores([3.0, 1.0, 2.0], higher_is_better=False).tolist()
    [3, 1, 2]
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim not in (1, 2):
        raise ValueError(f"scores must be 1-D or 2-D; got shape {scores.shape}.")
    if not (np.isfinite(rtol) and rtol >= 0):
        raise ValueError(f"rtol must be a finite number >= 0; got {rtol!r}.")
    rows = np.atleast_2d(scores)
    n_items = rows.shape[1]
    if n_items == 0:
        return np.zeros(scores.shape, dtype=np.int64)
    missing = np.isnan(rows)
    keys = np.where(missing, np.inf, -rows if higher_is_better else rows)
    order = np.argsort(keys, axis=1, kind="stable")
    ordered = np.take_along_axis(keys, order, axis=1)
    with np.errstate(invalid="ignore"):
        magnitude = np.max(np.where(np.isfinite(rows), np.abs(rows), 0.0), axis=1)
        gap = rtol * np.maximum(1.0, magnitude)[:, None]
        # a new group starts where the next score is worse by more than the gap
        starts = np.diff(ordered, axis=1) > gap
    starts = np.concatenate([np.ones((rows.shape[0], 1), bool), starts], axis=1)
    position = np.arange(n_items)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    ranks = np.empty(rows.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, first + 1, axis=1)
    ranks = ranks.reshape(scores.shape)
    if not missing.any():
        return ranks
    ranks = ranks.astype(np.float64)
    ranks[missing.reshape(scores.shape)] = np.nan
    return ranks


def agent_ranks(estimator):
    """The ``rank`` column of a fitted ranker's ``agent_table()``, by ``agents_``.

    Ranks ``agent_scores_`` with the estimator's tolerance (``RANK_RTOL``, or
    its solver's accuracy where it declares one), so tables built outside the
    estimator (command line, report) show the estimator's ranks.
    """
    rule = getattr(estimator, "_rank_rtol", None)
    rtol = RANK_RTOL if rule is None else rule()
    return rank_scores(estimator.agent_scores_, rtol=rtol)
