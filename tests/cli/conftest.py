"""Fixtures of the command line tests: seeded match and result files."""

import numpy as np
import pytest

from sklearn_eval.datasets import make_irt_responses, make_matches

from ._helpers import write_long, write_rows, write_wide

MATCH_COLUMNS = [
    "--first-col",
    "home",
    "--second-col",
    "away",
    "--outcome-col",
    "result",
]


@pytest.fixture(scope="package")
def matches_csv(tmp_path_factory):
    """600 seeded matches of 8 players; outcomes as words; custom columns."""
    X, y = make_matches(n_players=8, n_matches=600, random_state=0)[:2]
    words = {1.0: "win", 0.0: "loss", 0.5: "draw"}
    path = tmp_path_factory.mktemp("matches") / "matches.csv"
    rows = [[a, b, words[o]] for (a, b), o in zip(X, y, strict=True)]
    return write_rows(path, ["home", "away", "result"], rows), X, y


@pytest.fixture(scope="package")
def irt_data(tmp_path_factory):
    """0/1 responses of 150 agents on 12 items, as wide and long files."""
    X, params = make_irt_responses(150, 12, random_state=3, return_params=True)
    directory = tmp_path_factory.mktemp("irt")
    return (
        write_wide(directory / "wide.csv", X),
        write_long(directory / "long.csv", X, columns=("model", "item", "correct")),
        X,
        params,
    )


@pytest.fixture(scope="package")
def scores_csv(tmp_path_factory):
    """Continuous scores of 9 agents on 7 tasks (wide)."""
    rng = np.random.default_rng(7)
    values = rng.uniform(0, 100, size=(9, 7))
    path = tmp_path_factory.mktemp("scores") / "scores.csv"
    return write_wide(path, values), values
