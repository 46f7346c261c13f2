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
