"""Naming a match column reads the file as matches in every command that
reads both kinds of input.

``compare`` alone read a table of matches as a wide result table when its
player columns were named (``--first-col home_team ...``) without ``--input
matches``, and failed with "agent '1930-07-13' appears in more than one row
of a wide file" on a football results file.
"""

import pytest

from ._helpers import run, write_rows

BOTH_KINDS = ("nash", "vote", "alpharank", "advise", "compare")


@pytest.fixture
def renamed_matches(tmp_path):
    players = ["a", "b", "c", "d"]
    rows = []
    for round_ in range(3):
        for i, home in enumerate(players):
            for away in players[i + 1:]:
                home_goals = (i + round_) % 3
                away_goals = (players.index(away) + 2 * round_) % 3
                rows.append([f"2020-01-0{round_ + 1}", home, away, home_goals,
                             away_goals])
    path = write_rows(tmp_path / "games.csv",
                      ["date", "home", "away", "home_goals", "away_goals"], rows)
    return path


@pytest.mark.parametrize("command", BOTH_KINDS)
def test_named_player_columns_read_matches(command, renamed_matches, capsys):
    argv = [command, renamed_matches, "--first-col", "home", "--second-col", "away",
            "--first-score-col", "home_goals", "--second-score-col", "away_goals",
            "-q"]
    if command in ("compare", "advise"):
        argv += ["--n-resamples", "20"] if command == "compare" else ["--cv", "2"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "wide file" not in err
    for player in "abcd":
        assert player in out
