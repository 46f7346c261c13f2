"""Display for information-gain task selection."""

from __future__ import annotations

import numpy as np

from ._base import _as_float_vector, _as_labels, _check_fitted_attrs, _single_ax

__all__ = ["InfoGainDisplay"]


class InfoGainDisplay:
    """Cumulative information gain along a greedy task selection.

    For each step of the selection the display shows, at the position of the
    task added, a bar with the information gain of that task alone and a
    point on the line of the gain of all tasks selected so far. A dashed
    line marks the ceiling ``log2(n_agents)`` bits, reached when the selected
    tasks identify every agent without confusion (Stephenson et al., 2020).
    The gain of a set is neither monotone nor sub-additive: the line can
    dip, and a set can be worth more than the sum of its tasks' gains.

    Parameters
    ----------
    task_names : array-like of shape (n_selected,)
        The selected tasks in pick order.
    cumulative_gain : array-like of shape (n_selected,)
        Gain (bits) of the first ``k`` selected tasks, ``k = 1..n_selected``.
    task_gain : array-like of shape (n_selected,), default=None
        Gain (bits) of each selected task alone; no bars when None.
    max_information : float, default=None
        ``log2(n_agents)``, the ceiling; no line when None.
    greedy : bool, default=True
        Whether the tasks are in greedy pick order (False for an exhaustive
        search's best subset, listed in ascending order: the line is then the
        gain of the first ``k`` listed tasks, not a pick history).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    line_ : Line2D
        The cumulative gain.
    bars_ : BarContainer or None
        The per-task gains.
    ceiling_ : Line2D or None
        The ``log2(n_agents)`` line.

    See Also
    --------
    sklearn_eval.selection.InfoGainSelector : Makes the selection.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_eval.plotting import InfoGainDisplay
    >>> display = InfoGainDisplay(["t3", "t1", "t7"], [1.2, 1.8, 1.95],
    ...                           task_gain=[1.2, 0.9, 0.4], max_information=2.0)
    >>> display = display.plot()
    >>> len(display.bars_), display.ceiling_.get_ydata()[0]
    (3, 2.0)
    """

    def __init__(
        self,
        task_names,
        cumulative_gain,
        *,
        task_gain=None,
        max_information=None,
        greedy=True,
    ):
        self.greedy = bool(greedy)
        self.cumulative_gain = _as_float_vector(cumulative_gain, "cumulative_gain")
        n = self.cumulative_gain.size
        if n == 0:
            raise ValueError("cumulative_gain is empty: nothing was selected.")
        self.task_names = _as_labels(task_names, n, "task_names", "task")
        self.task_gain = (
            None if task_gain is None else _as_float_vector(task_gain, "task_gain", n)
        )
        for name, values in (
            ("cumulative_gain", self.cumulative_gain),
            ("task_gain", self.task_gain),
        ):
            if values is not None and np.any(values < -1e-9):
                i = int(np.argmax(values < -1e-9))
                raise ValueError(f"{name}[{i}] = {values[i]!r} is negative.")
        if max_information is not None:
            max_information = float(max_information)
            if not np.isfinite(max_information) or max_information <= 0:
                raise ValueError(
                    f"max_information must be positive; got {max_information!r}."
                )
            over = self.cumulative_gain > max_information * (1 + 1e-9) + 1e-12
            if over.any():
                i = int(np.argmax(over))
                raise ValueError(
                    f"cumulative_gain[{i}] = {self.cumulative_gain[i]!r} exceeds "
                    f"max_information = {max_information!r}."
                )
        self.max_information = max_information

    def plot(self, ax=None, *, show_bars=True, line_kw=None):
        """Draw the gains.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        show_bars : bool, default=True
            Draw the per-task gains (when known).
        line_kw : dict, default=None
            Extra keyword arguments of the cumulative line's ``Axes.plot``.

        Returns
        -------
        display : InfoGainDisplay
        """
        n = self.cumulative_gain.size
        ax = _single_ax(
            ax,
            "InfoGainDisplay.plot",
            figsize=(max(5.0, 0.45 * n + 2), 4.2),
            layout="constrained",
        )
        steps = np.arange(1, n + 1)
        self.bars_ = None
        if show_bars and self.task_gain is not None:
            self.bars_ = ax.bar(
                steps,
                self.task_gain,
                color="0.75",
                width=0.6,
                label="gain of the task alone",
            )
        line_kw = {} if line_kw is None else dict(line_kw)
        line_kw.setdefault("marker", "o")
        line_kw.setdefault("color", "C0")
        (self.line_,) = ax.plot(
            steps, self.cumulative_gain, label="gain of the selected set", **line_kw
        )
        self.ceiling_ = None
        top = float(self.cumulative_gain.max())
        if self.task_gain is not None:
            top = max(top, float(self.task_gain.max()))
        if self.max_information is not None:
            self.ceiling_ = ax.axhline(
                self.max_information,
                color="k",
                ls="--",
                lw=0.9,
                label=f"log2(n_agents) = {self.max_information:.2f} bits",
            )
            top = max(top, self.max_information)
        ax.set_ylim(0, top * 1.3 if top > 0 else 1.0)
        ax.set_xticks(steps)
        ax.set_xticklabels(
            [str(t) for t in self.task_names],
            rotation=60,
            ha="right",
            fontsize=8 if n <= 30 else 6,
        )
        ax.set_xlim(0.4, n + 0.6)
        ax.set_xlabel(
            "task added (selection order)" if self.greedy else "selected task"
        )
        ax.set_ylabel("information gain (bits)")
        ax.set_title(
            "Greedy task selection by information gain"
            if self.greedy
            else "Best task subset by information gain (exhaustive search)",
            fontsize=10,
        )
        ax.legend(fontsize=7, loc="upper center", ncol=3, frameon=False)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **plot_kw):
        """Plot a fitted :class:`~sklearn_eval.selection.InfoGainSelector`.

        Parameters
        ----------
        estimator : InfoGainSelector
            Fitted.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : InfoGainDisplay
        """
        _check_fitted_attrs(
            estimator,
            ["selection_order_", "cumulative_gain_", "information_gain_", "tasks_"],
            "InfoGainDisplay.from_estimator",
        )
        order = np.asarray(estimator.selection_order_, dtype=np.int64)
        tasks = np.asarray(estimator.tasks_, dtype=object)
        display = cls(
            tasks[order],
            estimator.cumulative_gain_,
            task_gain=np.asarray(estimator.information_gain_)[order],
            max_information=getattr(estimator, "max_information_", None),
            greedy=getattr(estimator, "search", "greedy") != "exhaustive",
        )
        return display.plot(ax=ax, **plot_kw)
