"""Two-parameter logistic item response theory (IRT) by marginal maximum likelihood.

Agent ``i`` with ability ``theta_i`` succeeds on item ``j`` with probability

    P_ij = 1 / (1 + exp(-a_j (theta_i - b_j)))

(no 1.7 constant), ``theta ~ N(0, 1)``; see the user guide page "Item response
theory" (``docs/user_guide/irt.rst``). This module holds the estimator; the
computation lives in pure functions: response storage (:mod:`._responses`),
the EM engine (:mod:`._em`, :mod:`._estep`, :mod:`._mstep`, starting values in
:mod:`._starts`), standard errors (:mod:`._information`), abilities
(:mod:`._abilities`) and item fit (:mod:`._item_fit`).
"""

from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from scipy.stats import chi2
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..base import AgentRankerMixin, FitTemplateMixin, TaskTableMixin
from ..utils._sklearn_compat import Interval, StrOptions
from ._abilities import _ability_estimates
from ._ability_output import AbilityTransformMixin
from ._curve_docs import (
    ICC,
    ITEM_INFORMATION,
    TEST_INFORMATION,
    TWO_PL_INFORMATION,
    curve_doc,
)
from ._dask_fit import dask_fit_data, dask_input, is_dask_collection
from ._em import _check_prior, _EMSettings
from ._estep import _e_step
from ._fit import _calibration_state, _executor, _fit_model, _scatter
from ._information import _finite_theta, _information_at
from ._intervals import irt_interval_plan
from ._item_fit import _item_fit_on, answered_items, without_unanswered
from ._quadrature import estimator_grid, make_grid
from ._responses import (
    _check_fit_responses,
    _check_input_features,
    _check_responses,
    _input_features,
    _make_storage,
)

__all__ = ["IRT2PL"]

_DEFAULT_NODES = {"rectangular": 121, "gauss-hermite": 21}
_N_ITEM_PARAMS = {"2PL": 2, "1PL": 1, "Rasch": 1}


class IRT2PL(
    AbilityTransformMixin,
    AgentRankerMixin, TaskTableMixin, TransformerMixin, FitTemplateMixin, BaseEstimator
):
    """Two-parameter logistic IRT fitted by marginal maximum likelihood (EM).

    Reads a result matrix of 0/1 responses (rows = agents, columns = items or
    tasks, NaN = not administered) and estimates, for every item, a
    discrimination ``a_j`` and a difficulty ``b_j``, and for every agent an
    ability ``theta_i``, in the model ``P(x_ij = 1) = 1 / (1 + exp(-a_j
    (theta_i - b_j)))`` (no 1.7 constant; the paper's and R ltm's convention).

    Sparse responses go in as they are: a scipy sparse matrix or array (CSR,
    CSC or COO) holds the observed responses, an explicit 0 being a wrong
    answer and an absent entry a missing one; a ``ResultMatrix`` from
    :func:`~sklearn_eval.utils.long_to_result_matrix` with ``sparse=True``
    brings the agent and item labels of a long (agent, item, response) table
    along. Such data are never made dense: every pass costs O(observed
    responses) (see ``algorithm``).

    Item parameters maximise the marginal likelihood with ``theta ~ N(0, 1)``
    integrated out on a quadrature grid, by the EM algorithm (Bock-Aitkin):
    the E-step is a pair of matrix products per block of agents, the M-step a
    Newton step with backtracking for all items at once. Missing responses
    drop out of the likelihood exactly (they are not imputed). Abilities are
    then found with the items fixed: MAP (ltm's "EB") or EAP.

    Parameters
    ----------
    model : {"2PL", "1PL", "Rasch"}, default="2PL"
        ``"2PL"``: a discrimination per item. ``"1PL"``: one discrimination
        shared by all items, estimated. ``"Rasch"``: every discrimination fixed
        at 1. The 3PL (guessing) model is not offered: the paper argues guessing
        does not suit agent benchmarks and uses the 2PL throughout.
    quadrature : {"rectangular", "gauss-hermite"}, default="rectangular"
        Grid on which ``theta`` is integrated out. ``"rectangular"``: equally
        spaced nodes on ``[-quadrature_bound, quadrature_bound]`` weighted by the
        normal density (as R mirt); ``"gauss-hermite"``: the Gauss-Hermite rule
        (as R ltm, with 21 nodes). With many items per agent the ability
        posterior is narrow and plain EM on Gauss-Hermite nodes mis-scales the
        estimates. Measured at 5000 agents x 500 items (20% missing), RMSE of
        (a, b) against the truth: rectangular-121 (0.048, 0.062);
        Gauss-Hermite-21 (0.296, 0.383) without and (0.058, 0.068) with
        ``rescale_latent``; hence the default.
    n_quadrature : int or None, default=None
        Number of nodes; None means 121 (rectangular) or 21 (Gauss-Hermite).
    quadrature_bound : float, default=6.0
        Half-width of the rectangular grid.
    a_prior : tuple (mean, sd) or None, default=None
        Optional normal prior on every discrimination (normal rather than
        log-normal, so negative discriminations stay possible). Keeps items that
        almost separate the agents finite; ``(1.0, 2.0)`` is a weak choice.
    b_prior : tuple (mean, sd) or None, default=None
        Optional normal prior on every difficulty, e.g. ``(0.0, 2.0)``; useful
        with few agents. With priors the fit is a posterior mode;
        ``log_likelihood_`` is still the plain marginal log-likelihood.
    ability_method : {"map", "eap"}, default="map"
        How ``abilities_`` and ``transform`` estimate abilities: posterior mode
        (R ltm's "EB") or posterior mean, both under the N(0, 1) prior.
    max_iter : int, default=1000
        Maximum number of EM iterations.
    tol : float, default=1e-7
        EM stops when the increase of the penalised log-likelihood per agent is
        below ``tol`` (after at least 2 iterations).
    n_init : int, default=1
        Number of EM starts; the fit with the best penalised likelihood is
        kept. The marginal likelihood of small, nearly separable data (tens of
        agents) has several local maxima. Start 1 takes a from item-total
        correlations; start 2 begins at a = 1 under a temporary N(1, 2) prior
        on a which is then lifted; further starts jitter start 1.
    accelerate : bool, default=True
        Accelerate EM with SQUAREM extrapolation (monotone: an extrapolated
        point is only kept when it does not lower the objective).
    rescale_latent : bool or "auto", default="auto"
        After every M-step, map items so that the agents' pooled posterior
        ability distribution has mean 0 and variance 1 (parameter-expanded EM
        for the latent location and scale). At the exact marginal ML solution
        this changes nothing; with many items per agent, where any fixed grid
        is coarse next to the narrow posteriors, it prevents the mis-scaled
        solutions that a plain EM on the grid converges to (at 1000 agents x
        20000 items it brings the ability RMSE from 0.35 to 0.05). With few
        agents and nearly separable items the rescaling can run away (the
        item parameters have no finite maximum), so ``"auto"`` uses it only
        with at least 50 agents and a median of at least 100 observed
        responses per agent, and a run whose discriminations pass 1e3 goes
        on without it. A standardised point that lowers the grid's
        likelihood is replaced by the plain EM point, so the log-likelihood
        never decreases. False maximises the likelihood on the grid itself
        (R ltm parity).
    random_state : int, RandomState instance or None, default=None
        Seeds the jitter of starts 3 and later (the fit is deterministic
        otherwise).
    n_jobs : int or None, default=None
        Number of workers computing the E-step (and the abilities) in chunks
        of agents: threads by default, since the work is matrix products
        that release the GIL (run on the library's own pool: a
        ``joblib.Parallel`` call waits for results in 10 ms steps). None
        means 1 unless in a ``joblib.parallel_config`` context, -1 all
        processors. Under
        ``joblib.parallel_config(backend="dask")`` the chunks of every E-step
        go to the ``dask.distributed`` cluster (each task carries its chunk of
        responses). The partial sums are added in chunk order, so the fit does
        not depend on ``n_jobs``. On one machine, threads help most when the
        BLAS runs single-threaded (``threadpoolctl``); measure first.
    chunk_size : int or None, default=None
        Number of agents per chunk; None means about 4 million responses per
        chunk. Chunking changes only the order of floating-point sums (fits
        agree to about 1e-12 relative).
    algorithm : {"auto", "dense", "sparse"}, default="auto"
        How the passes over the responses run. ``"dense"``: matrix products
        over every (agent, item) cell in blocks of agents (missing cells
        masked). ``"sparse"``: compiled loops over the observed responses
        only, each ability posterior evaluated at the grid nodes within
        ``e^-37`` of its mode (the rest weigh below float64 rounding), so
        time and memory grow with the number of responses, not of cells.
        ``"auto"``: sparse when fewer than 30% of the cells are observed and
        numba is installed (measured 1.2-6x faster there), else dense; scipy
        sparse input is never made dense below that share. All choices give
        the same fit to rounding (tested to 1e-10).
    drop_empty : bool, default=False
        Agents with no response: ``fit`` raises, or drops them with a warning.

    Attributes
    ----------
    discrimination_ : ndarray of shape (n_features,)
        ``a_j``; NaN for items left out of estimation (see ``constant_items_``).
    difficulty_ : ndarray of shape (n_features,)
        ``b_j`` on the ability scale (higher = harder for ``a_j > 0``); NaN for
        items left out.
    discrimination_se_, difficulty_se_ : ndarray of shape (n_features,)
        Standard errors from the item-wise observed information (Louis'
        formula; the covariance between different items' parameters is
        ignored). NaN for left-out items, and for ``discrimination_se_`` under
        ``"Rasch"``.
    constant_items_ : ndarray
        Labels (column names, or column indices) of items answered all 0, all 1
        or never in ``fit``: left out of estimation with a warning.
    negative_items_ : ndarray
        Labels of estimated items with negative discrimination ("abstruse"
        items). They are kept in the model.
    abilities_ : ndarray of shape (n_agents,)
        Abilities of the training agents (``ability_method``).
    abilities_sd_ : ndarray of shape (n_agents,)
        Posterior standard deviation (EAP) or the inverse square root of the
        posterior curvature at the mode (MAP).
    agents_ : ndarray of shape (n_agents,)
        Labels of the training agents: the index of a DataFrame ``X``, else
        ``0..n_agents-1``.
    agent_scores_ : ndarray of shape (n_agents,)
        What the agents are ranked by (higher = better): ``abilities_``, the
        same array. See :meth:`agent_table`.
    tasks_ : ndarray of shape (n_features,)
        Labels of the items: the columns of a DataFrame ``X`` (or
        ``item_names`` in :meth:`from_item_params`), else
        ``0..n_features-1``. See :meth:`task_table`.
    log_likelihood_ : float
        Marginal log-likelihood of the training data at the fitted items, on
        the fitting grid (prior terms of ``a_prior``/``b_prior`` excluded).
    aic_, bic_ : float
        ``-2 log_likelihood_ + 2 k`` and ``+ k log(n_agents)``, with ``k`` the
        number of free item parameters.
    n_iter_ : int
        Number of E-steps (EM iterations, extrapolations included) of the
        retained start, warm-up included.
    quadrature_nodes_, quadrature_weights_ : ndarray of shape (n_nodes,)
        The integration grid (weights sum to one).
    n_features_in_ : int
        Number of items seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Item names, when ``X`` is a DataFrame with string column names.

    See Also
    --------
    sklearn_eval.utils.binarize_scores : turn scores into 0/1 responses first.

    Notes
    -----
    The latent axis is oriented so that abilities correlate positively with
    the agents' proportion of successes (a reflection flips every ``a``, ``b``
    and ``theta`` together). An agent with no response on the estimated
    items gets the prior (ability 0, sd 1) in ``transform``.

    References
    ----------
    F. Martinez-Plumed and J. Hernandez-Orallo, "Dual Indicators to Analyse AI
    Benchmarks: Difficulty, Discrimination, Ability and Generality", IEEE
    Transactions on Games, 2018. R. D. Bock and M. Aitkin, "Marginal maximum
    likelihood estimation of item parameters: application of an EM algorithm",
    Psychometrika 46, 1981.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.irt import IRT2PL
    >>> X, params = make_irt_responses(300, 20, random_state=0, return_params=True)
    >>> model = IRT2PL().fit(X)
    >>> model.difficulty_.shape, model.abilities_.shape
    ((20,), (300,))
    >>> import numpy as np
    >>> bool(np.corrcoef(model.difficulty_, params["b"])[0, 1] > 0.95)
    True
    >>> model.transform(X[:2]).shape
    (2, 2)

    Sparse responses (a stored 0 is a wrong answer, an absent entry missing):

    >>> from scipy import sparse
    >>> rows, items = np.nonzero(~np.isnan(X))
    >>> S = sparse.csr_array((X[rows, items], (rows, items)), shape=X.shape)
    >>> bool(np.allclose(IRT2PL().fit(S).difficulty_, model.difficulty_))
    True

    One row per agent (ranked by ability) and one per item:

    >>> model.agent_table().columns.tolist()
    ['score', 'rank', 'success_rate', 'n_responses', 'score_se']
    >>> model.task_table()[["difficulty", "discrimination"]].shape
    (20, 2)

    Binarise scores outside the estimator, e.g. "at least human level":

    >>> from sklearn_eval.utils import binarize_scores
    >>> scores = 120 * np.random.default_rng(0).random((50, 6))
    >>> responses = binarize_scores(scores, 100)
    >>> IRT2PL(a_prior=(1.0, 2.0)).fit(responses).difficulty_.shape
    (6,)
    """

    _parameter_constraints: dict = {
        "model": [StrOptions({"2PL", "1PL", "Rasch"})],
        "quadrature": [StrOptions({"rectangular", "gauss-hermite"})],
        "n_quadrature": [Interval(Integral, 2, None, closed="left"), None],
        "quadrature_bound": [Interval(Real, 0, None, closed="neither")],
        "a_prior": [tuple, list, None],
        "b_prior": [tuple, list, None],
        "ability_method": [StrOptions({"map", "eap"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "accelerate": ["boolean"],
        "rescale_latent": ["boolean", StrOptions({"auto"})],
        "random_state": ["random_state"],
        "n_jobs": [Interval(Integral, None, -1, closed="right"),
                   Interval(Integral, 1, None, closed="left"), None],
        "chunk_size": [Interval(Integral, 1, None, closed="left"), None],
        "algorithm": [StrOptions({"auto", "dense", "sparse"})],
        "drop_empty": ["boolean"],
    }
    _model = "irt2pl"

    def __init__(
        self,
        *,
        model="2PL",
        quadrature="rectangular",
        n_quadrature=None,
        quadrature_bound=6.0,
        a_prior=None,
        b_prior=None,
        ability_method="map",
        max_iter=1000,
        tol=1e-7,
        n_init=1,
        accelerate=True,
        rescale_latent="auto",
        random_state=None,
        n_jobs=None,
        chunk_size=None,
        algorithm="auto",
        drop_empty=False,
    ):
        self.model = model
        self.quadrature = quadrature
        self.n_quadrature = n_quadrature
        self.quadrature_bound = quadrature_bound
        self.a_prior = a_prior
        self.b_prior = b_prior
        self.ability_method = ability_method
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.accelerate = accelerate
        self.rescale_latent = rescale_latent
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.chunk_size = chunk_size
        self.algorithm = algorithm
        self.drop_empty = drop_empty

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Abilities by default, with posterior intervals under
        ``method="auto"`` (:func:`irt_intervals`); item parameters
        (``"difficulty"``, ``"discrimination"``) with observed-information
        intervals; the bootstrap resamples tasks (abilities) or agents
        (items).

        Parameters
        ----------
        target : {"abilities", "difficulty", "discrimination"} or None

        Returns
        -------
        plan : IntervalPlan
        """
        return irt_interval_plan(self, target)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = False
        return tags

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Estimate item parameters and the training agents' abilities.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items)
            Responses in {0, 1}; NaN marks an item not administered. Sparse:
            explicit 0 = wrong, absent = not administered. A Dask array or
            Dask DataFrame long table (agent, item, score) is fitted on its
            cluster (user guide, "More data than one machine").
        y : None
            Ignored.

        Returns
        -------
        self : IRT2PL
            The fitted estimator.
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        check = dask_fit_data if is_dask_collection(X) else _check_fit_responses
        return X, check(X, drop_empty=self.drop_empty)

    def _solve(self, checked):
        X, (values, labels, summary, agents) = checked
        settings = _EMSettings(
            model=self.model,
            a_prior=_check_prior(self.a_prior, "a_prior"),
            b_prior=_check_prior(self.b_prior, "b_prior"),
            max_iter=self.max_iter,
            tol=self.tol,
            n_init=self.n_init,
            accelerate=self.accelerate,
            rescale_latent=self.rescale_latent,
        )
        grid = self._grid()
        with self._executor() as parallel:
            fitted = _fit_model(
                values,
                labels,
                settings=settings,
                grid=grid,
                ability_grid=self._ability_grid(grid),
                ability_method=self.ability_method,
                chunk_size=self.chunk_size,
                parallel=parallel,
                rng=check_random_state(self.random_state),
                algorithm=self.algorithm, summary=summary,
            )
        fitted["agents_"] = agents
        return {**_input_features(X, labels), **fitted}

    def item_fit(self, X):
        """Item-fit chi-square of every item on the responses ``X``.

        A Q1-type statistic (Yen 1981) made robust by grouping agents on
        their rest-of-test ability posterior, so that the item's own response
        does not drive the grouping. Use it on the training data to spot
        items the 2PL does not describe (non-monotone, multidimensional).
        Under the model the p-values are close to uniform (tested). It holds
        about ten float64 arrays of the size of ``X`` at once.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix \
                of shape (n_agents, n_features)
            0/1 responses, NaN for missing.

        Returns
        -------
        statistic : ndarray of shape (n_features,)
            NaN for items left out in ``fit``.
        pvalue : ndarray of shape (n_features,)
            Upper tail of chi-square with ``G - k`` degrees of freedom (``G``
            groups of agents, ``k`` parameters per item; at least 1).
        """
        values, _ = self._validate_new(X)
        keep = self._keep
        a, b = self.discrimination_[keep], self.difficulty_[keep]
        grid = self._ability_grid(self._grid())
        with self._executor() as parallel:
            statistic, n_groups = _item_fit_on(self._storage(values, parallel),
                                               values, keep, a, b, grid)
        dof = max(n_groups - _N_ITEM_PARAMS[self.model], 1)
        n_items = self.n_features_in_
        out = np.vstack([_scatter(statistic, keep, n_items),
                         _scatter(chi2.sf(statistic, dof), keep, n_items)])
        without_unanswered(out, answered_items(values), self.tasks_)
        return out[0], out[1]

    @classmethod
    def from_item_params(cls, discrimination, difficulty, *, item_names=None,
                         **params):
        """Build a fitted model from published item parameters.

        Scores new agents against a fixed calibration (``transform``,
        ``score``, ``predict_proba``), as the paper recommends for later
        editions of a benchmark: calibrate once, then score.

        Parameters
        ----------
        discrimination : array-like of shape (n_items,)
            ``a_j``. NaN (together with NaN difficulty) marks an item without
            calibration; it is treated like an item left out in ``fit``.
        difficulty : array-like of shape (n_items,)
            ``b_j``.
        item_names : array-like of str of shape (n_items,) or None
            Column names expected in DataFrame input.
        **params
            Estimator parameters (for instance ``ability_method="eap"``).

        Returns
        -------
        IRT2PL
            A fitted estimator with ``discrimination_``, ``difficulty_``,
            ``constant_items_``, ``negative_items_``, ``n_features_in_`` and,
            ``tasks_`` and, with ``item_names``, ``feature_names_in_``; no
            training-agent attributes (``abilities_``, ``agents_``,
            ``log_likelihood_``).

        Examples
        --------
        >>> from sklearn_eval.irt import IRT2PL
        >>> model = IRT2PL.from_item_params([1.0, 2.0], [0.0, 1.0])
        >>> model.predict_proba([[1, 0]]).shape
        (1, 2)
        """
        model = cls(**params)
        model._validate_params()
        return model._assign_fitted(_calibration_state(
            discrimination, difficulty, item_names, model._grid()))

    def task_table(self, X=None):
        """Item parameters and diagnostics, one row per item.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix \
                of shape (n_agents, n_features), optional
            Responses on which to compute the item-fit statistic
            (``item_fit``); usually the training data.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``tasks_`` (index name ``"task"``), with
            ``discrimination``, ``discrimination_se``, ``difficulty``,
            ``difficulty_se``, ``slope_at_difficulty`` (``a / 4``),
            ``success_rate`` (training data), ``left_out``, ``negative``, and
            with ``X`` also ``item_fit`` and ``item_fit_pvalue``.

        Examples
        --------
        >>> from sklearn_eval.irt import IRT2PL
        >>> model = IRT2PL.from_item_params([1.0, -0.5], [0.0, 2.0],
        ...                                 item_names=["easy", "odd"])
        >>> table = model.task_table()
        >>> table.index.tolist(), table["negative"].tolist()
        (['easy', 'odd'], [False, True])
        """
        check_is_fitted(self, "difficulty_")
        table = super().task_table()
        if X is not None:
            table["item_fit"], table["item_fit_pvalue"] = self.item_fit(X)
        return table

    def _task_columns(self):
        return {
            "discrimination": self.discrimination_,
            "discrimination_se": self.discrimination_se_,
            "difficulty": self.difficulty_,
            "difficulty_se": self.difficulty_se_,
            "slope_at_difficulty": self.discrimination_ / 4.0,
            "success_rate": self._success_rate_items,
            "left_out": ~self._keep,
            "negative": self._keep & (np.nan_to_num(self.discrimination_) < 0),
        }

    def item_table(self, X=None):
        """Alias of :meth:`task_table` (the IRT name for tasks is items).

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix \
                of shape (n_agents, n_features), optional
            Responses for the item-fit columns.

        Returns
        -------
        pandas.DataFrame
            ``task_table(X)``.
        """
        return self.task_table(X)

    def agent_table(self):
        """The training agents ranked by ability, one row each.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``agents_`` (index name ``"agent"``), best first, with
            ``score`` (``abilities_``), ``rank`` (1 = highest ability, ties
            share the best rank), ``success_rate`` and ``n_responses`` (over
            the estimated items), and ``score_se`` (``abilities_sd_``:
            posterior sd for EAP, inverse square root of the posterior
            curvature for MAP).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_eval.irt import IRT2PL
        >>> X = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0],
        ...               [1, 1, 1, 1]])
        >>> table = IRT2PL(a_prior=(1.0, 1.0)).fit(X).agent_table()
        >>> table.index.tolist(), table["rank"].tolist()
        ([4, 2, 0, 1, 3], [1, 2, 3, 4, 5])
        """
        check_is_fitted(self, "difficulty_")
        check_is_fitted(
            self,
            "agent_scores_",
            msg="This %(name)s was built from item parameters and has no training "
            "agents; score agents with transform(X) or estimate_abilities(X).",
        )
        return super().agent_table()

    def _agent_columns(self):
        return {
            "success_rate": self._agent_success_rate,
            "n_responses": self._agent_n_responses,
        }

    def _agent_score_se(self):
        return self.abilities_sd_

    def _grid(self):
        n_nodes = self.n_quadrature or _DEFAULT_NODES[self.quadrature]
        return estimator_grid(self.quadrature, n_nodes, self.quadrature_bound)

    # ------------------------------------------------------------ abilities
    def _abilities(self, values, *, method=None):
        """Abilities and their sd for agents in ``values`` (all items)."""
        keep = self._keep
        with self._executor() as parallel:
            data = self._storage(values, parallel)
            return _ability_estimates(
                data,
                self.discrimination_[keep],
                self.difficulty_[keep],
                self._ability_grid(self._grid()),
                method or self.ability_method,
            )

    def _storage(self, values, parallel):
        """The fitted items' responses in ``values`` (dense or sparse storage)."""
        return _make_storage(values, self._keep, algorithm=self.algorithm,
                             chunk_size=self.chunk_size, parallel=parallel)

    def _executor(self):
        """A running ``joblib.Parallel`` of ``n_jobs`` threads, or None."""
        return _executor(self.n_jobs)

    def _ability_grid(self, grid):
        # EAP on 21 Gauss-Hermite nodes collapses with steep items: use 121 nodes
        if self.quadrature == "rectangular":
            return grid
        return make_grid("rectangular", 121, self.quadrature_bound)

    def _validate_new(self, X):
        check_is_fitted(self, "difficulty_")
        if is_dask_collection(X):  # coded and kept on the workers
            return dask_input(X, self), None
        values, agents, tasks = _check_responses(X)
        _check_input_features(self, X, tasks)
        return values, agents

    def estimate_abilities(self, X, *, method=None):
        """Abilities of agents (rows of ``X``) against the fitted items.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix \
                of shape (n_agents, n_features)
            0/1 responses, NaN for missing. Items left out in ``fit`` are
            ignored; an agent with no usable response gets the prior (0, 1).
        method : {"map", "eap"} or None, default=None
            Posterior mode or mean; None uses ``ability_method``.

        Returns
        -------
        theta : ndarray of shape (n_agents,)
        sd : ndarray of shape (n_agents,)
            Posterior sd (EAP) or ``1 / sqrt(curvature)`` at the mode (MAP).
        """
        if method not in (None, "map", "eap"):
            raise ValueError(f"method must be 'map', 'eap' or None; got {method!r}.")
        values, _ = self._validate_new(X)
        return self._abilities(values, method=method)

    _fitted_marker = "difficulty_"

    def _ability_estimates_of(self, X):
        """``transform``'s columns: see :meth:`estimate_abilities`."""
        return self.estimate_abilities(X)

    # -------------------------------------------------------------- scoring
    def score_samples(self, X):
        """Marginal log-likelihood of each agent's responses.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix \
                of shape (n_agents, n_features)

        Returns
        -------
        ndarray of shape (n_agents,)
            ``log integral prod_j P_j(theta)^x (1 - P_j(theta))^(1-x) dN(theta)``
            on the fitting grid, over the observed responses to estimated items
            (0 for an agent with none).
        """
        values, _ = self._validate_new(X)
        keep = self._keep
        with self._executor() as parallel:
            data = self._storage(values, parallel)
            out = _e_step(data, self.discrimination_[keep], self.difficulty_[keep],
                          self._grid(), counts=False, moments=True)
        return out["per_agent"]

    def score(self, X, y=None):
        """Mean marginal log-likelihood per agent (higher is better).

        Lets ``GridSearchCV`` choose the model, grid and priors by
        cross-validation over agents.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix \
                of shape (n_agents, n_features)
        y : None
            Ignored.

        Returns
        -------
        float
        """
        return float(np.mean(self.score_samples(X)))

    def predict_proba(self, X):
        """Success probabilities for every agent x item, at estimated abilities.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix \
                of shape (n_agents, n_features)
            Responses from which the agents' abilities are estimated.

        Returns
        -------
        ndarray of shape (n_agents, n_features)
            ``P(x_ij = 1 | theta_i)``. Items left out in ``fit`` get their
            training success rate (0 or 1; NaN for an item never observed).
        """
        theta, _ = self.estimate_abilities(X)
        return self._probability(theta)

    def _probability(self, theta):
        theta = np.asarray(theta, dtype=np.float64).reshape(-1)
        with np.errstate(invalid="ignore"):
            P = expit(self.discrimination_ * (theta[:, None] - self.difficulty_))
        left_out = ~self._keep
        P[:, left_out] = self._success_rate_items[left_out]
        return P

    @curve_doc(ICC, examples="""\
        >>> from sklearn_eval.irt import IRT2PL
        >>> model = IRT2PL.from_item_params([1.0], [0.0])
        >>> round(float(model.icc(1.0)[0, 0]), 7)  # no 1.7 constant
        0.7310586
        """)
    def icc(self, theta):
        check_is_fitted(self, "difficulty_")
        return self._probability(_finite_theta(theta))

    @curve_doc(ITEM_INFORMATION, formula=TWO_PL_INFORMATION)
    def item_information(self, theta):
        check_is_fitted(self, "difficulty_")
        return _information_at(self.discrimination_, self.difficulty_, self._keep,
                               _finite_theta(theta))

    @curve_doc(TEST_INFORMATION)
    def test_information(self, theta):
        return self.item_information(theta).sum(axis=1)
