"""Display of the Hodge decomposition: transitive vs cyclic shares of games."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from sklearn.utils import Bunch

from ._base import (
    _antisymmetric,
    _as_float_vector,
    _as_labels,
    _as_logits,
    _check_fitted_attrs,
    _literal_legend,
    _literal_ticklabels,
    _single_ax,
)

__all__ = ["HodgeDisplay"]


def _check_hodge(transitive_share, cyclic_share, plane_shares=None, game_names=None):
    """The validated data of a :class:`HodgeDisplay` (a Bunch of copies)."""
    t = _as_float_vector(np.atleast_1d(transitive_share), "transitive_share")
    c = _as_float_vector(np.atleast_1d(cyclic_share), "cyclic_share", t.size)
    if t.size == 0:
        raise ValueError("transitive_share is empty.")
    for name, share in (("transitive_share", t), ("cyclic_share", c)):
        bad = (share < -1e-9) | (share > 1 + 1e-9)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"{name}[{i}] = {share[i]!r} is not in [0, 1].")
    total = t + c
    bad = (np.abs(total - 1.0) > 1e-6) & (total > 1e-12)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"transitive_share + cyclic_share must be 1; game {i} sums to {total[i]!r}."
        )
    cyclic = np.clip(c, 0, 1)
    return Bunch(
        transitive_share=np.clip(t, 0, 1),
        cyclic_share=cyclic,
        plane_shares=_check_plane_shares(plane_shares, cyclic),
        game_names=_as_labels(game_names, t.size, "game_names", "game"),
    )


def _check_plane_shares(plane_shares, cyclic):
    if plane_shares is None:
        return None
    n_games = cyclic.size
    planes = np.asarray(plane_shares, dtype=np.float64)
    if planes.ndim == 1:
        planes = planes[None, :] if n_games == 1 else planes[:, None]
    if planes.ndim != 2 or planes.shape[0] != n_games:
        raise ValueError(
            f"plane_shares must have shape (n_games={n_games}, n_planes); got "
            f"{np.shape(plane_shares)}."
        )
    filled = np.nan_to_num(planes, nan=0.0)
    if np.any(filled < -1e-9) or np.any(filled.sum(axis=1) > cyclic + 1e-6):
        raise ValueError(
            "plane_shares must be non-negative and sum to at most each "
            "game's cyclic_share."
        )
    return np.clip(filled, 0, None)


class HodgeDisplay:
    """Transitive vs cyclic share of one or several games.

    The Hodge decomposition ``A = grad(div A) + rot(A)`` splits an
    antisymmetric game into a transitive part (explained by one rating per
    player, as Elo) and a cyclic part (rock-paper-scissors), orthogonal in
    the Frobenius inner product, so their squared norms add up to
    ``||A||_F^2`` (Balduzzi et al., 2018, section 2.2). The display draws one
    horizontal stacked bar per game: the transitive share, the shares of the
    leading cyclic Schur planes (each plane is what one mElo component can
    capture), and the rest of the cyclic part. Shares are annotated in
    percent.

    The constructor only stores its arguments; :meth:`from_payoff` and
    :meth:`from_estimator` compute and check them (and so does :meth:`plot`).

    Parameters
    ----------
    transitive_share : float or array-like of shape (n_games,)
        ``||grad(div A)||^2 / ||A||^2`` of each game, in [0, 1].
    cyclic_share : float or array-like of shape (n_games,)
        ``||rot A||^2 / ||A||^2``; ``transitive_share + cyclic_share`` must
        be 1 (or both 0 for a zero game).
    plane_shares : array-like of shape (n_games, n_planes), default=None
        Shares of ``||A||^2`` of the leading cyclic Schur planes of each game
        (NaN where a game has fewer planes); they must not exceed the
        cyclic share.
    game_names : array-like of shape (n_games,), default=None
        Labels; ``"game 0"``, ... when None.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    bars_ : list of BarContainer
        One container per segment kind (transitive, plane 1, ..., rest of
        the cyclic part), each with one bar per game.
    texts_ : list of matplotlib Text
        The percentage annotations.

    See Also
    --------
    sklearn_eval.game.hodge_decomposition : The decomposition shown.
    sklearn_eval.game.schur_embedding : The cyclic planes.
    CyclicEmbeddingDisplay : The players' points in one cyclic plane.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_eval.plotting import HodgeDisplay
    >>> rps = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]])
    >>> ladder = np.array([[0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
    >>> display = HodgeDisplay.from_payoff([rps, ladder, rps + 0.5 * ladder],
    ...                                    game_names=["RPS", "ladder", "mixed"])
    >>> display.transitive_share.round(3)
    array([0.   , 1.   , 0.333])
    """

    def __init__(
        self, transitive_share, cyclic_share, *, plane_shares=None, game_names=None
    ):
        self.transitive_share = transitive_share
        self.cyclic_share = cyclic_share
        self.plane_shares = plane_shares
        self.game_names = game_names

    def _checked(self):
        return _check_hodge(
            self.transitive_share,
            self.cyclic_share,
            plane_shares=self.plane_shares,
            game_names=self.game_names,
        )

    def plot(self, ax=None, *, annotate=True, min_annotated=0.04):
        """Draw the stacked share bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        annotate : bool, default=True
            Write the percentages inside the segments.
        min_annotated : float, default=0.04
            Segments narrower than this share are not annotated.

        Returns
        -------
        display : HodgeDisplay
        """
        data = self._checked()
        n_games = data.transitive_share.size
        ax = _single_ax(
            ax,
            "HodgeDisplay.plot",
            figsize=(8.5, 1.6 + 0.45 * n_games),
            layout="constrained",
        )
        rows = np.arange(n_games)[::-1]
        segments = [("transitive (Elo-like)", data.transitive_share, "C0", None)]
        cyclic_left = data.cyclic_share.copy()
        if data.plane_shares is not None:
            n_planes = data.plane_shares.shape[1]
            oranges = _shades(n_planes)
            for k in range(n_planes):
                share = data.plane_shares[:, k]
                segments.append((f"cyclic plane {k + 1}", share, oranges[k], None))
                cyclic_left = cyclic_left - share
            segments.append(
                ("cyclic, other planes", np.clip(cyclic_left, 0, None), "0.85", "//")
            )
        else:
            segments.append(("cyclic (rock-paper-scissors)", cyclic_left, "C1", None))
        left = np.zeros(n_games)
        self.bars_, self.texts_ = [], []
        for label, share, color, hatch in segments:
            bars = ax.barh(
                rows,
                share,
                left=left,
                color=color,
                hatch=hatch,
                edgecolor="white",
                height=0.6,
                label=label,
            )
            self.bars_.append(bars)
            if annotate:
                for row, start, width in zip(rows, left, share, strict=True):
                    if width >= min_annotated:
                        self.texts_.append(
                            ax.text(
                                start + width / 2,
                                row,
                                f"{100 * width:.0f}%",
                                ha="center",
                                va="center",
                                fontsize=8,
                            )
                        )
            left = left + share
        ax.set_yticks(rows)
        _literal_ticklabels(ax, "y", data.game_names)
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of the game's squared norm $\\|A\\|_F^2$")
        ax.set_title("Hodge decomposition: transitive vs cyclic", fontsize=10)
        _literal_legend(
            ax, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False
        )
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_payoff(
        cls,
        payoffs,
        *,
        game_names=None,
        payoff="logit",
        clip=1e-3,
        n_planes=2,
        ax=None,
        **plot_kw,
    ):
        """Decompose one or several games and plot their shares.

        Parameters
        ----------
        payoffs : array-like of shape (n, n), or a list or dict of them
            Antisymmetric log-odds matrices (``payoff="logit"``) or win
            probabilities (``payoff="probability"``: ``P + P^T = 1`` off the
            diagonal; turned into log-odds after clipping to
            ``[clip, 1 - clip]``). A dict maps game names to matrices.
        game_names : array-like, default=None
            Labels (the dict keys for a dict).
        payoff : {"logit", "probability"}, default="logit"
        clip : float, default=1e-3
            Probability clipping before the logit.
        n_planes : int, default=2
            Number of leading cyclic planes drawn separately (0 for none).
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : HodgeDisplay
        """
        if isinstance(payoffs, dict):
            if game_names is None:
                game_names = list(payoffs)
            payoffs = list(payoffs.values())
        elif not _is_sequence_of_matrices(payoffs):
            payoffs = [payoffs]
        if payoff not in ("logit", "probability"):
            raise ValueError(
                f"payoff must be 'logit' or 'probability'; got {payoff!r}."
            )
        if (
            isinstance(n_planes, bool)
            or not isinstance(n_planes, int | np.integer)
            or n_planes < 0
        ):
            raise ValueError(
                f"n_planes must be a non-negative integer; got {n_planes!r}."
            )
        matrices = [
            _as_logits(P, clip, f"payoffs[{i}]")
            if payoff == "probability"
            else _antisymmetric(P, f"payoffs[{i}]")
            for i, P in enumerate(payoffs)
        ]
        return cls._from_logits(matrices, game_names, n_planes, ax, plot_kw)

    @classmethod
    def _from_logits(cls, matrices, game_names, n_planes, ax, plot_kw):
        from ..game import hodge_decomposition, schur_embedding

        shares, planes = [], []
        for A in matrices:
            h = hodge_decomposition(A)
            shares.append((h.transitive_share, h.cyclic_share))
            row = np.full(n_planes, np.nan)
            if n_planes:
                ratio = schur_embedding(A, n_planes).explained_variance_ratio
                row[: ratio.size] = ratio * h.cyclic_share
            planes.append(row)
        t, c = np.array(shares).T
        data = _check_hodge(
            t,
            c,
            plane_shares=np.array(planes) if n_planes else None,
            game_names=game_names,
        )
        return cls(**data).plot(ax=ax, **plot_kw)

    @classmethod
    def from_estimator(cls, estimator, *, name=None, n_planes=2, ax=None, **plot_kw):
        """Shares of the game of a fitted :class:`~sklearn_eval.game.NashAverager`.

        Agent vs agent: the decomposition of the fitted log-odds ``payoff_``.
        Agent vs task: the decomposition of the agent-and-task flow of
        section 3.3 (:func:`~sklearn_eval.game.avt_embedding` of the
        normalised scores), whose transitive share says how much of the
        scores agents' mean skill and tasks' mean difficulty explain.

        Parameters
        ----------
        estimator : NashAverager
            Fitted.
        name : str, default=None
            Label of the bar; the estimator's game when None.
        n_planes : int, default=2
            Number of leading cyclic planes drawn separately.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : HodgeDisplay
        """
        from ..game import avt_embedding

        _check_fitted_attrs(estimator, ["payoff_"], "HodgeDisplay.from_estimator")
        A = np.asarray(estimator.payoff_, dtype=np.float64)
        avt = hasattr(estimator, "task_distribution_")
        if avt:
            A = avt_embedding(A).flow
        if name is None:
            name = "agents vs tasks" if avt else "agents vs agents"
        return cls._from_logits([A], [name], n_planes, ax, plot_kw)


def _shades(n):
    cmap = colormaps["Oranges"]
    return [cmap(0.75 - 0.4 * k / max(n - 1, 1)) for k in range(n)]


def _is_sequence_of_matrices(payoffs):
    if hasattr(payoffs, "shape") and not hasattr(payoffs, "iloc"):
        return np.ndim(payoffs) == 3
    if isinstance(payoffs, list | tuple) and len(payoffs) > 0:
        return np.ndim(payoffs[0]) == 2
    return False
