"""The benchmark report: every analysis of the library in one HTML file.

:func:`prepare_benchmark` and :func:`analyze_benchmark` run the analyses on an
agents x tasks result matrix, :func:`render_report` turns them into one
self-contained HTML page (tables and embedded PNG figures drawn by the
:mod:`sklearn_eval.plotting` displays), and :func:`write_report` writes it and
returns a :class:`ReportResult`. Each analysis, section and figure runs on its
own: one that fails becomes an error box with a one-line reason and the rest
of the report is written (``ReportResult.ok`` says whether anything failed).
The readers :func:`read_result_matrix` and :func:`read_matches` load long or
wide CSV files for the command line, and :func:`write_csv` writes tables that
are safe to open in a spreadsheet.
"""

from ._analysis import analyze_benchmark, prepare_benchmark
from ._csv_writer import write_csv
from ._html import (
    SECTIONS,
    ReportResult,
    SectionFailure,
    render_report,
    write_report,
)
from ._io import CSVError, read_csv, read_matches, read_result_matrix

__all__ = [
    "CSVError",
    "ReportResult",
    "SECTIONS",
    "SectionFailure",
    "analyze_benchmark",
    "prepare_benchmark",
    "read_csv",
    "read_matches",
    "read_result_matrix",
    "render_report",
    "write_csv",
    "write_report",
]
