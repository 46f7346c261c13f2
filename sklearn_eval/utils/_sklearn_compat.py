"""The one door to scikit-learn's private names.

scikit-learn's parameter validation (``_param_validation``), its fit
decorator (``_fit_context``) and its feature readers (``_get_feature_names``,
``_num_features``) are private: they may move or change between
releases. Every module of the package imports them from here (a test walks the
source and fails on a private scikit-learn import anywhere else), so a change
in scikit-learn is absorbed in this one file. The supported range is the one
``pyproject.toml`` declares; ``tools/test_sklearn_versions.sh`` runs the test
suite against its oldest and newest release.
"""

from __future__ import annotations

import functools

import sklearn
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    RealNotInt,
    StrOptions,
    validate_params,
)

from ._validation import check_unique_columns

__all__ = [
    "SKLEARN_VERSION",
    "HasMethods",
    "Hidden",
    "Interval",
    "RealNotInt",
    "StrOptions",
    "_fit_context",
    "_get_feature_names",
    "_num_features",
    "validate_params",
]


def _version_tuple(text):
    parts = []
    for piece in text.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


SKLEARN_VERSION = _version_tuple(sklearn.__version__)

try:  # scikit-learn >= 1.3
    from sklearn.base import _fit_context
except ImportError:  # pragma: no cover - older or reorganised releases

    def _fit_context(*, prefer_skip_nested_validation):
        """Validate the parameters, then fit (scikit-learn's ``_fit_context``)."""

        def decorator(fit_method):
            @functools.wraps(fit_method)
            def wrapper(estimator, *args, **kwargs):
                estimator._validate_params()
                return fit_method(estimator, *args, **kwargs)

            return wrapper

        return decorator


try:
    from sklearn.utils.validation import _get_feature_names as _sklearn_feature_names
except ImportError:  # pragma: no cover - older or reorganised releases
    import numpy as np

    def _sklearn_feature_names(X):
        """String column names of a DataFrame-like ``X``, else None."""
        columns = getattr(X, "columns", None)
        if columns is None:
            return None
        names = np.asarray(columns, dtype=object)
        kinds = {type(name) for name in names}
        if kinds and all(issubclass(kind, str) for kind in kinds):
            return names
        if any(issubclass(kind, str) for kind in kinds):
            raise TypeError(
                "Feature names are only supported if all input features have "
                "string names; got mixed types."
            )
        return None


def _get_feature_names(X):
    """String column names of a DataFrame-like ``X``, else None.

    scikit-learn's, after a check of its own: duplicated column names get a
    ValueError naming the first (some releases let a dataframe library's
    own exception out instead).

    Examples
    --------
    >>> import pandas as pd
    >>> _get_feature_names(pd.DataFrame([[1, 2]], columns=["a", "a"]))
    Traceback (most recent call last):
    ...
    ValueError: X has duplicated column name 'a'.
    """
    columns = getattr(X, "columns", None)
    if columns is not None:
        check_unique_columns(columns)
    return _sklearn_feature_names(X)


try:
    from sklearn.utils.validation import _num_features
except ImportError:  # pragma: no cover - older or reorganised releases

    def _num_features(X):
        """Number of columns of a 2-D array-like ``X`` (``n_features_in_``)."""
        shape = getattr(X, "shape", None)
        if shape is not None:
            if len(shape) != 2:
                raise TypeError(f"X must be 2-dimensional; got shape {shape}.")
            return int(shape[1])
        first = next(iter(X))
        return len(first)
