"""Display of alpha-Rank's sweep: each agent's mass against the ranking intensity."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ._base import _literal

__all__ = ["AlphaRankSweepDisplay"]


def literal(text):
    """Show one Text artist's string as is (no math text, no TeX)."""
    return _literal([text])[0]


class AlphaRankSweepDisplay:
    """Stationary mass of each agent as alpha-Rank's ranking intensity grows.

    alpha-Rank's ranking depends on ``alpha``: at small values every agent
    keeps about ``1 / n`` of the mass, and as ``alpha`` grows the mass moves
    to the sink components of the response graph. The paper reads the ranking
    where the curves have flattened; :class:`~sklearn_eval.game.AlphaRank`
    with ``alpha="auto"`` stops its sweep there (the dashed line), and the
    dotted markers at the right edge show the exact ``alpha -> inf`` limit.

    Use :meth:`from_estimator` rather than the constructor.

    Parameters
    ----------
    alphas : array-like of shape (n_alphas,)
        Increasing positive ranking intensities.
    masses : array-like of shape (n_alphas, n_agents)
        Agent distribution at each alpha.
    agent_names : array-like of shape (n_agents,)
        Labels (drawn literally).
    limit : array-like of shape (n_agents,), default=None
        Infinite-alpha agent distribution.
    alpha : float, default=None
        The chosen ranking intensity, drawn as a vertical line.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : list of Line2D
        One curve per drawn agent.

    See Also
    --------
    sklearn_eval.game.AlphaRank : Computes the sweep.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_eval.datasets import load_soccer
    >>> from sklearn_eval.game import AlphaRank
    >>> from sklearn_eval.plotting import AlphaRankSweepDisplay
    >>> ar = AlphaRank(game="agent_vs_agent").fit(load_soccer().data)
    >>> disp = AlphaRankSweepDisplay.from_estimator(ar)
    >>> len(disp.lines_)
    10
    """

    def __init__(self, alphas, masses, agent_names, *, limit=None, alpha=None):
        self.alphas = alphas
        self.masses = masses
        self.agent_names = agent_names
        self.limit = limit
        self.alpha = alpha

    @classmethod
    def from_estimator(cls, estimator, *, alphas=None, max_agents=10, ax=None):
        """Plot the sweep of a fitted :class:`~sklearn_eval.game.AlphaRank`.

        Parameters
        ----------
        estimator : AlphaRank
            Fitted. With ``alpha="auto"`` its stored sweep is drawn unless
            ``alphas`` is given.
        alphas : array-like of shape (n_alphas,), default=None
            Ranking intensities to evaluate (``estimator.sweep``); by default
            the stored sweep, or 40 log-spaced values around ``alpha_``.
        max_agents : int, default=10
            Draw the agents with the largest final mass only.
        ax : matplotlib Axes, default=None

        Returns
        -------
        AlphaRankSweepDisplay
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator, "agent_distribution_")
        if not hasattr(estimator, "sweep"):
            raise TypeError("from_estimator needs a fitted AlphaRank.")
        if not isinstance(max_agents, (int, np.integer)) or max_agents < 1:
            raise ValueError(f"max_agents must be a positive int; got {max_agents!r}.")
        if alphas is None and hasattr(estimator, "alphas_"):
            alphas, masses = estimator.alphas_, estimator.alpha_path_
        else:
            if alphas is None:
                center = estimator.alpha_ if np.isfinite(estimator.alpha_) else 1e3
                alphas = np.geomspace(center * 1e-4, center * 10.0, 40)
            alphas = np.sort(np.asarray(alphas, dtype=np.float64).ravel())
            if alphas.size == 0 or np.any(~np.isfinite(alphas)) or np.any(alphas <= 0):
                raise ValueError("alphas must hold finite positive values.")
            masses = estimator.sweep(alphas)
        disp = cls(
            alphas, masses, estimator.agents_,
            limit=estimator.limit_distribution_,
            alpha=estimator.alpha_ if np.isfinite(estimator.alpha_) else None,
        )
        return disp.plot(ax=ax, max_agents=max_agents)

    def plot(self, ax=None, *, max_agents=10, line_kw=None):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        max_agents : int, default=10
            Draw the agents with the largest final mass only.
        line_kw : dict, default=None
            Passed to ``Axes.plot`` for every curve.

        Returns
        -------
        AlphaRankSweepDisplay
        """
        alphas = np.asarray(self.alphas, dtype=np.float64)
        masses = np.atleast_2d(np.asarray(self.masses, dtype=np.float64))
        names = [str(a) for a in np.asarray(self.agent_names).tolist()]
        if masses.shape != (alphas.size, len(names)):
            raise ValueError(
                f"masses must have shape (n_alphas, n_agents) = "
                f"({alphas.size}, {len(names)}); got {masses.shape}."
            )
        if ax is None:
            _, ax = plt.subplots(layout="constrained")
        keep = np.argsort(-masses[-1], kind="stable")[:max_agents]
        self.lines_ = []
        for k in keep:
            (line,) = ax.plot(alphas, masses[:, k], label=names[k], **(line_kw or {}))
            self.lines_.append(line)
            if self.limit is not None:
                ax.plot([alphas[-1]], [np.asarray(self.limit)[k]], marker="o",
                        linestyle="none", color=line.get_color(), alpha=0.6)
        if self.alpha is not None:
            ax.axvline(self.alpha, linestyle="--", color="0.5", linewidth=1)
        ax.set_xscale("log")
        ax.set_xlabel("ranking intensity alpha")
        ax.set_ylabel("stationary mass")
        legend = ax.legend(loc="best", fontsize="small")
        for text in legend.get_texts():
            literal(text)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self
