"""The long table of evaluation results and its conversion to the estimators' inputs.

One row per (model, task, item, epoch, metric) with its ``score``: the shape in
which evaluation harnesses log per-sample results. ``to_result_matrix`` pivots
it into agents x items, ``to_matches`` compares every pair of models item by
item.
"""

import warnings

import numpy as np
import pandas as pd

from ..utils import long_to_result_matrix
from ._judged import judged_matches

__all__ = ["LONG_COLUMNS", "check_long_table", "to_matches", "to_result_matrix"]

LONG_COLUMNS = ("model", "task", "item", "epoch", "metric", "score")
_KEY = ("model", "task", "item", "epoch", "metric")
_EPOCHS = ("mean", "first", "all")


def check_long_table(long):
    """Validate a long table of results and return a clean copy.

    The schema: ``model``, ``task``, ``item`` (the harness's sample id),
    ``epoch`` (the tool's repeat number, 1-based; 1 where the tool has no
    repeats), ``metric`` and ``score`` (float; NaN = not scored). Other
    columns are kept.

    Parameters
    ----------
    long : DataFrame
        The long table.

    Returns
    -------
    DataFrame
        A copy with ``epoch`` as int64, ``score`` as float64 and the labels
        as given.

    Raises
    ------
    TypeError
        When ``long`` is not a DataFrame.
    ValueError
        Naming the problem and a row: a missing column, a missing label, an
        epoch that is not a whole number >= 1, a score that is not a number or
        is infinite, or two rows with the same (model, task, item, epoch,
        metric), which would silently average duplicated samples.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_eval.io import check_long_table
    >>> long = pd.DataFrame({"model": ["a", "b"], "task": "t", "item": [1, 1],
    ...                      "epoch": 1, "metric": "acc", "score": [1, 0]})
    >>> check_long_table(long).dtypes["score"]
    dtype('float64')
    """
    return checked_long_table(long)


def checked_long_table(long, where=None):
    """:func:`check_long_table`, its errors naming where the rows were read.

    ``where(long, row)``, when given, names the file the row was read from
    (a reader knows it; the table need not hold it): an error about a row
    names that file, and two rows that repeat a sample name both files.
    """
    if not isinstance(long, pd.DataFrame):
        raise TypeError(
            f"The long table must be a pandas DataFrame; got {type(long).__name__}."
        )
    missing = [column for column in LONG_COLUMNS if column not in long.columns]
    if missing:
        raise ValueError(
            f"The long table lacks the column(s) {missing}; it needs "
            f"{list(LONG_COLUMNS)}."
        )
    if len(long) == 0:
        raise ValueError("The long table is empty: no results to convert.")
    long = long.reset_index(drop=True).copy()
    for column in ("model", "task", "item", "metric"):
        bad = long[column].isna().to_numpy()
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"Column {column!r} has a missing label at row {row}"
                f"{_read_from(long, row, where)}: every score needs its {column}."
            )
    epoch = pd.to_numeric(long["epoch"], errors="coerce").to_numpy(dtype=float)
    bad = ~(np.isfinite(epoch) & (epoch >= 1) & (epoch == np.round(epoch)))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"Column 'epoch' must hold whole numbers >= 1 (the tool's 1-based "
            f"repeat number); row {row}{_read_from(long, row, where)} has "
            f"{_plain(long['epoch'].iloc[row])!r}."
        )
    long["epoch"] = epoch.astype(np.int64)
    score = pd.to_numeric(long["score"], errors="coerce").to_numpy(dtype=float)
    bad = (np.isnan(score) & long["score"].notna().to_numpy()) | np.isinf(score)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"Column 'score' must hold finite numbers (NaN = not scored); row "
            f"{row}{_read_from(long, row, where, key=True)} has "
            f"{_plain(long['score'].iloc[row])!r}."
        )
    long["score"] = score
    # judged comparisons (an 'opponent' column): one row per pair of models
    keys = [*_KEY, "opponent"] if "opponent" in long.columns else list(_KEY)
    duplicated = long.duplicated(_varying(long, keys), keep=False).to_numpy()
    if duplicated.any():
        first = int(np.argmax(duplicated))
        key = tuple(long.loc[first, keys])
        same = (long[keys] == pd.Series(key, index=keys)).all(axis=1)
        rows = np.flatnonzero(same.to_numpy())[:2].tolist()
        sample = dict(zip(keys, (_plain(v) for v in key), strict=True))
        if where is not None:
            first, second = (where(long, row) for row in rows)
            if first != second:
                held = (f"{first} and {second} both hold the sample {sample}: "
                        "the same sample read twice (a copied log, or runs "
                        "that overlap)")
            else:
                held = (f"{first} holds the sample {sample} twice: a sample "
                        "logged twice (a resumed or merged run)")
            raise ValueError(
                f"{held} would be counted twice; keep one "
                f"({int(duplicated.sum())} rows repeat a sample)."
            )
        raise ValueError(
            f"The long table has {int(duplicated.sum())} rows that repeat a "
            f"({', '.join(keys)}); e.g. rows {rows} are both {sample}. A sample "
            "logged twice (a resumed or merged run) would be counted twice: "
            "drop the duplicates or give the repeats distinct epochs."
        )
    return long


def _read_from(long, row, where, key=False):
    """`` (read from FILE[: its sample])`` of a row, or "" without ``where``."""
    if where is None:
        return ""
    text = f" (read from {where(long, row)}"
    if key:
        sample = {column: _plain(long[column].iloc[row]) for column in _KEY}
        text += f": {sample}"
    return text + ")"


def part_sources(parts, paths):
    """``where(long, row)``: the path of the part (file) a row came from.

    ``parts`` are the frames concatenated, in order, into the long table;
    ``paths[k]`` is where part ``k`` was read from (a file or run folder).
    """
    ends = np.cumsum([len(part) for part in parts])

    def where(long, row):
        return str(paths[int(np.searchsorted(ends, row, side="right"))])

    return where


def _varying(long, keys):
    """``keys`` without the columns holding one text value: the same duplicates.

    Rows repeat a key exactly when they repeat its columns that vary, and
    the readers' tables hold one model, task or metric in many rows:
    hashing them is most of the check's time. Only a column whose values
    all equal one ``str`` is left out (text equality is the grouping's);
    at least one column is kept.
    """
    varying = []
    for column in keys:
        values = long[column]
        first = values.iloc[0]
        if type(first) is str and bool((values == first).all()):
            continue
        varying.append(column)
    return varying or keys[:1]


def _plain(value):
    """A numpy scalar as the Python value it holds (``inf``, not its repr)."""
    return value.item() if isinstance(value, np.generic) else value


def _select_metric(long, metric):
    metrics = pd.unique(long["metric"]).tolist()
    if metric is None:
        if len(metrics) > 1:
            raise ValueError(
                f"The long table holds several metrics {sorted(map(str, metrics))}; "
                "choose one with metric=."
            )
        metric = metrics[0]
    elif metric not in metrics:
        raise ValueError(
            f"metric={metric!r} is not in the long table; it holds "
            f"{sorted(map(str, metrics))}."
        )
    return long[long["metric"] == metric]


def _check_epochs(epochs):
    if epochs not in _EPOCHS:
        raise ValueError(f"epochs must be one of {_EPOCHS}; got {epochs!r}.")


def _scored(long, metric, epochs):
    """The rows of ``metric`` with a score, epochs combined as asked.

    Returns a frame with model, task, item, epoch (dropped for "mean") and
    score, one row per (model, task, item[, epoch]).
    """
    _check_epochs(epochs)
    long = check_long_table(long)
    rows = _select_metric(long, metric)
    rows = rows[rows["score"].notna()]
    if len(rows) == 0:
        raise ValueError(f"No scored rows for metric {metric!r}.")
    keys = ["model", "task", "item"]
    if epochs == "mean":
        means = rows.groupby(keys, sort=False, dropna=False)["score"].mean()
        return means.reset_index()
    if epochs == "first":
        first = rows.groupby(keys, sort=False)["epoch"].transform("min")
        return rows.loc[rows["epoch"] == first, [*keys, "epoch", "score"]]
    return rows[[*keys, "epoch", "score"]]


def _column_labels(rows, epochs):
    label = rows["task"].astype(str) + "/" + rows["item"].astype(str)
    if epochs == "all":
        label = label + "@" + rows["epoch"].astype(str)
    return label


def to_result_matrix(long, metric=None, *, epochs="mean", sparse=False):
    """Pivot a long table into a models x items result matrix.

    Columns are the items, labelled ``"<task>/<item>"`` (items of different
    tasks never merge). A model without a score on an item has NaN there (or
    no entry when sparse), with a warning naming the model that lacks the most
    items: partial runs are kept, never silently aligned.

    Parameters
    ----------
    long : DataFrame
        Long table with the columns of :data:`LONG_COLUMNS` (see
        :func:`check_long_table`; duplicated rows are refused).
    metric : str, default=None
        The metric to use; may be omitted when the table holds one metric.
    epochs : {"mean", "first", "all"}, default="mean"
        Repeats of an item: their mean score, the score of the lowest logged
        epoch, or one column per epoch labelled ``"<task>/<item>@<epoch>"``.
    sparse : bool or "auto", default=False
        Return a :class:`~sklearn_eval.utils.ResultMatrix` holding a scipy CSR
        array of the observed scores; ``"auto"`` does so when fewer than half
        of the cells are observed.

    Returns
    -------
    DataFrame or ResultMatrix
        Dense: a DataFrame with models as rows (index ``model``) and items as
        columns (sorted). Sparse: ``ResultMatrix(values, agents, tasks)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_eval.io import to_result_matrix
    >>> long = pd.DataFrame({
    ...     "model": ["a", "a", "a", "b", "b"], "task": "qa",
    ...     "item": [1, 1, 2, 1, 2], "epoch": [1, 2, 1, 1, 1], "metric": "acc",
    ...     "score": [1.0, 0.0, 1.0, 1.0, 0.0]})
    >>> m = to_result_matrix(long)
    >>> m.columns.tolist(), m.to_numpy().tolist()
    (['qa/1', 'qa/2'], [[0.5, 1.0], [1.0, 0.0]])
    >>> to_result_matrix(long, epochs="first").loc["a"].tolist()
    [1.0, 1.0]
    """
    if sparse not in (True, False, "auto"):
        raise ValueError(f"sparse must be True, False or 'auto'; got {sparse!r}.")
    rows = _scored(long, metric, epochs)
    table = pd.DataFrame(
        {"model": rows["model"].to_numpy(), "column": _column_labels(rows, epochs),
         "score": rows["score"].to_numpy()}
    )
    n_models = table["model"].nunique()
    n_columns = table["column"].nunique()
    per_model = table.groupby("model", sort=True)["column"].nunique()
    if (per_model < n_columns).any():
        worst = per_model.idxmin()
        warnings.warn(
            f"{int((per_model < n_columns).sum())} of {n_models} models lack "
            f"scores on some items (e.g. {worst!r} has {int(per_model[worst])} "
            f"of {n_columns}); those cells are missing (NaN).",
            UserWarning,
            stacklevel=2,
        )
    if sparse == "auto":
        sparse = len(table) < 0.5 * n_models * n_columns
    return long_to_result_matrix(
        table, agent="model", task="column", score="score", aggfunc="error",
        sparse=bool(sparse), as_frame=None if sparse else True,
    )


def to_matches(long, metric=None, *, epochs="mean", tie_tol=0.0):
    """Compare every pair of models on every item they both have.

    For each item (and each epoch with ``epochs="all"``), each pair of models
    that both have a score there is one match: ``y = 1`` when ``model_a``
    scored higher, ``0`` when lower, ``0.5`` when the scores are within
    ``tie_tol``. ``model_a`` is the first of the two in sorted order, so the
    position carries no meaning (fit without a first-mover advantage). The
    ``task`` and ``item`` columns are the clusters to resample by (the matches
    of one item are not independent).

    Parameters
    ----------
    long : DataFrame
        Long table with the columns of :data:`LONG_COLUMNS`.
    metric : str, default=None
        The metric to compare; may be omitted when the table holds one.
    epochs : {"mean", "first", "all"}, default="mean"
        As in :func:`to_result_matrix`; with "all" two models are compared
        within each epoch both logged.
    tie_tol : float, default=0.0
        Score differences up to this are ties.

    Returns
    -------
    DataFrame
        Columns ``model_a``, ``model_b``, ``y`` (float64), ``task``, ``item``
        (and ``epoch`` with ``epochs="all"``), one row per compared pair, in
        the order of (task, item, model_a, model_b). ``X = m[["model_a",
        "model_b"]]``, ``y = m["y"]`` feed the pairwise estimators.

        Judged comparisons (a long table with an ``opponent`` column, as
        :func:`read_alpaca_eval` returns): one match per row, in the table's
        order, ``y`` the judge's decision for ``model_a`` (1, 0, or 0.5 for
        a draw; ``epochs`` and ``tie_tol`` do not apply) and its ``weight``
        (1; a weighted judge's fractional preference p becomes a win of
        weight p and a loss of weight 1 - p, the likelihood of the soft
        outcome), plus the covariates ``position`` (+1 when ``model_a``'s
        output was shown first, -1 when second) and ``length_diff``
        (``model_a``'s output length minus ``model_b``'s, in thousands of
        characters): ``X = m[["model_a", "model_b", "position",
        "length_diff"]]``, ``y = m["y"]``, ``sample_weight=m["weight"]`` fit
        :class:`~sklearn_eval.pairwise.EloRanker` (``method="batch"``)
        controlled for both, its ``covariate_coef_`` the position and length
        biases.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_eval.io import to_matches
    >>> long = pd.DataFrame({
    ...     "model": ["a", "b", "c", "a", "b"], "task": "qa",
    ...     "item": [1, 1, 1, 2, 2], "epoch": 1, "metric": "acc",
    ...     "score": [1.0, 0.0, 1.0, 0.0, 1.0]})
    >>> m = to_matches(long)
    >>> m[["model_a", "model_b", "y", "item"]].values.tolist()
    [['a', 'b', 1.0, 1], ['a', 'c', 0.5, 1], ['b', 'c', 0.0, 1], ['a', 'b', 0.0, 2]]
    """
    if not (np.isscalar(tie_tol) and np.isfinite(tie_tol) and tie_tol >= 0):
        raise ValueError(f"tie_tol must be a finite number >= 0; got {tie_tol!r}.")
    if isinstance(long, pd.DataFrame) and "opponent" in long.columns:
        _check_epochs(epochs)
        return judged_matches(_select_metric(check_long_table(long), metric))
    rows = _scored(long, metric, epochs)
    keys = ["task", "item"] + (["epoch"] if epochs == "all" else [])
    rows = rows[[*keys, "model", "score"]]
    pairs = rows.merge(rows, on=keys, suffixes=("_a", "_b"))
    order_a = pairs["model_a"].astype(str)
    order_b = pairs["model_b"].astype(str)
    pairs = pairs[order_a < order_b]
    diff = pairs["score_a"].to_numpy() - pairs["score_b"].to_numpy()
    y = np.where(np.abs(diff) <= tie_tol, 0.5, np.where(diff > 0, 1.0, 0.0))
    matches = pd.DataFrame(
        {"model_a": pairs["model_a"].to_numpy(), "model_b": pairs["model_b"].to_numpy(),
         "y": y, **{key: pairs[key].to_numpy() for key in keys}}
    )
    if len(matches) == 0:
        raise ValueError(
            "No item has scores of two models: nothing to compare (a single "
            "model, or models evaluated on disjoint items)."
        )
    sort = ["task", "item", *keys[2:]]
    matches = matches.sort_values(
        [*sort, "model_a", "model_b"], kind="stable",
        key=lambda column: column.astype(str) if column.dtype == object else column,
    )
    return matches.reset_index(drop=True)
