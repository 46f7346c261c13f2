"""The field separator of a result table is found whatever the line lengths.

Real leaderboard exports (tab-separated, R-style headers one field shorter
than the rows, rows of thousands of columns) made the sniffer give up, and
the file was then read as one comma-separated column: every command said the
file had "no task column" instead of naming the real problem.
"""

import pytest

from sklearn_eval.report import CSVError, detect_format, read_result_matrix

SEPARATORS = [",", "\t", ";", "|"]


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("sep", SEPARATORS)
@pytest.mark.parametrize("n_tasks", [3, 3000])
def test_wide_table_with_long_lines_is_read_with_its_separator(
    tmp_path, sep, n_tasks
):
    # 3000 tasks: a line is longer than the sniffer's sample
    header = sep.join(["agent"] + [f"task {k}" for k in range(n_tasks)])
    rows = [
        sep.join(
            [f"model {a}"] + [f"{0.5 + 0.001 * (a + k):.4f}" for k in range(n_tasks)]
        )
        for a in range(4)
    ]
    path = _write(tmp_path / "wide.txt", [header] + rows)
    table = read_result_matrix(path)
    assert table.values.shape == (4, n_tasks)
    assert table.tasks[-1] == f"task {n_tasks - 1}"


@pytest.mark.parametrize("sep", SEPARATORS)
def test_ragged_rows_are_named_not_read_as_one_column(tmp_path, sep):
    # an R-style export: the header has no name for the row-label column
    header = sep.join(["mean", "t1", "t2", "t3"])
    rows = [
        sep.join(["m1", "0.1", "0.2", "0.3", "0.4"]),
        sep.join(["m2", "1", "2", "3", "4"]),
    ]
    path = _write(tmp_path / "ragged.tsv", [header] + rows)
    with pytest.raises(CSVError, match=r"line 2: 5 fields, expected 4 as in the"):
        read_result_matrix(path)


@pytest.mark.parametrize("sep", SEPARATORS)
def test_match_columns_are_found_in_a_ragged_file(tmp_path, sep):
    header = sep.join(["first", "second", "outcome"])
    rows = [sep.join(["a", "b", "1", "note"]), sep.join(["b", "a", "0"])]
    path = _write(tmp_path / "m.txt", [header] + rows)
    assert detect_format(path) == "matches"


def test_a_separator_not_sniffed_is_named_as_the_remedy(tmp_path):
    path = _write(tmp_path / "matrix.txt", ["a b c", "x 0.5 0.4", "y 0.6 0.5"])
    with pytest.raises(CSVError, match=r"single column.*\(sep=, --sep on the"):
        read_result_matrix(path)
    table = read_result_matrix(path, sep=" ")
    assert table.values.shape == (2, 2)
