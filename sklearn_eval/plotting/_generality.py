"""Ability (or capability) against generality, one point per agent."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import (
    _as_float_vector,
    _as_labels,
    _check_fitted_attrs,
    _frame_labels,
    _literal_legend,
    _single_ax,
    _spread_labels,
)

__all__ = ["AbilityGeneralityDisplay"]


def _check_ability_generality(
    ability, generality, agent_names=None, xlabel="ability", ylabel="generality"
):
    """The validated data of an :class:`AbilityGeneralityDisplay`."""
    ability = _as_float_vector(ability, "ability", allow_nan=True)
    n = ability.size
    if n == 0:
        raise ValueError("ability is empty.")
    generality = _as_float_vector(
        generality, "generality", n, allow_nan=True, allow_inf=True
    )
    if np.any(np.isneginf(generality)) or np.any(generality < 0):
        raise ValueError("generality must be non-negative (or +inf).")
    if np.any(np.isinf(ability)):
        raise ValueError("ability must be finite (or NaN).")
    return Bunch(
        ability=ability,
        generality=generality,
        agent_names=_as_labels(agent_names, n, "agent_names", "agent"),
        xlabel=str(xlabel),
        ylabel=str(ylabel),
    )


class AbilityGeneralityDisplay:
    """Scatter of ability (or capability) against generality, one point per agent.

    Ability says how difficult the tasks an agent solves are; generality
    says how cleanly its success falls with difficulty (a step curve is
    maximally general). The two are complementary: the paper finds "no clear
    correlation" between them. Generality is infinite for an agent whose
    within-bin variances are all 0 (a step on a bin boundary, or an all-0 /
    all-1 agent); such agents are drawn **at the top edge of the axes with an
    upward triangle** (red), since an infinite value has no position.
    Agents with a NaN value are left out (listed in ``missing_``).

    The constructor only stores its arguments; :meth:`from_data` and
    :meth:`from_estimator` check them (and so does :meth:`plot`).

    Parameters
    ----------
    ability : array-like of shape (n_agents,)
        x values (ability, capability or another indicator).
    generality : array-like of shape (n_agents,)
        y values; ``+inf`` allowed.
    agent_names : array-like of shape (n_agents,), default=None
        Point labels, drawn literally (no math text).
    xlabel, ylabel : str, default="ability", "generality"
        Axis labels (matplotlib text: ``$...$`` is math).

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    scatter_ : PathCollection
        The agents with finite generality.
    infinite_scatter_ : PathCollection or None
        The agents with infinite generality, at the top edge.
    texts_ : list of Text
        Point labels.
    missing_ : ndarray
        Names of agents not drawn (NaN values).

    See Also
    --------
    sklearn_eval.irt.GeneralityScorer : Computes both indicators.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_eval.plotting import AbilityGeneralityDisplay
    >>> display = AbilityGeneralityDisplay.from_data(
    ...     [-1.0, 0.2, 1.5], [2.0, np.inf, 3.5], agent_names=["a", "b", "c"])
    >>> finite, infinite = display.scatter_, display.infinite_scatter_
    >>> len(finite.get_offsets()), len(infinite.get_offsets())
    (2, 1)
    """

    def __init__(
        self,
        ability,
        generality,
        *,
        agent_names=None,
        xlabel="ability",
        ylabel="generality",
    ):
        self.ability = ability
        self.generality = generality
        self.agent_names = agent_names
        self.xlabel = xlabel
        self.ylabel = ylabel

    def _checked(self):
        return _check_ability_generality(
            self.ability,
            self.generality,
            agent_names=self.agent_names,
            xlabel=self.xlabel,
            ylabel=self.ylabel,
        )

    def plot(self, ax=None, *, label_points=True, yscale="linear"):
        """Draw the scatter.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        label_points : bool, default=True
            Label every agent (overlaps pushed apart).
        yscale : {"linear", "log"}, default="linear"

        Returns
        -------
        display : AbilityGeneralityDisplay
        """
        data = self._checked()
        if yscale not in ("linear", "log"):
            raise ValueError(f"yscale must be 'linear' or 'log'; got {yscale!r}.")
        drawn = ~np.isnan(data.ability) & ~np.isnan(data.generality)
        self.missing_ = data.agent_names[~drawn]
        finite = drawn & np.isfinite(data.generality)
        infinite = drawn & np.isinf(data.generality)
        if yscale == "log" and np.any(data.generality[finite] <= 0):
            raise ValueError("yscale='log' needs positive generality values.")
        size = (7.0, 5.0) if drawn.sum() <= 20 else (10.0, 7.0)
        ax = _single_ax(
            ax, "AbilityGeneralityDisplay.plot", figsize=size, layout="constrained"
        )
        ax.set_yscale(yscale)
        self.scatter_ = ax.scatter(
            data.ability[finite], data.generality[finite], color="C0", s=30, zorder=3
        )
        g = data.generality[finite]
        if g.size:
            low, high = float(g.min()), float(g.max())
        else:
            low, high = (1.0, 10.0)
        if yscale == "log":
            span = np.log10(high / low) if high > low else 1.0
            top = high * 10 ** (0.12 * span)
            bottom = low / 10 ** (0.05 * span)
        else:
            span = high - low if high > low else max(abs(high), 1.0)
            top = high + 0.12 * span
            bottom = max(0.0, low - 0.08 * span) if low >= 0 else low - 0.08 * span
        ax.set_ylim(bottom, top)
        self.infinite_scatter_ = None
        if infinite.any():
            self.infinite_scatter_ = ax.scatter(
                data.ability[infinite],
                np.full(infinite.sum(), top),
                marker="^",
                color="C3",
                s=50,
                zorder=4,
                clip_on=False,
                label="generality = \u221e (drawn at the top edge)",
            )
        ax.set_xlabel(data.xlabel)
        ax.set_ylabel(data.ylabel)
        title = f"{data.ylabel.capitalize()} vs {data.xlabel}"
        if self.missing_.size:
            title += f" ({self.missing_.size} agent(s) with NaN not drawn)"
        ax.set_title(title, fontsize=10)
        if self.infinite_scatter_ is not None:
            _literal_legend(ax, fontsize=7, loc="lower right", framealpha=0.8)
        ax.grid(alpha=0.3)
        self.texts_ = []
        if label_points:
            shown = np.flatnonzero(drawn)
            y = np.where(np.isinf(data.generality[shown]), top, data.generality[shown])
            self.texts_ = _spread_labels(
                ax, data.ability[shown], y, data.agent_names[shown], fontsize=7
            )
            ax.set_ylim(bottom, top)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_data(
        cls,
        ability,
        generality,
        *,
        agent_names=None,
        xlabel="ability",
        ylabel="generality",
        ax=None,
        **plot_kw,
    ):
        """Plot given ability and generality values.

        Parameters
        ----------
        ability, generality, agent_names, xlabel, ylabel
            See the class parameters.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : AbilityGeneralityDisplay
        """
        data = _check_ability_generality(
            ability, generality, agent_names=agent_names, xlabel=xlabel, ylabel=ylabel
        )
        return cls(**data).plot(ax=ax, **plot_kw)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        *,
        x="auto",
        y="generality",
        abilities=None,
        agent_names=None,
        ax=None,
        **plot_kw,
    ):
        """Plot the indicators of a fitted :class:`~sklearn_eval.irt.GeneralityScorer`.

        Parameters
        ----------
        estimator : GeneralityScorer
            Fitted.
        X : array-like or DataFrame of shape (n_agents, n_tasks)
            Results of the agents on the fitted tasks.
        x : str, default="auto"
            ``"ability"`` (the IRT ability of each agent: ``abilities`` if
            given, else the scorer's IRT model), any ``transform`` column
            (``"capability"``, ``"mean_score"``, ...), or ``"auto"``:
            ``"ability"`` when available, else ``"capability"``.
        y : str, default="generality"
            A ``transform`` column (``"generality"``, ``"spread_generality"``,
            ``"regularity"``, ...).
        abilities : array-like of shape (n_agents,), default=None
            Abilities to use for ``x="ability"``.
        agent_names : array-like, default=None
            Row labels; a DataFrame's index when None.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : AbilityGeneralityDisplay
        """
        _check_fitted_attrs(
            estimator, ["bin_edges_"], "AbilityGeneralityDisplay.from_estimator"
        )
        columns = list(estimator.get_feature_names_out())
        for name, value in (("x", x), ("y", y)):
            if value not in columns and not (
                name == "x" and value in ("auto", "ability")
            ):
                raise ValueError(
                    f"{name}={value!r} is not an indicator; choose from "
                    f"{(['ability'] if name == 'x' else []) + columns}."
                )
        table = np.asarray(estimator.transform(X), dtype=np.float64)
        model = getattr(estimator, "difficulty_model_", None)
        irt = model is not None and hasattr(model, "estimate_abilities")
        if x == "auto":
            x = "ability" if abilities is not None or irt else "capability"
        if x == "ability":
            if abilities is None:
                if not irt:
                    raise ValueError(
                        "x='ability' needs abilities= or a scorer whose difficulty "
                        "came from an IRT model (difficulty='irt')."
                    )
                abilities, _ = model.estimate_abilities(X)
            xs = _as_float_vector(abilities, "abilities", table.shape[0])
        else:
            xs = table[:, columns.index(x)]
        if agent_names is None:
            agent_names = _frame_labels(X, 0)
        data = _check_ability_generality(
            xs,
            table[:, columns.index(y)],
            agent_names=agent_names,
            xlabel=x.replace("_", " "),
            ylabel=y.replace("_", " "),
        )
        return cls(**data).plot(ax=ax, **plot_kw)
