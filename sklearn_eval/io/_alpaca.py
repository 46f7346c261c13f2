"""Reader of AlpacaEval pairwise judge annotations, and their matches."""

import math
import warnings

import numpy as np
import pandas as pd

from ._files import (
    arrow_column,
    arrow_records,
    constant_column,
    input_files,
    ordered_map,
    read_json,
)
from ._judged import JUDGED_COLUMNS
from ._long import LONG_COLUMNS, checked_long_table, part_sources

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


_COLUMNS = [*LONG_COLUMNS, *JUDGED_COLUMNS, "file"]


def _fast_columns(path, annotations, skipped):
    """The columns of a file's annotations, field by field; None when unusual.

    The common case (every annotation an object with the fields, text
    outputs, numeric preferences in [1, 2] or 0) is read column by column;
    anything else (a missing field, a missing or odd preference) returns
    None and the file is read annotation by annotation, which names it.
    """
    if not isinstance(annotations, list) or not annotations:
        return None
    try:
        first = [r["generator_1"] for r in annotations]
        second = [r["generator_2"] for r in annotations]
        output_1 = [r["output_1"] for r in annotations]
        output_2 = [r["output_2"] for r in annotations]
        instruction = [r["instruction"] for r in annotations]
        preference = [r["preference"] for r in annotations]
        dataset = [r.get("dataset") or "alpaca_eval" for r in annotations]
        annotator = [r.get("annotator") or "preference" for r in annotations]
    except (KeyError, TypeError, AttributeError):
        return None
    if not (all(type(o) is str for o in output_1)
            and all(type(o) is str for o in output_2)
            and all(type(p) is float or type(p) is int for p in preference)):
        return None
    score = np.asarray(preference, dtype=np.float64)
    if not (((score >= 1) & (score <= 2)) | (score == 0)).all():
        return None
    score = np.where(score == 0, 0.5, score - 1.0)
    keep = np.array([a != b for a, b in zip(first, second, strict=True)])
    if not keep.all():  # the reference judged against itself
        skipped.extend(a for a, k in zip(first, keep, strict=True) if not k)
    n = int(keep.sum())

    def kept(values):
        column = np.empty(len(values), dtype=object)
        column[:] = values
        return column[keep]

    return pd.DataFrame({
        "model": kept(second), "task": kept(dataset), "item": kept(instruction),
        "epoch": np.ones(n, dtype=np.int64), "metric": kept(annotator),
        "score": score[keep], "opponent": kept(first),
        "position": np.full(n, 2, dtype=np.int64),
        "length": np.fromiter(map(len, output_2), np.int64, len(output_2))[keep],
        "opponent_length": np.fromiter(map(len, output_1), np.int64,
                                       len(output_1))[keep],
        "file": np.full(n, path.name, dtype=object),
    })


def _arrow_columns(path, data, skipped):
    """The table of :func:`_fast_columns` parsed by pyarrow; None when unusual.

    The outputs are measured in pyarrow, never made Python strings. A
    missing or null field, a value of another type, or a preference outside
    [1, 2] (or 0) returns None, and the standard-library path reads the file
    (the same table, or an error naming the annotation).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    text = ("generator_1", "generator_2", "output_1", "output_2", "instruction",
            "dataset", "annotator")
    record = pa.struct([*((name, pa.string()) for name in text),
                        ("preference", pa.float64())])
    columns = arrow_records(data, record)
    if columns is None:
        return None
    fields = dict(zip([*text, "preference"], columns, strict=True))
    if any(fields[name].null_count for name in _FIELDS):
        return None
    score = fields["preference"].to_numpy()
    if not (((score >= 1) & (score <= 2)) | (score == 0)).all():
        return None
    score = np.where(score == 0, 0.5, score - 1.0)
    keep = pc.not_equal(fields["generator_1"], fields["generator_2"])
    if not pc.all(keep).as_py():  # the reference judged against itself
        skipped.extend(fields["generator_1"].filter(pc.invert(keep)).to_pylist())
    n = int(pc.sum(keep).as_py() or 0)

    def kept(name, default=None):
        column = fields[name]
        if default is not None:  # null or empty: the default, as `or` gives
            column = pc.if_else(pc.equal(pc.fill_null(column, ""), ""), default,
                                column)
        return arrow_column(column.filter(keep))

    def length(name):
        return pc.utf8_length(fields[name]).filter(keep).to_numpy().astype(np.int64)

    return pd.DataFrame({
        "model": kept("generator_2"), "task": kept("dataset", "alpaca_eval"),
        "item": kept("instruction"), "epoch": np.ones(n, dtype=np.int64),
        "metric": kept("annotator", "preference"),
        "score": score[keep.to_numpy(zero_copy_only=False)],
        "opponent": kept("generator_1"),
        "position": np.full(n, 2, dtype=np.int64),
        "length": length("output_2"), "opponent_length": length("output_1"),
        "file": constant_column(path.name, n),
    })


def _check_judged(file, part, skipped):
    """Refuse a file that judges nothing; ``{model: (no preference, all)}``.

    An empty list, or annotations none of which has a preference, would make
    the models of the file vanish from every comparison: both are refused.
    A file in which some preferences are missing (null) is read, those
    annotations NaN (not scored); the counts are for the caller's warning.
    """
    if len(part) == 0:
        if skipped:  # the reference's own file: warned of by the caller
            return {}
        raise ValueError(
            f"{file}: the annotations file holds no annotation (an empty "
            "list); remove it or rerun the annotator"
        )
    missing = part["score"].isna().to_numpy()
    if missing.all():
        models = sorted(map(str, pd.unique(part["model"])))
        raise ValueError(
            f"{file}: none of its {len(part)} annotations has a preference "
            f"(all null), so model(s) {models} would have no judgement; "
            "rerun the annotator or remove the file"
        )
    if not missing.any():
        return {}
    counts = pd.DataFrame({"model": part["model"].astype(str).to_numpy(),
                           "missing": missing}).groupby("model")["missing"]
    return {model: (int(n), int(total)) for model, n, total in zip(
        counts.sum().index, counts.sum(), counts.count(), strict=True) if n}


def _read_file(file):
    """``(table, generators judged against themselves, missing preferences)``.

    The last is ``{model: (annotations without a preference, annotations)}``
    of the file (see :func:`_check_judged`).
    """
    try:
        with open(file, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ValueError(f"{file}: not a readable annotations file ({exc})") \
            from exc
    skipped = []  # the fast paths add to it only when they give the table
    part = _arrow_columns(file, data, skipped)
    if part is None:
        annotations = read_json(file, "annotations file", data)
        part = _fast_columns(file, annotations, skipped)
        if part is None:
            part = pd.DataFrame(list(_rows(file, annotations, skipped)),
                                columns=_COLUMNS)
    return part, skipped, _check_judged(file, part, skipped)


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
    warning. An annotation whose preference is null (the judge's answer was
    not parsed) is not scored (NaN), with a warning naming each model and
    how many of its annotations lack one; a file with no annotation at all
    (an empty list) or none with a preference is refused, so that no model
    vanishes from the comparisons unnoticed.

    With pyarrow installed the JSON is parsed by pyarrow, only the fields
    the table needs; anything it cannot read as expected is read with the
    standard library, which gives the same table or names the problem (see
    the user guide's "Reading speed").

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
        annotations, an empty list, a missing field, a preference outside
        [1, 2] (or 0), a file none of whose annotations has a preference, or
        the same comparison read twice.

    Warns
    -----
    UserWarning
        For annotations of a generator against itself (left out) and for
        annotations without a preference (not scored), naming the models
        and how many.

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
    parts, skipped, missing = [], [], {}
    for part, own, unjudged in ordered_map(_read_file, files):
        parts.append(part)
        skipped += own
        for model, (n, total) in unjudged.items():
            before = missing.get(model, (0, 0))
            missing[model] = (before[0] + n, before[1] + total)
    if missing:
        counts = "; ".join(f"{model!r} {n} of {total}"
                           for model, (n, total) in sorted(missing.items()))
        warnings.warn(
            f"{path}: annotations without a preference (null) are not scored "
            f"(NaN) and left out of the comparisons: {counts}.",
            UserWarning,
            stacklevel=2,
        )
    if skipped:
        warnings.warn(
            f"{len(skipped)} annotation(s) compare a generator with itself "
            f"(e.g. {skipped[0]!r}); they compare nothing and are left out.",
            UserWarning,
            stacklevel=2,
        )
    long = pd.concat(parts, ignore_index=True)
    if len(long) == 0:
        raise ValueError(f"{path}: no annotation compares two generators")
    return checked_long_table(long, part_sources(parts, files))
