"""Every command line example of the user guide runs as written.

The console block of ``docs/user_guide/command_line.rst`` is extracted and
each ``$ sklearn-eval ...`` line is run on seeded files named as in the
example; the long ones (the demo and the report with its default 100
resamples) run with ``--runslow``.
"""

import re
import shlex
import shutil
from pathlib import Path

import numpy as np
import pytest

from sklearn_eval.datasets import (
    make_agent_task_scores,
    make_irt_responses,
    make_matches,
)

from ._helpers import run, write_matches, write_rows, write_wide

PAGE = Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "command_line.rst"
SLOW = ("demo", "report")


def documented_commands():
    commands = []
    # a console line ending in a backslash continues on the next line
    text = re.sub(r"\\\n\s*", " ", PAGE.read_text(encoding="utf-8"))
    for line in text.splitlines():
        match = re.match(r"\s+\$ sklearn-eval (.*?)(\s+#.*)?$", line)
        if match:
            commands.append(shlex.split(match[1]))
    return commands


COMMANDS = documented_commands()


@pytest.fixture
def example_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X, y = make_matches(n_players=10, n_matches=800, labels="str", random_state=0)
    write_matches(tmp_path / "matches.csv", X, y)
    write_wide(tmp_path / "scores.csv", make_agent_task_scores(12, 15, random_state=0))
    write_wide(tmp_path / "responses.csv", make_irt_responses(80, 24, random_state=0))
    scores = make_agent_task_scores(8, 14, random_state=1)
    rng = np.random.default_rng(1)
    rows = [
        [f"agent{i}", f"task{j}", float(scores[i, j] + rng.normal(0, 0.02))]
        for _ in range(3)
        for i in range(8)
        for j in range(14)
    ]
    write_rows(tmp_path / "runs.csv", ["agent", "task", "score"], rows)
    # an evaluation tool's output: real lm-evaluation-harness runs
    harness = Path(__file__).parents[1] / "io" / "data" / "lm_eval" / "runs"
    shutil.copytree(harness, tmp_path / "lm_eval_out")
    return tmp_path


def test_the_page_documents_every_command():
    from sklearn_eval.cli._main import COMMANDS as MODULES

    every = {name.lstrip("_").replace("_", "-") for name in MODULES}
    assert {argv[0] for argv in COMMANDS} == every
    page = PAGE.read_text(encoding="utf-8")
    for command in every:  # each has a row in the table of commands
        assert f"\n``{command}``" in page, command


def _writers_of(argv):
    """Documented commands writing a file that ``argv`` reads (``--items``)."""
    if "--items" not in argv:
        return []
    needed = argv[argv.index("--items") + 1]
    return [
        other
        for other in COMMANDS
        if "-o" in other and other[other.index("-o") + 1] == needed
    ]


def _example(argv):
    marks = [pytest.mark.slow] if argv[0] in SLOW else []
    return pytest.param(argv, marks=marks, id=" ".join(argv))


@pytest.mark.parametrize("argv", [_example(argv) for argv in COMMANDS])
def test_documented_example_runs(argv, example_files, capsys):
    writers = _writers_of(argv)
    if "--items" in argv:
        assert writers, "the page shows no command writing the item file"
    for writer in writers:  # as a reader following the page would
        assert run([*writer, "-q"], capsys)[0] == 0
    code, out, err = run([*argv, "-q"], capsys)
    assert code == 0, err
    assert out
    if "--top" in argv:
        top = int(argv[argv.index("--top") + 1])
        assert "more rows (--top 0 shows all)" in out
        assert top > 0
