"""Bad input to the advisor: one clear ValueError or TypeError naming the
problem, never a numpy, scipy or pandas error from deep inside.

Every kind of bad input is tried in every container the advisor reads
(arrays, nested lists, DataFrames), since each container had its own path.
"""

import numpy as np
import pandas as pd
import pytest

from sklearn_eval import advise

from . import corpus

BINARY = corpus.items("1PL", 0, n_agents=30, n_items=8)


def _containers(values):
    """The same matrix as an array, a nested list and a DataFrame."""
    return {"array": values, "list": values.tolist(),
            "frame": pd.DataFrame(values)}


def _with(values, i, j, value):
    out = np.array(values, dtype=float)
    out[i, j] = value
    return out


MATRICES = [
    ("no agents", np.empty((0, 5)), {}, ValueError, "empty"),
    ("no tasks", np.empty((5, 0)), {}, ValueError, "empty"),
    ("inf", _with(BINARY, 3, 2, np.inf), {}, ValueError, "infinite value at row 3"),
    ("-inf", _with(BINARY, 0, 7, -np.inf), {}, ValueError, "infinite value at row 0"),
    ("inf in scores", _with(BINARY * 3.5, 5, 1, np.inf), {}, ValueError,
     "infinite"),
    ("all NaN", np.full((6, 4), np.nan), {}, ValueError, "no observed result"),
    ("game not square", BINARY, {"kind": "game"}, ValueError,
     r"kind='game' needs a square .* got shape \(30, 8\)"),
    ("game of one agent", np.zeros((1, 1)), {"kind": "game"}, ValueError,
     "square"),
    ("binary with a 2", _with(BINARY, 4, 4, 2.0), {"kind": "binary"}, ValueError,
     r"kind='binary' needs 0/1 .* 2.0 at row 4, column 4"),
    ("graded with a half", _with(BINARY, 1, 0, 0.5), {"kind": "graded"},
     ValueError, r"kind='graded' needs .* 0.5 at row 1, column 0"),
    ("graded negative", _with(BINARY, 1, 0, -1.0), {"kind": "graded"},
     ValueError, r"kind='graded' needs .* -1.0 at row 1"),
    ("continuous above 1", _with(BINARY, 2, 3, 3.0), {"kind": "continuous"},
     ValueError, r"kind='continuous' needs scores in \[0, 1\]"),
]


@pytest.mark.parametrize("container", ["array", "list", "frame"])
@pytest.mark.parametrize(("case", "values", "kwargs", "error", "message"), MATRICES,
                         ids=[m[0] for m in MATRICES])
def test_bad_matrices_are_one_clear_error(case, values, kwargs, error, message,
                                          container):
    X = _containers(values)[container]
    with pytest.raises(error, match=message):
        advise(X, random_state=0, **kwargs)


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), ()])
def test_input_that_is_not_a_table_says_so(shape):
    X = np.ones(shape)
    with pytest.raises(ValueError, match=r"X must be a 2-D table.*-D input"):
        advise(X)


def test_ragged_rows_say_so():
    with pytest.raises(ValueError, match="rows of different lengths"):
        advise([[1.0, 0.0], [1.0]])


def test_words_in_a_result_matrix_are_a_type_error():
    frame = pd.DataFrame(BINARY).assign(note="x")
    with pytest.raises(TypeError, match="note"):
        advise(frame, kind="binary")


def _match_table(seed=0, n_votes=300):
    X, y = corpus.matches("bt", seed, n_players=5, n_votes=n_votes)
    return X, y


@pytest.mark.parametrize("form", ["array", "list", "long table"])
def test_all_zero_weights_are_refused(form):
    X, y = _match_table()
    zeros = np.zeros(y.size)
    with pytest.raises(ValueError, match="sample_weight is zero for every match"):
        if form == "long table":
            advise(pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "outcome": y,
                                 "weight": zeros}))
        else:
            advise(X, y, sample_weight=zeros if form == "array" else zeros.tolist())


WORDS = [
    {1.0: "win", 0.0: "loss", 0.5: "draw"},
    {1.0: "W", 0.0: "L", 0.5: "D"},
    {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"},
    {1.0: " Won ", 0.0: "lost", 0.5: "tie"},
]


@pytest.mark.parametrize("words", WORDS, ids=["win/loss", "W/L", "1-0", "won/lost"])
def test_outcome_words_in_a_long_table_read_as_the_estimators_read_them(words):
    X, y = corpus.matches("davidson", 1, n_players=5, n_votes=300)
    numbers = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "outcome": y})
    spelled = numbers.assign(outcome=numbers["outcome"].map(words))
    expected = advise(numbers, random_state=0)
    got = advise(spelled, random_state=0)
    pd.testing.assert_frame_equal(got.candidates, expected.candidates)


def test_an_unknown_outcome_word_names_its_row():
    X, y = _match_table()
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1],
                          "outcome": np.where(y == 1, "win", "loss")})
    frame.loc[7, "outcome"] = "maybe"
    with pytest.raises(ValueError, match="'maybe' at row 7"):
        advise(frame)
