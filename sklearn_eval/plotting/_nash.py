"""Displays for games: Nash distributions and averages, Hodge shares."""

from __future__ import annotations

import numpy as np

from ._base import (
    _as_float_vector,
    _as_labels,
    _check_fitted_attrs,
    _check_positive_int,
    _frame_labels,
    _panel_axes,
    _single_ax,
)

__all__ = ["HodgeDisplay", "NashDisplay"]

_PANELS = ("agent_distribution", "task_distribution", "agent_average", "task_average")


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
    :meth:`from_estimator` or :meth:`from_data` rather than the constructor.

    Parameters
    ----------
    agent_distribution : array-like of shape (n_agents,)
        Nash probabilities of the agents (non-negative, summing to 1).
    agent_nash_average : array-like of shape (n_agents,)
        Nash averages of the agents (``agent_skill_``).
    agent_uniform_average : array-like of shape (n_agents,)
        Uniform averages of the agents.
    agent_names : array-like of shape (n_agents,), default=None
        Labels; ``"agent 0"``, ... when None.
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
        self.agent_distribution = _check_distribution(
            agent_distribution, "agent_distribution"
        )
        n = self.agent_distribution.shape[0]
        self.agent_nash_average = _as_float_vector(
            agent_nash_average, "agent_nash_average", n
        )
        self.agent_uniform_average = _as_float_vector(
            agent_uniform_average, "agent_uniform_average", n
        )
        self.agent_names = _as_labels(agent_names, n, "agent_names", "agent")
        task_parts = (task_distribution, task_nash_average, task_uniform_average)
        given = [part is not None for part in task_parts]
        if any(given) and not all(given):
            raise ValueError(
                "Pass all of task_distribution, task_nash_average and "
                "task_uniform_average (agent vs task) or none (agent vs agent)."
            )
        self.task_distribution = None
        self.task_nash_average = None
        self.task_uniform_average = None
        self.task_names = None
        if all(given):
            self.task_distribution = _check_distribution(
                task_distribution, "task_distribution"
            )
            m = self.task_distribution.shape[0]
            self.task_nash_average = _as_float_vector(
                task_nash_average, "task_nash_average", m
            )
            self.task_uniform_average = _as_float_vector(
                task_uniform_average, "task_uniform_average", m
            )
            self.task_names = _as_labels(task_names, m, "task_names", "task")
        elif task_names is not None:
            raise ValueError("task_names given without task distributions.")
        if value is not None:
            value = float(value)
            if not np.isfinite(value):
                raise ValueError(f"value must be finite; got {value!r}.")
        self.value = value

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

    def _side(self, side):
        if side == "agent":
            return (
                self.agent_distribution,
                self.agent_nash_average,
                self.agent_uniform_average,
                self.agent_names,
            )
        return (
            self.task_distribution,
            self.task_nash_average,
            self.task_uniform_average,
            self.task_names,
        )

    def plot(self, ax=None, *, panels=None, max_items=None, bar_kw=None):
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
            Extra keyword arguments of ``Axes.bar`` (every panel).

        Returns
        -------
        display : NashDisplay
        """
        panels = self._check_panels(panels)
        max_items = _check_positive_int(max_items, "max_items")
        bar_kw = {} if bar_kw is None else dict(bar_kw)

        def panel_width(panel):
            n_items = self._side(panel.split("_")[0])[0].shape[0]
            return max(4.0, 0.22 * min(n_items, max_items or n_items) + 1.0)

        if ax is None and len(panels) == 4:
            # agents left, tasks right; distributions on top, averages below
            order = _PANELS
            ratios = [panel_width("agent_average"), panel_width("task_average")]
            axes = _panel_axes(
                None,
                4,
                "NashDisplay.plot",
                ncols=2,
                figsize=(min(sum(ratios), 20), 8.4),
                width_ratios=ratios,
            )
            axes = [axes[order.index(p)] for p in panels]
        else:
            width = sum(panel_width(p) for p in panels)
            axes = _panel_axes(
                ax, len(panels), "NashDisplay.plot", figsize=(min(width, 20), 4.6)
            )
        self.axes_, self.bars_, self.lines_ = {}, {}, {}
        for name, panel_ax in zip(panels, axes, strict=True):
            side, kind = name.split("_")
            dist, nash, uniform, names = self._side(side)
            order = _sort_order(dist, nash)
            if max_items is not None:
                order = order[:max_items]
            positions = np.arange(order.size)
            if kind == "distribution":
                bars = panel_ax.bar(positions, dist[order], color="C0", **bar_kw)
                self.bars_[name] = [bars]
                panel_ax.set_ylabel("Nash probability")
                panel_ax.set_ylim(0, max(1e-12, dist.max()) * 1.1)
                title = f"Nash probability of the {side}s"
            else:
                w = 0.4
                uni = panel_ax.bar(
                    positions - w / 2,
                    uniform[order],
                    w,
                    color="0.7",
                    label="uniform average",
                    **bar_kw,
                )
                nsh = panel_ax.bar(
                    positions + w / 2,
                    nash[order],
                    w,
                    color="C1",
                    label="Nash average",
                    **bar_kw,
                )
                self.bars_[name] = [uni, nsh]
                if self.value is not None and self.has_tasks:
                    level = self.value if side == "agent" else -self.value
                    self.lines_[name] = panel_ax.axhline(
                        level,
                        color="k",
                        ls="--",
                        lw=0.8,
                        label="game value" if side == "agent" else "minus game value",
                    )
                panel_ax.axhline(0, color="k", lw=0.5)
                panel_ax.set_ylabel(
                    "difficulty (higher = harder)"
                    if side == "task"
                    else ("average log-odds" if not self.has_tasks else "score")
                )
                panel_ax.legend(fontsize=7, loc="best")
                title = (
                    "Task difficulty: uniform vs Nash"
                    if side == "task"
                    else "Agent skill: uniform vs Nash"
                )
            if order.size < dist.size:
                title += f" (first {order.size} of {dist.size})"
            panel_ax.set_title(title, fontsize=10)
            panel_ax.set_xticks(positions)
            panel_ax.set_xticklabels(
                [str(v) for v in names[order]],
                rotation=90,
                fontsize=_tick_fontsize(order.size),
            )
            panel_ax.set_xlim(-0.6, order.size - 0.4)
            self.axes_[name] = panel_ax
        self.figure_ = axes[0].figure
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
            Agent labels (rows of the fitted ``X``). Agent vs agent defaults
            to ``feature_names_in_`` when available.
        task_names : array-like, default=None
            Task labels; defaults to ``feature_names_in_`` when available.
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
        names = getattr(estimator, "feature_names_in_", None)
        avt = hasattr(estimator, "task_distribution_")
        if not avt:
            display = cls(
                estimator.agent_distribution_,
                estimator.agent_skill_,
                payoff.mean(axis=1),
                agent_names=names if agent_names is None else agent_names,
                value=getattr(estimator, "value_", None),
            )
        else:
            display = cls(
                estimator.agent_distribution_,
                estimator.agent_skill_,
                payoff.mean(axis=1),
                agent_names=agent_names,
                task_distribution=estimator.task_distribution_,
                task_nash_average=estimator.difficulty_,
                task_uniform_average=-payoff.mean(axis=0),
                task_names=names if task_names is None else task_names,
                value=getattr(estimator, "value_", None),
            )
        return display.plot(ax=ax, **plot_kw)

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


def _is_sequence_of_matrices(payoffs):
    if hasattr(payoffs, "shape") and not hasattr(payoffs, "iloc"):
        return np.ndim(payoffs) == 3
    if isinstance(payoffs, list | tuple) and len(payoffs) > 0:
        return np.ndim(payoffs[0]) == 2
    return False


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


# ---------------------------------------------------------------------------
# Hodge
# ---------------------------------------------------------------------------
class HodgeDisplay:
    """Transitive vs cyclic share of one or several games.

    The Hodge decomposition ``A = grad(div A) + rot(A)`` splits an
    antisymmetric game into a transitive part (explained by one rating per
    player, as Elo) and a cyclic part (rock-paper-scissors), orthogonal in
    the Frobenius inner product, so their squared norms add up to
    ``||A||_F^2`` (Balduzzi et al., 2018, section 2.2). The display draws one
    horizontal stacked bar per game: the transitive share, the shares of the
    leading cyclic Schur planes (each plane is what one mElo component can
    capture), and the rest of the cyclic part. Shares are annotated in
    percent.

    Parameters
    ----------
    transitive_share : float or array-like of shape (n_games,)
        ``||grad(div A)||^2 / ||A||^2`` of each game, in [0, 1].
    cyclic_share : float or array-like of shape (n_games,)
        ``||rot A||^2 / ||A||^2``; ``transitive_share + cyclic_share`` must
        be 1 (or both 0 for a zero game).
    plane_shares : array-like of shape (n_games, n_planes), default=None
        Shares of ``||A||^2`` of the leading cyclic Schur planes of each game
        (NaN where a game has fewer planes); they must not exceed the
        cyclic share.
    game_names : array-like of shape (n_games,), default=None
        Labels; ``"game 0"``, ... when None.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    bars_ : list of BarContainer
        One container per segment kind (transitive, plane 1, ..., rest of
        the cyclic part), each with one bar per game.
    texts_ : list of matplotlib Text
        The percentage annotations.

    See Also
    --------
    sklearn_eval.game.hodge_decomposition : The decomposition shown.
    sklearn_eval.game.schur_embedding : The cyclic planes.
    CyclicEmbeddingDisplay : The players' points in one cyclic plane.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_eval.plotting import HodgeDisplay
    >>> rps = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]])
    >>> ladder = np.array([[0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
    >>> display = HodgeDisplay.from_payoff([rps, ladder, rps + 0.5 * ladder],
    ...                                    game_names=["RPS", "ladder", "mixed"])
    >>> display.transitive_share.round(3)
    array([0.   , 1.   , 0.333])
    """

    def __init__(
        self, transitive_share, cyclic_share, *, plane_shares=None, game_names=None
    ):
        t = _as_float_vector(np.atleast_1d(transitive_share), "transitive_share")
        c = _as_float_vector(np.atleast_1d(cyclic_share), "cyclic_share", t.size)
        if t.size == 0:
            raise ValueError("transitive_share is empty.")
        for name, share in (("transitive_share", t), ("cyclic_share", c)):
            bad = (share < -1e-9) | (share > 1 + 1e-9)
            if bad.any():
                i = int(np.argmax(bad))
                raise ValueError(f"{name}[{i}] = {share[i]!r} is not in [0, 1].")
        total = t + c
        bad = (np.abs(total - 1.0) > 1e-6) & (total > 1e-12)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                f"transitive_share + cyclic_share must be 1; game {i} sums to "
                f"{total[i]!r}."
            )
        self.transitive_share = np.clip(t, 0, 1)
        self.cyclic_share = np.clip(c, 0, 1)
        if plane_shares is not None:
            planes = np.asarray(plane_shares, dtype=np.float64)
            if planes.ndim == 1:
                planes = planes[None, :] if t.size == 1 else planes[:, None]
            if planes.ndim != 2 or planes.shape[0] != t.size:
                raise ValueError(
                    f"plane_shares must have shape (n_games={t.size}, n_planes); got "
                    f"{np.shape(plane_shares)}."
                )
            filled = np.nan_to_num(planes, nan=0.0)
            if np.any(filled < -1e-9) or np.any(
                filled.sum(axis=1) > self.cyclic_share + 1e-6
            ):
                raise ValueError(
                    "plane_shares must be non-negative and sum to at most each "
                    "game's cyclic_share."
                )
            plane_shares = np.clip(filled, 0, None)
        self.plane_shares = plane_shares
        self.game_names = _as_labels(game_names, t.size, "game_names", "game")

    def plot(self, ax=None, *, annotate=True, min_annotated=0.04):
        """Draw the stacked share bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        annotate : bool, default=True
            Write the percentages inside the segments.
        min_annotated : float, default=0.04
            Segments narrower than this share are not annotated.

        Returns
        -------
        display : HodgeDisplay
        """
        n_games = self.transitive_share.size
        ax = _single_ax(
            ax,
            "HodgeDisplay.plot",
            figsize=(8.5, 1.6 + 0.45 * n_games),
            layout="constrained",
        )
        rows = np.arange(n_games)[::-1]
        segments = [("transitive (Elo-like)", self.transitive_share, "C0", None)]
        cyclic_left = self.cyclic_share.copy()
        if self.plane_shares is not None:
            n_planes = self.plane_shares.shape[1]
            oranges = _shades(n_planes)
            for k in range(n_planes):
                share = self.plane_shares[:, k]
                segments.append((f"cyclic plane {k + 1}", share, oranges[k], None))
                cyclic_left = cyclic_left - share
            segments.append(
                ("cyclic, other planes", np.clip(cyclic_left, 0, None), "0.85", "//")
            )
        else:
            segments.append(("cyclic (rock-paper-scissors)", cyclic_left, "C1", None))
        left = np.zeros(n_games)
        self.bars_, self.texts_ = [], []
        for label, share, color, hatch in segments:
            bars = ax.barh(
                rows,
                share,
                left=left,
                color=color,
                hatch=hatch,
                edgecolor="white",
                height=0.6,
                label=label,
            )
            self.bars_.append(bars)
            if annotate:
                for row, start, width in zip(rows, left, share, strict=True):
                    if width >= min_annotated:
                        self.texts_.append(
                            ax.text(
                                start + width / 2,
                                row,
                                f"{100 * width:.0f}%",
                                ha="center",
                                va="center",
                                fontsize=8,
                            )
                        )
            left = left + share
        ax.set_yticks(rows)
        ax.set_yticklabels([str(g) for g in self.game_names])
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of the game's squared norm $\\|A\\|_F^2$")
        ax.set_title("Hodge decomposition: transitive vs cyclic", fontsize=10)
        ax.legend(
            fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False
        )
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_payoff(
        cls,
        payoffs,
        *,
        game_names=None,
        payoff="logit",
        clip=1e-3,
        n_planes=2,
        ax=None,
        **plot_kw,
    ):
        """Decompose one or several games and plot their shares.

        Parameters
        ----------
        payoffs : array-like of shape (n, n), or a list or dict of them
            Antisymmetric log-odds matrices (``payoff="logit"``) or win
            probabilities (``payoff="probability"``: ``P + P^T = 1`` off the
            diagonal; turned into log-odds after clipping to
            ``[clip, 1 - clip]``). A dict maps game names to matrices.
        game_names : array-like, default=None
            Labels (the dict keys for a dict).
        payoff : {"logit", "probability"}, default="logit"
        clip : float, default=1e-3
            Probability clipping before the logit.
        n_planes : int, default=2
            Number of leading cyclic planes drawn separately (0 for none).
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : HodgeDisplay
        """
        if isinstance(payoffs, dict):
            if game_names is None:
                game_names = list(payoffs)
            payoffs = list(payoffs.values())
        elif not _is_sequence_of_matrices(payoffs):
            payoffs = [payoffs]
        if payoff not in ("logit", "probability"):
            raise ValueError(
                f"payoff must be 'logit' or 'probability'; got {payoff!r}."
            )
        if (
            isinstance(n_planes, bool)
            or not isinstance(n_planes, int | np.integer)
            or n_planes < 0
        ):
            raise ValueError(
                f"n_planes must be a non-negative integer; got {n_planes!r}."
            )
        matrices = [
            _as_logits(P, clip, f"payoffs[{i}]")
            if payoff == "probability"
            else _antisymmetric(P, f"payoffs[{i}]")
            for i, P in enumerate(payoffs)
        ]
        return cls._from_logits(matrices, game_names, n_planes, ax, plot_kw)

    @classmethod
    def _from_logits(cls, matrices, game_names, n_planes, ax, plot_kw):
        from ..game import hodge_decomposition, schur_embedding

        shares, planes = [], []
        for A in matrices:
            h = hodge_decomposition(A)
            shares.append((h.transitive_share, h.cyclic_share))
            row = np.full(n_planes, np.nan)
            if n_planes:
                ratio = schur_embedding(A, n_planes).explained_variance_ratio
                row[: ratio.size] = ratio * h.cyclic_share
            planes.append(row)
        t, c = np.array(shares).T
        display = cls(
            t,
            c,
            plane_shares=np.array(planes) if n_planes else None,
            game_names=game_names,
        )
        return display.plot(ax=ax, **plot_kw)

    @classmethod
    def from_estimator(cls, estimator, *, name=None, n_planes=2, ax=None, **plot_kw):
        """Shares of the game of a fitted :class:`~sklearn_eval.game.NashAverager`.

        Agent vs agent: the decomposition of the fitted log-odds ``payoff_``.
        Agent vs task: the decomposition of the agent-and-task flow of
        section 3.3 (:func:`~sklearn_eval.game.avt_embedding` of the
        normalised scores), whose transitive share says how much of the
        scores agents' mean skill and tasks' mean difficulty explain.

        Parameters
        ----------
        estimator : NashAverager
            Fitted.
        name : str, default=None
            Label of the bar; the estimator's game when None.
        n_planes : int, default=2
            Number of leading cyclic planes drawn separately.
        ax : matplotlib Axes, default=None
        **plot_kw
            Passed to :meth:`plot`.

        Returns
        -------
        display : HodgeDisplay
        """
        from ..game import avt_embedding

        _check_fitted_attrs(estimator, ["payoff_"], "HodgeDisplay.from_estimator")
        A = np.asarray(estimator.payoff_, dtype=np.float64)
        avt = hasattr(estimator, "task_distribution_")
        if avt:
            A = avt_embedding(A).flow
        if name is None:
            name = "agents vs tasks" if avt else "agents vs agents"
        return cls._from_logits([A], [name], n_planes, ax, plot_kw)


def _shades(n):
    from matplotlib import colormaps

    cmap = colormaps["Oranges"]
    return [cmap(0.75 - 0.4 * k / max(n - 1, 1)) for k in range(n)]


def _antisymmetric(A, name):
    from ..utils import check_antisymmetric

    return check_antisymmetric(np.asarray(A, dtype=np.float64), name=name)


def _as_logits(P, clip, name):
    """Log-odds of a win-probability matrix (validated, symmetrised, clipped)."""
    from ..utils import check_square

    P = check_square(np.asarray(P, dtype=np.float64), name=name)
    off = ~np.eye(P.shape[0], dtype=bool)
    bad = off & ~((P >= 0) & (P <= 1))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} must hold win probabilities in [0, 1]; got {P[i, j]!r} at row "
            f"{i}, column {j}."
        )
    excess = np.where(off, np.abs(P + P.T - 1.0), 0.0)
    if excess.max() > 1e-6:
        i, j = np.argwhere(excess > 1e-6)[0]
        raise ValueError(
            f"{name} must satisfy P[i, j] + P[j, i] = 1; at row {i}, column {j}: "
            f"{P[i, j]!r} + {P[j, i]!r}."
        )
    if not 0 < clip < 0.5:
        raise ValueError(f"clip must be in (0, 0.5); got {clip!r}.")
    P = np.clip(0.5 * (P + 1.0 - P.T), clip, 1.0 - clip)
    A = np.log(P) - np.log1p(-P)
    np.fill_diagonal(A, 0.0)
    return 0.5 * (A - A.T)
