"""Item characteristic curves of a 2PL model (Martinez-Plumed et al. 2018, Figs 4-6)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ._base import (
    _as_float_vector,
    _as_labels,
    _as_matrix,
    _both_or_neither,
    _check_fitted_attrs,
    _check_positive_int,
    _fitted_labels,
    _literal_legend,
    _optional_vector,
    _resolve_items,
    _single_ax,
)

__all__ = ["ItemCurveDisplay"]


def _icc(theta, discrimination, difficulty):
    """2PL item characteristic curves, ``1 / (1 + exp(-a (theta - b)))``.

    For curves without a fitted model (the theoretical agent curves): an
    :class:`~sklearn_eval.irt.IRT2PL` is built from the item parameters and
    its :meth:`~sklearn_eval.irt.IRT2PL.icc` evaluated, so every 2PL curve the
    displays draw is the model's own formula.

    Parameters
    ----------
    theta : array-like of shape (n_points,)
        Abilities.
    discrimination, difficulty : array-like of shape (n_items,)
        Item parameters ``a`` and ``b`` (finite).

    Returns
    -------
    ndarray of shape (n_points, n_items)
    """
    from ..irt import IRT2PL

    model = IRT2PL.from_item_params(discrimination, difficulty)
    return model.icc(theta)


def _check_item_curves(
    theta,
    probabilities,
    item_names=None,
    difficulty=None,
    discrimination=None,
    empirical_ability=None,
    empirical_rate=None,
    response_ability=None,
    responses=None,
    background=None,
):
    """The validated data of an :class:`ItemCurveDisplay` (a Bunch of copies)."""
    theta = _as_float_vector(theta, "theta")
    n_points = theta.size
    if n_points < 2:
        raise ValueError("theta needs at least 2 points.")
    probabilities = _as_matrix(probabilities, "probabilities", (n_points, None))
    n_items = probabilities.shape[1]
    if np.any((probabilities < 0) | (probabilities > 1)):
        raise ValueError("probabilities must lie in [0, 1].")
    _both_or_neither(
        empirical_ability, empirical_rate, ("empirical_ability", "empirical_rate")
    )
    if empirical_ability is not None:
        empirical_ability = _as_float_vector(
            empirical_ability, "empirical_ability", allow_nan=True
        )
        empirical_rate = _as_matrix(
            empirical_rate,
            "empirical_rate",
            (n_items, empirical_ability.size),
            allow_nan=True,
        )
    _both_or_neither(response_ability, responses, ("response_ability", "responses"))
    if responses is not None:
        response_ability = _as_float_vector(response_ability, "response_ability")
        responses = _as_matrix(
            responses, "responses", (response_ability.size, n_items), allow_nan=True
        )
        observed = responses[~np.isnan(responses)]
        if np.any((observed != 0) & (observed != 1)):
            raise ValueError("responses must be 0, 1 or NaN.")
    return Bunch(
        theta=theta,
        probabilities=probabilities,
        item_names=_as_labels(item_names, n_items, "item_names", "item"),
        difficulty=_optional_vector(difficulty, "difficulty", n_items),
        discrimination=_optional_vector(discrimination, "discrimination", n_items),
        empirical_ability=empirical_ability,
        empirical_rate=empirical_rate,
        response_ability=response_ability,
        responses=responses,
        background=None
        if background is None
        else _as_matrix(background, "background", (n_points, None)),
    )


# response rugs: first row just outside [0, 1], then one row per item
_RUG_START = 0.03
_RUG_STEP = 0.03


def _rug_alpha(n_ticks):
    """Tick opacity: solid for a few agents, faint for many."""
    return float(np.clip(25.0 / max(n_ticks, 1), 0.12, 0.6))


class ItemCurveDisplay:
    """Item characteristic curves: P(success) against ability (ICC).

    Each selected item's 2PL curve ``1 / (1 + exp(-a (theta - b)))`` is drawn
    over a grid of abilities, labelled ``"name [b, a]"`` (paper Fig. 4).
    Optionally the display adds the empirical success rate of the item within
    groups of agents binned by ability (from
    :meth:`GeneralityScorer.item_curves
    <sklearn_eval.irt.GeneralityScorer.item_curves>`) as markers at the
    groups' median ability, the agents' observed 0/1 responses as a rug of
    ticks (one row per item, successes above 1 and failures below 0, fainter
    the more agents there are, so 30-130 agents stay readable), and every
    other item's curve faintly in the background.

    The constructor only stores its arguments; :meth:`from_estimator` builds
    them from a fitted model and :meth:`plot` checks them (wrong shapes,
    non-finite values or probabilities outside [0, 1] raise a ``ValueError``).

    Parameters
    ----------
    theta : array-like of shape (n_points,)
        Ability grid.
    probabilities : array-like of shape (n_points, n_items)
        ``P(success | theta)`` of each selected item.
    item_names : array-like of shape (n_items,), default=None
        Drawn literally (no math text).
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
        self.theta = theta
        self.probabilities = probabilities
        self.item_names = item_names
        self.difficulty = difficulty
        self.discrimination = discrimination
        self.empirical_ability = empirical_ability
        self.empirical_rate = empirical_rate
        self.response_ability = response_ability
        self.responses = responses
        self.background = background

    def _checked(self):
        return _check_item_curves(
            self.theta,
            self.probabilities,
            item_names=self.item_names,
            difficulty=self.difficulty,
            discrimination=self.discrimination,
            empirical_ability=self.empirical_ability,
            empirical_rate=self.empirical_rate,
            response_ability=self.response_ability,
            responses=self.responses,
            background=self.background,
        )

    def plot(self, ax=None, *, legend=True, jitter=0.0, random_state=0):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        legend : bool, default=True
            Add a legend ``"name [b, a]"``.
        jitter : float, default=0.0
            Vertical jitter of the response ticks (fraction of the y range);
            each item's ticks have a row of their own, so none is needed.
        random_state : int, default=0
            Seed of the jitter.

        Returns
        -------
        display : ItemCurveDisplay
        """
        data = self._checked()
        ax = _single_ax(
            ax, "ItemCurveDisplay.plot", figsize=(7, 4.6), layout="constrained"
        )
        self.background_lines_ = []
        if data.background is not None:
            self.background_lines_ = ax.plot(
                data.theta, data.background, color="0.5", alpha=0.06, lw=0.8
            )
        self.lines_, self.empirical_lines_, self.response_lines_ = [], [], []
        rng = np.random.default_rng(random_state)
        for k, name in enumerate(data.item_names):
            color = f"C{k % 10}"
            (line,) = ax.plot(
                data.theta,
                data.probabilities[:, k],
                color=color,
                lw=1.8,
                label=_legend_label(data, k, name),
            )
            self.lines_.append(line)
            if data.empirical_rate is not None:
                (emp,) = ax.plot(
                    data.empirical_ability,
                    data.empirical_rate[k],
                    "o",
                    color=color,
                    ms=5,
                    mec="white",
                    mew=0.6,
                    alpha=0.9,
                )
                self.empirical_lines_.append(emp)
            if data.responses is not None:
                r = data.responses[:, k]
                seen = ~np.isnan(r)
                # one rug row per item: successes above 1, failures below 0
                offset = _RUG_START + _RUG_STEP * k
                level = np.where(r[seen] == 1, 1.0 + offset, -offset)
                level = level + jitter * rng.standard_normal(seen.sum())
                (ticks,) = ax.plot(
                    data.response_ability[seen],
                    level,
                    "|",
                    color=color,
                    ms=6,
                    alpha=_rug_alpha(int(seen.sum())),
                )
                self.response_lines_.append(ticks)
        margin = 0.02
        if data.responses is not None:
            rows = len(data.item_names)
            margin = _RUG_START + _RUG_STEP * (rows - 1) + 0.03
        ax.set_xlim(data.theta[0], data.theta[-1])
        ax.set_ylim(-margin, 1.0 + margin)
        ax.set_xlabel("ability $\\theta$")
        ax.set_ylabel("P(success)")
        title = "Item characteristic curves"
        if data.empirical_rate is not None:
            title += " (dots: success rate of agents binned by ability)"
        ax.set_title(title, fontsize=10)
        if legend:
            _literal_legend(
                ax,
                fontsize=7,
                title=_legend_title(data),
                title_fontsize=7,
                loc="center left",
                bbox_to_anchor=(1.01, 0.5),
                frameon=False,
            )
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

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
        abilities=None,
        item_names=None,
        show_responses=False,
        show_all=False,
        ax=None,
        **plot_kw,
    ):
        """Plot item curves of a fitted :class:`~sklearn_eval.irt.IRT2PL`.

        The curves are the model's own, :meth:`~sklearn_eval.irt.IRT2PL.icc`.

        Parameters
        ----------
        estimator : IRT2PL
            Fitted (``difficulty_``, ``discrimination_`` and ``icc``).
        X : array-like or DataFrame of shape (n_agents, n_items), default=None
            Responses of agents to the fitted items; needed for
            ``scorer`` and ``show_responses``.
        items : array-like of labels or int, or str, default=None
            Items to draw: names (from ``item_names`` or
            ``tasks_``) or positions, or a rule of the paper's
            figures:

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
        abilities : array-like of shape (n_agents,), default=None
            Abilities of the agents of ``X`` (for ``scorer`` and
            ``show_responses``); ``estimator.estimate_abilities(X)`` when
            None.
        item_names : array-like of shape (n_items,), default=None
            Labels of all fitted items; ``tasks_`` (else
            ``"item j"``) when None.
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
        if item_names is None:
            item_names = _fitted_labels(estimator, "tasks_")
        names = _as_labels(item_names, b.size, "item_names", "item")
        estimated = np.isfinite(a) & np.isfinite(b)
        low, high = (float(v) for v in theta_range)
        if not (np.isfinite(low) and np.isfinite(high) and low < high):
            raise ValueError(
                f"theta_range must be finite and increasing; got {theta_range}."
            )
        chosen = _chosen_items(items, names, a, b, estimated, (low, high), n_extreme)
        n_points = _check_positive_int(n_points, "n_points", allow_none=False)
        theta = np.linspace(low, high, max(n_points, 2))
        curves = estimator.icc(theta)
        kwargs = {}
        if show_all:
            others = np.setdiff1d(np.flatnonzero(estimated), chosen)
            kwargs["background"] = curves[:, others]
        if scorer is not None or show_responses:
            if X is None:
                raise ValueError("X is needed for scorer and show_responses.")
            if abilities is None:
                abilities, _ = estimator.estimate_abilities(X)
            if show_responses:
                kwargs["response_ability"] = abilities
                kwargs["responses"] = np.asarray(X, dtype=np.float64)[:, chosen]
            if scorer is not None:
                kwargs.update(
                    _empirical_rates(
                        scorer, b.size, X, abilities, chosen, n_ability_bins
                    )
                )
        data = _check_item_curves(
            theta,
            curves[:, chosen],
            item_names=names[chosen],
            difficulty=b[chosen],
            discrimination=a[chosen],
            **kwargs,
        )
        return cls(**data).plot(ax=ax, **plot_kw)


def _legend_label(data, k, name):
    parts = [
        f"{values[k]:.2f}"
        for values in (data.difficulty, data.discrimination)
        if values is not None
    ]
    return f"{name} [{', '.join(parts)}]" if parts else str(name)


def _legend_title(data):
    shown = [
        name
        for name, values in (("b", data.difficulty), ("a", data.discrimination))
        if values is not None
    ]
    return f"item [{', '.join(shown)}]" if shown else "item"


def _chosen_items(items, names, a, b, estimated, theta_range, n_extreme):
    """Indices of the items to draw: a rule of the paper, or labels/positions."""
    if items is None or isinstance(items, str):
        return _select_items(
            "difficulty" if items is None else items,
            a,
            b,
            estimated,
            theta_range,
            _check_positive_int(n_extreme, "n_extreme", allow_none=False),
        )
    chosen = _resolve_items(items, names, "item")
    left_out = chosen[~estimated[chosen]]
    if left_out.size:
        raise ValueError(
            f"Item(s) {names[left_out].tolist()} were left out of estimation "
            "(constant responses) and have no curve."
        )
    return chosen


def _empirical_rates(scorer, n_items, X, abilities, chosen, n_ability_bins):
    """Success rates of the chosen items per ability group, from the scorer."""
    _check_fitted_attrs(
        scorer, ["bin_edges_"], "ItemCurveDisplay.from_estimator(scorer=...)"
    )
    if scorer.n_features_in_ != n_items:
        raise ValueError(
            f"scorer was fitted on {scorer.n_features_in_} tasks but the "
            f"IRT model on {n_items} items; they must share the items."
        )
    bunch = scorer.item_curves(X, abilities=abilities, bins=n_ability_bins)
    return {
        "empirical_ability": bunch.ability_medians,
        "empirical_rate": bunch.success_rate[chosen],
    }


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
