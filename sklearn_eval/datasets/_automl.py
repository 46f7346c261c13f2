"""AutoML Benchmark 2019: seven frameworks on the OpenML classification tasks."""

import re

import numpy as np

from ..utils._sklearn_compat import StrOptions, validate_params
from ._base import _read_csv_rows
from ._bunches import _float_column, _long_table_bunch, _result_matrix_bunch, _to_float

__all__ = ["load_automl_benchmark"]


_AMLB_BUDGETS = ("1h", "4h")
_AMLB_KINDS = ("summary", "all")
_AMLB_METRIC = {"binary": "auc", "multiclass": "logloss"}
_AMLB_CELL = re.compile(r"^(?P<value>[^ ]+)(?: \((?P<failed>\d+)\))?$")
_AMLB_INT_COLUMNS = ("fold",)
_AMLB_STR_COLUMNS = (
    "framework",
    "id",
    "info",
    "mode",
    "params",
    "tag",
    "task",
    "utc",
    "version",
    "type",
)


def _parse_amlb_cell(cell, where):
    """'0.84251 (1)' -> (0.84251, 1); 'nan' -> (nan, 0)."""
    match = _AMLB_CELL.match(cell.strip())
    try:
        value = _to_float(match["value"]) if match is not None else None
    except ValueError:
        value = None
    if value is None:
        raise ValueError(f"AutoML benchmark summary: cannot parse {cell!r} {where}")
    failed = int(match["failed"]) if match["failed"] else 0
    return value, failed


def _load_amlb_summary(budget, as_frame):
    header, rows = _read_csv_rows(f"amlb2019_{budget}_result_summary.csv")
    if header[:2] != ["type", "task"]:
        raise ValueError(f"unexpected AutoML benchmark columns {header}")
    frameworks = header[2:]
    tasks = [row[1] for row in rows]
    task_types = np.array([row[0] for row in rows], dtype=object)
    cells = [
        [
            _parse_amlb_cell(cell, f"(task {row[1]!r}, framework {frameworks[j]!r})")
            for j, cell in enumerate(row[2:])
        ]
        for row in rows
    ]
    data = np.array([[value for value, _ in row] for row in cells]).T.copy()
    failed = np.array([[n for _, n in row] for row in cells], dtype=np.int64).T.copy()
    metrics = np.array([_AMLB_METRIC[t] for t in task_types], dtype=object)
    return _result_matrix_bunch(
        data,
        frameworks,
        tasks,
        as_frame=as_frame,
        descr="automl_benchmark",
        agent_label="framework",
        budget=budget,
        kind="summary",
        task_types=task_types,
        metrics=metrics,
        n_failed_folds=failed,
    )


def _load_amlb_all(budget, as_frame):
    header, rows = _read_csv_rows(f"amlb2019_{budget}_all_results.csv.gz")
    columns, dtypes = {}, {}
    for position, name in enumerate(header):
        if name in _AMLB_STR_COLUMNS:
            columns[name] = np.array(
                [row[position] or None for row in rows], dtype=object
            )
            dtypes[name] = "object"
        elif name in _AMLB_INT_COLUMNS:
            columns[name] = np.array(
                [int(row[position]) for row in rows], dtype=np.int64
            )
            dtypes[name] = "int64"
        else:
            columns[name] = _float_column(rows, position)
            dtypes[name] = "float64"
    return _long_table_bunch(
        columns,
        dtypes,
        as_frame=as_frame,
        descr="automl_benchmark",
        agent_column="framework",
        budget=budget,
        kind="all",
    )


@validate_params(
    {
        "budget": [StrOptions(set(_AMLB_BUDGETS))],
        "kind": [StrOptions(set(_AMLB_KINDS))],
        "as_frame": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def load_automl_benchmark(budget="1h", kind="summary", *, as_frame=False):
    """Load the AutoML Benchmark 2019 results (Gijsbers et al., 2019).

    Seven frameworks (autosklearn, autoweka, constantpredictor, h2oautoml,
    randomforest, tpot, tunedrandomforest) on the OpenML classification tasks,
    10 folds each, with a 1-hour or 4-hour budget per fold.

    Parameters
    ----------
    budget : {"1h", "4h"}, default="1h"
        Time budget per fold.
    kind : {"summary", "all"}, default="summary"
        ``"summary"``: the published frameworks x tasks table of mean results
        over folds (the fold mean of ``imp_result``, failed folds imputed; AUC
        for binary tasks, higher is better; log-loss for multiclass tasks,
        LOWER is better). ``"all"``: every run, one row per
        (framework, task, fold), 22 columns.
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame and ``frame`` holds it.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        For ``"summary"``: ``data`` (7, n_tasks) float64 with NaN where a
        framework failed on every fold (n_tasks = 35 for 1h, 39 for 4h);
        ``agent_names`` (frameworks); ``feature_names`` (tasks); ``task_types``
        ("binary"/"multiclass"); ``metrics`` ("auc"/"logloss");
        ``n_failed_folds`` (7, n_tasks) int64, the "(n)" footnotes of the
        source table. For ``"all"``: ``data`` an object ndarray (or DataFrame)
        with columns ``feature_names``. Both: ``budget``, ``kind``, ``frame``,
        ``DESCR``, ``reference_agents`` (``{"constantpredictor":
        "constant"}``: the class-prior predictor, the benchmark's trivial
        baseline; also in ``frame.attrs``) and ``is_reference`` (a boolean
        mask over the frameworks, or over the rows of ``"all"``).

    Examples
    --------
    >>> from sklearn_eval.datasets import load_automl_benchmark
    >>> amlb = load_automl_benchmark("1h")
    >>> amlb.data.shape, amlb.agent_names[0], amlb.feature_names[0]
    ((7, 35), 'autosklearn', 'adult')
    >>> load_automl_benchmark("4h", "all").data.shape
    (2730, 22)
    """
    if kind == "summary":
        return _load_amlb_summary(budget, as_frame)
    return _load_amlb_all(budget, as_frame)
