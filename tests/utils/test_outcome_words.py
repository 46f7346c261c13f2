"""One outcome vocabulary: the API accepts the words the file readers accept.

User guide, "Data": an outcome is the first player's score, 1, 0 or 0.5, or
one of the words win / loss / draw (and their short forms).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.game import fill_win_rates
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.utils import check_matches
from sklearn_eval.utils._outcomes import OUTCOME_WORDS

SPELLINGS = {
    value: sorted(word for word, v in OUTCOME_WORDS.items() if v == value)
    for value in (0.0, 0.5, 1.0)
}


@st.composite
def worded_matches(draw):
    n = draw(st.integers(3, 30))
    players = ["a", "b", "c", "d"]
    first = draw(st.lists(st.sampled_from(players), min_size=n, max_size=n))
    second = [
        draw(st.sampled_from([p for p in players if p != f])) for f in first
    ]
    y = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    words = []
    for value in y:
        word = draw(st.sampled_from(SPELLINGS[value]))
        case = draw(st.sampled_from([str.lower, str.upper, str.title]))
        pad = draw(st.sampled_from(["", " ", "  "]))
        words.append(pad + case(word) + pad)
    return np.column_stack([first, second]).astype(object), np.array(y), words


@settings(max_examples=40, deadline=None)
@given(worded_matches())
def test_words_and_numbers_are_the_same_outcomes(data):
    X, y, words = data
    np.testing.assert_array_equal(check_matches(X, words).y, y)
    np.testing.assert_array_equal(check_matches(X, np.array(words)).y, y)


def test_every_estimator_fits_the_same_ratings_from_words():
    rng = np.random.default_rng(0)
    players = np.array(["a", "b", "c", "d", "e"], dtype=object)
    pairs = np.array([(i, j) for i in range(5) for j in range(5) if i != j] * 3)
    X = players[pairs]
    y = rng.choice([0.0, 0.5, 1.0], size=len(X))
    words = np.array([{1.0: "win", 0.0: "loss", 0.5: "draw"}[v] for v in y])
    for estimator in (
        EloRanker(),
        EloRanker(method="batch", ties="davidson"),
        MultiElo(method="batch", random_state=0),
    ):
        numbers = estimator.fit(X, y).agent_scores_.copy()
        np.testing.assert_array_equal(estimator.fit(X, words).agent_scores_, numbers)
    P_words, _, _ = fill_win_rates(X, words)
    P_numbers, _, _ = fill_win_rates(X, y)
    np.testing.assert_array_equal(P_words, P_numbers)


@pytest.mark.parametrize("bad", ["maybe", "", "1.5"])
def test_an_unknown_outcome_names_its_row(bad):
    X = [["a", "b"], ["b", "c"], ["c", "a"]]
    with pytest.raises(ValueError, match="at row 1"):
        check_matches(X, ["win", bad, "loss"])


def test_fill_win_rates_on_a_dataframe_raises_no_feature_name_warning():
    X = pd.DataFrame(
        {"home": ["x", "y", "z", "x"], "away": ["y", "z", "w", "w"]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P, players, filled = fill_win_rates(X, ["win", "loss", "draw", 1.0])
    assert filled.any()  # the model predicted the unplayed pairs
    np.testing.assert_allclose(P + P.T, 1.0)
