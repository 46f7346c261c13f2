"""``sklearn-eval advise``: the advisor on the files the other commands read.

What it prints is :func:`sklearn_eval.advise` on the same data (see the user
guide's "Which method fits my data" page).
"""

import numpy as np

from sklearn_eval import advise
from sklearn_eval.datasets import make_irt_responses

from ._helpers import read_table, run


def test_matches_file_prints_the_advice_of_the_function(matches_csv, tmp_path,
                                                        capsys):
    path, X, y = matches_csv
    out = tmp_path / "advice.csv"
    code, text, err = run(["advise", path, "--first-col", "home", "--second-col",
                           "away", "--outcome-col", "result", "-q", "--csv", out],
                          capsys)
    assert code == 0, err
    expected = advise(np.asarray(X, dtype=object), y, random_state=0)
    assert "Diagnostics" in text and "Candidates" in text
    assert expected.explain() in text
    header, rows = read_table(tmp_path / "advice_candidates.csv")
    assert header[:2] == ["model", "heldout_loglik"]
    got = {row[0]: float(row[1]) for row in rows}
    for name, value in expected.candidates["heldout_loglik"].items():
        assert np.isclose(got[name], value, rtol=1e-9), name
    header, rows = read_table(out)
    assert header == ["check", "value", "verdict"]
    assert [row[0] for row in rows] == list(expected.diagnostics.index)


def test_result_matrix_gets_the_item_models(irt_data, capsys):
    wide, _, X, _ = irt_data
    code, text, err = run(["advise", wide, "-q", "--cv", "3"], capsys)
    assert code == 0, err
    assert "binary" in text and "1PL" in text and "2PL" in text
    assert "Recommended: IRT(" in text


def test_kind_option_overrides_detection(scores_csv, capsys):
    path, _ = scores_csv
    code, text, err = run(["advise", path, "-q", "--kind", "scores"], capsys)
    assert code == 0, err
    assert "additive" in text


def test_bad_kind_is_a_usage_error(scores_csv, capsys):
    path, _ = scores_csv
    code, _, err = run(["advise", path, "--kind", "votes"], capsys)
    assert code == 2
    assert "--kind" in err


def test_max_factors_option_is_passed_on(irt_data, capsys):
    wide, _, X, _ = irt_data
    code, text, err = run(["advise", wide, "-q", "--cv", "3", "--max-factors", "1"],
                          capsys)
    assert code == 0, err
    assert "2 factors" not in text
    assert "Recommended: IRT(" in text


def test_max_factors_below_one_is_a_usage_error(irt_data, capsys):
    wide, _, _, _ = irt_data
    code, _, err = run(["advise", wide, "--max-factors", "0"], capsys)
    assert code == 2
    assert "--max-factors" in err


def test_agents_without_results_follow_the_drop_empty_rule(tmp_path, capsys):
    """Every estimator refuses an agent without results; the advisor named
    IRT for such data and left the agreement out silently. Now an error
    naming the agent (exit 2), or ``--drop-empty`` leaves it out."""
    from ._helpers import write_wide

    X = make_irt_responses(40, 8, random_state=0).astype(float)
    X[3] = np.nan
    path = write_wide(tmp_path / "gaps.csv", X)
    code, _, err = run(["advise", path, "-q", "--cv", "3"], capsys)
    assert code == 2
    assert "no observed response" in err and "--drop-empty" in err
    code, text, err = run(["advise", path, "-q", "--cv", "3", "--drop-empty"], capsys)
    assert code == 0, err
    assert "Recommended: IRT(" in text
