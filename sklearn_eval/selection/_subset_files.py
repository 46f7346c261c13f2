"""Reading a SubsetScoreEstimator back from its item file."""

from __future__ import annotations

import io
import os

from ..utils._sklearn_compat import validate_params
from ._subset_io import build_estimator, parse_items_csv
from ._subset_score import SubsetScoreEstimator

__all__ = ["read_items_csv"]


@validate_params(
    {"path": [str, os.PathLike, io.IOBase]},
    prefer_skip_nested_validation=True,
)
def read_items_csv(path):
    """Rebuild a fitted :class:`SubsetScoreEstimator` from :func:`write_items_csv`.

    The result predicts from responses on all items or on the chosen items
    only (``predict``, ``predict_interval``) exactly as the estimator that
    was written.

    Parameters
    ----------
    path : str, path-like or file object

    Returns
    -------
    SubsetScoreEstimator
        Fitted; ``irt_`` is an ``IRT2PL`` built from the item parameters.

    See Also
    --------
    write_items_csv : the writer, with a round-trip example.

    Examples
    --------
    >>> import io
    >>> from sklearn_eval.selection import SubsetScoreEstimator, write_items_csv
    >>> est = SubsetScoreEstimator.from_items([0, 2], [0.5, 0.5], n_features=3)
    >>> buffer = io.StringIO()
    >>> write_items_csv(est, buffer)
    >>> _ = buffer.seek(0)
    >>> read_items_csv(buffer).predict([[1, 0]]).tolist()
    [0.5]
    """
    table, meta = parse_items_csv(path)
    return build_estimator(SubsetScoreEstimator, table, meta)
