"""Shared helpers of the dataset loaders: package files, pandas, descriptions."""

import csv
import gzip
import io
from importlib import resources

__all__ = []

PACKAGE = "sklearn_eval.datasets"


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
