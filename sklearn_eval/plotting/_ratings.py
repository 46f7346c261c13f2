"""Display of ratings with confidence and rank intervals (a forest plot)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import (
    _as_float_vector,
    _as_labels,
    _both_or_neither,
    _check_fitted_attrs,
    _check_positive_int,
    _literal_ticklabels,
    _single_ax,
)

__all__ = ["RatingTableDisplay"]


def _check_rating_table(
    labels,
    estimate,
    low=None,
    high=None,
    rank_low=None,
    rank_high=None,
    xlabel="rating",
    confidence_level=None,
):
    """The validated data of a :class:`RatingTableDisplay` (a Bunch of copies)."""
    estimate = _as_float_vector(estimate, "estimate")
    n = estimate.shape[0]
    if n == 0:
        raise ValueError("estimate is empty.")
    labels = _as_labels(labels, n, "labels", "item")
    _both_or_neither(low, high, ("low", "high"))
    if low is not None:
        low, high = _ordered_bounds(low, high, ("low", "high"), labels)
    _both_or_neither(rank_low, rank_high, ("rank_low", "rank_high"))
    if rank_low is not None:
        rank_low, rank_high = _ordered_bounds(
            rank_low, rank_high, ("rank_low", "rank_high"), labels)
    return Bunch(
        labels=labels,
        estimate=estimate,
        low=low,
        high=high,
        rank_low=rank_low,
        rank_high=rank_high,
        xlabel=str(xlabel),
        confidence_level=confidence_level,
    )


def _ordered_bounds(low, high, names, labels):
    """Two float vectors of bounds (NaN: none), low never above high."""
    n = labels.shape[0]
    low = _as_float_vector(low, names[0], n, allow_nan=True)
    high = _as_float_vector(high, names[1], n, allow_nan=True)
    bad = low > high
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{names[0]} must not exceed {names[1]}; item {labels[i]!r} has "
            f"{names[0]} {float(low[i])!r} > {names[1]} {float(high[i])!r}."
        )
    return low, high


class RatingTableDisplay:
    """Ratings with confidence intervals, sorted by estimate (a forest plot).

    One row per item (player, agent or task), best at the top: a point at the
    estimate and a horizontal bar over the interval ``[low, high]``. With
    rank intervals (from a bootstrap), each row is annotated on the right
    with its rank range, e.g. ``"rank 2-4"``. Intervals need not contain the
    estimate (a percentile bootstrap interval may not); an item with a NaN
    bound has no bar.

    The constructor only stores its arguments; the ``from_*`` constructors
    check them (and so does :meth:`plot`).

    Parameters
    ----------
    labels : array-like of shape (n_items,)
        Item labels, drawn literally (no math text).
    estimate : array-like of shape (n_items,)
        The ratings (finite).
    low, high : array-like of shape (n_items,), default=None
        Interval bounds (both or none); ``low <= high`` where both are
        finite.
    rank_low, rank_high : array-like of shape (n_items,), default=None
        Rank interval (1 = best), both or none.
    xlabel : str, default="rating"
        Label of the x axis.
    confidence_level : float, default=None
        Level of the intervals (shown in the title).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    points_ : Line2D
        The estimates.
    intervals_ : LineCollection or None
        The interval bars.
    texts_ : list of Text
        The rank-interval annotations.
    order_ : ndarray of int
        Indices of the drawn items, top row first.

    See Also
    --------
    sklearn_eval.uncertainty.bootstrap_ranking : Produces the intervals.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_eval.plotting import RatingTableDisplay
    >>> display = RatingTableDisplay.from_data(
    ...     ["a", "b", "c"], [1500.0, 1620.0, 1480.0],
    ...     low=[1450, 1580, 1400], high=[1550, 1660, 1530])
    >>> [t.get_text() for t in display.ax_.get_yticklabels()]
    ['b', 'a', 'c']
    """

    def __init__(
        self,
        labels,
        estimate,
        *,
        low=None,
        high=None,
        rank_low=None,
        rank_high=None,
        xlabel="rating",
        confidence_level=None,
    ):
        self.labels = labels
        self.estimate = estimate
        self.low = low
        self.high = high
        self.rank_low = rank_low
        self.rank_high = rank_high
        self.xlabel = xlabel
        self.confidence_level = confidence_level

    def _checked(self):
        return _check_rating_table(
            self.labels,
            self.estimate,
            low=self.low,
            high=self.high,
            rank_low=self.rank_low,
            rank_high=self.rank_high,
            xlabel=self.xlabel,
            confidence_level=self.confidence_level,
        )

    def plot(self, ax=None, *, max_items=None, show_ranks=True, color="C0"):
        """Draw the table.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure (height grows with the items) when
            None.
        max_items : int, default=None
            Draw only the ``max_items`` best items.
        show_ranks : bool, default=True
            Annotate rank intervals when known.
        color : color, default="C0"
            Colour of points and bars.

        Returns
        -------
        display : RatingTableDisplay
        """
        data = self._checked()
        max_items = _check_positive_int(max_items, "max_items")
        order = np.argsort(-data.estimate, kind="stable")
        if max_items is not None:
            order = order[:max_items]
        n = order.size
        ax = _single_ax(
            ax,
            "RatingTableDisplay.plot",
            figsize=(6.4, 1.0 + 0.28 * n),
            layout="constrained",
        )
        rows = np.arange(n)[::-1]
        self.intervals_ = None
        if data.low is not None:
            self.intervals_ = ax.hlines(
                rows, data.low[order], data.high[order], color=color, lw=2, alpha=0.6
            )
        (self.points_,) = ax.plot(
            data.estimate[order], rows, "o", color=color, ms=5, zorder=3
        )
        ax.set_yticks(rows)
        _literal_ticklabels(ax, "y", data.labels[order], fontsize=8 if n <= 40 else 6)
        ax.set_ylim(-0.7, n - 0.3)
        ax.set_xlabel(data.xlabel)
        ax.grid(axis="x", alpha=0.3)
        title = "Ratings"
        if data.low is not None:
            title += " with intervals"
            if data.confidence_level is not None:
                title += f" ({100 * float(data.confidence_level):g}%)"
        if n < data.estimate.size:
            title += f" (best {n} of {data.estimate.size})"
        ax.set_title(title, fontsize=10)
        self.texts_ = []
        if show_ranks and data.rank_low is not None:
            transform = ax.get_yaxis_transform()
            for row, i in zip(rows, order, strict=True):
                self.texts_.append(
                    ax.text(
                        1.01,
                        row,
                        _rank_text(data.rank_low[i], data.rank_high[i]),
                        transform=transform,
                        va="center",
                        fontsize=7,
                        color="0.3",
                    )
                )
        self.order_ = order
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_result(cls, result, *, xlabel="estimate", ax=None, **plot_kw):
        """Plot a :class:`~sklearn_eval.uncertainty.BootstrapResult`.

        Parameters
        ----------
        result : BootstrapResult
            From :func:`~sklearn_eval.uncertainty.bootstrap_ranking`.
        xlabel : str, default="estimate"
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : RatingTableDisplay
        """
        needed = ["labels", "estimate", "low", "high"]
        missing = [a for a in needed if not hasattr(result, a)]
        if missing:
            raise TypeError(
                "from_result needs a BootstrapResult (labels, estimate, low, high); "
                f"{type(result).__name__} lacks {missing}."
            )
        data = _check_rating_table(
            result.labels,
            result.estimate,
            low=result.low,
            high=result.high,
            rank_low=getattr(result, "rank_low", None),
            rank_high=getattr(result, "rank_high", None),
            xlabel=xlabel,
            confidence_level=getattr(result, "confidence_level", None),
        )
        return cls(**data).plot(ax=ax, **plot_kw)

    @classmethod
    def from_data(
        cls,
        labels,
        estimate,
        *,
        low=None,
        high=None,
        rank_low=None,
        rank_high=None,
        xlabel="rating",
        ax=None,
        **plot_kw,
    ):
        """Plot ratings (and intervals) given as arrays.

        Parameters
        ----------
        labels, estimate, low, high, rank_low, rank_high, xlabel
            See the class parameters.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : RatingTableDisplay
        """
        data = _check_rating_table(
            labels,
            estimate,
            low=low,
            high=high,
            rank_low=rank_low,
            rank_high=rank_high,
            xlabel=xlabel,
        )
        return cls(**data).plot(ax=ax, **plot_kw)

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **plot_kw):
        """Plot the scores of any fitted ranker (no intervals).

        Reads the ranking protocol: the estimator's ``agent_table()``
        (labels and ``score``, higher is better), so every ranker of the
        library (Elo, MultiElo, Nash averaging, alpha-Rank, voting, IRT
        abilities) and any estimator that speaks the protocol is drawn.

        Parameters
        ----------
        estimator : estimator with ``agent_table()``
            Fitted ranker.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : RatingTableDisplay

        See Also
        --------
        from_result : Intervals from
            :func:`~sklearn_eval.uncertainty.bootstrap_ranking`.
        """
        _check_fitted_attrs(
            estimator, ["agents_", "agent_scores_"], "RatingTableDisplay.from_estimator"
        )
        if not callable(getattr(estimator, "agent_table", None)):
            raise TypeError(
                "RatingTableDisplay.from_estimator needs a ranker with "
                f"agent_table(); got {type(estimator).__name__}."
            )
        table = estimator.agent_table()
        data = _check_rating_table(
            np.asarray(table.index, dtype=object),
            table["score"].to_numpy(dtype=np.float64),
            xlabel=_score_label(estimator),
        )
        return cls(**data).plot(ax=ax, **plot_kw)


def _score_label(estimator):
    """The x-axis label of a ranker's scores: its rating scale, if it has one."""
    scale = getattr(estimator, "scale", None)
    if scale == "elo":
        return "Elo rating"
    if scale == "logit":
        return "rating (logit)"
    return f"score ({type(estimator).__name__})"


def _rank_text(low, high):
    if np.isnan(low) or np.isnan(high):
        return "rank ?"
    low, high = int(round(low)), int(round(high))
    return f"rank {low}" if low == high else f"rank {low}\u2013{high}"
