"""Displays for ratings: the mElo cyclic plane and rating tables with intervals."""

from __future__ import annotations

import numbers

import numpy as np

from ._base import (
    _as_float_vector,
    _as_labels,
    _check_fitted_attrs,
    _check_positive_int,
    _single_ax,
    _spread_labels,
)

__all__ = ["CyclicEmbeddingDisplay", "RatingTableDisplay"]


class CyclicEmbeddingDisplay:
    """Players as points in one cyclic plane (mElo / Schur, Balduzzi et al. Fig. 3).

    In multidimensional Elo each player ``i`` has, in every cyclic plane, a
    point ``c_i = (x_i, y_i)``; the plane adds ``x_i y_j - y_i x_j`` (the
    signed area spanned by the two points, a cross product) to the log-odds
    that ``i`` beats ``j``. Points that turn anticlockwise around the origin
    beat the points behind them: a rock-paper-scissors cycle shows as points
    spread around the origin, a transitive game as points on a line. This
    display scatters the points, labels them, colours them by rating, and
    can draw arrows from winner to loser for the strongest cyclic pairs.

    Parameters
    ----------
    coordinates : array-like of shape (n_players, 2)
        The players' points in the plane.
    labels : array-like of shape (n_players,), default=None
        Player labels; ``"player 0"``, ... when None.
    ratings : array-like of shape (n_players,), default=None
        Ratings used to colour the points (e.g. the transitive ratings).
    component : int, default=0
        Index of the plane (used in the title).
    explained_share : float, default=None
        Share of the game's squared norm this plane explains (title).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    scatter_ : PathCollection
        The players' points.
    texts_ : list of Text
        The point labels.
    arrows_ : list of Annotation
        Winner-to-loser arrows (empty unless requested).
    colorbar_ : Colorbar or None
        Colour scale of the ratings.

    See Also
    --------
    sklearn_eval.pairwise.MultiElo : Learns the cyclic vectors.
    sklearn_eval.game.schur_embedding : The planes of a payoff matrix.
    HodgeDisplay : How much of a game is cyclic.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_eval.plotting import CyclicEmbeddingDisplay
    >>> C4 = np.array([[0, 1, 0, -1], [-1, 0, 1, 0], [0, -1, 0, 1], [1, 0, -1, 0]])
    >>> display = CyclicEmbeddingDisplay.from_payoff(C4, labels=list("ABCD"),
    ...                                              arrows="all")
    >>> np.linalg.norm(display.coordinates, axis=1).round(3)  # a circle
    array([1., 1., 1., 1.])
    >>> len(display.arrows_)   # A->B, B->C, C->D, D->A
    4
    """

    def __init__(
        self,
        coordinates,
        *,
        labels=None,
        ratings=None,
        component=0,
        explained_share=None,
    ):
        coords = np.asarray(coordinates, dtype=np.float64)
        if coords.ndim != 2 or coords.shape[1] != 2 or coords.shape[0] < 1:
            raise ValueError(
                f"coordinates must have shape (n_players, 2); got {coords.shape}."
            )
        if not np.all(np.isfinite(coords)):
            i = int(np.argmax(~np.all(np.isfinite(coords), axis=1)))
            raise ValueError(f"coordinates has a non-finite value in row {i}.")
        n = coords.shape[0]
        self.coordinates = coords.copy()
        self.labels = _as_labels(labels, n, "labels", "player")
        self.ratings = (
            None if ratings is None else _as_float_vector(ratings, "ratings", n)
        )
        if (
            isinstance(component, bool)
            or not isinstance(component, numbers.Integral)
            or component < 0
        ):
            raise ValueError(
                f"component must be a non-negative int; got {component!r}."
            )
        self.component = int(component)
        self.explained_share = (
            None if explained_share is None else float(explained_share)
        )

    def cyclic_logits(self):
        """Plane contribution to the log-odds: ``L[i, j] = x_i y_j - y_i x_j``.

        Returns
        -------
        ndarray of shape (n_players, n_players)
            Antisymmetric; ``L[i, j] > 0`` means ``i`` beats ``j`` in this
            plane.
        """
        x, y = self.coordinates.T
        return np.outer(x, y) - np.outer(y, x)

    def plot(
        self,
        ax=None,
        *,
        arrows=None,
        min_arrow_logit=0.0,
        label_points=True,
        colorbar=True,
        scatter_kw=None,
    ):
        """Draw the plane.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        arrows : None, int or "all", default=None
            None: no arrows. An int k: arrows for the k pairs with the
            largest cyclic log-odds. "all": every pair with a cyclic log-odds
            above ``min_arrow_logit``. Arrows point from winner to loser.
        min_arrow_logit : float, default=0.0
            Smallest ``|L[i, j]|`` drawn as an arrow.
        label_points : bool, default=True
            Write the labels next to the points (overlaps pushed apart).
        colorbar : bool, default=True
            Add a colour bar when ratings are known.
        scatter_kw : dict, default=None
            Extra keyword arguments of ``Axes.scatter``.

        Returns
        -------
        display : CyclicEmbeddingDisplay
        """
        pairs = self._arrow_pairs(arrows, min_arrow_logit)
        ax = _single_ax(
            ax, "CyclicEmbeddingDisplay.plot", figsize=(6.4, 5.6), layout="constrained"
        )
        scatter_kw = {} if scatter_kw is None else dict(scatter_kw)
        x, y = self.coordinates.T
        if self.ratings is not None:
            scatter_kw.setdefault("c", self.ratings)
            scatter_kw.setdefault("cmap", "viridis")
        else:
            scatter_kw.setdefault("color", "C0")
        scatter_kw.setdefault("s", 36)
        scatter_kw.setdefault("zorder", 3)
        ax.axhline(0, color="0.8", lw=0.8, zorder=0)
        ax.axvline(0, color="0.8", lw=0.8, zorder=0)
        self.scatter_ = ax.scatter(x, y, **scatter_kw)
        ax.set_aspect("equal", adjustable="datalim")
        ax.plot([0], [0], marker="+", color="k", ms=10, zorder=2)
        self.arrows_ = [
            ax.annotate(
                "",
                xy=(x[j], y[j]),
                xytext=(x[i], y[i]),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": "C3",
                    "lw": 0.8,
                    "alpha": 0.6,
                    "shrinkA": 5,
                    "shrinkB": 5,
                },
                zorder=1,
            )
            for i, j in pairs
        ]
        self.colorbar_ = None
        if self.ratings is not None and colorbar:
            self.colorbar_ = ax.figure.colorbar(self.scatter_, ax=ax, shrink=0.8)
            self.colorbar_.set_label("rating")
        k = self.component + 1
        title = f"Cyclic plane {k}"
        if self.explained_share is not None:
            title += f" ({100 * self.explained_share:.0f}% of the game)"
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(f"$c_{{i,{2 * k - 1}}}$")
        ax.set_ylabel(f"$c_{{i,{2 * k}}}$")
        self.texts_ = _spread_labels(ax, x, y, self.labels) if label_points else []
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    def _arrow_pairs(self, arrows, min_arrow_logit):
        if arrows is None or arrows is False:
            return []
        L = self.cyclic_logits()
        floor = 1e-9 * float(np.max(np.abs(L), initial=0.0))
        winners, losers = np.nonzero(L > max(float(min_arrow_logit), floor))
        strength = L[winners, losers]
        order = np.argsort(-strength, kind="stable")
        if isinstance(arrows, str):
            if arrows != "all":
                raise ValueError(
                    f"arrows must be None, an int or 'all'; got {arrows!r}."
                )
            return list(zip(winners[order], losers[order], strict=True))
        count = _check_positive_int(arrows, "arrows", allow_none=False)
        order = order[:count]
        return list(zip(winners[order], losers[order], strict=True))

    @classmethod
    def from_estimator(cls, estimator, *, component=0, ax=None, **plot_kw):
        """Plot one cyclic plane of a fitted :class:`~sklearn_eval.pairwise.MultiElo`.

        Points are ``estimator.embedding(component)``; colours are the
        ``transitive_ratings_`` (or ``ratings_``).

        Parameters
        ----------
        estimator : MultiElo
            Fitted, with ``n_components > component``.
        component : int, default=0
            The plane.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : CyclicEmbeddingDisplay
        """
        _check_fitted_attrs(
            estimator, ["players_", "vectors_"], "CyclicEmbeddingDisplay.from_estimator"
        )
        coords = estimator.embedding(component)
        ratings = getattr(estimator, "transitive_ratings_", None)
        if ratings is None:
            ratings = getattr(estimator, "ratings_", None)
        display = cls(
            coords, labels=estimator.players_, ratings=ratings, component=component
        )
        return display.plot(ax=ax, **plot_kw)

    @classmethod
    def from_payoff(
        cls,
        payoff,
        *,
        component=0,
        labels=None,
        kind="logit",
        clip=1e-3,
        ax=None,
        **plot_kw,
    ):
        """Plot one plane of the Schur decomposition of a game's cyclic part.

        The transitive part ``grad(div A)`` is removed first (the paper's
        appendix F.3 recommendation); plane ``k`` of the real Schur form of
        ``rot(A)`` is scaled by ``sqrt(|lambda_k|)`` (second axis flipped when
        ``lambda_k < 0``) so that ``x_i y_j - y_i x_j`` is the plane's
        contribution to ``A[i, j]``, as for mElo vectors. Points are
        coloured by ``div(A)`` (the Hodge ratings).

        Parameters
        ----------
        payoff : array-like or DataFrame of shape (n, n)
            Antisymmetric log-odds (``kind="logit"``) or win probabilities
            (``kind="probability"``).
        component : int, default=0
            The plane, largest ``|lambda|`` first.
        labels : array-like, default=None
            Player labels; a DataFrame's index when None.
        kind : {"logit", "probability"}, default="logit"
        clip : float, default=1e-3
            Probability clipping before the logit.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : CyclicEmbeddingDisplay
        """
        from ..game import schur_embedding
        from ._base import _frame_labels
        from ._nash import _antisymmetric, _as_logits

        if labels is None:
            labels = _frame_labels(payoff, 0)
        if kind == "probability":
            A = _as_logits(payoff, clip, "payoff")
        elif kind == "logit":
            A = _antisymmetric(payoff, "payoff")
        else:
            raise ValueError(f"kind must be 'logit' or 'probability'; got {kind!r}.")
        if (
            isinstance(component, bool)
            or not isinstance(component, numbers.Integral)
            or component < 0
        ):
            raise ValueError(
                f"component must be a non-negative int; got {component!r}."
            )
        emb = schur_embedding(A, component + 1, remove_transitive=True)
        if emb.eigenvalues.size <= component:
            raise ValueError(
                f"The cyclic part has {emb.eigenvalues.size} non-zero plane(s); "
                f"component={component} does not exist."
            )
        lam = float(emb.eigenvalues[component])
        coords = emb.coordinates[:, component, :] * np.sqrt(abs(lam))
        if lam < 0:
            coords[:, 1] = -coords[:, 1]
        share = float(emb.explained_variance_ratio[component])
        cyclic_norm = float(np.sum((A - (emb.ratings[:, None] - emb.ratings)) ** 2))
        total = float(np.sum(A * A))
        display = cls(
            coords,
            labels=labels,
            ratings=emb.ratings,
            component=component,
            explained_share=share * cyclic_norm / total if total > 0 else 0.0,
        )
        return display.plot(ax=ax, **plot_kw)


class RatingTableDisplay:
    """Ratings with confidence intervals, sorted by estimate (a forest plot).

    One row per item (player, agent or task), best at the top: a point at the
    estimate and a horizontal bar over the interval ``[low, high]``. With
    rank intervals (from a bootstrap), each row is annotated on the right
    with its rank range, e.g. ``"rank 2-4"``. Intervals need not contain the
    estimate (a percentile bootstrap interval may not); an item with a NaN
    bound has no bar.

    Parameters
    ----------
    labels : array-like of shape (n_items,)
        Item labels.
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
        self.estimate = _as_float_vector(estimate, "estimate")
        n = self.estimate.shape[0]
        if n == 0:
            raise ValueError("estimate is empty.")
        self.labels = _as_labels(labels, n, "labels", "item")
        if (low is None) != (high is None):
            raise ValueError("Pass both low and high, or neither.")
        self.low = self.high = None
        if low is not None:
            self.low = _as_float_vector(low, "low", n, allow_nan=True)
            self.high = _as_float_vector(high, "high", n, allow_nan=True)
            bad = self.low > self.high
            if bad.any():
                i = int(np.argmax(bad))
                raise ValueError(
                    f"low must not exceed high; item {self.labels[i]!r} has low "
                    f"{self.low[i]!r} > high {self.high[i]!r}."
                )
        if (rank_low is None) != (rank_high is None):
            raise ValueError("Pass both rank_low and rank_high, or neither.")
        self.rank_low = self.rank_high = None
        if rank_low is not None:
            self.rank_low = _as_float_vector(rank_low, "rank_low", n, allow_nan=True)
            self.rank_high = _as_float_vector(rank_high, "rank_high", n, allow_nan=True)
        self.xlabel = str(xlabel)
        self.confidence_level = confidence_level

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
        max_items = _check_positive_int(max_items, "max_items")
        order = np.argsort(-self.estimate, kind="stable")
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
        if self.low is not None:
            self.intervals_ = ax.hlines(
                rows, self.low[order], self.high[order], color=color, lw=2, alpha=0.6
            )
        (self.points_,) = ax.plot(
            self.estimate[order], rows, "o", color=color, ms=5, zorder=3
        )
        ax.set_yticks(rows)
        ax.set_yticklabels(
            [str(v) for v in self.labels[order]], fontsize=8 if n <= 40 else 6
        )
        ax.set_ylim(-0.7, n - 0.3)
        ax.set_xlabel(self.xlabel)
        ax.grid(axis="x", alpha=0.3)
        title = "Ratings"
        if self.low is not None:
            title += " with intervals"
            if self.confidence_level is not None:
                title += f" ({100 * float(self.confidence_level):g}%)"
        if n < self.estimate.size:
            title += f" (best {n} of {self.estimate.size})"
        ax.set_title(title, fontsize=10)
        self.texts_ = []
        if show_ranks and self.rank_low is not None:
            transform = ax.get_yaxis_transform()
            for row, i in zip(rows, order, strict=True):
                self.texts_.append(
                    ax.text(
                        1.01,
                        row,
                        _rank_text(self.rank_low[i], self.rank_high[i]),
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
        display = cls(
            result.labels,
            result.estimate,
            low=result.low,
            high=result.high,
            rank_low=getattr(result, "rank_low", None),
            rank_high=getattr(result, "rank_high", None),
            xlabel=xlabel,
            confidence_level=getattr(result, "confidence_level", None),
        )
        return display.plot(ax=ax, **plot_kw)

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
        display = cls(
            labels,
            estimate,
            low=low,
            high=high,
            rank_low=rank_low,
            rank_high=rank_high,
            xlabel=xlabel,
        )
        return display.plot(ax=ax, **plot_kw)

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **plot_kw):
        """Plot the ratings of a fitted EloRanker or MultiElo (no intervals).

        Parameters
        ----------
        estimator : EloRanker or MultiElo
            Fitted (``players_`` and ``ratings_``).
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
            estimator, ["players_", "ratings_"], "RatingTableDisplay.from_estimator"
        )
        scale = getattr(estimator, "scale", "elo")
        xlabel = "Elo rating" if scale == "elo" else "rating (logit)"
        display = cls(estimator.players_, estimator.ratings_, xlabel=xlabel)
        return display.plot(ax=ax, **plot_kw)


def _rank_text(low, high):
    if np.isnan(low) or np.isnan(high):
        return "rank ?"
    low, high = int(round(low)), int(round(high))
    return f"rank {low}" if low == high else f"rank {low}\u2013{high}"
