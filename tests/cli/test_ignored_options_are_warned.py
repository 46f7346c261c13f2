"""An option the input does not use is warned of, never ignored silently.

``--metric`` on a CSV file, the CSV column options on an evaluation tool's
output, match columns on a result table (and result-table columns on
matches), the match report's options on a result table and ``plan``'s
options of the other kind of data: each gives one warning line naming the
option; the run goes on.
"""

from pathlib import Path

import numpy as np
import pytest

from ._helpers import run, write_matches, write_wide

LM_EVAL = Path(__file__).parents[1] / "io" / "data" / "lm_eval"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ignored")
    rng = np.random.default_rng(0)
    wide = write_wide(folder / "scores.csv", rng.uniform(size=(6, 5)))
    X = np.array([["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]] * 5)
    y = np.tile([1.0, 0.0, 1.0, 0.5], 5)
    matches = write_matches(folder / "matches.csv", X, y)
    return {"@wide": wide, "@matches": matches, "@lm_eval": str(LM_EVAL),
            "@html": str(folder / "r.html")}


REPORT = ["--no-figures", "--n-resamples", "0"]
IGNORED = {
    "metric on a CSV": (["nash", "@wide", "--metric", "acc"], "--metric"),
    "agent-col on tool output": (
        ["irt", "@lm_eval", "--metric", "acc,none", "--agent-col", "model"],
        "--agent-col"),
    "sep on tool output": (["irt", "@lm_eval", "--metric", "acc,none", "--sep", "tab"],
                           "--sep"),
    "first-col on tool output": (
        ["nash", "@lm_eval", "--metric", "acc,none", "--first-col", "home"],
        "--first-col"),
    "match column on a result table": (["compare", "@wide", "--input", "scores",
                                        "--weight-col", "w"],
                                       "--weight-col"),
    "agent-col on matches": (["report", "@matches", "-o", "@html", *REPORT,
                              "--agent-col", "who"], "--agent-col"),
    "ties on a result table": (["report", "@wide", "-o", "@html", *REPORT,
                                "--ties", "davidson"], "--ties"),
    "n-agents on items": (["plan", "--effect", "0.05", "--n-agents", "4"],
                          "--n-agents"),
    "correlation on votes": (["plan", "--effect", "20", "--data", "matches",
                              "--correlation", "0.3"], "--correlation"),
}


def _argv(template, inputs):
    return [inputs.get(token, token) for token in template]


@pytest.mark.parametrize("case", sorted(IGNORED))
def test_an_option_the_input_does_not_use_is_warned_of(case, inputs, capsys):
    template, option = IGNORED[case]
    code, out, err = run([*_argv(template, inputs), "-q"], capsys)
    assert code == 0, err
    said = [line for line in err.splitlines() if "is ignored" in line]
    assert len(said) == 1, err
    assert said[0].startswith(f"sklearn-eval: warning: {option} is ignored: "), err


USED = {
    "metric on tool output": ["irt", "@lm_eval", "--metric", "acc,none"],
    "agent-col on a result table": ["nash", "@wide", "--agent-col", "agent"],
    "ties on matches": ["report", "@matches", "-o", "@html", *REPORT, "--ties",
                        "davidson"],
    "n-agents on votes": ["plan", "--effect", "20", "--data", "matches",
                          "--n-agents", "4"],
    "matches read as matches": ["compare", "@matches", "--input", "matches"],
}


@pytest.mark.parametrize("case", sorted(USED))
def test_options_that_apply_bring_no_warning(case, inputs, capsys):
    code, _, err = run([*_argv(USED[case], inputs), "-q"], capsys)
    assert code == 0, err
    assert "is ignored" not in err
