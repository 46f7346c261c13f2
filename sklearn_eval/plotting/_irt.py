"""Displays for item response theory and generality (Martinez-Plumed et al. 2018)."""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit

from ._base import (
    _as_float_vector,
    _as_labels,
    _check_fitted_attrs,
    _check_positive_int,
    _frame_labels,
    _single_ax,
    _spread_labels,
)

__all__ = ["AbilityGeneralityDisplay", "AgentCurveDisplay", "ItemCurveDisplay"]


def _as_matrix(values, name, shape=None, *, allow_nan=False):
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got shape {array.shape}.")
    if shape is not None:
        expected = tuple(
            s if s is not None else array.shape[k] for k, s in enumerate(shape)
        )
        if array.shape != expected:
            raise ValueError(f"{name} must have shape {expected}; got {array.shape}.")
    bad = np.isinf(array) if allow_nan else ~np.isfinite(array)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} has a non-finite value at row {i}, column {j}.")
    return array.copy()


def _resolve_items(selection, names, kind):
    """Indices of ``selection`` (labels or integer positions) among ``names``."""
    names = np.asarray(names, dtype=object)
    lookup = {str(v): i for i, v in enumerate(names)}
    indices = []
    for item in np.ravel(np.asarray(selection, dtype=object)):
        if (
            isinstance(item, numbers.Integral)
            and not isinstance(item, bool)
            and str(item) not in lookup
        ):
            if not 0 <= item < names.size:
                raise ValueError(
                    f"{kind} index {item} is out of range [0, {names.size})."
                )
            indices.append(int(item))
        elif str(item) in lookup:
            indices.append(lookup[str(item)])
        else:
            raise ValueError(f"Unknown {kind} {item!r}.")
    if not indices:
        raise ValueError(f"No {kind}s selected.")
    return np.asarray(indices, dtype=np.int64)


# ---------------------------------------------------------------------------
# Item characteristic curves
# ---------------------------------------------------------------------------
class ItemCurveDisplay:
    """Item characteristic curves: P(success) against ability (ICC).

    Each selected item's 2PL curve ``1 / (1 + exp(-a (theta - b)))`` is drawn
    over a grid of abilities, labelled ``"name [b, a]"`` (paper Fig. 4).
    Optionally the display adds the empirical success rate of the item within
    groups of agents binned by ability (from
    :meth:`GeneralityScorer.item_curves
    <sklearn_eval.irt.GeneralityScorer.item_curves>`) as markers at the
    groups' median ability, the agents' observed 0/1 responses as ticks at
    1.05 / -0.05, and every other item's curve faintly in the background.

    Parameters
    ----------
    theta : array-like of shape (n_points,)
        Ability grid.
    probabilities : array-like of shape (n_points, n_items)
        ``P(success | theta)`` of each selected item.
    item_names : array-like of shape (n_items,), default=None
    difficulty, discrimination : array-like of shape (n_items,), default=None
        Shown in the legend when given.
    empirical_ability : array-like of shape (n_groups,), default=None
        Median ability of each agent group.
    empirical_rate : array-like of shape (n_items, n_groups), default=None
        Success rate of each item in each group (NaN: no response).
    response_ability : array-like of shape (n_agents,), default=None
        Abilities of the agents whose responses are drawn.
    responses : array-like of shape (n_agents, n_items), default=None
        Their 0/1 responses to the selected items (NaN: missing).
    background : array-like of shape (n_points, n_other), default=None
        Curves of other items, drawn faintly.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : list of Line2D
        One curve per selected item.
    empirical_lines_ : list of Line2D
        Empirical markers per item (when given).
    response_lines_ : list of Line2D
        Response ticks per item (when given).
    background_lines_ : list of Line2D

    See Also
    --------
    sklearn_eval.irt.IRT2PL : Fits the curves.
    AgentCurveDisplay : The dual view, success against difficulty per agent.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.irt import IRT2PL
    >>> from sklearn_eval.plotting import ItemCurveDisplay
    >>> X = make_irt_responses(200, 12, random_state=0)
    >>> model = IRT2PL().fit(X)
    >>> display = ItemCurveDisplay.from_estimator(model, items=[0, 5])
    >>> len(display.lines_)
    2
    """

    def __init__(
        self,
        theta,
        probabilities,
        *,
        item_names=None,
        difficulty=None,
        discrimination=None,
        empirical_ability=None,
        empirical_rate=None,
        response_ability=None,
        responses=None,
        background=None,
    ):
        self.theta = _as_float_vector(theta, "theta")
        n_points = self.theta.size
        if n_points < 2:
            raise ValueError("theta needs at least 2 points.")
        self.probabilities = _as_matrix(
            probabilities, "probabilities", (n_points, None)
        )
        n_items = self.probabilities.shape[1]
        if np.any((self.probabilities < 0) | (self.probabilities > 1)):
            raise ValueError("probabilities must lie in [0, 1].")
        self.item_names = _as_labels(item_names, n_items, "item_names", "item")
        self.difficulty = (
            None
            if difficulty is None
            else _as_float_vector(difficulty, "difficulty", n_items)
        )
        self.discrimination = (
            None
            if discrimination is None
            else _as_float_vector(discrimination, "discrimination", n_items)
        )
        if (empirical_ability is None) != (empirical_rate is None):
            raise ValueError(
                "Pass both empirical_ability and empirical_rate, or neither."
            )
        self.empirical_ability = self.empirical_rate = None
        if empirical_ability is not None:
            self.empirical_ability = _as_float_vector(
                empirical_ability, "empirical_ability", allow_nan=True
            )
            self.empirical_rate = _as_matrix(
                empirical_rate,
                "empirical_rate",
                (n_items, self.empirical_ability.size),
                allow_nan=True,
            )
        if (response_ability is None) != (responses is None):
            raise ValueError("Pass both response_ability and responses, or neither.")
        self.response_ability = self.responses = None
        if responses is not None:
            self.response_ability = _as_float_vector(
                response_ability, "response_ability"
            )
            self.responses = _as_matrix(
                responses,
                "responses",
                (self.response_ability.size, n_items),
                allow_nan=True,
            )
            observed = self.responses[~np.isnan(self.responses)]
            if np.any((observed != 0) & (observed != 1)):
                raise ValueError("responses must be 0, 1 or NaN.")
        self.background = (
            None
            if background is None
            else _as_matrix(background, "background", (n_points, None))
        )

    def plot(self, ax=None, *, legend=True, jitter=0.015, random_state=0):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        legend : bool, default=True
            Add a legend ``"name [b, a]"``.
        jitter : float, default=0.015
            Vertical jitter of the response ticks (fraction of the y range).
        random_state : int, default=0
            Seed of the jitter.

        Returns
        -------
        display : ItemCurveDisplay
        """
        ax = _single_ax(
            ax, "ItemCurveDisplay.plot", figsize=(7, 4.6), layout="constrained"
        )
        self.background_lines_ = []
        if self.background is not None:
            self.background_lines_ = ax.plot(
                self.theta, self.background, color="0.5", alpha=0.06, lw=0.8
            )
        self.lines_, self.empirical_lines_, self.response_lines_ = [], [], []
        rng = np.random.default_rng(random_state)
        for k, name in enumerate(self.item_names):
            color = f"C{k % 10}"
            (line,) = ax.plot(
                self.theta,
                self.probabilities[:, k],
                color=color,
                lw=1.8,
                label=self._legend_label(k, name),
            )
            self.lines_.append(line)
            if self.empirical_rate is not None:
                (emp,) = ax.plot(
                    self.empirical_ability,
                    self.empirical_rate[k],
                    "o",
                    color=color,
                    ms=5,
                    mec="white",
                    mew=0.6,
                    alpha=0.9,
                )
                self.empirical_lines_.append(emp)
            if self.responses is not None:
                r = self.responses[:, k]
                seen = ~np.isnan(r)
                level = np.where(
                    r[seen] == 1, 1.05, -0.05
                ) + jitter * rng.standard_normal(seen.sum())
                (ticks,) = ax.plot(
                    self.response_ability[seen],
                    level,
                    "|",
                    color=color,
                    ms=7,
                    alpha=0.5,
                )
                self.response_lines_.append(ticks)
        ax.set_xlim(self.theta[0], self.theta[-1])
        ax.set_ylim(
            -0.1 if self.responses is not None else -0.02,
            1.1 if self.responses is not None else 1.02,
        )
        ax.set_xlabel("ability $\\theta$")
        ax.set_ylabel("P(success)")
        title = "Item characteristic curves"
        if self.empirical_rate is not None:
            title += " (dots: success rate of agents binned by ability)"
        ax.set_title(title, fontsize=10)
        if legend:
            legend_title = "item"
            if self.difficulty is not None or self.discrimination is not None:
                legend_title += (
                    " ["
                    + ", ".join(
                        name
                        for name, v in (
                            ("b", self.difficulty),
                            ("a", self.discrimination),
                        )
                        if v is not None
                    )
                    + "]"
                )
            ax.legend(
                fontsize=7,
                title=legend_title,
                title_fontsize=7,
                loc="center left",
                bbox_to_anchor=(1.01, 0.5),
                frameon=False,
            )
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    def _legend_label(self, k, name):
        parts = []
        if self.difficulty is not None:
            parts.append(f"{self.difficulty[k]:.2f}")
        if self.discrimination is not None:
            parts.append(f"{self.discrimination[k]:.2f}")
        return f"{name} [{', '.join(parts)}]" if parts else str(name)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X=None,
        *,
        items=None,
        n_extreme=3,
        theta_range=(-6.0, 6.0),
        n_points=241,
        scorer=None,
        n_ability_bins=5,
        show_responses=False,
        show_all=False,
        ax=None,
        **plot_kw,
    ):
        """Plot item curves of a fitted :class:`~sklearn_eval.irt.IRT2PL`.

        Parameters
        ----------
        estimator : IRT2PL
            Fitted (``difficulty_``, ``discrimination_``).
        X : array-like or DataFrame of shape (n_agents, n_items), default=None
            Responses of agents to the fitted items; needed for
            ``scorer`` and ``show_responses`` (abilities are estimated with
            ``estimator.estimate_abilities``).
        items : array-like of labels or int, or str, default=None
            Items to draw: names (from ``feature_names_in_``) or positions,
            or a rule of the paper's figures:

            - None or ``"difficulty"``: the ``n_extreme`` most and
              ``n_extreme`` least difficult items with positive
              discrimination (Fig. 4), among those whose difficulty lies in
              ``theta_range`` when there are any (an item with a near-zero
              discrimination has a huge ``|b|`` and a flat, uninformative
              curve);
            - ``"discrimination"``: the ``n_extreme`` most and least
              discriminating items with ``a >= 0`` (Fig. 5);
            - ``"negative"``: every item with ``a < 0`` ("abstruse" items,
              Fig. 6).
        n_extreme : int, default=3
            See ``items``.
        theta_range : tuple of float, default=(-6, 6)
        n_points : int, default=241
            Points of the ability grid.
        scorer : GeneralityScorer, default=None
            Fitted on the same items; its ``item_curves(X, abilities,
            bins=n_ability_bins)`` gives the empirical success rates.
        n_ability_bins : int, default=5
            Number of ability groups of the empirical rates.
        show_responses : bool, default=False
            Draw the agents' observed responses.
        show_all : bool, default=False
            Draw every other estimated item faintly.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : ItemCurveDisplay
        """
        _check_fitted_attrs(
            estimator,
            ["difficulty_", "discrimination_"],
            "ItemCurveDisplay.from_estimator",
        )
        b = np.asarray(estimator.difficulty_, dtype=np.float64)
        a = np.asarray(estimator.discrimination_, dtype=np.float64)
        names = getattr(estimator, "feature_names_in_", None)
        if names is None:
            names = np.asarray([f"item {j}" for j in range(b.size)], dtype=object)
        names = np.asarray(names, dtype=object)
        estimated = np.isfinite(a) & np.isfinite(b)
        low, high = (float(v) for v in theta_range)
        if not (np.isfinite(low) and np.isfinite(high) and low < high):
            raise ValueError(
                f"theta_range must be finite and increasing; got {theta_range}."
            )
        if items is None or isinstance(items, str):
            chosen = _select_items(
                "difficulty" if items is None else items,
                a,
                b,
                estimated,
                (low, high),
                _check_positive_int(n_extreme, "n_extreme", allow_none=False),
            )
        else:
            chosen = _resolve_items(items, names, "item")
            left_out = chosen[~estimated[chosen]]
            if left_out.size:
                raise ValueError(
                    f"Item(s) {names[left_out].tolist()} were left out of estimation "
                    "(constant responses) and have no curve."
                )
        n_points = _check_positive_int(n_points, "n_points", allow_none=False)
        theta = np.linspace(low, high, max(n_points, 2))
        curves = _logistic(theta, a, b)
        kwargs = {}
        if show_all:
            others = np.setdiff1d(np.flatnonzero(estimated), chosen)
            kwargs["background"] = curves[:, others]
        needs_x = scorer is not None or show_responses
        if needs_x and X is None:
            raise ValueError("X is needed for scorer and show_responses.")
        if needs_x:
            abilities, _ = estimator.estimate_abilities(X)
            if show_responses:
                values = np.asarray(X, dtype=np.float64)
                kwargs["response_ability"] = abilities
                kwargs["responses"] = values[:, chosen]
            if scorer is not None:
                _check_fitted_attrs(
                    scorer,
                    ["bin_edges_"],
                    "ItemCurveDisplay.from_estimator(scorer=...)",
                )
                if scorer.n_features_in_ != b.size:
                    raise ValueError(
                        f"scorer was fitted on {scorer.n_features_in_} tasks but the "
                        f"IRT model on {b.size} items; they must share the items."
                    )
                bunch = scorer.item_curves(X, abilities=abilities, bins=n_ability_bins)
                kwargs["empirical_ability"] = bunch.ability_medians
                kwargs["empirical_rate"] = bunch.success_rate[chosen]
        display = cls(
            theta,
            curves[:, chosen],
            item_names=names[chosen],
            difficulty=b[chosen],
            discrimination=a[chosen],
            **kwargs,
        )
        return display.plot(ax=ax, **plot_kw)


def _select_items(rule, a, b, estimated, theta_range, n_extreme):
    """Item indices picked by one of the paper's figure rules."""
    rules = ("difficulty", "discrimination", "negative")
    if rule not in rules:
        raise ValueError(f"items={rule!r} is not a rule; choose from {rules}.")
    if rule == "negative":
        chosen = np.flatnonzero(estimated & (a < 0))
        if chosen.size == 0:
            raise ValueError("No estimated item has a negative discrimination.")
        return chosen
    if rule == "discrimination":
        candidates = np.flatnonzero(estimated & (a >= 0))
        key = a
    else:
        candidates = np.flatnonzero(estimated & (a > 0))
        inside = candidates[
            (b[candidates] >= theta_range[0]) & (b[candidates] <= theta_range[1])
        ]
        candidates = inside if inside.size else candidates
        key = b
    if candidates.size == 0:
        raise ValueError(f"No estimated item fits items={rule!r}.")
    ranked = candidates[np.argsort(-key[candidates], kind="stable")]
    if ranked.size <= 2 * n_extreme:
        return ranked
    return np.concatenate([ranked[:n_extreme], ranked[-n_extreme:]])


def _logistic(theta, a, b):
    with np.errstate(invalid="ignore"):
        return expit(a[None, :] * (theta[:, None] - b[None, :]))


# ---------------------------------------------------------------------------
# Agent characteristic curves
# ---------------------------------------------------------------------------
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

    Parameters
    ----------
    difficulty : array-like of shape (n_bins,)
        x position of each bin (median difficulty of its tasks).
    curves : array-like of shape (n_agents, n_bins)
        Success rate of each agent per bin (NaN: no observed task).
    agent_names : array-like of shape (n_agents,), default=None
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
        self.difficulty = _as_float_vector(difficulty, "difficulty")
        n_bins = self.difficulty.size
        if n_bins == 0:
            raise ValueError("difficulty is empty.")
        self.curves = _as_matrix(curves, "curves", (None, n_bins), allow_nan=True)
        if self.curves.shape[0] == 0:
            raise ValueError("curves has no agent.")
        observed = self.curves[~np.isnan(self.curves)]
        if np.any((observed < 0) | (observed > 1)):
            raise ValueError("curves must hold success rates in [0, 1].")
        n_agents = self.curves.shape[0]
        self.agent_names = _as_labels(agent_names, n_agents, "agent_names", "agent")
        self.variance = (
            None
            if variance is None
            else _as_matrix(variance, "variance", self.curves.shape, allow_nan=True)
        )
        if self.variance is not None and np.any(self.variance < 0):
            raise ValueError("variance must be non-negative.")
        self.task_difficulty = (
            None
            if task_difficulty is None
            else _as_float_vector(task_difficulty, "task_difficulty", allow_nan=True)
        )
        self.abilities = (
            None
            if abilities is None
            else _as_float_vector(abilities, "abilities", n_agents)
        )
        self.slope = float(slope)
        if not np.isfinite(self.slope):
            raise ValueError(f"slope must be finite; got {slope!r}.")

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
        ax = _single_ax(
            ax, "AgentCurveDisplay.plot", figsize=(7.5, 4.6), layout="constrained"
        )
        x = self.difficulty
        if anchors is not None:
            low, high = (float(v) for v in anchors)
            if not low < x.min() or not high > x.max():
                raise ValueError(
                    f"anchors must lie outside the bins [{x.min():g}, {x.max():g}]; "
                    f"got {anchors}."
                )
        for position in x:
            ax.axvline(position, color="0.85", ls=":", lw=0.8, zorder=0)
        self.lines_, self.ribbons_ = [], []
        for k, name in enumerate(self.agent_names):
            color = f"C{k % 10}"
            xs, ys = x, self.curves[k]
            if anchors is not None:
                xs = np.concatenate([[low], x, [high]])
                ys = np.concatenate([[1.0], ys, [0.0]])
            seen = ~np.isnan(ys)
            (line,) = ax.plot(
                xs[seen], ys[seen], "-o", color=color, ms=4, lw=1.5, label=str(name)
            )
            self.lines_.append(line)
            if ribbon and self.variance is not None:
                half = self.variance[k] / 2
                self.ribbons_.append(
                    ax.fill_between(
                        x,
                        self.curves[k] - half,
                        self.curves[k] + half,
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
        self.rug_ = None
        title = "Agent characteristic curves"
        if ribbon and self.variance is not None:
            title += " (ribbon: \u00b1 within-bin variance / 2)"
        if rug and self.task_difficulty is not None:
            d = self.task_difficulty[np.isfinite(self.task_difficulty)]
            (self.rug_,) = ax.plot(
                d, np.full(d.size, -0.04), "|", color="0.4", ms=6, alpha=0.5
            )
            outside = int(np.sum((d < low_x - margin) | (d > high_x + margin)))
            if outside:
                title += f"\n(rug: {outside} task(s) beyond the view)"
        self.theoretical_lines_ = []
        if theoretical and self.abilities is not None:
            grid = np.linspace(low_x - margin, high_x + margin, 200)
            for k, theta in enumerate(self.abilities):
                (curve,) = ax.plot(
                    grid,
                    expit(self.slope * (theta - grid)),
                    ls="--",
                    lw=1.0,
                    color=f"C{k % 10}",
                    alpha=0.7,
                )
                self.theoretical_lines_.append(curve)
            title += (
                f"\n(dashed: 2PL curve at each agent's ability, slope {self.slope:.2g})"
            )
        ax.set_xlim(low_x - margin, high_x + margin)
        ax.set_ylim(-0.08, 1.05)
        ax.set_xlabel("task difficulty (bin median)")
        ax.set_ylabel("success rate in bin")
        ax.set_title(title, fontsize=10)
        ax.legend(
            fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False
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
        responses, _ = estimator._check_transform_input(X)
        curves = np.asarray(estimator.response_curves(X), dtype=np.float64)
        _, variance = estimator._curves(responses)
        n_agents = curves.shape[0]
        if agent_names is None:
            agent_names = _frame_labels(X, 0)
        names = _as_labels(agent_names, n_agents, "agent_names", "agent")
        if agents is None:
            max_agents = _check_positive_int(max_agents, "max_agents", allow_none=False)
            mean = np.nanmean(responses, axis=1)
            ranked = np.argsort(-np.nan_to_num(mean, nan=-1.0), kind="stable")
            if n_agents <= max_agents:
                chosen = ranked
            else:
                chosen = ranked[
                    np.unique(
                        np.linspace(0, n_agents - 1, max_agents).round().astype(int)
                    )
                ]
        else:
            chosen = _resolve_items(agents, names, "agent")
        x = np.where(
            np.isnan(estimator.bin_medians_),
            estimator.bin_centers_,
            estimator.bin_medians_,
        )
        binned = np.asarray(estimator.task_bin_) >= 0
        theory = {}
        if theoretical is not None:
            theta, slope = _theoretical_inputs(estimator, X, theoretical, abilities)
            theta = _as_float_vector(theta, "abilities", n_agents)
            theory = {"abilities": theta[chosen], "slope": slope}
        display = cls(
            x,
            curves[chosen],
            agent_names=names[chosen],
            variance=variance[chosen],
            task_difficulty=np.asarray(estimator.difficulty_, float)[binned],
            **theory,
        )
        return display.plot(ax=ax, **plot_kw)


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


# ---------------------------------------------------------------------------
# Ability vs generality
# ---------------------------------------------------------------------------
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

    Parameters
    ----------
    ability : array-like of shape (n_agents,)
        x values (ability, capability or another indicator).
    generality : array-like of shape (n_agents,)
        y values; ``+inf`` allowed.
    agent_names : array-like of shape (n_agents,), default=None
    xlabel, ylabel : str, default="ability", "generality"

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
        self.ability = _as_float_vector(ability, "ability", allow_nan=True)
        n = self.ability.size
        if n == 0:
            raise ValueError("ability is empty.")
        self.generality = _as_float_vector(
            generality, "generality", n, allow_nan=True, allow_inf=True
        )
        if np.any(np.isneginf(self.generality)) or np.any(self.generality < 0):
            raise ValueError("generality must be non-negative (or +inf).")
        if np.any(np.isinf(self.ability)):
            raise ValueError("ability must be finite (or NaN).")
        self.agent_names = _as_labels(agent_names, n, "agent_names", "agent")
        self.xlabel = str(xlabel)
        self.ylabel = str(ylabel)

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
        if yscale not in ("linear", "log"):
            raise ValueError(f"yscale must be 'linear' or 'log'; got {yscale!r}.")
        drawn = ~np.isnan(self.ability) & ~np.isnan(self.generality)
        self.missing_ = self.agent_names[~drawn]
        finite = drawn & np.isfinite(self.generality)
        infinite = drawn & np.isinf(self.generality)
        if yscale == "log" and np.any(self.generality[finite] <= 0):
            raise ValueError("yscale='log' needs positive generality values.")
        size = (7.0, 5.0) if drawn.sum() <= 20 else (10.0, 7.0)
        ax = _single_ax(
            ax, "AbilityGeneralityDisplay.plot", figsize=size, layout="constrained"
        )
        ax.set_yscale(yscale)
        self.scatter_ = ax.scatter(
            self.ability[finite], self.generality[finite], color="C0", s=30, zorder=3
        )
        g = self.generality[finite]
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
                self.ability[infinite],
                np.full(infinite.sum(), top),
                marker="^",
                color="C3",
                s=50,
                zorder=4,
                clip_on=False,
                label="generality = \u221e (drawn at the top edge)",
            )
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        title = f"{self.ylabel.capitalize()} vs {self.xlabel}"
        if self.missing_.size:
            title += f" ({self.missing_.size} agent(s) with NaN not drawn)"
        ax.set_title(title, fontsize=10)
        if self.infinite_scatter_ is not None:
            ax.legend(fontsize=7, loc="lower right", framealpha=0.8)
        ax.grid(alpha=0.3)
        self.texts_ = []
        if label_points:
            shown = np.flatnonzero(drawn)
            y = np.where(np.isinf(self.generality[shown]), top, self.generality[shown])
            self.texts_ = _spread_labels(
                ax, self.ability[shown], y, self.agent_names[shown], fontsize=7
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
        display = cls(
            ability, generality, agent_names=agent_names, xlabel=xlabel, ylabel=ylabel
        )
        return display.plot(ax=ax, **plot_kw)

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
        display = cls(
            xs,
            table[:, columns.index(y)],
            agent_names=agent_names,
            xlabel=x.replace("_", " "),
            ylabel=y.replace("_", " "),
        )
        return display.plot(ax=ax, **plot_kw)
