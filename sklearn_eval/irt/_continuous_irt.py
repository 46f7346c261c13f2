"""The continuous-score models of :class:`IRT` (``"beta"``, ``"logit-normal"``).

A mixin: :class:`IRT` dispatches here when ``model`` is one of
:data:`CONTINUOUS_MODELS`; the math, storage and fit live in
:mod:`._continuous_models` and :mod:`._continuous`.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..utils._protocol import column_labels
from ._continuous import (
    CONTINUOUS_MODELS,
    ScoreStore,
    _cells,
    agent_labels,
    check_scores,
    clip_scores,
    fit_continuous,
    summarise_scores,
)
from ._continuous_models import MODELS
from ._dask_fit import (
    continuous_dask_pass,
    continuous_dask_predict,
    dask_continuous_fit_data,
    fit_continuous_dask,
    is_dask_collection,
)
from ._quadrature import estimator_grid
from ._responses import _check_input_features, _input_features

# posteriors of many continuous scores are narrow (sd ~0.05 at 40 items):
# an evenly spaced grid with spacing 0.03 on [-6, 6]
CONTINUOUS_NODES = 401


class _ContinuousIRTMixin:
    """Fit, posterior passes, predictions and tables of the continuous models."""

    def _is_continuous(self):
        return self.model in CONTINUOUS_MODELS

    def _continuous_grid(self):
        return estimator_grid(self.quadrature, self.n_quadrature or CONTINUOUS_NODES,
                         self.quadrature_bound)

    def _check_continuous_fit(self, X):
        if self.n_factors != 1:
            raise ValueError(
                f"n_factors={self.n_factors} is not supported for "
                f"model={self.model!r} (one latent ability).")
        if any(v is not None for v in (self.n_options, self.guessing_prior,
                                       self.upper_prior)):
            raise ValueError(
                "n_options, guessing_prior and upper_prior apply to the 3PL "
                f"and 4PL; model={self.model!r} has no asymptotes.")
        if not 0.0 < self.score_clip < 0.5:
            raise ValueError(
                f"score_clip must lie in (0, 0.5); got {self.score_clip!r}.")
        if is_dask_collection(X):  # coded and kept on the workers
            return X, dask_continuous_fit_data(X, self.score_clip)
        values, _, tasks = check_scores(X)
        labels = (np.asarray(tasks, dtype=object) if tasks is not None
                  else column_labels(X, values.shape[1]))
        rows_kept, cells, keep, rate = summarise_scores(values, labels,
                                                        self.score_clip)
        return X, (values.shape[0], labels, rows_kept, cells, keep, rate)

    def _solve_continuous(self, checked):
        if is_dask_collection(checked[0]):
            return fit_continuous_dask(
                checked[1], model=self.model, grid=self._continuous_grid(),
                max_iter=self.max_iter, tol=self.tol, algorithm=self.algorithm,
                chunk_size=self.chunk_size, clip=self.score_clip)
        X, (n_agents, labels, rows_kept, cells, keep, rate) = checked
        with self._executor() as parallel:
            fitted = fit_continuous(
                cells, n_agents, labels, keep, rate, model=self.model,
                grid=self._continuous_grid(), max_iter=self.max_iter,
                tol=self.tol, parallel=parallel, algorithm=self.algorithm,
                chunk_size=self.chunk_size)
        fitted["agents_"] = agent_labels(X, rows_kept)
        return {**_input_features(X, labels), **fitted}

    def _continuous_store(self, values, parallel):
        indptr, cols, data = _cells(values)
        labels = np.asarray(self.tasks_, dtype=object)
        data = clip_scores(data, self.score_clip, labels, cols)
        dense = {"dense": True, "sparse": False}.get(self.algorithm)
        return ScoreStore((indptr, cols, data), values.shape[0], self._keep,
                          self.model, dense=dense, parallel=parallel,
                          chunk_size=self.chunk_size)

    def _continuous_pass(self, values, *, moments=True):
        grid = self._continuous_grid()
        if hasattr(values, "fit_with"):  # Dask input: rows stay on the workers
            return continuous_dask_pass(self, values, grid, moments=moments)
        spec = MODELS[self.model]
        with self._executor() as parallel:
            store = self._continuous_store(values, parallel)
            out = store.e_step(spec.tables(self._item_params, grid.nodes), grid,
                               stats=False, moments=moments)
        out["n_observed"] = store.counts
        return out

    def _continuous_values(self, X):
        values, _, tasks = check_scores(X)
        _check_input_features(self, X, tasks)
        return values

    def _continuous_predict(self, values):
        grid = self._continuous_grid()
        spec = MODELS[self.model]
        with self._executor() as parallel:
            store = self._continuous_store(values, parallel)
            post = store.e_step(spec.tables(self._item_params, grid.nodes), grid,
                                stats=False, post=True)["post"]
        out = np.empty((values.shape[0], self.n_features_in_))
        out[:, ~self._keep] = self._success_rate_items[~self._keep]
        out[:, self._keep] = post @ spec.mean(self._item_params, grid.nodes)
        return out

    def predict(self, X):
        """Expected score of every agent in ``X`` on every item.

        The posterior predictive mean ``E[x_ij | responses of agent i in X]``
        (the ability integrated out over its posterior). For the binary
        models it is the success probability of :meth:`predict_proba`; for
        ``"beta"`` and ``"logit-normal"`` the expected score in (0, 1). Items
        left out in fit get their training mean score.

        Parameters
        ----------
        X : array-like, DataFrame, sparse matrix or ResultMatrix of shape \
                (n_agents, n_items)
            Responses or scores to the fitted items (NaN or absent: missing).

        Returns
        -------
        expected : ndarray of shape (n_agents, n_items)
            A Dask array (rows on the workers) for Dask input.

        Examples
        --------
        >>> from sklearn_eval.datasets import load_leaderboard
        >>> from sklearn_eval.irt import IRT
        >>> lite = load_leaderboard("helm_lite")  # 91 models x 10 scores in (0, 1)
        >>> model = IRT(model="beta").fit(lite.data)
        >>> model.task_table().columns[4:6].tolist()
        ['precision', 'precision_se']
        >>> expected = model.predict(lite.data)
        >>> expected.shape, bool(((expected > 0) & (expected < 1)).all())
        ((91, 10), True)
        """
        check_is_fitted(self, "_item_params")
        if not self._is_continuous():
            return self.predict_proba(X)
        if is_dask_collection(X):  # rows stay on the workers: a Dask array
            return continuous_dask_predict(self, self._validate_new(X),
                                           self._continuous_grid())
        return self._continuous_predict(self._continuous_values(X))

    def _continuous_task_columns(self):
        scale = MODELS[self.model].scale_name
        return {
            "discrimination": self.discrimination_,
            "discrimination_se": self.discrimination_se_,
            "difficulty": self.difficulty_,
            "difficulty_se": self.difficulty_se_,
            scale: getattr(self, f"{scale}_"),
            f"{scale}_se": getattr(self, f"{scale}_se_"),
            "mean_score": self._success_rate_items,
            "left_out": ~self._keep,
        }
