"""One rule for agents without any response: raise, or drop with a warning."""

import warnings

import numpy as np

__all__ = ["check_empty_agents"]

_SHOWN = 5


_BLOCK = 4096


def _rows_without_response(values):
    """Empty rows; sparse: no stored entry (absent entries are missing)."""
    if hasattr(values, "tocsr"):
        csr = values.tocsr()
        return np.diff(csr.indptr) == 0
    values = np.asarray(values, dtype=np.float64)
    out = np.empty(values.shape[0], dtype=bool)
    for start in range(0, values.shape[0], _BLOCK):  # no n x m temporary
        block = values[start : start + _BLOCK]
        out[start : start + block.shape[0]] = np.isnan(block).all(axis=1)
    return out


def check_empty_agents(
    values, agents=None, *, drop_empty=False, what="fit", remedy=None
):
    """Which agents (rows) to keep: the rule for agents with no response.

    An agent with no observed response (every entry NaN, or no stored entry
    of a sparse matrix) carries no information about the items or about
    itself. Every entry point of the library (``IRT2PL.fit``,
    ``SubsetScoreEstimator.fit``, ``VotingRanker.fit``, ``advise``, the
    ``irt``, ``generality``, ``select``, ``compress``, ``vote``, ``compare``,
    ``advise`` and ``report`` commands) follows
    one rule: by default it
    raises a ValueError saying how many such agents there are and naming the
    first few; with ``drop_empty=True`` (``--drop-empty`` on the command
    line) it leaves them out with a UserWarning that names them.

    Parameters
    ----------
    values : array-like or sparse matrix of shape (n_agents, n_items)
        Responses, NaN (or absent, sparse) where missing.
    agents : array-like of shape (n_agents,), default=None
        Labels of the rows, for the messages (row numbers otherwise).
    drop_empty : bool, default=False
        Leave the empty agents out (with a warning) instead of raising.
    what : str, default="fit"
        The caller, named in the messages (e.g. ``"IRT2PL.fit"``).
    remedy : str or None, default=None
        What the error suggests; None suggests ``drop_empty=True``
        (``--drop-empty``).

    Returns
    -------
    keep : ndarray of bool of shape (n_agents,)
        True for the agents with at least one response.

    Raises
    ------
    ValueError
        If some agent has no response and ``drop_empty`` is False, or if no
        agent has any.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils import check_empty_agents
    >>> X = np.array([[1.0, 0.0], [np.nan, np.nan], [0.0, 1.0]])
    >>> check_empty_agents(X, ["a", "b", "c"], drop_empty=True).tolist()
    [True, False, True]
    """
    empty = _rows_without_response(values)
    if not empty.any():
        return ~empty
    rows = np.flatnonzero(empty)
    names = [
        repr(agents[k].item() if isinstance(agents[k], np.generic) else agents[k])
        if agents is not None
        else f"row {k}"
        for k in rows[:_SHOWN]
    ]
    listed = ", ".join(names) + (", ..." if rows.size > _SHOWN else "")
    count = f"{rows.size} agent{'s' if rows.size > 1 else ''}"
    have = "have" if rows.size > 1 else "has"
    if empty.all():
        raise ValueError(f"{what}: no agent has any observed response.")
    if hasattr(values, "tocsr"):
        listed += "; an absent entry of a sparse matrix is a missing response, not 0"
    if not drop_empty:
        if remedy is None:
            remedy = (
                "remove them, or pass drop_empty=True (--drop-empty on the "
                "command line) to leave them out with a warning"
            )
        raise ValueError(
            f"{what}: {count} of {empty.size} {have} no observed response "
            f"({listed}); {remedy}."
        )
    warnings.warn(
        f"{what}: left out {count} of {empty.size} with no observed response "
        f"({listed}).",
        UserWarning,
        stacklevel=2,
    )
    return ~empty
