"""Item files check themselves (user guide: efficient evaluation, keeping the subset).

An item file written from real data (ChemBench, shipped) is cut at every byte
and edited one byte at a time: each damaged copy is refused with an error
naming the file and what is wrong, or reads to the identical predictions.
Header keys, cell values, the first format version, file objects, the compact
quadrature grid and the spreadsheet-safe task names are checked as classes.
"""

import ast
import hashlib
import inspect
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.datasets import load_chembench, make_irt_responses
from sklearn_eval.irt import IRT2PL
from sklearn_eval.selection import (
    SubsetScoreEstimator,
    _subset_io,
    read_items_csv,
    write_items_csv,
)
from sklearn_eval.utils._spreadsheet import neutralize_text

NAME = "chembench_items.csv"
LEGACY = Path(__file__).parent / "data" / "legacy_items_v1.csv"


def _fit_quietly(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # few models, constant items
        return est.fit(X)


@pytest.fixture(scope="module")
def chembench():
    X = load_chembench().data[:, :80]
    keep = np.nanstd(X, axis=0) > 0  # items some model solves and some fails
    return X[:, keep]


@pytest.fixture(scope="module")
def written(chembench):
    """(estimator, file bytes) of a regression item file: every header key."""
    est = _fit_quietly(SubsetScoreEstimator(n_items=8, selection="stratified",
                                            method="regression", random_state=0),
                       chembench)
    buffer = io.BytesIO()
    write_items_csv(est, buffer)
    return est, buffer.getvalue()


def _named(data, name=NAME):
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


def _outputs(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return (est.predict(X), *est.predict_interval(X))


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _resign(text):
    """The text with its checksum recomputed (SHA-256 of the file without it)."""
    unsigned = re.sub(r"# checksum=[^\n]*\n", "", text)
    digest = hashlib.sha256(unsigned.encode("utf-8")).hexdigest()
    return re.sub(r"# checksum=[^\n]*\n", f"# checksum=sha256:{digest}\n", text)


# --------------------------------------------------------------------------
# damaged files: every cut, random single-byte edits
# --------------------------------------------------------------------------
def test_every_truncation_is_refused_as_cut_short(written):
    _, data = written
    for end in range(len(data)):
        with pytest.raises(ValueError) as info:
            read_items_csv(_named(data[:end]))
        message = str(info.value)
        assert message.startswith(NAME), (end, message)
        assert "cut short" in message, (end, message)


def test_single_byte_edits_are_refused_or_change_nothing(written, chembench):
    est, data = written
    expected = _outputs(read_items_csv(_named(data)), chembench)
    assert _same(expected, _outputs(est, chembench))
    rng = np.random.default_rng(0)
    accepted = 0
    for position in rng.integers(0, len(data), 1500):
        edited = bytearray(data)
        edited[position] = (data[position] + rng.integers(1, 256)) % 256
        try:
            again = read_items_csv(_named(bytes(edited)))
        except ValueError as exc:
            assert str(exc).startswith(NAME), (position, str(exc))
            continue
        accepted += 1
        assert _same(_outputs(again, chembench), expected), position
    assert accepted < 15  # only edits that change no byte of meaning pass


def test_converted_line_ends_read_as_written(written, chembench):
    est, data = written
    crlf = data.replace(b"\n", b"\r\n")
    assert _same(_outputs(read_items_csv(_named(crlf)), chembench),
                 _outputs(est, chembench))
    with_bom = b"\xef\xbb\xbf" + data
    assert _same(_outputs(read_items_csv(_named(with_bom)), chembench),
                 _outputs(est, chembench))


@pytest.mark.slow
def test_full_chembench_file_cut_at_every_line_and_edited():
    X = load_chembench().data
    est = _fit_quietly(SubsetScoreEstimator(n_items=30, selection="stratified",
                                            method="irt", random_state=0), X)
    buffer = io.BytesIO()
    write_items_csv(est, buffer)
    data = buffer.getvalue()
    rng = np.random.default_rng(1)
    ends = [k for k, byte in enumerate(data) if byte == ord("\n")]
    cuts = sorted({*ends, *(e + 1 for e in ends[:-1]),
                   *rng.integers(0, len(data), 400).tolist()})
    for end in cuts:
        if end >= len(data):
            continue
        with pytest.raises(ValueError, match=rf"^{NAME}: .*cut short"):
            read_items_csv(_named(data[:end]))
    expected = _outputs(est, X)
    for position in rng.integers(0, len(data), 300):
        edited = bytearray(data)
        edited[position] ^= 1 << int(rng.integers(0, 8))
        try:
            again = read_items_csv(_named(bytes(edited)))
        except ValueError as exc:
            assert str(exc).startswith(NAME)
            continue
        assert _same(_outputs(again, X), expected)


# --------------------------------------------------------------------------
# header keys and cells: errors name the key (or row and column) and the file
# --------------------------------------------------------------------------
def _line_of(key):
    """Pattern of a header line and its continuation lines."""
    return rf"# {key}=[^\n]*\n(?:#   [^\n]*\n)*"


KEYS = ("format", "selection", "estimator", "interval_method", "fallback_accuracy",
        "quadrature_nodes", "quadrature_weights", "cv_residuals",
        "ability_coefficient", "intercept", "labels", "rows", "checksum")


@pytest.mark.parametrize("key", KEYS)
def test_missing_header_key_is_named(written, key):
    text = written[1].decode()
    edited = re.sub(_line_of(key), "", text)
    assert edited.count("\n") < text.count("\n")
    pattern = "Not a subset-score" if key == "format" else rf"'# {key}=\.\.\.'"
    with pytest.raises(ValueError, match=rf"^{NAME}: .*{pattern}"):
        read_items_csv(_named(edited.encode()))


@pytest.mark.parametrize(("key", "value"), [
    (key, value) for key in KEYS[1:] for value in ("abc", "", "nan,1", "inf")
    if (key, value) != ("cv_residuals", "")  # no residuals is legal (from_items)
])
def test_unparsable_header_value_is_named(written, key, value):
    text = written[1].decode()
    edited = re.sub(_line_of(key), f"# {key}={value}\n", text)
    if key != "checksum":
        edited = _resign(edited)
    with pytest.raises(ValueError, match=rf"^{NAME}: .*'{key}'"):
        read_items_csv(_named(edited.encode()))


def _edit_cell(text, row, column, value):
    head, _, body = text.rpartition("# checksum=")
    checksum, _, table = body.partition("\n")
    records = table.split("\n")
    names = records[0].split(",")
    cells = records[row].split(",")
    cells[names.index(column)] = value
    records[row] = ",".join(cells)
    return _resign(f"{head}# checksum={checksum}\n" + "\n".join(records))


@pytest.mark.parametrize("value", ["2", "7", "-1", "True", "1.0", "", "x"])
def test_selected_must_be_zero_or_one(written, value):
    text = _edit_cell(written[1].decode(), 1, "selected", value)
    with pytest.raises(ValueError,
                       match=rf"^{NAME}: item row 1, column 'selected' must be 0 or 1"):
        read_items_csv(_named(text.encode()))


@pytest.mark.parametrize(("column", "value", "message"), [
    ("weight", "abc", "item row 3, column 'weight'"),
    ("weight", "inf", "item row 3, column 'weight'"),
    ("order", "1.5", "item row 3, column 'order'"),
    ("column", "-2", "item row 3, column 'column'"),
    ("success_rate", "nan", "item row 3, column 'success_rate'"),
    ("order", "1", "'order' must number the selected items"),
    ("column", "0", "'column' must number the items"),
    ("success_rate", "1.5", "'success_rate' must lie in"),
    ("discrimination", "", "both given or both"),
])
def test_bad_cells_are_named(written, column, value, message):
    text = _edit_cell(written[1].decode(), 3, column, value)
    with pytest.raises(ValueError, match=rf"^{NAME}: .*{re.escape(message)}"):
        read_items_csv(_named(text.encode()))


def test_row_count_must_match(written):
    text = written[1].decode()
    rows = int(re.search(r"# rows=(\d+)", text).group(1))
    edited = _resign(text.replace(f"# rows={rows}\n", f"# rows={rows + 1}\n"))
    with pytest.raises(ValueError, match=rf"^{NAME}: .*{rows} item rows"):
        read_items_csv(_named(edited.encode()))


def test_writer_refuses_other_estimators():
    with pytest.raises(TypeError, match="SubsetScoreEstimator; got IRT2PL"):
        write_items_csv(IRT2PL(), io.StringIO())
    with pytest.raises(ValueError, match="not fitted"):
        write_items_csv(SubsetScoreEstimator(), io.StringIO())


def test_not_an_item_file(tmp_path):
    for data in (b"", b"\n\n", b"task,weight\na,1\n", b"\xff\xfe# format",
                 b"# format=sklearn-eval subset-score v9\n"):
        with pytest.raises(ValueError, match=f"^{NAME}: "):
            read_items_csv(_named(data))
    with pytest.raises(IsADirectoryError):
        read_items_csv(tmp_path)


# --------------------------------------------------------------------------
# sources, versions, grid, names
# --------------------------------------------------------------------------
def test_reads_paths_and_file_objects(written, chembench, tmp_path):
    est, data = written
    path = tmp_path / "items.csv"
    write_items_csv(est, path)
    assert path.read_bytes() == data
    expected = _outputs(est, chembench)
    with open(path, encoding="utf-8", newline="") as text_file:
        from_text = read_items_csv(text_file)
    with open(path, "rb") as binary_file:
        from_binary = read_items_csv(binary_file)
    for again in (read_items_csv(path), read_items_csv(str(path)), from_text,
                  from_binary, read_items_csv(io.StringIO(data.decode()))):
        assert _same(_outputs(again, chembench), expected)
    damaged = tmp_path / "damaged.csv"
    damaged.write_bytes(data[:-10])
    with pytest.raises(ValueError, match=f"^{re.escape(str(damaged))}: "):
        read_items_csv(damaged)


def test_first_version_files_are_read_with_a_warning():
    X = make_irt_responses(60, 12, random_state=3)
    frame = pd.DataFrame(X, columns=[f"item {k}" for k in range(12)])
    est = _fit_quietly(SubsetScoreEstimator(n_items=4, selection="stratified",
                                            method="gp-irt", random_state=0),
                       frame)
    with pytest.warns(UserWarning, match="cannot be verified"):
        legacy = read_items_csv(LEGACY)
    assert list(legacy.feature_names_in_) == list(frame.columns)
    for a, b in zip(_outputs(legacy, frame), _outputs(est, frame), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)
    # a cut legacy file is still checked cell by cell
    text = LEGACY.read_text()
    with pytest.raises(ValueError, match=r"item row|column|cut short"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            read_items_csv(io.StringIO(text[:-30]))


@pytest.mark.parametrize(("irt", "nodes", "weights"), [
    (None, "linspace(-6.0, 6.0, 121)", "normal"),
    (IRT2PL(model="1PL", n_quadrature=41, quadrature_bound=4.0),
     "linspace(-4.0, 4.0, 41)", "normal"),
    (IRT2PL(model="1PL", quadrature="gauss-hermite"), "gauss-hermite(21)",
     "gauss-hermite"),
])
def test_quadrature_grid_is_compact_and_exact(irt, nodes, weights):
    X = make_irt_responses(80, 30, random_state=1)
    est = _fit_quietly(SubsetScoreEstimator(n_items=6, selection="stratified",
                                            method="irt", irt=irt,
                                            random_state=0), X)
    buffer = io.StringIO()
    write_items_csv(est, buffer)
    text = buffer.getvalue()
    assert f"# quadrature_nodes={nodes}\n" in text
    assert f"# quadrature_weights={weights}\n" in text
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert max(len(line) for line in header) < 140  # long lists wrap
    buffer.seek(0)
    assert _same(_outputs(read_items_csv(buffer), X), _outputs(est, X))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=8), min_size=2, max_size=6, unique=True))
def test_task_names_round_trip_and_are_neutralised(names):
    est = SubsetScoreEstimator.from_items([1, 0], [0.25, 0.75], feature_names=names)
    buffer = io.StringIO()
    write_items_csv(est, buffer)
    buffer.seek(0)
    again = read_items_csv(buffer)
    assert list(again.tasks_) == names
    assert list(again.feature_names_in_) == names
    assert again.selected_items_.tolist() == [0, 1]
    text = buffer.getvalue()
    table = text[text.index("\ntask,") + 1:]
    cells = [row[0] for row in pd.read_csv(io.StringIO(table), dtype=str,
                                           keep_default_na=False,
                                           usecols=["task"]).itertuples(index=False)]
    assert len(cells) == len(names)
    for cell in cells:  # a spreadsheet opening the file sees text only
        assert neutralize_text(cell) == cell


@pytest.mark.parametrize("name", ["=HYPERLINK(1)", "+1+1", "-sum(A1)", "@cmd",
                                  "'=quoted", "-35.2"])
def test_formula_names_get_one_quote(name):
    est = SubsetScoreEstimator.from_items([0], feature_names=[name, "b"])
    buffer = io.StringIO()
    write_items_csv(est, buffer)
    row = buffer.getvalue().split("\n")[-3]
    expected = name if name == "-35.2" else "'" + name
    assert row.startswith(expected + ",0,1,1,")
    buffer.seek(0)
    assert read_items_csv(buffer).tasks_[0] == name


def test_reader_does_not_write_private_state():
    """The reader builds the estimator through its restoring classmethod."""
    tree = ast.parse(inspect.getsource(_subset_io))
    private = [
        target.attr
        for node in ast.walk(tree) if isinstance(node, ast.Assign | ast.AugAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and target.attr.startswith("_")
    ]
    assert private == []
    assert "_from_fitted_state" in inspect.getsource(_subset_io)


# ------------------------------------------------- calibrations beyond 2PL
def _asymptote_fit(model, method="irt", seed=0):
    from sklearn_eval.irt import IRT

    X = make_irt_responses(200, 40, random_state=seed)
    est = SubsetScoreEstimator(n_items=10, selection="information", method=method,
                               irt=IRT(model=model), random_state=0)
    return _fit_quietly(est, X[:150]), X


@pytest.mark.parametrize("model", ["3PL", "4PL"])
@pytest.mark.parametrize("method", ["irt", "gp-irt"])
def test_asymptotes_round_trip_to_the_same_predictions(model, method):
    est, X = _asymptote_fit(model, method)
    buffer = io.StringIO()
    write_items_csv(est, buffer)
    text = buffer.getvalue()
    assert text.startswith("# format=sklearn-eval subset-score v3")
    again = read_items_csv(io.StringIO(text))
    new = X[150:, est.selected_items_]
    np.testing.assert_array_equal(again.predict(new), est.predict(X[150:]))
    table = again.task_table()
    np.testing.assert_array_equal(table[["guessing", "upper"]].to_numpy(),
                                  est.task_table()[["guessing", "upper"]].to_numpy())


def test_an_asymptote_out_of_order_is_refused():
    est, _ = _asymptote_fit("4PL")
    text = _subset_io.item_file_text(est)
    head, body = text.split("task,column", 1)
    lines = body.splitlines()
    cells = lines[1].split(",")
    cells[-2], cells[-1] = "0.9", "0.2"  # guessing above upper
    lines[1] = ",".join(cells)
    body = "\n".join(lines) + "\n"
    head = head.split("# checksum=")[0]
    digest = hashlib.sha256((head + "task,column" + body).encode()).hexdigest()
    edited = f"{head}# checksum=sha256:{digest}\ntask,column{body}"
    with pytest.raises(ValueError, match="0 <= guessing < upper <= 1"):
        read_items_csv(io.StringIO(edited))


@pytest.mark.parametrize("model", ["GRM", "beta"])
def test_graded_and_continuous_calibrations_are_refused_when_written(model):
    from sklearn_eval.irt import IRT

    rng = np.random.default_rng(0)
    X = (rng.integers(0, 3, (80, 12)).astype(float) if model == "GRM"
         else rng.uniform(0.05, 0.95, (80, 12)))
    est = _fit_quietly(SubsetScoreEstimator(n_items=4, method="irt",
                                            irt=IRT(model=model), random_state=0), X)
    with pytest.raises(ValueError, match=f"IRT\\(model='{model}'\\) has no item-file"):
        write_items_csv(est, io.StringIO())
