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
import pandas as pd
from sklearn.utils import Bunch

from ._base import _load_descr
from ._references import mark_frame, reference_agents

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
    dataset=None,
    **extra,
):
    """Bunch for an agents x tasks matrix (``frame`` indexed by agent).

    ``dataset`` names the entry of the reference-agent table (``descr`` when
    None).
    """
    frame = None
    agent_names = np.asarray(agent_names, dtype=object)
    feature_names = np.asarray(feature_names, dtype=object)
    references, is_reference = reference_agents(dataset or descr, agent_names)
    if as_frame:
        frame = _result_matrix_frame(
            data, agent_names, feature_names, agent_label, task_label
        )
        data = mark_frame(frame, references)
    return Bunch(
        data=data,
        frame=frame,
        agent_names=agent_names,
        feature_names=feature_names,
        reference_agents=references,
        is_reference=is_reference,
        DESCR=_load_descr(descr),
        **extra,
    )


def _long_table_bunch(
    columns, dtypes, *, as_frame, descr, agent_column, dataset=None, **extra
):
    """Bunch for a long table given as {name: column ndarray}.

    Without pandas ``data`` is an object ndarray (one column per field, numbers
    as float or int, missing strings as None); with pandas a typed DataFrame.
    ``is_reference`` marks the rows whose ``agent_column`` is a reference
    agent.
    """
    names = list(columns)
    references, is_reference = reference_agents(
        dataset or descr, columns[agent_column]
    )
    if as_frame:
        frame = pd.DataFrame({name: columns[name] for name in names})
        frame = mark_frame(frame.astype(dtypes), references)
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
        reference_agents=references,
        is_reference=is_reference,
        DESCR=_load_descr(descr),
        **extra,
    )


def _matches_bunch(
    first, second, y, *, names, extra_columns, dtypes, as_frame, descr, **extra
):
    """Bunch for a match table; ``extra_columns`` go to the frame and the Bunch.

    ``is_reference`` marks the reference players among ``players``.
    """
    X = np.column_stack([first, second]).astype(object)
    players = np.array(sorted(set(first) | set(second)), dtype=object)
    references, is_reference = reference_agents(descr, players)
    frame = None
    target = y
    data = X
    if as_frame:
        frame = pd.DataFrame(
            {names[0]: first, names[1]: second, **extra_columns, "y": y}
        ).astype(dtypes)
        mark_frame(frame, references)
        data = frame[list(names)]
        target = frame["y"]
    return Bunch(
        data=data,
        target=target,
        frame=frame,
        players=players,
        feature_names=np.array(names, dtype=object),
        reference_agents=references,
        is_reference=is_reference,
        DESCR=_load_descr(descr),
        **extra_columns,
        **extra,
    )
