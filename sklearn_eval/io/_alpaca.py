"""Reader of AlpacaEval pairwise judge annotations, and their matches."""

import math
import warnings

import pandas as pd

from ._files import input_files, read_json
from ._judged import JUDGED_COLUMNS
from ._long import LONG_COLUMNS, check_long_table

__all__ = ["read_alpaca_eval"]

_FIELDS = ("instruction", "output_1", "output_2", "generator_1", "generator_2",
           "preference")


def _preference(value, where):
    """The second output's score: preference 1 -> 0, 2 -> 1, 0 or 1.5 -> 0.5."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where}: field 'preference' is {value!r}, not a number")
    if value == 0:  # AlpacaEval's legacy encoding of a draw
        return 0.5
    if not 1 <= value <= 2:
        raise ValueError(
            f"{where}: field 'preference' is {value!r}; AlpacaEval's "
            "preferences are in [1, 2] (1: output_1 preferred, 2: output_2), "
            "or 0 for a draw"
        )
    return float(value) - 1.0


def _rows(path, annotations, skipped):
    if not isinstance(annotations, list):
        raise ValueError(
            f"{path}: not AlpacaEval annotations (the top level is not a list "
            "of annotations)"
        )
    for k, record in enumerate(annotations):
        where = f"{path}: annotation {k}"
        if not isinstance(record, dict):
            raise ValueError(f"{where} is not an object")
        missing = [field for field in _FIELDS if field not in record]
        if missing:
            raise ValueError(
                f"{where} lacks the field(s) {missing}; AlpacaEval pairwise "
                f"annotations have {list(_FIELDS)}"
            )
        first, second = record["generator_1"], record["generator_2"]
        if first == second:  # the reference judged against itself
            skipped.append(first)
            continue
        output_1, output_2 = record["output_1"], record["output_2"]
        if not isinstance(output_1, str) or not isinstance(output_2, str):
            raise ValueError(f"{where}: the outputs are not text")
        yield (
            second, record.get("dataset") or "alpaca_eval", record["instruction"],
            1, record.get("annotator") or "preference",
            _preference(record["preference"], where),
            first, 2, len(output_2), len(output_1), path.name,
        )


def read_alpaca_eval(path):
    """Read AlpacaEval pairwise judge annotations into a long table.

    Each annotation compares the outputs of two generators on one instruction:
    ``generator_1`` (AlpacaEval's reference) shown as ``output_1`` and
    ``generator_2`` (the model evaluated) as ``output_2``, with the judge's
    ``preference``: 1 when it preferred output_1, 2 for output_2, in between
    for a weighted (probability) judge, and 0 or 1.5 for a draw. The row's
    ``model`` is ``generator_2`` and its ``score`` its win against
    ``generator_1`` (``preference - 1``; a draw is 0.5, a missing preference
    NaN). A file is an ``annotations.json`` as AlpacaEval writes it (a JSON
    list); a folder is read file by file (every ``annotations.json`` under it,
    as in AlpacaEval's ``results/<model>/<annotator>/`` layout).

    Annotations of a generator against itself (the reference's own file,
    where AlpacaEval logs a draw) compare nothing: they are left out with a
    warning.

    Parameters
    ----------
    path : str or path-like
        An annotations file (JSON) or a folder of them.

    Returns
    -------
    DataFrame
        The columns of :data:`~sklearn_eval.io.LONG_COLUMNS` (``task`` is the
        annotation's ``dataset``, ``item`` the instruction, ``epoch`` 1,
        ``metric`` the annotator's name) plus ``opponent`` (``generator_1``),
        ``position`` (the model's output position, 2), ``length`` and
        ``opponent_length`` (the outputs' lengths in characters) and ``file``.
        :func:`~sklearn_eval.io.to_matches` turns it into matches with the
        position and length differences as covariates.

    Raises
    ------
    ValueError
        Naming the file and the annotation: a file that is not a list of
        annotations, a missing field, a preference outside [1, 2] (or 0), or
        the same comparison read twice.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from sklearn_eval.io import read_alpaca_eval
    >>> annotations = [{"instruction": "Say hi", "dataset": "demo",
    ...     "output_1": "Hello there!", "generator_1": "ref",
    ...     "output_2": "Hi", "generator_2": "mine",
    ...     "annotator": "judge", "preference": 2.0}]
    >>> path = os.path.join(tempfile.mkdtemp(), "annotations.json")
    >>> with open(path, "w") as handle:
    ...     json.dump(annotations, handle)
    >>> long = read_alpaca_eval(path)
    >>> long[["model", "opponent", "metric", "score", "length"]].values.tolist()
    [['mine', 'ref', 'judge', 1.0, 2]]
    """
    files = input_files(
        path, lambda p: p.name == "annotations.json", "AlpacaEval annotations.json"
    )
    rows, skipped = [], []
    for file in files:
        rows.extend(_rows(file, read_json(file, "annotations file"), skipped))
    if skipped:
        warnings.warn(
            f"{len(skipped)} annotation(s) compare a generator with itself "
            f"(e.g. {skipped[0]!r}); they compare nothing and are left out.",
            UserWarning,
            stacklevel=2,
        )
    if not rows:
        raise ValueError(f"{path}: no annotation compares two generators")
    columns = [*LONG_COLUMNS, *JUDGED_COLUMNS, "file"]
    return check_long_table(pd.DataFrame(rows, columns=columns))
