"""The compiled mElo loss-and-gradient against the numpy one, and the batch
fit with each."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.special import expit
from threadpoolctl import threadpool_info

from sklearn_eval.pairwise import MultiElo, _batch, _kernels


def _stats(rng, n_players, n_matches, ordered):
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    outcome = rng.choice([0.0, 0.5, 1.0], n_matches)
    weight = rng.uniform(0.2, 3.0, n_matches)
    return _batch.aggregate_pairs(first, second, outcome, weight, n_players,
                                  ordered=ordered)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n_players=st.integers(2, 40),
    n_components=st.integers(0, 3),
    advantage=st.sampled_from([0.0, 0.7]),
    alpha=st.sampled_from([0.0, 1e-3, 2.0]),
    scale=st.sampled_from([0.1, 3.0, 40.0]),
)
def test_compiled_loss_and_gradient_equal_numpy(seed, n_players, n_components,
                                                 advantage, alpha, scale):
    rng = np.random.default_rng(seed)
    stats = _stats(rng, n_players, 300, ordered=advantage != 0.0)
    width = 2 * n_components
    params = scale * rng.standard_normal(n_players * (1 + width))
    total = float(stats.games.sum())
    loss, grad = _batch._melo_loss_and_grad(params, stats, width, alpha, advantage,
                                            total)
    loss_c, grad_c = _batch._melo_loss_and_grad_compiled(
        params, stats, width, alpha, advantage, total)
    assert abs(loss_c - loss) <= 1e-12 * abs(loss)
    assert_allclose(grad_c, grad, rtol=0, atol=1e-12 * max(np.abs(grad).max(), 1e-300))


def _melo_matches(seed, n_players=25, n_matches=30_000, k=1):
    """Matches drawn from an mElo_2k model (ratings plus cyclic vectors)."""
    rng = np.random.default_rng(seed)
    ratings = rng.normal(size=n_players)
    vectors = 1.5 * rng.normal(size=(n_players, 2 * k))
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    logit = ratings[first] - ratings[second] + _batch.omega_product(
        vectors[first], vectors[second])
    y = (rng.random(n_matches) < expit(logit)).astype(float)
    names = np.array([f"p{v:02d}" for v in range(n_players)])
    return np.column_stack([names[first], names[second]]), y


def _neg_log_likelihood(est, X, y):
    p = est.predict_proba(X)[:, 1]
    return -np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))


def _objective(est, X, y):
    """What the batch fit minimises: the NLL plus alpha/2 (|r|^2 + |C|^2)."""
    penalty = (est.ratings_ ** 2).sum() + (est.vectors_ ** 2).sum()
    return _neg_log_likelihood(est, X, y) + 0.5 * est.alpha * penalty


def _fit(X, y, compiled, monkeypatch, **params):
    monkeypatch.setattr(_kernels, "HAVE_NUMBA", compiled)
    est = MultiElo(method="batch", scale="logit", random_state=0, **params)
    return est.fit(X, y)


@pytest.mark.parametrize(
    "seed, k, alpha", [(0, 1, 1e-2), (1, 2, 0.5), (2, 1, 0.0), (5, 3, 0.1)])
def test_compiled_batch_fit_reaches_the_numpy_fit(seed, k, alpha, monkeypatch):
    X, y = _melo_matches(seed, k=k)
    fits = {compiled: _fit(X, y, compiled, monkeypatch, n_components=k,
                           alpha=alpha, tol=1e-10, max_iter=5000)
            for compiled in (True, False)}
    objective = {c: _objective(est, X, y) for c, est in fits.items()}
    assert objective[True] <= objective[False] * (1 + 1e-9)
    compiled, reference = fits[True], fits[False]
    # Both stop where L-BFGS no longer decreases the loss (about 1e-10
    # relative here); flat directions leave the parameters ~1e-5 apart.
    assert_allclose(compiled.ratings_, reference.ratings_, atol=1e-4)
    # The vectors are defined up to rotations that keep c_i^T Omega c_j:
    # compare the cyclic logits, which those leave unchanged.
    def cyclic(est):
        v = est.vectors_
        return np.array([_batch.omega_product(v, np.roll(v, s, axis=0))
                         for s in range(1, v.shape[0])])
    assert_allclose(cyclic(compiled), cyclic(reference), atol=1e-4)


def test_default_batch_fit_takes_the_same_path_compiled_or_not(monkeypatch):
    """Today's settings (default tol) stop at the same iteration either way."""
    X, y = _melo_matches(3, n_players=40, n_matches=20_000)
    compiled = _fit(X, y, True, monkeypatch)
    reference = _fit(X, y, False, monkeypatch)
    assert compiled.n_iter_ == reference.n_iter_
    assert _objective(compiled, X, y) <= _objective(reference, X, y) * (1 + 1e-9)


def test_lbfgs_runs_with_single_threaded_blas(monkeypatch):
    seen = []
    objective = _batch.melo_objective()

    def recording(*args):
        seen.append([lib["num_threads"] for lib in threadpool_info()
                     if lib["user_api"] == "blas"])
        return objective(*args)

    monkeypatch.setattr(_batch, "melo_objective", lambda: recording)
    X, y = _melo_matches(4, n_players=10, n_matches=2000)
    MultiElo(method="batch", random_state=0).fit(X, y)
    assert seen and all(threads == [1] * len(threads) for threads in seen)
