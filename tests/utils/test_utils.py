"""Tests of the shared validation layer and converters (sklearn_eval.utils)."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sklearn_eval.utils import (
    baseline_normalize,
    binarize_scores,
    check_antisymmetric,
    check_binary_values,
    check_in_bounds,
    check_matches,
    check_result_matrix,
    check_square,
    encode_players,
    long_to_result_matrix,
    lookup_players,
    matches_to_win_matrix,
    matches_to_win_rate,
    minmax_normalize,
    win_probability_to_matches,
)

# --------------------------------------------------------------------- matches


def test_check_matches_accepts_dataframe_and_defaults_weights():
    X = pd.DataFrame({"home": ["a", "b", "c"], "away": ["b", "c", "a"]})
    data = check_matches(X, [1, 0.5, 0])
    assert data.first.tolist() == ["a", "b", "c"]
    assert data.second.tolist() == ["b", "c", "a"]
    assert data.y.dtype == np.float64
    np.testing.assert_array_equal(data.sample_weight, np.ones(3))


def test_check_matches_without_y_for_prediction():
    data = check_matches([[1, 2], [2, 3]], require_y=False)
    assert data.y is None


@pytest.mark.parametrize(
    "X, y, w, match",
    [
        ([["a", "b", "c"]], [1], None, r"shape \(n_matches, 2\)"),
        (["a", "b"], [1], None, r"shape \(n_matches, 2\)"),
        (np.empty((0, 2)), [], None, "no matches"),
        ([["a", None]], [1], None, "missing player label .* row 0, column 1"),
        ([[1.0, np.nan]], [1], None, "missing player label"),
        ([["a", "b"], ["c", "c"]], [1, 0], None, "row 1 .*'c' playing against itself"),
        ([["a", "b"]], [2], None, r"y must be 1 .*got 2.0 at row 0"),
        ([["a", "b"]], [np.nan], None, "non-finite value .* row 0"),
        ([["a", "b"], ["b", "a"]], [1], None, "y has 1 entries but X has 2"),
        ([["a", "b"]], [1], [-1.0], "non-negative; got -1.0 at row 0"),
        ([["a", "b"]], [1], [1.0, 2.0], "sample_weight has 2 entries"),
        ([["a", "b"]], [1], [np.inf], "sample_weight has a non-finite"),
        ([["a", "b"]], None, None, "y is required"),
    ],
)
def test_check_matches_rejects_bad_input(X, y, w, match):
    with pytest.raises(ValueError, match=match):
        check_matches(X, y, w)


def test_check_matches_rejects_sparse_and_non_numeric_outcomes():
    with pytest.raises(TypeError, match="sparse"):
        check_matches(sp.csr_matrix(np.array([[1, 2]])), [1])
    # the words of the file readers are outcomes; other strings are not
    assert check_matches([["a", "b"]], ["win"]).y.tolist() == [1.0]
    with pytest.raises(ValueError, match="got 'won-ish' at row 0"):
        check_matches([["a", "b"]], ["won-ish"])
    with pytest.raises(ValueError, match="exactly 2 columns"):
        check_matches(pd.DataFrame({"a": [1], "b": [2], "c": [3]}), [1])


def test_encode_players_sorts_labels_and_roundtrips():
    first = np.array(["zed", "amy", "bob", "amy"], dtype=object)
    second = np.array(["amy", "bob", "zed", "zed"], dtype=object)
    players, i, j = encode_players(first, second)
    assert players.tolist() == ["amy", "bob", "zed"]
    assert players[i].tolist() == first.tolist()
    assert players[j].tolist() == second.tolist()
    assert i.dtype == np.int64 and j.dtype == np.int64


def test_encode_players_integer_labels():
    players, i, j = encode_players(np.array([10, 3]), np.array([3, 7]))
    assert players.tolist() == [3, 7, 10]
    assert i.tolist() == [2, 0] and j.tolist() == [0, 1]


def test_encode_players_rejects_mixed_label_types():
    first = np.array(["a", 1], dtype=object)
    second = np.array([2, "b"], dtype=object)
    with pytest.raises(TypeError, match="mix types"):
        encode_players(first, second)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=3),
                          st.text(min_size=1, max_size=3)), min_size=1, max_size=30))
def test_encode_players_property(pairs):
    first = np.array([p[0] for p in pairs], dtype=object)
    second = np.array([p[1] for p in pairs], dtype=object)
    players, i, j = encode_players(first, second)
    assert players.tolist() == sorted(set(first.tolist()) | set(second.tolist()))
    assert players[i].tolist() == first.tolist()
    assert players[j].tolist() == second.tolist()


def test_lookup_players_marks_unseen():
    assert lookup_players(["b", "x"], np.array(["a", "b"])).tolist() == [1, -1]
    assert lookup_players([3, 9], np.array([1, 3])).tolist() == [1, -1]


# ------------------------------------------------------------- result matrices


def test_check_result_matrix_keeps_dataframe_names():
    X = pd.DataFrame(
        [[1.0, 2.0], [3.0, np.nan]], index=["ag1", "ag2"], columns=["t1", "t2"]
    )
    values, agents, tasks = check_result_matrix(X, allow_nan=True)
    assert agents.tolist() == ["ag1", "ag2"]
    assert tasks.tolist() == ["t1", "t2"]
    assert values.dtype == np.float64
    # RangeIndex rows carry no agent names
    assert check_result_matrix(X.reset_index(drop=True), allow_nan=True).agents is None


@pytest.mark.parametrize(
    "X, kwargs, error, match",
    [
        ([1.0, 2.0], {}, ValueError, "must be 2-D .* 1-D"),
        (np.zeros((2, 2, 2)), {}, ValueError, "3-D"),
        (np.zeros((0, 3)), {}, ValueError, "empty"),
        ([[1.0, np.inf]], {}, ValueError, "infinite value at row 0, column 1"),
        ([[1.0, 2.0], [np.nan, 0]], {}, ValueError, r"NaN\) at row 1, column 0"),
        ([["a", "b"]], {}, TypeError, "non-numeric"),
        (sp.csr_matrix(np.eye(2)), {}, TypeError, "sparse"),
    ],
)
def test_check_result_matrix_errors(X, kwargs, error, match):
    with pytest.raises(error, match=match):
        check_result_matrix(X, **kwargs)


def test_check_result_matrix_dataframe_errors_name_columns():
    X = pd.DataFrame({"t1": [1.0, 2.0], "t2": ["x", "y"]})
    with pytest.raises(TypeError, match="column 't2'"):
        check_result_matrix(X)
    dup = pd.DataFrame([[1.0, 2.0]], columns=["t", "t"])
    with pytest.raises(ValueError, match="duplicated column name 't'"):
        check_result_matrix(dup)
    named = pd.DataFrame([[1.0, np.nan]], index=["gpt"], columns=["t1", "t2"])
    with pytest.raises(ValueError, match="agent 'gpt', task 't2'"):
        check_result_matrix(named)


def test_value_checks_name_location():
    with pytest.raises(ValueError, match="binary .* 0.5 at row 1, column 0"):
        check_binary_values(np.array([[0, 1], [0.5, np.nan]]))
    with pytest.raises(ValueError, match=r"\[0, 1\]; got 1.5 at row 0, column 1"):
        check_in_bounds([[0.5, 1.5]], 0, 1)
    with pytest.raises(ValueError, match="square"):
        check_square(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="at least 2 agents"):
        check_square(np.zeros((1, 1)))
    with pytest.raises(ValueError, match=r"antisymmetric .*A\[0, 1\] = 1.0"):
        check_antisymmetric([[0, 1], [0, 0]])
    with pytest.raises(ValueError, match="non-finite"):
        check_antisymmetric([[0, np.nan], [0, 0]])


def test_check_antisymmetric_tolerates_rounding():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(5, 5)) * 1e3
    A = B - B.T
    A[0, 1] += 1e-10  # rounding-level asymmetry
    check_antisymmetric(A)


# ----------------------------------------------------------------- converters


def test_win_matrix_counts_draws_half_and_weights():
    X = [["a", "b"], ["b", "a"], ["a", "c"], ["a", "b"]]
    wins, counts, players = matches_to_win_matrix(
        X, [1, 0.5, 0, 1], sample_weight=[1, 1, 2, 3]
    )
    assert players.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(wins, [[0, 4.5, 0], [0.5, 0, 0], [2, 0, 0]])
    np.testing.assert_allclose(counts, [[0, 5, 2], [5, 0, 0], [2, 0, 0]])
    np.testing.assert_allclose(wins + wins.T, counts)


def test_win_rate_marks_unplayed_pairs_nan():
    rates, counts, _ = matches_to_win_rate([[0, 1], [1, 2]], [1, 0])
    assert np.isnan(rates[0, 2]) and np.isnan(rates[2, 0])
    assert rates[0, 1] == 1.0 and rates[2, 1] == 1.0
    np.testing.assert_array_equal(np.diag(rates), 0.5)


def test_win_matrix_with_fixed_players_rejects_unknown():
    with pytest.raises(ValueError, match="'z', which is not in players"):
        matches_to_win_matrix([["a", "z"]], [1], players=["a", "b"])
    wins, _, players = matches_to_win_matrix([["a", "b"]], [1], players=["b", "a", "c"])
    assert players.tolist() == ["b", "a", "c"]
    assert wins[1, 0] == 1.0


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, (4, 4), elements=st.floats(0, 1)))
def test_win_probability_matches_roundtrip(P):
    X, y, w = win_probability_to_matches(P)
    wins, counts, players = matches_to_win_matrix(X, y, w, players=np.arange(4))
    off = ~np.eye(4, dtype=bool)
    # each ordered pair contributes weight 1 to the games between i and j
    np.testing.assert_allclose(counts[off], 2.0)
    np.testing.assert_allclose(wins[off], (P + 1 - P.T)[off], atol=1e-12)


def test_win_probability_to_matches_validates():
    with pytest.raises(ValueError, match="square"):
        win_probability_to_matches(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="got 1.2"):
        win_probability_to_matches([[0.5, 1.2], [0.0, 0.5]])
    with pytest.raises(ValueError, match="NaN"):
        win_probability_to_matches([[0.5, np.nan], [0.0, 0.5]])
    with pytest.raises(ValueError, match="players must have 2 labels"):
        win_probability_to_matches([[0.5, 0.5], [0.5, 0.5]], players=["a"])


def test_long_to_result_matrix_dataframe_and_aggregation():
    long = pd.DataFrame(
        {
            "model": ["m1", "m1", "m2", "m1"],
            "bench": ["b", "a", "a", "b"],
            "acc": [0.5, 0.25, 1.0, 0.75],
        }
    )
    wide = long_to_result_matrix(long, agent="model", task="bench", score="acc")
    assert wide.index.tolist() == ["m1", "m2"]
    assert wide.columns.tolist() == ["a", "b"]
    assert wide.loc["m1", "b"] == 0.625 and np.isnan(wide.loc["m2", "b"])
    last = long_to_result_matrix(long, agent="model", task="bench", score="acc",
                                 aggfunc="last")
    assert last.loc["m1", "b"] == 0.75
    first = long_to_result_matrix(long, agent="model", task="bench", score="acc",
                                  aggfunc="first", as_frame=False)
    assert first.values[0, 1] == 0.5
    high = long_to_result_matrix(long, agent="model", task="bench", score="acc",
                                 aggfunc="max")
    assert high.loc["m1", "b"] == 0.75
    with pytest.raises(ValueError, match="more than one score"):
        long_to_result_matrix(long, agent="model", task="bench", score="acc",
                              aggfunc="error")


def test_long_to_result_matrix_errors():
    table = {"agent": ["a"], "task": ["t"], "score": [1.0]}
    with pytest.raises(ValueError, match="needs columns"):
        long_to_result_matrix(table, score="acc")
    with pytest.raises(ValueError, match="aggfunc"):
        long_to_result_matrix(table, aggfunc="median")
    with pytest.raises(TypeError, match="numeric"):
        long_to_result_matrix({"agent": ["a"], "task": ["t"], "score": ["x"]})
    with pytest.raises(ValueError, match="empty"):
        long_to_result_matrix({"agent": [], "task": [], "score": []})


def test_binarize_scores_threshold_inclusive_and_per_task():
    X = np.array([[100.0, 99.0], [np.nan, 150.0]])
    np.testing.assert_array_equal(
        binarize_scores(X, 100), [[1.0, 0.0], [np.nan, 1.0]]
    )
    np.testing.assert_array_equal(
        binarize_scores(X, 100, inclusive=False), [[0.0, 0.0], [np.nan, 1.0]]
    )
    np.testing.assert_array_equal(
        binarize_scores(X, [50, 200]), [[1.0, 0.0], [np.nan, 0.0]]
    )
    frame = pd.DataFrame(X, columns=["pong", "qbert"])
    assert binarize_scores(frame, 100).columns.tolist() == ["pong", "qbert"]
    with pytest.raises(ValueError, match="one value per task"):
        binarize_scores(X, [1, 2, 3])


def test_minmax_normalize_columns_and_constant_task():
    X = np.array([[-21.0, 3.0, 1.0], [21.0, 5.0, 1.0], [0.0, np.nan, 1.0]])
    with pytest.warns(UserWarning, match=r"\[2\] are constant"):
        out = minmax_normalize(X)
    np.testing.assert_allclose(out[:, 0], [0.0, 1.0, 0.5])
    np.testing.assert_allclose(out[:2, 1], [0.0, 1.0])
    assert np.isnan(out[2, 1])
    np.testing.assert_array_equal(out[:, 2], 0.0)


def test_baseline_normalize_human_normalised():
    X = np.array([[227.8, 1000.0], [7127.7, 5.8]])
    out = baseline_normalize(X, low=[227.8, 5.8], high=[7127.7, 1719.5])
    np.testing.assert_allclose(out[:, 0], [0.0, 100.0])
    np.testing.assert_allclose(out[1, 1], 0.0)
    with pytest.raises(ValueError, match=r"high equals low .* \(column\) 1"):
        baseline_normalize(X, low=[0, 1], high=[1, 1])
    with pytest.raises(ValueError, match="non-finite value for task"):
        baseline_normalize(X, low=[0, np.nan], high=[1, 2])
