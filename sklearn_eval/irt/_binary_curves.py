"""Item curves and item fit of the binary models of :class:`IRT`; the consumers' hook.

:class:`AdaptiveTester`, :class:`~sklearn_eval.selection.SubsetScoreEstimator`
and :class:`GeneralityScorer` read a calibrated model through three methods:
``icc(theta)`` (probability of a success per ability and item),
``expected_score(theta)`` (the item's expected score: the success probability
of a binary item, the mean score of a graded or continuous one) and
``item_information(theta)`` (Fisher information about the ability). The mixin
here gives them to the binary models (1PL to 4PL); another family plugs in by
defining the same three methods.
"""

import numpy as np
from scipy.special import expit
from scipy.stats import chi2
from sklearn.utils.validation import check_is_fitted

from ..utils._logistic import four_pl_information
from ._binary_models import FREE, asymptotes, log_tables
from ._curve_docs import (
    EXPECTED_SCORE,
    FOUR_PL_INFORMATION,
    ICC,
    ITEM_INFORMATION,
    curve_doc,
)
from ._information import _finite_theta
from ._item_fit import answered_items, item_fit_tables, without_unanswered
from ._responses import _make_storage

BINARY_MODELS = ("1PL", "2PL", "3PL", "4PL")


class BinaryCurvesMixin:
    """``icc``, ``expected_score`` and ``item_information`` of a binary IRT."""

    @curve_doc(ICC, examples="""\
        >>> from sklearn_eval.datasets import make_irt_responses
        >>> from sklearn_eval.irt import IRT
        >>> X = make_irt_responses(300, 10, random_state=0)
        >>> model = IRT(model="3PL", n_options=4).fit(X)
        >>> curves = model.icc([-8.0, 0.0, 8.0])
        >>> bool((curves[0] >= model.guessing_ - 1e-12).all())
        True
        """)
    def icc(self, theta):
        check_is_fitted(self, "_item_params")
        theta = _finite_theta(theta)
        out = np.empty((theta.size, self.n_features_in_))
        out[:, ~self._keep] = self._success_rate_items[~self._keep]
        out[:, self._keep] = np.exp(log_tables(self._item_params, theta)[0])
        return out

    @curve_doc(EXPECTED_SCORE)
    def expected_score(self, theta):
        return self.icc(theta)

    @curve_doc(ITEM_INFORMATION, formula=FOUR_PL_INFORMATION)
    def item_information(self, theta):
        check_is_fitted(self, "_item_params")
        theta = _finite_theta(theta)
        out = np.zeros((theta.size, self.n_features_in_))
        out[:, self._keep] = logistic_information(self._item_params, theta)
        return out


    def _binary_item_fit(self, X):
        """Item-fit statistic, degrees of freedom and p-value of every item.

        The statistic of :meth:`~sklearn_eval.irt.IRT2PL.item_fit` on the
        model's own curves, with ``G - k`` degrees of freedom (``G`` groups
        of agents, ``k`` free parameters per item; at least 1); NaN for the
        items left out in ``fit``. ``IRT.item_fit`` serves it
        (:mod:`._graded_item_fit`).
        """
        values = self._validate_new(X)
        grid = self._fitted_grid()
        log_p, log_q = log_tables(self._item_params, grid.nodes)
        with self._executor() as parallel:
            data = _make_storage(values, self._keep, algorithm=self.algorithm,
                                 chunk_size=self.chunk_size, parallel=parallel)
            statistic, n_groups = item_fit_tables(data, log_p, log_q, grid)
        n_free = 1 if self.model == "1PL" else len(FREE.get(self.model, (0, 1)))
        dof = max(n_groups - n_free, 1)
        out = np.full((3, self.n_features_in_), np.nan)
        out[0, self._keep] = statistic
        out[1, self._keep] = dof
        out[2, self._keep] = chi2.sf(statistic, dof)
        without_unanswered(out, answered_items(values), self.tasks_)
        return out[0], out[1], out[2]


def logistic_information(params, theta):
    """Fisher information per (ability, item) of rows ``(a, d, gamma, upsilon)``."""
    a, d = params[:, 0], params[:, 1]
    g, u = asymptotes(params)
    z = theta[:, None] * a + d
    if np.all(g == 0.0) and np.all(u == 1.0):
        s = expit(z)
        return a * a * s * (1.0 - s)
    return four_pl_information(a, z, g, u)
