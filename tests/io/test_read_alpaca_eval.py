"""AlpacaEval pairwise judge annotations read into the long table and matches.

The fixtures under data/alpaca_eval are AlpacaEval's own annotation files
(a sample cut by make_fixtures.py; origin and licence in README.md there):
two judges, a weighted one (probability preferences) and one with 1/2 and 0
for a draw. The position and length checks follow the length-controlled
AlpacaEval analysis (Dubois et al., 2024): a judge's preference modelled as
a Bradley-Terry comparison with the output length difference (and the order
shown) as covariates.
"""

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sklearn_eval.io import read_alpaca_eval, to_matches, to_result_matrix
from sklearn_eval.pairwise import EloRanker

DATA = Path(__file__).parent / "data" / "alpaca_eval"
FILES = sorted(DATA.rglob("annotations.json"))


def _read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return read_alpaca_eval(path)


def _raw_rows():
    """The rows the files hold, computed from the raw JSON independently."""
    rows = set()
    for file in FILES:
        for r in json.loads(file.read_text()):
            if r["generator_1"] == r["generator_2"]:
                continue
            p = r["preference"]
            score = 0.5 if p == 0 else p - 1
            rows.add((r["generator_2"], r["dataset"], r["instruction"],
                      r["annotator"], score, r["generator_1"],
                      len(r["output_2"]), len(r["output_1"])))
    return rows


def test_rows_equal_what_the_files_hold():
    long = _read(DATA)
    columns = ["model", "task", "item", "metric", "score", "opponent", "length",
               "opponent_length"]
    got = {tuple(row) for row in long[columns].itertuples(index=False)}
    assert got == _raw_rows()
    assert len(long) == len(got) == 5 * 8
    assert (long["epoch"] == 1).all() and (long["position"] == 2).all()
    assert long["score"].dtype == np.float64


def test_a_generator_judged_against_itself_is_left_out_with_a_warning():
    own = DATA / "results" / "gpt4_1106_preview"
    with pytest.warns(UserWarning, match="compare a generator with itself"), \
            pytest.raises(ValueError, match="no annotation compares two"):
        read_alpaca_eval(own)


def test_the_result_matrix_is_models_by_instructions():
    long = _read(DATA)
    matrix = to_result_matrix(long, metric="alpaca_eval_gpt4")
    assert matrix.shape == (2, 8)
    raw = json.loads(FILES[0].read_text())  # alpaca-7b judged by alpaca_eval_gpt4
    assert FILES[0].parts[-3:-1] == ("alpaca-7b", "alpaca_eval_gpt4")
    expected = {
        f"{r['dataset']}/{r['instruction']}": 0.5 if r["preference"] == 0
        else r["preference"] - 1 for r in raw
    }
    row = matrix.loc["alpaca-7b"]
    assert {k: row[k] for k in expected} == expected


def test_judged_matches_carry_the_soft_preference_and_the_covariates():
    long = _read(DATA)
    long = long[long["metric"] == "weighted_alpaca_eval_gpt4_turbo"]
    matches = to_matches(long)
    # each annotation's weights add up to 1 and give the judge's preference
    key = ["model_a", "model_b", "task", "item"]
    per = matches.assign(win=matches["y"] * matches["weight"]).groupby(key)
    assert np.allclose(per["weight"].sum(), 1.0)
    for (a, b, _task, item), win in per["win"].sum().items():
        row = long[(long["item"] == item) & long["model"].isin([a, b])
                   & long["opponent"].isin([a, b])].iloc[0]
        expected = row["score"] if row["model"] == a else 1 - row["score"]
        length = row["length"] - row["opponent_length"]
        length = length if row["model"] == a else -length
        assert win == pytest.approx(expected, abs=1e-12)
        diff = matches.loc[(matches["model_a"] == a) & (matches["model_b"] == b)
                           & (matches["item"] == item), "length_diff"]
        assert np.allclose(diff, length / 1000)
    # AlpacaEval writes the outputs back in one order (the reference first):
    # the position it showed the judge is not in its files, and a fit says so
    X = matches[["model_a", "model_b", "position", "length_diff"]]
    with pytest.raises(ValueError, match="position.*collinear"):
        EloRanker(method="batch").fit(X, matches["y"],
                                      sample_weight=matches["weight"])


def _judge_log(rng, n, strengths, position_bias, length_bias):
    """Annotations of a Bradley-Terry judge that logs the order it showed."""
    names = list(strengths)
    annotations = []
    for k in range(n):
        i, j = rng.choice(len(names), size=2, replace=False)
        first, second = names[i], names[j]  # the order shown to the judge
        length_1, length_2 = rng.integers(200, 3000, size=2)
        logit = (strengths[first] - strengths[second] + position_bias
                 + length_bias * (length_1 - length_2) / 1000)
        first_wins = rng.random() < 1 / (1 + np.exp(-logit))
        annotations.append({
            "instruction": f"q{k}", "dataset": "synthetic",
            "output_1": "x" * int(length_1), "generator_1": first,
            "output_2": "y" * int(length_2), "generator_2": second,
            "annotator": "judge", "preference": 1 if first_wins else 2,
        })
    return annotations


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_position_and_length_biases_are_recovered(tmp_path, seed):
    rng = np.random.default_rng(seed)
    strengths = {"a": 0.8, "b": 0.2, "c": -0.3, "d": -0.7}
    position_bias = rng.uniform(-0.8, 0.8)
    length_bias = rng.uniform(-0.6, 0.6)
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(
        _judge_log(rng, 4000, strengths, position_bias, length_bias)))
    matches = to_matches(read_alpaca_eval(path))
    X = matches[["model_a", "model_b", "position", "length_diff"]]
    ranker = EloRanker(method="batch", scale="logit").fit(
        X, matches["y"], sample_weight=matches["weight"])
    coef = dict(zip(ranker.covariate_names_, ranker.covariate_coef_, strict=True))
    se = dict(zip(ranker.covariate_names_, ranker.covariate_se_, strict=True))
    assert abs(coef["position"] - position_bias) < 4 * se["position"]
    assert abs(coef["length_diff"] - length_bias) < 4 * se["length_diff"]
    assert se["position"] < 0.05 and se["length_diff"] < 0.05
    scores = dict(zip(ranker.agents_, ranker.agent_scores_, strict=True))
    assert sorted(scores, key=scores.get, reverse=True) == ["a", "b", "c", "d"]


def _write(folder, name, annotations):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(annotations))
    return path


BASE = {"instruction": "q", "dataset": "d", "output_1": "aa", "generator_1": "r",
        "output_2": "bbb", "generator_2": "m", "annotator": "j", "preference": 1.5}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"preference": 2.5}, r"annotation 0: field 'preference' is 2.5"),
        ({"preference": "2"}, "not a number"),
        ({"preference": -1}, "in \\[1, 2\\]"),
        ({"generator_2": None}, None),
        ({"output_2": None}, "outputs are not text"),
    ],
)
def test_bad_annotations_are_refused_naming_file_and_annotation(
    tmp_path, change, message
):
    record = {**BASE, **change}
    path = _write(tmp_path, "annotations.json", [BASE | {"instruction": "p"}, record])
    if change.get("generator_2", "") is None:
        with pytest.raises(ValueError, match="missing label"):
            read_alpaca_eval(path)
        return
    message = message.replace("annotation 0", "annotation 1")
    with pytest.raises(ValueError, match=message) as info:
        read_alpaca_eval(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("field", ["instruction", "output_1", "generator_1",
                                   "preference"])
def test_a_missing_field_is_named(tmp_path, field):
    record = {k: v for k, v in BASE.items() if k != field}
    path = _write(tmp_path, "annotations.json", [record])
    with pytest.raises(ValueError, match=f"annotation 0 lacks the field.*{field}"):
        read_alpaca_eval(path)


def test_not_a_list_and_not_json_are_refused(tmp_path):
    path = _write(tmp_path, "annotations.json", {"preference": 1})
    with pytest.raises(ValueError, match="not a list of annotations"):
        read_alpaca_eval(path)
    path.write_text('[{"instruction": ')
    with pytest.raises(ValueError, match="not a readable annotations file"):
        read_alpaca_eval(path)


def test_the_same_comparison_read_twice_is_refused(tmp_path):
    shutil.copytree(DATA / "results", tmp_path / "a")
    shutil.copytree(DATA / "results" / "alpaca-7b", tmp_path / "b")
    with pytest.raises(ValueError, match="repeat a"):
        _read(tmp_path)


def test_a_missing_preference_is_not_scored(tmp_path):
    path = _write(tmp_path, "annotations.json",
                  [BASE, BASE | {"instruction": "p", "preference": None}])
    with pytest.warns(UserWarning, match=r"without a preference .*'m' 1 of 2"):
        long = read_alpaca_eval(path)
    assert long["score"].isna().tolist() == [False, True]
    matches = to_matches(long)
    assert len(matches) == 1 and matches["y"].tolist() == [0.5]


def test_judged_matches_need_the_judged_columns():
    long = pd.DataFrame({"model": ["a"], "task": "t", "item": 1, "epoch": 1,
                         "metric": "m", "score": 1.0, "opponent": "b"})
    with pytest.raises(ValueError, match="lack the column"):
        to_matches(long)


def _judged_folder(tmp_path, annotations_of_m):
    """The fixture folder, with model m's annotations file as given."""
    folder = tmp_path / "results"
    shutil.copytree(DATA / "results", folder)
    rows = [BASE | {"instruction": f"q{k}", "generator_1": "alpaca-7b"}
            for k in range(4)]
    return folder, _write(folder / "m" / "judge", "annotations.json",
                          annotations_of_m(rows))


UNJUDGED = {
    "an empty list": (lambda rows: [], "holds no annotation"),
    "every preference null": (
        lambda rows: [r | {"preference": None} for r in rows],
        r"none of its 4 annotations has a preference .*\['m'\]"),
    "every preference NaN": (
        lambda rows: [r | {"preference": float("nan")} for r in rows],
        r"none of its 4 annotations has a preference"),
}


@pytest.mark.parametrize("case", sorted(UNJUDGED))
def test_a_model_without_any_judgement_never_vanishes(case, tmp_path):
    # the model's file judges nothing: refused naming it, never read as if
    # the model had not been evaluated
    make, message = UNJUDGED[case]
    folder, file = _judged_folder(tmp_path, make)
    for path in (folder, file):
        with pytest.raises(ValueError, match=message) as error:
            _read(path)
        assert str(file) in str(error.value)


@pytest.mark.filterwarnings("ignore:.*compare a generator with itself")
@pytest.mark.parametrize("n_missing", [1, 3])
def test_a_partly_judged_model_is_read_with_a_warning_naming_it(n_missing,
                                                                 tmp_path):
    folder, file = _judged_folder(
        tmp_path, lambda rows: [r | {"preference": None} if k < n_missing else r
                                for k, r in enumerate(rows)])
    with pytest.warns(UserWarning, match=f"'m' {n_missing} of 4"):
        long = read_alpaca_eval(folder)
    m = long[long["model"] == "m"]
    assert m["score"].isna().sum() == n_missing and len(m) == 4
    matches = to_matches(long[long["metric"] == "j"])
    assert ((matches["model_a"] == "m") | (matches["model_b"] == "m")).sum() \
        == 4 - n_missing


def test_the_reference_judged_against_itself_is_not_an_unjudged_file(tmp_path):
    folder, _ = _judged_folder(tmp_path, lambda rows: rows)
    _write(folder / "r" / "judge", "annotations.json",
           [BASE | {"generator_2": "r"}])
    with pytest.warns(UserWarning, match="compare a generator with itself"):
        long = read_alpaca_eval(folder)
    assert "r" not in set(long["model"])
