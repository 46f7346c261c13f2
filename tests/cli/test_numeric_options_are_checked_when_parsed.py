"""A numeric option out of range is a usage error, before any file is read.

Every numeric option of every command is parsed by a type that checks its
range (``--n-jobs 0``, a negative seed, a confidence level of 2 ...), so a
bad value is one line ending in ``(see --help)`` with exit code 2, naming
the option, never a late failure blamed on the input file.
"""

import pytest

from sklearn_eval.cli._main import build_parser

from ._helpers import assert_one_error_line, run


def _subparsers():
    parser = build_parser()
    return parser._subparsers._group_actions[0].choices


def test_no_numeric_option_is_parsed_unchecked():
    # a bare int or float accepts 0, negatives, nan and inf alike
    unchecked = [
        (name, action.option_strings)
        for name, sub in _subparsers().items()
        for action in sub._actions
        if action.type in (int, float)
    ]
    assert unchecked == []


def _input_options(command):
    if command == "plan":
        return ["--effect", "0.05"]
    if command == "demo":
        return []
    extra = ["--items", "missing-items.csv"] if command == "score" else []
    return ["missing-input.csv", *extra]


BAD = [
    *((command, "--n-jobs", value)
      for command in ("rank", "report", "compare", "demo", "advise")
      for value in ("0", "x", "1.5")),
    *((command, "--random-state", value)
      for command in ("rank", "report", "compare", "demo", "advise", "compress")
      for value in ("-1", str(2**32), "x")),
    ("compare", "--confidence-level", "2"), ("compare", "--confidence-level", "nan"),
    ("compare", "--confidence-level", "0"), ("score", "--confidence", "1"),
    ("plan", "--power", "0"), ("plan", "--confidence-level", "1"),
    ("plan", "--baseline", "1.5"), ("plan", "--correlation", "1"),
    ("plan", "--correlation", "-inf"), ("plan", "--tie-rate", "1"),
    ("plan", "--tie-rate", "-0.1"), ("plan", "--n-agents", "1"),
    ("alpharank", "--population-size", "1"),
]


@pytest.mark.parametrize(("command", "option", "value"), BAD)
def test_an_out_of_range_value_is_a_usage_error(command, option, value, capsys):
    code, out, err = run([command, *_input_options(command), option, value, "-q"],
                         capsys)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.rstrip().endswith("(see --help)"), err
    assert f"argument {option}" in err and "missing-input.csv" not in err, err


@pytest.mark.parametrize(("command", "option", "value"), [
    ("rank", "--n-jobs", "-1"), ("rank", "--n-jobs", "2"),
    ("rank", "--random-state", "0"), ("rank", "--random-state", str(2**32 - 1)),
    ("plan", "--tie-rate", "0"), ("plan", "--correlation", "-0.5"),
    ("alpharank", "--population-size", "2"),
])
def test_values_in_range_parse(command, option, value):
    args = build_parser().parse_args(
        [command, *_input_options(command), option, value])
    assert getattr(args, option.lstrip("-").replace("-", "_")) == pytest.approx(
        float(value))


def test_a_checked_option_still_fails_in_one_line_with_a_real_file(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text("first,second,outcome\na,b,1\nb,c,1\nc,a,0\n")
    code, _, err = run(["rank", path, "--n-jobs", "0"], capsys)
    assert_one_error_line(err, "rank", code)
    assert str(path) not in err
