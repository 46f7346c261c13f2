"""Display of rank sets and tiers: which ranks each agent may hold."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ..uncertainty import rank_sets
from ._base import (
    _as_float_vector,
    _as_labels,
    _check_positive_int,
    _fit_ticklabels,
    _literal_ticklabels,
    _single_ax,
)

__all__ = ["RankSetDisplay"]

_TIER_SHADES = ("#e8eef7", "#ffffff")


def _check_rank_sets(labels, rank, rank_low, rank_high, tier, confidence_level=None,
                     simultaneous=True):
    """The validated data of a :class:`RankSetDisplay` (a Bunch of copies)."""
    rank = _as_float_vector(rank, "rank")
    n = rank.shape[0]
    if n == 0:
        raise ValueError("rank is empty.")
    labels = _as_labels(labels, n, "labels", "agent")
    rank_low = _as_float_vector(rank_low, "rank_low", n)
    rank_high = _as_float_vector(rank_high, "rank_high", n)
    tier = _as_float_vector(tier, "tier", n)
    bad = (rank_low > rank) | (rank > rank_high) | (rank_low < 1) | (rank_high > n)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"each rank set must satisfy 1 <= rank_low <= rank <= rank_high <= "
            f"{n}; agent {labels[i]!r} has {rank_low[i]:g} <= {rank[i]:g} <= "
            f"{rank_high[i]:g}."
        )
    return Bunch(labels=labels, rank=rank, rank_low=rank_low, rank_high=rank_high,
                 tier=tier, confidence_level=confidence_level,
                 simultaneous=bool(simultaneous))


class RankSetDisplay:
    """Rank sets and tiers: best agent at the top, one bar per rank set.

    Each row is an agent, in the order of the ranking (best first): a point
    at its rank and a bar over its rank set ``{rank_low, ..., rank_high}``
    (from :func:`~sklearn_eval.uncertainty.rank_sets`). Rows are shaded by
    tier, alternately, and each tier's number is written at its first row on
    the right. An agent whose bar is a point is ranked exactly. Legible up to
    a few hundred agents: the figure grows with the rows and the labels
    shrink, then thin, to fit.

    The constructor only stores its arguments; the ``from_*`` constructors
    check them (and so does :meth:`plot`).

    Parameters
    ----------
    labels : array-like of shape (n_agents,)
        Agent labels, drawn literally.
    rank, rank_low, rank_high : array-like of shape (n_agents,)
        Rank (1 = best) and the bounds of the rank set.
    tier : array-like of shape (n_agents,)
        Tier of each agent (1 = top).
    confidence_level : float, default=None
        Level of the sets (shown in the title).
    simultaneous : bool, default=True
        Whether the sets hold jointly (shown in the title).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    points_ : Line2D
        The ranks.
    bars_ : LineCollection
        The rank sets.
    spans_ : list of Polygon
        The tier shading, one per tier.
    texts_ : list of Text
        The tier numbers.
    order_ : ndarray of int
        Indices of the drawn agents, top row first.

    See Also
    --------
    sklearn_eval.uncertainty.rank_sets : Computes the sets and tiers.
    RatingTableDisplay : Scores with intervals.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.plotting import RankSetDisplay
    >>> X, y = make_matches(n_players=6, n_matches=2000, random_state=0)
    >>> display = RankSetDisplay.from_estimator(
    ...     EloRanker(method="batch"), X, y, random_state=0)
    >>> len(display.ax_.get_yticklabels())
    6
    """

    def __init__(self, labels, rank, rank_low, rank_high, tier, *,
                 confidence_level=None, simultaneous=True):
        self.labels = labels
        self.rank = rank
        self.rank_low = rank_low
        self.rank_high = rank_high
        self.tier = tier
        self.confidence_level = confidence_level
        self.simultaneous = simultaneous

    def _checked(self):
        return _check_rank_sets(
            self.labels, self.rank, self.rank_low, self.rank_high, self.tier,
            confidence_level=self.confidence_level, simultaneous=self.simultaneous,
        )

    def plot(self, ax=None, *, max_agents=None, color="C0"):
        """Draw the rank sets.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure (its height grows with the agents)
            when None.
        max_agents : int, default=None
            Draw only the ``max_agents`` best agents.
        color : color, default="C0"
            Colour of the points and bars.

        Returns
        -------
        display : RankSetDisplay
        """
        data = self._checked()
        max_agents = _check_positive_int(max_agents, "max_agents")
        # tiers are contiguous in the score order; among tied ranks, by tier
        order = np.lexsort((data.rank_high, data.rank, data.tier))
        if max_agents is not None:
            order = order[:max_agents]
        n = order.size
        ax = _single_ax(ax, "RankSetDisplay.plot",
                        figsize=(7.0, 1.2 + 0.2 * n), layout="constrained")
        rows = np.arange(n)[::-1]
        tiers = data.tier[order]
        starts = np.flatnonzero(np.r_[True, tiers[1:] != tiers[:-1]])
        ends = np.r_[starts[1:], n]
        self.spans_, self.texts_ = [], []
        transform = ax.get_yaxis_transform()
        for k, (start, end) in enumerate(zip(starts, ends, strict=True)):
            top, bottom = rows[start] + 0.5, rows[end - 1] - 0.5
            self.spans_.append(ax.axhspan(bottom, top, color=_TIER_SHADES[k % 2],
                                          zorder=0, lw=0))
            self.texts_.append(ax.text(
                1.01, (top + bottom) / 2 if end - start > 1 else rows[start],
                f"tier {int(tiers[start])}", transform=transform, va="center",
                fontsize=7 if n <= 60 else 5, color="0.3",
            ))
        self.bars_ = ax.hlines(rows, data.rank_low[order], data.rank_high[order],
                               color=color, lw=2 if n <= 60 else 1.2, alpha=0.7)
        (self.points_,) = ax.plot(data.rank[order], rows, "o", color=color,
                                  ms=4 if n <= 60 else 2.5, zorder=3)
        ax.set_yticks(rows)
        _literal_ticklabels(ax, "y", data.labels[order], fontsize=8 if n <= 40 else 6)
        ax.set_ylim(-0.5, n - 0.5)
        total = data.rank.size
        ax.set_xlim(0.5, max(total, 2) + 0.5)
        ax.set_xlabel("rank (1 = best)")
        ax.xaxis.set_ticks_position("both")
        ax.tick_params(axis="x", labeltop=n > 30)
        ax.grid(axis="x", alpha=0.3)
        kind = "Simultaneous" if data.simultaneous else "Marginal"
        title = f"{kind} rank sets and tiers"
        if data.confidence_level is not None:
            title += f" ({100 * float(data.confidence_level):g}%)"
        if n < total:
            title += f" (best {n} of {total})"
        ax.set_title(title, fontsize=10)
        _fit_ticklabels([(ax, "y")])
        self.order_ = order
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_result(cls, result, *, ax=None, **plot_kw):
        """Plot a :class:`~sklearn_eval.uncertainty.RankSets`.

        Parameters
        ----------
        result : RankSets
            From :func:`~sklearn_eval.uncertainty.rank_sets`.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : RankSetDisplay
        """
        needed = ["labels", "rank", "rank_low", "rank_high", "tier"]
        missing = [name for name in needed if not hasattr(result, name)]
        if missing:
            raise TypeError(
                "from_result needs a RankSets (labels, rank, rank_low, rank_high, "
                f"tier); {type(result).__name__} lacks {missing}."
            )
        present = np.asarray(result.rank_low) >= 1  # agents without a score: -1
        data = _check_rank_sets(
            np.asarray(result.labels, dtype=object)[present],
            np.asarray(result.rank)[present],
            np.asarray(result.rank_low)[present],
            np.asarray(result.rank_high)[present],
            np.asarray(result.tier)[present],
            confidence_level=getattr(result, "confidence_level", None),
            simultaneous=getattr(result, "simultaneous", True),
        )
        return cls(**data).plot(ax=ax, **plot_kw)

    @classmethod
    def from_estimator(cls, estimator, X, y=None, *, sample_weight=None,
                       groups=None, simultaneous=True, confidence_level=0.95,
                       method="auto", n_resamples=1000, random_state=None,
                       n_jobs=None, ax=None, **plot_kw):
        """Compute the rank sets of any ranker on its data and plot them.

        Runs :func:`~sklearn_eval.uncertainty.rank_sets`, which reads only
        the ranking protocol and the estimator's interval plan, so every
        ranker of the library (Bradley-Terry with ties and covariates, online
        Elo, MultiElo, Nash averaging, alpha-Rank, voting, IRT abilities,
        generality) is drawn by its agent labels.

        Parameters
        ----------
        estimator : estimator instance or "mean"
            The ranker (refitted on the data and its resamples).
        X, y, sample_weight, groups, simultaneous, confidence_level, method, \
n_resamples, random_state, n_jobs
            As in :func:`~sklearn_eval.uncertainty.rank_sets`.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : RankSetDisplay
        """
        result = rank_sets(
            estimator, X, y, sample_weight=sample_weight, groups=groups,
            simultaneous=simultaneous, confidence_level=confidence_level,
            method=method, n_resamples=n_resamples, random_state=random_state,
            n_jobs=n_jobs,
        )
        return cls.from_result(result, ax=ax, **plot_kw)
