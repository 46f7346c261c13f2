"""Python, the command line and the report give the same ranks, ties included.

The ranking protocol (user guide): every ``rank`` column is the estimator's
``agent_table()`` rank, "min" ranks with scores equal up to
:data:`~sklearn_eval.utils.RANK_RTOL` tied. A Nash average gives every agent of
the equilibrium support the same value up to rounding (Balduzzi et al., 2018),
so the support shares one rank everywhere.
"""

import html
import re

import numpy as np

from sklearn_eval.datasets import load_atari, load_international_football
from sklearn_eval.game import NashAverager, complete_submatrix
from sklearn_eval.pairwise import EloRanker
from sklearn_eval.utils import rank_scores

from ._helpers import read_table, run, write_rows, write_wide


def _cli_ranks(table_path, label_column=1):
    _, rows = read_table(table_path)
    return {row[label_column]: int(row[0]) for row in rows}


def _python_ranks(model):
    table = model.agent_table()
    return {str(label): int(rank) for label, rank in table["rank"].items()}


def test_nash_readme_tour_support_shares_rank_one_in_python_and_cli(tmp_path, capsys):
    scores = complete_submatrix(load_atari(as_frame=True).frame)
    nash = NashAverager(normalize="minmax").fit(scores)
    python = _python_ranks(nash)
    support = [str(a) for a, p in zip(nash.agents_, nash.agent_distribution_,
                                      strict=True) if p > 0]
    assert len(support) == 6  # the README tour: six agents at 0.354972
    assert {python[a] for a in support} == {1}
    assert sorted(python.values())[6] == 7  # "min" ranks: the next agent is 7th

    path = write_wide(tmp_path / "atari.csv", scores.to_numpy(),
                      agents=[str(a) for a in scores.index],
                      tasks=[str(t) for t in scores.columns])
    out = tmp_path / "nash.csv"
    code, _, _ = run(["nash", path, "--normalize", "minmax", "--csv", out, "-q"],
                     capsys)
    assert code == 0
    assert _cli_ranks(out) == python


def _football_csv(tmp_path):
    cup = load_international_football("world_cup")
    rows = [[a, b, {1.0: "win", 0.0: "loss", 0.5: "draw"}[o]]
            for (a, b), o in zip(cup.data, cup.target, strict=True)]
    return write_rows(tmp_path / "cup.csv", ["home", "away", "result"], rows)


def test_football_nash_support_shares_a_rank_on_the_command_line(tmp_path, capsys):
    """The symmetric game of World Cup matches: every team of the equilibrium
    support has Nash average 0 (the game's value), up to rounding."""
    path = _football_csv(tmp_path)
    out = tmp_path / "nash.csv"
    code, _, _ = run(["nash", path, "--input", "matches", "--first-col", "home",
                      "--second-col", "away", "--outcome-col", "result",
                      "--csv", out, "-q"], capsys)
    assert code == 0
    header, rows = read_table(out)
    column = header.index("Nash average")
    values = np.array([float(row[column]) for row in rows])
    ranks = np.array([int(row[0]) for row in rows])
    np.testing.assert_array_equal(ranks, rank_scores(values))
    top = ranks == 1
    assert top.sum() >= 3 and np.all(np.abs(values[top]) < 1e-9)


def _symmetric_matches():
    """A, B, C beat each other in a cycle and D alike: one rating for three."""
    rows = [("A", "B", "win"), ("B", "C", "win"), ("C", "A", "win")] * 5
    rows += [(p, "D", "win") for p in "ABC"] + [("D", p, "draw") for p in "ABC"]
    return rows


def _report_ratings_ranks(page):
    """Player -> rank cell of the report's ratings table."""
    table = re.search(r'<table[^>]*data-table="ratings".*?</table>', page, re.S)
    assert table, "the report has no ratings table"
    ranks = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
                 for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if cells:
            ranks[cells[0].split()[0]] = int(cells[1])
    return ranks


def test_tied_ratings_share_a_rank_in_python_cli_and_report(tmp_path, capsys):
    rows = _symmetric_matches()
    path = write_rows(tmp_path / "m.csv", ["home", "away", "result"], rows)
    X = np.array([[a, b] for a, b, _ in rows])
    y = np.array([{"win": 1.0, "loss": 0.0, "draw": 0.5}[o] for *_, o in rows])
    python = _python_ranks(EloRanker(method="batch").fit(X, y))
    assert python == {"A": 1, "B": 1, "C": 1, "D": 4}

    out = tmp_path / "r.csv"
    columns = ["--first-col", "home", "--second-col", "away", "--outcome-col",
               "result"]
    code, _, _ = run(["rank", path, *columns, "--csv", out, "-q"], capsys)
    assert code == 0
    assert _cli_ranks(out) == python

    report = tmp_path / "r.html"
    code, _, _ = run(["report", path, "--format", "matches", *columns, "-o", report,
                      "--no-figures", "--n-resamples", "0", "-q"], capsys)
    assert code == 0
    assert _report_ratings_ranks(report.read_text(encoding="utf-8")) == python
