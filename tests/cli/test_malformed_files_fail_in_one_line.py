"""Every command rejects every class of malformed input file the same way.

A seeded corpus of damaged CSV files (empty, header only, empty quoted
fields, ragged rows, bad encodings, missing-value markers as labels,
duplicated header names, huge numbers, broken quoting, ...) is run through
every command that reads a file: each must exit with code 2 and print exactly
one line on stderr that names the file and the problem (and the line of the
file where there is one), never a traceback, never a result.
"""

import gzip
import re

import numpy as np
import pytest

from sklearn_eval.report import CSVError, read_matches, read_result_matrix

from ._helpers import (
    MATCH_COMMANDS,
    RESULT_COMMANDS,
    assert_one_error_line,
    command_argv,
    run,
)

N_VARIANTS = 3  # seeded variants of every damage class (the row it hits)
MISSING_MARKERS = ["", "NA", "nan", "NaN", "N/A", "null", "None", "<NA>", "#N/A", "-"]


def _wide_rows(rng, n_agents=5, n_tasks=4):
    """A valid wide file as rows of strings: header, then one row per agent."""
    header = ["agent"] + [f"t{j}" for j in range(n_tasks)]
    rows = [
        [f"a{i}"] + [f"{v:.3f}" for v in rng.uniform(0, 1, n_tasks)]
        for i in range(n_agents)
    ]
    return [header, *rows]


def _long_rows(rng, n_agents=5, n_tasks=4):
    rows = [["agent", "task", "score"]]
    for i in range(n_agents):
        for j in range(n_tasks):
            rows.append([f"a{i}", f"t{j}", f"{rng.uniform():.3f}"])
    return rows


def _match_rows(rng, n_players=5, n_matches=30):
    rows = [["first", "second", "outcome"]]
    for _ in range(n_matches):
        a, b = rng.choice(n_players, size=2, replace=False)
        rows.append([f"p{a}", f"p{b}", str(rng.choice(["1", "0", "0.5"]))])
    return rows


def _text(rows):
    return "".join(",".join(row) + "\n" for row in rows).encode()


def _damage_cell(rows, rng, column, value):
    """Put ``value`` in ``column`` of a random data row; return its file line."""
    k = int(rng.integers(1, len(rows)))
    rows[k][column] = value
    return k + 1


# Each damage class: (file kinds, builder). A builder takes (rows, rng) and
# returns (file bytes, expected message fragments).
def _empty(rows, rng):
    return b"", ["is empty"]


def _whitespace_only(rows, rng):
    return b"\n  \n\t\n", ["is empty"]


def _header_only(rows, rng):
    return _text(rows[:1]) + b"\n\n", ["header but no data rows"]


def _empty_quoted_field(rows, rng):
    return b'""\n', ["is empty"]


def _empty_quoted_fields(rows, rng):
    return b'"",""\n""\n', ["column 1 of the header has no name"]


def _ragged_row(rows, rng):
    k = int(rng.integers(1, len(rows)))
    rows[k] = rows[k][:-1] if rng.integers(2) else [*rows[k], "7"]
    return _text(rows), [f"line {k + 1}: {len(rows[k])} fields, expected"]


def _latin1_label(rows, rng):
    line = _damage_cell(rows, rng, 0, "caf\u00e9")
    return _text(rows).replace("caf\u00e9".encode(), b"caf\xe9"), [
        f"line {line}: not UTF-8 text (byte 0xe9)"
    ]


def _utf16_without_bom(rows, rng):
    return _text(rows).decode().encode("utf-16-le"), ["NUL byte"]


def _nul_byte(rows, rng):
    line = _damage_cell(rows, rng, 0, "a\x00b")
    return _text(rows), [f"line {line}: NUL byte"]


def _missing_label(column):
    def build(rows, rng):
        marker = MISSING_MARKERS[int(rng.integers(len(MISSING_MARKERS)))]
        line = _damage_cell(rows, rng, column, marker)
        name = rows[0][column]
        problem = "empty label" if marker == "" else f"missing label {marker!r}"
        return _text(rows), [f"line {line}, column {name!r}: {problem}"]

    return build


def _missing_task_name(rows, rng):
    j = int(rng.integers(1, len(rows[0])))
    marker = ["NA", "nan", "None", "N/A"][int(rng.integers(4))]
    rows[0][j] = marker
    return _text(rows), [f"column {j + 1} of the header is named {marker!r}"]


def _duplicated_header(rows, rng):
    j = int(rng.integers(1, len(rows[0])))
    rows[0][j] = rows[0][j - 1]
    return _text(rows), [f"column {rows[0][j]!r} appears twice in the header"]


def _unnamed_header(rows, rng):
    rows[0][-1] = " "
    return _text(rows), [f"column {len(rows[0])} of the header has no name"]


def _score_cell(value, message):
    def build(rows, rng):
        line = _damage_cell(rows, rng, len(rows[0]) - 1, value)
        return _text(rows), [
            f"line {line}, column {rows[0][-1]!r}: {value!r} {message}"
        ]

    return build


def _broken_quoting(rows, rng):
    k = int(rng.integers(1, len(rows)))
    rows[k][0] = '"x"y'
    return _text(rows), [f"line {k + 1}: malformed quoting"]


def _unclosed_quote(rows, rng):
    k = int(rng.integers(1, len(rows)))
    rows[k][0] = '"x'
    return _text(rows), ["malformed quoting (a quoted field is never closed)"]


def _all_scores_missing(rows, rng):
    first_score = 2 if rows[0][-1] == "score" else 1  # long or wide
    for row in rows[1:]:
        row[first_score:] = ["NA"] * (len(row) - first_score)
    return _text(rows), ["has no score (every cell is missing)"]


def _repeated_agent(rows, rng):
    rows[2][0] = rows[1][0]
    return _text(rows), [f"agent {rows[1][0]!r} appears in more than one row"]


def _agent_column_only(rows, rng):
    return _text([row[:1] for row in rows]), ["has a single column, the agents'"]


def _self_play(rows, rng):
    k = int(rng.integers(1, len(rows)))
    rows[k][1] = rows[k][0]
    return _text(rows), [f"line {k + 1}: player {rows[k][0]!r} plays against itself"]


def _bad_outcome(rows, rng):
    line = _damage_cell(rows, rng, 2, "2")
    return _text(rows), [f"line {line}, column 'outcome': outcome '2' is not 1"]


def _missing_outcome(rows, rng):
    line = _damage_cell(rows, rng, 2, "NA")
    return _text(rows), [f"line {line}, column 'outcome': missing value"]


def _missing_column(rows, rng):
    return _text([row[:-1] for row in rows]), ["has no column"]


DAMAGE = {
    "empty": ("wide long matches", _empty),
    "whitespace-only": ("wide matches", _whitespace_only),
    "header-only": ("wide long matches", _header_only),
    "empty-quoted-field": ("wide matches", _empty_quoted_field),
    "empty-quoted-fields": ("wide", _empty_quoted_fields),
    "ragged-row": ("wide long matches", _ragged_row),
    "non-utf8": ("wide long matches", _latin1_label),
    "utf16-without-bom": ("wide matches", _utf16_without_bom),
    "nul-byte": ("wide matches", _nul_byte),
    "missing-agent-label": ("wide long", _missing_label(0)),
    "missing-task-label": ("long", _missing_label(1)),
    "missing-first-player": ("matches", _missing_label(0)),
    "missing-second-player": ("matches", _missing_label(1)),
    "missing-task-name": ("wide", _missing_task_name),
    "duplicated-header": ("wide long matches", _duplicated_header),
    "unnamed-header": ("wide", _unnamed_header),
    "huge-number": ("wide long", _score_cell("1e400", "is too large")),
    "huge-negative": ("wide", _score_cell("-9e999", "is too large")),
    "infinite": ("wide long", _score_cell("-Infinity", "is infinite")),
    "not-a-number": ("wide long", _score_cell("12abc", "is not a number")),
    "broken-quoting": ("wide long matches", _broken_quoting),
    "unclosed-quote": ("wide matches", _unclosed_quote),
    "all-scores-missing": ("wide long", _all_scores_missing),
    "repeated-agent": ("wide", _repeated_agent),
    "agent-column-only": ("wide", _agent_column_only),
    "self-play": ("matches", _self_play),
    "bad-outcome": ("matches", _bad_outcome),
    "missing-outcome": ("matches", _missing_outcome),
    "missing-column": ("long matches", _missing_column),
}
VALID_ROWS = {"wide": _wide_rows, "long": _long_rows, "matches": _match_rows}


def _corpus():
    cases = []
    for seed, (damage, (kinds, build)) in enumerate(sorted(DAMAGE.items())):
        for kind in kinds.split():
            for variant in range(N_VARIANTS):
                rng = np.random.default_rng([seed, variant])
                content, messages = build(VALID_ROWS[kind](rng), rng)
                cases.append((f"{damage}-{kind}-{variant}", kind, content, messages))
    return cases


CORPUS = _corpus()
COMMANDS_FOR = {
    "wide": RESULT_COMMANDS,
    "long": RESULT_COMMANDS,
    "matches": ("rank", "nash-matches", "report-matches"),
}


def _cases():
    for name, kind, content, messages in CORPUS:
        for command in COMMANDS_FOR[kind]:
            yield pytest.param(command, kind, content, messages, id=f"{command}-{name}")


@pytest.mark.parametrize(("command", "kind", "content", "messages"), list(_cases()))
def test_every_command_rejects_the_malformed_file_in_one_line(
    command, kind, content, messages, tmp_path, capsys
):
    path = tmp_path / f"{kind}.csv"
    path.write_bytes(content)
    argv = command_argv(command, path, tmp_path)
    if kind == "long":
        argv += ["--format", "long"]
    code, out, err = run(argv, capsys)
    assert_one_error_line(err, command.split("-")[0], code)
    assert str(path) in err
    for message in messages:
        assert message in err, err
    assert out == ""


def test_the_corpus_covers_every_damage_class_on_every_file_kind():
    kinds = {kind for _, kind, _, _ in CORPUS}
    assert kinds == {"wide", "long", "matches"}
    assert len(CORPUS) >= 3 * 50


# ---------------------------------------------------------------------------
# The readers themselves: the same classes raise CSVError
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "kind", "content", "messages"), CORPUS)
def test_readers_raise_csverror_naming_the_file(
    name, kind, content, messages, tmp_path
):
    path = tmp_path / "f.csv"
    path.write_bytes(content)
    reader = read_matches if kind == "matches" else read_result_matrix
    kwargs = {"format": "long"} if kind == "long" else {}
    with pytest.raises(CSVError) as info:
        reader(path, **kwargs)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    for fragment in messages:
        assert fragment in message


@pytest.mark.parametrize("marker", MISSING_MARKERS)
@pytest.mark.parametrize("column", ["agent", "task"])
def test_missing_labels_are_never_merged_into_a_label(marker, column, tmp_path):
    # without the check, "NA" rows would become an agent or a task called 'NA'
    # (or 'nan') and "" rows would merge with each other
    rows = ["agent,task,score", "a,t1,1", "b,t1,0", "a,t2,0", "b,t2,1"]
    fields = rows[3].split(",")
    fields[0 if column == "agent" else 1] = marker
    rows[3] = ",".join(fields)
    path = tmp_path / "l.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(CSVError, match=f"line 4, column '{column}'"):
        read_result_matrix(path)


# ---------------------------------------------------------------------------
# Legal variants of the same files are read, not rejected
# ---------------------------------------------------------------------------
def _encodings(text):
    return {
        "utf-8": text.encode(),
        "utf-8-bom": b"\xef\xbb\xbf" + text.encode(),
        "utf-16-bom": b"\xff\xfe" + text.encode("utf-16-le"),
        "utf-16-be-bom": b"\xfe\xff" + text.encode("utf-16-be"),
        "crlf": text.replace("\n", "\r\n").encode(),
        "gzip": gzip.compress(text.encode()),
    }


@pytest.mark.parametrize("encoding", list(_encodings("")))
def test_encodings_and_line_ends_give_the_same_table(encoding, tmp_path, capsys):
    rng = np.random.default_rng(0)
    text = _text(_wide_rows(rng)).decode()
    plain = tmp_path / "plain.csv"
    plain.write_text(text)
    other = tmp_path / ("other.csv.gz" if encoding == "gzip" else "other.csv")
    other.write_bytes(_encodings(text)[encoding])
    outputs = []
    for path in (plain, other):
        code, out, err = run(["nash", path, "-q"], capsys)
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("command", ["nash", "irt", "select"])
def test_bad_gzip_and_directories_fail_in_one_line(command, tmp_path, capsys):
    fake = tmp_path / "scores.csv.gz"
    fake.write_bytes(b"agent,t1\na,1\n")
    truncated = tmp_path / "cut.csv.gz"
    truncated.write_bytes(gzip.compress(b"agent,t1,t2\na,1,2\nb,2,1\n")[:-12])
    for path, message in (
        (fake, "cannot read"),
        (truncated, "cannot read"),
        (tmp_path, "is a directory"),
        (tmp_path / "nope.csv", "file not found"),
    ):
        code, out, err = run(command_argv(command, path, tmp_path), capsys)
        assert_one_error_line(err, command, code)
        assert str(path) in err and message in err


@pytest.mark.parametrize("marker", MISSING_MARKERS)
@pytest.mark.parametrize("column", ["first", "second"])
def test_missing_player_labels_are_rejected(marker, column, tmp_path):
    rows = ["first,second,outcome", "a,b,1", "b,c,0", "c,a,0.5"]
    fields = rows[2].split(",")
    fields[0 if column == "first" else 1] = marker
    rows[2] = ",".join(fields)
    path = tmp_path / "m.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(CSVError, match=f"line 3, column '{column}'"):
        read_matches(path)


MATCH_OPTION_CASES = {
    "score-not-a-number": (
        "first,second,g1,g2\nx,y,1,a\n",
        ["--first-score-col", "g1", "--second-score-col", "g2"],
        "line 2, column 'g2': 'a' is not a number",
    ),
    "score-missing": (
        "first,second,g1,g2\nx,y,1,\n",
        ["--first-score-col", "g1", "--second-score-col", "g2"],
        "line 2, column 'g2': missing value",
    ),
    "negative-weight": (
        "first,second,outcome,w\nx,y,1,1\ny,x,1,-1\n",
        ["--weight-col", "w"],
        "line 3, column 'w': negative weight",
    ),
    "huge-weight": (
        "first,second,outcome,w\nx,y,1,1e999\n",
        ["--weight-col", "w"],
        "line 2, column 'w': '1e999' is too large",
    ),
    "all-weights-zero": (
        "first,second,outcome,w\nx,y,1,0\ny,z,0,0\nz,x,0.5,0.0\n",
        ["--weight-col", "w"],
        "column 'w': every weight is 0: the weights sum to 0",
    ),
    "weights-sum-overflows": (
        "first,second,outcome,w\nx,y,1,1e308\ny,z,0,1e308\n",
        ["--weight-col", "w"],
        "column 'w': the weights sum to more than a float can hold",
    ),
    "missing-weight": (
        "first,second,outcome,w\nx,y,1,NA\n",
        ["--weight-col", "w"],
        "line 2, column 'w': missing value",
    ),
    "missing-weight-column": (
        "first,second,outcome\nx,y,1\n",
        ["--weight-col", "w"],
        "has no column 'w'",
    ),
    "self-play-after-a-blank-line": (
        "first,second,outcome\nx,y,1\n\nz,z,0\n",
        [],
        "line 4: player 'z' plays against itself",
    ),
}


@pytest.mark.parametrize("command", MATCH_COMMANDS)
@pytest.mark.parametrize("case", sorted(MATCH_OPTION_CASES))
def test_bad_match_columns_fail_in_one_line(command, case, tmp_path, capsys):
    content, extra, message = MATCH_OPTION_CASES[case]
    path = tmp_path / "m.csv"
    path.write_text(content)
    code, out, err = run([*command_argv(command, path, tmp_path), *extra], capsys)
    assert_one_error_line(err, command.split("-")[0], code)
    assert str(path) in err and message in err and out == ""


def test_bad_win_rate_matrices_fail_in_one_line(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("agent,a,b\na,0.5,0.5\nb,0.5,0.5\nc,0.5,0.5\n")
    code, _, err = run(["nash", path, "--input", "win-rates", "-q"], capsys)
    assert_one_error_line(err, "nash", code)
    assert f"{path} is 3 x 2" in err and "must be square" in err
    path.write_text("agent,a,b,c\na,0.5,0.7,\nb,0.3,0.5,0.6\nc,,0.4,0.5\n")
    code, _, err = run(["nash", path, "--input", "win-rates", "-q"], capsys)
    assert_one_error_line(err, "nash", code)
    assert "missing win rate of 'a' against 'c'" in err


@pytest.mark.parametrize("command", RESULT_COMMANDS)
def test_huge_finite_scores_are_legal_input(command, tmp_path, capsys):
    # finite values near the float limit are data, not an error: a finite table
    path = tmp_path / "huge.csv"
    path.write_text(
        "agent,t1,t2,t3\nA,1e300,0,1\nB,0,5e307,1\nC,1,1e300,-1e308\nD,2,3,4\n"
    )
    argv = command_argv(command, path, tmp_path)
    if command != "report":
        argv += ["--csv", tmp_path / "out.csv"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "nan" not in out.lower()
    for written in tmp_path.glob("out*.csv"):
        # (generality is inf for an agent with zero dispersion, as documented)
        assert "nan" not in written.read_text().lower()


OVERFLOW_COMMANDS = [*RESULT_COMMANDS, "vote", "alpharank", "compare", "advise",
                     "compress", "nash-none"]
RAW_NUMPY = re.compile(r"encountered in|Eigenvalues did not converge|must be finite")
# the commands whose methods take any finite span of scores (unit scale, or
# the order of the scores): Nash averaging and alpha-Rank are documented so
ANY_SPAN = {"nash", "nash-none", "irt", "generality", "select", "vote", "alpharank",
            "advise"}


def _overflow_argv(command, path, tmp_path):
    if command == "nash-none":
        return ["nash", path, "--normalize", "none", "-q"]
    if command in RESULT_COMMANDS:
        return command_argv(command, path, tmp_path)
    return [command, path, "-q"]


@pytest.mark.parametrize("command", OVERFLOW_COMMANDS)
@pytest.mark.parametrize("cells", [("1e308", "-1e308"), ("-1.5e308", "5e307"),
                                   ("1.7e308", "-2e307")])
def test_scores_whose_span_overflows_give_a_whole_result_or_one_line(
    command, cells, tmp_path, capsys
):
    # finite scores whose differences overflow: either a command works at
    # unit scale (its whole result, no numpy warning, no NaN or inf), or it
    # refuses in one line before anything is printed; never part of a result
    # followed by numpy's overflow warnings
    high, low = cells
    path = tmp_path / "span.csv"
    path.write_text(f"agent,t1,t2,t3\nA,{high},0,1\nB,0,{low},1\nC,1,0,0\nD,0,1,1\n")
    code, out, err = run(_overflow_argv(command, path, tmp_path), capsys)
    assert not RAW_NUMPY.search(err), err
    if command in ANY_SPAN:
        assert code == 0, err
        # (generality is inf for an agent with zero dispersion, as documented)
        bad = r"\bnan\b" if command == "generality" else r"(?<![=\w])(nan|inf)\b"
        assert not re.search(bad, out, flags=re.IGNORECASE), out
    else:
        assert_one_error_line(err, command.split("-")[0], code)
        assert out == "" and "differences overflow" in err and str(path) in err


@pytest.mark.parametrize("command", OVERFLOW_COMMANDS)
def test_huge_scores_within_range_give_a_result_or_one_clear_line(command, tmp_path,
                                                                  capsys):
    # the legal table of the test above: no raw numpy warning on any command
    path = tmp_path / "huge.csv"
    path.write_text(
        "agent,t1,t2,t3\nA,1e300,0,1\nB,0,5e307,1\nC,1,1e300,-1e308\nD,2,3,4\n"
    )
    code, out, err = run(_overflow_argv(command, path, tmp_path), capsys)
    assert not RAW_NUMPY.search(err), err
    if code != 0:  # compare's covariance, compress's 0/1 responses
        assert_one_error_line(err, command.split("-")[0], code)
        assert out == ""
