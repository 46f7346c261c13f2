"""Agent, task, item and game names are drawn as they are, never as math text.

matplotlib parses a string with an even number of unescaped ``$`` as math
text: a name such as ``$x^$`` or ``$\\foo$`` then fails to draw (and with
``text.usetex`` every name goes to TeX). Every display must show such names
literally: the figure draws, every name appears verbatim, and every Text
artist showing one has math text and TeX off.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matplotlib.text import Text

from sklearn_eval import plotting
from sklearn_eval.game import NashAverager
from sklearn_eval.irt import IRT2PL
from tests.plotting.drawing import C4, SUITE

# a marker no display writes itself, so the texts showing a name are known
MARK = "\u00a7"
KNOWN_HOSTILE = [
    "$x^$",
    "$\\foo$",
    "$$",
    "\\$",
    "a$b$c",
    "$\\frac{1}{$",
    "$_$",
    "${}$",
    "$\\\\$",
    "50% & #1 ~ _x_ ^y^",
    "$\\mathrm{$",
    "<b>&amp;</b>",
]
hostile = st.one_of(
    st.sampled_from(KNOWN_HOSTILE),
    st.text(alphabet="$\\^_{}%#&~ax1 ", min_size=1, max_size=10),
).map(lambda text: MARK + text)
names = st.lists(hostile, min_size=7, max_size=7, unique=True)


@pytest.fixture(scope="module")
def nash_model():
    return NashAverager().fit(SUITE)


def _nash(labels, nash_model):
    return plotting.NashDisplay.from_estimator(
        nash_model, agent_names=labels[:3], task_names=labels[3:6]
    )


def _hodge(labels, nash_model):
    return plotting.HodgeDisplay.from_payoff(
        {labels[0]: C4, labels[1]: C4.T}, n_planes=1
    )


def _cyclic(labels, nash_model):
    return plotting.CyclicEmbeddingDisplay.from_payoff(C4, labels=labels[:4])


def _ratings(labels, nash_model):
    return plotting.RatingTableDisplay.from_data(
        labels[:4],
        [1.0, 2.0, 3.0, 4.0],
        low=[0.5, 1.5, 2.5, 3.5],
        high=[1.5, 2.5, 3.5, 4.5],
        rank_low=[3, 2, 1, 1],
        rank_high=[4, 3, 2, 1],
    )


def _info_gain(labels, nash_model):
    return plotting.InfoGainDisplay(
        labels[:3], [1.0, 1.5, 1.8], task_gain=[1.0, 0.7, 0.2], max_information=2.0
    ).plot()


def _item_curves(labels, nash_model):
    model = IRT2PL.from_item_params([1.0, 2.0, 0.5, 1.5], [-1.0, 0.0, 1.0, 2.0])
    return plotting.ItemCurveDisplay.from_estimator(
        model, items=[0, 1, 2, 3], item_names=labels[:4], show_all=True
    )


def _agent_curves(labels, nash_model):
    return plotting.AgentCurveDisplay(
        [1.0, 2.0, 3.0],
        [[1.0, 0.5, 0.0], [0.8, 0.6, 0.4]],
        agent_names=labels[:2],
        variance=[[0.0, 0.25, 0.0], [0.16, 0.24, 0.24]],
        abilities=[2.0, 1.0],
    ).plot()


def _ability_generality(labels, nash_model):
    return plotting.AbilityGeneralityDisplay.from_data(
        [0.0, 1.0, 2.0], [1.0, np.inf, 3.0], agent_names=labels[:3]
    )


def _missing_results(labels, nash_model):
    X = np.array([[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]])
    return plotting.MissingResultsDisplay.from_data(X)


def _alpharank_sweep(labels, nash_model):
    from sklearn_eval.game import AlphaRank

    P = np.array([[0.5, 0.8, 0.3], [0.2, 0.5, 0.9], [0.7, 0.1, 0.5]])
    frame = pd.DataFrame(P, index=labels[:3], columns=labels[:3])
    model = AlphaRank(game="agent_vs_agent").fit(frame)
    return plotting.AlphaRankSweepDisplay.from_estimator(model)


def _voting(labels, nash_model):
    from sklearn_eval.game import VotingRanker

    X = pd.DataFrame([[3.0, 1.0, 2.0], [2.0, 3.0, 3.0], [1.0, 2.0, 1.0]],
                     index=labels[:3])
    return plotting.VotingDisplay.from_estimator(VotingRanker().fit(X))


def _rank_sets(labels, nash_model):
    return plotting.RankSetDisplay(
        labels[:4], [1, 2, 2, 4], [1, 1, 2, 3], [2, 3, 4, 4], [1, 1, 2, 2],
        confidence_level=0.95,
    ).plot()


# the names each factory draws (MissingResultsDisplay draws no name)
FACTORIES = {
    "NashDisplay": (_nash, slice(0, 6)),
    "HodgeDisplay": (_hodge, slice(0, 2)),
    "CyclicEmbeddingDisplay": (_cyclic, slice(0, 4)),
    "RatingTableDisplay": (_ratings, slice(0, 4)),
    "InfoGainDisplay": (_info_gain, slice(0, 3)),
    "ItemCurveDisplay": (_item_curves, slice(0, 4)),
    "AgentCurveDisplay": (_agent_curves, slice(0, 2)),
    "AbilityGeneralityDisplay": (_ability_generality, slice(0, 3)),
    "MissingResultsDisplay": (_missing_results, slice(0, 0)),
    "AlphaRankSweepDisplay": (_alpharank_sweep, slice(0, 3)),
    "VotingDisplay": (_voting, slice(0, 3)),
    "RankSetDisplay": (_rank_sets, slice(0, 4)),
}


def test_every_display_is_checked():
    assert set(FACTORIES) == set(plotting.__all__)


@pytest.mark.parametrize("name", sorted(FACTORIES))
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(labels=names)
def test_hostile_names_are_drawn_verbatim(name, labels, nash_model):
    factory, shown = FACTORIES[name]
    display = factory(labels, nash_model)
    figure = display.figure_
    try:
        figure.canvas.draw()  # math text would be parsed (and fail) here
        texts = [t for t in figure.findobj(Text) if t.get_visible()]
        marked = [t for t in texts if MARK in t.get_text()]
        for text in marked:
            assert not text.get_parse_math(), text.get_text()
            assert not text.get_usetex(), text.get_text()
        drawn = [t.get_text() for t in marked]
        for label in labels[shown]:
            assert any(label in text for text in drawn), (label, drawn)
    finally:
        plt.close(figure)


@pytest.mark.parametrize("label", ["$x^$", "$\\foo$"])
def test_the_reported_names_draw(label):
    display = plotting.RatingTableDisplay.from_data([label, "b"], [1.0, 2.0])
    display.figure_.canvas.draw()
    assert label in [t.get_text() for t in display.ax_.get_yticklabels()]
