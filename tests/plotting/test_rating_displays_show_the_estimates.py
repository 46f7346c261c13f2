"""Rating and selection displays show the estimates: rating tables, information gain."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from sklearn_eval.datasets import load_automl_benchmark, load_vicuna80
from sklearn_eval.plotting import InfoGainDisplay, RatingTableDisplay
from sklearn_eval.selection import InfoGainSelector
from tests.plotting.drawing import heights, save, ticklabels


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
    assert ticklabels(ax.get_yticklabels()) == ["b", "d", "a", "c"]
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
    assert ticklabels(ax.get_yticklabels()) == [str(v) for v in result.labels[order]]
    assert len(display.texts_) == n
    assert len(display.intervals_.get_segments()) == n
    assert "95%" in ax.get_title()
    save(display, tmp_path, "rating_table")
    elo = EloRanker(method="batch").fit(data.data, data.target)
    display = RatingTableDisplay.from_estimator(elo)
    assert display.intervals_ is None
    assert display.ax_.get_xlabel() == "Elo rating"
    assert (
        ticklabels(display.ax_.get_yticklabels())[0]
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
        heights(display.bars_), selector.information_gain_[selector.selection_order_]
    )
    assert display.ceiling_.get_ydata()[0] == pytest.approx(np.log2(6))
    assert ticklabels(ax.get_xticklabels()) == list(
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
    save(display, tmp_path, "infogain")


def test_info_gain_display_names_tasks_of_an_array_fit():
    X, agents = _runs()
    selector = InfoGainSelector(n_tasks=3).fit(X.to_numpy(), agents)
    names = np.array([f"task <{k}>" for k in range(X.shape[1])], dtype=object)
    display = InfoGainDisplay.from_estimator(selector, task_names=names)
    assert ticklabels(display.ax_.get_xticklabels()) == list(
        names[selector.selection_order_]
    )
    with pytest.raises(ValueError, match="task_names must have 5"):
        InfoGainDisplay.from_estimator(selector, task_names=names[:2])
