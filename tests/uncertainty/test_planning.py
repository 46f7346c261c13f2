"""Planning: the power realised at the recommended n matches the target.

Paired items: the z-test of the mean paired difference; votes: the Wald
test of the Bradley-Terry rating difference with its sandwich standard
error (ties counted half). See the user guide, "Is the ranking settled?".
"""

import numpy as np
import pytest
from scipy.special import expit

from sklearn_eval.pairwise import EloRanker
from sklearn_eval.uncertainty import (
    compare_agents,
    paired_correlation,
    power,
    sample_size,
    votes_to_separate,
)

ELO = 400 / np.log(10)


def _paired_items(n_items, accuracy, shared, rng):
    """Two models' 0/1 results; a share of items has one common easiness."""
    common = rng.random(n_items) < shared
    easy = rng.random(n_items)
    u = np.where(common, easy, rng.random((2, n_items)))
    return (u < np.asarray(accuracy)[:, None]).astype(float)


@pytest.mark.slow
def test_items_power_at_the_recommended_n():
    rng = np.random.default_rng(0)
    accuracy = (0.68, 0.62)
    pilot = _paired_items(200_000, accuracy, 0.4, rng)
    rho = paired_correlation(pilot)
    n = sample_size(0.06, data="items", baseline=0.62, correlation=rho)
    n_reps = 800
    hits = 0
    for _ in range(n_reps):
        X = _paired_items(n, accuracy, 0.4, rng)
        table = compare_agents("mean", X, pairs=[(0, 1)], correction=None)
        hits += table["p_value"].iloc[0] < 0.05
    assert 0.75 <= hits / n_reps <= 0.85


def _votes(n, delta, tie_rate, rng):
    mu = expit(delta)
    win = mu - tie_rate / 2
    counts = rng.multinomial(n, [win, tie_rate, 1 - win - tie_rate])
    X = np.array([["a", "b"]] * 3, dtype=object)
    return X, np.array([1.0, 0.5, 0.0]), counts.astype(float)


@pytest.mark.slow
@pytest.mark.parametrize("tie_rate", [0.0, 0.3])
def test_votes_power_head_to_head(tie_rate):
    rng = np.random.default_rng(1)
    n = sample_size(40, data="matches", tie_rate=tie_rate)
    delta = 40 / ELO
    hits = 0
    n_reps = 600
    for _ in range(n_reps):
        X, y, w = _votes(n, delta, tie_rate, rng)
        keep = w > 0
        table = compare_agents(EloRanker(method="batch"), X[keep], y[keep],
                               sample_weight=w[keep], frequency_weights=True,
                               pairs=[("a", "b")], correction=None)
        hits += table["p_value"].iloc[0] < 0.05
    assert 0.75 <= hits / n_reps <= 0.85


@pytest.mark.slow
def test_votes_power_in_a_round_robin():
    rng = np.random.default_rng(2)
    k = 5
    strength = np.array([40.0, 0.0, 20.0, 20.0, 20.0]) / ELO
    n = sample_size(40, data="matches", n_agents=k)
    first, second = np.triu_indices(k, 1)
    per_pair = n // first.shape[0]
    hits = 0
    n_reps = 300
    for _ in range(n_reps):
        wins = rng.binomial(per_pair, expit(strength[first] - strength[second]))
        X = np.repeat(np.column_stack([first, second]), 2, axis=0)
        y = np.tile([1.0, 0.0], first.shape[0])
        w = np.column_stack([wins, per_pair - wins]).ravel().astype(float)
        table = compare_agents(EloRanker(method="batch"), X, y, sample_weight=w,
                               frequency_weights=True, pairs=[(0, 1)],
                               correction=None)
        hits += table["p_value"].iloc[0] < 0.05
    assert 0.75 <= hits / n_reps <= 0.85


def test_power_and_sample_size_are_inverse():
    for kwargs in ({"data": "items", "baseline": 0.7, "correlation": 0.3},
                   {"data": "matches", "tie_rate": 0.2, "n_agents": 6}):
        effect = 0.04 if kwargs["data"] == "items" else 25
        n = sample_size(effect, power=0.9, **kwargs)
        assert power(n, effect, **kwargs) >= 0.9 > power(n - 1, effect, **kwargs)


def test_sample_size_moves_the_right_way():
    base = sample_size(0.05, baseline=0.6)
    assert sample_size(0.05, baseline=0.6, correlation=0.5) < base
    assert sample_size(0.10, baseline=0.6) < base
    assert sample_size(0.05, baseline=0.6, power=0.9) > base
    votes = sample_size(30, data="matches")
    # at a given expected score, ties make a vote's score less variable;
    # a round robin spreads the votes over other pairs
    assert sample_size(30, data="matches", tie_rate=0.3) < votes
    assert sample_size(30, data="matches", n_agents=4) > votes
    # logit and Elo scales agree
    assert sample_size(30 / ELO, data="matches", scale="logit") == votes


def test_votes_to_separate_agrees_with_the_head_to_head_plan():
    rng = np.random.default_rng(3)
    delta = 35 / ELO
    X, y, w = _votes(200, delta, 0.0, rng)
    more = votes_to_separate(EloRanker(method="batch"), X, y, "a", "b",
                             sample_weight=w, frequency_weights=True)
    fitted = EloRanker(method="batch").fit(X, y, sample_weight=w)
    gap = float(np.ptp(fitted.ratings_))
    planned = sample_size(gap, data="matches")
    assert more > 0
    assert abs((200 + more) - planned) <= 0.05 * planned
    X2, y2, w2 = _votes(planned * 3, delta, 0.0, rng)
    assert votes_to_separate(EloRanker(method="batch"), X2, y2, "a", "b",
                             sample_weight=w2, frequency_weights=True) == 0


def test_paired_correlation_reads_labels_and_rejects_constant_rows():
    import pandas as pd

    rng = np.random.default_rng(4)
    X = pd.DataFrame(_paired_items(5000, (0.7, 0.6), 0.5, rng), index=["x", "y"])
    assert 0.35 < paired_correlation(X, ("x", "y")) < 0.65
    with pytest.raises(ValueError, match="unknown agents"):
        paired_correlation(X, ("x", "z"))
    with pytest.raises(ValueError, match="no pair"):
        paired_correlation(np.ones((2, 10)))


@pytest.mark.parametrize("call, match", [
    (lambda: sample_size(0), "effect must be > 0"),
    (lambda: sample_size(-3, data="matches"), "effect must be > 0"),
    (lambda: sample_size(0.1, power=1.0), "power must lie in"),
    (lambda: sample_size(0.1, power=0), "power must lie in"),
    (lambda: sample_size(0.5, baseline=0.6), "baseline"),
    (lambda: sample_size(0.1, correlation=1), "correlation"),
    (lambda: sample_size(0.1, data="votes"), "data must be"),
    (lambda: sample_size(10, data="matches", tie_rate=1.2), "tie_rate"),
    (lambda: sample_size(10, data="matches", n_agents=1), "n_agents"),
    (lambda: power(0, 0.1), "n must be"),
    (lambda: sample_size(0.1, confidence_level=1), "confidence_level"),
])
def test_bad_arguments_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_votes_to_separate_needs_analytic_match_rater():
    X, y, w = _votes(100, 0.2, 0.0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="analytic intervals"):
        votes_to_separate(EloRanker(), X, y, "a", "b", sample_weight=w)
    with pytest.raises(ValueError, match="unknown agents"):
        votes_to_separate(EloRanker(method="batch"), X, y, "a", "c",
                          sample_weight=w)


# ---------------------------------------------------------------- outcome words
_WORDS = {
    "floats": lambda y: y,
    "list": lambda y: list(y),
    "win/loss/draw": lambda y: np.where(
        y == 1, "win", np.where(y == 0, "loss", "draw")),
    "W/L/D": lambda y: np.where(y == 1, "W", np.where(y == 0, "L", "D")),
    "chess": lambda y: np.where(y == 1, "1-0", np.where(y == 0, "0-1", "1/2-1/2")),
    "object words": lambda y: np.where(y == 1, "won", np.where(y == 0, "lost", "tie")
                                       ).astype(object).tolist(),
    "numbers as text": lambda y: y.astype(str),
}


@pytest.mark.parametrize("ties", ["half", "davidson"])
@pytest.mark.parametrize("encoding", sorted(_WORDS))
def test_votes_to_separate_reads_outcomes_as_fit_does(encoding, ties):
    # regression: y was re-read with np.asarray(y, float), refusing the words
    # every fit accepts; the tie share must come out the same
    rng = np.random.default_rng(5)
    X, y, w = _votes(120, 30 / ELO, 0.3, rng)
    X, y = np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int))
    est = EloRanker(method="batch", ties=ties)
    expected = votes_to_separate(est, X, y, "a", "b")
    assert 0 < expected < np.inf  # a case where the tie share matters
    assert votes_to_separate(est, X, _WORDS[encoding](y), "a", "b") == expected


@pytest.mark.parametrize("a, b", [
    ("a", "a"), (0, 0), (np.int64(1), 1), (1, 1.0), (np.str_("b"), "b"),
])
def test_votes_to_separate_refuses_the_same_agent_twice(a, b):
    # regression: the same agent twice returned inf (no difference) silently
    X = np.array([[0, 1], [1, 2], [2, 0], [1, 0]] * 10)
    X = X.astype(str) if isinstance(a, str) else X
    X = np.where(X == "0", "a", np.where(X == "1", "b", X)) if isinstance(a, str) else X
    y = np.tile([1.0, 0.5, 0.0, 1.0], 10)
    with pytest.raises(ValueError, match="two different agents"):
        votes_to_separate(EloRanker(method="batch"), X, y, a, b)


@pytest.mark.parametrize("pair", [(0, 0), ("x", "x"), (np.int64(1), 1)])
def test_paired_correlation_refuses_the_same_agent_twice(pair):
    # regression: the same agent twice gave a correlation of 1.0
    import pandas as pd

    X = np.random.default_rng(0).random((3, 20))
    if isinstance(pair[0], str):
        X = pd.DataFrame(X, index=["x", "y", "z"])
    with pytest.raises(ValueError, match="two different agents"):
        paired_correlation(X, pair)


@pytest.mark.parametrize("X, error, match", [
    ([["a", "b", "c"], ["d", "e", "f"]], TypeError, "must hold numbers"),
    ([[1.0, np.inf, 0.0], [0.0, 1.0, 1.0]], ValueError, "infinite value at row 0"),
    ([[1.0, 2.0, 3.0]], ValueError, "at least two agents"),
    ([1.0, 2.0, 3.0], ValueError, "2-D"),
])
def test_paired_correlation_validates_its_matrix_like_the_estimators(X, error, match):
    # regression: np.asarray(X, float) raised numpy's own message on text
    with pytest.raises(error, match=match):
        paired_correlation(X)
