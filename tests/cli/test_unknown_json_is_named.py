"""A JSON file that no evaluation-tool reader claims is named as such.

It was parsed as CSV (for seconds, on a 1 MB file) and refused with "column
'[0' appears twice in the header".
"""

import gzip
import json

import pytest

from ._helpers import run

COMMANDS = ("nash", "irt", "rank", "vote", "compare", "advise", "alpharank")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", ["board.json", "rows.jsonl", "board.json.gz"])
def test_unknown_json_fails_in_one_line_naming_it(command, name, tmp_path, capsys):
    text = json.dumps({"models": ["a", "b"], "X": [[0, 1]], "Y": [[3, 1, 0]]})
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text + "\n")
    code, out, err = run([command, path, "-q"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "is a JSON file, not a CSV file" in lines[0]
