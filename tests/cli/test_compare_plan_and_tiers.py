"""``rank --tiers``, ``compare`` and ``plan`` print what the API computes."""

import numpy as np
import pandas as pd

from sklearn_eval.pairwise import EloRanker
from sklearn_eval.uncertainty import compare_agents, power, rank_sets, sample_size

from ._helpers import run, write_wide

MATCH_COLUMNS = ["--first-col", "home", "--second-col", "away",
                 "--outcome-col", "result"]


def test_rank_tiers_prints_the_rank_sets(matches_csv, capsys):
    path, X, y = matches_csv
    code, out, err = run(["rank", path, *MATCH_COLUMNS, "--tiers", "-q"], capsys)
    assert code == 0, err
    assert "rank sets and tiers" in out
    sets = rank_sets(EloRanker(method="batch"), X, y, random_state=0)
    frame = sets.to_frame()
    lines = out.split("rank sets and tiers")[1].splitlines()[3:]
    assert len(lines) == len(frame)
    for line, row in zip(lines, frame.itertuples(), strict=True):
        cells = line.split()
        assert cells[0] == str(row.tier) and cells[1] == str(row.Index)
        assert cells[3] == f"{row.rank_low}-{row.rank_high}"


def test_compare_items_are_paired_mean_differences(tmp_path, capsys):
    rng = np.random.default_rng(0)
    values = (rng.random((4, 120)) < [[0.8], [0.7], [0.69], [0.4]]).astype(float)
    path = write_wide(tmp_path / "items.csv", values)
    code, out, err = run(["compare", path, "--pairs", "all", "--correction", "bh",
                          "-q"], capsys)
    assert code == 0, err
    frame = pd.DataFrame(values, index=[f"agent{i}" for i in range(4)])
    expected = compare_agents("mean", frame, pairs="all", correction="bh")
    body = out.splitlines()[3:]
    assert len(body) == len(expected) == 6
    for line, row in zip(body, expected.itertuples(), strict=True):
        cells = line.split()
        assert cells[:2] == [str(row.agent_a), str(row.agent_b)]
        assert float(cells[2]) == round(row.difference, 4)


def test_compare_named_pairs_and_unknown_agents(matches_csv, capsys):
    path, _, _ = matches_csv
    code, out, err = run(["compare", path, "--input", "matches", *MATCH_COLUMNS,
                          "--pair", "0,1", "-q"], capsys)
    assert code == 0, err
    assert len(out.strip().splitlines()) == 4
    code, _, err = run(["compare", path, "--input", "matches", *MATCH_COLUMNS,
                        "--pair", "0,nobody", "-q"], capsys)
    assert code == 2 and "unknown agents" in err and len(err.splitlines()) == 1
    code, _, err = run(["compare", path, "--input", "matches", *MATCH_COLUMNS,
                        "--pair", "0", "-q"], capsys)
    assert code == 2 and "--pair" in err


def test_plan_prints_sample_size_and_power(capsys):
    code, out, _ = run(["plan", "--effect", "0.05", "--baseline", "0.7",
                        "--correlation", "0.4"], capsys)
    assert code == 0
    n = sample_size(0.05, baseline=0.7, correlation=0.4)
    assert out.splitlines()[-1].split() == ["0.05", "0.8", str(n)]
    code, out, _ = run(["plan", "--effect", "20", "--data", "matches", "--n",
                        "3000", "--tie-rate", "0.2"], capsys)
    assert code == 0
    assert out.splitlines()[-1].split()[-1] == (
        f"{power(3000, 20, data='matches', tie_rate=0.2):.3f}")


def test_plan_rejects_impossible_settings_in_one_line(capsys):
    code, _, err = run(["plan", "--effect", "0.6", "--baseline", "0.5"], capsys)
    assert code == 2 and "baseline" in err and len(err.splitlines()) == 1
    code, _, err = run(["plan", "--effect", "0.1", "--power", "1.5"], capsys)
    assert code == 2 and "power" in err
    code, _, err = run(["plan", "--effect", "-1"], capsys)
    assert code == 2 and "effect" in err


def _clustered_matches(tmp_path):
    """Matches in 40 clusters (e.g. prompts) with a shared per-cluster shock."""
    from ._helpers import write_rows

    rng = np.random.default_rng(3)
    n = 800
    first = rng.integers(0, 6, n)
    second = (first + rng.integers(1, 6, n)) % 6
    cluster = rng.integers(0, 40, n)
    shock = rng.normal(scale=1.5, size=40)[cluster]
    logit = 0.4 * (second - first) + shock
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    X = np.column_stack([first, second]).astype(str)
    X = np.char.add("p", X)
    rows = [[a, b, int(o), f"prompt{c}"]
            for (a, b), o, c in zip(X, y, cluster, strict=True)]
    path = write_rows(tmp_path / "clustered.csv", ["first", "second", "outcome",
                                                   "prompt"], rows)
    return path, X, y, np.array([f"prompt{c}" for c in cluster], dtype=object)


def test_groups_cluster_the_rank_sets_and_the_comparisons(tmp_path, capsys):
    """``--groups COL`` gives what ``groups=`` gives in the API (user guide:
    "Is the ranking settled?", clustered resampling)."""
    path, X, y, groups = _clustered_matches(tmp_path)
    code, out, err = run(["rank", path, "--tiers", "--groups", "prompt", "-q"],
                         capsys)
    assert code == 0, err
    assert "clustered by prompt: 40 clusters" in out
    sets = rank_sets(EloRanker(method="batch"), X, y, groups=groups,
                     random_state=0).to_frame()
    lines = out.split("rank sets and tiers")[1].splitlines()[3:]
    assert [line.split()[3] for line in lines] == [
        f"{low}-{high}" for low, high in zip(sets.rank_low, sets.rank_high,
                                             strict=True)
    ]
    code, out, err = run(["compare", path, "--input", "matches", "--groups",
                          "prompt", "--pairs", "all", "-q"], capsys)
    assert code == 0, err
    expected = compare_agents(EloRanker(method="batch"), X, y, groups=groups,
                              pairs="all", random_state=0)
    plain = compare_agents(EloRanker(method="batch"), X, y, pairs="all",
                           random_state=0)
    # the shared shocks widen the clustered standard errors
    assert (expected["se"].to_numpy() > plain["se"].to_numpy()).mean() > 0.5
    body = out.splitlines()[3:]
    for line, row in zip(body, expected.itertuples(), strict=True):
        assert float(line.split()[3]) == round(row.se, 4)


def test_groups_label_the_tasks_of_a_long_file(tmp_path, capsys):
    from ._helpers import write_rows

    rng = np.random.default_rng(1)
    values = (rng.random((3, 30)) < [[0.8], [0.6], [0.55]]).astype(float)
    rows = [[f"agent{i}", f"task{j}", values[i, j], f"q{j // 3}"]
            for i in range(3) for j in range(30)]
    path = write_rows(tmp_path / "long.csv", ["agent", "task", "score", "question"],
                      rows)
    code, out, err = run(["compare", path, "--groups", "question", "-q"], capsys)
    assert code == 0, err
    frame = pd.DataFrame(values, index=["agent0", "agent1", "agent2"],
                         columns=[f"task{j}" for j in range(30)])
    table = compare_agents("mean", frame, groups=[f"q{j // 3}" for j in range(30)],
                           random_state=0)
    body = out.splitlines()[3:]
    assert len(body) == len(table)
    for line, row in zip(body, table.itertuples(), strict=True):
        assert float(line.split()[3]) == round(row.se, 4)
    rows[4][3] = "elsewhere"  # task4 of agent0 in another cluster
    path = write_rows(tmp_path / "bad.csv", ["agent", "task", "score", "question"],
                      rows)
    code, _, err = run(["compare", path, "--groups", "question", "-q"], capsys)
    assert code != 0 and "task 'task4' is in two clusters" in err
    code, _, err = run(["compare", path, "--groups", "nope", "-q"], capsys)
    assert code != 0 and "no column 'nope' (--groups)" in err
    wide = write_wide(tmp_path / "wide.csv", values)
    code, _, err = run(["compare", wide, "--groups", "agent", "-q"], capsys)
    assert code != 0 and "--groups labels the tasks of a long file" in err


def test_compare_and_tiers_take_the_bootstrap_on_a_table_with_gaps(tmp_path, capsys):
    # the default --method auto: a missing result has no paired covariance
    rng = np.random.default_rng(1)
    values = rng.random((4, 30)) + np.arange(4)[:, None]
    values[1, 3] = values[2, 7] = np.nan
    path = write_wide(tmp_path / "gaps.csv", values)
    code, out, err = run(["compare", path, "--n-resamples", "50", "-q"], capsys)
    assert code == 0, err
    frame = pd.DataFrame(values, index=[f"agent{i}" for i in range(4)])
    expected = compare_agents("mean", frame, method="bootstrap", n_resamples=50,
                              random_state=0)
    body = out.splitlines()[3:]
    assert len(body) == len(expected) == 3
    for line, row in zip(body, expected.itertuples(), strict=True):
        assert float(line.split()[3]) == round(row.se, 4)
