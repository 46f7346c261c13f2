"""Game displays show the estimator's numbers: Nash, Hodge, the cyclic plane."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import NotFittedError

from sklearn_eval.datasets import load_atari, load_rrps, load_soccer
from sklearn_eval.game import (
    NashAverager,
    avt_embedding,
    complete_submatrix,
    hodge_decomposition,
)
from sklearn_eval.plotting import CyclicEmbeddingDisplay, HodgeDisplay, NashDisplay
from tests.plotting.drawing import (
    C4,
    LADDER,
    RPS,
    SUITE,
    heights,
    save,
    ticklabels,
    widths,
)


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
    assert ticklabels(ax.get_xticklabels()) == ["A", "C", "B"]
    np.testing.assert_allclose(
        heights(display.bars_["agent_distribution"][0]),
        [20 / 33, 13 / 33, 0],
        atol=1e-6,
    )
    uniform, nash = display.bars_["agent_average"]
    np.testing.assert_allclose(heights(uniform), [86, 84, 85])
    np.testing.assert_allclose(heights(nash), [2807 / 33, 2807 / 33, 85], atol=1e-6)
    # tasks: hardest first; Nash difficulty -S^T p_a, uniform -mean over agents
    t_uniform, t_nash = display.bars_["task_average"]
    np.testing.assert_allclose(
        np.sort(heights(t_nash))[::-1], np.sort(model.difficulty_)[::-1]
    )
    np.testing.assert_allclose(
        np.sort(heights(t_uniform)), np.sort(-SUITE.mean(axis=0))
    )
    np.testing.assert_allclose(
        heights(display.bars_["task_distribution"][0]).sum(), 1.0, atol=1e-9
    )
    assert display.lines_["agent_average"].get_ydata()[0] == pytest.approx(2807 / 33)
    assert display.lines_["task_average"].get_ydata()[0] == pytest.approx(-2807 / 33)
    assert ticklabels(display.axes_["task_distribution"].get_xticklabels())[0] in {
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
    masses = heights(display.bars_["agent_distribution"][0])
    labels = ticklabels(display.axes_["agent_distribution"].get_xticklabels())
    assert dict(zip(labels, masses.round(4), strict=True)) == {
        "rock": 0.3333,
        "paper": 0.3333,
        "scissors": 0.1667,
        "scissors2": 0.1667,
    }
    # the uniform average (row mean of log-odds) is fooled by the copy, Nash is not
    uniform, nash = display.bars_["agent_average"]
    np.testing.assert_allclose(heights(nash), 0.0, atol=1e-9)
    assert np.ptp(heights(uniform)) > 0.5
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
        p = heights(display.bars_[f"{side}_distribution"][0])
        u, n = (heights(c) for c in display.bars_[f"{side}_average"])
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
    masses = heights(display.bars_["agent_distribution"][0])
    np.testing.assert_allclose(np.sort(masses), np.sort(model.agent_distribution_))
    # sorted by Nash average: the support (all at the game value) comes first
    nash = heights(display.bars_["agent_average"][1])
    assert np.all(np.diff(nash) <= 1e-9)
    n_support = int(np.sum(model.agent_distribution_ > 1e-9))
    assert np.all(masses[:n_support] > 1e-9)
    labels = ticklabels(display.axes_["agent_distribution"].get_xticklabels())
    assert set(labels) == set(frame.index)
    save(display, tmp_path, "nash_atari")


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
    np.testing.assert_allclose(widths(display.bars_[1]), [1, 0, 2 / 3], atol=1e-12)
    np.testing.assert_allclose(widths(display.bars_[3]), 0, atol=1e-12)
    texts = sorted(t.get_text() for t in display.texts_)
    assert texts == sorted(["100%", "100%", "33%", "67%"])
    assert ticklabels(display.ax_.get_yticklabels()) == ["RPS", "ladder", "mixed"]
    assert display.ax_.get_xlim() == (0, 1)


@settings(max_examples=25, deadline=None)
@given(
    arrays(np.float64, (6, 6), elements=st.floats(-5, 5, allow_subnormal=False)),
    st.integers(0, 3),
)
@example(np.where(np.eye(6, k=1) * (np.arange(6) == 0)[:, None], 1.33e-167, 0.0), 0)
def test_hodge_display_segments_tile_the_unit_bar(M, n_planes):
    A = M - M.T
    display = HodgeDisplay.from_payoff(A, n_planes=n_planes)
    plt.close(display.figure_)
    total = sum(widths(c)[0] for c in display.bars_)
    h = hodge_decomposition(A)
    # shares are both 0 for the zero game, else they tile [0, 1] (also when
    # ||A||^2 itself would underflow: the shares are computed on A / max|A|)
    expected = 0.0 if not np.any(A) else 1.0
    assert total == pytest.approx(expected, abs=1e-9)
    assert widths(display.bars_[0])[0] == pytest.approx(h.transitive_share)
    if n_planes and np.any(A):
        planes = [widths(c)[0] for c in display.bars_[1 : 1 + n_planes]]
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
    assert ticklabels(from_est.ax_.get_yticklabels()) == ["soccer"]
    atari = complete_submatrix(load_atari("noop_matrix").data)
    avt = NashAverager(normalize="minmax").fit(atari)
    display = HodgeDisplay.from_estimator(avt)
    flow = avt_embedding(avt.payoff_).flow
    assert display.transitive_share[0] == pytest.approx(
        hodge_decomposition(flow).transitive_share
    )
    rrps = load_rrps().data
    games = {"soccer": ava.payoff_, "RRPS": (rrps - rrps.T) / 2}
    save(HodgeDisplay.from_payoff(games), tmp_path, "hodge")


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


def test_hodge_display_draws_on_the_given_axes():
    fig, ax = plt.subplots()
    display = HodgeDisplay(0.25, 0.75).plot(ax=ax)
    assert display.ax_ is ax and display.figure_ is fig
    assert len(display.bars_) == 2
    np.testing.assert_allclose(widths(display.bars_[0]), [0.25])
    with pytest.raises(TypeError, match="Axes"):
        display.plot(ax="not an axes")


def test_cyclic_embedding_of_soccer_win_probabilities(tmp_path):
    soccer = load_soccer()
    P = pd.DataFrame(soccer.data, index=soccer.agent_names)
    display = CyclicEmbeddingDisplay.from_payoff(P, kind="probability", arrows=5)
    assert len(display.arrows_) == 5
    assert {t.get_text() for t in display.texts_} == set(soccer.agent_names)
    save(display, tmp_path, "embedding_soccer")
