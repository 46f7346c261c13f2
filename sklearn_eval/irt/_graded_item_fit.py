"""Item fit of the ordered-category models (GRM, GPCM) of :class:`IRT`.

The polytomous generalisation of the binary models' rest-of-test statistic
(:mod:`._item_fit`): for item ``j``, every agent who answered it gets the
ability posterior of the rest of the test (its full posterior with the
item's own likelihood divided out), which gives the agent's expected
category probabilities ``E_ik`` and rest-of-test ability ``t_ij``. The agents
are split into ``G`` equal groups by ``t_ij``; in group ``g`` the observed
category counts ``O_g`` are compared with their expectation
``E_g = sum_i E_i`` through their covariance
``S_g = sum_i (diag(E_i) - E_i E_i^T)`` (a sum of independent multinomials):
``X2_j = sum_g (O_g - E_g)^T S_g^+ (O_g - E_g)``. Adjacent categories whose
expected count in a group is below :data:`MIN_EXPECTED` are merged first, as
Kang and Chen (2008) do for S-X2. The reference distribution is chi-square
with ``sum_g (C_g - 1) - K_j`` degrees of freedom (``C_g`` categories left
in group ``g``, ``K_j`` free parameters of the item: a slope and ``K_j - 1``
thresholds or steps; at least 1). With two categories it is the binary
models' statistic.

References: Orlando, M. & Thissen, D. (2000), Likelihood-based item-fit
indices for dichotomous item response theory models, APM 24, 50-64; Kang, T.
& Chen, T. T. (2008), Performance of the generalized S-X2 item fit index for
polytomous IRT models, JEM 45, 391-406.
"""

import numpy as np
from scipy.special import logsumexp
from scipy.stats import chi2
from sklearn.utils.validation import check_is_fitted

from ..utils._dask import is_dask_collection
from ._binary_curves import BINARY_MODELS
from ._graded import GRADED_MODELS
from ._graded_fit import _new_indicators, fitted_tables
from ._item_fit import _rank_key, answered_items, without_unanswered

# Adjacent categories are merged within a group until each expects this many
# responses (Kang and Chen's rule for S-X2).
MIN_EXPECTED = 1.0
# (observed responses x nodes) entries of the rest-of-test posteriors at once
_BLOCK_ENTRIES = 2**21


def rest_of_test(csr, log_p, grid, item_of_column, category_of_column, k_max):
    """Rest-of-test expected categories and abilities of every response.

    ``csr``: indicator CSR (agents x (item, category) columns); ``log_p``:
    log probability of every column's category per node. Returns ``item``,
    ``category`` and ``agent`` of every response (CSR order), its expected
    category probabilities ``(n_responses, k_max)`` and rest-of-test
    posterior mean.
    """
    coo = csr.tocoo()
    order = np.lexsort((coo.col, coo.row))
    agent, column = coo.row[order], coo.col[order]
    n_items = int(item_of_column.max()) + 1 if item_of_column.size else 0
    # category probabilities per (node, item, category), 0 past an item's last
    P = np.zeros((log_p.shape[0], n_items, k_max))
    P[:, item_of_column, category_of_column] = np.exp(log_p)
    expected = np.empty((agent.size, k_max))
    rest_theta = np.empty(agent.size)
    step = max(1, _BLOCK_ENTRIES // max(log_p.shape[0], 1))
    # the agents' log posteriors, computed once per block of agents
    log_post = np.asarray(csr @ log_p.T) + grid.log_weights
    log_post -= logsumexp(log_post, axis=1, keepdims=True)
    for start in range(0, agent.size, step):
        rows = slice(start, min(start + step, agent.size))
        rest = log_post[agent[rows]] - log_p[:, column[rows]].T
        rest -= rest.max(axis=1, keepdims=True)
        np.exp(rest, out=rest)
        rest /= rest.sum(axis=1, keepdims=True)
        items = item_of_column[column[rows]]
        expected[rows] = np.einsum("rq,qrk->rk", rest, P[:, items, :])
        rest_theta[rows] = rest @ grid.nodes
    return (item_of_column[column], category_of_column[column], agent, expected,
            rest_theta)


def _merge(expected_counts, min_expected):
    """Groups of adjacent categories each expecting ``min_expected`` or more.

    Returns the merged category of every category (a short last run joins
    the one before it).
    """
    label = np.empty(expected_counts.size, dtype=np.int64)
    current, total = 0, 0.0
    for k, value in enumerate(expected_counts):
        label[k] = current
        total += value
        if total >= min_expected and k + 1 < expected_counts.size:
            current, total = current + 1, 0.0
    if current > 0 and total < min_expected:
        label[label == current] = current - 1
    return label


def _group_term(observed, probabilities, min_expected):
    """``(O - E)^T S^+ (O - E)`` of one group and its categories left.

    ``observed``: category of every response in the group; ``probabilities``:
    their expected category probabilities (n, K).
    """
    K = probabilities.shape[1]
    expected = probabilities.sum(axis=0)
    label = _merge(expected, min_expected)
    n_merged = int(label.max()) + 1
    if n_merged < 2:
        return 0.0, 0
    A = np.zeros((n_merged, K))
    A[label, np.arange(K)] = 1.0
    p = probabilities @ A.T
    counts = np.bincount(label[observed], minlength=n_merged).astype(np.float64)
    mean = p.sum(axis=0)
    S = np.diag(mean) - p.T @ p
    # the counts sum to the group size: drop the last merged category
    resid = (counts - mean)[:-1]
    S = S[:-1, :-1]
    value = float(resid @ np.linalg.lstsq(S, resid, rcond=1e-12)[0])
    return max(value, 0.0), n_merged - 1


def graded_item_fit_from(item, category, expected, rest_theta, n_items,
                         n_parameters, n_groups, min_expected=MIN_EXPECTED):
    """Statistic, degrees of freedom and p-value of every item.

    ``item``, ``category``, ``expected``, ``rest_theta``: of every response
    (:func:`rest_of_test`); ``n_parameters``: free parameters per item.
    Responses tied on the rest-of-test ability (to 1e-9) keep their order.
    """
    statistic = np.zeros(n_items)
    dof = np.zeros(n_items, dtype=np.int64)
    for j in range(n_items):
        mine = np.flatnonzero(item == j)
        if mine.size == 0:
            continue
        ranks = np.argsort(_rank_key(rest_theta[mine]), kind="stable")
        group = np.empty(mine.size, dtype=np.int64)
        group[ranks] = np.arange(mine.size) * n_groups // mine.size
        for g in range(n_groups):
            members = mine[group == g]
            if members.size == 0:
                continue
            value, df = _group_term(category[members], expected[members],
                                    min_expected)
            statistic[j] += value
            dof[j] += df
    dof = np.maximum(dof - n_parameters, 1)
    return statistic, dof, chi2.sf(statistic, dof)


def graded_item_fit(estimator, X, max_groups=10):
    """Statistic, degrees of freedom and p-value per item of a fitted GRM/GPCM.

    NaN (df 0) for the items left out in fit.
    """
    csr = _new_indicators(estimator, X)
    grid, log_p = fitted_tables(estimator)
    coding = estimator._coding
    n_kept = coding.n_categories.size
    item_of_column = np.repeat(np.arange(n_kept), coding.n_categories)
    category_of_column = np.concatenate([np.arange(k) for k in coding.n_categories])
    item, category, _, expected, rest_theta = rest_of_test(
        csr, log_p, grid, item_of_column, category_of_column,
        int(coding.n_categories.max()))
    n_groups = int(max(2, min(max_groups, csr.shape[0] // 5)))
    statistic, dof, pvalue = graded_item_fit_from(
        item, category, expected, rest_theta, n_kept, coding.n_categories,
        n_groups)
    keep = coding.keep
    out = np.full((3, keep.size), np.nan)
    out[0, keep], out[1, keep], out[2, keep] = statistic, dof, pvalue
    answered = np.ones(keep.size, dtype=bool)
    answered[keep] = np.bincount(item_of_column, weights=answered_items(csr),
                                 minlength=n_kept) > 0
    without_unanswered(out, answered, estimator.tasks_)
    return out[0], out[1], out[2]


class ItemFitMixin:
    """``item_fit`` of the binary and graded models, and ``task_table(X)``."""

    def item_fit(self, X):
        """Item-fit chi-square and p-value of every item on the responses ``X``.

        Binary models (1PL to 4PL): the statistic of
        :meth:`~sklearn_eval.irt.IRT2PL.item_fit` (a Q1-type chi-square, Yen
        1981, with agents grouped on their rest-of-test ability posterior as
        in Orlando and Thissen's S-X2) on the model's own curves. GRM and
        GPCM: its polytomous generalisation (Kang and Chen's generalised
        S-X2 with rest-of-test groups): in every group of agents the observed
        category counts against their expectation, through the counts'
        covariance, adjacent categories expecting fewer than one response
        merged. A small p-value flags an item the model misfits (e.g. a
        guessing floor a 2PL cannot follow, categories a graded curve cannot
        order). Use it on the training data; one-ability models only.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items)
            Responses as in ``fit`` (0/1 or category codes), NaN for missing.

        Returns
        -------
        statistic : ndarray of shape (n_features,)
            NaN for items left out in ``fit``.
        pvalue : ndarray of shape (n_features,)
            Upper tail of chi-square with ``item_fit_df`` degrees of freedom
            (see :meth:`task_table`): ``G - k`` for a binary item (``G``
            groups of agents, ``k`` free parameters per item),
            ``sum_g (C_g - 1) - K`` for a graded one (``C_g`` categories left
            in group ``g``, ``K`` parameters); at least 1.

        Examples
        --------
        >>> from sklearn_eval.datasets import make_irt_responses
        >>> from sklearn_eval.irt import IRT
        >>> X = make_irt_responses(300, 10, random_state=0)
        >>> statistic, pvalue = IRT(model="3PL", n_options=4).fit(X).item_fit(X)
        >>> bool(((0 <= pvalue) & (pvalue <= 1)).all())
        True
        """
        statistic, _, pvalue = self._item_fit_table(X)
        return statistic, pvalue

    def task_table(self, X=None):
        """Item parameters and diagnostics, one row per item.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items), optional
            Responses on which to compute the item-fit statistic
            (:meth:`item_fit`, one-ability binary and graded models);
            usually the training data.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``tasks_`` (index name ``"task"``), with the model's
            item parameters and their standard errors (see the class
            docstring), and with ``X`` also ``item_fit``, ``item_fit_df`` and
            ``item_fit_pvalue``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_eval.irt import IRT
        >>> rng = np.random.default_rng(0)
        >>> graded = np.clip(np.round(1.5 + rng.normal(size=(200, 1))
        ...                           + rng.normal(size=(200, 6))), 0, 3)
        >>> table = IRT(model="GRM").fit(graded).task_table(graded)
        >>> table.columns[-3:].tolist()
        ['item_fit', 'item_fit_df', 'item_fit_pvalue']
        """
        table = super().task_table()
        if X is not None:
            statistic, dof, pvalue = self._item_fit_table(X)
            table["item_fit"] = statistic
            table["item_fit_df"] = dof
            table["item_fit_pvalue"] = pvalue
        return table

    def _item_fit_table(self, X):
        check_is_fitted(self, "_item_params")
        if self.n_factors != 1 or self.model not in (*BINARY_MODELS,
                                                     *GRADED_MODELS):
            raise ValueError(
                "item_fit is defined for the one-ability binary and graded "
                f"models; got model={self.model!r}, n_factors={self.n_factors}.")
        if self.model in GRADED_MODELS and is_dask_collection(X):
            raise NotImplementedError(
                "item_fit needs every response of an item at once; it is not "
                "offered on Dask input (collect a sample of agents first).")
        if self.model in GRADED_MODELS:
            return graded_item_fit(self, X)
        return self._binary_item_fit(X)
