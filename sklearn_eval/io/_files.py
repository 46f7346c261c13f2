"""What the readers share: finding the files of a run, streaming JSON lines."""

import json
import math
from pathlib import Path

__all__ = ["input_files", "iter_jsonl", "read_json", "score_of"]


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


def iter_jsonl(path):
    """Parsed objects of a JSON-lines file, line by line, with their line number.

    Blank lines are skipped. A line that is not JSON raises a ValueError naming
    the file and the line; when it is the last line and has no line end, the
    message says the file is truncated (a run stopped while writing).
    """
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                parsed = json.loads(line)
            except ValueError as exc:
                if not line.strip():
                    continue
                last = not line.endswith(b"\n") and not handle.read(1)
                if last:
                    raise ValueError(
                        f"{path}: line {number} is truncated (the file ends in "
                        "the middle of a sample: was the run stopped while "
                        "writing?); delete the partial line or rerun"
                    ) from None
                raise ValueError(
                    f"{path}: line {number} is not valid JSON ({exc})"
                ) from None
            yield number, parsed


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
