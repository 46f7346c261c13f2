"""Display of the mElo / Schur cyclic plane (Balduzzi et al. 2018, Fig. 3)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch

from ._base import (
    _antisymmetric,
    _as_float_vector,
    _as_labels,
    _as_logits,
    _check_fitted_attrs,
    _check_positive_int,
    _frame_labels,
    _single_ax,
    _spread_labels,
)

__all__ = ["CyclicEmbeddingDisplay"]


def _check_component(component):
    if (
        isinstance(component, bool)
        or not isinstance(component, numbers.Integral)
        or component < 0
    ):
        raise ValueError(f"component must be a non-negative int; got {component!r}.")
    return int(component)


def _check_embedding(
    coordinates, labels=None, ratings=None, component=0, explained_share=None
):
    """The validated data of a :class:`CyclicEmbeddingDisplay` (a Bunch of copies)."""
    coords = np.asarray(coordinates, dtype=np.float64)
    if coords.ndim != 2 or coords.shape[1] != 2 or coords.shape[0] < 1:
        raise ValueError(
            f"coordinates must have shape (n_players, 2); got {coords.shape}."
        )
    if not np.all(np.isfinite(coords)):
        i = int(np.argmax(~np.all(np.isfinite(coords), axis=1)))
        raise ValueError(f"coordinates has a non-finite value in row {i}.")
    n = coords.shape[0]
    return Bunch(
        coordinates=coords.copy(),
        labels=_as_labels(labels, n, "labels", "player"),
        ratings=None if ratings is None else _as_float_vector(ratings, "ratings", n),
        component=_check_component(component),
        explained_share=None if explained_share is None else float(explained_share),
    )


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

    The constructor only stores its arguments; :meth:`from_estimator` and
    :meth:`from_payoff` compute and check them (and so does :meth:`plot`).

    Parameters
    ----------
    coordinates : array-like of shape (n_players, 2)
        The players' points in the plane.
    labels : array-like of shape (n_players,), default=None
        Player labels; ``"player 0"``, ... when None. Drawn literally.
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
        self.coordinates = coordinates
        self.labels = labels
        self.ratings = ratings
        self.component = component
        self.explained_share = explained_share

    def _checked(self):
        return _check_embedding(
            self.coordinates,
            labels=self.labels,
            ratings=self.ratings,
            component=self.component,
            explained_share=self.explained_share,
        )

    def cyclic_logits(self):
        """Plane contribution to the log-odds: ``L[i, j] = x_i y_j - y_i x_j``.

        Returns
        -------
        ndarray of shape (n_players, n_players)
            Antisymmetric; ``L[i, j] > 0`` means ``i`` beats ``j`` in this
            plane.
        """
        x, y = self._checked().coordinates.T
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
        max_labels=None,
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
        max_labels : int, default=None
            Label at most this many points: those farthest from the origin
            (the players the plane says most about); every point when None.
            Keeps a plane of hundreds of players readable.

        Returns
        -------
        display : CyclicEmbeddingDisplay
        """
        data = self._checked()
        max_labels = _check_positive_int(max_labels, "max_labels")
        pairs = self._arrow_pairs(arrows, min_arrow_logit)
        ax = _single_ax(
            ax, "CyclicEmbeddingDisplay.plot", figsize=(6.4, 5.6), layout="constrained"
        )
        scatter_kw = {} if scatter_kw is None else dict(scatter_kw)
        x, y = data.coordinates.T
        if data.ratings is not None:
            scatter_kw.setdefault("c", data.ratings)
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
        if data.ratings is not None and colorbar:
            self.colorbar_ = ax.figure.colorbar(self.scatter_, ax=ax, shrink=0.8)
            self.colorbar_.set_label("rating")
        k = data.component + 1
        title = f"Cyclic plane {k}"
        if data.explained_share is not None:
            title += f" ({100 * data.explained_share:.0f}% of the game)"
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(f"$c_{{i,{2 * k - 1}}}$")
        ax.set_ylabel(f"$c_{{i,{2 * k}}}$")
        labelled = np.arange(x.size)
        if max_labels is not None and x.size > max_labels:
            radius = np.hypot(x, y)
            labelled = np.sort(np.argsort(-radius, kind="stable")[:max_labels])
            ax.text(
                0.01,
                0.01,
                f"{max_labels} of {x.size} players labelled (farthest from 0)",
                transform=ax.transAxes,
                fontsize=7,
                color="0.4",
            )
        self.texts_ = (
            _spread_labels(ax, x[labelled], y[labelled], data.labels[labelled])
            if label_points
            else []
        )
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
        ``transitive_ratings_`` (or ``agent_scores_``); labels are ``agents_``.

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
            estimator, ["agents_", "vectors_"], "CyclicEmbeddingDisplay.from_estimator"
        )
        coords = estimator.embedding(component)
        ratings = getattr(estimator, "transitive_ratings_", None)
        if ratings is None:
            ratings = getattr(estimator, "agent_scores_", None)
        data = _check_embedding(
            coords, labels=estimator.agents_, ratings=ratings, component=component
        )
        return cls(**data).plot(ax=ax, **plot_kw)

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

        if labels is None:
            labels = _frame_labels(payoff, 0)
        if kind == "probability":
            A = _as_logits(payoff, clip, "payoff")
        elif kind == "logit":
            A = _antisymmetric(payoff, "payoff")
        else:
            raise ValueError(f"kind must be 'logit' or 'probability'; got {kind!r}.")
        component = _check_component(component)
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
        data = _check_embedding(
            coords,
            labels=labels,
            ratings=emb.ratings,
            component=component,
            explained_share=share * cyclic_norm / total if total > 0 else 0.0,
        )
        return cls(**data).plot(ax=ax, **plot_kw)
