"""Storage of 0/1 responses for the IRT estimators, served in blocks of agents.

At leaderboard scale the responses are stored as uint8 and converted to
float64 one block at a time; the row-block helpers here validate and summarise
a result matrix without full-size temporaries.
"""

import numpy as np
from sklearn.utils.validation import _get_feature_names

from ..utils import check_binary_values, check_result_matrix
from ..utils._protocol import column_labels

# Above this many responses the 0/1 data are stored as uint8 and converted to
# float64 block by block (saves 8x memory at leaderboard scale).
_DENSE_LIMIT = 2**25
# Target number of responses per block of agents in the E-step.
_BLOCK_ENTRIES = 2**22


class _Responses:
    """0/1 responses with a missing-data mask, served in blocks of agents.

    ``blocks()`` yields ``(rows, Y, M)`` with ``Y`` the float64 responses (0
    where missing) and ``M`` the float64 observation mask, or ``None`` when no
    response is missing anywhere; ``raw_blocks()`` yields the stored blocks
    (uint8 at leaderboard scale) for workers to convert themselves.
    ``chunk_size`` agents per block (None: about ``_BLOCK_ENTRIES``
    responses). ``parallel`` is None (serial E-step) or a running
    ``joblib.Parallel`` that computes the blocks of an E-step concurrently.
    """

    def __init__(self, values, keep=None, *, chunk_size=None, parallel=None):
        columns = slice(None) if keep is None or keep.all() else keep
        self.n_agents = values.shape[0]
        self.n_items = values.shape[1] if keep is None else int(np.sum(keep))
        self.parallel = parallel
        rows = chunk_size or max(1, _BLOCK_ENTRIES // max(self.n_items, 1))
        self._starts = range(0, self.n_agents, rows)
        self._rows = rows
        self.dense = self.n_agents * self.n_items <= _DENSE_LIMIT
        dtype = np.float64 if self.dense else np.uint8
        shape = (self.n_agents, self.n_items)
        self._Y = np.empty(shape, dtype=dtype)
        mask = np.empty(shape, dtype=dtype)
        self.has_missing = False
        # filled block by block: no full-size float64 temporaries
        for start in self._starts:
            block = slice(start, min(start + rows, self.n_agents))
            part = values[block][:, columns]
            observed = ~np.isnan(part)
            self.has_missing |= not bool(observed.all())
            self._Y[block] = np.where(observed, part, 0.0)
            mask[block] = observed
        self._M = mask if self.has_missing else None

    def success_rate(self):
        """Per agent: successes / observed responses (NaN if none)."""
        out = np.empty(self.n_agents)
        for rows, Y, M in self.blocks():
            n_obs = Y.shape[1] if M is None else M.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[rows] = Y.sum(axis=1) / n_obs
        return out

    def raw_blocks(self):
        for start in self._starts:
            rows = slice(start, min(start + self._rows, self.n_agents))
            yield rows, self._Y[rows], None if self._M is None else self._M[rows]

    def blocks(self):
        for rows, Y, M in self.raw_blocks():
            yield (rows, *_as_float_block(Y, M))

    def n_observed(self):
        if self._M is None:
            return np.full(self.n_agents, float(self.n_items))
        return np.asarray(self._M.sum(axis=1), dtype=np.float64)


def _as_float_block(Y, M):
    """float64 views (or copies, for uint8 storage) of a block of responses."""
    if Y.dtype == np.float64:
        return Y, M
    return Y.astype(np.float64), None if M is None else M.astype(np.float64)


def _row_blocks(values):
    """Row slices of about ``_BLOCK_ENTRIES`` entries each."""
    rows = max(1, _BLOCK_ENTRIES // max(values.shape[1], 1))
    return (slice(start, start + rows) for start in range(0, values.shape[0], rows))


def _check_binary_in_blocks(values):
    """``check_binary_values`` without full-size temporaries.

    Checks block by block; on failure the shared check runs on the whole
    matrix to name the first offending (row, column).
    """
    for rows in _row_blocks(values):
        part = values[rows]
        if not np.all(np.isnan(part) | (part == 0.0) | (part == 1.0)):
            check_binary_values(values)  # raises, naming the first bad entry
            raise ValueError("X must hold binary responses (0, 1, or NaN).")
    return values


def _empty_rows(values):
    """Boolean mask of the agents with no observed response (row blocks)."""
    out = np.empty(values.shape[0], dtype=bool)
    for rows in _row_blocks(values):
        out[rows] = np.isnan(values[rows]).all(axis=1)
    return out


def _column_counts(values):
    """Successes and observed responses per item, computed in row blocks."""
    successes = np.zeros(values.shape[1])
    observed = np.zeros(values.shape[1])
    for rows in _row_blocks(values):
        part = values[rows]
        seen = ~np.isnan(part)
        successes += np.where(seen, part, 0.0).sum(axis=0)
        observed += seen.sum(axis=0)
    return successes, observed


def _informative_items(values):
    successes, observed = _column_counts(values)
    keep = (successes > 0) & (successes < observed)
    return keep, ~keep


def _column_rate(values):
    successes, observed = _column_counts(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(observed > 0, successes / observed, np.nan)


def _check_fit_responses(X):
    """Validated 0/1 responses for ``IRT2PL.fit`` and the item labels."""
    checked = check_result_matrix(X, allow_nan=True)
    values = _check_binary_in_blocks(checked.values)
    _get_feature_names(X)  # rejects mixed column-name types before fitting
    n_agents, n_items = values.shape
    if n_items < 2:
        raise ValueError(
            f"IRT2PL needs at least 2 items (columns); got {n_items}."
        )
    if n_agents < 2:
        raise ValueError(
            f"IRT2PL needs at least 2 agents (rows); got {n_agents}."
        )
    empty = _empty_rows(values)
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        name = "" if checked.agents is None else f" ({checked.agents[row]!r})"
        raise ValueError(
            f"Agent at row {row}{name} has no observed response; every agent "
            "needs at least one 0/1 response in fit."
        )
    keep, _ = _informative_items(values)
    if keep.sum() < 2:
        raise ValueError(
            "IRT2PL needs at least 2 items with both successes and failures; "
            f"got {int(keep.sum())} of {n_items}."
        )
    labels = (
        np.asarray(checked.tasks, dtype=object)
        if checked.tasks is not None
        else column_labels(X, n_items)
    )
    return values, labels
