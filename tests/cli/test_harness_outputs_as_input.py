"""The commands read evaluation tools' output where they read CSV files.

The inputs are the readers' fixtures (real lm-evaluation-harness, inspect_ai
and HELM output, AlpacaEval's own annotations; see tests/io/data). A
command on a results folder must agree with the library on the long table
the reader returns (user guide, "From a results folder to a report").
"""

import json
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

from sklearn_eval.io import read_results, to_matches, to_result_matrix
from sklearn_eval.pairwise import EloRanker
from sklearn_eval.uncertainty import compare_agents, rank_sets

from ._helpers import run

DATA = Path(__file__).parents[1] / "io" / "data"
LM_EVAL = DATA / "lm_eval"
ALPACA = DATA / "alpaca_eval"


def test_report_straight_from_a_results_folder(tmp_path, capsys):
    out = tmp_path / "r.html"
    code, stdout, err = run(
        ["report", LM_EVAL, "--metric", "acc,none", "-q", "-o", out,
         "--no-figures", "--n-resamples", "0"], capsys)
    assert code == 0, err
    html = out.read_text()
    for model in ("model-a", "model-b", "model-c"):
        assert model in html
    assert "capitals/0" in html


def test_several_metrics_without_metric_list_them(capsys):
    code, _, err = run(["irt", LM_EVAL, "-q"], capsys)
    assert code == 2
    for metric in ("acc,none", "acc_norm,none", "exact_match,none",
                   "exact_match,first-word"):
        assert metric in err
    assert "--metric" in err
    code, _, err = run(["irt", LM_EVAL, "--metric", "accuracy", "-q"], capsys)
    assert code == 2 and "no metric 'accuracy'" in err and "acc,none" in err


def test_rank_agrees_with_the_library_on_the_per_item_matches(tmp_path, capsys):
    out = tmp_path / "ratings.csv"
    code, _, err = run(
        ["rank", LM_EVAL, "--metric", "acc_norm,none", "--method", "batch",
         "--csv", out, "-q"], capsys)
    assert code == 0, err
    table = pd.read_csv(out)
    long = read_results(LM_EVAL)
    matches = to_matches(long, metric="acc_norm,none")
    model = EloRanker(method="batch").fit(matches[["model_a", "model_b"]],
                                          matches["y"])
    expected = dict(zip(model.agents_, model.agent_scores_, strict=True))
    got = dict(zip(table["player"], table["rating"], strict=True))
    assert set(got) == set(expected)
    for player, rating in got.items():
        assert rating == pytest.approx(expected[player], abs=0.05)


def test_irt_reads_an_inspect_folder_as_models_by_items(capsys):
    folder = DATA / "inspect" / "eval"
    code, _, err = run(["irt", folder, "--metric", "match"], capsys)
    # two models: the benchmark needs three; the error names the input
    assert code == 2 and "at least 3 agents" in err
    assert "read 2 models x 4 items" in err


def test_helm_runs_give_the_result_matrix_of_the_library(tmp_path, capsys):
    code, _, err = run(["irt", DATA / "helm", "--metric", "exact_match"], capsys)
    matrix = to_result_matrix(read_results(DATA / "helm"), metric="exact_match")
    assert matrix.shape == (3, 12)
    assert f"read 3 models x 12 items from {DATA / 'helm'}" in err


def test_alpaca_eval_folders_are_read_as_judged_matches(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        code, stdout, err = run(
            ["rank", ALPACA, "--metric", "alpaca_eval_gpt4", "--method", "batch",
             "--covariates", "length_diff", "-q"], capsys)
    assert code == 0, err
    assert "covariate length_diff" in stdout
    code, _, err = run(["rank", ALPACA, "--metric", "alpaca_eval_gpt4",
                        "--method", "batch", "--covariates", "words", "-q"], capsys)
    assert code == 2 and "no covariate 'words'" in err


def test_a_folder_of_two_tools_is_refused(tmp_path, capsys):
    shutil.copytree(LM_EVAL / "runs", tmp_path / "a")
    (tmp_path / "annotations.json").write_text(json.dumps([]))
    code, _, err = run(["irt", tmp_path, "--metric", "acc,none"], capsys)
    assert code == 2 and "several tools" in err


HELM = DATA / "helm"


def test_groups_of_a_tool_output_are_columns_of_its_rows(capsys):
    """``--groups`` on a tool's output gives what ``groups=`` gives in the API
    on the rows the readers return; item ids repeat across HELM's two tasks,
    so ``item`` means an item within its task."""
    long = read_results(HELM)
    matches = to_matches(long, metric="exact_match")
    items = (matches["task"].astype(str) + "/" + matches["item"].astype(str)).to_numpy()
    assert len(set(items)) == 12 > matches["item"].nunique()
    code, out, err = run(["rank", HELM, "--metric", "exact_match", "--tiers",
                          "--groups", "item", "-q"], capsys)
    assert code == 0, err
    assert "clustered by item: 12 clusters" in out
    X, y = matches[["model_a", "model_b"]].to_numpy(dtype=object), matches["y"]
    sets = rank_sets(EloRanker(method="batch"), X, y, groups=items,
                     random_state=0).to_frame()
    lines = out.split("rank sets and tiers")[1].splitlines()[3:]
    got = {line.split()[1]: line.split()[3] for line in lines}
    assert got == {player: f"{low}-{high}" for player, low, high in zip(
        sets.index, sets.rank_low, sets.rank_high, strict=True)}

    matrix = to_result_matrix(long, metric="exact_match")
    code, out, err = run(["compare", HELM, "--metric", "exact_match", "--groups",
                          "task", "--pairs", "all", "-q"], capsys)
    assert code == 0, err
    assert "clustered by task (2 clusters)" in out
    tasks = [label.split("/")[0] for label in matrix.columns]
    expected = compare_agents("mean", matrix, groups=tasks, pairs="all",
                              random_state=0)
    body = out.splitlines()[3:]
    assert len(body) == len(expected)
    for line, row in zip(body, expected.itertuples(), strict=True):
        assert float(line.split()[3]) == round(row.se, 4)


def test_groups_of_a_tool_output_name_what_is_wrong(capsys):
    code, _, err = run(["rank", HELM, "--metric", "exact_match", "--tiers",
                        "--groups", "prompt", "-q"], capsys)
    assert code == 2 and "no column 'prompt' (--groups)" in err
    assert "'task', 'item'" in err and "not a CSV" not in err
    # each model's rows come from its own file: an item in three clusters
    code, _, err = run(["compare", LM_EVAL, "--metric", "acc,none", "--groups",
                        "file", "-q"], capsys)
    assert code == 2 and "item 'capitals/0' is in 3 clusters" in err
