"""Tests of the linear-time label coding (``check_and_encode_matches``,
``encode_players``) against a plain reference, for every label type and both
the compiled and the numpy coder."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from sklearn_eval.datasets import make_matches
from sklearn_eval.utils import (
    _coding,
    _label_kernels,
    check_and_encode_matches,
    check_matches,
    encode_players,
)

_SETTINGS = settings(max_examples=60, deadline=None,
                     suppress_health_check=list(HealthCheck))


@pytest.fixture(params=["compiled", "numpy"])
def coder(request, monkeypatch):
    """Run a test with the numba coder and with the numpy fallback."""
    if request.param == "compiled":
        monkeypatch.setattr(_label_kernels, "HAVE_NUMBA", True)
        # the compiled loop also for the small inputs of these tests
        monkeypatch.setattr(_label_kernels, "_COMPILED_FROM", 0)
    else:
        monkeypatch.setattr(_label_kernels, "HAVE_NUMBA", False)
    return request.param


def _reference(first, second):
    """Sorted distinct labels and positions by Python's own sort and dict."""
    labels = list(first) + list(second)
    players = sorted(set(labels))
    where = {v: k for k, v in enumerate(players)}
    n = len(first)
    codes = [where[v] for v in labels]
    return players, codes[:n], codes[n:]


def _assert_coded_like_reference(X, first_labels, second_labels):
    y = np.ones(len(first_labels))
    matches, players, first, second = check_and_encode_matches(X, y, None)
    ref_players, ref_first, ref_second = _reference(first_labels, second_labels)
    assert players.tolist() == ref_players
    assert first.tolist() == ref_first and second.tolist() == ref_second
    assert first.dtype == np.int64 and second.dtype == np.int64
    # encode_players (used by the converters) codes the same way.
    same_players, i, j = encode_players(
        np.asarray(first_labels, dtype=object), np.asarray(second_labels, dtype=object)
    )
    assert same_players.tolist() == ref_players
    assert i.tolist() == ref_first and j.tolist() == ref_second


def _pairs(pool, data):
    """Rows of two different labels drawn from ``pool``."""
    n = data.draw(st.integers(1, 40))
    first = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
    shift = data.draw(st.lists(st.integers(1, len(pool) - 1), min_size=n, max_size=n))
    second = [(a + s) % len(pool) for a, s in zip(first, shift, strict=True)]
    return [pool[a] for a in first], [pool[b] for b in second]


texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
    min_size=0, max_size=6,
)


@_SETTINGS
@given(data=st.data())
def test_string_labels_in_every_container(coder, data):
    pool = data.draw(st.lists(texts, min_size=2, max_size=12, unique=True))
    first, second = _pairs(pool, data)
    rows = np.column_stack([np.array(first, dtype=object),
                            np.array(second, dtype=object)])
    shared = {v: v for v in pool}  # one object per label, as read from a file
    containers = {
        "unicode": rows.astype(str),
        "object, distinct objects": np.array(
            [["".join(list(a)) for a in row] for row in rows.tolist()], dtype=object
        ),
        "object, shared objects": np.vectorize(shared.get, otypes=[object])(rows),
        "object, Fortran order": np.asfortranarray(rows),
        "list": rows.tolist(),
        "DataFrame": pd.DataFrame(rows, columns=["a", "b"]),
        "DataFrame of object": pd.DataFrame(rows, columns=["a", "b"], dtype=object),
        "categoricals": pd.DataFrame({
            "a": pd.Categorical(first, categories=sorted(pool, reverse=True)),
            "b": pd.Categorical(second),
        }),
    }
    for X in containers.values():
        _assert_coded_like_reference(X, first, second)


@_SETTINGS
@given(data=st.data(), dtype=st.sampled_from(
    ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"]))
def test_integer_labels_any_dtype_and_range(coder, data, dtype):
    info = np.iinfo(dtype)
    wide = data.draw(st.booleans())
    low, high = (int(info.min), int(info.max)) if wide else (
        max(int(info.min), -20), min(int(info.max), 60))
    pool = data.draw(st.lists(st.integers(low, high), min_size=2, max_size=12,
                              unique=True))
    first, second = _pairs(pool, data)
    X = np.column_stack([np.array(first, dtype=dtype), np.array(second, dtype=dtype)])
    _assert_coded_like_reference(X, first, second)
    players = check_and_encode_matches(X, np.ones(len(first)), None)[1]
    assert players.dtype == np.dtype(dtype)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1]})
    _assert_coded_like_reference(frame, first, second)
    cat = pd.DataFrame({"a": pd.Categorical(X[:, 0]), "b": pd.Categorical(X[:, 1])})
    _assert_coded_like_reference(cat, first, second)


@_SETTINGS
@given(data=st.data())
def test_mixed_ints_and_strings_are_rejected_like_the_shared_path(data):
    ints = data.draw(st.lists(st.integers(-5, 5), min_size=1, max_size=4, unique=True))
    strs = data.draw(st.lists(texts, min_size=1, max_size=4, unique=True))
    first, second = _pairs(ints + strs, data)
    X = np.empty((len(first), 2), dtype=object)
    X[:, 0], X[:, 1] = first, second
    y = np.ones(len(first))
    kinds = {type(v) for v in first + second}
    if len(kinds) == 1:
        _assert_coded_like_reference(X, first, second)
        return
    with pytest.raises(TypeError, match="mix types that cannot be ordered"):
        check_and_encode_matches(X, y, None)
    with pytest.raises(TypeError, match="mix types that cannot be ordered"):
        encode_players(X[:, 0], X[:, 1])


@pytest.mark.parametrize("missing", [None, np.nan, float("nan"), pd.NA])
@pytest.mark.parametrize("container", ["object", "frame", "categorical"])
def test_missing_labels_raise_the_shared_error(missing, container):
    first = np.array(["a", "b", "c", missing], dtype=object)
    second = np.array(["b", "c", "a", "a"], dtype=object)
    X = {
        "object": np.column_stack([first, second]),
        "frame": pd.DataFrame({"a": first, "b": second}),
        "categorical": pd.DataFrame({"a": pd.Categorical(first),
                                     "b": pd.Categorical(second)}),
    }[container]
    with pytest.raises(ValueError, match="missing player label .* row 3, column 0"):
        check_and_encode_matches(X, np.ones(4), None)
    with pytest.raises(ValueError, match="must not be missing"):
        encode_players(first, second)


def test_float_and_datetime_missing_labels():
    X = np.array([[1.0, 2.0], [np.nan, 3.0]])
    with pytest.raises(ValueError, match="row 1, column 0"):
        check_and_encode_matches(X, [1, 0], None)
    days = np.array(["2024-01-01", "2024-01-02", "NaT"], dtype="datetime64[D]")
    X = np.column_stack([days, days[[1, 0, 0]]])
    with pytest.raises(ValueError, match="row 2, column 0"):
        check_and_encode_matches(X, [1, 0, 1], None)


def _slow_path(X, y, w=None):
    matches = check_matches(X, y, w)
    return encode_players(matches.first, matches.second), matches


@pytest.mark.parametrize(
    "kind",
    ["unicode", "object", "int", "float", "frame_obj", "frame_int",
     "frame_mixed", "frame_categorical", "bytes", "list"],
)
def test_fast_label_coding_equals_shared_path(coder, kind):
    X, y = make_matches(
        n_players=30, n_matches=500, draw_rate=0.1, labels="int", random_state=4
    )
    names = np.array([f"team {v:02d}" for v in range(30)])
    data = {
        "unicode": names[X],
        "object": names[X].astype(object),
        "int": X * 7 - 50,
        "float": X.astype(float) / 3,
        "frame_obj": pd.DataFrame(names[X].astype(object), columns=["a", "b"]),
        "frame_int": pd.DataFrame(X, columns=["a", "b"]),
        "frame_mixed": pd.DataFrame(
            {"a": names[X[:, 0]].astype(object), "b": names[X[:, 1]].astype(object)}
        ),
        "frame_categorical": pd.DataFrame(
            {"a": pd.Categorical(names[X[:, 0]]), "b": names[X[:, 1]]}
        ),
        "bytes": names[X].astype("S"),
        "list": names[X].tolist(),
    }[kind]
    w = np.linspace(0.5, 1.5, len(y))
    matches, players, first, second = check_and_encode_matches(data, y, w)
    (players_ref, first_ref, second_ref), ref = _slow_path(data, y, w)
    assert_array_equal(players, players_ref)
    assert players.dtype == players_ref.dtype
    assert_array_equal(first, first_ref)
    assert_array_equal(second, second_ref)
    assert_array_equal(matches.y, ref.y)
    assert_array_equal(matches.sample_weight, ref.sample_weight)


def test_fast_label_coding_errors_are_the_shared_ones():
    bad = [
        (np.array([["a", "b"], [None, "c"]], dtype=object), [1, 0]),
        (np.array([[1.0, 2.0], [np.nan, 3.0]]), [1, 0]),
        (pd.DataFrame({"a": ["x", "y"], "b": ["z", None]}), [1, 0]),
        (np.array([["a", "b"], ["c", "c"]]), [1, 0]),
        (pd.DataFrame({"a": [1, 2], "b": [3, 2]}), [1, 0]),
        (np.array([["a", "b"]]), [3]),
        (np.array([["a", "b"]]), [1, 0]),
        (np.array([["a", "b", "c"]]), [1]),
        (np.array([[1, "b"], ["c", 2]], dtype=object), [1, 0]),
        (np.array([[1, "b"], [None, 2]], dtype=object), [1, 0]),
        (np.array([[1, "b"], ["c", 2]], dtype=object), [1, 7]),
        (pd.DataFrame({"a": pd.Categorical(["x", "y"]), "b": ["y", "y"]}), [1, 0]),
        (np.array([["a", "b"]]), [1], [-1.0]),
    ]
    for X, y, *w in bad:
        w = w[0] if w else None
        with pytest.raises((ValueError, TypeError)) as expected:
            matches = check_matches(X, y, w)
            encode_players(matches.first, matches.second)
        with pytest.raises(type(expected.value)) as got:
            check_and_encode_matches(X, y, w)
        assert str(got.value) == str(expected.value)


def test_hash_collision_in_the_numpy_coder_falls_back(monkeypatch):
    monkeypatch.setattr(_label_kernels, "HAVE_NUMBA", False)
    X = np.array([["aaaaaaaa_x", "bbbbbbbb_x"], ["aaaaaaab_x", "aaaaaaaa_x"]])
    expected = check_and_encode_matches(X, [1, 0], None)
    # A degenerate hash that only sees the last word collides here.
    monkeypatch.setattr(_label_kernels, "_FNV_PRIME", np.uint64(0))
    words = _label_kernels.key_words(X.ravel())
    assert _label_kernels.code_keys_numpy(words) is None
    got = check_and_encode_matches(X, [1, 0], None)
    assert_array_equal(got[1], expected[1])
    assert_array_equal(got[2], expected[2])
    assert_array_equal(got[3], expected[3])


@pytest.mark.parametrize("n_words, n_distinct", [(1, 3000), (3, 3000), (5, 40)])
def test_compiled_and_numpy_coders_agree(n_words, n_distinct, monkeypatch):
    """Same first-appearance codes; many keys make the compiled table grow."""
    monkeypatch.setattr(_label_kernels, "HAVE_NUMBA", True)
    monkeypatch.setattr(_label_kernels, "_COMPILED_FROM", 0)
    rng = np.random.default_rng(n_words)
    keys = rng.integers(0, 2**63, size=(n_distinct, n_words), dtype=np.uint64)
    keys[1:, :-1] = keys[0, :-1]  # keys differing only in their last word
    words = keys[rng.integers(0, n_distinct, 20_000)]
    compiled = _label_kernels.code_keys(words)
    fallback = _label_kernels.code_keys_numpy(words)
    assert_array_equal(compiled[0][0], fallback[0])
    assert_array_equal(compiled[1], fallback[1])
    split = _label_kernels.code_keys(words, split=2)[0]
    assert_array_equal(split[0], fallback[0][0::2])
    assert_array_equal(split[1], fallback[0][1::2])
    # First-appearance codes: the code of a row is the number of distinct
    # keys seen before its key's first appearance.
    _, first_index, inverse = np.unique(words, axis=0, return_index=True,
                                        return_inverse=True)
    assert_array_equal(np.sort(compiled[1]), np.sort(first_index))
    assert_array_equal(words[compiled[1]][compiled[0][0]], words)


def test_equal_labels_held_by_different_objects_are_one_player():
    a1, a2 = "".join(["pla", "yer"]), "".join(["play", "er"])
    assert a1 is not a2
    b = "other"
    X = np.array([[a1, b]] * 5000 + [[b, a2]] * 5000, dtype=object)
    matches, players, first, second = check_and_encode_matches(
        X, np.ones(len(X)), None)
    assert players.tolist() == ["other", "player"]
    assert set(first.tolist()) == {0, 1} and set(second.tolist()) == {0, 1}
    assert_array_equal(players[first], X[:, 0])


def test_integer_labels_use_the_offset_table_and_keep_dtype():
    X = np.array([[5_000_003, 5_000_001], [5_000_001, 5_000_002]], dtype=np.int64)
    assert _coding._table_bounds([X.ravel()]) == (5_000_001, 5_000_003)
    players, (first, second) = _coding.code_label_columns([X.ravel()],
                                                          interleaved=True)
    assert players.tolist() == [5_000_001, 5_000_002, 5_000_003]
    assert first.tolist() == [2, 0] and second.tolist() == [0, 1]
    small = np.array([3, 0, 2], dtype=np.uint8)
    assert _coding._table_bounds([small]) == (0, 3)
    wide = np.array([0, 2**62], dtype=np.int64)
    assert _coding._table_bounds([wide]) is None
    assert _coding._table_bounds([small, small.astype(np.int8)]) is None


def test_unused_categories_are_not_players():
    X = pd.DataFrame({
        "a": pd.Categorical(["x", "y"], categories=["never", "x", "y", "z"]),
        "b": pd.Categorical(["y", "z"], categories=["z", "y", "ghost"]),
    })
    matches, players, first, second = check_and_encode_matches(X, [1, 0], None)
    assert players.tolist() == ["x", "y", "z"]
    assert first.tolist() == [0, 1] and second.tolist() == [1, 2]


@pytest.mark.parametrize("container", ["categorical", "int", "object", "unicode",
                                       "frame"])
def test_coding_never_modifies_the_input(coder, container):
    X, y = make_matches(n_players=50, n_matches=3000, random_state=1)
    names = np.array([f"p{v:02d}" for v in range(50)], dtype=object)
    data = {
        "categorical": pd.DataFrame({"a": pd.Categorical(names[X[:, 0]]),
                                     "b": pd.Categorical(names[X[:, 1]])}),
        "int": X * 3 + 7,
        "object": names[X],
        "unicode": names[X].astype(str),
        "frame": pd.DataFrame({"a": names[X[:, 0]], "b": names[X[:, 1]]}),
    }[container]
    before = data.copy()
    codes_before = ([data[c].cat.codes.to_numpy().copy() for c in data]
                    if container == "categorical" else None)
    check_and_encode_matches(data, y, None)
    if hasattr(data, "equals"):
        assert data.equals(before)
    else:
        assert_array_equal(data, before)
    if codes_before is not None:
        for column, codes in zip(data, codes_before, strict=True):
            assert_array_equal(data[column].cat.codes.to_numpy(), codes)


def test_small_inputs_skip_the_compiled_loop_and_large_ones_use_it(monkeypatch):
    """Below ``_COMPILED_FROM`` keys the numpy passes code the labels even with
    numba (no disk-cache load for a small file); at and above it the compiled
    loop does; both give the same codes, and a hash collision of the numpy
    passes falls back to the exact compiled loop."""
    calls = []
    original = _label_kernels._code_keys_numba

    def spy(words, codes):
        calls.append(words.shape[0])
        return original(words, codes)

    monkeypatch.setattr(_label_kernels, "HAVE_NUMBA", True)
    monkeypatch.setattr(_label_kernels, "_code_keys_numba", spy)
    monkeypatch.setattr(_label_kernels, "_COMPILED_FROM", 1000)
    rng = np.random.default_rng(3)
    words = rng.integers(0, 50, size=(2000, 2)).astype(np.uint64)
    small = _label_kernels.code_keys(words[:999])
    assert calls == []
    large = _label_kernels.code_keys(words)
    assert calls == [2000]
    assert_array_equal(large[0][0][:999], small[0][0])
    reference = _label_kernels.code_keys_numpy(words)
    assert_array_equal(large[0][0], reference[0])
    assert_array_equal(large[1], reference[1])
    # a collision of the numpy passes: the compiled loop codes them exactly
    monkeypatch.setattr(_label_kernels, "_FNV_PRIME", np.uint64(0))
    X = np.array(["aaaaaaaa_x", "bbbbbbbb_x", "aaaaaaab_x", "aaaaaaaa_x"])
    collided = _label_kernels.key_words(X)
    assert _label_kernels.code_keys_numpy(collided) is None
    codes, first = _label_kernels.code_keys(collided)
    assert calls[-1] == 4
    assert codes[0].tolist() == [0, 1, 2, 0] and first.tolist() == [0, 1, 2]
