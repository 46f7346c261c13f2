"""What every pass over stored responses shares: float blocks, ordered chunks.

Both response stores (:mod:`._responses`, :mod:`._sparse_responses`) hand
their blocks or chunks to the computations of :mod:`._estep`,
:mod:`._abilities`, :mod:`._information` and :mod:`._item_fit` through these
helpers; the computations never import a store.
"""

import numpy as np
from sklearn.utils.parallel import delayed


def _as_float_block(Y, M):
    """float64 views (or copies, for uint8 storage) of a block of responses."""
    if Y.dtype == np.float64:
        return Y, M
    return Y.astype(np.float64), None if M is None else M.astype(np.float64)


def run_chunks(parallel, function, arguments):
    """``function(*args)`` for every ``args``, on ``parallel`` when given.

    Results come back in the order of ``arguments`` whatever the backend, so
    sums over chunks do not depend on the number of workers.
    """
    if parallel is None or len(arguments) <= 1:
        return [function(*args) for args in arguments]
    task = delayed(function)
    return list(parallel(task(*args) for args in arguments))
