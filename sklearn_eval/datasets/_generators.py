"""Synthetic benchmark data: matches, cyclic games, IRT responses, task scores.

Every generator draws from ``sklearn.utils.check_random_state(random_state)`` in a
fixed, documented order, so the same seed gives the same data on every platform
that numpy's ``RandomState`` supports. All numeric outputs are float64.
"""

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.utils import check_random_state

from ..utils._sklearn_compat import Interval, StrOptions, validate_params

__all__ = [
    "make_agent_task_scores",
    "make_cyclic_game",
    "make_irt_responses",
    "make_matches",
]


def _player_labels(n_players, prefix):
    """Zero-padded string labels that sort like their integer index."""
    width = len(str(n_players - 1))
    return np.array([f"{prefix}_{i:0{width}d}" for i in range(n_players)])


def _omega_product(c_first, c_second):
    """Row-wise ``c_first[m]^T Omega c_second[m]`` for (m, 2k) arrays.

    ``Omega`` is block diagonal with blocks ``[[0, 1], [-1, 0]]`` (mElo_2k), so the
    product is ``sum_l c_first[2l] c_second[2l+1] - c_first[2l+1] c_second[2l]``.
    """
    even_first, odd_first = c_first[:, 0::2], c_first[:, 1::2]
    even_second, odd_second = c_second[:, 0::2], c_second[:, 1::2]
    return np.sum(even_first * odd_second - odd_first * even_second, axis=1)


# ---------------------------------------------------------------------------
# make_matches
# ---------------------------------------------------------------------------
@validate_params(
    {
        "n_players": [Interval(Integral, 2, None, closed="left")],
        "n_matches": [Interval(Integral, 1, None, closed="left")],
        "cyclic_strength": [Interval(Real, 0, None, closed="left")],
        "cyclic_rank": [Interval(Integral, 1, None, closed="left")],
        "draw_rate": [Interval(Real, 0, 1, closed="both")],
        "labels": [StrOptions({"int", "str"})],
        "random_state": ["random_state"],
        "return_strengths": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_matches(
    n_players=20,
    n_matches=1000,
    *,
    cyclic_strength=0.0,
    cyclic_rank=1,
    draw_rate=0.0,
    labels="int",
    random_state=None,
    return_strengths=False,
):
    """Generate a table of matches from a Bradley-Terry model with optional cycles.

    The generative model, on the natural-logit scale, is exactly:

    1. strengths ``r ~ N(0, 1)``, shape (n_players,) (not centred);
    2. cyclic vectors ``c_i in R^{2k}`` with ``k = cyclic_rank``: entries drawn
       ``N(0, 1)``, each of the 2k coordinates centred over players (so the cyclic
       part has zero divergence and ``r - mean(r)`` is the Hodge transitive part),
       then multiplied by ``sqrt(cyclic_strength / sqrt(k))``; they are drawn
       only when ``cyclic_strength > 0``;
    3. for each match, the first player ``i`` is uniform over players and the
       second ``j`` uniform over the other ``n_players - 1`` players (no self-play);
    4. the logit of "first player wins" is
       ``r_i - r_j + c_i^T Omega c_j`` with ``Omega`` block diagonal with blocks
       ``[[0, 1], [-1, 0]]`` (the mElo_2k model); with ``cyclic_strength = s`` the
       cyclic term has the same variance (``2 s^2``) as ``s`` times the
       transitive difference ``r_i - r_j`` (variance 2), whatever ``k``;
    5. with probability ``draw_rate`` the match is a draw (``y = 0.5``),
       independently of the players; otherwise ``y = 1`` with probability
       ``sigmoid(logit)`` and ``y = 0`` otherwise. The expected score of the
       first player is therefore ``(1 - draw_rate) * sigmoid(logit) + draw_rate / 2``.

    Random draws happen in this order: strengths, cyclic vectors (if any), first
    players, second-player offsets, draw indicators, win indicators.

    Parameters
    ----------
    n_players : int, default=20
        Number of players (>= 2).
    n_matches : int, default=1000
        Number of matches (>= 1).
    cyclic_strength : float, default=0.0
        Scale ``s >= 0`` of the cyclic (rock-paper-scissors) part; 0 gives a pure
        Bradley-Terry model.
    cyclic_rank : int, default=1
        ``k``: the cyclic part has rank ``2k``. Must satisfy
        ``1 <= 2k <= n_players - 1``.
    draw_rate : float, default=0.0
        Probability in [0, 1] that a match is a draw.
    labels : {"int", "str"}, default="int"
        ``"int"`` gives int64 labels ``0 .. n_players - 1``; ``"str"`` gives
        unicode labels ``"player_00"``, ``"player_01"``, ... (zero-padded so that
        sorted labels follow the strength vector's order).
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.
    return_strengths : bool, default=False
        If True, also return the strengths ``r`` (natural-logit scale).

    Returns
    -------
    X : ndarray of shape (n_matches, 2)
        Labels of the first and second player of each match, in chronological
        order.
    y : ndarray of shape (n_matches,), float64
        Outcome for the first player: 1 win, 0 loss, 0.5 draw.
    strengths : ndarray of shape (n_players,), float64
        Only if ``return_strengths``: ``strengths[p]`` belongs to the player whose
        label is ``p`` (int) or ``"player_<p>"`` (str).

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> X, y, strengths = make_matches(
    ...     n_players=5, n_matches=4, random_state=0, return_strengths=True)
    >>> X.shape, y.shape, strengths.shape
    ((4, 2), (4,), (5,))
    >>> bool((X[:, 0] != X[:, 1]).all())
    True
    >>> sorted(set(y.tolist()) | {0.0, 1.0})
    [0.0, 1.0]
    """
    if cyclic_strength > 0 and 2 * cyclic_rank > n_players - 1:
        raise ValueError(
            f"cyclic_rank={cyclic_rank} needs 2 * cyclic_rank <= n_players - 1 "
            f"= {n_players - 1} (centred cyclic vectors live in an "
            f"(n_players - 1)-dimensional space)."
        )
    rng = check_random_state(random_state)

    strengths = rng.standard_normal(n_players)
    cyclic = None
    if cyclic_strength > 0:
        cyclic = rng.standard_normal((n_players, 2 * cyclic_rank))
        cyclic -= cyclic.mean(axis=0)
        cyclic *= np.sqrt(cyclic_strength / np.sqrt(cyclic_rank))

    first = rng.randint(n_players, size=n_matches)
    second = (first + rng.randint(1, n_players, size=n_matches)) % n_players
    logit = strengths[first] - strengths[second]
    if cyclic is not None:
        logit += _omega_product(cyclic[first], cyclic[second])

    is_draw = rng.random_sample(n_matches) < draw_rate
    first_wins = rng.random_sample(n_matches) < expit(logit)
    y = np.where(is_draw, 0.5, first_wins.astype(np.float64))

    index = np.column_stack([first, second]).astype(np.int64)
    X = index if labels == "int" else _player_labels(n_players, "player")[index]
    if return_strengths:
        return X, y, strengths
    return X, y


# ---------------------------------------------------------------------------
# make_cyclic_game
# ---------------------------------------------------------------------------
@validate_params(
    {
        "n_agents": [Interval(Integral, 2, None, closed="left")],
        "transitive_scale": [Interval(Real, 0, None, closed="left")],
        "cyclic_rank": [Interval(Integral, 0, None, closed="left")],
        "cyclic_scale": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "return_components": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_cyclic_game(
    n_agents=50,
    *,
    transitive_scale=1.0,
    cyclic_rank=2,
    cyclic_scale=1.0,
    random_state=None,
    return_components=False,
):
    """Generate an antisymmetric logit payoff with transitive and cyclic parts.

    The payoff is ``A = transitive + cyclic`` with

    * ``transitive = transitive_scale * grad(r)``, ``grad(r)_ij = r_i - r_j``,
      ``r ~ N(0, 1)`` of shape (n_agents,);
    * ``cyclic = cyclic_scale / sqrt(K) * sum_{k<K} (u_k v_k^T - v_k u_k^T)``
      with ``K = cyclic_rank`` and ``u_k, v_k`` n-vectors with ``N(0, 1)``
      entries, each centred to mean zero.

    Centring makes ``div(cyclic) = 0``, so the Hodge decomposition of ``A`` is
    exactly ``div(A) = transitive_scale * (r - mean(r))`` and ``rot(A) = cyclic``
    (up to rounding). Each off-diagonal entry of both parts has variance about 2
    times the squared scale, so ``transitive_scale == cyclic_scale`` means equal
    expected magnitudes. ``A`` is exactly antisymmetric (``A == -A.T`` bit for bit)
    with a zero diagonal. ``A[i, j]`` is the logit of agent ``i`` beating agent
    ``j``; ``scipy.special.expit(A)`` is the win-probability matrix.

    Random draws happen in this order: ``r``, then ``u`` (K x n), then ``v``
    (K x n).

    Parameters
    ----------
    n_agents : int, default=50
        Number of agents (>= 2).
    transitive_scale : float, default=1.0
        Scale (>= 0) of the transitive part.
    cyclic_rank : int, default=2
        Number ``K >= 0`` of rank-2 cyclic components (the cyclic part has rank
        ``2K``); needs ``2K <= n_agents - 1``. 0 gives a purely transitive game.
    cyclic_scale : float, default=1.0
        Scale (>= 0) of the cyclic part.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.
    return_components : bool, default=False
        If True, also return a dict with ``"strengths"`` (``r``),
        ``"transitive"``, ``"cyclic"``, ``"u"`` and ``"v"`` (arrays of shape
        (K, n_agents), centred, unscaled).

    Returns
    -------
    A : ndarray of shape (n_agents, n_agents), float64
        Antisymmetric logit payoff.
    components : dict
        Only if ``return_components``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.datasets import make_cyclic_game
    >>> A, parts = make_cyclic_game(6, cyclic_rank=1, random_state=0,
    ...                             return_components=True)
    >>> A.shape, bool((A == -A.T).all())
    ((6, 6), True)
    >>> bool(np.allclose(parts["cyclic"].mean(axis=1), 0))
    True
    """
    if 2 * cyclic_rank > n_agents - 1:
        raise ValueError(
            f"cyclic_rank={cyclic_rank} needs 2 * cyclic_rank <= n_agents - 1 "
            f"= {n_agents - 1}."
        )
    rng = check_random_state(random_state)

    strengths = rng.standard_normal(n_agents)
    u = rng.standard_normal((cyclic_rank, n_agents))
    v = rng.standard_normal((cyclic_rank, n_agents))
    u -= u.mean(axis=1, keepdims=True)
    v -= v.mean(axis=1, keepdims=True)

    # r_i - r_j is exactly the negation of r_j - r_i in IEEE arithmetic, and so is
    # u_i v_j - v_i u_j: both parts, hence their sum, are exactly antisymmetric.
    scaled = transitive_scale * strengths
    transitive = scaled[:, None] - scaled[None, :]
    if cyclic_rank > 0:
        outer = u.T @ v  # sum_k u_k v_k^T
        cyclic = (cyclic_scale / np.sqrt(cyclic_rank)) * (outer - outer.T)
    else:
        cyclic = np.zeros((n_agents, n_agents))
    payoff = transitive + cyclic
    if not return_components:
        return payoff
    components = {
        "strengths": strengths,
        "transitive": transitive,
        "cyclic": cyclic,
        "u": u,
        "v": v,
    }
    return payoff, components


# ---------------------------------------------------------------------------
# make_irt_responses
# ---------------------------------------------------------------------------
@validate_params(
    {
        "n_agents": [Interval(Integral, 1, None, closed="left")],
        "n_items": [Interval(Integral, 1, None, closed="left")],
        "missing_rate": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
        "return_params": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_irt_responses(
    n_agents=500,
    n_items=50,
    *,
    missing_rate=0.0,
    random_state=None,
    return_params=False,
):
    """Generate a 0/1 response matrix from the two-parameter logistic IRT model.

    ``P[i, j] = 1 / (1 + exp(-a_j (theta_i - b_j)))`` with abilities
    ``theta ~ N(0, 1)``, difficulties ``b ~ N(0, 1)`` and discriminations
    ``a ~ LogNormal(0, 0.3)`` (i.e. ``exp(N(0, 0.3^2))``). Each response is 1 with
    probability ``P[i, j]``. Responses are then set to NaN completely at random,
    each independently with probability ``missing_rate``; an agent left with no
    response gets one uniformly chosen response back, so every row keeps at least
    one observation.

    Random draws happen in this order: ``theta``, ``b``, ``a``, response
    uniforms, missingness uniforms (only if ``missing_rate > 0``), then one
    column index per fully-missing agent.

    Parameters
    ----------
    n_agents : int, default=500
        Number of agents (rows, >= 1).
    n_items : int, default=50
        Number of items (columns, >= 1).
    missing_rate : float, default=0.0
        Probability in [0, 1) that a response is missing (NaN).
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.
    return_params : bool, default=False
        If True, also return the generating parameters.

    Returns
    -------
    X : ndarray of shape (n_agents, n_items), float64
        Responses in {0, 1}, NaN where missing.
    params : dict
        Only if ``return_params``: ``"theta"`` (n_agents,), ``"a"`` (n_items,),
        ``"b"`` (n_items,) and ``"probabilities"`` (n_agents, n_items).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> X, params = make_irt_responses(100, 10, missing_rate=0.2, random_state=0,
    ...                                return_params=True)
    >>> X.shape, sorted(params)
    ((100, 10), ['a', 'b', 'probabilities', 'theta'])
    >>> bool((~np.isnan(X)).any(axis=1).all())
    True
    """
    rng = check_random_state(random_state)

    theta = rng.standard_normal(n_agents)
    b = rng.standard_normal(n_items)
    a = np.exp(0.3 * rng.standard_normal(n_items))
    probabilities = expit(a[None, :] * (theta[:, None] - b[None, :]))
    X = (rng.random_sample((n_agents, n_items)) < probabilities).astype(np.float64)

    if missing_rate > 0:
        missing = rng.random_sample((n_agents, n_items)) < missing_rate
        empty_rows = np.flatnonzero(missing.all(axis=1))
        if empty_rows.size:
            keep = rng.randint(n_items, size=empty_rows.size)
            missing[empty_rows, keep] = False
        X[missing] = np.nan

    if return_params:
        params = {"theta": theta, "a": a, "b": b, "probabilities": probabilities}
        return X, params
    return X


# ---------------------------------------------------------------------------
# make_agent_task_scores
# ---------------------------------------------------------------------------
@validate_params(
    {
        "n_agents": [Interval(Integral, 1, None, closed="left")],
        "n_tasks": [Interval(Integral, 1, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "as_frame": ["boolean"],
        "return_params": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_agent_task_scores(
    n_agents=20,
    n_tasks=30,
    *,
    noise=0.5,
    random_state=None,
    as_frame=False,
    return_params=False,
):
    """Generate continuous agent x task scores in [0, 1].

    ``score[i, j] = sigmoid(ability_i - difficulty_j + noise * eps_ij)`` with
    ``ability ~ N(0, 1)``, ``difficulty ~ N(0, 1)`` and ``eps ~ N(0, 1)``. Scores
    lie strictly inside (0, 1) up to float rounding; the noise acts on the logit
    scale, so better agents score higher on every task on average and harder
    tasks are lower for every agent on average.

    Random draws happen in this order: ``ability``, ``difficulty``, ``eps``.

    Parameters
    ----------
    n_agents : int, default=20
        Number of agents (rows, >= 1).
    n_tasks : int, default=30
        Number of tasks (columns, >= 1).
    noise : float, default=0.5
        Standard deviation (>= 0) of the logit-scale noise.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.
    as_frame : bool, default=False
        If True, return a pandas DataFrame indexed by agent names
        ``"agent_00", ...`` with task names ``"task_00", ...`` as columns.
    return_params : bool, default=False
        If True, also return a dict with ``"ability"`` and ``"difficulty"``.

    Returns
    -------
    scores : ndarray of shape (n_agents, n_tasks) or DataFrame, float64
    params : dict
        Only if ``return_params``.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_agent_task_scores
    >>> S = make_agent_task_scores(4, 3, random_state=0)
    >>> S.shape, bool(((S > 0) & (S < 1)).all())
    ((4, 3), True)
    """
    rng = check_random_state(random_state)

    ability = rng.standard_normal(n_agents)
    difficulty = rng.standard_normal(n_tasks)
    eps = rng.standard_normal((n_agents, n_tasks))
    scores = expit(ability[:, None] - difficulty[None, :] + noise * eps)

    if as_frame:
        scores = pd.DataFrame(
            scores,
            index=pd.Index(_player_labels(n_agents, "agent"), name="agent"),
            columns=pd.Index(_player_labels(n_tasks, "task"), name="task"),
        )
    if return_params:
        return scores, {"ability": ability, "difficulty": difficulty}
    return scores
