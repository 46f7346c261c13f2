"""Display of which results of an agents x tasks matrix are observed."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import _literal_legend, _single_ax

__all__ = ["MissingResultsDisplay"]


def _check_mask(mask, n, name):
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.shape != (n,):
        raise ValueError(f"{name} must be a boolean array of shape ({n},).")
    return mask.copy()


def _check_missing(observed, agent_mask=None, task_mask=None):
    """The validated data of a :class:`MissingResultsDisplay` (a Bunch of copies)."""
    observed = np.asarray(observed)
    if observed.dtype != bool or observed.ndim != 2 or 0 in observed.shape:
        raise ValueError(
            "observed must be a non-empty 2-D boolean array (agents x tasks); got "
            f"dtype {observed.dtype} and shape {observed.shape}."
        )
    if (agent_mask is None) != (task_mask is None):
        raise ValueError("Pass both agent_mask and task_mask, or neither.")
    agent_mask = _check_mask(agent_mask, observed.shape[0], "agent_mask")
    task_mask = _check_mask(task_mask, observed.shape[1], "task_mask")
    if agent_mask is not None and not observed[np.ix_(agent_mask, task_mask)].all():
        raise ValueError(
            "agent_mask and task_mask must select a complete block (every result "
            "observed)."
        )
    return Bunch(observed=observed.copy(), agent_mask=agent_mask, task_mask=task_mask)


class MissingResultsDisplay:
    """Observed and missing results of a benchmark, with the complete block outlined.

    One cell per (agent, task): dark where the result is observed, light
    where it is missing. Methods that need the same agents on the same tasks
    (Nash averaging, uniform averages, the Hodge decomposition) use a complete
    block of the matrix; when one is given, its agents and tasks come first
    (top-left) and the block is outlined in red.

    The constructor only stores its arguments; :meth:`from_data` computes and
    checks them (and so does :meth:`plot`).

    Parameters
    ----------
    observed : array-like of bool of shape (n_agents, n_tasks)
        True where a result is observed.
    agent_mask, task_mask : array-like of bool, default=None
        The agents and tasks of a complete block (both or neither).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    image_ : AxesImage
        The drawn matrix (rows and columns in drawing order).
    block_patch_ : Rectangle or None
        The outline of the complete block.
    agent_order_, task_order_ : ndarray of int
        Row and column of the data drawn at each position.

    See Also
    --------
    sklearn_eval.game.complete_submatrix : Finds the complete block.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_eval.plotting import MissingResultsDisplay
    >>> X = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, np.nan]])
    >>> display = MissingResultsDisplay.from_data(X)
    >>> int(display.image_.get_array().sum())   # observed cells
    7
    >>> display.block_patch_.get_width(), display.block_patch_.get_height()
    (2.0, 2.0)
    """

    def __init__(self, observed, *, agent_mask=None, task_mask=None):
        self.observed = observed
        self.agent_mask = agent_mask
        self.task_mask = task_mask

    def _checked(self):
        return _check_missing(
            self.observed, agent_mask=self.agent_mask, task_mask=self.task_mask
        )

    def plot(self, ax=None):
        """Draw the matrix.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure (sized to the matrix) when None.

        Returns
        -------
        display : MissingResultsDisplay
        """
        data = self._checked()
        n_agents, n_tasks = data.observed.shape
        ax = _single_ax(
            ax,
            "MissingResultsDisplay.plot",
            figsize=(min(11, 2 + 0.12 * n_tasks), min(8, 1.5 + 0.12 * n_agents)),
            layout="constrained",
        )
        rows, cols = np.arange(n_agents), np.arange(n_tasks)
        if data.agent_mask is not None:
            rows = np.concatenate([rows[data.agent_mask], rows[~data.agent_mask]])
            cols = np.concatenate([cols[data.task_mask], cols[~data.task_mask]])
        self.image_ = ax.imshow(
            data.observed[np.ix_(rows, cols)],
            aspect="auto",
            cmap="Greys",
            vmin=0,
            vmax=1,
            interpolation="nearest",
        )
        self.block_patch_ = None
        tasks_label = f"tasks ({n_tasks})"
        if data.agent_mask is not None:
            from matplotlib.patches import Rectangle

            self.block_patch_ = ax.add_patch(
                Rectangle(
                    (-0.5, -0.5),
                    float(data.task_mask.sum()),
                    float(data.agent_mask.sum()),
                    fill=False,
                    edgecolor="tab:red",
                    linewidth=2,
                    label="complete block",
                )
            )
            tasks_label = f"tasks ({n_tasks}; complete block first)"
            _literal_legend(ax, loc="upper right", fontsize=8, framealpha=0.9)
        ax.set_xlabel(tasks_label)
        ax.set_ylabel(f"agents ({n_agents})")
        ax.set_title("observed (dark) and missing (light) results")
        self.agent_order_, self.task_order_ = rows, cols
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_data(cls, X, *, block=True, ax=None, **plot_kw):
        """Plot the missing results of a result matrix.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results, NaN where missing.
        block : bool, default=True
            Outline the largest complete block found by
            :func:`~sklearn_eval.game.complete_submatrix`.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : MissingResultsDisplay
        """
        values = np.asarray(X, dtype=np.float64)
        if values.ndim != 2 or 0 in values.shape:
            raise ValueError(
                f"X must be a non-empty 2-D matrix; got shape {values.shape}."
            )
        masks = {}
        if block:
            from ..game import complete_submatrix

            _, agent_mask, task_mask = complete_submatrix(values, return_masks=True)
            masks = {"agent_mask": agent_mask, "task_mask": task_mask}
        data = _check_missing(~np.isnan(values), **masks)
        return cls(**data).plot(ax=ax, **plot_kw)
