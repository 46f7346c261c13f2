"""Base classes of the library's estimators: one fit template, one protocol.

Every estimator fits in three steps (like imbalanced-learn's ``fit_resample``,
which checks its input and hands it to ``_fit_resample``):

1. ``_check_fit_data`` validates the input and returns it checked, without
   touching the estimator;
2. ``_solve`` computes every fitted value with pure functions and returns
   them as a dict (attribute name -> value), again without touching the
   estimator;
3. the template assigns the whole dict in one step
   (:meth:`FitTemplateMixin._assign_fitted`), dropping the public fitted
   attributes of an earlier fit that this one does not produce.

So a fit that fails anywhere (bad input, a solver that raises, a divergence)
leaves the previous fitted model exactly as it was, and a reader finds every
estimator's work in the same two methods. Incremental fits (``partial_fit``)
go through the same assignment step.

The ranking protocol's mixins (``agent_table()``, ``task_table()``) are
re-exported here, so an estimator's bases all come from this module.
"""

from .utils._protocol import AgentRankerMixin, TaskTableMixin, assign_fitted
from .utils._sklearn_compat import _fit_context, _get_feature_names, _num_features

__all__ = [
    "AgentRankerMixin",
    "FitTemplateMixin",
    "TaskTableMixin",
    "input_attributes",
]


def input_attributes(X):
    """The scikit-learn input attributes a fit on ``X`` will assign.

    ``n_features_in_`` and, for a DataFrame with string column names,
    ``feature_names_in_``, computed without checking the values of ``X``
    and without touching any estimator (the template assigns them with the
    rest of the fitted state).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)

    Returns
    -------
    attributes : dict

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_eval.base import input_attributes
    >>> input_attributes(pd.DataFrame({"first": ["a"], "second": ["b"]}))
    {'n_features_in_': 2, 'feature_names_in_': array(['first', 'second'], dtype=object)}
    """
    attributes = {"n_features_in_": int(_num_features(X))}
    names = _get_feature_names(X)
    if names is not None:
        attributes["feature_names_in_"] = names
    return attributes


class FitTemplateMixin:
    """The one fit template: validate, solve purely, assign in one step.

    Subclasses implement

    ``_check_fit_data(X, y=None, **fit_params)``
        Validate the input; return it checked (any object ``_solve``
        accepts). May warn, must not set attributes.
    ``_solve(checked)``
        Compute every fitted value and return a dict mapping attribute
        names to values (public ``name_`` attributes, the scikit-learn
        input attributes, and the private fitted state the estimator's
        methods read). Must not set attributes.

    and override ``fit`` only to document its parameters (calling
    ``super().fit``). The template validates the hyper-parameters
    (``_parameter_constraints``) before step 1; an estimator that fits
    user-given estimators inside sets ``_prefer_skip_nested_validation =
    False`` so that theirs are validated too.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn_eval.base import FitTemplateMixin
    >>> class ColumnMeans(FitTemplateMixin, BaseEstimator):
    ...     _parameter_constraints: dict = {}
    ...     def _check_fit_data(self, X, y=None):
    ...         return np.asarray(X, dtype=float)
    ...     def _solve(self, X):
    ...         return {"means_": X.mean(axis=0), "n_features_in_": X.shape[1]}
    >>> ColumnMeans().fit([[1.0, 2.0], [3.0, 4.0]]).means_
    array([2., 3.])
    """

    _prefer_skip_nested_validation = True

    def fit(self, X, y=None, **fit_params):
        """Fit the estimator: check the input, solve, assign the result.

        Parameters
        ----------
        X : array-like
            Training data (see the estimator's own ``fit``).
        y : array-like or None, default=None
            Targets, where the estimator has them.
        **fit_params : dict
            Further fit arguments of the estimator (e.g. ``sample_weight``).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        template = _fit_context(
            prefer_skip_nested_validation=self._prefer_skip_nested_validation
        )(FitTemplateMixin._fit_template)
        return template(self, X, y, **fit_params)

    def _fit_template(self, X, y=None, **fit_params):
        checked = self._check_fit_data(X, y, **fit_params)
        return self._assign_fitted(self._solve(checked))

    def _fitted_attributes(self):
        """The current public fitted attributes (what an update starts from)."""
        return {
            name: value for name, value in vars(self).items()
            if name.endswith("_") and not name.startswith("_")
            and not name.endswith("__")
        }

    def _assign_fitted(self, fitted):
        """Set every fitted attribute at once (the template's only writer)."""
        return assign_fitted(self, fitted)
