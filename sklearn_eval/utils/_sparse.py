"""Validation of sparse result matrices: observed results only.

A scipy sparse matrix or array of results stores what was observed: an
explicit 0 is a result of 0 (a wrong answer), an absent entry is missing (a
stored NaN is missing too). Only CSR, CSC and COO keep explicit zeros
reliably; the converters and the IRT estimators accept those.
"""

import numpy as np
from scipy import sparse

__all__ = ["check_sparse_result", "is_sparse_input", "observed_mask"]


def is_sparse_input(X):
    """Whether ``X`` is a scipy sparse matrix or array."""
    return sparse.issparse(X)


def check_sparse_result(X, *, name="X", binary=True):
    """Validated CSR copy-free view of a sparse result matrix.

    Accepts CSR, CSC and COO (matrices and arrays); other formats cannot hold
    an explicit zero reliably (DIA and DOK drop them, LIL on assignment) and
    are refused. Duplicated (row, column) entries are an error: COO would add
    them up. Returns a canonical CSR (sorted indices, no duplicate), the
    input itself when it already is one; stored NaN are kept (missing).
    """
    fmt = X.format
    if fmt not in ("csr", "csc", "coo"):
        raise TypeError(
            f"{name} is a sparse matrix in {fmt.upper()} format; use CSR, CSC or "
            f"COO (e.g. {name}.tocsr()), where an explicit 0 (a wrong answer) "
            "is kept apart from an absent entry (missing)."
        )
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (agents x tasks); got {X.ndim}-D.")
    n_rows, n_columns = X.shape
    if n_rows == 0 or n_columns == 0:
        raise ValueError(f"{name} is empty: shape {X.shape}.")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers; got dtype {X.dtype}.")
    csr = X.tocsr() if fmt != "csr" else X
    if fmt == "coo" and csr.nnz != X.nnz:
        raise ValueError(
            f"{name} (COO) holds some (row, column) entry more than once; keep "
            "one response per agent and item (COO would add them up)."
        )
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sort_indices()
        repeated = np.flatnonzero(np.diff(csr.indices) == 0)
        repeated = repeated[_row_of(csr.indptr, repeated) == _row_of(csr.indptr,
                                                                     repeated + 1)]
        if repeated.size:
            row, column = _locate(csr, int(repeated[0]))
            raise ValueError(
                f"{name} holds the entry at row {row}, column {column} more than "
                "once; keep one response per agent and item."
            )
    data = csr.data
    if data.dtype.kind == "f":
        infinite = np.isinf(data)
        if infinite.any():
            row, column = _locate(csr, int(np.argmax(infinite)))
            raise ValueError(f"{name} has an infinite value at row {row}, "
                             f"column {column}.")
    if binary:
        bad = ~((data == 0) | (data == 1) | np.isnan(data))
        if bad.any():
            position = int(np.argmax(bad))
            row, column = _locate(csr, position)
            raise ValueError(
                f"{name} must hold binary responses (0, 1; absent or NaN = "
                f"missing); got {float(data[position])!r} at row {row}, "
                f"column {column}."
            )
    return csr


def _row_of(indptr, positions):
    return np.searchsorted(indptr, positions, side="right") - 1


def _locate(csr, position):
    return int(_row_of(csr.indptr, position)), int(csr.indices[position])


def observed_mask(csr):
    """Boolean mask over the stored entries: True where not NaN."""
    if csr.data.dtype.kind != "f":
        return np.ones(csr.data.shape, dtype=bool)
    return ~np.isnan(csr.data)


def replace_stored(csr, data):
    """A CSR array with the structure of ``csr`` and new stored values."""
    return sparse.csr_array((data, csr.indices.copy(), csr.indptr.copy()),
                            shape=csr.shape)
