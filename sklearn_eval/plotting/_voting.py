"""Display of a voting outcome: the ranking beside the margin matrix."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ._alpharank import literal

__all__ = ["VotingDisplay"]


class VotingDisplay:
    """A voting ranking with its pairwise margin matrix.

    Left: the agents' scores under the rule, best at the top. Right: the
    margin matrix (tasks preferring the row agent minus tasks preferring the
    column agent) with rows and columns in ranking order, so a ranking that
    agrees with every majority is red above the diagonal and blue below; blue
    cells above the diagonal are the majorities the ranking overrules (the
    cycles). The Condorcet winner, if any, is marked.

    Use :meth:`from_estimator` rather than the constructor.

    Parameters
    ----------
    scores : array-like of shape (n_agents,)
        The rule's scores.
    margin : array-like of shape (n_agents, n_agents)
        Antisymmetric margin matrix.
    agent_names : array-like of shape (n_agents,)
        Labels, drawn literally (no math text).
    order : array-like of shape (n_agents,)
        Agent indices, best first.
    method : str, default=""
        Name of the rule, for the title.
    condorcet_winner : int, default=None
        Index of the Condorcet winner.

    Attributes
    ----------
    axes_ : ndarray of two matplotlib Axes
    figure_ : matplotlib Figure
    bars_ : BarContainer
    image_ : AxesImage

    See Also
    --------
    sklearn_eval.game.VotingRanker : Computes the ranking and margins.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_eval.game import VotingRanker
    >>> from sklearn_eval.plotting import VotingDisplay
    >>> X = np.array([[3.0, 1.0, 2.0], [2.0, 3.0, 3.0], [1.0, 2.0, 1.0]])
    >>> disp = VotingDisplay.from_estimator(VotingRanker().fit(X))
    >>> disp.image_.get_array().shape
    (3, 3)
    """

    def __init__(self, scores, margin, agent_names, order, *, method="",
                 condorcet_winner=None):
        self.scores = scores
        self.margin = margin
        self.agent_names = agent_names
        self.order = order
        self.method = method
        self.condorcet_winner = condorcet_winner

    @classmethod
    def from_estimator(cls, estimator, *, ax=None):
        """Plot a fitted :class:`~sklearn_eval.game.VotingRanker`.

        Parameters
        ----------
        estimator : VotingRanker
            Fitted.
        ax : sequence of two matplotlib Axes, default=None

        Returns
        -------
        VotingDisplay
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator, ("margin_matrix_", "ranking_"))
        agents = list(np.asarray(estimator.agents_).tolist())
        where = {a: k for k, a in enumerate(agents)}
        order = np.array([where[a] for a in np.asarray(estimator.ranking_).tolist()])
        winner = estimator.condorcet_winner_
        disp = cls(
            estimator.agent_scores_, estimator.margin_matrix_, agents, order,
            method=estimator.method,
            condorcet_winner=None if winner is None else where[winner],
        )
        return disp.plot(ax=ax)

    def plot(self, ax=None, *, cmap="RdBu_r"):
        """Draw the two panels.

        Parameters
        ----------
        ax : sequence of two matplotlib Axes, default=None
            Axes for the scores and the margins; a new figure when None.
        cmap : str, default="RdBu_r"
            Diverging colormap of the margins (centred on 0).

        Returns
        -------
        VotingDisplay
        """
        scores = np.asarray(self.scores, dtype=np.float64)
        margin = np.asarray(self.margin, dtype=np.float64)
        order = np.asarray(self.order, dtype=np.intp)
        names = [str(a) for a in self.agent_names]
        n = scores.size
        if margin.shape != (n, n) or order.shape != (n,) or len(names) != n:
            raise ValueError(
                "scores, margin, agent_names and order must describe the same "
                f"{n} agents; got shapes {margin.shape}, {order.shape} and "
                f"{len(names)} names."
            )
        if ax is None:
            size = max(4.0, 0.35 * n + 2.0)
            _, ax = plt.subplots(1, 2, figsize=(2 * size, size), layout="constrained",
                                 width_ratios=[1, 1.3])
        axes = np.asarray(ax, dtype=object).ravel()
        if axes.size != 2:
            raise ValueError("ax must be a sequence of two Axes (scores, margins).")
        labels = [names[k] + (" (Condorcet)" if k == self.condorcet_winner else "")
                  for k in order]
        pos = np.arange(n)
        self.bars_ = axes[0].barh(pos, scores[order], color="C0")
        axes[0].set_yticks(pos, labels=labels)
        axes[0].invert_yaxis()
        axes[0].set_xlabel("score")
        literal(axes[0].set_title(f"{self.method} ranking".strip()))
        sub = margin[np.ix_(order, order)]
        bound = float(np.max(np.abs(sub))) or 1.0
        self.image_ = axes[1].imshow(sub, cmap=cmap, vmin=-bound, vmax=bound)
        axes[1].set_xticks(pos, labels=[names[k] for k in order], rotation=90)
        axes[1].set_yticks(pos, labels=[names[k] for k in order])
        axes[1].set_title("margin (row minus column)")
        axes[1].figure.colorbar(self.image_, ax=axes[1], shrink=0.8)
        for a in axes:
            for text in a.get_xticklabels() + a.get_yticklabels():
                literal(text)
        self.axes_ = axes
        self.figure_ = axes[0].figure
        return self
