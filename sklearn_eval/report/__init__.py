"""The benchmark report: every analysis of the library in one HTML file.

:func:`prepare_benchmark` and :func:`analyze_benchmark` run the analyses on an
agents x tasks result matrix, :func:`render_report` turns them into one
self-contained HTML page (tables and embedded PNG figures), and
:func:`write_report` does all three. The readers :func:`read_result_matrix`
and :func:`read_matches` load long or wide CSV files for the command line, and
:func:`write_csv` writes tables that are safe to open in a spreadsheet.
"""

from ._analysis import analyze_benchmark, prepare_benchmark
from ._csv_writer import write_csv
from ._html import SECTIONS, render_report, write_report
from ._io import CSVError, read_csv, read_matches, read_result_matrix

__all__ = [
    "CSVError",
    "SECTIONS",
    "analyze_benchmark",
    "prepare_benchmark",
    "read_csv",
    "read_matches",
    "read_result_matrix",
    "render_report",
    "write_csv",
    "write_report",
]
