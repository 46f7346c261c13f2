"""``sklearn-eval report`` on a table of matches, and reference agents on the CLI."""

import numpy as np
import pytest

from sklearn_eval.datasets import load_vicuna80
from sklearn_eval.report import MATCH_SECTIONS, SECTIONS

from ._helpers import assert_one_error_line, run, write_matches, write_rows

FAST = ["--no-figures", "--n-resamples", "0", "-q"]


@pytest.fixture(scope="module")
def vicuna_csv(tmp_path_factory):
    votes = load_vicuna80()
    path = tmp_path_factory.mktemp("vicuna") / "votes.csv"
    return write_matches(
        path, votes.data, votes.target, header=("model_a", "model_b", "y")
    )


def _sections(path):
    page = path.read_text(encoding="utf-8")
    return [key for key in MATCH_SECTIONS if f'<section id="{key}">' in page], page


def test_a_matches_file_is_detected_and_gets_the_match_report(
    matches_csv, tmp_path, capsys
):
    X, y = load_vicuna80().data[:400], load_vicuna80().target[:400]
    path = write_matches(tmp_path / "m.csv", X, y)  # first, second, outcome
    output = tmp_path / "r.html"
    code, text, err = run(["report", path, "-o", output, *FAST], capsys)
    assert code == 0, err
    keys, page = _sections(output)
    assert keys == list(MATCH_SECTIONS)
    assert "<h1>Match report:" in page
    assert "Highest ratings:" in text and "Nash core players" in text
    assert f"report written to {output}" in text
    # the benchmark sections are not there
    assert '<section id="subset">' not in page


def test_naming_match_columns_implies_the_match_format(vicuna_csv, tmp_path, capsys):
    output = tmp_path / "v.html"
    argv = [
        "report",
        vicuna_csv,
        "--first-col",
        "model_a",
        "--second-col",
        "model_b",
        "--outcome-col",
        "y",
        "-o",
        output,
    ]
    code, text, err = run([*argv, "--n-resamples", "50", "-q"], capsys)
    assert code == 0, err
    assert text.startswith("Highest ratings: gpt4 (")
    keys, page = _sections(output)
    assert keys == list(MATCH_SECTIONS)
    # the advice's candidates, ratings, rank sets, cyclic plane, Nash, Hodge
    assert page.count("<img") == 6
    # explicit --format matches gives the same page
    same = tmp_path / "same.html"
    code, _, _ = run(
        [
            "report",
            vicuna_csv,
            "--format",
            "matches",
            "--first-col",
            "model_a",
            "--second-col",
            "model_b",
            "--outcome-col",
            "y",
            "-o",
            same,
            "--n-resamples",
            "50",
            "-q",
        ],
        capsys,
    )
    assert code == 0
    strip = lambda text: text.split("</h1>", 1)[1]  # noqa: E731
    assert strip(same.read_text(encoding="utf-8")) == strip(page)


def test_a_match_file_without_match_options_no_longer_advises_format_long(
    vicuna_csv, tmp_path, capsys
):
    code, out, err = run(
        ["report", vicuna_csv, "-o", tmp_path / "x.html", *FAST], capsys
    )
    # its columns are not first/second: read as a result matrix, it fails,
    # and the error says how to read it as matches
    assert_one_error_line(err, "report", code)
    assert "appears in more than one row of a wide file" in err
    assert "if it is a table of matches, name its columns: --first-col" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--threshold", "0.5"], "--threshold applies to a result matrix"),
        (["--task-col", "t"], "not both"),
        (["--format", "wide"], "use --format matches"),
        (["--reference-agent", "nobody"], "not one of the players"),
    ],
)
def test_options_that_do_not_fit_matches_fail_in_one_line(
    vicuna_csv, tmp_path, capsys, extra, message
):
    argv = [
        "report",
        vicuna_csv,
        "--first-col",
        "model_a",
        "--second-col",
        "model_b",
        "--outcome-col",
        "y",
        "-o",
        tmp_path / "x.html",
        *FAST,
    ]
    code, out, err = run([*argv, *extra], capsys)
    assert_one_error_line(err, "report", code)
    assert message in err and out == ""


def test_a_failed_section_writes_the_report_and_exits_3(
    vicuna_csv, tmp_path, capsys, monkeypatch
):
    import sklearn_eval.report._matches as matches_module

    def broken(*args, **kwargs):
        raise RuntimeError("solver exploded")

    monkeypatch.setattr(matches_module, "_nash", broken)
    output = tmp_path / "partial.html"
    code, text, err = run(
        [
            "report",
            vicuna_csv,
            "--first-col",
            "model_a",
            "--second-col",
            "model_b",
            "--outcome-col",
            "y",
            "-o",
            output,
            *FAST,
        ],
        capsys,
    )
    assert code == 3
    assert output.is_file() and f"report written to {output}" in text
    assert "nash, hodge" in err and "error box" in err
    assert "Nash core players" not in text and "Highest ratings" in text


def test_hostile_player_names_are_escaped_in_the_page_and_the_terminal(
    tmp_path, capsys
):
    names = ["<script>alert(1)</script>", "=cmd|'/C calc'!A0", "bell\x07name", "plain"]
    rng = np.random.default_rng(1)
    rows = [
        [names[i], names[j], rng.choice(["1", "0", "0.5"])]
        for i in range(4)
        for j in range(4)
        if i != j
        for _ in range(6)
    ]
    path = write_rows(tmp_path / "hostile.csv", ["first", "second", "outcome"], rows)
    output = tmp_path / "h.html"
    code, text, err = run(["report", path, "-o", output, *FAST], capsys)
    assert code == 0, err
    page = output.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3
    assert "\x07" not in text and "\\x07" in text  # escaped on the terminal


def test_reference_agents_on_the_command_line(scores_csv, tmp_path, capsys):
    path, values = scores_csv
    output = tmp_path / "r.html"
    code, text, _ = run(
        ["report", path, "--reference-agent", "agent3", "-o", output, *FAST], capsys
    )
    assert code == 0
    assert "Reference agents (shown apart, not ranked" in text and "agent3" in text
    page = output.read_text(encoding="utf-8")
    table = page[page.index('data-table="ranking"') :]
    assert ">agent3<" not in table[: table.index("</table>")]
    assert 'data-table="reference"' in page
    code, text, _ = run(
        [
            "report",
            path,
            "--reference-agent",
            "agent3",
            "--include-reference",
            "-o",
            output,
            *FAST,
        ],
        capsys,
    )
    assert code == 0 and "ranked with the others" in text
    assert 'agent3 <span class="tag">reference</span>' in output.read_text(
        encoding="utf-8"
    )
    code, _, err = run(
        ["report", path, "--reference-agent", "ghost", "-o", output, *FAST], capsys
    )
    assert_one_error_line(err, "report", code)
    assert "'ghost'" in err


def test_low_and_high_baselines_are_reference_agents(scores_csv, tmp_path, capsys):
    path, values = scores_csv
    output = tmp_path / "r.html"
    code, text, err = run(
        [
            "report",
            path,
            "--low-agent",
            "agent0",
            "--high-agent",
            "agent8",
            "--threshold",
            "50",
            "-o",
            output,
            *FAST,
        ],
        capsys,
    )
    assert code == 0, err
    assert "agent0, agent8" in text
    page = output.read_text(encoding="utf-8")
    assert "low baseline" in page and "high baseline" in page
    assert page.count("<section") == len(SECTIONS) + 1  # the advice opens it


def test_demo_can_rank_the_reference_agents(tmp_path, capsys):
    output = tmp_path / "demo.html"
    code, text, _ = run(
        ["demo", "--include-reference", "--top", "0", "-o", output, *FAST], capsys
    )
    assert code == 0
    assert "Reference agents ranked with the others" in text
    assert "human@dudqn" in text.split("Agents as the report ranks them")[1]
    page = output.read_text(encoding="utf-8")
    assert 'human@dudqn <span class="tag">reference</span>' in page


@pytest.mark.parametrize(
    "argv",
    [["advise"],  # its rank sets are sandwich intervals too
     ["report", "--no-figures", "--n-resamples", "20"],
     ["rank", "--tiers", "--n-resamples", "20"]],
)
def test_all_draws_are_said_in_words_on_every_command(argv, tmp_path, capsys):
    # every match a draw: no "nan" anywhere, the diagnostics in words, and the
    # zero-width intervals warned of once on stderr
    import re

    pairs = [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"], ["d", "a"], ["b", "d"]]
    rows = [[a, b, "draw"] for a, b in pairs * 10]
    path = write_rows(tmp_path / "draws.csv", ["first", "second", "outcome"], rows)
    extra = ["-o", tmp_path / "r.html"] if argv[0] == "report" else []
    code, out, err = run([argv[0], path, *argv[1:], *extra, "-q"], capsys)
    assert code == 0, err
    texts = [out, err]
    if argv[0] == "report":
        page = (tmp_path / "r.html").read_text(encoding="utf-8")
        texts.append(re.sub(r"<script.*?</script>", "", page, flags=re.S))
        assert "Every match is a draw, so no tie model applies" in texts[-1]
    for text in texts:
        assert not re.search(r"\bnan\b", text, flags=re.IGNORECASE)
    if argv[0] == "advise":
        assert "all ties: no tie model fits" in out
        assert "no decided votes (every vote a draw)" in out
    # once per interval method the command ran (a bootstrap's and a
    # sandwich's are two statements), never the same line twice
    warned = [line for line in err.splitlines() if "zero width" in line]
    assert 1 <= len(warned) <= 2 and len(set(warned)) == len(warned), err


@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
def test_a_tie_model_on_all_draws_is_refused_before_the_report(ties, tmp_path, capsys):
    # as rank refuses it: the tie parameter would be infinite; no page written
    pairs = [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]]
    rows = [[a, b, "draw"] for a, b in pairs * 5]
    path = write_rows(tmp_path / "draws.csv", ["first", "second", "outcome"], rows)
    output = tmp_path / "r.html"
    code, _, err = run(["report", path, "--ties", ties, "-o", output, "-q"], capsys)
    assert code == 2
    assert f"--ties {ties} cannot be fitted when every match" in err
    assert not output.exists()
