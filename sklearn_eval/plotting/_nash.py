"""Display of a Nash equilibrium: distributions and uniform vs Nash averages."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import (
    _as_float_vector,
    _as_labels,
    _check_fitted_attrs,
    _check_positive_int,
    _fit_ticklabels,
    _fitted_labels,
    _frame_labels,
    _literal_legend,
    _literal_ticklabels,
    _panel_axes,
)

__all__ = ["NashDisplay"]

_PANELS = ("agent_distribution", "task_distribution", "agent_average", "task_average")


def _check_nash(
    agent_distribution,
    agent_nash_average,
    agent_uniform_average,
    agent_names=None,
    task_distribution=None,
    task_nash_average=None,
    task_uniform_average=None,
    task_names=None,
    value=None,
):
    """The validated data of a :class:`NashDisplay` (a Bunch of copies)."""
    agent_distribution = _check_distribution(agent_distribution, "agent_distribution")
    n = agent_distribution.shape[0]
    data = Bunch(
        agent_distribution=agent_distribution,
        agent_nash_average=_as_float_vector(
            agent_nash_average, "agent_nash_average", n
        ),
        agent_uniform_average=_as_float_vector(
            agent_uniform_average, "agent_uniform_average", n
        ),
        agent_names=_as_labels(agent_names, n, "agent_names", "agent"),
        task_distribution=None,
        task_nash_average=None,
        task_uniform_average=None,
        task_names=None,
        value=None,
    )
    given = [
        part is not None
        for part in (task_distribution, task_nash_average, task_uniform_average)
    ]
    if any(given) and not all(given):
        raise ValueError(
            "Pass all of task_distribution, task_nash_average and "
            "task_uniform_average (agent vs task) or none (agent vs agent)."
        )
    if all(given):
        task_distribution = _check_distribution(task_distribution, "task_distribution")
        m = task_distribution.shape[0]
        data.task_distribution = task_distribution
        data.task_nash_average = _as_float_vector(
            task_nash_average, "task_nash_average", m
        )
        data.task_uniform_average = _as_float_vector(
            task_uniform_average, "task_uniform_average", m
        )
        data.task_names = _as_labels(task_names, m, "task_names", "task")
    elif task_names is not None:
        raise ValueError("task_names given without task distributions.")
    if value is not None:
        data.value = float(value)
        if not np.isfinite(data.value):
            raise ValueError(f"value must be finite; got {value!r}.")
    return data


class NashDisplay:
    """Nash distributions and uniform-vs-Nash averages (Balduzzi et al., Figs 1-2).

    The maximum-entropy Nash equilibrium of a benchmark game puts mass on the
    "core" agents (and, agent vs task, on the hardest mixture of tasks); the
    Nash average of an agent is its score against that mixture. This display
    draws up to four bar-chart panels:

    - ``"agent_distribution"`` / ``"task_distribution"``: the Nash
      probabilities ``p*`` (Fig. 1 of the paper);
    - ``"agent_average"``: each agent's uniform average (mean score over
      tasks, or mean log-odds against all agents) next to its Nash average
      (Fig. 2, left); agent vs task also draws the game value, the largest
      possible Nash average, as a dashed line;
    - ``"task_average"``: each task's uniform and Nash difficulty (negated
      mean score over all agents, and over the Nash agents; higher =
      harder), with ``-value`` as a dashed line (Fig. 2, right).

    Items are sorted by Nash average (hardest task first), ties broken by
    Nash probability, so the support of ``p*`` comes first. Use
    :meth:`from_estimator` or :meth:`from_data` rather than the constructor,
    which only stores its arguments (:meth:`plot` checks them).

    Parameters
    ----------
    agent_distribution : array-like of shape (n_agents,)
        Nash probabilities of the agents (non-negative, summing to 1).
    agent_nash_average : array-like of shape (n_agents,)
        Nash averages of the agents (``agent_skill_``).
    agent_uniform_average : array-like of shape (n_agents,)
        Uniform averages of the agents.
    agent_names : array-like of shape (n_agents,), default=None
        Labels; ``"agent 0"``, ... when None. Drawn literally (no math text).
    task_distribution, task_nash_average, task_uniform_average : \
            array-like of shape (n_tasks,), default=None
        Agent vs task only: Nash probabilities, Nash difficulty
        (``difficulty_``) and uniform difficulty of the tasks. All three
        or none.
    task_names : array-like of shape (n_tasks,), default=None
        Labels; ``"task 0"``, ... when None.
    value : float, default=None
        Value of the game (drawn as a reference line when given).

    Attributes
    ----------
    axes_ : dict of str to matplotlib Axes
        The drawn panels by name.
    bars_ : dict of str to list of BarContainer
        Bar artists per panel (one container for a distribution panel; the
        uniform and the Nash container for an average panel).
    lines_ : dict of str to Line2D
        The game-value reference lines per panel (when ``value`` is known).
    figure_ : matplotlib Figure
        Figure holding the panels.

    See Also
    --------
    sklearn_eval.game.NashAverager : Fits the equilibrium shown here.
    HodgeDisplay : How transitive or cyclic a game is.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_eval.plotting import NashDisplay
    >>> S = [[89, 93, 76], [85, 85, 85], [79, 74, 99]]
    >>> display = NashDisplay.from_data(S, agent_names=["A", "B", "C"])
    >>> sorted(display.axes_)
    ['agent_average', 'agent_distribution', 'task_average', 'task_distribution']
    >>> bars = display.bars_["agent_distribution"][0]
    >>> [round(float(b.get_height()), 3) for b in bars]
    [0.606, 0.394, 0.0]
    """

    def __init__(
        self,
        agent_distribution,
        agent_nash_average,
        agent_uniform_average,
        *,
        agent_names=None,
        task_distribution=None,
        task_nash_average=None,
        task_uniform_average=None,
        task_names=None,
        value=None,
    ):
        self.agent_distribution = agent_distribution
        self.agent_nash_average = agent_nash_average
        self.agent_uniform_average = agent_uniform_average
        self.agent_names = agent_names
        self.task_distribution = task_distribution
        self.task_nash_average = task_nash_average
        self.task_uniform_average = task_uniform_average
        self.task_names = task_names
        self.value = value

    def _checked(self):
        return _check_nash(
            self.agent_distribution,
            self.agent_nash_average,
            self.agent_uniform_average,
            agent_names=self.agent_names,
            task_distribution=self.task_distribution,
            task_nash_average=self.task_nash_average,
            task_uniform_average=self.task_uniform_average,
            task_names=self.task_names,
            value=self.value,
        )

    @property
    def has_tasks(self):
        """Whether the display holds a task side (agent vs task game)."""
        return self.task_distribution is not None

    def _default_panels(self):
        if self.has_tasks:
            return _PANELS
        return ("agent_distribution", "agent_average")

    def _check_panels(self, panels):
        if panels is None:
            return self._default_panels()
        if isinstance(panels, str):
            panels = (panels,)
        panels = tuple(panels)
        unknown = [p for p in panels if p not in _PANELS]
        if unknown:
            raise ValueError(
                f"Unknown panel(s) {unknown}; choose from {list(_PANELS)}."
            )
        if not self.has_tasks and any(p.startswith("task") for p in panels):
            raise ValueError(
                "Task panels need an agent vs task game; this display has no tasks."
            )
        if not panels or len(set(panels)) != len(panels):
            raise ValueError(f"panels must be distinct and non-empty; got {panels}.")
        return panels

    @staticmethod
    def _side(data, side):
        return (
            data[f"{side}_distribution"],
            data[f"{side}_nash_average"],
            data[f"{side}_uniform_average"],
            data[f"{side}_names"],
        )

    def plot(
        self,
        ax=None,
        *,
        panels=None,
        max_items=None,
        bar_kw=None,
        orientation="vertical",
    ):
        """Draw the panels.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, default=None
            One Axes per panel, in the order of ``panels``; a new figure
            (agents in the left column, tasks in the right) when None.
        panels : str or sequence of str, default=None
            Subset of ``"agent_distribution"``, ``"task_distribution"``,
            ``"agent_average"``, ``"task_average"``; None draws all that the
            game has (two for agent vs agent, four for agent vs task).
        max_items : int, default=None
            Show only the first ``max_items`` agents/tasks in sorted order
            (the support first); all when None.
        bar_kw : dict, default=None
            Extra keyword arguments of ``Axes.bar`` (``Axes.barh`` when
            horizontal; every panel).
        orientation : {"vertical", "horizontal"}, default="vertical"
            Vertical bars with the names under them (rotated), or horizontal
            bars with the names beside them, first item at the top: readable
            names whatever their number, for long lists and long names.

        Returns
        -------
        display : NashDisplay
        """
        data = self._checked()
        panels = self._check_panels(panels)
        max_items = _check_positive_int(max_items, "max_items")
        bar_kw = {} if bar_kw is None else dict(bar_kw)
        if orientation not in ("vertical", "horizontal"):
            raise ValueError(
                "orientation must be 'vertical' or 'horizontal'; got "
                f"{orientation!r}."
            )
        vertical = orientation == "vertical"

        def panel_width(panel):
            n_items = self._side(data, panel.split("_")[0])[0].shape[0]
            if not vertical:
                return 5.0
            return max(4.0, 0.22 * min(n_items, max_items or n_items) + 1.0)

        longest = max(
            min(self._side(data, p.split("_")[0])[0].shape[0], max_items or 10**9)
            for p in panels
        )
        height = 4.6 if vertical else 0.2 * longest + 1.4

        if ax is None and len(panels) == 4:
            # agents left, tasks right; distributions on top, averages below
            order = _PANELS
            ratios = [panel_width("agent_average"), panel_width("task_average")]
            axes = _panel_axes(
                None,
                4,
                "NashDisplay.plot",
                ncols=2,
                figsize=(min(sum(ratios), 20), 8.4 if vertical else 2 * height),
                width_ratios=ratios,
            )
            axes = [axes[order.index(p)] for p in panels]
        else:
            width = sum(panel_width(p) for p in panels)
            axes = _panel_axes(
                ax, len(panels), "NashDisplay.plot", figsize=(min(width, 20), height)
            )
        self.axes_, self.bars_, self.lines_ = {}, {}, {}
        tick_axes = []
        for name, panel_ax in zip(panels, axes, strict=True):
            side, kind = name.split("_")
            dist, nash, uniform, names = self._side(data, side)
            order = _sort_order(dist, nash)
            if max_items is not None:
                order = order[:max_items]
            positions = np.arange(order.size)
            bar = panel_ax.bar if vertical else panel_ax.barh
            level_line = panel_ax.axhline if vertical else panel_ax.axvline
            set_value_label = panel_ax.set_ylabel if vertical else panel_ax.set_xlabel
            if kind == "distribution":
                bars = bar(positions, dist[order], color="C0", **bar_kw)
                self.bars_[name] = [bars]
                set_value_label("Nash probability")
                limits = (0, max(1e-12, dist.max()) * 1.1)
                (panel_ax.set_ylim if vertical else panel_ax.set_xlim)(*limits)
                title = f"Nash probability of the {side}s"
            else:
                w = 0.4
                uni = bar(
                    positions - w / 2,
                    uniform[order],
                    w,
                    color="0.7",
                    label="uniform average",
                    **bar_kw,
                )
                nsh = bar(
                    positions + w / 2,
                    nash[order],
                    w,
                    color="C1",
                    label="Nash average",
                    **bar_kw,
                )
                self.bars_[name] = [uni, nsh]
                if data.value is not None and self.has_tasks:
                    level = data.value if side == "agent" else -data.value
                    self.lines_[name] = level_line(
                        level,
                        color="k",
                        ls="--",
                        lw=0.8,
                        label="game value" if side == "agent" else "minus game value",
                    )
                level_line(0, color="k", lw=0.5)
                set_value_label(
                    "difficulty (higher = harder)"
                    if side == "task"
                    else ("average log-odds" if not self.has_tasks else "score")
                )
                if vertical:
                    _literal_legend(panel_ax, fontsize=7, loc="best")
                else:
                    # long bars leave no free corner: one row above the axes
                    _literal_legend(
                        panel_ax,
                        fontsize=8,
                        loc="lower center",
                        bbox_to_anchor=(0.5, 1.0),
                        ncol=3,
                        frameon=False,
                        borderaxespad=0.2,
                        handlelength=1.2,
                        columnspacing=0.8,
                    )
                title = (
                    "Task difficulty: uniform vs Nash"
                    if side == "task"
                    else "Agent skill: uniform vs Nash"
                )
            if order.size < dist.size:
                title += f" (first {order.size} of {dist.size})"
            # above the legend row of a horizontal average panel
            pad = 18 if kind == "average" and not vertical else 6
            panel_ax.set_title(title, fontsize=10, pad=pad)
            if vertical:
                panel_ax.set_xticks(positions)
                _literal_ticklabels(
                    panel_ax,
                    "x",
                    names[order],
                    rotation=90,
                    fontsize=_tick_fontsize(order.size),
                )
                panel_ax.set_xlim(-0.6, order.size - 0.4)
                tick_axes.append((panel_ax, "x"))
            else:
                panel_ax.set_yticks(positions)
                _literal_ticklabels(
                    panel_ax, "y", names[order], fontsize=8 if order.size <= 60 else 7
                )
                panel_ax.set_ylim(order.size - 0.4, -0.6)  # first item on top
                tick_axes.append((panel_ax, "y"))
            self.axes_[name] = panel_ax
        self.figure_ = axes[0].figure
        # names never overlap: smaller type where crowded, every k-th at worst
        _fit_ticklabels(tick_axes)
        return self

    @classmethod
    def from_estimator(
        cls, estimator, *, agent_names=None, task_names=None, ax=None, **plot_kw
    ):
        """Plot a fitted :class:`~sklearn_eval.game.NashAverager`.

        Uniform averages are computed from the fitted game ``payoff_``
        (normalised scores or log-odds): row means for agents, negated
        column means for tasks.

        Parameters
        ----------
        estimator : NashAverager
            Fitted, either game.
        agent_names : array-like, default=None
            Agent labels; the estimator's ``agents_`` when None.
        task_names : array-like, default=None
            Task labels (agent vs task); the estimator's ``tasks_`` when
            None.
        ax : matplotlib Axes or sequence of Axes, default=None
            See :meth:`plot`.
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : NashDisplay
        """
        _check_fitted_attrs(
            estimator,
            ["agent_distribution_", "agent_skill_", "payoff_"],
            "NashDisplay.from_estimator",
        )
        payoff = np.asarray(estimator.payoff_, dtype=np.float64)
        if agent_names is None:
            agent_names = _fitted_labels(estimator, "agents_")
        avt = hasattr(estimator, "task_distribution_")
        tasks = {}
        if avt:
            if task_names is None:
                task_names = _fitted_labels(estimator, "tasks_")
            tasks = {
                "task_distribution": estimator.task_distribution_,
                "task_nash_average": estimator.difficulty_,
                "task_uniform_average": -payoff.mean(axis=0),
                "task_names": task_names,
            }
        data = _check_nash(
            estimator.agent_distribution_,
            estimator.agent_skill_,
            payoff.mean(axis=1),
            agent_names=agent_names,
            value=getattr(estimator, "value_", None),
            **tasks,
        )
        return cls(**data).plot(ax=ax, **plot_kw)

    @classmethod
    def from_data(
        cls,
        X,
        *,
        game="agent_vs_task",
        payoff="logit",
        normalize=None,
        clip=1e-3,
        agent_names=None,
        task_names=None,
        ax=None,
        **plot_kw,
    ):
        """Fit a :class:`~sklearn_eval.game.NashAverager` on ``X`` and plot it.

        Parameters
        ----------
        X : array-like or DataFrame
            Scores (agents x tasks) or a square matrix of log-odds or win
            probabilities (agent vs agent). DataFrame index and columns name
            the agents and tasks.
        game, payoff, normalize, clip
            Parameters of :class:`~sklearn_eval.game.NashAverager`.
        agent_names, task_names : array-like, default=None
            Labels; taken from a DataFrame's index/columns when None.
        ax : matplotlib Axes or sequence of Axes, default=None
            See :meth:`plot`.
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : NashDisplay
        """
        from ..game import NashAverager

        model = NashAverager(game=game, payoff=payoff, normalize=normalize, clip=clip)
        model.fit(X)
        if agent_names is None:
            agent_names = _frame_labels(X, 0)
        if task_names is None and game == "agent_vs_task":
            task_names = _frame_labels(X, 1)
        return cls.from_estimator(
            model, agent_names=agent_names, task_names=task_names, ax=ax, **plot_kw
        )


def _sort_order(dist, nash):
    """Descending Nash average (ties up to rounding), then probability, index."""
    scale = max(1.0, float(np.max(np.abs(nash))))
    key = np.round(nash / scale, 9)
    return np.lexsort((np.arange(dist.size), -dist, -key))


def _tick_fontsize(n_items):
    return 8 if n_items <= 25 else (6 if n_items <= 60 else 4)


def _check_distribution(values, name):
    p = _as_float_vector(values, name)
    if p.size == 0:
        raise ValueError(f"{name} is empty.")
    if np.any(p < -1e-9) or abs(p.sum() - 1.0) > 1e-6:
        raise ValueError(
            f"{name} must be a probability distribution (non-negative, sum 1); got "
            f"min {p.min():.3g} and sum {p.sum():.6g}."
        )
    return np.clip(p, 0.0, None)
