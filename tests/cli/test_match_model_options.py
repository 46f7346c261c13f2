"""The rating model's options on the command line give the API's ratings.

``rank`` and ``report`` take EloRanker's ``ties``, ``first_advantage`` and
covariate columns under the API's names (user guide: "Command line" and
"Ranking chatbots"); on league football, with draws and home advantage, the
ratings they print are those of the estimator fitted in Python with the same
options.
"""

import re

import numpy as np
import pandas as pd
import pytest

from sklearn_eval.datasets import load_international_football
from sklearn_eval.pairwise import EloRanker

from ._helpers import read_table, run

COLUMNS = ["--first-col", "home", "--second-col", "away", "--outcome-col", "result"]

OPTIONS = [
    ([], {}),
    (["--ties", "davidson"], {"ties": "davidson"}),
    (["--ties", "rao-kupper"], {"ties": "rao-kupper"}),
    (["--first-advantage", "fit"], {"first_advantage": "fit"}),
    (["--first-advantage", "60"], {"first_advantage": 60.0}),
    (["--covariates", "home_ground"], {"covariates": ["home_ground"]}),
    (
        ["--ties", "davidson", "--first-advantage", "fit", "--covariates",
         "home_ground", "goal_budget"],
        {"ties": "davidson", "first_advantage": "fit",
         "covariates": ["home_ground", "goal_budget"]},
    ),
]
IDS = ["plain", "davidson", "rao-kupper", "advantage-fit", "advantage-60",
       "covariate", "all"]


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """Matches among the 16 busiest national teams since 2000: a league with
    draws (about a quarter) and home advantage (the home side wins more)."""
    frame = load_international_football(as_frame=True).frame
    frame = frame[frame.date >= "2000-01-01"]
    counts = pd.concat([frame.home_team, frame.away_team]).value_counts()
    teams = set(counts.index[:16])
    frame = frame[frame.home_team.isin(teams) & frame.away_team.isin(teams)]
    words = {1.0: "win", 0.0: "loss", 0.5: "draw"}
    table = pd.DataFrame(
        {
            "home": frame.home_team.to_numpy(),
            "away": frame.away_team.to_numpy(),
            "result": [words[v] for v in frame.y],
            "home_ground": (~frame.neutral).astype(int).to_numpy(),
            # a second numeric column; centred so that it is not the intercept
            "goal_budget": (frame.home_score + frame.away_score).to_numpy() - 2.5,
        }
    )
    assert 0.15 < np.mean(frame.y == 0.5) < 0.4
    path = tmp_path_factory.mktemp("league") / "league.csv"
    table.to_csv(path, index=False)
    return str(path), table, frame.y.to_numpy(dtype=np.float64)


def _python_ratings(table, y, options):
    params = {k: v for k, v in options.items() if k != "covariates"}
    X = table[["home", "away", *options.get("covariates", [])]]
    model = EloRanker(method="batch", **params).fit(X, y)
    return model, dict(zip(model.agents_, model.agent_scores_, strict=True))


@pytest.mark.parametrize(("argv", "options"), OPTIONS, ids=IDS)
def test_rank_prints_the_ratings_of_the_same_estimator(
    argv, options, league, tmp_path, capsys
):
    path, table, y = league
    out = tmp_path / "ratings.csv"
    code, text, err = run(
        ["rank", path, *COLUMNS, *argv, "--csv", out, "-q"], capsys
    )
    assert code == 0, err
    model, expected = _python_ratings(table, y, options)
    _, rows = read_table(out)
    got = {row[1]: float(row[2]) for row in rows}
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-6)
    if options.get("ties"):
        assert f"tie parameter ({options['ties']}): {model.tie_param_:.4g}" in text
    if options.get("first_advantage") == "fit":
        assert f"first-player advantage: {model.first_advantage_:.1f}" in text
        assert model.first_advantage_ > 0  # the home side is favoured
    for name in options.get("covariates", []):
        assert f"covariate {name}:" in text


def _report_ratings(page):
    """{player: rating} of the report's ratings table (full precision)."""
    body = page[page.index('data-table="ratings"'):]
    body = body[: body.index("</table>")]
    pattern = re.compile(
        r'<td class="label">([^<]*)</td><td data-sort="[^"]*">\d+</td>'
        r'<td data-sort="([^"]*)">'
    )
    return {name: float(value) for name, value in pattern.findall(body)}


@pytest.mark.parametrize(("argv", "options"), OPTIONS[1:], ids=IDS[1:])
def test_report_rates_with_the_same_estimator(argv, options, league, tmp_path, capsys):
    path, table, y = league
    out = tmp_path / "report.html"
    if "ties" not in options:  # else the report chooses (tested below)
        argv, options = [*argv, "--ties", "half"], {**options, "ties": "half"}
    code, _, err = run(
        ["report", path, *COLUMNS, *argv, "-q", "-o", out, "--no-figures",
         "--n-resamples", "0"],
        capsys,
    )
    assert code == 0, err
    _, expected = _python_ratings(table, y, options)
    got = _report_ratings(out.read_text(encoding="utf-8"))
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-6)


def test_report_without_model_options_rates_with_the_advice(league, tmp_path, capsys):
    """With draws and no model option, the report rates with the advisor's
    recommended tie model and first-player advantage (chosen by held-out
    likelihood), and says so in its first section."""
    from sklearn_eval import advise

    path, table, y = league
    out = tmp_path / "report.html"
    code, _, err = run(
        ["report", path, *COLUMNS, "-q", "-o", out, "--no-figures",
         "--n-resamples", "0"],
        capsys,
    )
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    X = table[["home", "away"]].to_numpy(dtype=object)
    params = advise(X, y, random_state=0).recommendation.get_params()
    assert params["ties"] in ("davidson", "rao-kupper")  # the league has draws
    assert "Which method fits this data" in page
    options = {"ties": params["ties"]}
    if params["first_advantage"] == "fit":
        options["first_advantage"] = "fit"
    _, expected = _python_ratings(table, y, options)
    assert _report_ratings(page) == pytest.approx(expected, rel=1e-9, abs=1e-6)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--covariates", "stadium"], "no column 'stadium' (--covariates)"),
        (["--covariates", "result"], "column 'result' (--covariates)"),
        (["--first-advantage", "home"], "must be 'fit' or a number"),
        (["--ties", "draw"], "invalid choice"),
        (["--model", "melo", "--ties", "davidson"], "--ties is an option of"),
    ],
)
def test_bad_rating_options_fail_in_one_line(argv, message, league, capsys):
    path = league[0]
    code, _, err = run(["rank", path, *COLUMNS, *argv, "-q"], capsys)
    assert code == 2 or code == 1
    assert message in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["nash", "alpharank", "vote", "report"])
@pytest.mark.parametrize("how", ["columns", "format"])
def test_every_command_reads_a_match_file_as_the_report_does(
    command, how, league, tmp_path, capsys
):
    path = league[0]
    argv = [command, path, *COLUMNS] if how == "columns" else [
        command, path, "--format", "matches", "--first-col", "home",
        "--second-col", "away", "--outcome-col", "result",
    ]
    if command == "report":
        argv += ["-o", tmp_path / "r.html", "--no-figures", "--n-resamples", "0"]
    code, text, err = run([*argv, "-q"], capsys)
    assert code == 0, err
    assert "Brazil" in text or command == "report"
