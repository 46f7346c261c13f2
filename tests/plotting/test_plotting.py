"""Tests for the matplotlib Display classes (sklearn_eval.plotting)."""

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import expit
from sklearn.exceptions import NotFittedError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sklearn_eval.datasets import (  # noqa: E402
    load_atari,
    load_automl_benchmark,
    load_rrps,
    load_soccer,
    load_vicuna80,
    make_irt_responses,
)
from sklearn_eval.game import (  # noqa: E402
    NashAverager,
    avt_embedding,
    complete_submatrix,
    hodge_decomposition,
)
from sklearn_eval.irt import IRT2PL, GeneralityScorer  # noqa: E402
from sklearn_eval.plotting import (  # noqa: E402
    AbilityGeneralityDisplay,
    AgentCurveDisplay,
    CyclicEmbeddingDisplay,
    HodgeDisplay,
    InfoGainDisplay,
    ItemCurveDisplay,
    NashDisplay,
    RatingTableDisplay,
)
from sklearn_eval.selection import InfoGainSelector  # noqa: E402

pd = pytest.importorskip("pandas")

RPS = np.array([[0.0, 1, -1], [-1, 0, 1], [1, -1, 0]])
LADDER = np.array([[0.0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
C4 = np.array([[0.0, 1, 0, -1], [-1, 0, 1, 0], [0, -1, 0, 1], [1, 0, -1, 0]])
SUITE = np.array([[89.0, 93, 76], [85, 85, 85], [79, 74, 99]])


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _heights(container):
    return np.array([bar.get_height() for bar in container])


def _widths(container):
    return np.array([bar.get_width() for bar in container])


def _ticklabels(labels):
    return [t.get_text() for t in labels]


def _save(display, tmp_path, name):
    path = tmp_path / f"{name}.png"
    display.figure_.savefig(path, dpi=60)
    assert path.stat().st_size > 5000
    return path


# ---------------------------------------------------------------------------
# optional dependency
# ---------------------------------------------------------------------------
def test_import_without_matplotlib_and_clear_error_when_drawing():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["matplotlib"] = None
        sys.modules["matplotlib.pyplot"] = None
        import sklearn_eval.plotting as plotting
        display = plotting.InfoGainDisplay(["a"], [1.0])
        try:
            display.plot()
        except ImportError as exc:
            assert "requires matplotlib" in str(exc), exc
            assert "sklearn-eval[plot]" in str(exc), exc
        else:
            raise AssertionError("no ImportError")
        print("ok")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# ---------------------------------------------------------------------------
# NashDisplay
# ---------------------------------------------------------------------------
def test_nash_display_avt_appendix_a_suite():
    model = NashAverager().fit(SUITE)
    display = NashDisplay.from_estimator(model, agent_names=["A", "B", "C"])
    assert set(display.axes_) == {
        "agent_distribution",
        "task_distribution",
        "agent_average",
        "task_average",
    }
    assert len(display.figure_.axes) == 4
    # agents sorted by Nash average (A and C tie at the value), then p
    ax = display.axes_["agent_distribution"]
    assert _ticklabels(ax.get_xticklabels()) == ["A", "C", "B"]
    np.testing.assert_allclose(
        _heights(display.bars_["agent_distribution"][0]),
        [20 / 33, 13 / 33, 0],
        atol=1e-6,
    )
    uniform, nash = display.bars_["agent_average"]
    np.testing.assert_allclose(_heights(uniform), [86, 84, 85])
    np.testing.assert_allclose(_heights(nash), [2807 / 33, 2807 / 33, 85], atol=1e-6)
    # tasks: hardest first; Nash difficulty -S^T p_a, uniform -mean over agents
    t_uniform, t_nash = display.bars_["task_average"]
    np.testing.assert_allclose(
        np.sort(_heights(t_nash))[::-1], np.sort(model.difficulty_)[::-1]
    )
    np.testing.assert_allclose(
        np.sort(_heights(t_uniform)), np.sort(-SUITE.mean(axis=0))
    )
    np.testing.assert_allclose(
        _heights(display.bars_["task_distribution"][0]).sum(), 1.0, atol=1e-9
    )
    assert display.lines_["agent_average"].get_ydata()[0] == pytest.approx(2807 / 33)
    assert display.lines_["task_average"].get_ydata()[0] == pytest.approx(-2807 / 33)
    assert _ticklabels(display.axes_["task_distribution"].get_xticklabels())[0] in {
        "task 0",
        "task 2",
    }


def test_nash_display_ava_rps_with_copy_from_data_frame():
    P = pd.DataFrame(
        [
            [0.5, 0.9, 0.1, 0.1],
            [0.1, 0.5, 0.9, 0.9],
            [0.9, 0.1, 0.5, 0.5],
            [0.9, 0.1, 0.5, 0.5],
        ],
        index=["rock", "paper", "scissors", "scissors2"],
        columns=["rock", "paper", "scissors", "scissors2"],
    )
    display = NashDisplay.from_data(P, game="agent_vs_agent", payoff="probability")
    assert set(display.axes_) == {"agent_distribution", "agent_average"}
    assert not display.has_tasks
    heights = _heights(display.bars_["agent_distribution"][0])
    labels = _ticklabels(display.axes_["agent_distribution"].get_xticklabels())
    assert dict(zip(labels, heights.round(4), strict=True)) == {
        "rock": 0.3333,
        "paper": 0.3333,
        "scissors": 0.1667,
        "scissors2": 0.1667,
    }
    # the uniform average (row mean of log-odds) is fooled by the copy, Nash is not
    uniform, nash = display.bars_["agent_average"]
    np.testing.assert_allclose(_heights(nash), 0.0, atol=1e-9)
    assert np.ptp(_heights(uniform)) > 0.5
    with pytest.raises(ValueError, match="agent vs task"):
        display.plot(panels="task_distribution")


@settings(max_examples=20, deadline=None)
@given(arrays(np.float64, (4, 5), elements=st.floats(0, 10, allow_subnormal=False)))
def test_nash_display_bars_match_estimator_on_random_games(S):
    model = NashAverager().fit(S)
    display = NashDisplay.from_estimator(model)
    for side, dist, nash, uniform in (
        ("agent", model.agent_distribution_, model.agent_skill_, S.mean(axis=1)),
        ("task", model.task_distribution_, model.difficulty_, -S.mean(axis=0)),
    ):
        p = _heights(display.bars_[f"{side}_distribution"][0])
        u, n = (_heights(c) for c in display.bars_[f"{side}_average"])
        assert p.sum() == pytest.approx(1.0)
        # one permutation orders the three panels consistently
        order = [
            int(t.get_text().split()[-1])
            for t in display.axes_[f"{side}_distribution"].get_xticklabels()
        ]
        np.testing.assert_allclose(p, dist[order], atol=1e-12)
        np.testing.assert_allclose(n, nash[order], atol=1e-12)
        np.testing.assert_allclose(u, uniform[order], atol=1e-12)
        assert np.all(np.diff(n) <= 1e-6 * max(1.0, np.abs(n).max()))
    plt.close(display.figure_)


def test_nash_display_honours_ax_and_panels():
    model = NashAverager().fit(SUITE)
    fig, axes = plt.subplots(1, 2)
    display = NashDisplay.from_estimator(
        model, ax=axes, panels=["task_distribution", "agent_average"]
    )
    assert display.axes_["task_distribution"] is axes[0]
    assert display.axes_["agent_average"] is axes[1]
    assert display.figure_ is fig
    fig2, ax = plt.subplots()
    display.plot(ax=ax, panels="agent_distribution", max_items=2)
    assert display.axes_ == {"agent_distribution": ax}
    assert len(display.bars_["agent_distribution"][0]) == 2
    assert "first 2 of 3" in ax.get_title()
    with pytest.raises(ValueError, match="4 panels"):
        display.plot(ax=ax)
    with pytest.raises(ValueError, match="exactly 2"):
        display.plot(ax=axes[:1], panels=["task_distribution", "agent_average"])
    with pytest.raises(ValueError, match="Unknown panel"):
        display.plot(panels="agents")
    with pytest.raises(ValueError, match="max_items"):
        display.plot(max_items=0)


def test_nash_display_bad_input():
    with pytest.raises(ValueError, match="probability distribution"):
        NashDisplay([0.5, 0.6], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="must have 2 entries"):
        NashDisplay([0.5, 0.5], [0, 0, 0], [0, 0])
    with pytest.raises(ValueError, match="agent_names must have 2"):
        NashDisplay([0.5, 0.5], [0, 0], [0, 0], agent_names=["a"])
    with pytest.raises(ValueError, match="all of task_distribution"):
        NashDisplay([0.5, 0.5], [0, 0], [0, 0], task_distribution=[1.0])
    with pytest.raises(ValueError, match="non-finite"):
        NashDisplay([0.5, 0.5], [np.nan, 0], [0, 0])
    with pytest.raises(NotFittedError):
        NashDisplay.from_estimator(NashAverager())
    with pytest.raises(ValueError, match="missing value"):
        NashDisplay.from_data([[1.0, np.nan], [0.0, 1.0]])


def test_nash_display_atari_real_data(tmp_path):
    atari = load_atari("noop_matrix")
    frame = pd.DataFrame(
        atari.data, index=atari.agent_names, columns=atari.feature_names
    )
    frame = complete_submatrix(frame)
    display = NashDisplay.from_data(frame, normalize="minmax")
    model = NashAverager(normalize="minmax").fit(frame)
    n_agents, n_tasks = frame.shape
    assert len(display.bars_["agent_distribution"][0]) == n_agents
    assert len(display.bars_["task_distribution"][0]) == n_tasks
    heights = _heights(display.bars_["agent_distribution"][0])
    np.testing.assert_allclose(np.sort(heights), np.sort(model.agent_distribution_))
    # sorted by Nash average: the support (all at the game value) comes first
    nash = _heights(display.bars_["agent_average"][1])
    assert np.all(np.diff(nash) <= 1e-9)
    n_support = int(np.sum(model.agent_distribution_ > 1e-9))
    assert np.all(heights[:n_support] > 1e-9)
    labels = _ticklabels(display.axes_["agent_distribution"].get_xticklabels())
    assert set(labels) == set(frame.index)
    _save(display, tmp_path, "nash_atari")


# ---------------------------------------------------------------------------
# HodgeDisplay
# ---------------------------------------------------------------------------
def test_hodge_display_reference_games():
    display = HodgeDisplay.from_payoff(
        [RPS, LADDER, RPS + 0.5 * LADDER], game_names=["RPS", "ladder", "mixed"]
    )
    np.testing.assert_allclose(display.transitive_share, [0, 1, 1 / 3], atol=1e-12)
    np.testing.assert_allclose(display.cyclic_share, [1, 0, 2 / 3], atol=1e-12)
    # transitive, plane 1, plane 2, rest of the cyclic part
    assert len(display.bars_) == 4
    assert all(len(c) == 3 for c in display.bars_)
    # bars are drawn top to bottom in the given order
    ys = [bar.get_y() for bar in display.bars_[0]]
    assert ys[0] > ys[1] > ys[2]
    # 3x3 games have rank 2: one plane carries the whole cyclic part
    np.testing.assert_allclose(_widths(display.bars_[1]), [1, 0, 2 / 3], atol=1e-12)
    np.testing.assert_allclose(_widths(display.bars_[3]), 0, atol=1e-12)
    texts = sorted(t.get_text() for t in display.texts_)
    assert texts == sorted(["100%", "100%", "33%", "67%"])
    assert _ticklabels(display.ax_.get_yticklabels()) == ["RPS", "ladder", "mixed"]
    assert display.ax_.get_xlim() == (0, 1)


@settings(max_examples=25, deadline=None)
@given(
    arrays(np.float64, (6, 6), elements=st.floats(-5, 5, allow_subnormal=False)),
    st.integers(0, 3),
)
def test_hodge_display_segments_tile_the_unit_bar(M, n_planes):
    A = M - M.T
    display = HodgeDisplay.from_payoff(A, n_planes=n_planes)
    plt.close(display.figure_)
    total = sum(_widths(c)[0] for c in display.bars_)
    h = hodge_decomposition(A)
    # shares are both 0 when ||A||^2 is 0 (or underflows), else they tile [0, 1]
    expected = 0.0 if np.sum(A * A) == 0 else 1.0
    assert total == pytest.approx(expected, abs=1e-9)
    assert _widths(display.bars_[0])[0] == pytest.approx(h.transitive_share)
    if n_planes and np.any(A):
        planes = [_widths(c)[0] for c in display.bars_[1 : 1 + n_planes]]
        assert all(a >= b - 1e-12 for a, b in zip(planes, planes[1:], strict=False))


def test_hodge_display_probability_and_estimators(tmp_path):
    soccer = load_soccer()
    ava = NashAverager(game="agent_vs_agent", payoff="probability").fit(soccer.data)
    from_p = HodgeDisplay.from_payoff(soccer.data, payoff="probability")
    from_est = HodgeDisplay.from_estimator(ava, name="soccer")
    h = hodge_decomposition(ava.payoff_)
    assert from_p.transitive_share[0] == pytest.approx(h.transitive_share)
    assert from_est.transitive_share[0] == pytest.approx(h.transitive_share)
    assert 0.5 < h.transitive_share < 0.9
    assert _ticklabels(from_est.ax_.get_yticklabels()) == ["soccer"]
    atari = complete_submatrix(load_atari("noop_matrix").data)
    avt = NashAverager(normalize="minmax").fit(atari)
    display = HodgeDisplay.from_estimator(avt)
    flow = avt_embedding(avt.payoff_).flow
    assert display.transitive_share[0] == pytest.approx(
        hodge_decomposition(flow).transitive_share
    )
    rrps = load_rrps().data
    games = {"soccer": ava.payoff_, "RRPS": (rrps - rrps.T) / 2}
    _save(HodgeDisplay.from_payoff(games), tmp_path, "hodge")


def test_hodge_display_bad_input_and_ax():
    with pytest.raises(ValueError, match="antisymmetric"):
        HodgeDisplay.from_payoff(LADDER + np.eye(3))
    with pytest.raises(ValueError, match=r"P\[i, j\] \+ P\[j, i\] = 1"):
        HodgeDisplay.from_payoff([[0.5, 0.7], [0.7, 0.5]], payoff="probability")
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        HodgeDisplay.from_payoff([[0.5, 1.5], [-0.5, 0.5]], payoff="probability")
    with pytest.raises(ValueError, match="must be 1"):
        HodgeDisplay(0.5, 0.3)
    with pytest.raises(ValueError, match="at most"):
        HodgeDisplay(0.5, 0.5, plane_shares=[[0.4, 0.3]])
    with pytest.raises(ValueError, match="n_planes"):
        HodgeDisplay.from_payoff(RPS, n_planes=-1)
    with pytest.raises(NotFittedError):
        HodgeDisplay.from_estimator(NashAverager())
    fig, ax = plt.subplots()
    display = HodgeDisplay(0.25, 0.75).plot(ax=ax)
    assert display.ax_ is ax and display.figure_ is fig
    assert len(display.bars_) == 2
    with pytest.raises(TypeError, match="Axes"):
        display.plot(ax="not an axes")


# ---------------------------------------------------------------------------
# CyclicEmbeddingDisplay
# ---------------------------------------------------------------------------
def test_cyclic_embedding_c4_circle_and_arrows():
    display = CyclicEmbeddingDisplay.from_payoff(C4, labels=list("ABCD"), arrows="all")
    # Fig. 3: the cyclic C4 lies on a circle centred at the origin
    radii = np.linalg.norm(display.coordinates, axis=1)
    np.testing.assert_allclose(radii, radii[0])
    # the plane reproduces the game exactly (C4 is cyclic of rank 2)
    np.testing.assert_allclose(display.cyclic_logits(), C4, atol=1e-12)
    assert display.explained_share == pytest.approx(1.0)
    assert len(display.arrows_) == 4
    coords = display.coordinates
    for arrow in display.arrows_:
        start = np.asarray(arrow.xyann)
        end = np.asarray(arrow.xy)
        i = int(np.argmin(np.linalg.norm(coords - start, axis=1)))
        j = int(np.argmin(np.linalg.norm(coords - end, axis=1)))
        assert C4[i, j] == 1  # winner -> loser
    assert [t.get_text() for t in display.texts_] == list("ABCD")
    assert len(display.scatter_.get_offsets()) == 4
    assert display.colorbar_ is not None  # coloured by div(A) (all 0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    arrays(np.float64, (5,), elements=st.floats(-3, 3)),
    arrays(np.float64, (5,), elements=st.floats(-3, 3)),
    arrays(np.float64, (5,), elements=st.floats(-3, 3)),
)
def test_cyclic_embedding_reproduces_rank_two_cyclic_games(u, v, r):
    u = u - u.mean()
    v = v - v.mean()
    cyclic = np.outer(u, v) - np.outer(v, u)
    if np.abs(cyclic).max() < 1e-3:
        return
    A = cyclic + (r[:, None] - r[None, :])
    display = CyclicEmbeddingDisplay(*_schur_plane(A), ratings=None, component=0)
    np.testing.assert_allclose(display.cyclic_logits(), cyclic, atol=1e-8)


def _schur_plane(A):
    display = CyclicEmbeddingDisplay.from_payoff(A, label_points=False)
    plt.close(display.figure_)
    return (display.coordinates,)


def test_cyclic_embedding_from_multi_elo_and_ax():
    from sklearn_eval.pairwise import MultiElo

    X = np.array([["rock", "scissors"], ["scissors", "paper"], ["paper", "rock"]] * 40)
    y = np.ones(len(X))
    melo = MultiElo(method="batch", random_state=0).fit(X, y)
    fig, ax = plt.subplots()
    display = CyclicEmbeddingDisplay.from_estimator(melo, ax=ax, arrows=2)
    assert display.ax_ is ax and display.figure_ is fig
    np.testing.assert_allclose(display.coordinates, melo.embedding(0))
    assert len(display.arrows_) == 2
    assert sorted(t.get_text() for t in display.texts_) == ["paper", "rock", "scissors"]
    # the plane's cross products predict the cycle: rock beats scissors etc.
    L = display.cyclic_logits()
    idx = {p: k for k, p in enumerate(melo.players_)}
    assert L[idx["rock"], idx["scissors"]] > 0
    assert L[idx["scissors"], idx["paper"]] > 0
    assert L[idx["paper"], idx["rock"]] > 0
    with pytest.raises(ValueError, match="component"):
        CyclicEmbeddingDisplay.from_estimator(melo, component=1)
    with pytest.raises(NotFittedError):
        CyclicEmbeddingDisplay.from_estimator(MultiElo())


def test_cyclic_embedding_bad_input(tmp_path):
    with pytest.raises(ValueError, match=r"shape \(n_players, 2\)"):
        CyclicEmbeddingDisplay(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="non-finite"):
        CyclicEmbeddingDisplay([[0.0, np.inf], [1.0, 0.0]])
    display = CyclicEmbeddingDisplay([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="arrows"):
        display.plot(arrows="some")
    with pytest.raises(ValueError, match="does not exist"):
        CyclicEmbeddingDisplay.from_payoff(LADDER)
    with pytest.raises(ValueError, match="antisymmetric"):
        CyclicEmbeddingDisplay.from_payoff(np.ones((3, 3)))
    soccer = load_soccer()
    P = pd.DataFrame(soccer.data, index=soccer.agent_names)
    display = CyclicEmbeddingDisplay.from_payoff(P, kind="probability", arrows=5)
    assert len(display.arrows_) == 5
    assert {t.get_text() for t in display.texts_} == set(soccer.agent_names)
    _save(display, tmp_path, "embedding_soccer")


# ---------------------------------------------------------------------------
# RatingTableDisplay
# ---------------------------------------------------------------------------
def test_rating_table_from_data():
    display = RatingTableDisplay.from_data(
        ["a", "b", "c", "d"],
        [1500.0, 1620.0, 1480.0, 1510.0],
        low=[1450, 1580, 1400, np.nan],
        high=[1550, 1660, 1530, np.nan],
        rank_low=[2, 1, 3, 2],
        rank_high=[4, 1, 4, 4],
    )
    ax = display.ax_
    assert _ticklabels(ax.get_yticklabels()) == ["b", "d", "a", "c"]
    # top row first: y positions decrease down the table
    xs, ys = display.points_.get_data()
    np.testing.assert_allclose(xs, [1620, 1510, 1500, 1480])
    assert np.all(np.diff(ys) < 0)
    segments = display.intervals_.get_segments()
    assert len(segments) == 4
    np.testing.assert_allclose(segments[0][:, 0], [1580, 1660])
    assert [t.get_text() for t in display.texts_] == [
        "rank 1",
        "rank 2\u20134",
        "rank 2\u20134",
        "rank 3\u20134",
    ]
    display.plot(max_items=2, show_ranks=False)
    assert len(display.points_.get_xdata()) == 2
    assert display.texts_ == []
    assert "best 2 of 4" in display.ax_.get_title()


def test_rating_table_bad_input():
    with pytest.raises(ValueError, match="both low and high"):
        RatingTableDisplay(["a"], [1.0], low=[0.0])
    with pytest.raises(ValueError, match="'b' has low"):
        RatingTableDisplay(["a", "b"], [1.0, 2.0], low=[0, 3], high=[2, 2.5])
    with pytest.raises(ValueError, match="labels must have 2"):
        RatingTableDisplay(["a"], [1.0, 2.0])
    with pytest.raises(ValueError, match="non-finite"):
        RatingTableDisplay(["a", "b"], [1.0, np.nan])
    with pytest.raises(TypeError, match="BootstrapResult"):
        RatingTableDisplay.from_result(np.zeros(3))


def test_rating_table_from_bootstrap_and_estimator(tmp_path):
    from sklearn_eval.pairwise import EloRanker
    from sklearn_eval.uncertainty import bootstrap_ranking

    data = load_vicuna80()
    result = bootstrap_ranking(
        EloRanker(method="batch"),
        data.data,
        data.target,
        statistic="ratings_",
        resample="matches",
        n_resamples=30,
        random_state=0,
    )
    fig, ax = plt.subplots()
    display = RatingTableDisplay.from_result(result, ax=ax)
    assert display.ax_ is ax and display.figure_ is fig
    n = len(result.labels)
    order = np.argsort(-result.estimate, kind="stable")
    assert _ticklabels(ax.get_yticklabels()) == [str(v) for v in result.labels[order]]
    assert len(display.texts_) == n
    assert len(display.intervals_.get_segments()) == n
    assert "95%" in ax.get_title()
    _save(display, tmp_path, "rating_table")
    elo = EloRanker(method="batch").fit(data.data, data.target)
    display = RatingTableDisplay.from_estimator(elo)
    assert display.intervals_ is None
    assert display.ax_.get_xlabel() == "Elo rating"
    assert (
        _ticklabels(display.ax_.get_yticklabels())[0]
        == elo.players_[np.argmax(elo.ratings_)]
    )
    with pytest.raises(NotFittedError):
        RatingTableDisplay.from_estimator(EloRanker())


# ---------------------------------------------------------------------------
# InfoGainDisplay
# ---------------------------------------------------------------------------
def _runs(random_state=0, n_agents=6, n_runs=20):
    rng = np.random.default_rng(random_state)
    agents = np.repeat([f"agent{k}" for k in range(n_agents)], n_runs)
    skill = np.repeat(np.arange(n_agents, dtype=float), n_runs)
    X = np.column_stack(
        [
            skill + rng.normal(0, 0.5, skill.size),
            rng.normal(0, 1, skill.size),
            (skill > 2.5) + rng.normal(0, 0.2, skill.size),
            (skill % 2) + rng.normal(0, 0.2, skill.size),
            -skill + rng.normal(0, 2.0, skill.size),
        ]
    )
    return pd.DataFrame(X, columns=[f"t{k}" for k in range(5)]), agents


def test_info_gain_display_from_selector():
    X, agents = _runs()
    selector = InfoGainSelector(n_tasks=4).fit(X, agents)
    fig, ax = plt.subplots()
    display = InfoGainDisplay.from_estimator(selector, ax=ax)
    assert display.ax_ is ax and display.figure_ is fig
    assert len(display.bars_) == 4
    np.testing.assert_allclose(display.line_.get_ydata(), selector.cumulative_gain_)
    np.testing.assert_allclose(
        _heights(display.bars_), selector.information_gain_[selector.selection_order_]
    )
    assert display.ceiling_.get_ydata()[0] == pytest.approx(np.log2(6))
    assert _ticklabels(ax.get_xticklabels()) == list(
        selector.tasks_[selector.selection_order_]
    )
    assert ax.get_ylim()[1] >= np.log2(6)
    display.plot(show_bars=False)
    assert display.bars_ is None
    best = InfoGainSelector(n_tasks=2, search="exhaustive").fit(X, agents)
    display = InfoGainDisplay.from_estimator(best)
    assert not display.greedy
    assert "exhaustive" in display.ax_.get_title()
    assert display.ax_.get_xlabel() == "selected task"


def test_info_gain_display_bad_input():
    with pytest.raises(ValueError, match="exceeds"):
        InfoGainDisplay(["a", "b"], [1.0, 2.5], max_information=2.0)
    with pytest.raises(ValueError, match="negative"):
        InfoGainDisplay(["a"], [-1.0])
    with pytest.raises(ValueError, match="empty"):
        InfoGainDisplay([], [])
    with pytest.raises(ValueError, match="task_names must have 2"):
        InfoGainDisplay(["a"], [1.0, 2.0])
    with pytest.raises(NotFittedError):
        InfoGainDisplay.from_estimator(InfoGainSelector())


def test_info_gain_display_automl_runs(tmp_path):
    frame = load_automl_benchmark("1h", "all", as_frame=True).frame
    runs = frame.pivot_table(
        index=["framework", "fold"], columns="task", values="result"
    )
    runs = runs.dropna(axis=1)
    agents = runs.index.get_level_values("framework")
    selector = InfoGainSelector(n_tasks=6).fit(runs, agents)
    display = InfoGainDisplay.from_estimator(selector)
    assert len(display.bars_) == 6
    assert display.max_information == pytest.approx(np.log2(agents.nunique()))
    _save(display, tmp_path, "infogain")


# ---------------------------------------------------------------------------
# IRT displays
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def irt_data():
    X = make_irt_responses(150, 16, random_state=0)
    X = pd.DataFrame(X, columns=[f"item{j}" for j in range(16)])
    X.index = [f"agent{i}" for i in range(150)]
    model = IRT2PL().fit(X)
    return X, model


def test_item_curve_display_default_selection(irt_data):
    X, model = irt_data
    display = ItemCurveDisplay.from_estimator(model)
    a, b = model.discrimination_, model.difficulty_
    positive = np.flatnonzero(a > 0)
    ranked = positive[np.argsort(-b[positive], kind="stable")]
    chosen = np.concatenate([ranked[:3], ranked[-3:]])
    assert len(display.lines_) == 6
    assert list(display.item_names) == list(X.columns[chosen])
    theta = display.lines_[0].get_xdata()
    assert theta[0] == -6 and theta[-1] == 6
    for line, j in zip(display.lines_, chosen, strict=True):
        np.testing.assert_allclose(line.get_ydata(), expit(a[j] * (theta - b[j])))
    labels = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert (
        labels[0] == f"{X.columns[chosen[0]]} [{b[chosen[0]]:.2f}, {a[chosen[0]]:.2f}]"
    )


def test_item_curve_display_selection_rules():
    names = ["in_hard", "flat", "in_easy", "sharp", "abstruse"]
    model = IRT2PL.from_item_params(
        [1.0, 0.01, 2.0, 8.0, -0.5], [0.5, 300.0, -1.0, 2.0, 1.0], item_names=names
    )
    display = ItemCurveDisplay.from_estimator(model, n_extreme=1)
    # the flat item's b = 300 lies far outside the ability range: not chosen
    assert list(display.item_names) == ["sharp", "in_easy"]
    display = ItemCurveDisplay.from_estimator(
        model, items="discrimination", n_extreme=1
    )
    assert list(display.item_names) == ["sharp", "flat"]
    display = ItemCurveDisplay.from_estimator(model, items="negative")
    assert list(display.item_names) == ["abstruse"]
    assert np.all(np.diff(display.lines_[0].get_ydata()) < 0)  # decreasing
    with pytest.raises(ValueError, match="not a rule"):
        ItemCurveDisplay.from_estimator(model, items="hardest")


def test_item_curve_display_empirical_responses_background(irt_data):
    X, model = irt_data
    scorer = GeneralityScorer(difficulty=model.difficulty_, bins=3).fit(X)
    fig, ax = plt.subplots()
    display = ItemCurveDisplay.from_estimator(
        model,
        X,
        items=["item3", 7],
        scorer=scorer,
        show_responses=True,
        show_all=True,
        n_ability_bins=4,
        ax=ax,
    )
    assert display.ax_ is ax and display.figure_ is fig
    assert list(display.item_names) == ["item3", "item7"]
    theta, _ = model.estimate_abilities(X)
    expected = scorer.item_curves(X, abilities=theta, bins=4)
    assert len(display.empirical_lines_) == 2
    np.testing.assert_allclose(
        display.empirical_lines_[1].get_ydata(), expected.success_rate[7]
    )
    np.testing.assert_allclose(
        display.empirical_lines_[0].get_xdata(), expected.ability_medians
    )
    ticks = display.response_lines_[0].get_ydata()
    assert len(ticks) == X.shape[0]
    assert np.all((np.abs(ticks - 1.05) < 0.1) | (np.abs(ticks + 0.05) < 0.1))
    n_high = np.sum(np.abs(ticks - 1.05) < 0.1)
    assert n_high == int(X["item3"].sum())
    assert len(display.background_lines_) == 14


def test_item_curve_display_bad_input(irt_data):
    X, model = irt_data
    with pytest.raises(ValueError, match="Unknown item 'nope'"):
        ItemCurveDisplay.from_estimator(model, items=["nope"])
    with pytest.raises(ValueError, match="out of range"):
        ItemCurveDisplay.from_estimator(model, items=[99])
    with pytest.raises(ValueError, match="X is needed"):
        ItemCurveDisplay.from_estimator(model, show_responses=True)
    with pytest.raises(ValueError, match="theta_range"):
        ItemCurveDisplay.from_estimator(model, theta_range=(2, -2))
    with pytest.raises(NotFittedError):
        ItemCurveDisplay.from_estimator(IRT2PL())
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ItemCurveDisplay([0, 1], [[0.2], [1.2]])
    with pytest.raises(ValueError, match="0, 1 or NaN"):
        ItemCurveDisplay(
            [0, 1], [[0.2], [0.8]], response_ability=[0.0], responses=[[0.5]]
        )
    Xc = X.copy()
    Xc["item0"] = 1.0
    with pytest.warns(UserWarning):
        constant = IRT2PL().fit(Xc)
    with pytest.raises(ValueError, match="left out of estimation"):
        ItemCurveDisplay.from_estimator(constant, items=["item0"])


def _t19_t20():
    difficulty = np.repeat([1.0, 2.0, 3.0, 4.0], 5)
    step = np.repeat([1.0, 1.0, 0.0, 0.0], 5)
    specialist = np.array([1, 1, 1, 0, 0] * 3 + [1, 0, 0, 0, 0], float)
    return difficulty, np.vstack([step, specialist])


def test_agent_curve_display_t19_t20():
    difficulty, X = _t19_t20()
    scorer = GeneralityScorer(difficulty=difficulty, bins="unique").fit(X)
    display = AgentCurveDisplay.from_estimator(
        scorer, X, agent_names=["step", "specialist"]
    )
    assert [line.get_label() for line in display.lines_] == ["step", "specialist"]
    np.testing.assert_allclose(display.lines_[0].get_ydata(), [1, 1, 0, 0])
    np.testing.assert_allclose(display.lines_[1].get_ydata(), [0.6, 0.6, 0.6, 0.2])
    np.testing.assert_allclose(display.lines_[1].get_xdata(), [1, 2, 3, 4])
    # within-bin variances: 0 for the step, p(1 - p) for the specialist
    np.testing.assert_allclose(display.variance[0], 0)
    np.testing.assert_allclose(display.variance[1], [0.24, 0.24, 0.24, 0.16])
    assert len(display.ribbons_) == 2
    assert len(display.rug_.get_xdata()) == 20
    display.plot(anchors=(0, 5), ribbon=False)
    np.testing.assert_allclose(display.lines_[0].get_xdata(), [0, 1, 2, 3, 4, 5])
    np.testing.assert_allclose(display.lines_[0].get_ydata(), [1, 1, 1, 0, 0, 0])
    assert display.ribbons_ == []
    with pytest.raises(ValueError, match="anchors must lie outside"):
        display.plot(anchors=(2, 5))


def test_agent_curve_display_selection_and_errors(irt_data):
    X, model = irt_data
    scorer = GeneralityScorer(
        difficulty=model.difficulty_, bins=4, min_tasks_per_bin=3
    ).fit(X)
    fig, ax = plt.subplots()
    display = AgentCurveDisplay.from_estimator(scorer, X, max_agents=5, ax=ax)
    assert display.ax_ is ax and display.figure_ is fig
    assert len(display.lines_) == 5
    mean = X.mean(axis=1).to_numpy()
    names = [line.get_label() for line in display.lines_]
    assert names[0] == X.index[np.argmax(mean)]
    assert mean[list(X.index).index(names[-1])] == mean.min()
    display = AgentCurveDisplay.from_estimator(scorer, X, agents=["agent3", 5])
    assert [line.get_label() for line in display.lines_] == ["agent3", "agent5"]
    with pytest.raises(ValueError, match="Unknown agent"):
        AgentCurveDisplay.from_estimator(scorer, X, agents=["agent999"])
    with pytest.raises(ValueError, match=r"success rates in \[0, 1\]"):
        AgentCurveDisplay([1, 2], [[0.5, 1.5]])
    with pytest.raises(ValueError, match="shape"):
        AgentCurveDisplay([1, 2, 3], [[0.5, 0.5]])
    with pytest.raises(NotFittedError):
        AgentCurveDisplay.from_estimator(GeneralityScorer(), X)


def test_agent_curve_display_theoretical_curves(irt_data):
    X, model = irt_data
    from sklearn.frozen import FrozenEstimator

    scorer = GeneralityScorer(
        difficulty=FrozenEstimator(model), bins=4, min_tasks_per_bin=3
    ).fit(X)
    display = AgentCurveDisplay.from_estimator(
        scorer, X, agents=[0, 1, 2], theoretical="mean"
    )
    a = model.discrimination_
    assert display.slope == pytest.approx(a[a >= 0].mean())
    theta, _ = model.estimate_abilities(X)
    np.testing.assert_allclose(display.abilities, theta[:3])
    assert len(display.theoretical_lines_) == 3
    curve = display.theoretical_lines_[1]
    h = curve.get_xdata()
    np.testing.assert_allclose(curve.get_ydata(), expit(display.slope * (theta[1] - h)))
    assert np.all(np.diff(curve.get_ydata()) <= 0)  # decreasing in difficulty
    display = AgentCurveDisplay.from_estimator(
        scorer, X, agents=[0], theoretical=1.0, abilities=np.zeros(len(X))
    )
    assert display.theoretical_lines_[0].get_ydata()[0] > 0.5
    display.plot(theoretical=False)
    assert display.theoretical_lines_ == []
    plain = GeneralityScorer(difficulty=model.difficulty_, bins=4).fit(X)
    with pytest.raises(ValueError, match="need abilities"):
        AgentCurveDisplay.from_estimator(plain, X, theoretical=1.0)
    with pytest.raises(ValueError, match="'mean'"):
        AgentCurveDisplay.from_estimator(scorer, X, theoretical="median")


def test_ability_generality_display_infinite_at_top_edge():
    difficulty, X = _t19_t20()
    scorer = GeneralityScorer(difficulty=difficulty, bins="unique").fit(X)
    display = AbilityGeneralityDisplay.from_estimator(
        scorer, X, agent_names=["step", "specialist"]
    )
    assert display.ax_.get_xlabel() == "capability"
    assert np.isinf(display.generality[0])
    assert display.generality[1] == pytest.approx(1.13636, abs=1e-5)
    finite = display.scatter_.get_offsets()
    infinite = display.infinite_scatter_.get_offsets()
    assert len(finite) == 1 and len(infinite) == 1
    assert infinite[0][1] == pytest.approx(display.ax_.get_ylim()[1])
    assert infinite[0][1] > finite[0][1]
    assert [t.get_text() for t in display.texts_] == ["step", "specialist"]
    legend = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert legend == ["generality = \u221e (drawn at the top edge)"]
    fig, ax = plt.subplots()
    display.plot(ax=ax, label_points=False)
    assert display.ax_ is ax and display.figure_ is fig
    assert display.texts_ == []


def test_ability_generality_display_data_and_errors():
    display = AbilityGeneralityDisplay.from_data(
        [0.0, 1.0, np.nan, 2.0],
        [2.0, 4.0, 1.0, np.nan],
        agent_names=list("abcd"),
        yscale="log",
    )
    assert list(display.missing_) == ["c", "d"]
    assert display.infinite_scatter_ is None
    assert display.ax_.get_yscale() == "log"
    assert len(display.texts_) == 2
    assert "2 agent(s) with NaN" in display.ax_.get_title()
    with pytest.raises(ValueError, match="non-negative"):
        AbilityGeneralityDisplay([0.0], [-1.0])
    with pytest.raises(ValueError, match="yscale"):
        display.plot(yscale="symlog")
    difficulty, X = _t19_t20()
    scorer = GeneralityScorer(difficulty=difficulty, bins="unique").fit(X)
    with pytest.raises(ValueError, match="x='ability' needs"):
        AbilityGeneralityDisplay.from_estimator(scorer, X, x="ability")
    with pytest.raises(ValueError, match="not an indicator"):
        AbilityGeneralityDisplay.from_estimator(scorer, X, y="height")
    display = AbilityGeneralityDisplay.from_estimator(
        scorer, X, x="ability", abilities=[1.0, -1.0], y="spread_generality"
    )
    np.testing.assert_allclose(display.ability, [1.0, -1.0])
    assert display.ax_.get_ylabel() == "spread generality"


# ---------------------------------------------------------------------------
# real data: the paper's ALE responses (GPL/unlicensed: read from shared_dir)
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ale(request):
    shared_dir = request.getfixturevalue("shared_dir")
    path = shared_dir / "data" / "irt_fixtures" / "ale_binary.csv"
    if not path.exists():
        pytest.skip("ale_binary.csv not in the shared data")
    X = pd.read_csv(path, index_col=0)
    with warnings.catch_warnings():
        # near-Guttman ALE items: |a| > 10 is expected (spec 7.6)
        warnings.filterwarnings("ignore", message=".*discrimination.*> 10")
        model = IRT2PL().fit(X)
    return X, model


@pytest.mark.filterwarnings("ignore:1 bin.s. hold fewer")
def test_irt_displays_on_ale(ale, tmp_path):
    from sklearn.frozen import FrozenEstimator

    X, model = ale
    assert X.shape == (40, 41)
    scorer = GeneralityScorer(
        difficulty=FrozenEstimator(model), bins=[-11, -1, 0, 1, 10]
    ).fit(X)
    icc = ItemCurveDisplay.from_estimator(
        model, X, scorer=scorer, show_responses=True, show_all=True
    )
    # Fig. 4: the three hardest positive-discrimination items include H.E.R.O
    # and Seaquest; the easiest include Atlantis and Boxing
    hardest, easiest = list(icc.item_names[:3]), list(icc.item_names[3:])
    assert {"H.E.R.O", "Seaquest"} <= set(hardest)
    assert {"Atlantis", "Boxing"} <= set(easiest)
    assert len(icc.background_lines_) == int(np.sum(np.isfinite(model.difficulty_))) - 6
    _save(icc, tmp_path, "icc_ale")
    abstruse = ItemCurveDisplay.from_estimator(model, items="negative")
    assert set(abstruse.item_names) == set(model.negative_items_)
    assert len(abstruse.lines_) == len(model.negative_items_) >= 1
    acc = AgentCurveDisplay.from_estimator(scorer, X)
    assert len(acc.lines_) == 6
    assert len(acc.lines_[0].get_xdata()) == 4
    _save(acc, tmp_path, "acc_ale")
    scatter = AbilityGeneralityDisplay.from_estimator(scorer, X)
    assert scatter.ax_.get_xlabel() == "ability"
    theta, _ = model.estimate_abilities(X)
    np.testing.assert_allclose(scatter.ability, theta)
    assert len(scatter.texts_) == 40
    assert {t.get_text() for t in scatter.texts_} == set(X.index)
    _save(scatter, tmp_path, "ability_generality_ale")
