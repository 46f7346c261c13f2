"""Estimate a model's full-benchmark accuracy from its responses to a few items.

:class:`SubsetScoreEstimator` calibrates an item response model on a
population of models (rows) x items (columns), chooses ``n_items`` items, and
predicts a new model's accuracy on the whole benchmark from its responses to
those items only (tinyBenchmarks, Polo et al. 2024; metabench, Kipnis et al.
2024). The choice of items and of the estimator can be left to an internal
cross-validation over the population (``"auto"``, the default).
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy.stats import norm
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.model_selection import KFold, check_cv
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..base import FitTemplateMixin
from ..irt import calibrate_irt
from ..utils import check_binary_values, check_empty_agents, check_result_matrix
from ..utils._protocol import deprecated_alias
from ..utils._sklearn_compat import HasMethods, Hidden, Interval, StrOptions
from ..utils._stack import find_stack_level
from ..utils._validation import accuracy_truth
from ._subset_io import build_from_items, task_frame
from ._subset_models import (
    ESTIMATORS,
    FittedEstimate,
    ItemBank,
    conformal_halfwidth,
    is_scored,
)
from ._subset_select import (
    SELECTIONS,
    select_anchor,
    select_information,
    select_predictive,
    select_random,
    select_stratified,
)

__all__ = ["SubsetScoreEstimator"]

# Candidates tried by the "auto" choices (measured in the user guide).
AUTO_SELECTIONS = ("stratified", "predictive")
# Posterior intervals are used when they covered at least this fraction of the
# held-out training models at the 95% level.
_POSTERIOR_MIN_COVERAGE = 0.9
_CHECK_LEVEL = 0.95
_FEW_MODELS = 10
def _validate_responses(X, name="X", *, binary=True):
    checked = check_result_matrix(X, allow_nan=True, name=name)
    if binary:
        check_binary_values(checked.values, name=name)
    return checked


def _population_accuracy(values, y):
    """Target accuracies: ``y`` when given, else each row's observed mean
    (fractions in [0, 1]; a row without responses has none)."""
    return accuracy_truth(values, y)


def _check_population(values, agents, tasks):
    n_models, n_items = values.shape
    if n_models < 2:
        raise ValueError(
            f"SubsetScoreEstimator needs at least 2 models (rows); got {n_models}."
        )
    if n_items < 2:
        raise ValueError(
            f"SubsetScoreEstimator needs at least 2 items (columns); got {n_items}."
        )
    observed = ~np.isnan(values)
    empty_items = ~observed.any(axis=0)
    if empty_items.any():
        item = int(np.flatnonzero(empty_items)[0])
        name = "" if tasks is None else f" ({tasks[item]!r})"
        raise ValueError(
            f"Item at column {item}{name} has no observed response: its accuracy "
            "cannot be learnt; drop it from X."
        )
    check_empty_agents(
        values, agents, what="SubsetScoreEstimator.fit",
        remedy="remove them (sklearn-eval compress --drop-empty does)",
    )


class SubsetScoreEstimator(SelectorMixin, FitTemplateMixin, BaseEstimator):
    """Full-benchmark accuracy of a model from its responses to a few items.

    ``fit`` takes a population of models x items (0/1, NaN = not run),
    calibrates an item response model on it, and chooses ``n_items`` items
    (``selected_items_``, with ``item_weights_``). ``predict`` takes new
    models' responses, either on all items (NaN outside the chosen ones is
    fine) or on the chosen columns only, and returns their estimated accuracy
    on the whole benchmark. The estimator is also a feature selector
    (``get_support``, ``transform``), and ``score`` is minus the mean absolute
    error against the true full accuracy, so ``GridSearchCV`` can tune
    ``n_items``, ``selection`` and ``estimator``.

    Read more in the :ref:`User Guide <efficient_evaluation>`.

    Parameters
    ----------
    n_items : int, default=100
        Number of items to choose (all items, with a warning, when the
        benchmark has fewer). ``"anchor"`` may choose fewer when the
        population answers fewer distinct patterns.
    selection : {"auto", "random", "stratified", "anchor", "information", \
"predictive"}, default="auto"
        How items are chosen:

        - ``"random"``: uniformly, equal weights;
        - ``"stratified"``: one random item in each of ``n_items`` strata of
          equal size along the items' success rate in the population (their
          classical difficulty), weighted by stratum size;
        - ``"anchor"``: tinyBenchmarks' anchor points: k-means clusters of the
          items' IRT embeddings (success probabilities at quantiles of the
          population's abilities), the item nearest each centroid, weighted
          by its cluster's size;
        - ``"information"``: the items of largest Fisher information averaged
          over the population's abilities, equal weights;
        - ``"predictive"``: greedy forward selection of the items that most
          reduce the leave-one-out error of a ridge regression of the full
          accuracy on the chosen responses (closed form);
        - ``"auto"``: ``"stratified"`` or ``"predictive"``, chosen by the
          internal cross-validation (see ``method="auto"``).
    method : {"auto", "mean", "irt", "gp-irt", "regression"}, default="auto"
        How the full accuracy is predicted from the chosen responses:

        - ``"mean"``: weighted mean of the observed chosen responses;
        - ``"irt"``: tinyBenchmarks' p-IRT: the observed responses plus every
          other item's success probability, averaged over the model's ability
          posterior;
        - ``"gp-irt"``: a convex blend of the two, its weight fitted by least
          squares on the population;
        - ``"regression"``: the IRT estimate corrected by ``regressor``,
          trained on the population to predict the IRT estimate's error from
          the chosen responses and the ability (metabench's route; with few
          models the regulariser shrinks it back to ``"irt"``);
        - ``"auto"``: chosen by the internal cross-validation: of all
          (selection, method) combinations tried, the simplest whose
          mean absolute error is within one standard error of the best
          (population-free selections before ``"predictive"``, then
          ``"mean"``, ``"irt"``, ``"gp-irt"``, ``"regression"``). Measured:
          predictive regression on 320 related models (ARC), stratified
          items on 22 (ChemBench).
    irt : IRT2PL, IRT, FrozenEstimator or None, default=None
        Item response model: :class:`~sklearn_eval.irt.IRT2PL` or
        :class:`~sklearn_eval.irt.IRT` with ``model`` in 1PL-4PL (with
        asymptotes, the p-IRT estimate and the item information use the
        3PL/4PL curves); a graded or continuous ``IRT`` makes the target
        the mean item score on [0, 1] (:ref:`efficient_evaluation_scored`);
        ``n_factors > 1`` is refused. None calibrates ``IRT2PL(model="1PL")``
        on ``X``: on fine-tunes of one base model a per-item discrimination
        over-fits items that nearly separate them, and the 1PL's expected
        accuracy matches the observed one (the total score is sufficient).
        An ``IRT2PL`` or ``IRT`` is cloned and fitted on ``X``; wrap a fitted one in
        ``sklearn.frozen.FrozenEstimator`` to use its calibration as it is.
    regressor : regressor or None, default=None
        Model of the ``"regression"`` estimator (cloned);
        None is ``RidgeCV(alphas=np.logspace(-3, 5, 17))``.
    cv : int or cross-validation splitter, default=5
        Folds over the population's models for the internal
        cross-validation that makes the ``"auto"`` choices and gives the
        residuals of the conformal intervals (at most one fold per model).
    random_state : int, RandomState instance or None, default=None
        Seeds the random choices (random and stratified selection, k-means)
        and the shuffling of the folds.
    estimator : str, default="deprecated"
        Former name of ``method`` (deprecated in 0.2, removed in 0.3): a
        scikit-learn reader expects an estimator object under this name.

    Attributes
    ----------
    irt_ : IRT2PL or IRT
        The calibrated item response model.
    selected_items_ : ndarray of int
        Column indices of the chosen items, ascending (the column order of
        ``transform``).
    selection_order_ : ndarray of int
        The same items in the order the selection picked them (greedy order
        for ``"predictive"``, difficulty or cluster order otherwise).
    item_weights_ : ndarray of float
        Weight of each chosen item in the ``"mean"`` estimator, aligned with
        ``selected_items_`` (sums to one).
    selection_ : str
        The selection used (``"auto"`` resolved).
    method_ : str
        The prediction method used (``"auto"`` resolved). Formerly
        ``estimator_`` (a deprecated alias until 0.3).
    cv_results_ : dict
        ``"selection"``, ``"estimator"`` (the method) and ``"mae"`` arrays: the
        cross-validated mean absolute error of every combination tried.
    cv_mae_ : float
        Cross-validated mean absolute error of the chosen combination.
    cv_residuals_ : ndarray of shape (n_models,)
        Its out-of-fold residuals (predicted minus true accuracy).
    interval_method_ : {"posterior", "conformal"}
        How ``predict_interval`` builds intervals.
    blend_weight_ : float or None
        Weight of the mean in ``"gp-irt"``.
    regressor_ : regressor or None
        The fitted regressor of ``"regression"``.
    tasks_ : ndarray of shape (n_features,)
        Item labels (column names, else column indices).
    n_features_in_ : int
        Number of items seen in ``fit``.
    feature_names_in_ : ndarray of str
        Item names, when ``X`` is a DataFrame with string column names.

    See Also
    --------
    sklearn_eval.irt.AdaptiveTester : choose items one at a time for each model.
    sklearn_eval.selection.InfoGainSelector : tasks that best tell agents apart.

    Notes
    -----
    The internal cross-validation keeps the item response model calibrated
    on the whole population; only the selection (when it uses the
    population's accuracies, i.e. ``"predictive"``) and the estimator are
    refitted per fold. A model's true accuracy is the mean of its observed
    responses (or ``y`` when given).

    References
    ----------
    F. M. Polo et al., "tinyBenchmarks: evaluating LLMs with fewer examples",
    ICML 2024. A. Kipnis et al., "metabench: A Sparse Benchmark of Reasoning
    and Knowledge in Large Language Models", ICLR 2025.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.selection import SubsetScoreEstimator
    >>> X = make_irt_responses(300, 200, random_state=0)
    >>> est = SubsetScoreEstimator(n_items=40, random_state=0).fit(X[:250])
    >>> est.selected_items_.shape
    (40,)
    >>> pred = est.predict(X[250:])
    >>> bool(abs(pred - X[250:].mean(axis=1)).mean() < 0.06)
    True
    >>> low, high = est.predict_interval(X[250:])
    >>> bool(((low <= pred) & (pred <= high)).all())
    True
    """

    _parameter_constraints: dict = {
        "n_items": [Interval(Integral, 1, None, closed="left")],
        "selection": [StrOptions({"auto", *SELECTIONS})],
        "method": [StrOptions({"auto", *ESTIMATORS})],
        "estimator": [StrOptions({"auto", *ESTIMATORS}),
                      Hidden(StrOptions({"deprecated"}))],
        "irt": [HasMethods(["fit"]), None],
        "regressor": [HasMethods(["fit", "predict"]), None],
        "cv": ["cv_object"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_items=100,
        *,
        selection="auto",
        method="auto",
        irt=None,
        regressor=None,
        cv=5,
        random_state=None,
        estimator="deprecated",
    ):
        self.n_items = n_items
        self.selection = selection
        self.method = method
        self.irt = irt
        self.regressor = regressor
        self.cv = cv
        self.random_state = random_state
        self.estimator = estimator

    def _method(self):
        """``method``, or the value given under its former name ``estimator``."""
        if isinstance(self.estimator, str) and self.estimator == "deprecated":
            return self.method
        deprecated_alias("SubsetScoreEstimator(estimator=...)", "method")
        return self.estimator

    @property
    def estimator_(self):
        """Deprecated alias of ``method_`` (removed in 0.3)."""
        check_is_fitted(self, "method_")
        deprecated_alias("SubsetScoreEstimator.estimator_", "method_")
        return self.method_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = False
        return tags

    # ------------------------------------------------------------------ fit
    _prefer_skip_nested_validation = False

    def fit(self, X, y=None):
        """Calibrate, choose the items and train the estimator.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_items)
            Responses of the population in {0, 1} (category codes or scores
            in [0, 1] with a graded or continuous ``irt``); NaN where not run.
        y : array-like of shape (n_models,), default=None
            The models' full-benchmark accuracies; None means the mean of
            each row's observed responses.

        Returns
        -------
        self : SubsetScoreEstimator
            The fitted estimator.
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        checked = _validate_responses(X, binary=not is_scored(self.irt))
        values = checked.values
        _check_population(values, checked.agents, checked.tasks)
        target = _population_accuracy(values, y)
        if values.shape[0] < _FEW_MODELS:
            warnings.warn(
                f"Only {values.shape[0]} models in the population: the "
                "cross-validated choices and the intervals rest on very few "
                "held-out models.",
                UserWarning,
                stacklevel=find_stack_level(),
            )
        return X, checked, values, target, y

    def _solve(self, inputs):
        X, checked, values, target, _ = inputs
        n_total = values.shape[1]
        n_select = self._resolve_n_items(n_total)
        rng = check_random_state(self.random_state)
        irt = calibrate_irt(self.irt, X)
        scores = values
        if is_scored(irt):  # item scores on [0, 1]; the truth is their mean
            scores = irt.item_scores(None, values)
            target = _population_accuracy(scores, inputs[4])
        bank = _item_bank(irt, scores)
        theta = bank.subset(np.arange(n_total)).compute(values, _flat(n_total))[
            "ability"]
        splits = self._splits(values.shape[0], rng)
        combos, fixed = self._candidates(scores, target, bank, theta, n_select, rng)
        results = _cross_validate(combos, fixed, values, target, bank, splits,
                                  n_select, self.regressor, scores)
        best = _one_standard_error_choice(combos, results)
        chosen = results[best]
        selection, kind = combos[best]
        order, weights = (fixed[selection] if selection in fixed else
                          _select(selection, scores, target, bank, theta,
                                  n_select, rng))
        ascending = np.argsort(order, kind="stable")
        items, weights = order[ascending], weights[ascending]
        features = bank.subset(items)
        fitted = FittedEstimate(kind, np.mean(target)).fit(
            features.compute(values[:, items], weights), target, self.regressor)
        interval = ("posterior" if kind == "irt" and
                    chosen["coverage"] >= _POSTERIOR_MIN_COVERAGE else "conformal")

        state = {
            "irt_": irt,
            "selected_items_": items,
            "selection_order_": order,
            "item_weights_": weights,
            "selection_": selection,
            "method_": kind,
            "cv_results_": {
                "selection": np.asarray([c[0] for c in combos], dtype=object),
                "estimator": np.asarray([c[1] for c in combos], dtype=object),
                "mae": np.asarray([r["mae"] for r in results]),
            },
            "cv_mae_": float(chosen["mae"]),
            "cv_residuals_": chosen["residuals"],
            "interval_method_": interval,
            "blend_weight_": fitted.blend,
            "regressor_": fitted.regressor,
            "n_features_in_": n_total,
        }
        if checked.tasks is not None and all(isinstance(t, str) for t in checked.tasks):
            state["feature_names_in_"] = np.asarray(checked.tasks, dtype=object)
        state["tasks_"] = (np.asarray(checked.tasks, dtype=object)
                           if checked.tasks is not None else np.arange(n_total))
        state.update(_bank=bank, _fitted=fitted, _features=features)
        return state

    def _resolve_n_items(self, n_total):
        if self.n_items >= n_total:
            warnings.warn(
                f"n_items={self.n_items} >= the number of items ({n_total}); all "
                "items are chosen and predictions are the plain mean.",
                UserWarning,
                stacklevel=find_stack_level(),
            )
            return n_total
        return int(self.n_items)

    def _splits(self, n_models, rng):
        if isinstance(self.cv, Integral):
            if self.cv < 2:
                raise ValueError(f"cv must be at least 2 folds; got {self.cv}.")
            folds = KFold(n_splits=min(int(self.cv), n_models), shuffle=True,
                          random_state=rng.randint(np.iinfo(np.int32).max))
        else:
            folds = check_cv(self.cv)
        return list(folds.split(np.zeros((n_models, 1))))

    def _candidates(self, values, target, bank, theta, n_select, rng):
        """Combinations to cross-validate and the fixed selections.

        Selections that do not use the population's accuracies are made
        once, on the whole population, and kept in every fold (their
        residuals are those of the very items chosen); ``"predictive"`` is
        redone in each fold.
        """
        selections = (AUTO_SELECTIONS if self.selection == "auto"
                      else (self.selection,))
        method = self._method()
        kinds = ESTIMATORS if method == "auto" else (method,)
        fixed = {
            name: _select(name, values, target, bank, theta, n_select, rng)
            for name in selections if name != "predictive"
        }
        combos = [(s, k) for s in selections for k in kinds]
        return combos, fixed

    # -------------------------------------------------------------- predict
    def _chosen_responses(self, X):
        """Responses on the chosen items, from full-width or chosen-only X."""
        check_is_fitted(self, "selected_items_")
        checked = _validate_responses(X, binary=self._bank.scored is None)
        values = checked.values
        items = self.selected_items_
        names = getattr(self, "feature_names_in_", None)
        if checked.tasks is not None and names is not None:
            position = {name: k for k, name in enumerate(checked.tasks)}
            missing = [name for name in names[items] if name not in position]
            if missing:
                raise ValueError(
                    f"X lacks {len(missing)} chosen item(s), e.g. {missing[:5]}; "
                    "pass all items or the chosen columns (selected_items_)."
                )
            return values[:, [position[name] for name in names[items]]]
        width = values.shape[1]
        if width == self.n_features_in_:
            return values[:, items]
        if width == items.size:
            return values
        raise ValueError(
            f"X has {width} columns; expected all {self.n_features_in_} items or "
            f"the {items.size} chosen ones."
        )

    def _predict_features(self, X):
        responses = self._chosen_responses(X)
        return self._features.compute(responses, self.item_weights_)

    def predict(self, X):
        """Estimated full-benchmark accuracy of each model (row of ``X``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_features) or \
(n_models, n_selected)
            0/1 responses: on all items (only the chosen ones are read) or
            on the chosen items only, in the order of ``selected_items_``
            (by name for DataFrames). NaN marks a chosen item not run.

        Returns
        -------
        ndarray of shape (n_models,)
            Estimated accuracies.
        """
        features = self._predict_features(X)
        return self._predict_from(features)

    def _predict_from(self, features):
        if self.method_ == "mean" and np.isnan(features["mean"]).any():
            if np.isnan(self._fitted.fallback):
                raise ValueError(
                    "Some models have no observed response on the chosen items "
                    "and this estimator has no population mean to fall back on."
                )
            warnings.warn(
                "Some models have no observed response on the chosen items; they "
                "get the training population's mean accuracy.",
                UserWarning,
                stacklevel=find_stack_level(),
            )
        return np.clip(self._fitted.predict(features), 0.0, 1.0)

    def predict_interval(self, X, *, level=0.95):
        """Interval for each model's full-benchmark accuracy.

        From the ability posterior (normal approximation of the accuracy's
        posterior, including the spread of the unseen items' responses)
        when ``interval_method_`` is ``"posterior"``; otherwise split
        conformal: the prediction plus or minus the matching quantile of the
        absolute cross-validated residuals ``cv_residuals_``.

        Parameters
        ----------
        X : array-like or DataFrame
            As in :meth:`predict`.
        level : float, default=0.95
            Nominal coverage, in (0, 1).

        Returns
        -------
        low, high : ndarray of shape (n_models,)
            Bounds, clipped to [0, 1].
        """
        if not (isinstance(level, float | int) and 0 < level < 1):
            raise ValueError(f"level must be a number in (0, 1); got {level!r}.")
        features = self._predict_features(X)
        center = self._predict_from(features)
        if self.interval_method_ == "posterior":
            half = _posterior_halfwidth(features, level)
        else:
            if self.cv_residuals_.size == 0:
                raise ValueError(
                    "No cross-validated residuals for conformal intervals: fit on "
                    "a population, or pass residuals to from_items."
                )
            half = np.full(center.shape, conformal_halfwidth(self.cv_residuals_,
                                                             level))
        return np.clip(center - half, 0.0, 1.0), np.clip(center + half, 0.0, 1.0)

    def score(self, X, y=None):
        """Minus the mean absolute error of the predicted full accuracy.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_features)
            Full responses (the truth is each row's observed mean), or the
            chosen columns only when ``y`` is given.
        y : array-like of shape (n_models,), default=None
            True full-benchmark accuracies.

        Returns
        -------
        float
            ``-mean(|predict(X) - truth|)`` (higher is better).
        """
        prediction = self.predict(X)
        if y is None:
            values = _validate_responses(X, binary=self._bank.scored is None).values
            if values.shape[1] != self.n_features_in_:
                raise ValueError(
                    "score needs all items of X (the truth is each row's mean) "
                    "or the true accuracies y."
                )
            if self._bank.scored is not None:
                values = self._bank.scored.item_scores(None, values)
            truth = _population_accuracy(values, None)
        else:
            truth = _population_accuracy(np.empty((prediction.size, 0)), y)
        return -float(np.mean(np.abs(prediction - truth)))

    def transform(self, X):
        """Keep the chosen items' columns (in column order).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_models, n_features)
            0/1 responses, NaN for missing.

        Returns
        -------
        ndarray or DataFrame of shape (n_models, n_selected)
        """
        check_is_fitted(self, "selected_items_")
        _validate_responses(X, binary=self._bank.scored is None)
        return super().transform(X)

    def _get_support_mask(self):
        check_is_fitted(self, "selected_items_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_items_] = True
        return mask

    @classmethod
    def from_items(cls, items, weights=None, *, n_features=None, feature_names=None,
                   discrimination=None, difficulty=None, residuals=None):
        """A fitted estimator from a list of items and their weights.

        Rebuilds a subset chosen elsewhere (for instance by a published
        tinyBenchmarks-style item list) for scoring new models without a
        population: with ``weights`` only, predictions are the weighted mean
        (``method_ == "mean"``); with every item's ``discrimination`` and
        ``difficulty`` (a calibration of the whole benchmark), they are the
        IRT estimate (``"irt"``, posterior intervals). To restore a fitted
        estimator of any kind, use :func:`read_items_csv`.

        Parameters
        ----------
        items : array-like of int or str
            The chosen items: column indices, or names when ``feature_names``
            is given.
        weights : array-like of float or None, default=None
            Weight of each item (normalised to sum to one); None: equal.
        n_features : int or None, default=None
            Number of items of the whole benchmark (needed without
            ``feature_names`` or ``discrimination``).
        feature_names : array-like of str or None, default=None
            Names of all the benchmark's items.
        discrimination, difficulty : array-like of shape (n_features,) or None
            1PL/2PL parameters of every item (finite).
        residuals : array-like of float or None, default=None
            Cross-validated residuals (predicted minus true accuracy) of this
            subset on some population: enable conformal intervals.

        Returns
        -------
        SubsetScoreEstimator
            A fitted estimator (without ``irt_`` unless calibrated).

        Examples
        --------
        >>> from sklearn_eval.selection import SubsetScoreEstimator
        >>> est = SubsetScoreEstimator.from_items([0, 2], [0.25, 0.75], n_features=4)
        >>> est.predict([[1, 0], [0, 1]])
        array([0.25, 0.75])
        """
        return build_from_items(cls, items, weights, n_features=n_features,
                                feature_names=feature_names,
                                discrimination=discrimination, difficulty=difficulty,
                                residuals=residuals)

    @classmethod
    def _from_fitted_state(cls, params, attributes, *, bank, fitted):
        """A fitted estimator from its parameters and fitted state (restoring).

        The constructor path of :meth:`from_items` and :func:`read_items_csv`:
        ``cls(**params)`` with its fitted state set here in one step, so that
        no code outside the class writes its private parts. ``attributes``
        maps public fitted attribute names to values; ``bank`` (ItemBank) and
        ``fitted`` (FittedEstimate) are the calibration and the estimate.
        """
        return cls(**params)._assign_fitted({
            **attributes,
            "_bank": bank,
            "_fitted": fitted,
            "_features": bank.subset(attributes["selected_items_"]),
        })

    def task_table(self):
        """Per-item table: chosen or not, weights and calibration.

        Returns
        -------
        pandas.DataFrame
            Indexed by item label (``tasks_``, index name ``"task"``), in
            the order of the items (sort by ``order`` for the chosen items in
            selection order), with columns
            ``selected``, ``weight`` (0 when not chosen), ``order`` (1-based
            pick order, 0 when not chosen), ``success_rate`` (training
            population), ``discrimination`` and ``difficulty`` (NaN for items
            the calibration left out) and ``coefficient`` (the regression's
            coefficient on the item's response; NaN unless
            ``method_ == "regression"`` with a linear regressor); with a 3PL or
            4PL calibration also ``guessing`` and ``upper`` (the asymptotes).
        """
        check_is_fitted(self, "selected_items_")
        return task_frame(self)


# --------------------------------------------------------------------------
# helpers (pure functions of their arguments)
# --------------------------------------------------------------------------
def _flat(n):
    return np.full(n, 1.0 / n)


def _item_bank(irt, values):
    successes = np.nansum(values, axis=0)
    observed = np.sum(~np.isnan(values), axis=0)
    rate = successes / observed
    scored = is_scored(irt)
    return ItemBank(irt.discrimination_, irt.difficulty_, rate,
                    irt.quadrature_nodes_, irt.quadrature_weights_,
                    guessing=None if scored else getattr(irt, "guessing_", None),
                    upper=None if scored else getattr(irt, "upper_", None),
                    scored=irt if scored else None)


def _select(name, values, target, bank, theta, n_select, rng):
    """Items (in pick order) and weights chosen by strategy ``name``."""
    n_total = values.shape[1]
    if n_select >= n_total:
        return np.arange(n_total), _flat(n_total)
    rate = np.nanmean(values, axis=0)
    if name == "random":
        return select_random(n_select, np.arange(n_total), rng)
    if name == "stratified":
        return select_stratified(n_select, -rate, rng)
    if name == "anchor":
        return select_anchor(n_select, bank.embedding(theta), rng)
    if name == "information":
        return select_information(n_select, bank.information(theta).mean(axis=0))
    varying = np.flatnonzero(np.nanvar(values, axis=0) > 0)
    order, weights = select_predictive(n_select, values, target, varying)
    if order.size < n_select:  # too few informative items: pad in index order
        rest = np.setdiff1d(np.arange(n_total), order)[: n_select - order.size]
        order = np.concatenate([order, rest])
        weights = _flat(order.size)
    return order, weights


def _cross_validate(combos, fixed, values, target, bank, splits, n_select,
                    regressor, scores=None):
    """Out-of-fold predictions of every (selection, estimator) combination.

    ``values``: the responses the features read; ``scores``: the item scores
    on [0, 1] a selection reads (None: ``values``).
    """
    scores = values if scores is None else scores
    n_models = values.shape[0]
    predictions = [np.empty(n_models) for _ in combos]
    halfwidths = [np.full(n_models, np.nan) for _ in combos]
    for train, test in splits:
        by_selection = {}
        for selection, _ in combos:
            if selection in by_selection:
                continue
            if selection in fixed:
                items, weights = fixed[selection]
            else:
                items, weights = _select(selection, scores[train], target[train],
                                         bank, None, n_select, None)
            features = bank.subset(items)
            by_selection[selection] = (
                features.compute(values[train][:, items], weights),
                features.compute(values[test][:, items], weights),
            )
        for k, (selection, kind) in enumerate(combos):
            fit_features, test_features = by_selection[selection]
            model = FittedEstimate(kind, np.mean(target[train]))
            model.fit(fit_features, target[train], regressor)
            predictions[k][test] = model.predict(test_features)
            halfwidths[k][test] = _posterior_halfwidth(test_features, _CHECK_LEVEL)
    results = []
    for prediction, half in zip(predictions, halfwidths, strict=True):
        prediction = np.clip(prediction, 0.0, 1.0)
        residuals = prediction - target
        results.append({
            "mae": float(np.mean(np.abs(residuals))),
            "residuals": residuals,
            "coverage": float(np.mean(np.abs(residuals) <= half)),
        })
    return results


def _one_standard_error_choice(combos, results):
    """Index of the simplest combination within one standard error of the best.

    The "one standard error" rule of cross-validation (Breiman et al. 1984):
    the standard error is that of the best combination's mean absolute
    error over the population's models. Simpler means a population-free
    selection before ``"predictive"``, then fewer fitted parts in the
    estimator (mean, irt, gp-irt, regression). With few models the CV
    errors are noisy and the rule keeps to the robust combinations; with
    many it takes the best.
    """
    errors = np.asarray([r["mae"] for r in results])
    best = int(np.argmin(errors))
    absolute = np.abs(results[best]["residuals"])
    threshold = errors[best] + np.std(absolute) / np.sqrt(absolute.size)
    complexity = [(selection == "predictive", ESTIMATORS.index(kind), k)
                  for k, (selection, kind) in enumerate(combos)]
    for *_, k in sorted(complexity):
        if errors[k] <= threshold:
            return k
    return best


def _posterior_halfwidth(features, level):
    """Half-width of the normal approximation of the accuracy posterior."""
    return norm.ppf(0.5 + level / 2.0) * np.sqrt(features["irt_var"])
