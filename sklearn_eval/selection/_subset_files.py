"""Reading a SubsetScoreEstimator back from its item file."""

from __future__ import annotations

import io
import os

from ..utils._sklearn_compat import validate_params
from ._item_format import parse_item_file
from ._subset_io import build_estimator
from ._subset_score import SubsetScoreEstimator

__all__ = ["read_items_csv"]


def _read_text(path):
    """(text or bytes, the name errors give) of a path or a file object."""
    if isinstance(path, io.IOBase):
        name = getattr(path, "name", None)
        source = str(name) if isinstance(name, str | os.PathLike) else "item file"
        return path.read(), source
    source = os.fspath(path)
    with open(source, "rb") as handle:
        return handle.read(), source


@validate_params(
    {"path": [str, os.PathLike, io.IOBase]},
    prefer_skip_nested_validation=True,
)
def read_items_csv(path):
    """Rebuild a fitted :class:`SubsetScoreEstimator` from :func:`write_items_csv`.

    The result predicts from responses on all items or on the chosen items
    only (``predict``, ``predict_interval``) exactly as the estimator that
    was written.

    The file checks itself: every ``# key=value`` header line must be
    present and parse (an error names the key), then the row count and the
    checksum of the file must match, then every cell must hold what its
    column holds (``selected`` 0 or 1, finite numbers; an error names the
    row and column). A file cut short or edited after it was written is
    refused with a ValueError naming the file and what is wrong; a file
    whose line ends were converted to CRLF is read as written. Files of the
    first format version (without checksum) are read with a UserWarning
    that they cannot be verified.

    Parameters
    ----------
    path : str, path-like or file object
        The item file, or a file object open for reading (text or binary).

    Returns
    -------
    SubsetScoreEstimator
        Fitted; ``irt_`` is an ``IRT2PL`` built from the item parameters of
        a 2PL calibration (a 3PL/4PL file restores the items' curves, which
        the predictions use, without ``irt_``).

    Raises
    ------
    ValueError
        If the file is not a complete, unchanged item file (the message
        starts with the file's name).
    OSError
        If the file cannot be read (missing, a directory).

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
    text, source = _read_text(path)
    return build_estimator(SubsetScoreEstimator, parse_item_file(text, source))
