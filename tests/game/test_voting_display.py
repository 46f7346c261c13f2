"""Displays of alpha-Rank sweeps and voting outcomes."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from sklearn.exceptions import NotFittedError  # noqa: E402

from sklearn_eval.datasets import load_soccer  # noqa: E402
from sklearn_eval.game import AlphaRank, VotingRanker  # noqa: E402
from sklearn_eval.plotting import AlphaRankSweepDisplay, VotingDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def test_sweep_display_draws_the_stored_path_and_the_limit():
    ar = AlphaRank(game="agent_vs_agent").fit(load_soccer(as_frame=True).data)
    disp = AlphaRankSweepDisplay.from_estimator(ar, max_agents=4)
    assert len(disp.lines_) == 4
    top = np.argsort(-ar.alpha_path_[-1])[:4]
    for line, k in zip(disp.lines_, top, strict=True):
        np.testing.assert_allclose(line.get_ydata(), ar.alpha_path_[:, k])
        assert line.get_label() == ar.agents_[k]
    assert disp.ax_.get_xscale() == "log"


def test_sweep_display_on_requested_alphas_and_literal_labels():
    P = np.array([[0.5, 0.7, 0.2], [0.3, 0.5, 0.9], [0.8, 0.1, 0.5]])
    frame = pd.DataFrame(P, index=["$x$", "a_b", "c"], columns=["$x$", "a_b", "c"])
    ar = AlphaRank(game="agent_vs_agent", alpha=10.0).fit(frame)
    alphas = [0.1, 1.0, 10.0]
    disp = AlphaRankSweepDisplay.from_estimator(ar, alphas=alphas)
    np.testing.assert_allclose(disp.lines_[0].get_xdata(), alphas)
    texts = [t for t in disp.ax_.get_legend().get_texts()]
    assert {t.get_text() for t in texts} == {"$x$", "a_b", "c"}
    assert not any(t.get_parse_math() for t in texts)
    with pytest.raises(ValueError, match="positive"):
        AlphaRankSweepDisplay.from_estimator(ar, alphas=[0.0, 1.0])
    with pytest.raises(NotFittedError):
        AlphaRankSweepDisplay.from_estimator(AlphaRank())


def test_voting_display_orders_the_margin_matrix_by_the_ranking():
    X = pd.DataFrame(
        [[3.0, 1.0, 2.0, 5.0], [2.0, 3.0, 3.0, 6.0], [1.0, 2.0, 1.0, 1.0]],
        index=["$a$", "b", "c"],
    )
    vr = VotingRanker().fit(X)
    disp = VotingDisplay.from_estimator(vr)
    order = [list(vr.agents_).index(a) for a in vr.ranking_]
    np.testing.assert_array_equal(
        disp.image_.get_array(), vr.margin_matrix_[np.ix_(order, order)]
    )
    labels = [t.get_text() for t in disp.axes_[1].get_yticklabels()]
    assert labels == list(vr.ranking_)
    assert not any(t.get_parse_math() for t in disp.axes_[1].get_yticklabels())
    first = disp.axes_[0].get_yticklabels()[0].get_text()
    assert first == f"{vr.ranking_[0]} (Condorcet)" == "b (Condorcet)"
    with pytest.raises(NotFittedError):
        VotingDisplay.from_estimator(VotingRanker())
