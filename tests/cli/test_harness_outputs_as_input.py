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
