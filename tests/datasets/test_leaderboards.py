"""Public leaderboards: the tables load as published and the estimators rank them.

The tables are the benchbench 1.0.1 files (Zhang and Hardt, ICML 2024); the
raw files under ``../shared/data/leaderboards`` are read here independently of
the loader to check every cell. The AlpacaEval boards beside them are CC BY-NC
and never shipped: they are only read from ``../shared``.
"""

import csv

import numpy as np
import pytest

from sklearn_eval.datasets import describe_datasets, list_leaderboards, load_leaderboard
from sklearn_eval.game import NashAverager, VotingRanker
from sklearn_eval.metrics import kendall_tau

# name -> (n_models, n_tasks, missing cells, lower-is-better tasks); counts from
# SOURCES.md (models per board) and the boards' columns
_SHAPES = {
    "helm_accuracy": (67, 16, 196, 0),
    "helm_bias": (67, 48, 1926, 48),
    "helm_calibration": (67, 12, 270, 12),
    "helm_efficiency": (67, 16, 677, 16),
    "helm_toxicity": (67, 12, 344, 12),
    "helm_lite": (91, 10, 1, 0),
    "helm_capability": (65, 5, 0, 0),
    "heim_aesthetics_human": (26, 24, 6 * 26, 0),
    "heim_quality_human": (26, 8, 26, 0),
    "heim_nsfw": (26, 20, 0, 20),
    "openllm": (100, 6, 0, 0),
    "mmlu": (98, 57, 0, 0),
    "bbh": (107, 27, 0, 0),
    "bigcode": (41, 3, 0, 0),
    "glue": (87, 14, 1, 0),
    "superglue": (28, 14, 0, 0),
    "mteb": (83, 7, 0, 0),
    "vtab": (16, 19, 0, 0),
    "imagenet": (112, 1000, 0, 0),
}

# board -> (file under leaderboards/benchbench, agent column, first task column)
_RAW = {
    "helm_accuracy": ("helm/accuracy.tsv", 0, 2),
    "helm_lite": ("helm_lite/leaderboard.tsv", 0, 2),
    "helm_capability": ("helm_capability/leaderboard.tsv", 0, 2),
    "heim_nsfw": ("heim/nsfw.tsv", 0, 2),
    "openllm": ("openllm/leaderboard.tsv", 1, 3),
    "bbh": ("bbh/leaderboard.tsv", 1, 6),
    "mteb": ("mteb/leaderboard.tsv", 1, 7),
    "imagenet": ("imagenet/leaderboard.tsv", 0, 8),
}


def _raw_rows(shared_dir, path):
    file = shared_dir / "data" / "leaderboards" / "benchbench" / path
    with open(file, encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.reader(handle, delimiter="\t") if row]
    return rows[0], rows[1:]


def test_every_board_is_listed_and_loads():
    boards = list_leaderboards()
    assert len(boards) == 29
    for name in boards:
        bunch = load_leaderboard(name)
        n, m = bunch.data.shape
        assert bunch.data.dtype == np.float64
        assert len(bunch.agent_names) == n == len(set(bunch.agent_names))
        assert len(bunch.feature_names) == m == len(set(bunch.feature_names))
        assert bunch.higher_is_better.shape == (m,)
        assert bunch.target.shape == (n,)
        assert not np.isinf(bunch.data).any()
        # no task is the board's own aggregate
        assert not {"Mean win rate", "Average", "Score"} & set(bunch.feature_names)


@pytest.mark.parametrize("name", sorted(_SHAPES))
def test_documented_shape_missing_cells_and_directions(name):
    n, m, missing, lower = _SHAPES[name]
    bunch = load_leaderboard(name)
    assert bunch.data.shape == (n, m)
    assert int(np.isnan(bunch.data).sum()) == missing
    assert int((~bunch.higher_is_better).sum()) == lower


@pytest.mark.parametrize("name", sorted(_RAW))
def test_numbers_equal_the_raw_file(name, shared_dir):
    path, agent, first = _RAW[name]
    header, rows = _raw_rows(shared_dir, path)
    bunch = load_leaderboard(name)
    # names as listed; a repeated name carries " #2", " #3" on later rows
    assert [name.split(" #")[0] for name in bunch.agent_names] == [
        row[agent] for row in rows
    ]
    raw_tasks = header[first:]
    for k, row in enumerate(rows):
        cells = row[first:]
        expected = [np.nan if c in ("-", "N/A") else float(c) for c in cells]
        np.testing.assert_array_equal(bunch.data[k], expected)
    assert len(raw_tasks) == bunch.data.shape[1]


def test_pair_cells_become_two_tasks(shared_dir):
    header, rows = _raw_rows(shared_dir, "glue/leaderboard.tsv")
    glue = load_leaderboard("glue", as_frame=True)
    mrpc = [row[header.index("MRPC")].split("/") for row in rows]
    np.testing.assert_array_equal(glue.data["MRPC F1"], [float(a) for a, _ in mrpc])
    np.testing.assert_array_equal(glue.data["MRPC Acc"], [float(b) for _, b in mrpc])
    # the human baseline has no AX diagnostic: the only missing cell
    human = glue.data.loc["GLUE Human Baselines"]
    assert np.isnan(human["AX"]) and human.drop("AX").notna().all()


def test_duplicate_model_names_keep_every_row(shared_dir):
    header, rows = _raw_rows(shared_dir, "openllm/leaderboard.tsv")
    board = load_leaderboard("openllm")
    names = [row[1] for row in rows]
    repeated = sorted({name for name in names if names.count(name) > 1})
    assert repeated  # the board lists some models twice
    for name in repeated:
        assert f"{name} #2" in board.agent_names.tolist()
    k = names.index(repeated[0], names.index(repeated[0]) + 1)
    assert board.agent_names[k] == f"{repeated[0]} #2"
    np.testing.assert_array_equal(board.data[k], [float(c) for c in rows[k][3:]])


def test_published_aggregates_are_the_means_of_the_tasks():
    # rounding of the published numbers bounds the gap (3 or 2 decimals)
    cap = load_leaderboard("helm_capability")
    np.testing.assert_allclose(cap.data.mean(axis=1), cap.target, atol=1e-3)
    llm = load_leaderboard("openllm")
    np.testing.assert_allclose(llm.data.mean(axis=1), llm.target, atol=1e-2)
    mmlu = load_leaderboard("mmlu")
    np.testing.assert_allclose(mmlu.data.mean(axis=1), mmlu.target, rtol=1e-12)
    imagenet = load_leaderboard("imagenet")
    np.testing.assert_allclose(imagenet.data.mean(axis=1), imagenet.target, atol=1e-12)
    # MTEB averages over 56 datasets: task categories weighted by their size
    mteb = load_leaderboard("mteb")
    sizes = [int(label.split("(")[1].split()[0]) for label in mteb.feature_names]
    assert sum(sizes) == 56
    np.testing.assert_allclose(mteb.data @ sizes / 56, mteb.target, atol=1e-2)


def test_reference_agents_are_the_human_baselines():
    for name, label in (
        ("glue", "GLUE Human Baselines"),
        ("superglue", "SuperGLUE Human Baselines"),
    ):
        board = load_leaderboard(name)
        assert board.reference_agents == {label: "human"}
        assert board.agent_names[board.is_reference].tolist() == [label]
    assert load_leaderboard("helm_lite").reference_agents == {}


def test_as_frame_matches_the_array():
    plain = load_leaderboard("bbh")
    framed = load_leaderboard("bbh", as_frame=True)
    np.testing.assert_array_equal(framed.data.to_numpy(), plain.data)
    assert framed.data.index.tolist() == plain.agent_names.tolist()
    assert framed.target.index.equals(framed.data.index)
    assert framed.info["Parameters"][0] == "N/A"  # kept as text


def test_unknown_board_is_refused():
    with pytest.raises(ValueError, match="name"):
        load_leaderboard("alpaca_eval")


def test_describe_datasets_lists_the_boards():
    summary = {entry["name"]: entry for entry in describe_datasets()}
    for name, (n, m, _, _) in _SHAPES.items():
        entry = summary[f"leaderboard_{name}"]
        assert entry["shape"] == (n, m) and entry["licence"] == "MIT"
    assert summary["leaderboard_glue"]["reference_agents"] == ["GLUE Human Baselines"]


def test_nash_averaging_respects_domination_on_helm_capabilities():
    cap = load_leaderboard("helm_capability")
    scores = NashAverager().fit(cap.data).agent_scores_
    assert np.isfinite(scores).all() and scores.shape == (65,)
    # an agent at least as good on every task never scores below the other
    X = cap.data
    dominates = (X[:, None, :] >= X[None, :, :]).all(axis=2)
    i, j = np.nonzero(dominates & ~np.eye(len(X), dtype=bool))
    assert len(i) > 100
    assert (scores[i] >= scores[j] - 1e-6).all()


def test_voting_ranks_helm_lite_like_its_mean_win_rate():
    lite = load_leaderboard("helm_lite")
    # NaN: the task votes only on the models it scored (no imputation)
    scores = VotingRanker(method="copeland").fit(lite.data).agent_scores_
    assert kendall_tau(scores, lite.target) > 0.8


def test_alpaca_eval_boards_are_not_shipped(shared_dir):
    from importlib import resources

    shipped = [p.name for p in resources.files("sklearn_eval.datasets").joinpath(
        "data").iterdir()]
    assert not [name for name in shipped if "alpaca" in name.lower()]
    board = shared_dir / "data" / "leaderboards" / "alpaca_eval"
    if not board.is_dir():
        pytest.skip("AlpacaEval boards absent from ../shared")
    assert "alpaca" not in " ".join(list_leaderboards())


def _damaged(monkeypatch, change):
    from sklearn_eval.datasets import _leaderboards

    original = _leaderboards._open_text
    monkeypatch.setattr(
        _leaderboards, "_open_text", lambda filename: change(original(filename))
    )


@pytest.mark.parametrize(
    "name, change, message",
    [
        ("helm_lite", lambda t: t + "extra\t0.5\n", "line 93 has a different number"),
        ("helm_lite", lambda t: t.replace("0.804", "0.8o4", 1),
         r"cell '0.8o4' at row 2, column 'NarrativeQA - F1'"),
        ("heim_nsfw", lambda t: t.replace(" ↓ [ sort ]", "", 1), "no direction arrow"),
        (
            "glue",
            lambda t: t.replace("CoLA", "CoLA2", 1).replace("\t73.3\t", "\t7/3\t", 1),
            "'CoLA2' has 'a/b' cells of unknown metrics",
        ),
    ],
)
def test_damaged_tables_are_detected(monkeypatch, name, change, message):
    _damaged(monkeypatch, change)
    with pytest.raises(ValueError, match=message):
        load_leaderboard(name)
