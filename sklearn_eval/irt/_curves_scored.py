"""The consumers' hook for every one-ability model of :class:`IRT`.

:class:`AdaptiveTester`, :class:`~sklearn_eval.selection.SubsetScoreEstimator`
and :class:`GeneralityScorer` read a calibrated model through
``expected_score(theta)``, ``item_information(theta)`` and, for a posterior
over the ability, ``response_log_likelihood(theta, items, responses)``; an
observed response counts in a full-benchmark mean score as
``item_scores(items, responses)``. The binary models (1PL to 4PL) have the
curves of :mod:`._binary_curves`; this mixin adds the ordered-category
(GRM, GPCM) and continuous (beta, logit-normal) models.

Every item's score lies on [0, 1]:

- binary: the response (0 or 1), expected score ``P(x = 1 | theta)``;
- graded: the category code divided by the item's largest code in fit
  (categories are coded ``0, 1, ..., K_j - 1``), expected score
  ``sum_k c_k P(x = k | theta) / c_max``; when every category of the item
  was observed this is ``sum_k k P(k) / (K_j - 1)``;
- continuous: the score itself, expected score the model's mean (``mu`` of
  the Beta model, ``E[expit(z)]`` of the logit-normal one).

The Fisher information of the ability is ``sum_k P_k'(theta)^2 / P_k`` for a
graded item (``a^2 Var(k)`` for the GPCM), ``a^2 phi^2 (psi_1(mu phi) +
psi_1((1 - mu) phi)) (mu (1 - mu))^2`` for the Beta item (the variance of the
score of ``theta`` in the Beta likelihood) and ``a^2 / sigma^2`` for the
logit-normal one. Items left out in fit carry no information, contribute
nothing to the likelihood and have their training mean score as expected
score (variance 0).
"""

import numpy as np
from scipy import sparse
from scipy.special import expit

from ._binary_models import log_tables
from ._continuous import CONTINUOUS_MODELS
from ._continuous_models import _GH_W, _GH_X, MODELS, trigamma
from ._graded import GRADED_MODELS, _grm_bounds, _linear, log_probabilities
from ._graded_fit import _code, _name
from ._information import _finite_theta

SCORED_MODELS = GRADED_MODELS + CONTINUOUS_MODELS


def is_scored(irt):
    """Whether ``irt`` is an :class:`IRT` of ordered categories or scores."""
    return getattr(irt, "model", None) in SCORED_MODELS


def check_one_ability(irt, what="The consumers of an item response model"):
    """ValueError for a model of several abilities (``n_factors > 1``)."""
    n_factors = getattr(irt, "n_factors", 1)
    if isinstance(n_factors, int | np.integer) and n_factors > 1:
        raise ValueError(
            f"{what} need one ability; the model has n_factors={n_factors}. "
            "Fit IRT with n_factors=1.")


class ScoredCurvesMixin:
    """Expected scores, information and response likelihoods of any one-ability IRT.

    Placed before :class:`~._binary_curves.BinaryCurvesMixin` in
    :class:`IRT`: the binary models go on to its curves.
    """

    def _curve_checks(self, what):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "_item_params")
        if self._is_multifactor():
            check_one_ability(self, what)

    def _max_codes(self):
        """Largest category code of every graded item in fit (NaN: none)."""
        return np.array([float(c[-1]) if c.size else np.nan
                         for c in self.categories_])

    def icc(self, theta):
        """Item curves: ``P(x_j = 1 | theta)`` (binary), else the expected score.

        For the GRM, GPCM and continuous models the curve is
        :meth:`expected_score` (on [0, 1]); their category probabilities are
        in :meth:`predict_proba`.

        Parameters
        ----------
        theta : float or array-like of shape (n_points,)
            Abilities.

        Returns
        -------
        ndarray of shape (n_points, n_features)
            Items left out in ``fit`` get their training mean score (NaN for
            an item never observed).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_eval.irt import IRT
        >>> X = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [1, 1, 1.0]])
        >>> gpcm = IRT(model="GPCM", max_iter=20).fit(X)
        >>> bool(np.allclose(gpcm.icc([0.0]), gpcm.expected_score([0.0])))
        True
        """
        self._curve_checks("icc")
        if self.model in SCORED_MODELS:
            return self.expected_score(theta)
        return super().icc(theta)

    def expected_score(self, theta, *, return_variance=False):
        """Expected score on [0, 1] of every item at ``theta``.

        The success probability of a binary item; for a graded item the
        expected category code divided by the item's largest code
        (``sum_k k P(x = k) / (K_j - 1)`` when all its categories were
        observed); for a continuous item the model's mean score. Items left
        out in fit get their training mean score (so scaled), with variance 0.

        Parameters
        ----------
        theta : float or array-like of shape (n_points,)
            Abilities.
        return_variance : bool, default=False
            Also return the variance of the item score given ``theta``.

        Returns
        -------
        mean : ndarray of shape (n_points, n_features)
        variance : ndarray of shape (n_points, n_features)
            Only with ``return_variance=True``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_eval.irt import IRT
        >>> rng = np.random.default_rng(0)
        >>> X = np.clip(np.round(1.5 + rng.normal(size=(200, 1))
        ...                      + rng.normal(size=(200, 6))), 0, 3)
        >>> grm = IRT(model="GRM").fit(X)
        >>> score = grm.expected_score([-6.0, 0.0, 6.0])
        >>> bool((np.diff(score, axis=0) > 0).all() and (score <= 1).all())
        True
        """
        self._curve_checks("expected_score")
        theta = _finite_theta(theta)
        if self.model not in SCORED_MODELS:
            mean = super().expected_score(theta)
            return (mean, mean * (1.0 - mean)) if return_variance else mean
        mean = np.empty((theta.size, self.n_features_in_))
        variance = np.zeros_like(mean)
        keep = self._keep
        rate = self._success_rate_items
        if self.model in GRADED_MODELS:
            top = self._max_codes()
            with np.errstate(invalid="ignore", divide="ignore"):
                mean[:, ~keep] = np.where(top > 0, rate / top, 0.0)[~keep]
            P = np.exp(log_probabilities(self.model, self._item_params, theta))
            codes = self._code_table() / top[keep][:, None]
            first = np.einsum("qjk,jk->qj", P, codes)
            second = np.einsum("qjk,jk->qj", P, codes * codes)
        else:
            mean[:, ~keep] = rate[~keep]
            first, second = _continuous_moments(self.model, self._item_params, theta)
        mean[:, keep] = first
        variance[:, keep] = np.maximum(second - first * first, 0.0)
        return (mean, variance) if return_variance else mean

    def _code_table(self):
        """(n_kept, K_max) category codes of the kept graded items, 0 padded."""
        K = self._item_params.shape[1]
        out = np.zeros((int(self._keep.sum()), K))
        for row, j in enumerate(np.flatnonzero(self._keep)):
            codes = self.categories_[j]
            out[row, :codes.size] = codes
        return out

    def item_information(self, theta):
        """Fisher information of every item about the ability at ``theta``.

        Binary items: ``P'^2 / (P (1 - P))``; graded: ``sum_k P_k'^2 / P_k``;
        Beta: ``a^2 phi^2 (psi_1(mu phi) + psi_1((1 - mu) phi)) (mu (1 -
        mu))^2``; logit-normal: ``a^2 / sigma^2`` (see the User Guide,
        :ref:`irt_consumers`).

        Parameters
        ----------
        theta : float or array-like of shape (n_points,)
            Abilities.

        Returns
        -------
        ndarray of shape (n_points, n_features)
            0 for items left out in ``fit``.
        """
        self._curve_checks("item_information")
        if self.model not in SCORED_MODELS:
            return super().item_information(theta)
        theta = _finite_theta(theta)
        out = np.zeros((theta.size, self.n_features_in_))
        out[:, self._keep] = scored_information(self.model, self._item_params, theta)
        return out

    def response_log_likelihood(self, theta, items, responses):
        """Log-likelihood of single responses at every ability ``theta``.

        ``log P(x = responses[c] | theta)`` (a log density for the continuous
        models) of the response ``responses[c]`` to item ``items[c]``: the
        table a posterior over the ability adds up (adaptive testing,
        subset scoring). A missing response (NaN) and an item left out in fit
        contribute 0.

        Parameters
        ----------
        theta : float or array-like of shape (n_points,)
            Abilities.
        items : array-like of int of shape (n_cells,) or (n_columns,), or None
            Column positions of the items: one per response, or, for a
            response matrix, one per column (None: all items, in order).
        responses : array-like of float of shape (n_cells,) or (n_agents, \
n_columns)
            The responses: 0/1 (binary), category codes (GRM, GPCM) or scores
            in [0, 1] (continuous; exact 0 and 1 moved by ``score_clip``, as
            in fit).

        Returns
        -------
        ndarray of shape (n_cells, n_points) or (n_agents, n_points)
            For a response matrix, the sum over each row's observed responses
            (the log-likelihood of the row at every ability).

        Raises
        ------
        ValueError
            For a response the item cannot have (naming item and value).

        Examples
        --------
        >>> from sklearn_eval.datasets import make_irt_responses
        >>> from sklearn_eval.irt import IRT
        >>> X = make_irt_responses(300, 10, random_state=0)
        >>> model = IRT(model="2PL").fit(X)
        >>> table = model.response_log_likelihood([-1.0, 1.0], [0, 0], [1.0, 0.0])
        >>> table.shape
        (2, 2)
        """
        self._curve_checks("response_log_likelihood")
        theta = _finite_theta(theta)
        if np.ndim(responses) == 2:
            rows, cols, items = self._matrix_cells(items, responses)
            table = self.response_log_likelihood(
                theta, items, np.asarray(responses, dtype=np.float64)[rows, cols])
            n_rows = np.shape(responses)[0]
            cells = np.arange(rows.size)
            by_row = sparse.csr_array((np.ones(rows.size), (rows, cells)),
                                      shape=(n_rows, rows.size))
            return np.asarray(by_row @ table)
        items, responses = self._check_cells(items, responses)
        out = np.zeros((items.size, theta.size))
        used = np.flatnonzero(~np.isnan(responses) & self._keep[items])
        kept = (np.cumsum(self._keep) - 1)[items[used]]
        x = responses[used]
        params = self._item_params
        # per (ability, item) tables once, then one gather per response
        if self.model in GRADED_MODELS:
            category = self._category_index(items[used], x)
            table = log_probabilities(self.model, params, theta)
            out[used] = table[:, kept, category].T
        elif self.model in CONTINUOUS_MODELS:
            spec = MODELS[self.model]
            c0, A, B = spec.tables(params, theta)
            exact = (x == 0.0) | (x == 1.0)  # moved as in fit (score_clip)
            x = np.where(exact, np.clip(x, self.score_clip, 1 - self.score_clip), x)
            t1, t2, h = spec.statistics(x)
            out[used] = (c0[:, kept] + A[:, kept] * t1 + B[:, kept] * t2 + h).T
        else:
            log_p, log_q = log_tables(params, theta)
            out[used] = np.where(x == 1.0, log_p[:, kept], log_q[:, kept]).T
        return out

    def item_scores(self, items, responses):
        """Responses as item scores on [0, 1] (the scale of :meth:`expected_score`).

        Binary and continuous responses are their own scores; a category code
        is divided by the item's largest code in fit.

        Parameters
        ----------
        items : array-like of int of shape (n_cells,) or (n_columns,), or None
            Column positions of the items: one per response, or one per
            column of a response matrix (None: all items, in order).
        responses : array-like of float of shape (n_cells,) or (n_agents, \
n_columns)
            Responses, NaN for missing (kept NaN).

        Returns
        -------
        ndarray of the shape of ``responses``

        Raises
        ------
        ValueError
            For a response the item cannot have (naming item and value).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_eval.irt import IRT
        >>> X = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [1, 1, 1.0]])
        >>> IRT(model="GPCM", max_iter=20).fit(X).item_scores([0, 1], [1, 2])
        array([0.5, 1. ])
        """
        self._curve_checks("item_scores")
        if np.ndim(responses) == 2:
            matrix = np.asarray(responses, dtype=np.float64)
            rows, cols, items = self._matrix_cells(items, matrix)
            out = np.full(matrix.shape, np.nan)
            out[rows, cols] = self.item_scores(items, matrix[rows, cols])
            return out
        items, responses = self._check_cells(items, responses)
        if self.model not in GRADED_MODELS:
            return responses.copy()
        seen = ~np.isnan(responses)
        self._category_index(items[seen], responses[seen])  # known codes only
        top = self._max_codes()[items]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(top > 0, responses / top, 0.0 * responses)

    def _matrix_cells(self, items, responses):
        """Observed cells of a response matrix: rows, columns and their items."""
        shape = np.shape(responses)
        columns = (np.arange(self.n_features_in_) if items is None
                   else np.asarray(items).reshape(-1))
        if shape[1] != columns.size:
            raise ValueError(
                f"responses have {shape[1]} columns; expected "
                f"{columns.size} (one per item).")
        rows, cols = np.nonzero(~np.isnan(np.asarray(responses, dtype=np.float64)))
        return rows, cols, columns[cols]

    def _check_cells(self, items, responses):
        items = np.asarray(items).reshape(-1)
        responses = np.asarray(responses, dtype=np.float64).reshape(-1)
        if items.shape != responses.shape:
            raise ValueError(
                f"items and responses differ in length: {items.size} and "
                f"{responses.size}.")
        if items.size and (not np.issubdtype(items.dtype, np.integer)
                           or items.min() < 0 or items.max() >= self.n_features_in_):
            raise ValueError(
                f"items must be column positions in [0, {self.n_features_in_}); "
                f"got {items[:5].tolist()}...")
        items = items.astype(np.intp)
        seen = ~np.isnan(responses)
        if self.model in GRADED_MODELS:
            return items, responses  # codes are checked by _category_index
        if self.model in CONTINUOUS_MODELS:
            bad = seen & ((responses < 0.0) | (responses > 1.0))
            kind = "scores in [0, 1]"
        else:
            bad = seen & (responses != 0.0) & (responses != 1.0)
            kind = "0/1 responses"
        if bad.any():
            c = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"model={self.model!r} takes {kind}: item "
                f"{_name(self.tasks_[items[c]])!r} has {_code(responses[c])!r}.")
        return items, responses

    def _category_index(self, items, codes):
        """Internal category of every (item, code); ValueError for a new code."""
        out = np.empty(items.size, dtype=np.intp)
        for j in np.unique(items):
            here = items == j
            known = self.categories_[j]
            position = np.searchsorted(known, codes[here])
            found = np.minimum(position, known.size - 1)
            ok = known[found] == codes[here]
            if not ok.all():
                value = codes[here][~ok][0]
                raise ValueError(
                    f"IRT(model={self.model!r}): item {_name(self.tasks_[j])!r} "
                    f"has category {_code(value)!r}, which it never had in fit "
                    f"(categories {known.tolist()}).")
            out[here] = found
        return out


def scored_information(model, params, theta):
    """Fisher information per (ability, item) of graded or continuous items."""
    if model in GRADED_MODELS:
        log_p = log_probabilities(model, params, theta)
        P = np.exp(log_p)
        a = params[:, 0]
        if model == "GPCM":
            k = np.arange(params.shape[1])
            mean = (P * k).sum(axis=2)
            return a * a * np.maximum((P * k * k).sum(axis=2) - mean * mean, 0.0)
        upper, lower = _grm_bounds(_linear(params, theta)[1])
        # d log P_k / d theta = a (1 - expit(upper) - expit(lower))
        slope = a[None, :, None] * (1.0 - expit(upper) - expit(lower))
        with np.errstate(invalid="ignore"):
            terms = np.where(P > 0, P * slope * slope, 0.0)
        return terms.sum(axis=2)
    a, d, s = params.T
    if model == "beta":
        eta = np.outer(theta, a) + d
        mu, nu = expit(eta), expit(-eta)
        phi = np.exp(s)
        w = mu * nu
        return (a * phi * w) ** 2 * (trigamma(phi * mu) + trigamma(phi * nu))
    return np.broadcast_to(a * a * np.exp(-2.0 * s), (theta.size, a.size)).copy()


def _continuous_moments(model, params, theta):
    """First and second moments of the score per (ability, item)."""
    spec = MODELS[model]
    if model == "beta":
        mu = spec.mean(params, theta)
        phi = np.exp(params[:, 2])
        return mu, mu * mu + mu * (1.0 - mu) / (phi + 1.0)
    eta = np.outer(theta, params[:, 0]) + params[:, 1]
    sigma = np.exp(params[:, 2])
    z = eta[..., None] + np.sqrt(2.0) * sigma[None, :, None] * _GH_X
    s = expit(z)
    weights = _GH_W / np.sqrt(np.pi)
    return s @ weights, (s * s) @ weights

