"""Where a warning should point: the first frame outside the library.

A warning issued deep inside a fit (the fit template, a solver, a nested
estimator, scikit-learn's own wrappers) names the user's line that called
into the library, whatever the depth of the call, as pandas'
``find_stack_level`` does.
"""

import inspect
import os

import joblib
import sklearn

__all__ = ["find_stack_level"]

_LIBRARY_DIRS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
    os.path.dirname(os.path.abspath(sklearn.__file__)) + os.sep,
    os.path.dirname(os.path.abspath(joblib.__file__)) + os.sep,
)


def find_stack_level():
    """``stacklevel`` for ``warnings.warn`` that names the caller of the library.

    Counts the frames, from the one calling this function outwards, that
    belong to this package, to scikit-learn (its fit wrappers and
    meta-estimators) or to joblib (through which scikit-learn runs them).
    """
    frame = inspect.currentframe()
    n_frames = 0
    try:
        while frame is not None and frame.f_code.co_filename.startswith(
            _LIBRARY_DIRS
        ):
            frame = frame.f_back
            n_frames += 1
    finally:
        del frame
    return max(n_frames, 1)
