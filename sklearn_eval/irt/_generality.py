"""GeneralityScorer: ability, generality and response curves against difficulty.

Two papers, two notions of generality, kept apart by name (see the user guide
page "Generality", ``docs/user_guide/generality.rst``):

* ``generality`` is the gamma of Martinez-Plumed & Hernandez-Orallo (2018),
  "Dual Indicators to Analyse AI Benchmarks": one over the sum, across
  difficulty bins, of the within-bin (population) variance of the agent's
  responses. Together with ``regularity`` (one over the variance over all
  tasks) and the ``slope`` proxy of the paper's Fig. 9.
* ``capability``, ``spread``, ``spread_generality`` and
  ``normalized_generality`` come from the agent response curve (ARC) of
  Hernandez-Orallo's C-test note (2014) as developed in his later work
  (Sci. Rep. 2021; R code ``jorallo/generality``): the ARC padded with 1 below
  the easiest bin and 0 above the hardest is read as a survival function whose
  mean is the capability and whose standard deviation is the spread.

The curve and indicator computations are the pure functions of
:mod:`._curves`; the C-test helpers are in :mod:`._ctest`.
"""

import numbers

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

from ..base import AgentRankerMixin, FitTemplateMixin, TaskTableMixin
from ..utils import check_in_bounds, check_result_matrix
from ..utils._protocol import column_labels
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _get_feature_names,
)
from ..utils._sparse import check_sparse_result, is_sparse_input, observed_mask
from ._binning import (
    assign_right_closed,
    bin_medians,
    make_difficulty_bins,
    merge_small_bins,
    quantile_edges,
    warn_about_bins,
)
from ._curves import (
    FEATURE_NAMES,
    _bin_moments,
    _fill_empty_bins,
    _indicator_matrix,
)
from ._difficulty import (
    _check_weights,
    _like,
    _task_difficulties,
    as_codes,
    score_codes,
)
from ._intervals import generality_interval_plan
from ._responses import (
    _agent_labels,
    _check_input_features,
    _input_features,
    _unpack,
)

__all__ = ["FEATURE_NAMES", "GeneralityScorer"]


class GeneralityScorer(
    AgentRankerMixin, TaskTableMixin, TransformerMixin, FitTemplateMixin, BaseEstimator
):
    """Per-agent ability, generality and response curves against task difficulty.

    Fit learns the tasks' difficulties and bins them; ``transform`` maps each
    agent (row) to indicators computed from its responses per difficulty bin.
    Two notions of generality are reported under different names:

    - ``generality``: gamma of Martinez-Plumed & Hernandez-Orallo (2018),
      ``1 / sum_h sigma_h^2`` where ``sigma_h^2`` is the population variance of
      the agent's responses among the tasks of bin ``h`` (``dispersion="std"``
      uses ``1 / sum_h sigma_h``). Infinite for a perfect step whose edge lies
      on a bin boundary (and for all-0 / all-1 agents).
    - ``spread_generality``: ``1 / spread`` of the agent response curve (ARC),
      with ``capability`` and ``spread`` the mean and standard deviation of
      the density ``-d psi / dh`` of the ARC padded with 1 below the easiest
      bin and 0 above the hardest (Hernandez-Orallo's later work).

    Parameters
    ----------
    difficulty : {"irt", "rate"}, array-like of shape (n_tasks,) or estimator, \
            default="irt"
        Where task difficulties come from (higher = harder).

        - ``"irt"``: fit :class:`~sklearn_eval.irt.IRT2PL` (default settings)
          on the binary responses and use its ``difficulty_``.
        - an item response estimator (IRT2PL, IRT of any one-ability
          ``model``: its ``difficulty_``; for graded and continuous models,
          and without ``difficulty_``, the ability at which the expected item
          score is halfway up its range, 0.5): cloned and fitted on the
          responses (a GRM or GPCM on the category codes, each then scored as
          code / the item's largest code); wrap a fitted one in
          :class:`sklearn.frozen.FrozenEstimator` to use it as is.
        - ``"rate"``: ``1 -`` the population success rate of each task (mean
          response over the agents observed on it).
        - an array: given difficulties, one finite value per task. A pandas
          Series is aligned on the column names of a DataFrame ``X``.
    bins : int, "unique" or array-like of edges, default=10
        - int: at most this many equal-frequency (quantile) bins on the
          difficulties, from the easiest to the hardest task; cuts fall
          half-way between distinct difficulties (tied tasks share a bin) and
          adjacent bins are merged until each holds at least
          ``min_tasks_per_bin`` tasks. Equal-width bins would collapse on IRT
          scales, where a few items reach difficulties far from the rest
          (GVGAI runs from -30 to 85).
        - array of strictly increasing finite edges: right-closed intervals
          ``(e_k, e_{k+1}]`` as R's ``cut`` (the paper's cut points, e.g.
          ``[-11, -1, 0, 1, 10]`` on ALE). Tasks outside are left out of the
          binned indicators, with a warning.
        - ``"unique"``: one bin per distinct difficulty (C-test levels), with
          edges half-way between consecutive values.
    min_tasks_per_bin : int, default=5
        Minimum number of tasks per quantile bin. Explicit edges and
        ``"unique"`` bins are kept as given, with a warning when a non-empty
        bin holds fewer tasks (unstable variances).
    threshold : float, default=None
        If given, a result counts as a success when ``X >= threshold`` and
        the indicators use these 0/1 responses; ``X`` may then hold any
        finite scores (e.g. 100 on human-normalised Atari scores). If None,
        ``X`` must lie in ``[0, 1]`` (binary successes or continuous scores).
    exclude_negative_discrimination : bool, default=True
        With an IRT difficulty, leave items whose discrimination is negative
        out of the bins (as the paper does: their ``b`` is not a difficulty).
        Items with no finite difficulty (constant items dropped by the IRT
        model) are always left out.
    task_weights : array-like of shape (n_tasks,), default=None
        Non-negative task weights ``p_j`` (uniform if None). Within a bin the
        response curve is the ``p``-weighted mean; ``mean_score`` is the
        ``p``-weighted mean over all tasks.
    dispersion : {"var", "std"}, default="var"
        ``generality = 1 / sum_h sigma_h^2`` ("var", the paper's rebuilt eq. 3;
        with one bin it equals ``regularity``) or ``1 / sum_h sigma_h``.
    empty_bins : {"interpolate", "nan"}, default="interpolate"
        Response-curve value of a bin with no observed task for an agent (an
        empty bin, or missing results): linear interpolation over the bin
        index between the nearest observed bins, with 1 before the first and
        0 after the last observed bin (the ARC's optimistic padding); or NaN,
        which then propagates to ``capability``, ``spread``,
        ``spread_generality``, ``normalized_generality`` and ``ctest_score``.
        ``generality`` and ``slope`` use only observed bins either way. An
        agent with no observed task in any bin (all its results are on tasks
        left out of the bins) has a NaN curve in both modes.
    integration : {"step", "trapezoid"}, default="step"
        How the ARC is integrated. "step": piecewise constant on the bins over
        ``[bin_edges_[0], bin_edges_[-1]]`` (exact for the C-test's unit bins;
        a step at a bin edge has spread exactly 0). "trapezoid": piecewise
        linear through ``(bin point, psi)`` over ``[first point, last point]``
        as the reference R code, where a bin's point is the median difficulty
        of its tasks (the bin centre for an empty bin); with a single bin it
        falls back to "step".
    ctest_exponent : float, default=1.0
        Exponent ``e`` of the C-test aggregate. The ``ctest_score`` column is
        the normalised eq. 1, ``sum_b b**e psi_b / sum_b b**e`` with
        ``b = 1..n_bins`` the bin index (in ``[0, 1]``); the raw eq. 1 is
        :func:`~sklearn_eval.irt.ctest_score`.
    max_generality : float, default=None
        If given, cap ``generality``, ``regularity`` and ``spread_generality``
        at this value (they are ``np.inf`` for zero dispersion otherwise).

    Attributes
    ----------
    difficulty_ : ndarray of shape (n_tasks,)
        Difficulty of every task (NaN where the IRT model has none).
    task_bin_ : ndarray of shape (n_tasks,), int64
        Bin of every task; -1 for tasks left out of the bins.
    excluded_tasks_ : ndarray
        Tasks left out of the bins (labels if ``X`` had column names, else
        indices): negative discrimination, no difficulty, or outside edges.
    bin_edges_ : ndarray of shape (n_bins + 1,)
        Bin edges (right-closed intervals).
    bin_counts_ : ndarray of shape (n_bins,)
        Number of tasks per bin.
    bin_medians_ : ndarray of shape (n_bins,)
        Median difficulty per bin (NaN for empty bins); the x coordinate of
        the empirical agent characteristic curve and of ``slope``.
    bin_centers_ : ndarray of shape (n_bins,)
        Midpoints of the bins.
    bin_weights_ : ndarray of shape (n_bins,)
        Share of the (binned) task weight in each bin; with all tasks binned
        and complete data, ``response_curves(X) @ bin_weights_ == mean_score``
        (Prop. 1 of the C-test note).
    task_weights_ : ndarray of shape (n_tasks,)
        The task weights used (ones when ``task_weights`` is None).
    difficulty_model_ : estimator or None
        The fitted IRT model when the difficulty came from one.
    agents_ : ndarray of shape (n_agents,)
        Labels of the training agents: the index of a DataFrame ``X``, else
        ``0..n_agents-1``.
    agent_scores_ : ndarray of shape (n_agents,)
        What the training agents are ranked by (higher = better): their
        ``capability``, the mean of the agent response curve on the difficulty
        scale (the ``capability`` column of ``transform``). Capability
        integrates the curve over difficulty, so each difficulty level counts
        by its width rather than by how many tasks of that level the
        benchmark happens to hold (``mean_score`` does the latter), and a
        solved hard task counts for more than a solved easy one. NaN for an
        agent without an observed binned task (and, with
        ``empty_bins="nan"``, with any empty bin). See :meth:`agent_table`.
    tasks_ : ndarray of shape (n_tasks,)
        Labels of the tasks: the columns of a DataFrame ``X``, else
        ``0..n_tasks-1``. See :meth:`task_table`.
    n_features_in_ : int
        Number of tasks seen in fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Task names, when ``X`` had string column names.

    See Also
    --------
    sklearn_eval.irt.IRT2PL : the 2PL model that estimates task difficulties.

    Notes
    -----
    ``regularity`` is ``1 / sigma^2`` with ``sigma^2`` the population variance
    of the agent's responses over all tasks (paper eq. 2); for binary
    responses it is a function of the mean alone. ``slope`` is the paper's
    Fig. 9 proxy: the slope of the empirical agent characteristic curve
    (success rate per bin against the bins' median difficulty) at its first
    drop from above 0.5 to below 0.5, NaN when it never drops through 0.5.
    ``normalized_generality`` is ``1 - spread^2 / (A (W - A))`` with ``A`` the
    ARC's area and ``W`` the difficulty range: 1 for a decreasing step, 0 for a
    flat curve, -1 for an increasing step; 0 by convention when
    ``A (W - A) = 0`` (all-0 and all-1 agents). All indicators depend on the
    population of agents and tasks (IRT difficulties are populational) and on
    the bins: never compare values computed with different bins.

    References
    ----------
    F. Martinez-Plumed and J. Hernandez-Orallo, "Dual Indicators to Analyse AI
    Benchmarks: Difficulty, Discrimination, Ability and Generality", IEEE
    Transactions on Games, 2018 (arXiv:1811.08186).

    J. Hernandez-Orallo, "A note about the generalisation of the C-tests",
    arXiv:1412.8529, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.irt import GeneralityScorer
    >>> difficulty = np.repeat([1.0, 2.0, 3.0, 4.0], 5)
    >>> step = np.repeat([1.0, 1.0, 0.0, 0.0], 5)   # solves levels 1-2 only
    >>> specialist = np.array([1, 1, 1, 0, 0] * 3 + [1, 0, 0, 0, 0], float)
    >>> X = np.vstack([step, specialist])
    >>> scorer = GeneralityScorer(difficulty=difficulty, bins="unique").fit(X)
    >>> out = scorer.transform(X)
    >>> names = list(scorer.get_feature_names_out())
    >>> out[:, names.index("generality")].round(5).tolist()
    [inf, 1.13636]
    >>> out[:, names.index("regularity")].tolist()
    [4.0, 4.0]
    >>> scorer.response_curves(X)[1].tolist()
    [0.6, 0.6, 0.6, 0.2]

    The agents ranked by capability, and the tasks with their bins:

    >>> table = scorer.agent_table()
    >>> table["score"].tolist(), table["rank"].tolist()  # equal capability
    ([2.5, 2.5], [1, 1])
    >>> table["generality"].round(5).tolist()
    [inf, 1.13636]
    >>> scorer.task_table()["bin_interval"].iloc[[0, 5]].tolist()
    ['(0.5, 1.5]', '(1.5, 2.5]']
    """

    _parameter_constraints: dict = {
        "difficulty": [
            StrOptions({"irt", "rate"}),
            "array-like",
            HasMethods(["fit"]),
        ],
        "bins": [
            Interval(numbers.Integral, 1, None, closed="left"),
            StrOptions({"unique"}),
            "array-like",
        ],
        "min_tasks_per_bin": [Interval(numbers.Integral, 1, None, closed="left")],
        "threshold": [numbers.Real, None],
        "exclude_negative_discrimination": ["boolean"],
        "task_weights": ["array-like", None],
        "dispersion": [StrOptions({"var", "std"})],
        "empty_bins": [StrOptions({"interpolate", "nan"})],
        "integration": [StrOptions({"step", "trapezoid"})],
        "ctest_exponent": [Interval(numbers.Real, 0, None, closed="left")],
        "max_generality": [Interval(numbers.Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        difficulty="irt",
        *,
        bins=10,
        min_tasks_per_bin=5,
        threshold=None,
        exclude_negative_discrimination=True,
        task_weights=None,
        dispersion="var",
        empty_bins="interpolate",
        integration="step",
        ctest_exponent=1.0,
        max_generality=None,
    ):
        self.difficulty = difficulty
        self.bins = bins
        self.min_tasks_per_bin = min_tasks_per_bin
        self.threshold = threshold
        self.exclude_negative_discrimination = exclude_negative_discrimination
        self.task_weights = task_weights
        self.dispersion = dispersion
        self.empty_bins = empty_bins
        self.integration = integration
        self.ctest_exponent = ctest_exponent
        self.max_generality = max_generality

    # ------------------------------------------------------------------ fit
    _prefer_skip_nested_validation = False

    def fit(self, X, y=None):
        """Learn task difficulties and the difficulty bins.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results of agents (rows) on tasks (columns): 0/1 successes or
            scores in [0, 1] (any finite scores with ``threshold``). NaN marks
            a missing result.
        y : None
            Ignored.

        Returns
        -------
        self : GeneralityScorer
            The fitted scorer.
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        responses, _, tasks, top = self._responses(X)
        _get_feature_names(X)  # rejects mixed column-name types before fitting
        weights = _check_weights(self.task_weights, responses.shape[1])
        return X, responses, tasks, weights, self._check_bins_param(), top

    def _solve(self, checked):
        X, responses, tasks, weights, edges, top = checked
        difficulty, eligible, model = _task_difficulties(
            self.difficulty,
            X,
            responses,
            tasks,
            exclude_negative_discrimination=self.exclude_negative_discrimination,
        )
        bins = make_difficulty_bins(difficulty, eligible, edges, self.min_tasks_per_bin)
        warn_about_bins(bins, self.bins, self.min_tasks_per_bin)
        binned = bins.task_bin >= 0
        bin_mass = np.bincount(
            bins.task_bin[binned], weights=weights[binned], minlength=bins.counts.size
        )
        if not bin_mass.sum() > 0:
            raise ValueError("task_weights are zero for every binned task.")
        centers = (bins.edges[:-1] + bins.edges[1:]) / 2.0
        raw_curve, bin_variance = _bin_moments(
            responses, weights, bins.task_bin, bins.counts.size
        )
        indicators = _indicator_matrix(
            responses,
            raw_curve,
            bin_variance,
            **self._indicator_options(weights, bins.edges, bins.medians, centers),
        )
        excluded = np.flatnonzero(~binned)
        fitted = {
            "difficulty_": difficulty,
            "task_bin_": bins.task_bin,
            "excluded_tasks_": excluded if tasks is None else tasks[excluded],
            "bin_edges_": bins.edges,
            "bin_counts_": bins.counts,
            "bin_medians_": bins.medians,
            "bin_centers_": centers,
            "bin_weights_": bin_mass / bin_mass.sum(),
            "difficulty_model_": model,
            "task_weights_": weights,
            "agents_": _agent_labels(X, responses.shape[0]),
            "agent_scores_": indicators[:, FEATURE_NAMES.index("capability")],
            "tasks_": (column_labels(X, responses.shape[1]) if tasks is None
                       else np.asarray(tasks)),
            "_agent_indicators": indicators,
            "_task_success_rate": _column_means(responses),
            "_code_top": top,  # graded: each item's largest code in fit
        }
        return {**_input_features(X, tasks), **fitted}

    def _check_bins_param(self):
        """Validate explicit edges (ints and "unique" pass through)."""
        if isinstance(self.bins, str) or np.ndim(self.bins) == 0:
            return self.bins
        edges = np.asarray(self.bins, dtype=np.float64)
        if edges.ndim != 1 or edges.size < 2:
            raise ValueError(
                "bins given as edges must be a 1-D array of at least 2 values; "
                f"got shape {edges.shape}."
            )
        if not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
            raise ValueError(
                f"bin edges must be finite and strictly increasing; got {edges}."
            )
        return edges

    def _responses(self, X, top=None):
        """Validate ``X``: ``(responses, agents, tasks, top)`` for every indicator.

        Dense input gives a float64 array (NaN = missing); sparse input (or a
        ``ResultMatrix`` holding one) a CSR of the observed results only. A
        graded source's codes become scores on [0, 1] by each item's largest
        code: ``top`` (learned in fit), from ``X`` itself when None.
        """
        inner, agents, tasks = _unpack(X)
        inner, top = score_codes(self.difficulty, inner, top)
        if is_sparse_input(inner):
            return self._sparse_responses(inner), agents, tasks, top
        values, frame_agents, frame_tasks = check_result_matrix(inner, allow_nan=True)
        agents = frame_agents if agents is None else agents
        tasks = frame_tasks if tasks is None else tasks
        if self.threshold is not None:
            if not np.isfinite(self.threshold):
                raise ValueError(f"threshold must be finite; got {self.threshold}.")
            success = (values >= self.threshold).astype(np.float64)
            responses = np.where(np.isnan(values), np.nan, success)
        else:
            try:
                responses = check_in_bounds(values, 0.0, 1.0)
            except ValueError as error:
                raise ValueError(
                    f"{error} GeneralityScorer needs results in [0, 1] (binary "
                    "successes or normalised scores); pass threshold= to turn "
                    "other scores into successes."
                ) from None
        _check_no_empty_row(np.all(np.isnan(responses), axis=1), agents)
        return responses, agents, tasks, top

    def _sparse_responses(self, X):
        """Observed results of sparse ``X`` as a CSR (NaN entries dropped)."""
        csr = check_sparse_result(X, binary=False)
        seen = observed_mask(csr)
        data = csr.data[seen].astype(np.float64)
        if self.threshold is not None:
            if not np.isfinite(self.threshold):
                raise ValueError(f"threshold must be finite; got {self.threshold}.")
            data = (data >= self.threshold).astype(np.float64)
        elif data.size and not (data.min() >= 0.0 and data.max() <= 1.0):
            position = int(np.flatnonzero(~((data >= 0) & (data <= 1)))[0])
            raise ValueError(
                f"X has {float(data[position])!r} outside [0, 1]. GeneralityScorer "
                "needs results in [0, 1] (binary successes or normalised "
                "scores); pass threshold= to turn other scores into successes."
            )
        indptr = np.concatenate([[0], np.cumsum(seen)])[csr.indptr]
        responses = sparse.csr_array((data, csr.indices[seen], indptr),
                                     shape=csr.shape)
        _check_no_empty_row(np.diff(indptr) == 0, None, stored=True)
        return responses

    # ------------------------------------------------------------ transform
    def _check_transform_input(self, X):
        """Validate ``X`` against the fitted tasks and return responses."""
        check_is_fitted(self, "bin_edges_")
        responses, agents, tasks, _ = self._responses(X, getattr(self, "_code_top",
                                                                 None))
        _check_input_features(self, X, tasks)
        return responses, agents

    def _curves(self, responses):
        """Raw per-bin means (NaN where unobserved) and variances."""
        return _bin_moments(
            responses, self.task_weights_, self.task_bin_, self.bin_counts_.size
        )

    def _indicator_options(self, task_weights, edges, medians, centers):
        """Keyword arguments of :func:`_indicator_matrix` for these bins."""
        return {
            "task_weights": task_weights,
            "bin_edges": edges,
            "bin_medians": medians,
            "bin_centers": centers,
            "empty_bins": self.empty_bins,
            "dispersion": self.dispersion,
            "integration": self.integration,
            "ctest_exponent": self.ctest_exponent,
            "max_generality": self.max_generality,
        }

    def transform(self, X):
        """Compute the per-agent indicators against the fitted bins.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results on the tasks seen in fit (same validation as ``fit``).

        Returns
        -------
        indicators : ndarray of shape (n_agents, 9)
            Columns named by :meth:`get_feature_names_out`: generality,
            regularity, slope, capability, spread, spread_generality,
            normalized_generality, mean_score, ctest_score.
        """
        responses, _ = self._check_transform_input(X)
        return self._indicators(responses)

    def _indicators(self, responses):
        """The indicator matrix of validated responses (see ``transform``)."""
        raw_curve, bin_variance = self._curves(responses)
        options = self._indicator_options(
            self.task_weights_, self.bin_edges_, self.bin_medians_, self.bin_centers_
        )
        return _indicator_matrix(responses, raw_curve, bin_variance, **options)

    def get_feature_names_out(self, input_features=None):
        """Names of the indicator columns returned by ``transform``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Ignored (the output columns do not depend on the tasks).

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        check_is_fitted(self, "bin_edges_")
        return np.asarray(FEATURE_NAMES, dtype=object)

    # ------------------------------------------------------------- curves
    def response_curves(self, X, *, return_variance=False):
        """Each agent's success rate per difficulty bin (the empirical ACC).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results on the tasks seen in fit.
        return_variance : bool, default=False
            Also return the within-bin variances.

        Returns
        -------
        curves : ndarray of shape (n_agents, n_bins) or DataFrame
            Weighted mean response of each agent over the tasks of each bin
            (bins ordered by difficulty; x coordinates in ``bin_medians_`` or
            ``bin_centers_``). Bins without an observed task follow
            ``empty_bins``. A DataFrame (agents x bin intervals) when ``X``
            is a DataFrame.
        variance : ndarray of shape (n_agents, n_bins) or DataFrame
            Only with ``return_variance=True``: the weighted population
            variance of each agent's responses within each bin (the
            ``sigma_h^2`` of ``generality``), NaN where the agent has no
            observed task in the bin (never filled).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_eval.irt import GeneralityScorer
        >>> X = np.array([[1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]])
        >>> scorer = GeneralityScorer(difficulty=[1, 1, 2, 2], bins="unique",
        ...                           min_tasks_per_bin=1).fit(X)
        >>> curves, variance = scorer.response_curves(X, return_variance=True)
        >>> curves.tolist(), variance.tolist()
        ([[1.0, 0.5], [0.5, 0.5]], [[0.0, 0.25], [0.25, 0.25]])
        """
        responses, _ = self._check_transform_input(X)
        raw_curve, variance = self._curves(responses)
        curve = _fill_empty_bins(raw_curve, self.empty_bins)
        if hasattr(X, "iloc"):

            labels = self._bin_labels()
            curve = pd.DataFrame(curve, index=X.index, columns=labels)
            variance = pd.DataFrame(variance, index=X.index, columns=labels)
        return (curve, variance) if return_variance else curve

    def _bin_labels(self):
        """Interval labels of the bins, e.g. ``"(-1, 0]"``."""
        edges = [f"{edge:g}" for edge in self.bin_edges_]
        pairs = zip(edges[:-1], edges[1:], strict=True)
        return [f"({low}, {high}]" for low, high in pairs]

    def item_curves(self, X, abilities=None, *, bins=5):
        """Each task's empirical success rate against binned agent ability.

        The item characteristic data: agents are grouped by ability, and each
        task's mean response is computed within each group.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results on the tasks seen in fit.
        abilities : array-like of shape (n_agents,), default=None
            Agent abilities. If None: the IRT model's abilities for ``X``
            (``estimate_abilities``, else the first column of ``transform``)
            when the difficulties came from an IRT model, else
            the agents' ``capability`` (on the same scale as the difficulties).
        bins : int or array-like of edges, default=5
            An int gives equal-frequency ability groups (merged so that each
            holds at least one agent); edges give right-closed intervals.

        Returns
        -------
        result : Bunch
            ``success_rate`` (n_tasks, n_ability_bins), NaN where no agent of
            the group was observed on the task; ``counts`` (n_tasks,
            n_ability_bins) observed responses; ``ability_edges``;
            ``ability_medians`` (median ability per group); ``abilities``
            (n_agents,) and ``ability_bin`` (n_agents,), -1 outside edges.
        """
        responses, _ = self._check_transform_input(X)
        theta = self._abilities(X, responses, abilities)
        if np.ndim(bins) == 0:
            if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
                raise TypeError(f"bins must be an int or edges; got {bins!r}.")
            if bins < 1:
                raise ValueError(f"bins must be >= 1; got {bins}.")
            edges = merge_small_bins(theta, quantile_edges(theta, int(bins)), 1)
            group = assign_right_closed(theta, edges, include_lowest=True)
        else:
            edges = np.asarray(bins, dtype=np.float64)
            if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
                raise ValueError("bins edges must be 1-D and strictly increasing.")
            group = assign_right_closed(theta, edges)
        n_groups = edges.size - 1
        membership = np.zeros((responses.shape[0], n_groups))
        inside = group >= 0
        membership[np.flatnonzero(inside), group[inside]] = 1.0
        if sparse.issparse(responses):
            pattern = sparse.csr_array(
                (np.ones(responses.nnz), responses.indices, responses.indptr),
                shape=responses.shape)
            counts = np.asarray(pattern.T @ membership)
            successes = np.asarray(responses.T @ membership)
        else:
            observed = ~np.isnan(responses)
            counts = observed.T.astype(np.float64) @ membership
            successes = np.where(observed, responses, 0.0).T @ membership
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = successes / counts
        rate[counts == 0] = np.nan
        return Bunch(
            success_rate=rate,
            counts=counts.astype(np.int64),
            ability_edges=edges,
            ability_medians=bin_medians(theta, group, n_groups),
            abilities=theta,
            ability_bin=group,
        )

    def _abilities(self, X, responses, abilities):
        """Abilities for item curves: given, from the IRT model, or capability."""
        if abilities is not None:
            theta = np.asarray(abilities, dtype=np.float64).ravel()
            if theta.shape != (responses.shape[0],) or not np.all(np.isfinite(theta)):
                raise ValueError(
                    "abilities must hold one finite value per agent (row of X); "
                    f"got shape {np.shape(abilities)}."
                )
            return theta
        model = self.difficulty_model_
        top = getattr(self, "_code_top", None)
        if model is not None and hasattr(model, "estimate_abilities"):
            theta, _ = model.estimate_abilities(_like(X, responses))
            return np.asarray(theta, dtype=np.float64)
        if model is not None and hasattr(model, "transform"):
            theta = np.asarray(model.transform(as_codes(self.difficulty, X, responses,
                                                        top)), float)
            return theta if theta.ndim == 1 else theta[:, 0]
        return self._indicators(responses)[:, FEATURE_NAMES.index("capability")]

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Tasks are resampled with their given difficulties and weights, and
        any ``transform`` column can be ranked (``"capability"``, the
        column of ``agent_scores_``, by default).

        Parameters
        ----------
        target : str or None, default=None
            A column of ``get_feature_names_out()``.

        Returns
        -------
        plan : IntervalPlan
        """
        return generality_interval_plan(self, target, FEATURE_NAMES)

    # ------------------------------------------------------------- tables
    def agent_table(self):
        """The training agents ranked by capability, one row each.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``agents_`` (index name ``"agent"``), with ``score``
            (``agent_scores_``, the capability), ``rank`` (1 = most capable,
            ties share the best rank; float with NaN where the score is NaN),
            then every ``transform`` column of the training agents.
        """
        check_is_fitted(self, "agent_scores_")
        return super().agent_table()

    def _agent_columns(self):
        return dict(zip(FEATURE_NAMES, self._agent_indicators.T, strict=True))

    def task_table(self):
        """Difficulty and bin of every task, one row each.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``tasks_`` (index name ``"task"``), with
            ``difficulty``, ``bin`` (index of the bin, -1 when left out),
            ``bin_interval`` (its right-closed interval, missing when left
            out),
            ``weight`` (``task_weights_``), ``success_rate`` (mean response
            of the training agents observed on the task) and ``left_out``.
        """
        check_is_fitted(self, "task_bin_")
        return super().task_table()

    def _task_columns(self):
        labels = np.asarray(self._bin_labels() + [None], dtype=object)
        return {
            "difficulty": self.difficulty_,
            "bin": self.task_bin_,
            "bin_interval": labels[self.task_bin_],
            "weight": self.task_weights_,
            "success_rate": self._task_success_rate,
            "left_out": self.task_bin_ < 0,
        }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        # sparse X is accepted, but an absent entry is missing, not scikit-learn's
        # implicit 0: the tag stays False so no tool feeds zero-filled data
        tags.target_tags.required = False
        return tags


def _check_no_empty_row(empty_rows, agents, stored=False):
    if empty_rows.any():
        row = int(np.flatnonzero(empty_rows)[0])
        label = "" if agents is None else f" ({agents[row]!r})"
        # scikit-learn reads absent sparse entries as 0: say they are missing
        why = " (an absent entry of sparse X is a missing result)" if stored else ""
        raise ValueError(f"X row {row}{label} has no observed result{why}.")


def _column_means(responses):
    """Mean observed response of every task (NaN for a task never observed)."""
    if sparse.issparse(responses):
        totals = np.bincount(responses.indices, weights=responses.data,
                             minlength=responses.shape[1])
        counts = np.bincount(responses.indices, minlength=responses.shape[1])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
    observed = ~np.isnan(responses)
    counts = observed.sum(axis=0)
    totals = np.where(observed, responses, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
