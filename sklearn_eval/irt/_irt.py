"""IRT: one estimator for the binary item response models (1PL to 4PL)."""

from numbers import Integral, Real

from scipy.special import expit as _expit
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..base import AgentRankerMixin, FitTemplateMixin, TaskTableMixin
from ..utils._sklearn_compat import Interval, StrOptions
from ._ability_output import AbilityTransformMixin
from ._binary_curves import BinaryCurvesMixin
from ._binary_models import log_tables, logit_prior, posterior_predictive
from ._continuous_irt import CONTINUOUS_MODELS, _ContinuousIRTMixin
from ._curves_scored import ScoredCurvesMixin
from ._dask_fit import (
    check_dask_model,
    dask_fit_data,
    dask_graded_fit_data,
    dask_input,
    fit_graded_dask,
    fit_graded_factors_dask,
    graded_dask_pass,
    graded_dask_proba,
    graded_dask_store,
    is_dask_collection,
)
from ._em import _check_prior, _EMSettings
from ._fit import _executor
from ._graded import GRADED_MODELS
from ._graded_factors import GradedFactorMixin, fit_graded_factors
from ._graded_fit import (
    check_graded_fit,
    fit_graded,
    graded_pass,
    graded_predict_proba,
    graded_task_columns,
)
from ._graded_item_fit import ItemFitMixin
from ._intervals import irt_interval_plan
from ._irt_fit import _fit_irt
from ._multidim import MultiFactorMixin, fit_multidim
from ._quadrature import estimator_grid, make_grid
from ._responses import (
    EMPTY_REMEDY,
    _check_fit_responses,
    _check_input_features,
    _check_responses,
    _input_features,
    _make_storage,
)


def _has_proba(estimator):
    """predict_proba exists for the binary models (a density is not one)."""
    if estimator.model in CONTINUOUS_MODELS:
        raise AttributeError(
            f"model={estimator.model!r} gives a density, not probabilities: use "
            "predict (expected scores) or score (mean log-density).")
    return True


_DEFAULT_NODES = {"rectangular": 121, "gauss-hermite": 21}
# logit-scale sd of the guessing prior that n_options implies
_OPTIONS_PRIOR_SD = 0.5


class IRT(
    _ContinuousIRTMixin, GradedFactorMixin, MultiFactorMixin, ScoredCurvesMixin,
    ItemFitMixin, BinaryCurvesMixin,
    AbilityTransformMixin,
    AgentRankerMixin, TaskTableMixin, TransformerMixin, FitTemplateMixin, BaseEstimator
):
    """Item response models: 1PL, 2PL, 3PL (guessing), 4PL, GRM and GPCM.

    Agent ``i`` succeeds on item ``j`` with probability
    ``g_j + (u_j - g_j) / (1 + exp(-a_j (theta_i - b_j)))``, ``theta ~ N(0, 1)``:
    ``"2PL"`` fixes the lower asymptote ``g = 0`` and the upper ``u = 1``;
    ``"1PL"`` also shares one discrimination ``a`` across items; ``"3PL"``
    estimates ``g`` (the guessing floor of a multiple-choice item: a 4-option
    item gives 25% to an agent that knows nothing, which a 2PL reads as an
    easy item); ``"4PL"`` estimates ``u`` as well (items that even the best
    agents sometimes miss, e.g. through label noise).

    Item parameters maximise the marginal likelihood by EM on the same
    response storage as :class:`IRT2PL` (dense with NaN, or scipy sparse in
    O(observed responses)). The 1PL and 2PL are fitted by the EM engine of
    :class:`IRT2PL` (same item parameters and log-likelihood); the 3PL and 4PL
    start from the 2PL's moment estimates and run EM (Fisher-scoring M-step,
    SQUAREM acceleration with the asymptotes extrapolated as probabilities,
    kept only where it raises the likelihood, so the penalised
    log-likelihood never decreases). Abilities are posterior means
    (EAP) on the quadrature grid.

    By default the 3PL and 4PL are maximum likelihood. A guessing parameter
    is weakly identified when few agents are low on the scale; give
    ``n_options`` (the number of answer options: a normal prior on
    ``logit(g)`` centred at ``logit(1 / n_options)`` with sd 0.5) or an
    explicit ``guessing_prior``; the fit is then a posterior mode and
    ``log_likelihood_`` stays the plain marginal log-likelihood.

    ``"GRM"`` (Samejima's graded response model,
    ``P(x >= k) = 1 / (1 + exp(-a (theta - b_k)))``) and ``"GPCM"``
    (generalised partial credit, ``P(x = k) ∝ exp(sum_{v<=k} a (theta - b_v))``)
    take ordered categories ``0, 1, ..., K_j - 1`` with a number ``K_j`` per
    item; a category never used below an item's highest is collapsed with a
    warning (see the User Guide, :ref:`irt_graded`).

    Read more in the :ref:`User Guide <irt_models>`.

    Parameters
    ----------
    model : {"1PL", "2PL", "3PL", "4PL", "GRM", "GPCM", "beta", "logit-normal"}, \
            default="2PL"
        The item response model: binary (1PL to 4PL), ordered categories
        (GRM, GPCM), or continuous scores in [0, 1] (``"beta"``,
        ``"logit-normal"``, see :ref:`irt_continuous`).
    n_factors : int, default=1
        Number of latent abilities. With ``n_factors=m > 1`` (``model="2PL"``)
        the exploratory multidimensional 2PL
        ``P = expit(a_j . theta + d_j)``, ``theta ~ N(0, I_m)`` while
        estimating, then rotated (see ``rotation``); ``m`` must leave more
        than ``2m`` informative items and fewer parameters than responses.
        ``model="GRM"`` and ``"GPCM"`` take several factors too
        (``P(x >= k) = expit(a_j . theta + d_jk)``; GPCM category logits
        ``sum_{v<=k} (a_j . theta + s_jv)``), their thresholds (steps) then
        reported as the intercepts ``d_jk`` (``s_jk``), see
        :ref:`irt_factors`.
    n_options : int or None, default=None
        Number of answer options of the items (3PL, 4PL): sets the guessing
        prior unless ``guessing_prior`` is given.
    guessing_prior : tuple (mean, sd) or None, default=None
        Normal prior on ``logit(g)`` with centre ``logit(mean)``, ``mean`` in
        (0, 1), and sd ``sd`` on the logit scale (3PL, 4PL).
    upper_prior : tuple (mean, sd) or None, default=None
        The same for the upper asymptote ``u`` (4PL).
    discrimination_prior : tuple (mean, sd) or None, default=None
        Normal prior on every discrimination ``a`` (2PL, 3PL, 4PL; normal
        rather than log-normal, so negative discriminations stay possible,
        as :class:`IRT2PL`'s ``a_prior``). Maximum likelihood has no finite
        discrimination for an item that (nearly) separates the agents, and
        EM then crawls along that ridge (with the asymptotes free, often:
        items with few responses each); ``(1.0, 2.0)`` is a weak choice that
        keeps them finite (user guide).
    quadrature : {"rectangular", "gauss-hermite", "sobol"}, default="rectangular"
        Grid on which ``theta`` is integrated out (see :class:`IRT2PL`). With
        several factors: the product of the one-dimensional rule (the
        rectangular one kept to the ball of radius ``quadrature_bound``), or
        ``"sobol"``, scrambled Sobol points (quasi-Monte Carlo, fixed by
        ``random_state``) for many factors.
    n_quadrature : int or None, default=None
        Number of nodes; None means 121 (rectangular) or 21 (Gauss-Hermite),
        and 401 for the continuous models (their posteriors are narrow).
        For the GRM and GPCM None on the rectangular grid means 61 nodes
        when agents answer on average at most 150 category boundaries
        (responses x (categories - 1)), 121 beyond. For the 3PL and 4PL it
        means 121 nodes, or every other one of them (61) when agents answer
        on average at most 150 items and no fitted item is steep next to
        that spacing (``|a| <= 5`` on ``[-6, 6]``): the two grids' maxima
        then agree to rounding (user guide). ``quadrature_nodes_`` holds
        the grid fitted on. With several factors,
        nodes per dimension of a product rule (None: 21, 15, 9, 7, then 5
        for 2, 3, 4, 5, more factors) or the number of Sobol points (None:
        4096).
    quadrature_bound : float, default=6.0
        Half-width of the rectangular grid.
    max_iter : int, default=1000
        Maximum number of EM iterations (E-steps).
    tol : float, default=1e-7
        EM stops when the penalised log-likelihood per agent changes by less.
    algorithm : {"auto", "dense", "sparse"}, default="auto"
        Response storage (see :class:`IRT2PL`); the results agree to rounding.
        The GRM and GPCM have one storage, in O(observed responses), and
        ignore it.
    chunk_size : int or None, default=None
        Agents per block of the passes over the responses.
    n_jobs : int or None, default=None
        Threads for the passes over blocks of agents or items, and for the
        3PL and 4PL M-step and standard errors (chunks of items; the same
        numbers as on one thread). The 3PL and 4PL run their matrix products
        with single-threaded BLAS (see the user guide's notes on speed).
    random_state : int, RandomState instance or None, default=None
        Seeds the starting values of the 2PL engine (with several factors:
        the Sobol points and the randomized principal components of the
        start).
    score_clip : float, default=1e-3
        Continuous models: scores exactly 0 or 1 are moved to ``score_clip``
        and ``1 - score_clip`` (with a warning naming the items), as the
        models' densities live on (0, 1).
    rotation : {"oblimin", "varimax"} or None, default="oblimin"
        Rotation of the loadings with several factors: oblique quartimin
        (factors may correlate, ``factor_corr_``), orthogonal varimax, or
        None for the principal axes (orthogonal; the first factor is the
        general ability). The criterion is evaluated on the standardised
        (normal-ogive) loadings, as R's mirt does; the likelihood does not
        depend on it.

    Attributes
    ----------
    discrimination_, difficulty_, guessing_, upper_ : ndarray of shape (n_items,)
        Item parameters (NaN for items left out: all 0, all 1 or never
        observed). ``guessing_`` is 0 and ``upper_`` 1 where the model fixes
        them.
    discrimination_se_, difficulty_se_, guessing_se_, upper_se_ : ndarray
        Standard errors from Louis' observed information of each item (NaN
        where the model fixes the parameter or the information is singular).
        The GRM and GPCM have no asymptotes; their ``difficulty_`` is the
        mean threshold (step).
    thresholds_, thresholds_se_ : ndarray of shape (n_items, K_max - 1)
        GRM only: the thresholds ``b_k`` of every item and their standard
        errors, NaN past an item's categories. With several factors: the
        intercepts ``d_k`` of ``P(x >= k) = expit(a . theta + d_k)``
        (a larger intercept is an easier boundary).
    steps_, steps_se_ : ndarray of shape (n_items, K_max - 1)
        GPCM only: the steps ``b_k``, likewise. With several factors: the
        step intercepts ``s_k`` of the category logits
        ``sum_{v<=k} (a . theta + s_v)``.
    n_categories_ : ndarray of shape (n_items,)
        GRM and GPCM: the number of categories of every item.
    categories_ : list of ndarray
        GRM and GPCM: the category codes observed for every item, in order
        (internal category ``k`` is code ``categories_[j][k]``).
    precision_, precision_se_ : ndarray of shape (n_items,)
        ``model="beta"`` only: the Beta precision ``phi`` of each item and
        its standard error.
    residual_sd_, residual_sd_se_ : ndarray of shape (n_items,)
        ``model="logit-normal"`` only: the sd of the logit score around the
        item's curve and its standard error.
    abilities_, abilities_sd_ : ndarray of shape (n_agents,)
        Posterior mean and sd of the training agents' abilities.
    agents_, agent_scores_ : ndarray of shape (n_agents,)
        Agent labels and scores (the abilities) of the ranking protocol.
    tasks_ : ndarray of shape (n_items,)
        Item labels.
    constant_items_ : ndarray
        Labels of the items left out of estimation.
    log_likelihood_ : float
        Marginal log-likelihood of the training responses at the estimate.
    n_parameters_ : int
        Number of free item parameters.
    n_observations_ : float
        Number of observed responses to the estimated items.
    aic_, bic_ : float
        Information criteria (BIC with the number of observed responses).
    n_iter_ : int
        E-steps run.
    quadrature_nodes_, quadrature_weights_ : ndarray of shape (n_nodes,)
        The quadrature grid (nodes of shape (n_nodes, m) with several
        factors).
    discrimination_, discrimination_se_ : ndarray of shape (n_items, m)
        With ``n_factors=m > 1``: the rotated loadings (slopes) and their
        standard errors (given the rotation).
    intercept_, intercept_se_ : ndarray of shape (n_items,)
        With several factors: the intercepts ``d_j`` and their standard errors.
    factor_corr_ : ndarray of shape (m, m)
        With several factors: the correlations of the rotated factors
        (the identity for varimax and None).
    rotation_matrix_ : ndarray of shape (m, m)
        With several factors: ``T``, the rotated factors are
        ``eta = T^T theta`` and the loadings ``a_j^T T^{-T}``.
    general_direction_ : ndarray of shape (m,)
        With several factors: the unit direction ``u`` of the general ability
        ``u . theta`` (the first principal axis of the unrotated loadings:
        the direction along which the items' logits vary most; it has a
        standard normal prior and does not depend on the rotation).
        ``abilities_`` and ``agent_scores_`` are its posterior means.
    factor_scores_, factor_scores_sd_ : ndarray of shape (n_agents, m)
        With several factors: posterior means and sds of the rotated factors.
    log_likelihood_trace_ : ndarray
        With several factors: the log-likelihood after each EM cycle
        (non-decreasing).
    n_features_in_ : int
        Number of items seen in fit.
    feature_names_in_ : ndarray of shape (n_items,)
        Item names, when the input had string names.

    See Also
    --------
    IRT2PL : The 2PL (and 1PL, Rasch) with MAP abilities, item fit and
        intervals.
    compare_models : Held-out log-likelihood of several models.

    References
    ----------
    Birnbaum, A. (1968). Some latent trait models. In Lord & Novick,
    Statistical Theories of Mental Test Scores.
    Barton, M. A. & Lord, F. M. (1981). An upper asymptote for the
    three-parameter logistic item-response model. ETS RR-81-20.
    Louis, T. A. (1982). Finding the observed information matrix when using
    the EM algorithm. JRSS B 44, 226-233.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.irt import IRT
    >>> X = make_irt_responses(300, 10, random_state=0)
    >>> model = IRT(model="3PL", n_options=4).fit(X)
    >>> model.task_table().columns[:4].tolist()
    ['discrimination', 'discrimination_se', 'difficulty', 'difficulty_se']
    >>> bool(0 < model.guessing_.min() < 0.5)
    True
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> graded = np.clip(np.round(1.5 + rng.normal(size=(200, 1))
    ...                           + rng.normal(size=(200, 6))), 0, 3)
    >>> grm = IRT(model="GRM").fit(graded)
    >>> grm.task_table().columns[2:4].tolist()
    ['threshold_1', 'threshold_1_se']
    >>> grm.predict_proba(graded).shape
    (200, 6, 4)
    """

    _model = "irt"  # the interval code reads abilities_sd_ and the item SEs
    _parameter_constraints: dict = {
        "model": [StrOptions({"1PL", "2PL", "3PL", "4PL", "GRM", "GPCM",
                              *CONTINUOUS_MODELS})],
        "n_factors": [Interval(Integral, 1, None, closed="left")],
        "n_options": [Interval(Integral, 2, None, closed="left"), None],
        "guessing_prior": [tuple, list, None],
        "upper_prior": [tuple, list, None],
        "discrimination_prior": [tuple, list, None],
        "quadrature": [StrOptions({"rectangular", "gauss-hermite", "sobol"})],
        "n_quadrature": [Interval(Integral, 2, None, closed="left"), None],
        "quadrature_bound": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "algorithm": [StrOptions({"auto", "dense", "sparse"})],
        "chunk_size": [Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": [Interval(Integral, None, -1, closed="right"),
                   Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "score_clip": [Interval(Real, 0, 0.5, closed="neither")],
        "rotation": [StrOptions({"oblimin", "varimax"}), None],
    }

    def __init__(self, model="2PL", *, n_factors=1, n_options=None,
                 guessing_prior=None, upper_prior=None, discrimination_prior=None,
                 quadrature="rectangular",
                 n_quadrature=None, quadrature_bound=6.0, max_iter=1000, tol=1e-7,
                 algorithm="auto", chunk_size=None, n_jobs=None, random_state=None,
                 score_clip=1e-3, rotation="oblimin"):
        self.model = model
        self.n_factors = n_factors
        self.n_options = n_options
        self.guessing_prior = guessing_prior
        self.upper_prior = upper_prior
        self.discrimination_prior = discrimination_prior
        self.quadrature = quadrature
        self.n_quadrature = n_quadrature
        self.quadrature_bound = quadrature_bound
        self.max_iter = max_iter
        self.tol = tol
        self.algorithm = algorithm
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.score_clip = score_clip
        self.rotation = rotation

    def _priors(self):
        """Priors on the discrimination and the asymptotes' logits, validated.

        Keys are the columns of the items' rows ``(a, d, gamma, upsilon)``.
        """
        guessing = logit_prior(self.guessing_prior, "guessing_prior")
        upper = logit_prior(self.upper_prior, "upper_prior")
        if guessing is None and self.n_options is not None:
            guessing = logit_prior((1.0 / self.n_options, _OPTIONS_PRIOR_SD),
                                   "n_options")
        if self.model not in ("3PL", "4PL") and (guessing or upper):
            raise ValueError(
                f"guessing_prior, upper_prior and n_options apply to the 3PL and "
                f"4PL; model={self.model!r} has no asymptotes to estimate."
            )
        if self.model == "3PL" and upper is not None:
            raise ValueError("upper_prior applies to the 4PL; the 3PL fixes u = 1.")
        if guessing is not None and upper is not None and guessing[0] >= upper[0]:
            source = ("n_options" if self.guessing_prior is None
                      else "guessing_prior")
            raise ValueError(
                f"The guessing prior's centre ({_expit(guessing[0]):.4g}, from "
                f"{source}) must lie below the upper prior's centre "
                f"({_expit(upper[0]):.4g}): the 4PL's curve rises from g to u."
            )
        slope = _check_prior(self.discrimination_prior, "discrimination_prior")
        if slope is not None and (self.model not in ("2PL", "3PL", "4PL")
                                  or self.n_factors != 1):
            raise ValueError(
                "discrimination_prior applies to the one-factor 2PL, 3PL and "
                f"4PL; got model={self.model!r} with n_factors={self.n_factors}."
            )
        return {key: value for key, value in ((0, slope), (2, guessing), (3, upper))
                if value is not None}

    def _start(self, priors):
        """Starting asymptotes: the priors' centres, else g = 0.1, u = 0.95;
        a default start on the wrong side of a prior's centre is moved half
        way from that centre to its bound (``g < u`` at the start)."""
        g = _expit(priors[2][0]) if 2 in priors else None
        u = _expit(priors[3][0]) if 3 in priors else None
        if g is None:
            g = 0.1 if u is None or u > 0.1 else u / 2.0
        if u is None:
            u = 0.95 if g < 0.95 else (1.0 + g) / 2.0
        return g, u

    def fit(self, X, y=None):
        """Estimate item parameters and the training agents' abilities.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items)
            Responses in {0, 1} (ordered categories 0, 1, 2, ... for the
            GRM and GPCM); NaN (or an absent sparse entry) is missing. A
            Dask array or Dask DataFrame long table (agent, item, score) is
            fitted on its cluster, for every model (user guide, "More data
            than one machine").
        y : None
            Ignored.

        Returns
        -------
        self : IRT
            The fitted estimator.
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        if is_dask_collection(X):
            check_dask_model(self)
        priors = self._priors()  # every model: priors it has no use for are refused
        if self._is_continuous():
            return self._check_continuous_fit(X)
        self._check_multifactor_params()
        if self.model in GRADED_MODELS and is_dask_collection(X):
            return X, priors, dask_graded_fit_data(X, self.model)
        if self.model in GRADED_MODELS:
            return X, priors, check_graded_fit(X, self.model)
        if is_dask_collection(X):  # coded and kept on the workers
            return X, priors, dask_fit_data(X, name="IRT")
        return X, priors, _check_fit_responses(
            X, name=f"IRT(model={self.model!r})", remedy=EMPTY_REMEDY)

    def _solve(self, checked):
        if self._is_continuous():
            return self._solve_continuous(checked)
        settings = _EMSettings(max_iter=self.max_iter, tol=self.tol)
        if self.model in GRADED_MODELS and self.n_factors > 1:
            rng = check_random_state(self.random_state)
            if is_dask_collection(checked[0]):  # coded and kept on the workers
                return fit_graded_factors_dask(
                    checked[2], model=self.model, n_factors=self.n_factors,
                    rotation=self.rotation, grid=self._factor_grid_for_fit(rng),
                    settings=settings, chunk_size=self.chunk_size)
            with self._executor() as parallel:
                fitted = fit_graded_factors(
                    checked[2], model=self.model, n_factors=self.n_factors,
                    rotation=self.rotation, grid=self._factor_grid_for_fit(rng),
                    settings=settings, chunk_size=self.chunk_size,
                    parallel=parallel, rng=rng)
            return {**_input_features(checked[0], fitted["tasks_"]), **fitted}
        if self.model in GRADED_MODELS:
            grid = self._grid()
            if self.n_quadrature is None and self.quadrature == "rectangular":
                grid = None  # chosen from the data: see fit_graded
            if is_dask_collection(checked[0]):  # coded and kept on the workers
                return fit_graded_dask(checked[2], model=self.model, grid=grid,
                                       settings=settings, chunk_size=self.chunk_size,
                                       bound=self.quadrature_bound)
            with self._executor() as parallel:
                fitted = fit_graded(checked[2], model=self.model, grid=grid,
                                    settings=settings, chunk_size=self.chunk_size,
                                    parallel=parallel, bound=self.quadrature_bound)
            return {**_input_features(checked[0], fitted["tasks_"]), **fitted}
        X, priors, (values, labels, summary, agents) = checked
        if self.n_factors > 1:
            rng = check_random_state(self.random_state)
            with self._executor() as parallel:
                fitted = fit_multidim(
                    values, labels, summary, n_factors=self.n_factors,
                    rotation=self.rotation, grid=self._factor_grid_for_fit(rng),
                    max_iter=self.max_iter, tol=self.tol, chunk_size=self.chunk_size,
                    parallel=parallel, rng=rng, algorithm=self.algorithm)
            fitted["agents_"] = agents
            return {**_input_features(X, labels), **fitted}
        with self._executor() as parallel:
            fitted = _fit_irt(
                values, labels, summary, model=self.model, priors=priors,
                start=self._start(priors), grid=self._grid(),
                coarse_final=self._coarse_final(), settings=settings,
                chunk_size=self.chunk_size, parallel=parallel,
                rng=check_random_state(self.random_state), algorithm=self.algorithm,
            )
        fitted["agents_"] = agents
        return {**_input_features(X, labels), **fitted}

    # ------------------------------------------------------------ helpers
    def _grid(self):
        n_nodes = self.n_quadrature or _DEFAULT_NODES[self.quadrature]
        return estimator_grid(self.quadrature, n_nodes, self.quadrature_bound)

    def _coarse_final(self):
        """Whether the 3PL/4PL fit may end on its 61-node coarse grid.

        With the default rectangular grid only (:func:`._coarse.accept_coarse`);
        the 1PL and 2PL keep :class:`IRT2PL`'s grid.
        """
        return (self.n_quadrature is None and self.quadrature == "rectangular"
                and self.model in ("3PL", "4PL"))

    def _fitted_grid(self):
        """The grid a binary model was fitted on (its nodes are stored)."""
        return make_grid(self.quadrature, len(self.quadrature_nodes_),
                         self.quadrature_bound)

    def _executor(self):
        return _executor(self.n_jobs)

    def _validate_new(self, X):
        check_is_fitted(self, "_item_params")
        if is_dask_collection(X):  # coded and kept on the workers
            check_dask_model(self)
            return dask_input(X, self)
        if self.model in GRADED_MODELS:
            _check_input_features(self, X, None)
            return X
        if self._is_continuous():
            return self._continuous_values(X)
        values, _, tasks = _check_responses(X)
        _check_input_features(self, X, tasks)
        return values

    def _grid_tables(self):
        """The fitted grid (1-D for the stores) and the items' log tables."""
        if self._is_multifactor():
            return self._multifactor_tables()
        grid = self._fitted_grid()
        return (grid, *log_tables(self._item_params, grid.nodes))

    def _pass(self, values, *, moments=True):
        """Posterior moments and per-agent log-likelihood of new responses."""
        if self.model in GRADED_MODELS and hasattr(values, "fit_with"):
            return graded_dask_pass(self, values, moments=moments)
        if self.model in GRADED_MODELS:
            return graded_pass(self, values, moments=moments)
        if self._is_continuous():
            return self._continuous_pass(values, moments=moments)
        grid, log_p, log_q = self._grid_tables()
        with self._executor() as parallel:
            data = _make_storage(values, self._keep, algorithm=self.algorithm,
                                 chunk_size=self.chunk_size, parallel=parallel)
            out = data.e_step_tables(log_p, log_q, grid, counts=False,
                                     moments=moments)
            out["n_observed"] = data.n_observed()
        return out

    # ------------------------------------------------------------ results
    _fitted_marker = "_item_params"

    def _ability_estimates_of(self, X):
        """``transform``'s columns: posterior means and sds (EAP).

        With ``m > 1`` factors, the general ability and its sd, then
        ``factor_f``, ``factor_f_sd`` for every rotated factor.
        """
        if self._is_multifactor():
            values = self._validate_new(X)
            if self.model in GRADED_MODELS and hasattr(values, "fit_with"):
                # Dask input: a Dask array, rows on the workers
                return tuple(self._graded_factor_scores(
                    graded_dask_store(self, values)).T)
            transform = (self._graded_factor_transform if self.model in
                         GRADED_MODELS else self._multifactor_transform)
            return tuple(transform(values).T)
        out = self._pass(self._validate_new(X))
        return out["mean"], out["sd"]

    def _ability_output_names(self):
        if self._is_multifactor():
            return self._multifactor_names()
        return ["ability", "ability_sd"]

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Probability of success on every item for the agents in ``X``.

        The posterior predictive ``E[P_j(theta_i) | responses of agent i in
        X]``: for an item the agent has not answered it is the model's
        prediction of that response. Items left out in ``fit`` get their
        training success rate (0 or 1; NaN for an item never observed).

        For the GRM and GPCM the result has shape ``(n_agents, n_items,
        K_max)``: the probability of every category code (axis 2), NaN past
        an item's largest code, 0 for a collapsed code; an item left out
        puts probability 1 on its one category.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items)
            Responses to the fitted items (NaN or absent: missing).

        Returns
        -------
        proba : ndarray of shape (n_agents, n_items) or (n_agents, n_items, K_max)
            A Dask array (rows on the workers) for Dask input.
        """
        values = self._validate_new(X)
        if self.model in GRADED_MODELS and hasattr(values, "fit_with"):
            return graded_dask_proba(self, values)  # rows stay on the workers
        if self.model in GRADED_MODELS:
            return graded_predict_proba(self, values)
        grid, log_p, log_q = self._grid_tables()
        keep, fill = self._keep, self._success_rate_items
        if hasattr(values, "fit_with"):  # Dask input: rows stay on the workers
            return values.store(keep, algorithm="dense",
                                chunk_size=self.chunk_size).map_rows(
                posterior_predictive, log_p, log_q, grid, keep, fill,
                n_columns=keep.size)
        with self._executor() as parallel:
            data = _make_storage(values, keep, algorithm="dense",
                                 chunk_size=self.chunk_size, parallel=parallel)
            return posterior_predictive(data, log_p, log_q, grid, keep, fill)

    def score(self, X, y=None):
        """Mean marginal log-likelihood per observed response of ``X``.

        Responses to items left out in fit are not counted.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items)
            Responses to the fitted items.
        y : None
            Ignored.

        Returns
        -------
        score : float

        Raises
        ------
        ValueError
            If ``X`` has no observed response to a fitted item (the mean is
            then undefined).
        """
        out = self._pass(self._validate_new(X), moments=False)
        n_obs = float(out["n_observed"].sum())
        if not n_obs:
            raise ValueError(
                "X has no observed response to an item of the fit: the mean "
                "log-likelihood per response is undefined.")
        return float(out["loglik"]) / n_obs

    def information_criteria(self):
        """Log-likelihood, number of parameters, AIC and BIC of the fit.

        Returns
        -------
        criteria : dict
            ``log_likelihood``, ``n_parameters``, ``n_observations``, ``aic``,
            ``bic``.
        """
        check_is_fitted(self, "_item_params")
        return {"log_likelihood": self.log_likelihood_,
                "n_parameters": self.n_parameters_,
                "n_observations": self.n_observations_,
                "aic": float(self.aic_), "bic": float(self.bic_)}

    def _agent_columns(self):
        if self.model in GRADED_MODELS and self._is_multifactor():
            return self._graded_factor_agent_columns()
        if self.model in GRADED_MODELS:
            return {"mean_category": self._agent_success_rate}
        if self._is_continuous():
            return {"mean_score": self._agent_success_rate}
        if self._is_multifactor():
            return self._multifactor_agent_columns()
        return {"success_rate": self._agent_success_rate}

    def _agent_score_se(self):
        return self.abilities_sd_

    def _task_columns(self):
        if self.model in GRADED_MODELS and self._is_multifactor():
            return self._graded_factor_task_columns()
        if self.model in GRADED_MODELS:
            return graded_task_columns(self)
        if self._is_continuous():
            return self._continuous_task_columns()
        if self._is_multifactor():
            return self._multifactor_task_columns()
        columns = {
            "discrimination": self.discrimination_,
            "discrimination_se": self.discrimination_se_,
            "difficulty": self.difficulty_,
            "difficulty_se": self.difficulty_se_,
        }
        if self.model in ("3PL", "4PL"):
            columns.update(guessing=self.guessing_, guessing_se=self.guessing_se_)
        if self.model == "4PL":
            columns.update(upper=self.upper_, upper_se=self.upper_se_)
        columns.update(success_rate=self._success_rate_items, left_out=~self._keep)
        return columns

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        As for :class:`IRT2PL`: abilities by default, with posterior
        intervals (EAP and posterior sd) under ``method="auto"``; item
        parameters (``"difficulty"``, ``"discrimination"``) with
        observed-information intervals; the bootstrap resamples tasks
        (abilities) or agents (items).

        Parameters
        ----------
        target : {"abilities", "difficulty", "discrimination"} or None
            What is ranked; None ranks the abilities.

        Returns
        -------
        plan : IntervalPlan
        """
        self._check_multifactor_target(target)
        return irt_interval_plan(self, target)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags
