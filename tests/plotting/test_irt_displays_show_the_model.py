"""IRT displays draw the model: item curves, agent curves, ability vs generality."""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.plotting import (
    AbilityGeneralityDisplay,
    AgentCurveDisplay,
    ItemCurveDisplay,
)
from tests.plotting.drawing import save, t19_t20


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


def test_agent_curve_display_t19_t20():
    difficulty, X = t19_t20()
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
    with pytest.raises(NotFittedError):
        AgentCurveDisplay.from_estimator(GeneralityScorer(), X)


def test_agent_curve_display_theoretical_curves(irt_data):
    X, model = irt_data

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
    difficulty, X = t19_t20()
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
    with pytest.raises(ValueError, match="yscale"):
        display.plot(yscale="symlog")
    difficulty, X = t19_t20()
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
        # near-Guttman ALE items: |a| > 10 is expected (user guide, IRT, Pitfalls)
        warnings.filterwarnings("ignore", message=".*discrimination.*> 10")
        model = IRT2PL().fit(X)
    return X, model


@pytest.mark.filterwarnings("ignore:1 bin.s. hold fewer")
def test_irt_displays_on_ale(ale, tmp_path):

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
    save(icc, tmp_path, "icc_ale")
    abstruse = ItemCurveDisplay.from_estimator(model, items="negative")
    assert set(abstruse.item_names) == set(model.negative_items_)
    assert len(abstruse.lines_) == len(model.negative_items_) >= 1
    acc = AgentCurveDisplay.from_estimator(scorer, X)
    assert len(acc.lines_) == 6
    assert len(acc.lines_[0].get_xdata()) == 4
    save(acc, tmp_path, "acc_ale")
    scatter = AbilityGeneralityDisplay.from_estimator(scorer, X)
    assert scatter.ax_.get_xlabel() == "ability"
    theta, _ = model.estimate_abilities(X)
    np.testing.assert_allclose(scatter.ability, theta)
    assert len(scatter.texts_) == 40
    assert {t.get_text() for t in scatter.texts_} == set(X.index)
    save(scatter, tmp_path, "ability_generality_ale")


def _direct_bin_variance(X, task_bin, weights, n_bins):
    """Weighted population variance of each agent's results in each bin."""
    variance = np.full((X.shape[0], n_bins), np.nan)
    for i in range(X.shape[0]):
        for h in range(n_bins):
            tasks = (task_bin == h) & ~np.isnan(X[i]) & (weights > 0)
            if tasks.any():
                x, w = X[i, tasks], weights[tasks]
                mean = np.sum(w * x) / w.sum()
                variance[i, h] = np.sum(w * (x - mean) ** 2) / w.sum()
    return variance


@pytest.mark.parametrize("threshold", [None, 0.5])
def test_agent_curve_ribbons_are_the_within_bin_variances(threshold):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(7, 24))
    X[rng.uniform(size=X.shape) < 0.2] = np.nan
    X[0, :6] = np.nan  # agent 0 sees nothing in the easiest bin
    difficulty = np.repeat([1.0, 2.0, 3.0, 4.0], 6)
    weights = rng.uniform(0.5, 2.0, size=24)
    scorer = GeneralityScorer(
        difficulty=difficulty, bins="unique", task_weights=weights, threshold=threshold
    ).fit(X)
    display = AgentCurveDisplay.from_estimator(scorer, X, agents=list(range(7)))
    responses = X if threshold is None else np.where(np.isnan(X), np.nan, X >= 0.5)
    expected = _direct_bin_variance(responses, scorer.task_bin_, weights, 4)
    np.testing.assert_allclose(display.variance, expected, atol=1e-12)
    assert np.isnan(display.variance[0, 0])
    # generality is 1 / the sum of these variances
    names = list(scorer.get_feature_names_out())
    generality = scorer.transform(X)[:, names.index("generality")]
    np.testing.assert_allclose(1 / np.nansum(expected, axis=1), generality, rtol=1e-9)
