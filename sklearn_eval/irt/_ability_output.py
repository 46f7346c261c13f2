"""``transform`` and ``get_feature_names_out`` shared by the IRT estimators."""

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._dask_fit import stack_columns


class AbilityTransformMixin(TransformerMixin):
    """Abilities of new agents as the two columns ``ability``, ``ability_sd``.

    A ``TransformerMixin`` itself, so that ``set_output`` wraps this
    ``transform``. The estimator gives ``_ability_estimates_of(X)`` (estimate and sd per
    agent, or more columns) and ``_fitted_marker`` (an attribute set by
    ``fit``); ``_ability_output_names`` names the columns when there are more
    than two. Dask input gives a Dask array (the abilities stay on the
    workers).
    """

    def transform(self, X):
        """Abilities of new agents on the fitted items (no refit).

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items)
            0/1 responses to the fitted items, NaN (or absent) for missing.

        Returns
        -------
        ndarray of shape (n_agents, 2) or (n_agents, 2 + 2 m)
            Columns ``ability`` and ``ability_sd``: the estimator's ability
            estimate and its posterior sd (an agent with no response gets the
            prior's). With ``m > 1`` factors (:class:`IRT`), ``ability`` is
            the general ability and ``factor_f``, ``factor_f_sd`` follow for
            every rotated factor.
        """
        return stack_columns(*self._ability_estimates_of(X))

    def get_feature_names_out(self, input_features=None):
        """Names of the two output columns of ``transform``.

        Parameters
        ----------
        input_features : ignored

        Returns
        -------
        ndarray of str
            ``["ability", "ability_sd"]`` (then ``factor_f``, ``factor_f_sd``
            with several factors).
        """
        check_is_fitted(self, self._fitted_marker)
        return np.asarray(self._ability_output_names(), dtype=object)

    def _ability_output_names(self):
        return ["ability", "ability_sd"]
