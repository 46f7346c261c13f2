"""What the readers share: finding the files of runs, reading JSON, scores."""

import json
import math
import warnings
from pathlib import Path

import pandas as pd

from ._long import check_long_table

__all__ = ["claim_run", "input_files", "long_table", "read_json", "score_of"]


def input_files(path, accept, what):
    """The files to read: ``path`` itself, or the accepted files under a folder.

    ``accept(file)`` says whether a file is one of the tool's; a folder is
    searched recursively and its files are returned sorted by path, so the
    order (and the first of two duplicates) never depends on the file system.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and accept(p))
        if not files:
            raise ValueError(f"{path}: no {what} in this folder")
        return files
    if path.is_file():
        return [path]
    raise ValueError(f"{path}: no such file or folder")


def read_json(path, what):
    """The parsed JSON file; a ValueError naming the file otherwise."""
    try:
        with open(path, "rb") as handle:
            return json.loads(handle.read())
    except (ValueError, OSError) as exc:
        raise ValueError(f"{path}: not a readable {what} ({exc})") from exc


def claim_run(seen, model, task, source):
    """Record ``(model, task)`` as read from ``source``; refuse a second run.

    Two runs of one model on one task in a folder (a rerun, a copy) would
    count the same samples twice.
    """
    if (model, task) in seen:
        raise ValueError(
            f"{source} and {seen[model, task]} both hold model {model!r} on task "
            f"{task!r}: the same samples would be counted twice; keep one run"
        )
    seen[model, task] = source


def score_of(value, where):
    """Float of a logged score: numbers and booleans as they are, None = NaN."""
    if value is None:
        return math.nan
    if isinstance(value, bool | int | float):
        return float(value)
    raise ValueError(
        f"{where}: the score {value!r} is not a number; the reader takes "
        "scores as logged and cannot convert it."
    )


def long_table(parts, skipped, columns, empty):
    """The reader's long table from its parts, the metrics it left out warned of.

    ``skipped`` names the ``"<task>:<metric>"`` whose per-sample values are
    not numbers (the parts of a corpus-level metric); ``empty`` is the error
    when no part has a score.
    """
    if skipped:
        warnings.warn(
            f"metric(s) {sorted(skipped)} have no per-sample score (the parts "
            "of a corpus-level metric); they are left out.",
            UserWarning,
            stacklevel=3,
        )
    if not parts:
        raise ValueError(empty)
    return check_long_table(pd.concat(parts, ignore_index=True)[columns])
