"""Agent characteristic curves against task difficulty (paper Fig. 8)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import (
    _as_float_vector,
    _as_labels,
    _as_matrix,
    _check_fitted_attrs,
    _check_positive_int,
    _frame_labels,
    _literal_legend,
    _optional_vector,
    _resolve_items,
    _single_ax,
)
from ._item_curves import _icc

__all__ = ["AgentCurveDisplay"]

# within-bin variances below this are rounding noise of equal responses
_ZERO_VARIANCE = 1e-12


def _check_agent_curves(
    difficulty,
    curves,
    agent_names=None,
    variance=None,
    task_difficulty=None,
    abilities=None,
    slope=1.0,
):
    """The validated data of an :class:`AgentCurveDisplay` (a Bunch of copies)."""
    difficulty = _as_float_vector(difficulty, "difficulty")
    n_bins = difficulty.size
    if n_bins == 0:
        raise ValueError("difficulty is empty.")
    curves = _as_matrix(curves, "curves", (None, n_bins), allow_nan=True)
    if curves.shape[0] == 0:
        raise ValueError("curves has no agent.")
    observed = curves[~np.isnan(curves)]
    if np.any((observed < 0) | (observed > 1)):
        raise ValueError("curves must hold success rates in [0, 1].")
    n_agents = curves.shape[0]
    if variance is not None:
        variance = _as_matrix(variance, "variance", curves.shape, allow_nan=True)
        if np.any(variance < 0):
            raise ValueError("variance must be non-negative.")
    slope_value = float(slope)
    if not np.isfinite(slope_value):
        raise ValueError(f"slope must be finite; got {slope!r}.")
    return Bunch(
        difficulty=difficulty,
        curves=curves,
        agent_names=_as_labels(agent_names, n_agents, "agent_names", "agent"),
        variance=variance,
        task_difficulty=_optional_vector(
            task_difficulty, "task_difficulty", allow_nan=True
        ),
        abilities=_optional_vector(abilities, "abilities", n_agents),
        slope=slope_value,
    )


class AgentCurveDisplay:
    """Agent characteristic curves: success rate per difficulty bin (ACC).

    For each selected agent, its success rate on the tasks of each
    difficulty bin is drawn at the bin's median difficulty (paper Fig. 8,
    bottom). A perfectly general agent has a step curve (succeeds up to a
    difficulty and fails beyond); a ribbon of ``+- sigma_h^2 / 2`` (the
    agent's within-bin variance) shows how far each bin is from a step:
    "the smaller the area inside the ribbon at the bin points, the higher the
    generality". A rug marks the difficulties of the binned tasks, and dotted
    verticals the bin positions. With the agents' abilities, the theoretical
    curves ``P = 1 / (1 + exp(-slope (theta_i - h)))`` of the IRT model are
    drawn dashed over the same difficulty axis (paper Fig. 8, top).

    The constructor only stores its arguments; :meth:`from_estimator` builds
    them from a fitted scorer and :meth:`plot` checks them.

    Parameters
    ----------
    difficulty : array-like of shape (n_bins,)
        x position of each bin (median difficulty of its tasks).
    curves : array-like of shape (n_agents, n_bins)
        Success rate of each agent per bin (NaN: no observed task).
    agent_names : array-like of shape (n_agents,), default=None
        Drawn literally (no math text).
    variance : array-like of shape (n_agents, n_bins), default=None
        Within-bin variance of each agent's responses (ribbon).
    task_difficulty : array-like of shape (n_tasks,), default=None
        Difficulties of the binned tasks (rug).
    abilities : array-like of shape (n_agents,), default=None
        Abilities of the agents on the difficulty scale (theoretical curves).
    slope : float, default=1.0
        Discrimination of the theoretical curves (the paper's figures use 1;
        the mean non-negative discrimination of the items is the model's
        own choice).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : list of Line2D
        One curve per agent.
    ribbons_ : list of PolyCollection
        The variance ribbons (when drawn).
    rug_ : Line2D or None
    theoretical_lines_ : list of Line2D
        The dashed theoretical curves (when abilities are known).

    See Also
    --------
    sklearn_eval.irt.GeneralityScorer : Bins the tasks and computes the curves.
    ItemCurveDisplay : The dual view, success against ability per item.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_eval.plotting import AgentCurveDisplay
    >>> display = AgentCurveDisplay([1, 2, 3, 4], [[1, 1, 0, 0], [.6, .6, .6, .2]],
    ...                             agent_names=["step", "specialist"])
    >>> display = display.plot()
    >>> [line.get_label() for line in display.lines_]
    ['step', 'specialist']
    """

    def __init__(
        self,
        difficulty,
        curves,
        *,
        agent_names=None,
        variance=None,
        task_difficulty=None,
        abilities=None,
        slope=1.0,
    ):
        self.difficulty = difficulty
        self.curves = curves
        self.agent_names = agent_names
        self.variance = variance
        self.task_difficulty = task_difficulty
        self.abilities = abilities
        self.slope = slope

    def _checked(self):
        return _check_agent_curves(
            self.difficulty,
            self.curves,
            agent_names=self.agent_names,
            variance=self.variance,
            task_difficulty=self.task_difficulty,
            abilities=self.abilities,
            slope=self.slope,
        )

    def plot(self, ax=None, *, ribbon=True, rug=True, anchors=None, theoretical=True):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        ribbon : bool, default=True
            Draw ``curve +- variance / 2`` when the variance is known.
        rug : bool, default=True
            Mark the tasks' difficulties at the bottom.
        anchors : tuple (low, high) of float, default=None
            Extend every curve with 1 at difficulty ``low`` and 0 at
            ``high`` (the authors' figures use (-6, 6)).
        theoretical : bool, default=True
            Draw the theoretical curves when abilities are known.

        Returns
        -------
        display : AgentCurveDisplay
        """
        data = self._checked()
        x = data.difficulty
        if anchors is not None:
            low, high = (float(v) for v in anchors)
            if not low < x.min() or not high > x.max():
                raise ValueError(
                    f"anchors must lie outside the bins [{x.min():g}, {x.max():g}]; "
                    f"got {anchors}."
                )
        ax = _single_ax(
            ax, "AgentCurveDisplay.plot", figsize=(7.5, 4.6), layout="constrained"
        )
        for position in x:
            ax.axvline(position, color="0.85", ls=":", lw=0.8, zorder=0)
        self.lines_, self.ribbons_ = [], []
        for k, name in enumerate(data.agent_names):
            color = f"C{k % 10}"
            xs, ys = x, data.curves[k]
            if anchors is not None:
                xs = np.concatenate([[low], x, [high]])
                ys = np.concatenate([[1.0], ys, [0.0]])
            seen = ~np.isnan(ys)
            (line,) = ax.plot(
                xs[seen], ys[seen], "-o", color=color, ms=4, lw=1.5, label=str(name)
            )
            self.lines_.append(line)
            if ribbon and data.variance is not None:
                half = data.variance[k] / 2
                self.ribbons_.append(
                    ax.fill_between(
                        x,
                        data.curves[k] - half,
                        data.curves[k] + half,
                        color=color,
                        alpha=0.15,
                        lw=0,
                    )
                )
        # the view covers the bins (and anchors); far-out tasks of the rug
        # (IRT difficulties can run to the hundreds) would squash the curves
        low_x, high_x = float(x.min()), float(x.max())
        if anchors is not None:
            low_x, high_x = low, high
        margin = 0.08 * (high_x - low_x) if high_x > low_x else 1.0
        title = "Agent characteristic curves"
        if ribbon and data.variance is not None:
            title += " (ribbon: \u00b1 within-bin variance / 2)"
        self.rug_ = None
        if rug and data.task_difficulty is not None:
            d = data.task_difficulty[np.isfinite(data.task_difficulty)]
            (self.rug_,) = ax.plot(
                d, np.full(d.size, -0.04), "|", color="0.4", ms=6, alpha=0.5
            )
            outside = int(np.sum((d < low_x - margin) | (d > high_x + margin)))
            if outside:
                title += f"\n(rug: {outside} task(s) beyond the view)"
        self.theoretical_lines_ = []
        if theoretical and data.abilities is not None:
            grid = np.linspace(low_x - margin, high_x + margin, 200)
            # agent i's curve over difficulty h is the ICC of items (slope, h)
            curves = _icc(data.abilities, np.full(grid.size, data.slope), grid)
            for k, curve in enumerate(curves):
                (line,) = ax.plot(
                    grid, curve, ls="--", lw=1.0, color=f"C{k % 10}", alpha=0.7
                )
                self.theoretical_lines_.append(line)
            title += (
                f"\n(dashed: 2PL curve at each agent's ability, slope {data.slope:.2g})"
            )
        ax.set_xlim(low_x - margin, high_x + margin)
        ax.set_ylim(-0.08, 1.05)
        ax.set_xlabel("task difficulty (bin median)")
        ax.set_ylabel("success rate in bin")
        ax.set_title(title, fontsize=10)
        _literal_legend(
            ax, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False
        )
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        *,
        agents=None,
        max_agents=6,
        agent_names=None,
        theoretical=None,
        abilities=None,
        ax=None,
        **plot_kw,
    ):
        """Plot the response curves of a fitted GeneralityScorer.

        Parameters
        ----------
        estimator : GeneralityScorer
            Fitted.
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results of the agents on the fitted tasks.
        agents : array-like of labels or int, default=None
            Agents to draw (names or row positions). None: all agents if at
            most ``max_agents``, else ``max_agents`` agents evenly spread
            over the ranking by mean score (best first).
        max_agents : int, default=6
        agent_names : array-like, default=None
            Row labels; a DataFrame's index when None.
        theoretical : None, "mean" or float, default=None
            Also draw each agent's theoretical curve at its ability, with
            slope 1 (``1.0``, the paper's figures), the mean non-negative
            discrimination of the scorer's IRT items (``"mean"``), or the
            given slope. None draws none.
        abilities : array-like of shape (n_agents,), default=None
            Abilities for the theoretical curves; estimated with the
            scorer's IRT model when None.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : AgentCurveDisplay
        """
        _check_fitted_attrs(
            estimator,
            ["bin_edges_", "bin_medians_", "task_bin_"],
            "AgentCurveDisplay.from_estimator",
        )
        curves = np.asarray(estimator.response_curves(X), dtype=np.float64)
        n_agents = curves.shape[0]
        if agent_names is None:
            agent_names = _frame_labels(X, 0)
        names = _as_labels(agent_names, n_agents, "agent_names", "agent")
        if agents is None:
            max_agents = _check_positive_int(max_agents, "max_agents", allow_none=False)
            chosen = _spread_over_ranking(_mean_scores(estimator, X), max_agents)
        else:
            chosen = _resolve_items(agents, names, "agent")
        theory = {}
        if theoretical is not None:
            theta, slope = _theoretical_inputs(estimator, X, theoretical, abilities)
            theta = _as_float_vector(theta, "abilities", n_agents)
            theory = {"abilities": theta[chosen], "slope": slope}
        binned = np.asarray(estimator.task_bin_) >= 0
        data = _check_agent_curves(
            _bin_positions(estimator),
            curves[chosen],
            agent_names=names[chosen],
            variance=_bin_variance(estimator, X, curves)[chosen],
            task_difficulty=np.asarray(estimator.difficulty_, float)[binned],
            **theory,
        )
        return cls(**data).plot(ax=ax, **plot_kw)


def _bin_positions(scorer):
    """x of each bin: the median difficulty of its tasks (centre when empty)."""
    return np.where(
        np.isnan(scorer.bin_medians_), scorer.bin_centers_, scorer.bin_medians_
    )


def _mean_scores(scorer, X):
    names = list(scorer.get_feature_names_out())
    return np.asarray(scorer.transform(X), dtype=np.float64)[
        :, names.index("mean_score")
    ]


def _spread_over_ranking(mean, max_agents):
    """All agents (best first) if few, else ``max_agents`` spread over the ranking."""
    ranked = np.argsort(-np.nan_to_num(mean, nan=-1.0), kind="stable")
    if ranked.size <= max_agents:
        return ranked
    picks = np.linspace(0, ranked.size - 1, max_agents).round().astype(int)
    return ranked[np.unique(picks)]


def _bin_variance(scorer, X, curves):
    """Within-bin population variance of each agent's responses (public API only).

    ``E[r^2] - E[r]^2`` per bin with the scorer's task weights: ``E[r]`` is
    ``curves`` (``response_curves(X)``) and ``E[r^2]`` the response curves of
    the squared results; with a ``threshold`` the responses are 0/1 and the
    variance is ``p (1 - p)``. NaN where the agent has no observed,
    positively weighted task in the bin.
    """
    values = np.asarray(X, dtype=np.float64)
    task_bin = np.asarray(scorer.task_bin_)
    weights = np.asarray(scorer.task_weights_, dtype=np.float64)
    binned = np.flatnonzero(task_bin >= 0)
    membership = np.zeros((task_bin.size, curves.shape[1]))
    membership[binned, task_bin[binned]] = weights[binned]
    seen = (~np.isnan(values)).astype(np.float64) @ membership > 0
    if scorer.threshold is not None:
        variance = curves * (1.0 - curves)
    else:
        squares = X**2 if hasattr(X, "iloc") else values**2
        second = np.asarray(scorer.response_curves(squares), dtype=np.float64)
        variance = second - curves**2
    variance = np.where(variance < _ZERO_VARIANCE, 0.0, variance)
    return np.where(seen, variance, np.nan)


def _theoretical_inputs(scorer, X, theoretical, abilities):
    """Abilities and slope of the theoretical agent curves."""
    model = getattr(scorer, "difficulty_model_", None)
    has_irt = model is not None and hasattr(model, "estimate_abilities")
    if isinstance(theoretical, str):
        if theoretical != "mean":
            raise ValueError(
                f"theoretical must be None, 'mean' or a number; got {theoretical!r}."
            )
        a = np.asarray(getattr(model, "discrimination_", []), dtype=np.float64)
        a = a[np.isfinite(a) & (a >= 0)]
        if a.size == 0:
            raise ValueError(
                "theoretical='mean' needs a scorer whose difficulties come from an "
                "IRT model with non-negative discriminations."
            )
        slope = float(a.mean())
    else:
        slope = float(theoretical)
    if abilities is None:
        if not has_irt:
            raise ValueError(
                "Theoretical curves need abilities= or a scorer whose difficulty "
                "came from an IRT model."
            )
        abilities, _ = model.estimate_abilities(X)
    return abilities, slope
