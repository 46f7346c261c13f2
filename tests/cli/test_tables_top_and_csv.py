"""Every printed table obeys ``--top`` and is written in full by ``--csv``."""

import re
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sklearn_eval.cli._output import number

from ._helpers import read_table, run, write_wide
from .conftest import MATCH_COLUMNS


def _result_file(tmp_path, n_agents=14, n_tasks=12):
    rng = np.random.default_rng(11)
    values = (rng.uniform(size=(n_agents, n_tasks)) < 0.5).astype(float)
    values[:, 0] = 1.0 - np.arange(n_agents) / n_agents  # no constant task
    return write_wide(tmp_path / "s.csv", values)


TABLE_COMMANDS = {
    "rank": (lambda tmp, m: ["rank", m, *MATCH_COLUMNS], 1),
    "nash": (lambda tmp, m: ["nash", _result_file(tmp)], 2),
    "nash-matches": (
        lambda tmp, m: ["nash", m, "--input", "matches", *MATCH_COLUMNS],
        1,
    ),
    "irt": (lambda tmp, m: ["irt", _result_file(tmp)], 2),
    "generality": (lambda tmp, m: ["generality", _result_file(tmp), "--bins", "2"], 1),
    "select": (lambda tmp, m: ["select", _result_file(tmp), "--n-tasks", "6"], 1),
}


def printed_tables(text):
    """Row texts of every aligned table in ``text`` (the lines under a rule)."""
    lines = text.splitlines()
    tables = []
    for k, line in enumerate(lines):
        if line and set(line.replace(" ", "")) == {"-"} and k > 0:
            rows = []
            for row in lines[k + 1 :]:
                if (
                    not row
                    or row.startswith(("... ", "table written"))
                    or row.endswith(":")
                ):
                    break
                rows.append(" ".join(row.split()))  # widths follow the rows shown
            tables.append(rows)
    return tables


@pytest.mark.parametrize("command", sorted(TABLE_COMMANDS))
def test_top_cuts_every_ranking_the_csv_keeps_all(
    command, matches_csv, tmp_path, capsys
):
    build, n_tables = TABLE_COMMANDS[command]
    argv = build(tmp_path, matches_csv[0])
    full = tmp_path / "full.csv"
    code, text_all, err = run([*argv, "-q", "--csv", full], capsys)
    assert code == 0, err
    code, text_top, err = run(
        [*argv, "-q", "--top", "2", "--csv", tmp_path / "top.csv"], capsys
    )
    assert code == 0, err
    tables_all, tables_top = printed_tables(text_all), printed_tables(text_top)
    assert len(tables_all) == len(tables_top) == n_tables
    for rows_all, rows_top in zip(tables_all, tables_top, strict=True):
        assert rows_top == rows_all[:2]
        if len(rows_all) > 2:
            assert f"... {len(rows_all) - 2} more rows (--top 0 shows all)" in text_top
    # --csv wrote every printed table, in full, whatever --top
    full_files = sorted(tmp_path.glob("full*.csv"))
    top_files = sorted(tmp_path.glob("top*.csv"))
    assert len(full_files) == len(top_files) == n_tables
    for full_file, top_file, rows_all in zip(
        full_files, top_files, tables_all, strict=True
    ):
        assert read_table(full_file) == read_table(top_file)
        assert len(read_table(full_file)[1]) == len(rows_all)
    assert text_all.count("table written to ") == n_tables


def test_csv_rows_are_the_printed_rows_in_full_precision(tmp_path, capsys):
    path = _result_file(tmp_path)
    table = tmp_path / "irt.csv"
    code, text, _ = run(["irt", path, "-q", "--csv", table], capsys)
    assert code == 0
    printed = printed_tables(text)
    for rows_printed, csv_path in zip(
        printed, [table, tmp_path / "irt_agents.csv"], strict=True
    ):
        _, rows = read_table(csv_path)
        assert len(rows) == len(rows_printed)
        for line, row in zip(rows_printed, rows, strict=True):
            cells = line.split()
            assert cells[0] == row[0]  # the same label in the same order
            for shown, value in zip(cells[1:], row[1:], strict=True):
                if shown == "-":  # NaN
                    assert value == ""
                    continue
                assert float(shown) == pytest.approx(float(value), abs=0.0051)
    # the CSV is not rounded to the printed digits
    _, rows = read_table(table)
    assert any(len(value.split(".")[-1]) > 2 for row in rows for value in row[1:])


def test_csv_path_without_suffix_gets_csv_files(tmp_path, capsys):
    code, _, _ = run(
        ["irt", _result_file(tmp_path), "-q", "--csv", tmp_path / "out"], capsys
    )
    assert code == 0
    assert (tmp_path / "out").is_file() and (tmp_path / "out_agents.csv").is_file()


def test_unwritable_csv_is_one_line_exit_1(tmp_path, capsys):
    target = tmp_path / "missing" / "t.csv"
    code, _, err = run(["irt", _result_file(tmp_path), "-q", "--csv", target], capsys)
    assert code == 1
    errors = [
        line
        for line in err.splitlines()
        if not line.startswith("sklearn-eval: warning")
    ]
    assert errors == [
        f"sklearn-eval irt: error: cannot write {target}: No such file or directory;"
        " no table file was written"
    ]


def test_nan_prints_as_a_dash_and_writes_as_an_empty_cell(tmp_path, capsys):
    # a constant task has no IRT difficulty: NaN in the task table
    values = np.array([[1.0, 1, 0], [1, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 0]])
    path = write_wide(tmp_path / "c.csv", values)
    table = tmp_path / "t.csv"
    code, text, _ = run(["irt", path, "-q", "--csv", table], capsys)
    assert code == 0
    row = next(r for r in read_table(table)[1] if r[0] == "task0")
    assert row[1] == "" and re.search(r"^task0\s+-\s", text, flags=re.M)


MULTI_TABLE_COMMANDS = {
    "nash": lambda tmp, m: ["nash", _result_file(tmp)],
    "irt": lambda tmp, m: ["irt", _result_file(tmp)],
    "advise": lambda tmp, m: ["advise", _result_file(tmp), "--cv", "2"],
    "rank --tiers": lambda tmp, m: ["rank", m, *MATCH_COLUMNS, "--tiers",
                                    "--n-resamples", "20"],
}


@pytest.mark.parametrize("command", sorted(MULTI_TABLE_COMMANDS))
@pytest.mark.parametrize("blocked", [0, 1])
def test_the_table_files_of_one_run_are_written_all_or_none(
    command, blocked, matches_csv, tmp_path, capsys
):
    # one --csv writes several files; when one of them cannot be written (here
    # a folder in its place) none of the others is replaced
    argv = MULTI_TABLE_COMMANDS[command](tmp_path, matches_csv[0])
    out = tmp_path / "out"
    out.mkdir()
    code, text, err = run([*argv, "-q", "--csv", out / "t.csv"], capsys)
    assert code == 0, err
    written = sorted(out.iterdir())
    assert len(written) == 2
    for path in written:
        path.write_text(f"earlier {path.name}\n")
    written[blocked].unlink()
    written[blocked].mkdir()
    code, _, err = run([*argv, "-q", "--csv", out / "t.csv"], capsys)
    assert code == 1
    errors = [line for line in err.splitlines()
              if not line.startswith("sklearn-eval: warning")]
    assert len(errors) == 1 and str(written[blocked]) in errors[0]
    assert "no table file was written" in errors[0]
    kept = written[1 - blocked]
    assert kept.read_text() == f"earlier {kept.name}\n"
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)


def _printed_headers(text):
    """The header cells of every printed table, in order."""
    lines = text.splitlines()
    return [re.split(r"\s{2,}", lines[k - 1].strip())
            for k, line in enumerate(lines)
            if k and line and set(line.replace(" ", "")) == {"-"}]


MAIN_TABLE = {  # command line -> which printed table is the main one (0-based)
    "nash": (lambda tmp, m: ["nash", _result_file(tmp)], 0),
    "irt": (lambda tmp, m: ["irt", _result_file(tmp)], 0),
    "rank --tiers": (lambda tmp, m: ["rank", m, *MATCH_COLUMNS, "--tiers",
                                     "--n-resamples", "20"], 0),
    "advise": (lambda tmp, m: ["advise", _result_file(tmp), "--cv", "2"], 0),
    "vote": (lambda tmp, m: ["vote", _result_file(tmp)], 0),
    "select": (lambda tmp, m: ["select", _result_file(tmp), "--n-tasks", "6"], 0),
    # the datasets overview is printed first; the ranking is demo's result
    "demo": (lambda tmp, m: ["demo", "-o", tmp / "d.html", "--n-resamples", "0",
                             "--no-figures"], 1),
}


@pytest.mark.parametrize("command", sorted(MAIN_TABLE))
def test_csv_path_holds_the_main_table_the_guide_names(command, matches_csv,
                                                       tmp_path, capsys):
    build, main_index = MAIN_TABLE[command]
    out = tmp_path / "out.csv"
    code, text, err = run([*build(tmp_path, matches_csv[0]), "-q", "--csv", out],
                          capsys)
    assert code == 0, err
    headers = _printed_headers(text)
    assert read_table(out)[0] == headers[main_index]
    others = [h for k, h in enumerate(headers) if k != main_index]
    beside = sorted(set(tmp_path.glob("out_*.csv")))
    assert sorted(read_table(p)[0] for p in beside) == sorted(others)


@settings(max_examples=300, deadline=None)
@given(value=st.floats(allow_nan=False, allow_infinity=False),
       digits=st.integers(0, 6))
@example(value=9999999999.9996, digits=3)  # rounds up to 1e10
@example(value=-9999999999.96, digits=1)
def test_printed_numbers_stay_short_and_keep_their_value(value, digits):
    """Any float prints in at most ``digits + 11`` characters (at most ten
    integer digits: scientific from 1e10 up, as payoffs may reach the float
    maximum) and reads back within half a unit of its last printed digit."""
    text = number(value, digits)
    assert len(text) <= digits + 11 + (value < 0)
    error = abs(Decimal(text) - Decimal(value))  # 1.8e+308 is past a float
    if abs(value) >= 1e10:
        assert "e" in text  # the mantissa's last digit
        assert error <= Decimal(0.5) * Decimal(10) ** -max(digits, 1) * Decimal(
            abs(value)) * Decimal(1 + 1e-12)
    else:
        assert error <= Decimal(0.5) * Decimal(10) ** -digits * Decimal(1 + 1e-9)


def test_huge_differences_print_in_scientific_notation(tmp_path, capsys):
    rng = np.random.default_rng(0)
    path = write_wide(tmp_path / "big.csv", rng.normal(size=(4, 20)) * 1e14)
    code, out, err = run(["compare", str(path), "-q"], capsys)
    assert code == 0, err
    body = out.splitlines()[3:]
    assert body and all(re.search(r"\de\+1[34]", line) for line in body)
    assert max(len(line) for line in body) < 100
