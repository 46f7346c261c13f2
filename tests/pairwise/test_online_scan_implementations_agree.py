"""The three implementations of the online scans agree exactly.

The scans are written once as plain Python over numpy arrays (the body numba
compiles), once over Python lists (the fallback without numba), and used
compiled when numba is present. Running the array body uncompiled checks that
the compiled semantics are the source's, whatever the installed extras.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sklearn_eval.pairwise import _kernels


def _stream(seed, n_players=7, n_matches=400):
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    outcome = rng.choice([0.0, 0.5, 1.0], n_matches)
    weight = rng.uniform(0.0, 2.0, n_matches)
    return first.astype(np.int64), second.astype(np.int64), outcome, weight


@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.parametrize("advantage", [0.0, 0.3])
def test_elo_scans_agree(keep, advantage):
    first, second, outcome, weight = _stream(0)
    results = []
    for scan in (
        _kernels._elo_scan_arrays,
        _kernels.elo_scan_python,
        _kernels.elo_scan,
    ):
        ratings = np.zeros(7)
        history = np.empty((len(first), 2)) if keep else _kernels.no_history()
        scan(first, second, outcome, weight, ratings, 0.09, advantage, history)
        results.append((ratings, history))
    for ratings, history in results[1:]:
        assert_allclose(ratings, results[0][0], rtol=1e-12, atol=1e-14)
        if keep:
            assert_allclose(history, results[0][1], rtol=1e-12, atol=1e-14)
    # zero-sum updates without advantage weights: mean stays 0
    if advantage == 0.0:
        assert abs(results[0][0].sum()) < 1e-12


@pytest.mark.parametrize("width", [0, 2, 4])
@pytest.mark.parametrize("keep", [True, False])
def test_melo_scans_agree(width, keep):
    first, second, outcome, weight = _stream(1)
    start = np.random.default_rng(2).normal(scale=0.1, size=(7, width))
    results = []
    for scan in (
        _kernels._melo_scan_arrays,
        _kernels.melo_scan_python,
        _kernels.melo_scan,
    ):
        ratings = np.zeros(7)
        vectors = start.copy()
        history = np.empty((len(first), 2)) if keep else _kernels.no_history()
        scan(first, second, outcome, weight, ratings, vectors, 0.09, 0.1, 0.0, history)
        results.append((ratings, vectors, history))
    for ratings, vectors, history in results[1:]:
        assert_allclose(ratings, results[0][0], rtol=1e-12, atol=1e-14)
        assert_allclose(vectors, results[0][1], rtol=1e-12, atol=1e-14)
        if keep:
            assert_allclose(history, results[0][2], rtol=1e-12, atol=1e-14)


def test_sigmoid_never_overflows():
    assert _kernels._sigmoid(1000.0) == 1.0
    assert _kernels._sigmoid(-1000.0) == 0.0
    assert _kernels._sigmoid(0.0) == 0.5


def test_disabling_numba_by_environment(monkeypatch):
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)  # numba's own switch
    monkeypatch.setenv("SKLEARN_EVAL_DISABLE_NUMBA", "1")
    assert _kernels._numba_wanted() is False
    monkeypatch.setenv("SKLEARN_EVAL_DISABLE_NUMBA", "0")
    assert _kernels._numba_wanted() is (
        __import__("importlib").util.find_spec("numba") is not None
    )
