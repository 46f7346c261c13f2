"""Every command whose Bradley-Terry fit warns "set alpha > 0" takes --alpha
(the report's default prior is already positive).

``compare`` on matches with an undefeated player repeated the estimator's
advice to set an L2 prior, which no option of ``compare`` could set.
"""

import pytest

from ._helpers import run, write_rows

COMMANDS = {
    "rank": [],
    "compare": ["--input", "matches", "--n-resamples", "20"],
}


@pytest.fixture
def undefeated(tmp_path):
    rows = [["a", "b", 1], ["a", "c", 1], ["b", "c", 1], ["c", "b", 1],
            ["b", "c", 0], ["a", "b", 1], ["c", "d", 1], ["d", "b", 1],
            ["b", "d", 0.5]]
    return write_rows(tmp_path / "m.csv", ["first", "second", "outcome"], rows)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_advised_prior_can_be_set(command, undefeated, capsys):
    argv = [command, undefeated, "-q", *COMMANDS[command]]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert "set alpha > 0" in err
    code, _, err = run([*argv, "--alpha", "0.1"], capsys)
    assert code == 0, err
    assert "set alpha > 0" not in err
    assert "is ignored" not in err
