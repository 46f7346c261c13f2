"""Shared helpers of the dataset loaders: package files, pandas, descriptions."""

import csv
import gzip
import io
from importlib import resources

__all__ = []

PACKAGE = "sklearn_eval.datasets"


def _import_pandas(caller):
    """Import pandas lazily, with a message naming what needed it."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is in the test env
        raise ImportError(
            f"{caller} requires pandas, a dependency of sklearn-eval that is "
            "missing from this environment: `pip install pandas` (or reinstall "
            "sklearn-eval)."
        ) from exc
    return pd


def _open_text(filename, folder="data"):
    """Return the text of a file shipped in the package (gunzipped if ``.gz``)."""
    raw = resources.files(PACKAGE).joinpath(folder, filename).read_bytes()
    if filename.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def _read_csv_rows(filename):
    """Parse a shipped CSV file into (header, rows) with the standard library."""
    reader = csv.reader(io.StringIO(_open_text(filename), newline=""))
    header = next(reader)
    rows = [row for row in reader if row]
    return header, rows


def _load_descr(name):
    """Return the reStructuredText description ``descr/<name>.rst``."""
    return _open_text(f"{name}.rst", folder="descr")
