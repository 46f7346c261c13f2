"""CSV readers: long and wide result matrices and match files, with exact errors."""

import csv
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.report import CSVError, read_csv, read_matches, read_result_matrix


def test_read_csv_separator_blank_lines_and_gzip(tmp_path):
    import gzip

    path = tmp_path / "t.csv"
    path.write_text("agent;score\n\nA;1\nB;2\n")
    assert read_csv(path) == (["agent", "score"], [["A", "1"], ["B", "2"]])
    packed = tmp_path / "t.csv.gz"
    with gzip.open(packed, "wt") as handle:
        handle.write("agent\tscore\nA\t1\n")
    assert read_csv(packed) == (["agent", "score"], [["A", "1"]])


def test_read_long_means_and_spreads(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("agent,task,score\nB,t1,1\nB,t1,3\nA,t2,5\nA,t1,\nB,t2,NA\n")
    table = read_result_matrix(path)
    assert table.agents.tolist() == ["A", "B"] and table.tasks.tolist() == ["t1", "t2"]
    assert np.array_equal(table.values, [[np.nan, 5.0], [2.0, np.nan]], equal_nan=True)
    assert np.array_equal(table.stds, [[np.nan, 0.0], [1.0, np.nan]], equal_nan=True)
    assert table.counts.tolist() == [[0, 1], [2, 0]]


def test_read_wide_uses_the_agent_column_anywhere(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("t1,name,t2\n1,A,2\n3,B,\n")
    table = read_result_matrix(path, agent_col="name")
    assert table.agents.tolist() == ["A", "B"]
    assert table.tasks.tolist() == ["t1", "t2"]
    assert np.array_equal(table.values, [[1, 2], [3, np.nan]], equal_nan=True)
    assert table.stds is None


def test_read_wide_rejects_repeated_agents(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("agent,t1\nA,1\nA,2\n")
    with pytest.raises(CSVError, match="agent 'A' appears in more than one row"):
        read_result_matrix(path)


def test_read_matches_outcome_words(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(
        "first,second,outcome,w\na,b,W,1\nb,c,draw,2\nc,a,0-1,0\na,c,0.5,1.5\n"
    )
    table = read_matches(path, weight_col="w")
    assert table.X.tolist() == [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]]
    assert table.y.tolist() == [1.0, 0.5, 0.0, 0.5]
    assert table.sample_weight.tolist() == [1.0, 2.0, 0.0, 1.5]


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    data=st.data(),
)
def test_wide_csv_round_trip(shape, data, tmp_path_factory):
    n, m = shape
    values = np.array(
        data.draw(
            st.lists(
                st.one_of(st.none(), st.floats(-1e9, 1e9, allow_nan=False)),
                min_size=n * m,
                max_size=n * m,
            )
        ),
        dtype=object,
    ).reshape(n, m)
    values = np.where(values == None, np.nan, values).astype(float)  # noqa: E711
    if np.isnan(values).all():
        values[0, 0] = 1.0
    path = tmp_path_factory.mktemp("rt") / "w.csv"
    lines = ["agent," + ",".join(f"t{j}" for j in range(m))]
    for i in range(n):
        cells = ["" if np.isnan(v) else repr(float(v)) for v in values[i]]
        lines.append(f"a{i}," + ",".join(cells))
    path.write_text("\n".join(lines) + "\n")
    table = read_result_matrix(path)
    assert np.array_equal(table.values, values, equal_nan=True)
    assert table.agents.tolist() == [f"a{i}" for i in range(n)]


def test_error_lines_count_blank_lines_and_quoted_newlines(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('agent,task,score\n\n"multi\nline",t1,1\n   \nB,t1,oops\n')
    with pytest.raises(CSVError, match=r"line 6, column 'score': 'oops'"):
        read_result_matrix(path)
    path.write_text("agent,task,score\n\nA,t1,1\n   \nB,t1,oops\n")
    with pytest.raises(CSVError, match=r"line 5, column 'score': 'oops'"):
        read_result_matrix(path)
    path.write_text("agent,task,score\nA,t1,1\n   \nB,t1,2\n")
    assert read_result_matrix(path).agents.tolist() == ["A", "B"]


def test_many_outcome_tokens_and_bad_token_line(tmp_path):
    path = tmp_path / "m.csv"
    rows = [
        f"p{k},q{k},{['win', 'loss', 'draw', '1', '0', '0.5'][k % 6]}"
        for k in range(60)
    ]
    rows[41] = "p41,q41,maybe"
    path.write_text("first,second,outcome\n" + "\n".join(rows) + "\n")
    with pytest.raises(CSVError, match=r"line 43, column 'outcome': outcome 'maybe'"):
        read_matches(path)
    rows[41] = "p41,q41,1"
    path.write_text("first,second,outcome\n" + "\n".join(rows) + "\n")
    table = read_matches(path)
    expected = [[1.0, 0.0, 0.5, 1.0, 0.0, 0.5][k % 6] for k in range(60)]
    expected[41] = 1.0
    assert table.y.tolist() == expected


_CELL = st.one_of(
    st.sampled_from(["", "NA", "nan", " 1 ", "0.5", "x y", "-3e2", "win", "  "]),
    st.sampled_from(['"a,b"', '"two\nlines"', '"say ""hi"""', '""', 'x"y', '"q"r']),
    st.text(alphabet="abc019.;\t -", max_size=4),
)


def _standard_rows(text):
    """The rows Python's csv module reads (the format's oracle), up to an error.

    Returns the (last line, fields) of each record read and the line of the
    first malformed record, or None.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = []
    try:
        for fields in reader:
            rows.append((reader.line_num, fields))
    except csv.Error:
        return rows, (rows[-1][0] + 1 if rows else 1)
    return rows, None


@settings(max_examples=80, deadline=None)
@given(
    header=st.lists(
        st.sampled_from(["agent", "task", "score", "t1", "t2"]),
        min_size=2,
        max_size=4,
        unique=True,
    ),
    rows=st.lists(st.lists(_CELL, min_size=1, max_size=5), min_size=0, max_size=6),
    blank=st.booleans(),
    crlf=st.booleans(),
)
def test_reader_agrees_with_the_standard_csv_module(
    header, rows, blank, crlf, tmp_path_factory
):
    """The fields of every row are those of RFC 4180 as Python's csv reads them.

    A row whose number of fields differs from the header's is an error naming
    the row's first line (blank lines are skipped).
    """
    lines = [",".join(header)] + [",".join(row) for row in rows]
    if blank:
        lines.insert(min(2, len(lines)), "")
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    path = tmp_path_factory.mktemp("csv") / "f.csv"
    path.write_bytes(text.encode())
    records, broken = _standard_rows(text)
    body = [
        (line, fields)
        for line, fields in records[1:]
        if fields and not (len(fields) == 1 and not fields[0].strip())
    ]
    ragged = [line for line, fields in body if len(fields) != len(header)]
    first_lines = [1] + [line + 1 for line, _ in records[:-1]]
    start = dict(zip([line for line, _ in records], first_lines, strict=True))
    if ragged:
        with pytest.raises(CSVError, match=f"line {start[ragged[0]]}: "):
            read_csv(path, sep=",")
    elif broken is not None:
        # the broken record may also have the wrong number of fields: either
        # defect, named on the record's line, is the right answer
        with pytest.raises(
            CSVError, match=f"line {broken}: (malformed quoting|\\d+ fields?, expected)"
        ):
            read_csv(path, sep=",")
    elif not body:
        with pytest.raises(CSVError, match="no data rows"):
            read_csv(path, sep=",")
    else:
        assert read_csv(path, sep=",") == (header, [fields for _, fields in body])


def test_broken_quoting_is_named_on_its_line(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('agent,score\n"a\nb",1\n\n"x"y,2\n')
    with pytest.raises(CSVError, match=r"line 5: malformed quoting"):
        read_csv(path)
    path.write_text('agent,score\nA,1\n"B,2\nC,3\n')
    with pytest.raises(CSVError, match=r"line 3: malformed quoting \(a quoted field"):
        read_csv(path)
