"""Display of which results of an agents x tasks matrix are observed."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle
from sklearn.utils import Bunch

from ._base import _as_labels, _literal_legend, _literal_ticklabels, _single_ax

__all__ = ["MissingResultsDisplay"]

# observed results are the background, missing ones stand out: a mostly
# complete benchmark must not draw as one dark block
_OBSERVED_COLOR = "#dde6f0"
_MISSING_COLOR = "#c0392b"
_BLOCK_COLOR = "#1f3b73"
# names are written on the axes up to these sizes (else positions only)
_MAX_NAMED_AGENTS = 60
_MAX_NAMED_TASKS = 80


def _check_mask(mask, n, name):
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.shape != (n,):
        raise ValueError(f"{name} must be a boolean array of shape ({n},).")
    return mask.copy()


def _check_missing(
    observed, agent_mask=None, task_mask=None, agent_names=None, task_names=None
):
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
    n_agents, n_tasks = observed.shape
    return Bunch(
        observed=observed.copy(),
        agent_mask=agent_mask,
        task_mask=task_mask,
        agent_names=None
        if agent_names is None
        else _as_labels(agent_names, n_agents, "agent_names", "agent"),
        task_names=None
        if task_names is None
        else _as_labels(task_names, n_tasks, "task_names", "task"),
    )


class MissingResultsDisplay:
    """Observed and missing results of a benchmark, with the complete block outlined.

    One cell per (agent, task): light where the result is observed, red where
    it is missing, so that the few missing results of a mostly complete
    benchmark stand out. Methods that need the same agents on the same tasks
    (Nash averaging, uniform averages, the Hodge decomposition) use a complete
    block of the matrix; when one is given, its agents and tasks come first
    (top-left) and the block is outlined in dark blue. Agent and task names,
    when given, label the rows and columns (up to 60 agents and 80 tasks).

    The constructor only stores its arguments; :meth:`from_data` computes and
    checks them (and so does :meth:`plot`).

    Parameters
    ----------
    observed : array-like of bool of shape (n_agents, n_tasks)
        True where a result is observed.
    agent_mask, task_mask : array-like of bool, default=None
        The agents and tasks of a complete block (both or neither).
    agent_names, task_names : array-like of str, default=None
        Row and column names, drawn literally.

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

    def __init__(
        self,
        observed,
        *,
        agent_mask=None,
        task_mask=None,
        agent_names=None,
        task_names=None,
    ):
        self.observed = observed
        self.agent_mask = agent_mask
        self.task_mask = task_mask
        self.agent_names = agent_names
        self.task_names = task_names

    def _checked(self):
        return _check_missing(
            self.observed,
            agent_mask=self.agent_mask,
            task_mask=self.task_mask,
            agent_names=self.agent_names,
            task_names=self.task_names,
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
        named_rows = data.agent_names is not None and n_agents <= _MAX_NAMED_AGENTS
        named_cols = data.task_names is not None and n_tasks <= _MAX_NAMED_TASKS
        ax = _single_ax(
            ax,
            "MissingResultsDisplay.plot",
            figsize=(
                # wide enough for the legend above the matrix
                min(10.8, max(6.4, 2.5 + (0.16 if named_cols else 0.12) * n_tasks)),
                min(12.0, 2.2 + (0.17 if named_rows else 0.12) * n_agents),
            ),
            layout="constrained",
        )
        rows, cols = np.arange(n_agents), np.arange(n_tasks)
        if data.agent_mask is not None:
            rows = np.concatenate([rows[data.agent_mask], rows[~data.agent_mask]])
            cols = np.concatenate([cols[data.task_mask], cols[~data.task_mask]])
        self.image_ = ax.imshow(
            data.observed[np.ix_(rows, cols)],
            aspect="auto",
            cmap=ListedColormap([_MISSING_COLOR, _OBSERVED_COLOR]),
            vmin=0,
            vmax=1,
            interpolation="nearest",
        )
        if named_rows:
            ax.set_yticks(np.arange(n_agents))
            _literal_ticklabels(ax, "y", data.agent_names[rows], fontsize=7)
        if named_cols:
            ax.set_xticks(np.arange(n_tasks))
            _literal_ticklabels(
                ax, "x", data.task_names[cols], fontsize=7, rotation=90
            )
        self.block_patch_ = None
        tasks_label = f"tasks ({n_tasks})"
        handles = [
            Patch(facecolor=_OBSERVED_COLOR, edgecolor="0.6", label="observed"),
            Patch(
                facecolor=_MISSING_COLOR,
                label=f"missing ({int((~data.observed).sum())})",
            ),
        ]
        if data.agent_mask is not None:
            self.block_patch_ = ax.add_patch(
                Rectangle(
                    (-0.5, -0.5),
                    float(data.task_mask.sum()),
                    float(data.agent_mask.sum()),
                    fill=False,
                    edgecolor=_BLOCK_COLOR,
                    linewidth=2,
                    label="complete block",
                )
            )
            handles.append(self.block_patch_)
            tasks_label = f"tasks ({n_tasks}; complete block first)"
        _literal_legend(
            ax,
            handles=handles,
            loc="lower left",
            bbox_to_anchor=(0.0, 1.0),
            ncols=len(handles),
            fontsize=8,
            frameon=False,
        )
        ax.set_xlabel(tasks_label)
        ax.set_ylabel(f"agents ({n_agents})")
        ax.set_title("Observed and missing results", pad=22)
        self.agent_order_, self.task_order_ = rows, cols
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_data(
        cls, X, *, block=True, agent_names=None, task_names=None, ax=None, **plot_kw
    ):
        """Plot the missing results of a result matrix.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results, NaN where missing.
        block : bool, default=True
            Outline the largest complete block found by
            :func:`~sklearn_eval.game.complete_submatrix`.
        agent_names, task_names : array-like of str, default=None
            Row and column names; a DataFrame's index and columns when None.
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
        if agent_names is None and hasattr(X, "index"):
            agent_names = np.asarray(X.index, dtype=object)
        if task_names is None and hasattr(X, "columns"):
            task_names = np.asarray(X.columns, dtype=object)
        data = _check_missing(
            ~np.isnan(values), agent_names=agent_names, task_names=task_names, **masks
        )
        return cls(**data).plot(ax=ax, **plot_kw)
