"""VotingRanker: evaluate agents by social choice, every task a voter."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from ..base import AgentRankerMixin, FitTemplateMixin, TaskTableMixin
from ..utils._empty import check_empty_agents
from ..utils._protocol import (
    check_fit_input,
    column_labels,
    row_labels,
)
from ..utils._ranks import RANK_RTOL
from ..utils._sklearn_compat import Interval, StrOptions
from ..utils._stack import find_stack_level
from . import _voting_methods as rules
from ._intervals import task_resampling_plan
from ._kemeny import agreement, kemeny_young
from ._sco import soft_condorcet_optimization

__all__ = ["VotingRanker"]

METHODS = (
    "kemeny_young",
    "schulze",
    "ranked_pairs",
    "copeland",
    "borda",
    "plurality",
    "maximal_lotteries",
    "sco",
)
#: methods whose winner is the Condorcet winner whenever one exists
CONDORCET_CONSISTENT = (
    "kemeny_young", "schulze", "ranked_pairs", "copeland", "maximal_lotteries"
)


class VotingRanker(AgentRankerMixin, TaskTableMixin, FitTemplateMixin, BaseEstimator):
    """Rank agents by a voting rule where every task ranks the agents.

    Voting-as-evaluation (Lanctot et al., 2023): each task (column of ``X``)
    is a voter whose ballot ranks the agents (rows) by their scores on it,
    higher being better. A social-choice rule aggregates the ballots into one
    ranking. Unlike averaging, the result is invariant to any monotone
    rescaling of each task, and the Condorcet-consistent rules rank first an
    agent that beats every other on a majority of tasks.

    Ties (equal scores) count as no preference either way, and NaN means the
    task did not score that agent: it then votes only on the agents it
    scored, so no imputation is needed.

    ``method`` (the rules are computed from the pairwise counts
    ``N[a, b]`` = tasks ranking ``a`` strictly above ``b``):

    ``"kemeny_young"``
        The ranking that agrees with the most (task, pair) preferences
        (maximum-likelihood under Condorcet's noise model). Exact: an integer
        program (HiGHS via :func:`scipy.optimize.milp`) on each strongly
        connected component of the majority graph; 20 agents in well under a
        second on typical data. Score = agents ranked below the agent's class
        of twins (agents whose swap leaves every count ``N`` unchanged, e.g.
        exact copies), so twins share a score and a rank.
        Condorcet-consistent, homogeneous.
    ``"schulze"``
        Beatpath method with winning votes; score = number of agents beaten by
        strongest path. Condorcet-consistent, homogeneous.
    ``"ranked_pairs"``
        Tideman's method: majorities locked by decreasing margin unless they
        close a cycle; score = agents below in the locked graph.
        Condorcet-consistent, homogeneous.
    ``"copeland"``
        Pairwise wins + half the pairwise ties. Condorcet-consistent,
        homogeneous.
    ``"borda"``
        Each task gives an agent one point per agent ranked below it and half
        a point per tie. Not Condorcet-consistent; homogeneous.
    ``"plurality"``
        One vote per task for its best agent (split among tied best agents;
        tasks scoring fewer than two agents are skipped). Not
        Condorcet-consistent; homogeneous.
    ``"maximal_lotteries"``
        The maximum-entropy optimal strategy of the symmetric zero-sum game
        on the margin matrix, iterated on the agents it leaves out (as
        OpenSpiel's ``iterative=True``); score = levels below + probability.
        Condorcet-consistent (the winner gets probability 1), homogeneous.
    ``"sco"``
        Soft Condorcet Optimization (Lanctot et al., 2024): ratings in
        ``rating_bounds`` minimising a sigmoid-smoothed Kendall-tau distance
        to the votes, averaged over tasks; robust when most results are
        missing. Not Condorcet-consistent in general; homogeneous (the loss
        is a mean over tasks). The loss flattens as agents separate, so the
        ranking is identified but gaps between well-separated ratings are not.

    "Homogeneous" means counting every task twice gives the same ranking.
    Ties between agents in a rule's own scores are broken by Borda score,
    then by row order. Kemeny-Young returns, among the optimal rankings that
    keep every class of twins together (one always does), one closest in
    Kendall-tau distance to that order; if several are equally close the
    choice is deterministic but not canonical (homogeneity and permutation
    equivariance then hold for the optimal set and the ``agreement_``, not
    for the ranking returned). The tie-break orders ``ranking_`` but never
    decides a ``rank``: twins share theirs.

    Parameters
    ----------
    method : str, default="kemeny_young"
        One of the rules above.
    temperature : float, default=1.0
        ``"sco"`` only: the sigmoid temperature, in rating units.
    rating_bounds : tuple of (float, float), default=(-100.0, 100.0)
        ``"sco"`` only: box for the ratings (OpenSpiel's Atari example).
    max_iter : int, default=1000
        ``"sco"`` only: L-BFGS-B iterations; a ``ConvergenceWarning`` is
        raised when they run out.
    tol : float, default=1e-9
        ``"sco"``: gradient tolerance; ``"maximal_lotteries"``: the solver's
        relative tie tolerance.
    time_limit : float or None, default=None
        ``"kemeny_young"`` only: seconds the exact search may take in all.
        Finding the ranking is NP-hard; near-ties and pairs of agents no task
        compares make large profiles hard (86 agents of a football results
        file: about a minute; 337: not within five). Past the limit ``fit``
        raises a ``ValueError`` that says so and names the polynomial,
        Condorcet-consistent rules (``"schulze"``, ``"ranked_pairs"``). None:
        no limit.

    Attributes
    ----------
    agents_ : ndarray of shape (n_agents,)
        Agent labels (the DataFrame index, else ``0 .. n_agents - 1``).
    tasks_ : ndarray of shape (n_tasks,)
        Task labels (``feature_names_in_``, else ``0 .. n_tasks - 1``).
    ranking_ : ndarray of shape (n_agents,)
        Agent labels, best first.
    agent_scores_ : ndarray of shape (n_agents,)
        The rule's score of each agent (higher = better); ``ranking_``
        sorts by it (ties as described above).
    preference_matrix_ : ndarray of shape (n_agents, n_agents)
        ``N[a, b]``: tasks ranking ``a`` strictly above ``b``.
    margin_matrix_ : ndarray of shape (n_agents, n_agents)
        ``N - N.T`` (antisymmetric).
    condorcet_winner_ : label or None
        The agent with a positive margin over every other, if any.
    agreement_ : float
        Preferences respected by ``ranking_``: the sum of ``N[a, b]`` over
        ``a`` ranked above ``b`` (maximal for Kemeny-Young).
    lottery_ : ndarray of shape (n_agents,)
        ``"maximal_lotteries"`` only: the first-level maximal lottery.
    ratings_ : ndarray of shape (n_agents,)
        ``"sco"`` only: the optimised ratings (``agent_scores_``).
    loss_ : float
        ``"sco"`` only: the final loss (mean soft Kendall-tau distance).
    n_iter_ : int
        ``"sco"`` only: L-BFGS-B iterations.
    n_features_in_ : int
        Number of tasks seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_columns,)
        Task names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    AlphaRank : Ranks by evolutionary survival in a game.
    NashAverager : Ranks against the maximum-entropy Nash mixture of tasks.

    References
    ----------
    M. Lanctot, K. Larson, Y. Bachrach, L. Marris, Z. Li, A. Bhoopchand, T.
    Anthony, B. Tanner and A. Koop. Evaluating Agents using Social Choice
    Theory. arXiv:2312.03121, 2023.

    M. Lanctot, K. Larson, M. Kaisers, Q. Berthet, I. Gemp, M. Diaz, R.-R.
    Maura-Rivero, Y. Bachrach, A. Koop and D. Precup. Soft Condorcet
    Optimization for Ranking of General Agents. arXiv:2411.00119, 2024.

    Examples
    --------
    Three tasks rank four agents (rows); task 2 did not score agent ``d``.
    Majorities cycle (``a`` beats ``b``, ``b`` beats ``c``, ``c`` beats ``a``),
    so there is no Condorcet winner, and Kemeny-Young overrules the weakest
    majority:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn_eval.game import VotingRanker
    >>> X = pd.DataFrame([[9.0, 3.0, 7.0], [8.0, 5.0, 6.0], [1.0, 4.0, 9.0],
    ...                   [2.0, 1.0, np.nan]], index=["a", "b", "c", "d"])
    >>> vr = VotingRanker().fit(X)
    >>> vr.ranking_.tolist(), vr.condorcet_winner_
    (['a', 'b', 'c', 'd'], None)
    >>> vr.margin_matrix_
    array([[ 0.,  1., -1.,  2.],
           [-1.,  0.,  1.,  2.],
           [ 1., -1.,  0.,  0.],
           [-2., -2.,  0.,  0.]])
    >>> borda = VotingRanker(method="borda").fit(X)
    >>> borda.agent_table()  # doctest: +NORMALIZE_WHITESPACE
           score  rank  copeland_wins
    agent
    a        5.0     1              2
    b        5.0     1              2
    c        4.0     3              1
    d        1.0     4              0
    """

    _parameter_constraints: dict = {
        "method": [StrOptions(set(METHODS))],
        "temperature": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "rating_bounds": [tuple, list],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "time_limit": [Interval(numbers.Real, 0.0, None, closed="neither"), None],
    }

    def __init__(
        self,
        method="kemeny_young",
        temperature=1.0,
        rating_bounds=(-100.0, 100.0),
        max_iter=1000,
        tol=1e-9,
        time_limit=None,
    ):
        self.method = method
        self.temperature = temperature
        self.rating_bounds = rating_bounds
        self.max_iter = max_iter
        self.tol = tol
        self.time_limit = time_limit

    def fit(self, X, y=None):
        """Aggregate the tasks' rankings of the agents.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Scores of agents (rows) on tasks (columns), higher = better. NaN
            marks a result the task does not have; inf is not allowed.
        y : None
            Ignored.

        Returns
        -------
        self : VotingRanker
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        bounds = self._check_bounds()
        X_checked, inputs = check_fit_input(
            X, ensure_all_finite="allow-nan", ensure_min_samples=2, dtype=np.float64
        )
        labels = row_labels(X, X_checked.shape[0]) if hasattr(X, "iloc") else None
        _check_profile(X_checked, labels)
        return X, X_checked, inputs, bounds

    def _solve(self, checked):
        X, X_checked, inputs, bounds = checked
        fitted = _aggregate(X_checked, self.method, self.temperature, bounds,
                            self.max_iter, self.tol, self.time_limit)
        agents = row_labels(X, X_checked.shape[0])
        winner = fitted.pop("condorcet")
        order = fitted.pop("order")
        fitted.update(
            agents_=agents,
            tasks_=column_labels(X, X_checked.shape[1]),
            ranking_=agents[order],
            condorcet_winner_=None if winner is None else agents[winner],
            _task_agreement=_task_agreement(X_checked, order, agents),
        )
        if fitted.pop("converged", True) is False:
            warnings.warn(
                f"Soft Condorcet Optimization stopped after max_iter="
                f"{self.max_iter} iterations before the gradient fell below "
                f"tol={self.tol}.",
                ConvergenceWarning,
                stacklevel=find_stack_level(),
            )
        return {**inputs, **fitted}

    def _check_bounds(self):
        bounds = tuple(self.rating_bounds)
        if len(bounds) != 2 or not all(
            isinstance(b, numbers.Real) and np.isfinite(b) for b in bounds
        ) or not bounds[0] < bounds[1]:
            raise ValueError(
                "rating_bounds must be two finite numbers (lower, upper) with "
                f"lower < upper; got {self.rating_bounds!r}."
            )
        return float(bounds[0]), float(bounds[1])

    def agent_table(self):
        """Per-agent results as a DataFrame, in the order of ``ranking_``.

        Indexed by agent label (index name ``"agent"``): ``score``
        (``agent_scores_``), ``rank`` (1 = best; scores equal within the
        rule's tolerance share the best rank), ``copeland_wins`` (pairwise
        majorities won) and, for maximal lotteries, ``lottery``. Rows follow
        the rule's ranking, tie-breaks included.

        Returns
        -------
        table : pandas.DataFrame of shape (n_agents, n_columns)
        """
        table = super().agent_table()
        position = {label: k for k, label in enumerate(self.ranking_.tolist())}
        order = sorted(range(len(table)), key=lambda k: position[table.index[k]])
        return table.iloc[order]

    def _agent_columns(self):
        columns = {"copeland_wins": (self.margin_matrix_ > 0).sum(axis=1)}
        if self.method == "maximal_lotteries":
            columns["lottery"] = self.lottery_
        return columns

    def _rank_rtol(self):
        # the library's rule, widened to the solver's accuracy for LP scores
        return max(RANK_RTOL, {"maximal_lotteries": rules.SOLVER_RTOL,
                               "sco": rules.SOLVER_RTOL}.get(self.method, 0.0))

    def _task_columns(self):
        return self._task_agreement

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Tasks (the voters) are resampled and ``agent_scores_`` refitted.

        Parameters
        ----------
        target : {"agent_scores"} or None, default=None

        Returns
        -------
        plan : IntervalPlan
        """
        return task_resampling_plan(self, target, "VotingRanker")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _check_profile(X, agents):
    # inf is rejected by validate_data; NaN marks a missing result. Agents
    # with no score follow the library's one rule, named by their labels.
    check_empty_agents(X, agents, what="VotingRanker.fit",
                       remedy="drop them first")
    present = ~np.isnan(X)
    if not (present.sum(axis=0) >= 2).any():
        raise ValueError("No task scores two or more agents: there is no vote.")


def _aggregate(X, method, temperature, bounds, max_iter, tol, time_limit=None):
    N, E = rules.pairwise_counts(X)
    margin = N - N.T
    borda_scores, _ = rules.borda(N, E)
    out = {}
    if method == "kemeny_young":
        scores, order = kemeny_young(N, borda_scores, time_limit=time_limit)
    elif method == "schulze":
        scores, order = rules.schulze(N, borda_scores)
    elif method == "ranked_pairs":
        scores, order, _ = rules.ranked_pairs(margin, borda_scores)
    elif method == "copeland":
        scores, order = rules.copeland(margin, borda_scores)
    elif method == "borda":
        scores, order = borda_scores, rules.order_by_scores(borda_scores)
    elif method == "plurality":
        scores, order = rules.plurality(X)
    elif method == "maximal_lotteries":
        scores, order, lottery = rules.maximal_lotteries(
            margin, borda_scores, tol=tol
        )
        out["lottery_"] = lottery
    else:
        n_tasks = int((((~np.isnan(X)).sum(axis=0)) >= 2).sum())
        scores, loss, n_iter, converged = soft_condorcet_optimization(
            N, n_tasks, temperature, bounds, max_iter, tol
        )
        order = rules.order_by_scores(
            scores, tiebreak=borda_scores, rtol=rules.SOLVER_RTOL
        )
        out.update(ratings_=scores.copy(), loss_=loss, n_iter_=n_iter,
                   converged=converged)
    out.update(
        agent_scores_=np.asarray(scores, dtype=np.float64),
        order=order,
        preference_matrix_=N,
        margin_matrix_=margin,
        condorcet=rules.condorcet_winner(margin),
        agreement_=agreement(N, order),
    )
    return out


def _position_of(agents, ranking):
    where = {label: k for k, label in enumerate(ranking.tolist())}
    return np.array([where[a] for a in agents.tolist()], dtype=np.intp)


def _task_kendall(X, pos):
    above = pos[:, None] < pos[None, :]  # a ranked above b in the consensus
    conc = np.zeros(X.shape[1])
    disc = np.zeros(X.shape[1])
    chunk = max(1, rules._CHUNK_ELEMENTS // max(1, X.shape[0] ** 2))
    for start in range(0, X.shape[1], chunk):
        B = X[:, start : start + chunk]
        gt = B[:, None, :] > B[None, :, :]
        conc[start : start + chunk] = (gt & above[:, :, None]).sum(axis=(0, 1))
        disc[start : start + chunk] = (gt & ~above[:, :, None]).sum(axis=(0, 1))
    total = conc + disc
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (conc - disc) / np.where(total > 0, total, 1.0)
    return np.where(total > 0, tau, np.nan)


def _task_top(X, pos, agents):
    filled = np.where(np.isnan(X), -np.inf, X)
    best = filled == filled.max(axis=0, keepdims=True)
    key = np.where(best & ~np.isnan(X), pos[:, None], np.iinfo(np.intp).max)
    top = np.argmin(key, axis=0)
    return np.asarray(agents, dtype=object)[top]



def _task_agreement(X, order, agents):
    """Per task: agents it ranks, Kendall tau with the ranking, its top agent."""
    pos = _position_of(np.arange(X.shape[0]), order)
    return {
        "n_ranked": (~np.isnan(X)).sum(axis=0),
        "kendall_tau": _task_kendall(X, pos),
        "top_agent": _task_top(X, pos, agents),
    }
