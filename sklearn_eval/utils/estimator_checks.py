"""The project's estimator contract suite (see the design page of the docs).

scikit-learn's ``parametrize_with_checks`` feeds random real matrices, which
match tables, 0/1 response matrices and antisymmetric payoffs are not. This
module runs the same promises on *valid* data supplied by the caller:

- ``get_params``/``set_params``/``clone`` round-trip;
- unfitted use raises ``NotFittedError``; ``fit`` returns ``self``;
- clone-and-refit and repeated fit give identical results;
- pickle and joblib round-trips predict identically;
- inputs are never modified in place;
- a failing call (bad input) leaves the fitted state untouched;
- ``n_features_in_`` and ``feature_names_in_`` are set and checked.

Use :func:`check_estimator_contract` to run them all, or the individual
``check_*`` functions.
"""

from __future__ import annotations

import copy
import io
import pickle

import joblib
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

__all__ = [
    "OUTPUT_METHODS",
    "check_clone_refit_identical",
    "check_estimator_contract",
    "check_failing_call_keeps_state",
    "check_feature_names",
    "check_fit_idempotent",
    "check_inputs_unmodified",
    "check_not_fitted",
    "check_params_roundtrip",
    "check_persistence",
    "fitted_outputs",
]

OUTPUT_METHODS = ("predict", "predict_proba", "decision_function", "transform")


def _fit(estimator, X, y, fit_params):
    if y is None:
        return estimator.fit(X, **fit_params)
    return estimator.fit(X, y, **fit_params)


def _as_array(value):
    if hasattr(value, "to_numpy"):
        return value.to_numpy()
    return value


def fitted_outputs(estimator, X, y=None):
    """Everything observable about a fitted estimator, for comparisons.

    Returns a dict of the public fitted attributes (names ending in ``_``)
    and of the outputs of ``predict``, ``predict_proba``,
    ``decision_function``, ``transform`` and ``score`` on ``X``, for the
    methods the estimator has.
    """
    outputs = {
        name: value
        for name, value in vars(estimator).items()
        if name.endswith("_") and not name.startswith("_")
    }
    for method in OUTPUT_METHODS:
        if hasattr(estimator, method):
            outputs[f"{method}()"] = _as_array(getattr(estimator, method)(X))
    if hasattr(estimator, "score"):
        outputs["score()"] = estimator.score(X, y) if y is not None else None
    return outputs


def _assert_same(a, b, path, rtol):
    if isinstance(a, BaseEstimator):
        _assert_same(vars(a), vars(b), path, rtol)
    elif isinstance(a, dict):
        assert set(a) == set(b), f"{path}: keys differ ({set(a) ^ set(b)})"
        for key in a:
            _assert_same(a[key], b[key], f"{path}[{key!r}]", rtol)
    elif isinstance(a, (list, tuple)) and not isinstance(a, str):
        assert len(a) == len(b), f"{path}: lengths differ"
        for k, (u, v) in enumerate(zip(a, b, strict=True)):
            _assert_same(u, v, f"{path}[{k}]", rtol)
    elif hasattr(a, "to_numpy") or isinstance(a, (np.ndarray, np.generic, float, int)):
        u, v = np.asarray(_as_array(a)), np.asarray(_as_array(b))
        assert u.shape == v.shape, f"{path}: shapes differ {u.shape} vs {v.shape}"
        if u.dtype.kind in "fc" and v.dtype.kind in "fc":
            np.testing.assert_allclose(
                u, v, rtol=rtol, atol=0, equal_nan=True, err_msg=path
            )
        else:
            np.testing.assert_array_equal(u, v, err_msg=path)
    elif isinstance(a, (str, bool, type(None))):
        assert a == b, f"{path}: {a!r} != {b!r}"


def assert_same_outputs(a, b, *, rtol=1e-12, what="outputs"):
    """Assert two :func:`fitted_outputs` dicts agree (NaN equal to NaN)."""
    _assert_same(a, b, what, rtol)


def check_params_roundtrip(estimator):
    """``get_params``, ``set_params`` and ``clone`` preserve every parameter."""
    params = estimator.get_params(deep=False)
    cloned = clone(estimator)
    assert cloned.get_params(deep=False).keys() == params.keys()
    for name, value in params.items():
        other = cloned.get_params(deep=False)[name]
        if isinstance(value, BaseEstimator):
            assert type(other) is type(value), name
        else:
            _assert_same(value, other, f"param {name}", 0.0)
    assert cloned.set_params(**params) is cloned


def check_not_fitted(estimator, X):
    """Every output method of an unfitted estimator raises ``NotFittedError``."""
    unfitted = clone(estimator)
    for method in OUTPUT_METHODS:
        if hasattr(unfitted, method):
            try:
                getattr(unfitted, method)(X)
            except NotFittedError:
                continue
            raise AssertionError(f"{method} on an unfitted estimator did not raise")


def check_clone_refit_identical(estimator, X, y=None, *, fit_params=None, rtol=1e-12):
    """Two clones fitted on the same data give identical results."""
    fit_params = fit_params or {}
    first = _fit(clone(estimator), X, y, fit_params)
    assert isinstance(first, BaseEstimator), "fit must return self"
    second = _fit(clone(estimator), X, y, fit_params)
    assert_same_outputs(
        fitted_outputs(first, X, y), fitted_outputs(second, X, y), rtol=rtol,
        what="clone-and-refit",
    )


def check_fit_idempotent(estimator, X, y=None, *, fit_params=None, rtol=1e-12):
    """Fitting the same estimator twice gives the same results as once."""
    fit_params = fit_params or {}
    est = _fit(clone(estimator), X, y, fit_params)
    once = copy.deepcopy(fitted_outputs(est, X, y))
    est = _fit(est, X, y, fit_params)
    assert_same_outputs(once, fitted_outputs(est, X, y), rtol=rtol, what="refit")


def check_persistence(estimator, X, y=None, *, fit_params=None):
    """Pickle and joblib round-trips predict exactly as the original."""
    est = _fit(clone(estimator), X, y, fit_params or {})
    expected = fitted_outputs(est, X, y)
    restored = pickle.loads(pickle.dumps(est))
    assert_same_outputs(expected, fitted_outputs(restored, X, y), rtol=0.0,
                        what="pickle")
    buffer = io.BytesIO()
    joblib.dump(est, buffer)
    buffer.seek(0)
    restored = joblib.load(buffer)
    assert_same_outputs(expected, fitted_outputs(restored, X, y), rtol=0.0,
                        what="joblib")


def check_inputs_unmodified(estimator, X, y=None, *, fit_params=None):
    """Neither ``fit`` nor the output methods change their inputs."""
    X_before, y_before = copy.deepcopy(X), copy.deepcopy(y)
    fit_params = fit_params or {}
    params_before = copy.deepcopy(fit_params)
    est = _fit(clone(estimator), X, y, fit_params)
    fitted_outputs(est, X, y)
    _assert_same(_as_array(X_before), _as_array(X), "X", 0.0)
    if y is not None:
        _assert_same(_as_array(y_before), _as_array(y), "y", 0.0)
    _assert_same(params_before, fit_params, "fit_params", 0.0)


def _empty_like(X):
    if hasattr(X, "iloc"):
        return X.iloc[:0]
    return np.asarray(X)[:0]


def check_failing_call_keeps_state(
    estimator, X, y=None, *, fit_params=None, bad_inputs=None
):
    """A call that fails on bad input leaves the fitted estimator unchanged.

    ``bad_inputs`` is a list of ``(X_bad, y_bad)`` pairs that ``fit`` must
    reject with ``ValueError`` or ``TypeError``; by default an empty ``X``.
    The output methods are also called on each ``X_bad`` and must raise.
    """
    fit_params = fit_params or {}
    est = _fit(clone(estimator), X, y, fit_params)
    expected = copy.deepcopy(fitted_outputs(est, X, y))
    if bad_inputs is None:
        bad_inputs = [(_empty_like(X), None if y is None else np.asarray(y)[:0])]
    for X_bad, y_bad in bad_inputs:
        try:
            _fit(est, X_bad, y_bad, {})
        except (ValueError, TypeError):
            pass
        else:
            raise AssertionError("fit accepted bad input without an error")
        for method in OUTPUT_METHODS:
            if hasattr(est, method):
                try:
                    getattr(est, method)(X_bad)
                except (ValueError, TypeError):
                    continue
                raise AssertionError(f"{method} accepted bad input without an error")
        assert_same_outputs(expected, fitted_outputs(est, X, y), rtol=0.0,
                            what="state after a failing call")


def check_feature_names(estimator, X, y=None, *, fit_params=None):
    """``n_features_in_`` / ``feature_names_in_`` for result-matrix estimators.

    ``X`` must be a numeric ndarray; the check fits once on it and once on a
    DataFrame with named columns, and expects a
    ``ValueError`` when a fitted estimator receives the wrong number of
    columns.
    """
    fit_params = fit_params or {}
    X = np.asarray(X, dtype=np.float64)
    est = _fit(clone(estimator), X, y, fit_params)
    assert est.n_features_in_ == X.shape[1]
    assert not hasattr(est, "feature_names_in_")
    methods = [m for m in OUTPUT_METHODS if hasattr(est, m)]
    for method in methods:
        try:
            getattr(est, method)(X[:, :-1])
        except ValueError:
            continue
        raise AssertionError(f"{method} accepted X with too few columns")
    columns = [f"task_{k}" for k in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    est = _fit(clone(estimator), frame, y, fit_params)
    assert list(est.feature_names_in_) == columns


def check_estimator_contract(
    estimator,
    X,
    y=None,
    *,
    fit_params=None,
    bad_inputs=None,
    matrix_input=True,
    rtol=1e-12,
):
    """Run the project's whole contract suite on valid data.

    Parameters
    ----------
    estimator : estimator instance
        Unfitted; it is cloned for every check.
    X : array-like or DataFrame
        Valid training data for the estimator.
    y : array-like, default=None
        Targets when ``fit`` takes them.
    fit_params : dict, default=None
        Extra keyword arguments for ``fit``.
    bad_inputs : list of (X_bad, y_bad), default=None
        Inputs that must be rejected; by default an empty ``X``.
    matrix_input : bool, default=True
        Whether ``X`` is a numeric result matrix (then the feature-name checks
        run); False for match tables.
    rtol : float, default=1e-12
        Tolerance of "identical" for refits (0 for the persistence checks).

    Examples
    --------
    >>> from sklearn.decomposition import PCA
    >>> from sklearn_eval.utils.estimator_checks import check_estimator_contract
    >>> X = [[0.0, 1.0], [2.0, 3.5], [1.0, 0.0]]
    >>> check_estimator_contract(PCA(n_components=1), X)
    """
    check_params_roundtrip(estimator)
    check_not_fitted(estimator, X)
    check_clone_refit_identical(estimator, X, y, fit_params=fit_params, rtol=rtol)
    check_fit_idempotent(estimator, X, y, fit_params=fit_params, rtol=rtol)
    check_persistence(estimator, X, y, fit_params=fit_params)
    check_inputs_unmodified(estimator, X, y, fit_params=fit_params)
    check_failing_call_keeps_state(
        estimator, X, y, fit_params=fit_params, bad_inputs=bad_inputs
    )
    if matrix_input:
        check_feature_names(estimator, X, y, fit_params=fit_params)
