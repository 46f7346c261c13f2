"""What every pass over stored responses shares: float blocks, ordered chunks.

Both response stores (:mod:`._responses`, :mod:`._sparse_responses`) hand
their blocks or chunks to the computations of :mod:`._estep`,
:mod:`._abilities`, :mod:`._information` and :mod:`._item_fit` through these
helpers; the computations never import a store.
"""

from concurrent.futures import ThreadPoolExecutor

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


class ThreadPool:
    """``joblib.Parallel``'s call for threads, without its polling delay.

    ``pool(tasks)`` runs ``joblib.delayed``-style tasks ``(function, args,
    kwargs)`` on ``n_threads`` threads and returns their results in order. A
    ``joblib.Parallel`` call waits for its next result in steps of 10 ms
    (``time.sleep(0.01)`` in its retrieval loop), which an E-step of a few
    milliseconds pays on every pass: measured on the 3PL's E-step (20,000 x
    60, 31 nodes, two threads), 21 ms per pass through ``joblib.Parallel``
    against 11.4 ms here and 17.8 ms on one thread. Use as a context manager
    (the threads live as long as the block).
    """

    def __init__(self, n_threads):
        self.n_threads = n_threads
        self._executor = None

    def __enter__(self):
        self._executor = ThreadPoolExecutor(max_workers=self.n_threads)
        return self

    def __exit__(self, *exc_info):
        self._executor.shutdown(wait=True)
        self._executor = None
        return False

    def __call__(self, tasks):
        # scikit-learn's ``delayed`` wraps the function to carry its config
        # into joblib's workers (and warns when called without them): the
        # passes read no config, so the function itself runs
        futures = [self._executor.submit(getattr(function, "function", function),
                                         *args, **kwargs)
                   for function, args, kwargs in tasks]
        return [future.result() for future in futures]
