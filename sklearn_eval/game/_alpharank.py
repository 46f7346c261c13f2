"""AlphaRank: rank agents by long-run survival in an evolutionary Markov chain."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..base import AgentRankerMixin, FitTemplateMixin, TaskTableMixin
from ..utils._protocol import (
    check_fit_input,
    column_labels,
    row_labels,
)
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ..utils._stack import find_stack_level
from ..utils._validation import asymmetry_cell
from ._intervals import task_resampling_plan
from ._markov import (
    SPARSE_MIN_STATES,
    _gth_linear,
    leading_order_stationary,
    log_fixation,
    sink_components,
    stationary_from_log_rates,
)
from ._maxent_nash import _unit_scale
from ._nash_scaling import (
    antisymmetric_part,
    antisymmetry_ratio,
    column_normalization,
    normalize_columns,
)

__all__ = ["AlphaRank", "infinite_alpha_limit"]

# gains within this fraction of the largest |gain| are neutral (ties) in the
# infinite-alpha limit, where only their sign matters
_TIE_RTOL = 1e-12
# beyond this largest |alpha * gain| * (m - 1) the log rates approach the
# double range: the chain is solved in leading order (its alpha -> inf form
# at the given alpha), which is exact there
_SATURATED = 1e300
# |alpha * gain| above which a fixation probability is 1 or exp(-(m-1)|u|)
# to double precision
_SATURATED_U = 800.0
# the most moves (profile -> profile) a chain is built with: 24 bytes each,
# about 0.5 GB, several times that while they are built
_MAX_MOVES = 20_000_000


# ---------------------------------------------------------------- the moves
def _single_population_moves(M):
    """Every mutation ``s -> r`` with the mutant's payoff gain ``M[r,s] - M[s,r]``."""
    n = M.shape[0]
    src, dst = np.nonzero(~np.eye(n, dtype=bool))
    gain = M[dst, src] - M[src, dst]
    return src, dst, gain, 1.0 / (n - 1)


def _two_population_moves(S):
    """Profile ``(i, j) -> i * n_tasks + j``; the agent or the task deviates.

    The agent population earns ``S`` and the task population ``-S`` (zero
    sum), so an agent deviation ``i -> i'`` gains ``S[i', j] - S[i, j]`` and a
    task deviation ``j -> j'`` gains ``S[i, j] - S[i, j']``.
    """
    n_a, n_t = S.shape
    i, j = np.meshgrid(np.arange(n_a), np.arange(n_t), indexing="ij")
    i, j = i.ravel(), j.ravel()
    # agent deviations
    ia = np.repeat(i, n_a)
    ja = np.repeat(j, n_a)
    ia2 = np.tile(np.arange(n_a), n_a * n_t)
    keep = ia2 != ia
    ia, ja, ia2 = ia[keep], ja[keep], ia2[keep]
    # task deviations
    it = np.repeat(i, n_t)
    jt = np.repeat(j, n_t)
    jt2 = np.tile(np.arange(n_t), n_a * n_t)
    keep = jt2 != jt
    it, jt, jt2 = it[keep], jt[keep], jt2[keep]
    src = np.concatenate([ia * n_t + ja, it * n_t + jt])
    dst = np.concatenate([ia2 * n_t + ja, it * n_t + jt2])
    gain = np.concatenate([S[ia2, ja] - S[ia, ja], S[it, jt] - S[it, jt2]])
    return src, dst, gain, 1.0 / ((n_a - 1) + (n_t - 1))


# -------------------------------------------------------- stationary pieces
def _stationary(moves, n_states, alpha, m):
    src, dst, gain, eta = moves
    if np.isinf(alpha):
        return _limit(moves, n_states, m)[0], "limit"
    top = float(np.max(np.abs(gain))) if gain.size else 0.0
    with np.errstate(over="ignore"):
        reach = alpha * top * (m - 1.0)
    if not reach <= _SATURATED:
        return _saturated_stationary(moves, n_states, alpha, m), "leading-order"
    log_rate = np.log(eta) + log_fixation(alpha * gain, m)
    return stationary_from_log_rates(src, dst, log_rate, n_states)


def _saturated_stationary(moves, n_states, alpha, m):
    """Stationary distribution where ``alpha * |gain|`` nears the double range.

    A move with ``|u| = alpha |gain|`` beyond ``_SATURATED_U`` has rate
    ``eta`` (improving) or ``eta exp(-(m - 1) |u|)`` (worsening) to double
    precision; writing the latter as coefficient ``eta`` and resistance
    ``(m - 1) |gain|`` (``alpha`` is a common factor of all resistances),
    the leading-order elimination gives the distribution without ever
    forming ``exp`` or ``alpha * gain`` sums that overflow. Smaller ``|u|``
    keep their exact rate with zero resistance. From ``SPARSE_MIN_STATES``
    profiles on, the infinite-alpha limit is used instead.
    """
    src, dst, gain, eta = moves
    if n_states >= SPARSE_MIN_STATES:
        # a dense O(n^3) elimination is out of reach: every fixation is
        # saturated, so the chain is the infinite-alpha one (moves within
        # _TIE_RTOL of neutral aside)
        return _limit(moves, n_states, m)[0]
    with np.errstate(over="ignore", invalid="ignore"):
        u = np.where(gain == 0, 0.0, alpha * gain)
    moderate = np.abs(u) <= _SATURATED_U
    coefficient = np.full(gain.shape, eta)
    coefficient[moderate] = eta * np.exp(log_fixation(u[moderate], m))
    resistance = np.where(moderate | (gain > 0), 0.0, (m - 1.0) * np.abs(gain))
    rate = np.zeros((n_states, n_states))
    R = np.zeros((n_states, n_states))
    rate[src, dst] = coefficient
    R[src, dst] = resistance
    return leading_order_stationary(rate, R)


def _unit_moves(M, ava):
    """The moves of the game ``M / s`` and ``s``, a power of two with
    ``max|M| / s`` in [1, 2): gains are differences of payoffs, which
    overflow near the largest double and lose digits near the smallest, so
    the chain uses ``alpha * s`` on the unit-scale game (exact rescaling)."""
    s = _unit_scale(M)
    U = M / s
    return (_single_population_moves(U) if ava else _two_population_moves(U)), s


def _response_graph(moves, n_states, m):
    """Moves that survive ``alpha -> inf``: coefficient 1 (better), 1/m (tie)."""
    src, dst, gain, _ = moves
    scale = float(np.max(np.abs(gain))) if gain.size else 0.0
    tie = np.abs(gain) <= _TIE_RTOL * scale
    up = (gain > 0) & ~tie
    keep = up | tie
    weight = np.where(up, 1.0, 1.0 / m)[keep]
    graph = sp.csr_array(
        (weight, (src[keep], dst[keep])), shape=(n_states, n_states)
    )
    resistance = np.where(keep, 0.0, (m - 1.0) * np.abs(gain))
    coefficient = np.where(tie, 1.0 / m, 1.0)
    return graph, coefficient, resistance


def _limit(moves, n_states, m):
    """Exact infinite-alpha distribution, response graph and sink components."""
    src, dst, _, _ = moves
    graph, coefficient, resistance = _response_graph(moves, n_states, m)
    sinks = sink_components(graph)
    if len(sinks) == 1:
        pi = _within_sink(graph, sinks[0], n_states)
    else:
        # several sinks: the split follows from the escape resistances
        rate = np.zeros((n_states, n_states))
        R = np.zeros((n_states, n_states))
        rate[src, dst] = coefficient
        R[src, dst] = resistance
        pi = leading_order_stationary(rate, R)
    return pi, graph, sinks


def _within_sink(graph, sink, n_states):
    pi = np.zeros(n_states)
    if sink.size == 1:
        pi[sink] = 1.0
        return pi
    sub = graph[sink][:, sink]
    if sink.size >= SPARSE_MIN_STATES:
        coo = sub.tocoo()
        w, _ = stationary_from_log_rates(
            coo.row, coo.col, np.log(coo.data), sink.size
        )
    else:
        log_pi = _gth_linear(sub.toarray())
        w = np.exp(log_pi - log_pi.max())
    pi[sink] = w / w.sum()
    return pi


@validate_params(
    {
        "rate": ["array-like", "sparse matrix"],
        "resistance": ["array-like", "sparse matrix", None],
    },
    prefer_skip_nested_validation=True,
)
def infinite_alpha_limit(rate, resistance=None):
    """Exact ``alpha -> inf`` limit of an alpha-Rank-type Markov chain.

    The chain moves ``s -> r`` with probability ``rate[s, r] * exp(-alpha *
    resistance[s, r])``. Moves of zero resistance form the *response graph*
    (for alpha-Rank: strict improvements, coefficient ``eta``, and neutral
    moves, ``eta / m``); as ``alpha`` grows the stationary distribution
    concentrates on its sink strongly connected components. With one sink the
    limit is the stationary distribution of the response-graph chain inside
    that sink; with several, the split between sinks is decided by the
    resistances of the escapes (Freidlin-Wentzell), computed here exactly by
    an elimination in leading-order arithmetic. No exponential is evaluated.

    Parameters
    ----------
    rate : array-like or sparse matrix of shape (n_states, n_states)
        Non-negative coefficients of the possible moves (0 = impossible);
        the diagonal is ignored.
    resistance : array-like or sparse matrix of shape (n_states, n_states), \
            default=None
        Non-negative decay rates of the moves; 0 marks a response-graph edge.
        None means every move with a positive rate has resistance 0, which
        determines the limit only when the response graph has a single sink
        component.

    Returns
    -------
    ndarray of shape (n_states,)
        The limit distribution (zero outside the sink components).

    Raises
    ------
    ValueError
        If the shapes disagree, a rate or resistance is negative or not
        finite, or several sink components exist and ``resistance`` does not
        connect them.

    See Also
    --------
    sink_components : The sink components of a response graph.
    AlphaRank : alpha-Rank on payoff matrices (``alpha=np.inf`` uses this limit).

    Examples
    --------
    A three-cycle with a fourth state that everybody beats:

    >>> import numpy as np
    >>> from sklearn_eval.game import infinite_alpha_limit
    >>> graph = np.array([[0, 1, 0, 0],
    ...                   [0, 0, 1, 0],
    ...                   [1, 0, 0, 0],
    ...                   [1, 1, 1, 0]])
    >>> infinite_alpha_limit(graph).round(4)
    array([0.3333, 0.3333, 0.3333, 0.    ])

    Two separate sinks, ``{0}`` and ``{1}``, each escapable at a cost: the one
    that is harder to leave keeps all the mass.

    >>> rate = np.array([[0, 1], [1, 0]])
    >>> infinite_alpha_limit(rate, resistance=[[0, 2.0], [0.5, 0]])
    array([1., 0.])
    """
    C = _dense_nonnegative(rate, "rate")
    n = C.shape[0]
    if resistance is None:
        R = np.zeros_like(C)
    else:
        R = _dense_nonnegative(resistance, "resistance")
        if R.shape != C.shape:
            raise ValueError(
                f"rate and resistance must have the same shape; got {C.shape} "
                f"and {R.shape}."
            )
    off = ~np.eye(n, dtype=bool)
    live = (C > 0) & off
    graph = sp.csr_array(np.where(live & (R == 0), C, 0.0))
    sinks = sink_components(graph)
    if n == 1:
        return np.ones(1)
    if len(sinks) == 1:
        return _within_sink(graph, sinks[0], n)
    escapes = live & (R > 0)
    if not escapes.any():
        raise ValueError(
            f"The response graph has {len(sinks)} sink components and no move "
            "leaves them, so the limit is not unique; pass the escape "
            "resistances."
        )
    try:
        return leading_order_stationary(C, R)
    except ValueError as exc:
        raise ValueError(
            f"The response graph has {len(sinks)} sink components that the "
            "given resistances do not connect: the chain is reducible and the "
            "limit is not unique."
        ) from exc


def _dense_nonnegative(a, name):
    a = a.toarray() if sp.issparse(a) else np.asarray(a, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(
            f"{name} must be a non-empty square matrix; got shape {a.shape}."
        )
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"{name} must be finite and non-negative.")
    return a


# ---------------------------------------------------------------- estimator
class AlphaRank(AgentRankerMixin, TaskTableMixin, FitTemplateMixin, BaseEstimator):
    """alpha-Rank: agents ranked by their mass in an evolutionary Markov chain.

    alpha-Rank (Omidshafiei et al., 2019) lets finite populations of size
    ``m`` play the game; a single mutant of another strategy (agent) appears
    and takes over its population with the fixation probability of the Fermi
    imitation process at ranking intensity ``alpha``. Populations are almost
    always monomorphic, so the states are strategy profiles and the ranking
    is the stationary distribution of this chain: long-run survival, not
    equilibrium. It is unique for every game, where Nash equilibria are not.

    Two games are supported:

    * ``game="agent_vs_agent"`` (single population): ``X`` is a square matrix
      of win probabilities, log-odds or general payoffs ``M[i, j]`` of agent
      ``i`` against agent ``j``; a mutant ``r`` in a population of ``s``
      gains ``M[r, s] - M[s, r]`` (the local selection model, as OpenSpiel's
      default).
    * ``game="agent_vs_task"`` (two populations): ``X`` is an agents x tasks
      score matrix ``S``; agents earn ``S`` and tasks ``-S`` (zero sum), the
      states are (agent, task) profiles and the agent distribution is the
      marginal over tasks.

    The game is rescaled by a power of two to unit size first (``alpha``
    correspondingly), so payoffs anywhere in the double range, from 1e-300
    to 1.7e308, give the distribution of the unit-scale game.
    Fixation probabilities are computed in log space and the stationary
    distribution by an elimination that never subtracts (GTH), so no
    exponential overflows at any ``alpha`` (OpenSpiel's ``compute`` overflows
    on the soccer matrix at ``alpha=100``). ``alpha=np.inf`` gives the exact
    limit from the sink components of the response graph; ``alpha="auto"``
    doubles ``alpha`` until the distribution stops changing, as in the paper.
    At 1,000 profiles and more the stationary distribution is a sparse solve.

    Parameters
    ----------
    alpha : float, np.inf or "auto", default="auto"
        Ranking intensity (selection strength). Larger values rank more
        sharply; ``np.inf`` is the limit. ``"auto"``: the sweep
        ``alpha_k = alpha_0 * 2**k`` (``alpha_0 = 1e-2 / max|gain|``) stops at
        the first ``alpha`` whose distribution is within ``sweep_tol`` (max
        absolute difference) of the previous one; the sweep is stored.
    population_size : int, default=50
        Size ``m`` of each population (at least 2).
    game : {"agent_vs_task", "agent_vs_agent"}, default="agent_vs_task"
        Which game ``X`` describes (the default of every game estimator,
        as :class:`NashAverager`). An agent-vs-agent game needs a square
        matrix and says so.
    payoff : {"probability", "logit", "payoff"}, default="probability"
        Agent vs agent only: ``X`` holds win probabilities (``X[i, j] + X[j,
        i] = 1``, the diagonal ignored), log-odds (antisymmetric) or any
        payoffs of a symmetric two-player game (no constraint). Probabilities
        and log-odds are used as payoffs as given: a mutant's gain is ``2 P[r,
        s] - 1`` or ``2 A[r, s]``.
    normalize : {None, "minmax", "zscore"}, default=None
        Agent vs task only: rescale each task (column) first, as in
        :class:`NashAverager`; a constant task maps to 0 with a warning.
        ``alpha`` is on the scale of the normalised scores.
    antisymmetry_tol : float, default=1e-8
        Agent vs agent with probabilities or log-odds: largest accepted
        violation of ``P + P^T = 1`` or ``A + A^T = 0`` (relative to ``max|A|``
        when that exceeds 1).
    sweep_tol : float, default=1e-8
        Convergence tolerance of ``alpha="auto"``.
    max_doublings : int, default=200
        Largest number of doublings of ``alpha`` in the sweep; a
        ``ConvergenceWarning`` is raised when it runs out.

    Attributes
    ----------
    agents_ : ndarray of shape (n_agents,)
        Agent labels (the DataFrame index, else ``0 .. n_agents - 1``).
    agent_distribution_ : ndarray of shape (n_agents,)
        Stationary mass of each agent (marginal over tasks for two
        populations). Sums to 1.
    agent_scores_ : ndarray of shape (n_agents,)
        Equal to ``agent_distribution_`` (higher = better).
    tasks_ : ndarray of shape (n_tasks,)
        Agent vs task only: task labels.
    task_distribution_ : ndarray of shape (n_tasks,)
        Agent vs task only: stationary mass of each task.
    stationary_distribution_ : ndarray of shape (n_agents,) or (n_agents, n_tasks)
        Stationary distribution over profiles.
    alpha_ : float
        The ranking intensity used (the end of the sweep for ``"auto"``).
    alphas_ : ndarray of shape (n_alphas,)
        ``alpha="auto"`` only: the swept values, ending at ``alpha_``.
    alpha_path_ : ndarray of shape (n_alphas, n_agents)
        ``alpha="auto"`` only: the agent distribution at each swept alpha.
    limit_distribution_ : ndarray of shape (n_agents,)
        Agent distribution in the exact ``alpha -> inf`` limit.
    response_graph_ : scipy.sparse.csr_array of shape (n_profiles, n_profiles)
        Edge ``s -> r`` when deviating from profile ``s`` to ``r`` strictly
        improves the deviator (weight 1) or leaves it indifferent (weight
        ``1 / population_size``): the moves that survive ``alpha -> inf``.
        Profiles are agents (single population) or ``i * n_tasks + j``.
    sink_components_ : list of ndarray of int
        Sink strongly connected components of ``response_graph_`` (profile
        indices): the support of the infinite-alpha limit.
    payoff_ : ndarray
        The payoff matrix used (normalised scores for agent vs task).
    solver_ : str
        ``"gth"``, ``"gth-log"`` (some rate underflowed), ``"sparse"``,
        ``"leading-order"`` (``alpha * |gain|`` so large that the log rates
        near the double range: every fixation is saturated and the chain is
        solved in leading order, exactly) or ``"limit"``.
    n_features_in_ : int
        Number of columns of ``X``.
    feature_names_in_ : ndarray of shape (n_columns,)
        Column names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    NashAverager : Ranks by the maximum-entropy Nash equilibrium instead.
    VotingRanker : Ranks by social choice over tasks.
    infinite_alpha_limit : The limit for a hand-made chain.

    Notes
    -----
    Within a sink component the infinite-alpha limit weights neutral moves
    by ``1 / m`` (the exact fixation probability of a neutral mutant), where
    OpenSpiel's ``use_inf_alpha`` uses 1/2. The ranking ties agents whose
    masses agree to 1e-9 (relative), as in a symmetric cycle.

    References
    ----------
    S. Omidshafiei, C. Papadimitriou, G. Piliouras, K. Tuyls, M. Rowland,
    J.-B. Lespiau, W. M. Czarnecki, M. Lanctot, J. Perolat and R. Munos.
    alpha-Rank: Multi-Agent Evaluation by Evolution. Scientific Reports 9,
    2019.

    Examples
    --------
    Rock-paper-scissors: every agent survives equally.

    >>> import numpy as np
    >>> from sklearn_eval.game import AlphaRank
    >>> rps = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])
    >>> ar = AlphaRank(alpha=10.0, game="agent_vs_agent").fit(rps)
    >>> ar.agent_distribution_.round(4)
    array([0.3333, 0.3333, 0.3333])

    A transitive game concentrates on the best agent as alpha grows:

    >>> P = np.array([[0.5, 0.7, 0.9], [0.3, 0.5, 0.6], [0.1, 0.4, 0.5]])
    >>> ar = AlphaRank(alpha=np.inf, game="agent_vs_agent").fit(P)
    >>> ar.agent_distribution_
    array([1., 0., 0.])
    >>> ar.agent_table()  # doctest: +NORMALIZE_WHITESPACE
           score  rank  limit  in_sink
    agent
    0        1.0     1    1.0     True
    1        0.0     2    0.0    False
    2        0.0     2    0.0    False
    """

    _parameter_constraints: dict = {
        "alpha": [
            Interval(numbers.Real, 0.0, None, closed="right"),  # np.inf allowed
            StrOptions({"auto"}),
        ],
        "population_size": [Interval(numbers.Integral, 2, None, closed="left")],
        "game": [StrOptions({"agent_vs_agent", "agent_vs_task"})],
        "payoff": [StrOptions({"probability", "logit", "payoff"})],
        "normalize": [None, StrOptions({"minmax", "zscore"})],
        "antisymmetry_tol": [Interval(numbers.Real, 0.0, None, closed="left")],
        "sweep_tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "max_doublings": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        alpha="auto",
        population_size=50,
        game="agent_vs_task",
        payoff="probability",
        normalize=None,
        antisymmetry_tol=1e-8,
        sweep_tol=1e-8,
        max_doublings=200,
    ):
        self.alpha = alpha
        self.population_size = population_size
        self.game = game
        self.payoff = payoff
        self.normalize = normalize
        self.antisymmetry_tol = antisymmetry_tol
        self.sweep_tol = sweep_tol
        self.max_doublings = max_doublings

    def fit(self, X, y=None):
        """Compute the stationary distribution of the alpha-Rank chain.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_agents) or (n_agents, n_tasks)
            Square payoff matrix (agent vs agent) or agents x tasks scores
            (agent vs task, higher = better). No NaN or inf.
        y : None
            Ignored.

        Returns
        -------
        self : AlphaRank
        """
        return super().fit(X, y)

    def _check_fit_data(self, X, y=None):
        ava = self.game == "agent_vs_agent"
        X_checked, inputs = check_fit_input(
            X, ensure_min_samples=2, ensure_min_features=2 if ava else 1,
            dtype=np.float64,
        )
        return X, X_checked, inputs

    def _solve(self, checked):
        X, X_checked, inputs = checked
        ava = self.game == "agent_vs_agent"
        fitted = self._solve_matrix(X_checked)
        fitted["agents_"] = row_labels(X, X_checked.shape[0])
        if not ava:
            fitted["tasks_"] = column_labels(X, X_checked.shape[1])
        return {**inputs, **fitted}

    def _solve_matrix(self, X):
        """Every fitted attribute but the labels, from the checked matrix."""
        ava = self.game == "agent_vs_agent"
        n_rows, n_cols = X.shape
        if ava:
            M = _agent_vs_agent_payoff(X, self.payoff, self.antisymmetry_tol)
            shape = (n_rows,)
        else:
            M = _normalize_tasks(X, self.normalize)
            shape = (n_rows, n_cols)
        _check_chain_size(shape)
        moves, unit = _unit_moves(M, ava)
        n_states = int(np.prod(shape))
        m = self.population_size
        limit, graph, sinks = _limit(moves, n_states, m)
        out = {}
        if self.alpha == "auto":
            alphas, path, pi, solver = _sweep(
                moves, n_states, shape, m, self.sweep_tol, self.max_doublings,
                unit,
            )
            out.update(alphas_=alphas, alpha_path_=path)
            alpha = float(alphas[-1])
        else:
            alpha = float(self.alpha)
            pi, solver = (limit, "limit") if np.isinf(alpha) else _stationary_at(
                moves, n_states, alpha, unit, m
            )
        pi = pi.reshape(shape)
        agent_pi = pi if ava else pi.sum(axis=1)
        out.update(
            agent_distribution_=agent_pi,
            agent_scores_=agent_pi.copy(),
            stationary_distribution_=pi,
            alpha_=alpha,
            limit_distribution_=_marginal(limit.reshape(shape), ava),
            response_graph_=graph,
            sink_components_=sinks,
            payoff_=M,
            solver_=solver,
            _shape=shape,
        )
        if not ava:
            out["task_distribution_"] = pi.sum(axis=0)
        return out

    def sweep(self, alphas):
        """Agent distribution at each ranking intensity, on the fitted game.

        Parameters
        ----------
        alphas : array-like of shape (n_alphas,)
            Positive values (``np.inf`` allowed).

        Returns
        -------
        ndarray of shape (n_alphas, n_agents)
        """
        check_is_fitted(self)
        alphas = np.asarray(alphas, dtype=np.float64).ravel()
        if alphas.size == 0 or np.any(~(alphas > 0)):
            raise ValueError("alphas must be a non-empty array of positive values.")
        ava = self.game == "agent_vs_agent"
        moves, unit = _unit_moves(self.payoff_, ava)
        n_states = int(np.prod(self._shape))
        rows = [
            _marginal(
                _stationary_at(
                    moves, n_states, a, unit, self.population_size
                )[0].reshape(self._shape),
                ava,
            )
            for a in alphas
        ]
        return np.vstack(rows)

    def _agent_columns(self):
        in_sink = self._sink_mask()
        in_sink = in_sink if in_sink.ndim == 1 else in_sink.any(axis=1)
        return {"limit": self.limit_distribution_, "in_sink": in_sink}

    def _task_columns(self):
        if self.game != "agent_vs_task":
            raise AttributeError("task_table is defined for game='agent_vs_task' only.")
        return {
            "mass": self.task_distribution_,
            "in_sink": self._sink_mask().any(axis=0),
        }

    def __sklearn_eval_intervals__(self, target=None):
        """How :func:`~sklearn_eval.uncertainty.ranking_intervals` resamples.

        Agent vs task: tasks are resampled and the agents' stationary mass
        (``agent_scores_``) refitted. Agent vs agent: the payoff matrix has
        no resampling unit of its own; resample the matches behind it with
        :func:`~sklearn_eval.uncertainty.bootstrap_ranking`.

        Parameters
        ----------
        target : {"agent_scores"} or None, default=None

        Returns
        -------
        plan : IntervalPlan
        """
        return task_resampling_plan(self, target, "AlphaRank")

    def _sink_mask(self):
        mask = np.zeros(int(np.prod(self._shape)), dtype=bool)
        for comp in self.sink_components_:
            mask[comp] = True
        return mask.reshape(self._shape)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


def _marginal(pi, ava):
    return pi if ava else pi.sum(axis=1)


def _stationary_at(moves, n_states, alpha, unit, m):
    """The distribution at the payoffs' ``alpha`` on the unit-scale moves;
    a finite ``alpha * unit`` beyond the double range saturates every
    fixation (leading order), ``alpha = inf`` is the limit."""
    if np.isinf(alpha):
        return _stationary(moves, n_states, alpha, m)
    with np.errstate(over="ignore"):
        scaled = alpha * unit
    if np.isinf(scaled):
        return _saturated_stationary(moves, n_states, scaled, m), "leading-order"
    return _stationary(moves, n_states, scaled, m)


def _sweep(moves, n_states, shape, m, tol, max_doublings, unit=1.0):
    """The ``alpha="auto"`` sweep on the unit-scale game; the alphas are
    returned on the scale of the payoffs (``alpha_unit / unit``)."""
    gain = moves[2]
    scale = float(np.max(np.abs(gain)))
    ava = len(shape) == 1
    if scale == 0.0:  # every move is neutral: uniform at every alpha
        pi, solver = _stationary(moves, n_states, 1.0, m)
        return np.array([1.0]), _marginal(pi.reshape(shape), ava)[None, :], pi, solver
    alpha = 1e-2 / scale
    alphas, path = [], []
    previous = None
    for _ in range(max_doublings + 1):
        pi, solver = _stationary(moves, n_states, alpha, m)
        agent = _marginal(pi.reshape(shape), ava)
        alphas.append(alpha / unit)
        path.append(agent)
        if previous is not None and np.max(np.abs(pi - previous)) <= tol:
            break
        previous = pi
        alpha *= 2.0
        if not np.isfinite(2.0 * alpha / unit):
            warnings.warn(
                "alpha='auto' stopped where alpha reaches the largest double "
                f"({alphas[-1]:.3g}); the distribution is the one there.",
                ConvergenceWarning,
                stacklevel=find_stack_level(),
            )
            break
    else:
        warnings.warn(
            f"alpha='auto' did not settle within {max_doublings} doublings "
            f"(tolerance {tol}); using alpha={alphas[-1]:.3g}.",
            ConvergenceWarning,
            stacklevel=find_stack_level(),
        )
    return np.asarray(alphas), np.vstack(path), pi, solver


# ------------------------------------------------------------ input checks
def _check_chain_size(shape):
    """Refuse a chain whose moves do not fit in memory, before building it.

    Every profile has ``n - 1`` (one population) or ``n_agents + n_tasks - 2``
    (agents vs tasks) moves, each stored with its source, target and gain
    (24 bytes, several times that while they are built).
    """
    n_states = math.prod(shape)
    n_moves = n_states * (sum(shape) - len(shape))
    if n_moves > _MAX_MOVES:
        game = " x ".join(str(n) for n in shape)
        raise ValueError(
            f"alpha-Rank of this {game} game is a Markov chain of {n_states:,} "
            f"profiles and {n_moves:,} moves, more than the {_MAX_MOVES:,} it "
            "builds in memory; rank fewer agents or tasks (e.g. a task subset "
            "chosen by information gain)."
        )



def _agent_vs_agent_payoff(X, payoff, tol):
    n = X.shape[0]
    if X.shape[1] != n:
        raise ValueError(
            "game='agent_vs_agent' needs a square matrix (agents x the same "
            f"agents); got shape {X.shape}. Use game='agent_vs_task' for agents "
            "x tasks scores."
        )
    off = ~np.eye(n, dtype=bool)
    if payoff == "payoff":
        return X.copy()
    if payoff == "probability":
        bad = off & ((X < 0) | (X > 1))
        if bad.any():
            i, j = np.unravel_index(np.argmax(bad), X.shape)
            raise ValueError(
                "payoff='probability' needs win probabilities in [0, 1]; got "
                f"{float(X[i, j])!r} at row {i}, column {j}."
            )
        excess = np.where(off, np.abs(X + X.T - 1.0), 0.0)
        _check_excess(excess, X, tol, "P[i, j] + P[j, i] = 1")
        P = 0.5 * (X + 1.0 - X.T)
        np.fill_diagonal(P, 0.5)
        return P
    scale = max(1.0, float(np.max(np.abs(X))))
    _check_excess(antisymmetry_ratio(X, scale), X, tol, "A[i, j] = -A[j, i]")
    return antisymmetric_part(X)


def _check_excess(excess, X, tol, rule):
    if excess.max() > tol:
        i, j = np.unravel_index(np.argmax(excess), X.shape)
        raise ValueError(
            f"The payoff must satisfy {rule}; at row {i}, column {j}: "
            f"{asymmetry_cell(X, i, j, 'X')} "
            f"(antisymmetry_tol={tol}). Use payoff='payoff' for a general "
            "symmetric game."
        )


def _normalize_tasks(X, normalize):
    if normalize is None:
        return X.copy()
    # max - min, X - shift and the mean overflow near the largest double:
    # the shared helpers of Nash averaging evaluate them on halves
    shift, half, flat = column_normalization(X, normalize)
    if flat.any():
        warnings.warn(
            f"Tasks (columns) {np.flatnonzero(flat).tolist()} are constant; "
            f"normalize={normalize!r} maps them to 0.",
            UserWarning,
            stacklevel=find_stack_level(),
        )
    Z = normalize_columns(X, shift, half)
    Z[:, flat] = 0.0
    return Z
