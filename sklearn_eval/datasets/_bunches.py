"""Shared parsing helpers and Bunch builders of the dataset loaders.

Conventions shared by all loaders:

* result matrices have agents as rows and tasks (games, items, datasets) as
  columns, like the estimators expect; ``agent_names`` labels the rows and
  ``feature_names`` the columns;
* match tables have ``data`` of shape (n_matches, 2) (first player, second
  player) and ``target`` the outcome for the first player (1 win, 0 loss,
  0.5 draw);
* with ``as_frame=True``, ``data`` (and ``target``) become pandas objects and
  ``frame`` holds one DataFrame with everything; otherwise ``frame`` is None.
"""

import numpy as np
from sklearn.utils import Bunch

from ._base import _import_pandas, _load_descr

__all__ = []


def _to_float(text):
    """Parse a number from a table cell; '' and 'nan' (any case) give NaN."""
    text = text.strip()
    if text == "" or text.lower() == "nan":
        return np.nan
    return float(text)


def _float_column(rows, index):
    return np.array([_to_float(row[index]) for row in rows], dtype=np.float64)


def _str_column(rows, index):
    return np.array([row[index] for row in rows], dtype=object)


def _result_matrix_frame(data, agent_names, feature_names, agent_label, task_label):
    pd = _import_pandas("as_frame=True")
    return pd.DataFrame(
        data,
        index=pd.Index(agent_names, name=agent_label),
        columns=pd.Index(feature_names, name=task_label),
    )


def _result_matrix_bunch(
    data,
    agent_names,
    feature_names,
    *,
    as_frame,
    descr,
    agent_label="agent",
    task_label="task",
    **extra,
):
    """Bunch for an agents x tasks matrix (``frame`` indexed by agent)."""
    frame = None
    agent_names = np.asarray(agent_names, dtype=object)
    feature_names = np.asarray(feature_names, dtype=object)
    if as_frame:
        frame = _result_matrix_frame(
            data, agent_names, feature_names, agent_label, task_label
        )
        data = frame
    return Bunch(
        data=data,
        frame=frame,
        agent_names=agent_names,
        feature_names=feature_names,
        DESCR=_load_descr(descr),
        **extra,
    )


def _long_table_bunch(columns, dtypes, *, as_frame, descr, **extra):
    """Bunch for a long table given as {name: column ndarray}.

    Without pandas ``data`` is an object ndarray (one column per field, numbers
    as float or int, missing strings as None); with pandas a typed DataFrame.
    """
    names = list(columns)
    if as_frame:
        pd = _import_pandas("as_frame=True")
        frame = pd.DataFrame({name: columns[name] for name in names})
        frame = frame.astype(dtypes)
        data = frame
    else:
        frame = None
        data = np.empty((len(columns[names[0]]), len(names)), dtype=object)
        for position, name in enumerate(names):
            data[:, position] = columns[name]
    return Bunch(
        data=data,
        frame=frame,
        feature_names=np.asarray(names, dtype=object),
        DESCR=_load_descr(descr),
        **extra,
    )


def _matches_bunch(
    first, second, y, *, names, extra_columns, dtypes, as_frame, descr, **extra
):
    """Bunch for a match table; ``extra_columns`` go to the frame and the Bunch."""
    X = np.column_stack([first, second]).astype(object)
    players = np.array(sorted(set(first) | set(second)), dtype=object)
    frame = None
    target = y
    data = X
    if as_frame:
        pd = _import_pandas("as_frame=True")
        frame = pd.DataFrame(
            {names[0]: first, names[1]: second, **extra_columns, "y": y}
        ).astype(dtypes)
        data = frame[list(names)]
        target = frame["y"]
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        players=players,
        feature_names=np.array(names, dtype=object),
        DESCR=_load_descr(descr),
        **extra_columns,
        **extra,
    )
