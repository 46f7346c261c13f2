"""Rank sets and tiers: which ranks each agent may hold, at a confidence level.

Mogstad, Romano, Shaikh and Wilhelm, "Inference for ranks with applications
to mobility across neighbourhoods and academic achievement across
countries", Review of Economic Studies 91 (2024): confidence intervals for
all pairwise differences of the scores that hold simultaneously (max-:math:`|t|`
with the Romano-Wolf step-down) are projected to ranks. An agent's rank set
runs from one plus the number of agents confidently above it to n minus the
number confidently below it.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ..utils._simultaneous import leader_tiers, pairwise_inference
from ._joint import joint_scores

__all__ = ["RankSets", "rank_set_table", "rank_sets"]


@dataclass
class RankSets:
    """Rank sets and tiers of a ranking, from :func:`rank_sets`.

    Attributes
    ----------
    labels : ndarray of shape (n_agents,)
    score : ndarray of shape (n_agents,)
        The ranking's scores (its ``agent_scores_``, or the target's values).
    rank : ndarray of shape (n_agents,)
        Rank on the full data (1 = best, ties share the best rank).
    rank_low, rank_high : ndarray of shape (n_agents,)
        The rank set ``{rank_low, ..., rank_high}`` of each agent.
    tier : ndarray of shape (n_agents,)
        Tier of each agent (1 = top), by the leader rule of
        :func:`rank_sets`.
    confidence_level : float
    simultaneous : bool
        Whether the sets hold jointly (True) or each on its own.
    method : str
        How the scores' distribution was estimated (e.g. ``"sandwich"``,
        ``"percentile bootstrap"``) and that the pairs were tested by
        max-:math:`|t|` step-down.
    note : str
        Caveat inherited from the intervals (e.g. online Elo is descriptive).
    pairs : DataFrame
        Every pair, better score first: ``agent_a``, ``agent_b``,
        ``difference``, ``se``, ``low``, ``high`` (the simultaneous, or
        per-agent, interval of the difference), ``separated``.
    """

    labels: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    tier: np.ndarray
    confidence_level: float
    simultaneous: bool
    method: str
    note: str = ""
    pairs: pd.DataFrame = field(default=None, repr=False)

    def to_frame(self):
        """One row per agent, best first: score, rank, rank_low, rank_high, tier."""
        frame = pd.DataFrame(
            {"score": self.score, "rank": self.rank, "rank_low": self.rank_low,
             "rank_high": self.rank_high, "tier": self.tier},
            index=pd.Index(self.labels, name="agent"),
        )
        rank = np.where(self.rank < 1, np.iinfo(np.int64).max, self.rank)
        return frame.iloc[np.argsort(rank, kind="stable")]

    def top_set(self, k=1):
        """The agents that may be among the top ``k`` at this confidence.

        Those whose rank set reaches ``k`` (``rank_low <= k``), best score
        first; with simultaneous sets, the true top ``k`` are all in it with
        probability at least ``confidence_level``.

        Parameters
        ----------
        k : int, default=1

        Returns
        -------
        ndarray of agent labels
        """
        n = self.labels.shape[0]
        if (not isinstance(k, numbers.Integral) or isinstance(k, bool)
                or not 1 <= k <= n):
            raise ValueError(f"k must be an int in [1, {n}]; got {k!r}.")
        frame = self.to_frame()
        return np.asarray(frame.index[frame["rank_low"].to_numpy() <= k])

    def adjacent(self):
        """Neighbours in the score order and whether each pair is separated.

        Returns
        -------
        DataFrame
            ``agent_a`` (the better score), ``agent_b``, ``difference``,
            ``low``, ``high``, ``separated``.
        """
        order = self.to_frame().index
        a_b = zip(self.pairs["agent_a"], self.pairs["agent_b"], strict=True)
        key = {pair: k for k, pair in enumerate(a_b)}
        rows = [key.get((a, b), key.get((b, a)))
                for a, b in zip(order[:-1], order[1:], strict=True)]
        return self.pairs.iloc[rows].drop(columns="se").reset_index(drop=True)


def _pairs_frame(labels, inference):
    flip = inference.difference < 0
    first = np.where(flip, inference.second, inference.first)
    second = np.where(flip, inference.first, inference.second)
    difference = np.abs(inference.difference)
    margin = inference.critical * inference.se
    return pd.DataFrame({
        "agent_a": labels[first], "agent_b": labels[second],
        "difference": difference, "se": inference.se,
        "low": difference - margin, "high": difference + margin,
        "separated": inference.separated,
    })


def rank_sets(
    estimator,
    X,
    y=None,
    *,
    sample_weight=None,
    simultaneous=True,
    confidence_level=0.95,
    method="auto",
    groups=None,
    n_resamples=1000,
    random_state=None,
    n_jobs=None,
    target=None,
    frequency_weights=False,
    prefit=False,
):
    """Rank sets and tiers for any ranking: which ranks each agent may hold.

    The construction of Mogstad et al. (2024): confidence intervals for all
    pairwise differences of the agents' scores, holding simultaneously
    (max-:math:`|t|` over the pairs, with the Romano-Wolf step-down), projected to
    ranks. Agent i's rank set is ``{1 + #(agents confidently above i), ...,
    n - #(agents confidently below i)}``. With ``simultaneous=True`` all
    sets hold at once with probability at least ``confidence_level``
    (asymptotically); with ``simultaneous=False`` each agent's set is built
    from its own family (its differences with every other agent) and holds
    on its own. Unlike percentile intervals of bootstrapped ranks, the sets
    do not under-cover near ties.

    Tiers follow the leader rule: walking the agents from the best score
    down, an agent joins the current tier unless the tier's first agent
    (its leader) is confidently above it, in which case it starts a new
    tier. Tiers are contiguous in the score order and deterministic; every
    agent is not separable from its tier's leader.

    Works for every ranking through its interval plan
    (``__sklearn_eval_intervals__``): the scores' joint distribution is an
    analytic covariance (batch Bradley-Terry: the sandwich, with any tie
    model and covariates; IRT abilities: the posterior) or bootstrap
    replicates in which all agents are refitted on the same resample.
    Online Elo and Nash distributions give descriptive sets (see ``note``).

    Parameters
    ----------
    estimator : estimator instance or "mean"
        Unfitted; any estimator with ``__sklearn_eval_intervals__``
        (fitted, with ``prefit=True``).
        ``"mean"``: the rows of a result matrix ranked by their mean over
        the tasks (accuracy), with the paired covariance of the means.
    X : array-like or DataFrame
        The estimator's training data.
    y : array-like, default=None
        Match outcomes (match data).
    sample_weight : array-like, default=None
        Match weights, as in :func:`ranking_intervals`.
    simultaneous : bool, default=True
    confidence_level : float, default=0.95
    method : {"auto", "analytic", "bootstrap"}, default="auto"
        ``"auto"``: the analytic covariance where the plan has one (with
        ``groups``: a cluster-robust one), else the bootstrap.
    groups : array-like, default=None
        Cluster labels (one per match, or per task of a result matrix):
        cluster bootstrap or cluster-robust covariance, as in
        :func:`ranking_intervals`.
    n_resamples : int, default=1000
        Bootstrap resamples, or normal draws for the analytic critical value.
    random_state : int, SeedSequence, RandomState or None, default=None
    n_jobs : int, default=None
    target : str, default=None
        What is ranked (see :func:`ranking_intervals`).
    frequency_weights : bool, default=False
        Read ``sample_weight`` as counts of identical matches (vote counts).
    prefit : bool, default=False
        True: ``estimator`` is already fitted on ``X, y, sample_weight``; the
        analytic covariance reuses its fitted state (no fit; the same sets
        as fitting a copy), the bootstrap refits a copy on each resample.

    Returns
    -------
    RankSets

    See Also
    --------
    compare_agents : Paired tests of chosen pairs, with multiplicity control.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024).
    Inference for ranks with applications to mobility across neighbourhoods
    and academic achievement across countries. Review of Economic Studies,
    91(1), 476-518.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.uncertainty import rank_sets
    >>> X, y = make_matches(n_players=6, n_matches=3000, random_state=0)
    >>> sets = rank_sets(EloRanker(method="batch"), X, y, random_state=0)
    >>> list(sets.to_frame().columns)
    ['score', 'rank', 'rank_low', 'rank_high', 'tier']
    >>> frame = sets.to_frame()
    >>> bool((frame["rank_low"] <= frame["rank"]).all()
    ...      and (frame["rank"] <= frame["rank_high"]).all())
    True
    >>> len(sets.top_set(1)) >= 1
    True
    """
    if not isinstance(simultaneous, bool | np.bool_):
        raise TypeError(f"simultaneous must be a bool; got {simultaneous!r}.")
    # one BLAS thread: small dense algebra, faster and steadier on busy cores
    with threadpool_limits(limits=1, user_api="blas"):
        joint = joint_scores(
            estimator, X, y, sample_weight=sample_weight, target=target,
            method=method, groups=groups, n_resamples=n_resamples,
            confidence_level=confidence_level, random_state=random_state,
            n_jobs=n_jobs, frequency_weights=frequency_weights, prefit=prefit,
        )
        present = ~np.isnan(joint.score)
        inference = pairwise_inference(
            joint.score[present],
            cov=None if joint.cov is None else joint.cov[np.ix_(present, present)],
            samples=joint.samples[:, present],
            confidence_level=confidence_level, simultaneous=bool(simultaneous),
            ties=np.asarray(joint.rank)[present],
        )
    n = joint.score.shape[0]
    rank_low = np.full(n, -1)
    rank_high = np.full(n, -1)
    tier = np.full(n, -1)
    rank_low[present], rank_high[present] = inference.rank_low, inference.rank_high
    tier[present] = leader_tiers(joint.score[present], inference.above)
    rank = np.asarray(joint.rank)
    return RankSets(
        labels=joint.labels, score=np.asarray(joint.result.estimate),
        rank=rank, rank_low=rank_low, rank_high=rank_high, tier=tier,
        confidence_level=float(confidence_level), simultaneous=bool(simultaneous),
        method=f"{joint.method}, max-|t| step-down",
        note=joint.note, pairs=_pairs_frame(joint.labels[present], inference),
    )


def rank_set_table(estimator, sets):
    """The ranker's ``agent_table()`` with its rank sets and tiers as columns.

    The companion of the protocol table: the columns ``rank_low``,
    ``rank_high`` and ``tier`` of :func:`rank_sets` are added to
    ``estimator.agent_table()``, matched by agent label (an agent without a
    rank set, e.g. one with no score, gets missing values).

    Parameters
    ----------
    estimator : fitted ranker with ``agent_table()``
        The ranking, fitted on the data the sets were computed on.
    sets : RankSets
        From :func:`rank_sets`.

    Returns
    -------
    table : DataFrame
        ``agent_table()`` (best agent first) plus ``rank_low``, ``rank_high``
        (nullable integers) and ``tier``.

    Raises
    ------
    ValueError
        If the sets name agents the estimator does not have.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.uncertainty import rank_set_table, rank_sets
    >>> X, y = make_matches(n_players=5, n_matches=2000, random_state=0)
    >>> model = EloRanker(method="batch").fit(X, y)
    >>> sets = rank_sets(EloRanker(method="batch"), X, y, random_state=0)
    >>> table = rank_set_table(model, sets)
    >>> list(table.columns[-3:])
    ['rank_low', 'rank_high', 'tier']
    >>> bool((table["rank_low"] <= table["rank"]).all())
    True
    """
    if not isinstance(sets, RankSets):
        raise TypeError(
            f"sets must be a RankSets from rank_sets; got {type(sets).__name__}."
        )
    if not callable(getattr(estimator, "agent_table", None)):
        raise TypeError(
            "rank_set_table needs a fitted ranker with agent_table(); got "
            f"{type(estimator).__name__}."
        )
    table = estimator.agent_table()
    unknown = [label for label in sets.labels if label not in table.index]
    if unknown:
        raise ValueError(
            f"sets names agents the estimator does not rank: {unknown[:5]}; "
            "compute the sets on the estimator's data."
        )
    present = np.asarray(sets.rank_low) >= 1
    columns = pd.DataFrame(
        {name: pd.array(np.asarray(getattr(sets, name))[present], dtype="Int64")
         for name in ("rank_low", "rank_high", "tier")},
        index=pd.Index(np.asarray(sets.labels)[present], name="agent"),
    )
    return table.join(columns)
