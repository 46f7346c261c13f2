"""The benchmark and match reports: every analysis of the library in one HTML file.

:func:`prepare_benchmark` and :func:`analyze_benchmark` run the analyses on an
agents x tasks result matrix, :func:`prepare_matches` and
:func:`analyze_matches` on a table of pairwise games (ratings with intervals,
the mElo cyclic plane, Nash averaging of the win-rate game, the Hodge
shares); :func:`render_report` turns either into one
self-contained HTML page (tables and embedded PNG figures drawn by the
:mod:`sklearn_eval.plotting` displays), and :func:`write_report` writes it and
returns a :class:`ReportResult`. Each analysis, section and figure runs on its
own: one that fails becomes an error box with a one-line reason and the rest
of the report is written (``ReportResult.ok`` says whether anything failed).
Reference agents (human, random or constant baselines) are left out of the
rankings and shown apart, and a degenerate ranking or equilibrium (ties at
the top, all tasks equal) gets a visible note. The readers
:func:`read_result_matrix` and :func:`read_matches` load long, wide or match
CSV files for the command line (:func:`detect_format` tells them apart), and
:func:`write_csv` writes tables that are safe to open in a spreadsheet.
"""

from ._analysis import analyze_benchmark, flag_tasks, prepare_benchmark
from ._csv_writer import write_csv
from ._html import (
    MATCH_SECTIONS,
    SECTIONS,
    ReportResult,
    SectionFailure,
    render_report,
    write_report,
)
from ._io import CSVError, ResultTable, detect_format, read_csv, read_result_matrix
from ._match_io import read_matches
from ._matches import analyze_matches, prepare_matches

__all__ = [
    "CSVError",
    "MATCH_SECTIONS",
    "ReportResult",
    "ResultTable",
    "SECTIONS",
    "SectionFailure",
    "analyze_benchmark",
    "analyze_matches",
    "detect_format",
    "flag_tasks",
    "prepare_benchmark",
    "prepare_matches",
    "read_csv",
    "read_matches",
    "read_result_matrix",
    "render_report",
    "write_csv",
    "write_report",
]
