"""alpharank, vote, compress and score: the commands agree with the estimators."""

import numpy as np
import pytest

from sklearn_eval.datasets import (
    load_soccer,
    make_agent_task_scores,
    make_irt_responses,
)
from sklearn_eval.game import AlphaRank, VotingRanker
from sklearn_eval.selection import read_items_csv

from ._helpers import read_table, run, write_wide


@pytest.fixture
def scores_file(tmp_path):
    values = make_agent_task_scores(9, 12, random_state=0)
    return write_wide(tmp_path / "scores.csv", values), values


def test_vote_prints_the_estimators_ranking(scores_file, tmp_path, capsys):
    path, values = scores_file
    for method in ("kemeny_young", "schulze", "borda", "sco"):
        csv = tmp_path / f"{method}.csv"
        code, out, err = run(["vote", path, "--method", method, "-q",
                              "--csv", csv], capsys)
        assert code == 0, err
        header, rows = read_table(csv)
        expected = VotingRanker(method=method).fit(values).ranking_
        assert [row[1] for row in rows] == [f"agent{k}" for k in expected]


def test_alpharank_on_a_win_rate_matrix_matches_the_estimator(tmp_path, capsys):
    soccer = load_soccer()
    path = write_wide(tmp_path / "soccer.csv", soccer.data,
                      agents=list(soccer.agent_names), tasks=list(soccer.agent_names))
    csv = tmp_path / "ranks.csv"
    code, out, err = run(["alpharank", path, "--input", "win-rates", "--alpha",
                          "10", "-q", "--csv", csv], capsys)
    assert code == 0, err
    model = AlphaRank(game="agent_vs_agent", alpha=10.0).fit(soccer.data)
    header, rows = read_table(csv)
    mass = {row[1]: float(row[2]) for row in rows}
    for name, expected in zip(soccer.agent_names, model.agent_distribution_,
                              strict=True):
        assert mass[name] == pytest.approx(expected, abs=1e-12)


def test_alpharank_rejects_a_bad_alpha(scores_file, capsys):
    code, _, err = run(["alpharank", scores_file[0], "--alpha", "-1"], capsys)
    assert code == 2 and "alpha" in err


def test_compress_then_score_round_trip(tmp_path, capsys):
    X = make_irt_responses(240, 80, random_state=0)
    population = write_wide(tmp_path / "population.csv", X[:200])
    new = write_wide(tmp_path / "new.csv", X[200:])
    items = tmp_path / "items.csv"
    code, out, err = run(["compress", population, "--n-items", "15", "-o", items,
                          "-q"], capsys)
    assert code == 0, err and "item file written" in out
    est = read_items_csv(items)
    assert est.selected_items_.size == 15
    csv = tmp_path / "scores.csv"
    code, out, err = run(["score", new, "--items", items, "-q", "--csv", csv],
                         capsys)
    assert code == 0, err
    header, rows = read_table(csv)
    predicted = dict(zip([r[0] for r in rows], [float(r[1]) for r in rows],
                         strict=True))
    expected = est.predict(X[200:])
    for k in range(40):
        assert predicted[f"agent{k}"] == pytest.approx(expected[k], abs=1e-9)
    low = np.array([float(r[2]) for r in rows])
    high = np.array([float(r[3]) for r in rows])
    assert np.all(low <= high)


def test_score_needs_the_chosen_items(tmp_path, capsys):
    X = make_irt_responses(120, 40, random_state=1)
    population = write_wide(tmp_path / "population.csv", X)
    items = tmp_path / "items.csv"
    assert run(["compress", population, "--n-items", "8", "-o", items, "-q"],
               capsys)[0] == 0
    est = read_items_csv(items)
    keep = np.setdiff1d(np.arange(40), est.selected_items_[:1])
    partial = write_wide(tmp_path / "partial.csv", X[:5][:, keep],
                         tasks=[f"task{j}" for j in keep])
    code, _, err = run(["score", partial, "--items", items, "-q"], capsys)
    assert code == 2 and "lacks 1 of the item file's items" in err


def test_compress_rejects_scores_that_are_not_responses(scores_file, capsys):
    code, _, err = run(["compress", scores_file[0], "--n-items", "3"], capsys)
    assert code == 2 and "0/1 responses" in err


def test_score_names_a_missing_or_foreign_item_file(scores_file, tmp_path, capsys):
    code, _, err = run(["score", scores_file[0], "--items", tmp_path / "nope.csv"],
                       capsys)
    assert code == 2 and "item file not found" in err
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("task,weight\na,1\n")
    code, _, err = run(["score", scores_file[0], "--items", foreign], capsys)
    assert code == 2 and f"--items {foreign}: Not a subset-score item file" in err


def test_vote_stops_at_its_time_limit_naming_the_polynomial_rules(tmp_path, capsys):
    values = np.random.default_rng(0).random((30, 5))
    path = write_wide(tmp_path / "s.csv", values)
    code, _, err = run(["vote", path, "--time-limit", "1e-9", "-q"], capsys)
    assert code == 2 and "time_limit" in err and "'schulze'" in err
    code, _, err = run(["vote", path, "--time-limit", "0", "-q"], capsys)
    assert code == 2 and "--time-limit" in err
    code, out, err = run(["vote", path, "-q"], capsys)
    assert code == 0 and "agents by kemeny-young" in out
