"""Every Display draws the labels the ranking protocol gives it.

The user guide's ranking protocol (``agents_``, ``agent_scores_``,
``agent_table()``, ``tasks_``, ``task_table()``) is the only way a display
learns who and what it draws. Each ranker of the library is fitted on
labelled data (a DataFrame indexed by model names, or matches between named
players) and every display that accepts it must show every agent's (and
task's) label, never a positional ``"agent 3"``.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text
from sklearn.exceptions import NotFittedError

from sklearn_eval import plotting
from sklearn_eval.game import AlphaRank, NashAverager, VotingRanker
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.selection import InfoGainSelector

AGENTS = ["gpt-x", "claude-y", "llama-z", "mistral-w", "qwen-v"]
TASKS = ["algebra", "biology", "chess", "drawing", "essays", "french"]


def _scores(seed=0):
    rng = np.random.default_rng(seed)
    skill = np.linspace(1.0, -1.0, len(AGENTS))[:, None]
    noise = rng.normal(0, 1, (len(AGENTS), len(TASKS)))
    values = 1.0 / (1.0 + np.exp(-(skill + noise)))
    return pd.DataFrame(values, index=AGENTS, columns=TASKS)


def _win_rates():
    skill = np.linspace(1.0, -1.0, len(AGENTS))
    P = 1.0 / (1.0 + np.exp(-(skill[:, None] - skill[None, :])))
    # a cyclic part so alpha-Rank and Nash have more than one agent in play
    P[0, 1], P[1, 0] = 0.3, 0.7
    return pd.DataFrame(P, index=AGENTS, columns=AGENTS)


def _binary(seed=0):
    rng = np.random.default_rng(seed)
    n_agents = 60
    theta = rng.normal(0, 1, n_agents)
    b = np.linspace(-1.5, 1.5, len(TASKS))
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b)))
    X = (rng.random(p.shape) < p).astype(float)
    names = [f"{AGENTS[i % len(AGENTS)]}#{i}" for i in range(n_agents)]
    return pd.DataFrame(X, index=names, columns=TASKS)


def _matches(seed=0):
    rng = np.random.default_rng(seed)
    skill = dict(zip(AGENTS, np.linspace(1.0, -1.0, len(AGENTS)), strict=True))
    pairs = [(a, b) for a in AGENTS for b in AGENTS if a != b] * 6
    X = np.array(pairs, dtype=object)
    p = np.array([1 / (1 + np.exp(-(skill[a] - skill[b]))) for a, b in pairs])
    y = (rng.random(len(pairs)) < p).astype(float)
    return X, y


def _fit(name):
    if name == "elo-online":
        return EloRanker().fit(*_matches())
    if name == "elo-batch":
        return EloRanker(method="batch").fit(*_matches())
    if name == "melo":
        return MultiElo(n_components=1, method="batch", random_state=0).fit(
            *_matches()
        )
    if name == "nash-avt":
        return NashAverager().fit(_scores())
    if name == "nash-ava":
        return NashAverager(game="agent_vs_agent", payoff="probability").fit(
            _win_rates()
        )
    if name == "alpharank-avt":
        return AlphaRank(game="agent_vs_task").fit(_scores())
    if name == "alpharank-ava":
        return AlphaRank(game="agent_vs_agent").fit(_win_rates())
    if name == "voting":
        return VotingRanker().fit(_scores())
    if name == "irt":
        return IRT2PL(random_state=0).fit(_binary())
    if name == "generality":
        return GeneralityScorer(difficulty=np.arange(len(TASKS)), bins="unique").fit(
            _binary()
        )
    raise AssertionError(name)


pytestmark = pytest.mark.filterwarnings("ignore:.*bin\\(s\\) hold fewer:UserWarning")

RANKERS = [
    "elo-online", "elo-batch", "melo", "nash-avt", "nash-ava", "alpharank-avt",
    "alpharank-ava", "voting", "irt", "generality",
]
_CACHE = {}


def fitted(name):
    if name not in _CACHE:
        _CACHE[name] = _fit(name)
    return _CACHE[name]


def drawn_texts(display):
    figure = display.figure_
    return [t.get_text() for t in figure.findobj(Text) if t.get_text()]


def assert_shows(display, labels):
    texts = drawn_texts(display)
    missing = [str(label) for label in labels
               if not any(str(label) in text for text in texts)]
    assert not missing, f"labels not drawn: {missing[:5]}"
    assert not any(text.startswith(("agent ", "task ", "item ")) and
                   text.split(" ", 1)[1].isdigit() for text in texts)


@pytest.mark.parametrize("name", RANKERS)
def test_rating_table_draws_any_ranker_by_its_agent_labels(name):
    model = fitted(name)
    display = plotting.RatingTableDisplay.from_estimator(model)
    assert_shows(display, model.agents_)
    table = model.agent_table()
    # the bars are the protocol's scores, label by label
    shown = dict(zip(display.labels, display.estimate, strict=True))
    for label, score in table["score"].items():
        assert shown[label] == pytest.approx(score)


@pytest.mark.parametrize("name", ["nash-avt", "nash-ava"])
def test_nash_display_names_agents_and_tasks_from_the_protocol(name):
    model = fitted(name)
    display = plotting.NashDisplay.from_estimator(model)
    assert_shows(display, model.agents_)
    if name == "nash-avt":
        assert_shows(display, model.tasks_)


def test_nash_display_on_a_frame_indexed_by_model_names():
    """A DataFrame's index names the agents (the bug this guards drew ``agent 3``)."""
    frame = _scores()
    display = plotting.NashDisplay.from_estimator(NashAverager().fit(frame))
    assert_shows(display, frame.index)
    assert_shows(display, frame.columns)


def test_nash_display_on_an_array_keeps_positional_defaults():
    display = plotting.NashDisplay.from_estimator(NashAverager().fit(_scores().values))
    texts = drawn_texts(display)
    assert any(text == "agent 0" for text in texts)
    assert any(text == "task 0" for text in texts)


@pytest.mark.parametrize("name", ["nash-avt", "nash-ava"])
def test_hodge_display_draws_every_nash_game(name):
    display = plotting.HodgeDisplay.from_estimator(fitted(name))
    assert len(drawn_texts(display)) > 0


def test_embedding_display_labels_the_multielo_players():
    model = MultiElo(n_components=1, method="batch", random_state=0).fit(*_matches())
    display = plotting.CyclicEmbeddingDisplay.from_estimator(model)
    assert_shows(display, model.agents_)


@pytest.mark.parametrize("name", ["alpharank-avt", "alpharank-ava"])
def test_alpharank_sweep_labels_the_agents(name):
    model = fitted(name)
    display = plotting.AlphaRankSweepDisplay.from_estimator(
        model, alphas=[0.1, 1.0, 10.0]
    )
    assert_shows(display, model.agents_)


def test_voting_display_labels_the_agents():
    model = fitted("voting")
    display = plotting.VotingDisplay.from_estimator(model)
    assert_shows(display, model.agents_)


def test_item_curve_display_labels_the_items_from_tasks():
    model = fitted("irt")
    display = plotting.ItemCurveDisplay.from_estimator(
        model, items=[0, 1, 2], n_points=41
    )
    assert_shows(display, model.tasks_[:3])


def test_generality_displays_label_the_agents_of_the_frame():
    model = fitted("generality")
    frame = _binary()
    display = plotting.AgentCurveDisplay.from_estimator(model, frame, agents=[0, 1, 2])
    assert_shows(display, frame.index[:3])
    display = plotting.AbilityGeneralityDisplay.from_estimator(model, frame)
    assert isinstance(display.figure_, plt.Figure)


def test_infogain_display_labels_the_tasks():
    rng = np.random.default_rng(0)
    agents = np.repeat(AGENTS, 20)
    skill = np.repeat(np.linspace(0, 3, len(AGENTS)), 20)
    X = pd.DataFrame(
        (rng.random((skill.size, 4)) < 1 / (1 + np.exp(-(skill[:, None] - 1.5))))
        .astype(float),
        columns=TASKS[:4],
    )
    model = InfoGainSelector(n_tasks=2).fit(X, agents)
    display = plotting.InfoGainDisplay.from_estimator(model)
    assert_shows(display, [TASKS[k] for k in model.selection_order_])


@pytest.mark.parametrize("cls", [plotting.RatingTableDisplay, plotting.NashDisplay])
def test_unfitted_estimators_raise_not_fitted(cls):
    with pytest.raises(NotFittedError):
        cls.from_estimator(NashAverager())
