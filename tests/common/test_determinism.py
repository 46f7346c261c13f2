"""Determinism and persistence.

- the same ``random_state`` gives identical results run to run (and a
  different one actually changes what is random);
- pickle and joblib round-trips (files, compression) predict identically;
- loading the shipped datasets never executes code (no pickle, eval, exec);
- inputs are never modified in place (read-only arrays are accepted).
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pickle
import warnings
from importlib import resources
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from scipy.special import expit

from sklearn_eval import (
    EloRanker,
    InfoGainSelector,
    MultiElo,
    NashAverager,
    game,
    selection,
    utils,
)
from sklearn_eval import datasets as ds
from sklearn_eval.datasets import make_cyclic_game, make_irt_responses, make_matches
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.utils.estimator_checks import assert_same_outputs, fitted_outputs


def _matches():
    X, y = make_matches(n_players=6, n_matches=200, cyclic_strength=1.0, random_state=3)
    return np.asarray(X), np.asarray(y, dtype=float)


def _runs():
    rng = np.random.default_rng(5)
    y = np.repeat(["a", "b", "c"], 5)
    X = rng.normal(size=(15, 4)) + np.repeat([0.0, 1.0, 2.0], 5)[:, None]
    return X, y


def _cases():
    Xm, ym = _matches()
    R = make_irt_responses(50, 6, missing_rate=0.1, random_state=1)
    S = np.random.default_rng(0).normal(size=(6, 4))
    A = make_cyclic_game(6, cyclic_rank=2, random_state=0)
    Xr, yr = _runs()
    return {
        "EloRanker(online)": (EloRanker(keep_history=True), Xm, ym),
        "EloRanker(batch)": (EloRanker(method="batch", alpha=0.1), Xm, ym),
        "MultiElo(online)": (MultiElo(n_components=2, random_state=7), Xm, ym),
        "MultiElo(batch)": (MultiElo(method="batch", random_state=7), Xm, ym),
        "NashAverager(avt)": (NashAverager(normalize="zscore"), S, None),
        "NashAverager(ava)": (
            NashAverager(game="agent_vs_agent", payoff="probability"),
            expit(A),
            None,
        ),
        "IRT2PL(n_init=3)": (IRT2PL(n_init=3, random_state=4), R, None),
        "GeneralityScorer(irt)": (
            GeneralityScorer(bins=2, min_tasks_per_bin=1),
            R,
            None,
        ),
        "InfoGainSelector(runs)": (InfoGainSelector(n_tasks=2), Xr, yr),
    }


CASES = _cases()


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X) if y is None else est.fit(X, y)


# ---------------------------------------------------------------------------
# the same random_state, the same results
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CASES))
def test_same_random_state_gives_identical_results(name):
    from sklearn.base import clone

    est, X, y = CASES[name]
    first = fitted_outputs(_fit(clone(est), X, y), X, y)
    second = fitted_outputs(_fit(clone(est), X, y), X, y)
    assert_same_outputs(first, second, rtol=0.0, what=name)


def test_random_state_is_used_by_multi_elo():
    X, y = _matches()
    a = MultiElo(random_state=1).fit(X, y).ratings_
    b = MultiElo(random_state=2).fit(X, y).ratings_
    c = MultiElo(random_state=np.random.RandomState(1)).fit(X, y).ratings_
    assert not np.array_equal(a, b)
    assert_array_equal(a, c)


def test_irt_jittered_starts_follow_random_state():
    R = make_irt_responses(40, 5, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = IRT2PL(n_init=4, random_state=0).fit(R)
        b = IRT2PL(n_init=4, random_state=0).fit(R)
    assert_array_equal(a.difficulty_, b.difficulty_)
    assert a.n_iter_ == b.n_iter_


@pytest.mark.parametrize(
    "make",
    [
        lambda rs: make_matches(
            n_players=5, n_matches=50, draw_rate=0.2, random_state=rs
        ),
        lambda rs: make_cyclic_game(7, cyclic_rank=2, random_state=rs),
        lambda rs: make_irt_responses(20, 5, missing_rate=0.2, random_state=rs),
        lambda rs: ds.make_agent_task_scores(random_state=rs),
    ],
    ids=[
        "make_matches",
        "make_cyclic_game",
        "make_irt_responses",
        "make_agent_task_scores",
    ],
)
def test_generators_are_seeded(make):
    def flat(out):
        parts = out if isinstance(out, tuple) else (out,)
        return [np.asarray(p) for p in parts if not isinstance(p, dict)]

    for a, b in zip(flat(make(0)), flat(make(0)), strict=True):
        assert_array_equal(a, b)
    assert any(
        not np.array_equal(a, b)
        for a, b in zip(flat(make(0)), flat(make(1)), strict=True)
    )


def test_bootstrap_is_seeded_and_independent_of_n_jobs():
    from sklearn_eval.uncertainty import bootstrap_ranking

    S = np.random.default_rng(0).normal(size=(8, 6))

    def run(n_jobs, seed=0):
        return bootstrap_ranking(
            NashAverager(),
            S,
            statistic=lambda est: est.agent_skill_,
            resample="tasks",
            n_resamples=20,
            random_state=seed,
            n_jobs=n_jobs,
        )

    a, b, c = run(1), run(1), run(2)
    for field in ("low", "high"):
        assert_array_equal(getattr(a, field), getattr(b, field))
        assert_array_equal(getattr(a, field), getattr(c, field))
    assert not np.array_equal(a.low, run(1, seed=1).low)


# ---------------------------------------------------------------------------
# persistence
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize(
    "how", ["pickle-protocol-2", "pickle-highest", "joblib-file-compressed"]
)
def test_persistence_round_trips_predict_identically(name, how, tmp_path):
    est, X, y = CASES[name]
    fitted = _fit(est, X, y)
    expected = fitted_outputs(fitted, X, y)
    if how == "pickle-protocol-2":
        restored = pickle.loads(pickle.dumps(fitted, protocol=2))
    elif how == "pickle-highest":
        restored = pickle.loads(pickle.dumps(fitted, protocol=pickle.HIGHEST_PROTOCOL))
    else:
        path = tmp_path / "model.joblib"
        joblib.dump(fitted, path, compress=3)
        restored = joblib.load(path)
    assert_same_outputs(expected, fitted_outputs(restored, X, y), rtol=0.0, what=how)
    assert restored.get_params().keys() == fitted.get_params().keys()


def test_restored_online_rater_continues_like_the_original():
    X, y = _matches()
    elo = MultiElo(random_state=0, keep_history=True).fit(X[:100], y[:100])
    restored = pickle.loads(pickle.dumps(elo))
    elo.partial_fit(X[100:], y[100:])
    restored.partial_fit(X[100:], y[100:])
    assert_array_equal(elo.ratings_, restored.ratings_)
    assert_array_equal(elo.history_, restored.history_)


# ---------------------------------------------------------------------------
# loading shipped data never executes code
# ---------------------------------------------------------------------------
LOADERS = [name for name in ds.__all__ if name.startswith("load_")]


def test_shipped_data_are_plain_text_files():
    data_dir = Path(inspect.getfile(ds)).parent / "data"
    files = sorted(p.name for p in data_dir.iterdir())
    assert files
    # json and tsv: plain text too
    allowed = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".txt.gz", ".json.gz")
    assert all(name.endswith(allowed) for name in files), files


@pytest.mark.parametrize(
    "module",
    sorted({inspect.getmodule(getattr(ds, name)).__name__ for name in LOADERS})
    + ["sklearn_eval.datasets._base", "sklearn_eval.datasets._bunches"],
)
def test_loader_source_never_unpickles_or_evaluates(module):
    tree = ast.parse(inspect.getsource(importlib.import_module(module)))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {  # json.loads parses plain text; any other .loads deserialises code
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and not (isinstance(n.value, ast.Name) and n.value.id == "json")
    }
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not {"eval", "exec", "compile", "__import__"} & names
    assert not {"pickle", "joblib", "dill", "marshal", "shelve"} & imported
    assert not {"load_pickle", "read_pickle", "loads"} & attrs
    keywords = {
        k.arg for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords
    }
    assert "allow_pickle" not in keywords


@pytest.mark.parametrize("loader", LOADERS)
def test_loaders_run_with_code_execution_disabled(loader, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a loader tried to execute code from data")

    # importlib imports its resource readers (Python code, not data) on first use
    resources.files("sklearn_eval.datasets").joinpath("data").is_dir()

    for module, name in [
        (pickle, "load"),
        (pickle, "loads"),
        (joblib, "load"),
        (builtins, "eval"),
        (builtins, "exec"),
        (np, "load"),
        (pd, "read_pickle"),
    ]:
        monkeypatch.setattr(module, name, forbidden)
    if loader == "load_leaderboard":  # one loader, many tables: read them all
        bunches = [ds.load_leaderboard(name) for name in ds.list_leaderboards()]
    else:
        bunches = [getattr(ds, loader)()]
    for bunch in bunches:
        assert bunch is not None
        assert "DESCR" in bunch


# ---------------------------------------------------------------------------
# inputs are never modified in place: read-only inputs are accepted
# ---------------------------------------------------------------------------
def _readonly(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("name", list(CASES))
def test_estimators_accept_read_only_inputs(name):
    from sklearn.base import clone

    est, X, y = CASES[name]
    X_ro = _readonly(X)
    y_ro = None if y is None else _readonly(y)
    fitted = _fit(clone(est), X_ro, y_ro)
    outputs = fitted_outputs(fitted, X_ro, y_ro)
    assert_same_outputs(outputs, fitted_outputs(_fit(clone(est), X, y), X, y), rtol=0.0)
    if hasattr(fitted, "partial_fit"):
        fitted.partial_fit(X_ro, y_ro)


def test_dataframe_inputs_are_unchanged():
    R = make_irt_responses(40, 6, random_state=2)
    frame = pd.DataFrame(R, columns=[f"t{k}" for k in range(6)])
    before = frame.copy(deep=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        GeneralityScorer(difficulty="rate", bins=2, min_tasks_per_bin=1).fit_transform(
            frame
        )
        IRT2PL().fit(frame).transform(frame)
        NashAverager(normalize="minmax").fit(frame).transform(frame)
    pd.testing.assert_frame_equal(frame, before)


def test_functions_accept_read_only_inputs():
    S = _readonly(np.random.default_rng(0).normal(size=(6, 4)))
    A = _readonly(make_cyclic_game(6, cyclic_rank=2, random_state=0))
    P = _readonly(expit(make_cyclic_game(6, cyclic_rank=2, random_state=0)))
    X, y = _matches()
    X, y = _readonly(X), _readonly(y)
    utils.matches_to_win_rate(X, y)
    utils.win_probability_to_matches(P)
    utils.binarize_scores(S, 0.0)
    utils.minmax_normalize(S)
    utils.baseline_normalize(S, -1.0, 1.0)
    game.hodge_decomposition(A)
    game.schur_embedding(A)
    game.maxent_nash(S)
    game.symmetric_maxent_nash(A)
    game.avt_embedding(S)
    game.latent_factors(S)
    selection.information_gain(S, _readonly(np.ones_like(S)))
    selection.greedy_select(S, _readonly(np.ones_like(S)), 2)
    selection.task_clusters(S)
