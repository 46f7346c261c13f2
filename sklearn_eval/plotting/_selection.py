"""Display for information-gain task selection."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import (
    _as_float_vector,
    _as_labels,
    _check_fitted_attrs,
    _literal_legend,
    _literal_ticklabels,
    _optional_vector,
    _single_ax,
)

__all__ = ["InfoGainDisplay"]


def _check_info_gain(
    task_names, cumulative_gain, task_gain=None, max_information=None, greedy=True
):
    """The validated data of an :class:`InfoGainDisplay` (a Bunch of copies)."""
    cumulative_gain = _as_float_vector(cumulative_gain, "cumulative_gain")
    n = cumulative_gain.size
    if n == 0:
        raise ValueError("cumulative_gain is empty: nothing was selected.")
    task_gain = _optional_vector(task_gain, "task_gain", n)
    for name, values in (
        ("cumulative_gain", cumulative_gain),
        ("task_gain", task_gain),
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
        over = cumulative_gain > max_information * (1 + 1e-9) + 1e-12
        if over.any():
            i = int(np.argmax(over))
            raise ValueError(
                f"cumulative_gain[{i}] = {cumulative_gain[i]!r} exceeds "
                f"max_information = {max_information!r}."
            )
    return Bunch(
        task_names=_as_labels(task_names, n, "task_names", "task"),
        cumulative_gain=cumulative_gain,
        task_gain=task_gain,
        max_information=max_information,
        greedy=bool(greedy),
    )


class InfoGainDisplay:
    """Cumulative information gain along a greedy task selection.

    For each step of the selection the display shows, at the position of the
    task added, a bar with the information gain of that task alone and a
    point on the line of the gain of all tasks selected so far. A dashed
    line marks the ceiling ``log2(n_agents)`` bits, reached when the selected
    tasks identify every agent without confusion (Stephenson et al., 2020).
    The gain of a set is neither monotone nor sub-additive: the line can
    dip, and a set can be worth more than the sum of its tasks' gains.

    The constructor only stores its arguments; :meth:`from_estimator` checks
    them (and so does :meth:`plot`).

    Parameters
    ----------
    task_names : array-like of shape (n_selected,)
        The selected tasks in pick order, drawn literally (no math text).
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
        self.task_names = task_names
        self.cumulative_gain = cumulative_gain
        self.task_gain = task_gain
        self.max_information = max_information
        self.greedy = greedy

    def _checked(self):
        return _check_info_gain(
            self.task_names,
            self.cumulative_gain,
            task_gain=self.task_gain,
            max_information=self.max_information,
            greedy=self.greedy,
        )

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
        data = self._checked()
        n = data.cumulative_gain.size
        ax = _single_ax(
            ax,
            "InfoGainDisplay.plot",
            figsize=(max(5.0, 0.45 * n + 2), 4.2),
            layout="constrained",
        )
        steps = np.arange(1, n + 1)
        self.bars_ = None
        if show_bars and data.task_gain is not None:
            self.bars_ = ax.bar(
                steps,
                data.task_gain,
                color="0.75",
                width=0.6,
                label="gain of the task alone",
            )
        line_kw = {} if line_kw is None else dict(line_kw)
        line_kw.setdefault("marker", "o")
        line_kw.setdefault("color", "C0")
        (self.line_,) = ax.plot(
            steps, data.cumulative_gain, label="gain of the selected set", **line_kw
        )
        self.ceiling_ = None
        top = float(data.cumulative_gain.max())
        if data.task_gain is not None:
            top = max(top, float(data.task_gain.max()))
        if data.max_information is not None:
            self.ceiling_ = ax.axhline(
                data.max_information,
                color="k",
                ls="--",
                lw=0.9,
                label=f"log2(n_agents) = {data.max_information:.2f} bits",
            )
            top = max(top, data.max_information)
        ax.set_ylim(0, top * 1.3 if top > 0 else 1.0)
        ax.set_xticks(steps)
        _literal_ticklabels(
            ax,
            "x",
            data.task_names,
            rotation=60,
            ha="right",
            fontsize=8 if n <= 30 else 6,
        )
        ax.set_xlim(0.4, n + 0.6)
        ax.set_xlabel(
            "task added (selection order)" if data.greedy else "selected task"
        )
        ax.set_ylabel("information gain (bits)")
        ax.set_title(
            "Greedy task selection by information gain"
            if data.greedy
            else "Best task subset by information gain (exhaustive search)",
            fontsize=10,
        )
        _literal_legend(ax, fontsize=7, loc="upper center", ncol=3, frameon=False)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_estimator(cls, estimator, *, task_names=None, ax=None, **plot_kw):
        """Plot a fitted :class:`~sklearn_eval.selection.InfoGainSelector`.

        Parameters
        ----------
        estimator : InfoGainSelector
            Fitted.
        task_names : array-like of shape (n_tasks,), default=None
            Labels of all the tasks the selector saw; its ``tasks_`` when
            None.
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
        n_tasks = len(estimator.tasks_)
        if task_names is None:
            task_names = estimator.tasks_
        tasks = _as_labels(task_names, n_tasks, "task_names", "task")
        data = _check_info_gain(
            tasks[order],
            estimator.cumulative_gain_,
            task_gain=np.asarray(estimator.information_gain_)[order],
            max_information=getattr(estimator, "max_information_", None),
            greedy=getattr(estimator, "search", "greedy") != "exhaustive",
        )
        return cls(**data).plot(ax=ax, **plot_kw)
