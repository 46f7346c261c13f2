"""NashAverager: rank agents (and tasks) by the maximum-entropy Nash equilibrium."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import AgentRankerMixin, FitTemplateMixin, TaskTableMixin
from ..utils._protocol import (
    check_fit_input,
    column_labels,
    deprecated_alias,
    row_labels,
)
from ..utils._sklearn_compat import Interval, StrOptions
from ..utils._stack import find_stack_level
from ..utils._validation import asymmetry_cell
from ._intervals import nash_interval_plan
from ._maxent_nash import maxent_nash, symmetric_maxent_nash
from ._nash_scaling import (
    antisymmetric_part,
    antisymmetry_ratio,
    column_normalization,
    normalize_columns,
)

__all__ = ["NashAverager"]

_MISSING_HELP = (
    "Nash averaging needs complete data: keep the largest complete block with "
    "sklearn_eval.game.complete_submatrix, drop sparse agents/tasks with "
    "sklearn_eval.game.drop_incomplete, or (agent vs agent from matches) fill "
    "unobserved pairs with sklearn_eval.game.fill_win_rates."
)


def _check_finite(X, name="X"):
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = (int(k) for k in np.unravel_index(np.argmax(bad), X.shape))
        kind = "a missing value (NaN)" if np.isnan(X[i, j]) else "an infinite value"
        raise ValueError(f"{name} has {kind} at row {i}, column {j}. {_MISSING_HELP}")


class NashAverager(
    AgentRankerMixin, TaskTableMixin, TransformerMixin, FitTemplateMixin, BaseEstimator
):
    """Maximum-entropy Nash averaging of agents against agents or tasks.

    Nash averaging (Balduzzi, Tuyls, Perolat and Graepel, "Re-evaluating
    evaluation", NeurIPS 2018) evaluates agents against the hardest mixture of
    opponents or tasks, found as the maximum-entropy Nash equilibrium of a
    zero-sum meta-game. Unlike a uniform average it is invariant to redundant
    copies: duplicating a task or an agent splits its probability and leaves
    every Nash average unchanged (when the equilibrium is unique).

    Two games are supported:

    * ``game="agent_vs_task"`` (AvT): ``X`` is a score matrix ``S`` (agents x
      tasks, higher = better). An agent player maximises ``p_a^T S p_e``
      against a task player who minimises it; this is the zero-sum game on
      ``S`` over a product of simplices (appendix D of the paper), not a single
      distribution over agents and tasks together. Adding a constant to ``S``
      leaves both distributions unchanged.
    * ``game="agent_vs_agent"`` (AvA): ``X`` is a square matrix of win
      probabilities ``P`` (``payoff="probability"``) or log-odds
      ``A = logit(P)`` (``payoff="logit"``) between the same agents. The game
      is symmetric with value 0 and the Nash averages ``A p*`` are ``<= 0``:
      0 means unbeaten on average by the equilibrium team.

    Parameters
    ----------
    game : {"agent_vs_task", "agent_vs_agent"}, default="agent_vs_task"
        Which meta-game ``X`` describes.
    payoff : {"logit", "probability"}, default="logit"
        Agent vs agent only: whether ``X`` holds log-odds (antisymmetric) or
        win probabilities (``X[i, j] + X[j, i] = 1``; the diagonal is
        ignored). Ignored for agent vs task.
    normalize : {None, "minmax", "zscore"}, default=None
        Agent vs task only: rescale each task (column) before solving.
        ``"minmax"`` maps each task to [0, 1] by its minimum and maximum over
        the fitted agents, as in the paper's Atari experiment; ``"zscore"``
        subtracts the task mean and divides by its standard deviation. A
        constant task is mapped to 0 with a warning. The same fitted
        transformation is applied in :meth:`transform`, and all fitted
        averages are on the normalised scale.
    clip : float, default=1e-3
        Probabilities are clipped to ``[clip, 1 - clip]`` before the logit
        (``payoff="probability"`` only), so a 0/1 win rate becomes a finite
        log-odds of about +-6.9. Equilibria can depend on it when dominance
        is exact; the paper's Example 1 uses 0.99, i.e. ``clip=0.01``.
    antisymmetry_tol : float, default=1e-8
        Agent vs agent only: largest accepted ``|A + A^T|`` (logits, relative
        to ``max|A|`` when that exceeds 1) or ``|P + P^T - 1|``
        (probabilities). Within it the input is symmetrised; beyond it a
        ValueError is raised.
    tol : float, default=1e-9
        Tie tolerance of the solver, relative to half the payoff range (agent
        vs task) or the largest ``|payoff|`` (agent vs agent): payoffs closer
        than this count as equal when deciding best responses and supports,
        and the largest accepted exploitability.

    Attributes
    ----------
    agent_distribution_ : ndarray of shape (n_agents,)
        Maximum-entropy Nash distribution over agents (the "core agents" are
        its support).
    task_distribution_ : ndarray of shape (n_tasks,)
        Agent vs task only: maximum-entropy Nash distribution over tasks (the
        hardest mixture of tasks).
    agent_skill_ : ndarray of shape (n_agents,)
        The Nash averages of the agents: ``S p_e`` (AvT) or ``A p*`` (AvA).
        Every entry is ``<= value_``, with equality on the support.
    agents_ : ndarray of shape (n_agents,)
        Agent labels: the index of a DataFrame ``X``, else ``0 .. n - 1``.
    agent_scores_ : ndarray of shape (n_agents,)
        What the ranking is by (the ranking protocol): ``agent_skill_``.
    tasks_ : ndarray of shape (n_tasks,)
        Agent vs task only: task labels (``feature_names_in_`` or
        ``0 .. n - 1``).
    difficulty_ : ndarray of shape (n_tasks,)
        Agent vs task only: ``-S^T p_a``, the negated Nash-averaged score of
        each task against the core agents. Higher means harder (the
        orientation of IRT difficulty); every entry is ``<= -value_``, with
        equality on the support of ``task_distribution_``.
    value_ : float
        Value of the game: ``p_a^T S p_e`` (AvT) or 0 (AvA).
    exploitability_ : float
        Mean gain of the two players' best deviations from the returned
        equilibrium (AvA: ``max_i (A p*)_i``); about 1e-15 when solved
        exactly.
    agent_support_ : ndarray of bool of shape (n_agents,)
        Agents that some equilibrium plays.
    task_support_ : ndarray of bool of shape (n_tasks,)
        Agent vs task only: tasks that some equilibrium plays.
    n_iter_ : int
        Iterations of the solver's first pass (interior point, or simplex
        when it fell back); non-convergence raises a ``ConvergenceWarning``.
    payoff_ : ndarray
        The game actually solved: the normalised ``S`` or the logit matrix.
    n_features_in_ : int
        Number of tasks (AvT) or agents (AvA).
    feature_names_in_ : ndarray of shape (n_features,)
        Column names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    maxent_nash : The solver for general zero-sum games.
    hodge_decomposition : Transitive and cyclic parts of an AvA game.

    Notes
    -----
    An Elo-generated matrix is exactly transitive (``A = grad(r)``), so its
    maximum-entropy Nash equilibrium is uniform over the top-rated agent(s)
    (Theorem 1, P3(ii)); Nash averaging adds information only when the data
    have cyclic structure.

    Duplicating an agent or task keeps every Nash average when the
    equilibrium is unique (the generic case); with several equilibria the
    maximum-entropy choice can move (see the user guide's Nash averaging
    page for a counterexample).

    References
    ----------
    D. Balduzzi, K. Tuyls, J. Perolat and T. Graepel. Re-evaluating
    evaluation. NeurIPS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.game import NashAverager
    >>> S = np.array([[89, 93, 76], [85, 85, 85], [79, 74, 99]])
    >>> nash = NashAverager().fit(S)
    >>> nash.agent_distribution_.round(3), round(nash.value_, 3)
    (array([0.606, 0.   , 0.394]), 85.061)
    >>> nash.agent_skill_.round(2)
    array([85.06, 85.  , 85.06])
    >>> nash.difficulty_.round(2)
    array([-85.06, -85.52, -85.06])

    Rock-paper-scissors with a copy of scissors (win probabilities):

    >>> P = [[0.5, 0.9, 0.1, 0.1], [0.1, 0.5, 0.9, 0.9],
    ...      [0.9, 0.1, 0.5, 0.5], [0.9, 0.1, 0.5, 0.5]]
    >>> ava = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
    >>> ava.agent_distribution_.round(4)
    array([0.3333, 0.3333, 0.1667, 0.1667])
    """

    _parameter_constraints: dict = {
        "game": [StrOptions({"agent_vs_task", "agent_vs_agent"})],
        "payoff": [StrOptions({"logit", "probability"})],
        "normalize": [None, StrOptions({"minmax", "zscore"})],
        "clip": [Interval(numbers.Real, 0.0, 0.5, closed="neither")],
        "antisymmetry_tol": [Interval(numbers.Real, 0.0, None, closed="left")],
        "tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
    }

    def __init__(
        self,
        game="agent_vs_task",
        payoff="logit",
        normalize=None,
        clip=1e-3,
        antisymmetry_tol=1e-8,
        tol=1e-9,
    ):
        self.game = game
        self.payoff = payoff
        self.normalize = normalize
        self.clip = clip
        self.antisymmetry_tol = antisymmetry_tol
        self.tol = tol

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Solve the meta-game and store the Nash distributions and averages.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks) or (n_agents, n_agents)
            Scores of agents (rows) on tasks (columns) for agent vs task; a
            square matrix of log-odds or win probabilities for agent vs agent.
            No NaN or inf (see ``complete_submatrix``, ``drop_incomplete``
            and ``fill_win_rates`` for missing results).
        y : None
            Ignored.

        Returns
        -------
        self : NashAverager
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        ava = self.game == "agent_vs_agent"
        X_checked, inputs = check_fit_input(
            X, ensure_all_finite=False, ensure_min_samples=2,
            ensure_min_features=2 if ava else 1, dtype=np.float64,
        )
        _check_finite(X_checked)
        return X, X_checked, inputs

    def _solve(self, checked):
        X, X_checked, inputs = checked
        if self.game == "agent_vs_agent":
            fitted = _solve_agent_vs_agent(
                X_checked, self.payoff, self.clip, self.antisymmetry_tol, self.tol
            )
        else:
            fitted = _solve_agent_vs_task(X_checked, self.normalize, self.tol)
            fitted["tasks_"] = column_labels(X, X_checked.shape[1])
        fitted["agents_"] = row_labels(X, X_checked.shape[0])
        return {**inputs, **fitted}

    # -------------------------------------------------------------- protocol
    @property
    def agent_scores_(self):
        """What the ranking is by (higher is better): ``agent_skill_``."""
        check_is_fitted(self)
        return self.agent_skill_

    @property
    def task_difficulty_(self):
        """Deprecated alias of ``difficulty_`` (removed in 0.3)."""
        check_is_fitted(self)
        deprecated_alias("task_difficulty_", "difficulty_")
        return self.difficulty_

    def _agent_columns(self):
        return {
            "mass": self.agent_distribution_,
            "support": self.agent_support_,
        }

    def _task_columns(self):
        if self.game == "agent_vs_agent" or not hasattr(self, "difficulty_"):
            raise AttributeError(
                "task_table() needs an agent-vs-task game; an agent-vs-agent "
                "game has no tasks (its columns are the agents)."
            )
        return {
            "difficulty": self.difficulty_,
            "mass": self.task_distribution_,
            "support": self.task_support_,
        }

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Agent vs task: ``"agent_skill"`` (default) or ``"agent_distribution"``
        with tasks resampled, ``"difficulty"`` or ``"task_distribution"``
        with agents resampled. Agent vs agent: ``"agent_skill"`` or
        ``"agent_distribution"`` from resampled matches (win rates rebuilt
        with :func:`fill_win_rates`). Intervals of Nash quantities are
        descriptive (see the result's ``note``).

        Parameters
        ----------
        target : str or None, default=None

        Returns
        -------
        plan : IntervalPlan
        """
        return nash_interval_plan(self, target)

    # ------------------------------------------------------------ transform
    def transform(self, X):
        """Nash average of each row against the fitted equilibrium.

        For agent vs task, each row is an agent's scores on the fitted tasks
        (normalised as in ``fit``) and the output is its expected score under
        ``task_distribution_``. For agent vs agent, each row is an agent's
        log-odds (or win probabilities) against the fitted agents and the
        output is its expected log-odds against the equilibrium team
        ``agent_distribution_``. On the training matrix this returns
        ``agent_skill_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)

        Returns
        -------
        ndarray of shape (n_rows, 1)
            Column ``"nash_average"``.
        """
        check_is_fitted(self)
        X = validate_data(
            self, X, reset=False, ensure_all_finite=False, dtype=np.float64
        )
        _check_finite(X)
        if self.game == "agent_vs_agent":
            if self.payoff == "probability":
                bad = (X < 0) | (X > 1)
                if bad.any():
                    i, j = np.unravel_index(np.argmax(bad), X.shape)
                    raise ValueError(
                        "payoff='probability' needs win probabilities in [0, 1]; "
                        f"got {X[i, j]!r} at row {i}, column {j}."
                    )
                P = np.clip(X, self.clip, 1.0 - self.clip)
                X = np.log(P) - np.log1p(-P)
            return (X @ self.agent_distribution_)[:, None]
        Z = _apply_normalization(
            X, self._norm_shift, self._norm_scale, self._norm_flat
        )
        return (Z @ self.task_distribution_)[:, None]

    def get_feature_names_out(self, input_features=None):
        """Name of the single output column, ``"nash_average"``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Ignored (checked against ``feature_names_in_`` when given).

        Returns
        -------
        ndarray of str objects, shape (1,)
        """
        check_is_fitted(self)
        if input_features is not None and hasattr(self, "feature_names_in_"):
            if list(input_features) != list(self.feature_names_in_):
                raise ValueError("input_features do not match feature_names_in_.")
        return np.asarray(["nash_average"], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def _solve_agent_vs_agent(X, payoff, clip, antisymmetry_tol, tol):
    """Fitted attributes of the symmetric game on a win-rate or logit matrix."""
    A = _ava_payoff(X, payoff, clip, antisymmetry_tol)
    ne = symmetric_maxent_nash(A, tol=tol)
    skill = A @ ne.row
    return {
        "payoff_": A,
        "agent_distribution_": ne.row,
        "agent_skill_": skill,
        "value_": 0.0,
        "exploitability_": float(max(0.0, np.max(skill))),
        "agent_support_": ne.row_support,
        "n_iter_": ne.n_iter,
    }


def _solve_agent_vs_task(X, normalize, tol):
    """Fitted attributes of the zero-sum game on an (agents x tasks) matrix."""
    shift, scale, flat = _fit_normalization(X, normalize)
    S = _apply_normalization(X, shift, scale, flat)
    ne = maxent_nash(S, tol=tol)
    return {
        "payoff_": S,
        "agent_distribution_": ne.row,
        "task_distribution_": ne.column,
        "agent_skill_": S @ ne.column,
        "difficulty_": -(S.T @ ne.row),
        "value_": float(ne.value),
        "exploitability_": float(max(0.0, ne.exploitability)),
        "agent_support_": ne.row_support,
        "task_support_": ne.column_support,
        "n_iter_": ne.n_iter,
        "_norm_shift": shift,
        "_norm_scale": scale,
        "_norm_flat": flat,
    }


def _ava_payoff(X, payoff, clip, antisymmetry_tol):
    """The antisymmetric logit matrix of an agent-vs-agent input."""
    n = X.shape[0]
    if X.shape[1] != n:
        raise ValueError(
            "agent_vs_agent needs a square matrix (agents x the same agents); "
            f"got shape {X.shape}."
        )
    off = ~np.eye(n, dtype=bool)
    if payoff == "probability":
        bad = off & ((X < 0) | (X > 1))
        if bad.any():
            i, j = np.unravel_index(np.argmax(bad), X.shape)
            raise ValueError(
                "payoff='probability' needs win probabilities in [0, 1]; got "
                f"{float(X[i, j])!r} at row {i}, column {j}."
            )
        excess = np.where(off, np.abs(X + X.T - 1.0), 0.0)
        _check_excess(excess, X, "P[i, j] + P[j, i] = 1", antisymmetry_tol)
        P = 0.5 * (X + 1.0 - X.T)
        P = np.clip(P, clip, 1.0 - clip)
        A = np.log(P) - np.log1p(-P)
        np.fill_diagonal(A, 0.0)
        return 0.5 * (A - A.T)
    scale = max(1.0, float(np.max(np.abs(X))))
    excess = antisymmetry_ratio(X, scale)
    _check_excess(excess, X, "A[i, j] = -A[j, i]", antisymmetry_tol)
    return antisymmetric_part(X)


def _check_excess(excess, X, rule, antisymmetry_tol):
    if excess.max() > antisymmetry_tol:
        i, j = np.unravel_index(np.argmax(excess), X.shape)
        raise ValueError(
            f"agent_vs_agent payoff must satisfy {rule}; at row {i}, column "
            f"{j}: {asymmetry_cell(X, i, j, 'X')} "
            f"(antisymmetry_tol={antisymmetry_tol})."
        )


def _fit_normalization(X, normalize):
    """Per-task shift and half scale of ``normalize``, and the constant tasks.

    Computed on halves, so finite scores up to the largest double never
    overflow.
    """
    shift, half_scale, flat = column_normalization(X, normalize)
    if flat.any():
        warnings.warn(
            f"Tasks (columns) {np.flatnonzero(flat).tolist()} are constant; "
            f"normalize={normalize!r} maps them to 0.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
    return shift, half_scale, flat


def _apply_normalization(X, shift, half_scale, flat):
    Z = normalize_columns(X, shift, half_scale)
    if flat.any():
        Z[:, flat] = 0.0
    if not np.all(np.isfinite(Z)):
        i, j = np.unravel_index(np.argmax(~np.isfinite(Z)), Z.shape)
        raise ValueError(
            f"X[{i}, {j}] = {X[i, j]!r} is too large for the fitted "
            f"normalisation of task {j}: the normalised score overflows float64."
        )
    return Z
