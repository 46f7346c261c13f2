"""The long table of per-sample results and its conversion to estimator inputs.

Checked against a naive reference (a loop over the rows) on a seeded class of
tables: several models, tasks sharing item ids, repeated epochs, models that
lack items, NaN (unscored) samples.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.io import LONG_COLUMNS, check_long_table, to_matches, to_result_matrix
from sklearn_eval.pairwise import EloRanker


def _table(seed, n_models=4, n_tasks=2, n_items=5, n_epochs=3, p_missing=0.2):
    """Random long table: items ids repeat across tasks, some rows absent."""
    rng = np.random.default_rng(seed)
    rows = []
    for m, t, i in itertools.product(range(n_models), range(n_tasks), range(n_items)):
        for e in range(1, rng.integers(1, n_epochs + 1) + 1):
            if rng.random() < p_missing:
                continue
            for metric in ("acc", "f1"):
                score = float(rng.integers(0, 3)) / 2
                if rng.random() < 0.05:
                    score = np.nan
                rows.append((f"m{m}", f"t{t}", i, e, metric, score))
    return pd.DataFrame(rows, columns=list(LONG_COLUMNS))


def _cells(long, metric, epochs):
    """Naive reference: {(model, "task/item[@epoch]"): score}."""
    values = {}
    for row in long[long["metric"] == metric].itertuples():
        if np.isnan(row.score):
            continue
        key = (row.model, row.task, row.item)
        values.setdefault(key, []).append((row.epoch, row.score))
    out = {}
    for (model, task, item), scored in values.items():
        label = f"{task}/{item}"
        if epochs == "mean":
            out[model, label] = np.mean([s for _, s in scored])
        elif epochs == "first":
            out[model, label] = min(scored)[1]
        else:
            for epoch, score in scored:
                out[model, f"{label}@{epoch}"] = score
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), epochs=st.sampled_from(["mean", "first", "all"]))
def test_result_matrix_equals_the_naive_pivot(seed, epochs):
    long = _table(seed)
    expected = _cells(long, "f1", epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        matrix = to_result_matrix(long, metric="f1", epochs=epochs)
    assert matrix.index.name == "model"
    assert set(matrix.columns) == {label for _, label in expected}
    assert set(matrix.index) == {model for model, _ in expected}
    assert matrix.notna().to_numpy().sum() == len(expected)
    for (model, label), score in expected.items():
        assert matrix.loc[model, label] == pytest.approx(score, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), tie_tol=st.sampled_from([0.0, 0.5]))
def test_matches_compare_every_pair_on_every_shared_item(seed, tie_tol):
    long = _table(seed)
    cells = _cells(long, "acc", "mean")
    matches = to_matches(long, metric="acc", tie_tol=tie_tol)
    by_item = {}
    for (model, label), score in cells.items():
        by_item.setdefault(label, {})[model] = score
    expected = []
    for label, scores in by_item.items():
        for a, b in itertools.combinations(sorted(scores), 2):
            diff = scores[a] - scores[b]
            y = 0.5 if abs(diff) <= tie_tol else float(diff > 0)
            expected.append((label, a, b, y))
    got = [
        (f"{r.task}/{r.item}", r.model_a, r.model_b, r.y)
        for r in matches.itertuples()
    ]
    assert sorted(got) == sorted(expected)
    assert matches["y"].dtype == np.float64


def test_items_of_different_tasks_never_merge():
    long = pd.DataFrame({
        "model": ["a", "a", "b", "b"], "task": ["x", "y", "x", "y"],
        "item": [1, 1, 1, 1], "epoch": 1, "metric": "acc",
        "score": [1.0, 0.0, 0.0, 1.0],
    })
    matrix = to_result_matrix(long)
    assert matrix.columns.tolist() == ["x/1", "y/1"]
    assert matrix.to_numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_duplicated_samples_are_refused_naming_the_rows():
    long = _table(0)
    doubled = pd.concat([long, long.iloc[[7]]], ignore_index=True)
    last = len(doubled) - 1
    with pytest.raises(ValueError, match=rf"rows \[7, {last}\]"):
        to_result_matrix(doubled, metric="acc")
    with pytest.raises(ValueError, match="repeat a \\(model, task, item, epoch"):
        to_matches(doubled, metric="acc")


_LABELS = st.sampled_from(["a", "b", "é", "", 1, 1.0, True, 0.0, -0.0, 2])


@settings(max_examples=50, deadline=None)
@given(rows=st.lists(st.tuples(_LABELS, _LABELS, _LABELS, st.integers(1, 2),
                               _LABELS, _LABELS), min_size=1, max_size=8),
       text=st.booleans(), opponent=st.booleans())
def test_duplicates_are_the_rows_repeating_the_whole_key(rows, text, opponent):
    # columns holding one text value are left out of the search: the rows
    # refused are still those repeating every key column (or none)
    columns = ["model", "task", "item", "epoch", "metric", "opponent"]
    long = pd.DataFrame(rows, columns=columns).assign(score=0.5)
    if not opponent:
        long = long.drop(columns="opponent")
    if text:
        long = long.astype({c: str for c in columns if c in long and c != "epoch"})
    keys = [c for c in columns if c in long]
    expected = long.duplicated(keys, keep=False)
    try:
        check_long_table(long)
    except ValueError as exc:
        assert expected.any()
        first = int(np.argmax(expected.to_numpy()))
        assert f"{int(expected.sum())} rows" in str(exc)
        assert f"rows [{first}," in str(exc)
    else:
        assert not expected.any()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.drop(columns="epoch"), "lacks the column"),
        (lambda t: t.assign(epoch=0), "whole numbers >= 1"),
        (lambda t: t.assign(epoch=1.5), "whole numbers >= 1"),
        (lambda t: t.assign(score="high"), "finite numbers"),
        (lambda t: t.assign(score=np.inf), "finite numbers"),
        (lambda t: t.assign(model=None), "'model' has a missing label at row 0"),
        (lambda t: t.iloc[:0], "empty"),
    ],
)
def test_bad_tables_get_a_clear_error(change, message):
    with pytest.raises(ValueError, match=message):
        check_long_table(change(_table(1)))


def test_not_a_dataframe_is_a_type_error():
    with pytest.raises(TypeError, match="DataFrame"):
        to_result_matrix({"model": ["a"]})


def test_metric_must_be_named_when_there_are_several():
    long = _table(2)
    with pytest.raises(ValueError, match=r"several metrics \['acc', 'f1'\]"):
        to_result_matrix(long)
    with pytest.raises(ValueError, match="'bleu' is not in the long table"):
        to_matches(long, metric="bleu")
    with pytest.raises(ValueError, match="epochs must be one of"):
        to_result_matrix(long, metric="acc", epochs="last")


def test_a_model_lacking_items_is_missing_there_with_a_warning():
    long = pd.DataFrame({
        "model": ["a", "a", "a", "b"], "task": "t", "item": [1, 2, 3, 1],
        "epoch": 1, "metric": "acc", "score": [1.0, 1.0, 0.0, 0.0],
    })
    with pytest.warns(UserWarning, match="'b' has 1 of 3"):
        matrix = to_result_matrix(long)
    assert np.isnan(matrix.loc["b", ["t/2", "t/3"]]).all()
    assert len(to_matches(long)) == 1  # only item 1 is shared


def test_mostly_missing_tables_become_sparse():
    rng = np.random.default_rng(3)
    n_models, n_items = 30, 400
    rows = [
        (f"m{m}", "t", i, 1, "acc", float(rng.random() < 0.5))
        for m in range(n_models) for i in rng.choice(n_items, 20, replace=False)
    ]
    long = pd.DataFrame(rows, columns=list(LONG_COLUMNS))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        matrix = to_result_matrix(long, sparse="auto")
        dense = to_result_matrix(long)
    assert sp.issparse(matrix.values) and matrix.values.nnz == len(long)
    np.testing.assert_array_equal(
        np.where(dense.notna(), dense, 0.0), matrix.values.toarray()
    )
    assert matrix.agents.tolist() == dense.index.tolist()


def test_matches_rank_models_by_their_accuracy():
    # Bradley-Terry on item-wise comparisons orders models as their accuracy
    rng = np.random.default_rng(4)
    accuracy = {"strong": 0.85, "middle": 0.55, "weak": 0.25}
    long = pd.DataFrame(
        [
            (model, "qa", i, 1, "acc", float(rng.random() < p))
            for model, p in accuracy.items() for i in range(300)
        ],
        columns=list(LONG_COLUMNS),
    )
    matches = to_matches(long)
    elo = EloRanker(method="batch").fit(matches[["model_a", "model_b"]], matches["y"])
    ranked = [elo.agents_[k] for k in np.argsort(-elo.agent_scores_)]
    assert ranked == ["strong", "middle", "weak"]
