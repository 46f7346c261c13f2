"""Recognising Dask input and finding the cluster, without importing dask.

Dask is an optional extra (``pip install 'sklearn-eval[distributed]'``):
importing the library never imports it. Estimators that read Dask input
detect it by duck type here and import dask only then.
"""

import numpy as np


def is_dask_collection(X):
    """Whether ``X`` is a Dask collection (array, DataFrame, Series), by duck type.

    Never imports dask: the class must come from a ``dask`` module and carry
    a task graph.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils._dask import is_dask_collection
    >>> is_dask_collection(np.ones(3))
    False
    """
    module = type(X).__module__ or ""
    return module.split(".")[0] == "dask" and hasattr(X, "__dask_graph__")


def reject_dask(X, what, remedy):
    """TypeError when an entry point that reads data in memory gets Dask input.

    Parameters
    ----------
    X : object
        The input.
    what : str
        The entry point, e.g. ``"MultiElo.fit"``.
    remedy : str
        What to do instead.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils._dask import reject_dask
    >>> reject_dask(np.ones(3), "f", "compute it first.")
    """
    if is_dask_collection(X):
        raise TypeError(
            f"{what} reads its data in memory; X is a Dask "
            f"{type(X).__name__}. {remedy}"
        )


def get_client():
    """The running ``dask.distributed`` client; ValueError if none."""
    try:
        from distributed import default_client
    except ImportError as exc:  # pragma: no cover - dask without distributed
        raise ImportError(
            "Fitting on Dask collections needs dask.distributed: install the "
            "'distributed' extra (pip install 'sklearn-eval[distributed]')."
        ) from exc
    try:
        return default_client()
    except ValueError:
        raise ValueError(
            "Dask input needs a running dask.distributed Client (for instance "
            "Client(LocalCluster()) or Client('scheduler-address')): the data "
            "are read and kept on its workers."
        ) from None


def stack_columns(*columns):
    """``np.column_stack``, kept lazy (a Dask array) for Dask columns.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.utils._dask import stack_columns
    >>> stack_columns(np.zeros(2), np.ones(2))
    array([[0., 1.],
           [0., 1.]])
    """
    if any(is_dask_collection(column) for column in columns):
        import dask.array as da

        return da.stack(columns, axis=1)
    return np.column_stack(columns)
