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
    monkeypatch.setattr(_kernels, "COMPILED_FROM", 0)  # compiled on small data too
    est = MultiElo(method="batch", scale="logit", random_state=0, **params)
    return est.fit(X, y)


def _pair_probabilities(est):
    """P(first wins) for every ordered pair of players: what the fit identifies."""
    names = est.players_
    pairs = np.array([(a, b) for a in names for b in names if a != b])
    return est.predict_proba(pairs)[:, 1]


def _assert_same_fit(compiled, reference, X, y, objective_rtol=1e-9, atol=1e-4):
    """Two fits of one model agree on what the data identify.

    The minimised objective and the predictions are identified; the parameters
    are not to the same accuracy: L-BFGS stops where the loss no longer
    decreases (about 1e-10 relative), and along the nearly flat directions of
    the loss the parameters then differ by 1e-5 to 2e-4 depending on the
    numba, numpy and BLAS versions, while the objectives agree to ~1e-14 and
    the predicted probabilities to ~3e-7 (measured). A wrong compiled loss or
    gradient moves both far beyond these bounds.
    """
    objective = _objective(compiled, X, y), _objective(reference, X, y)
    assert abs(objective[0] - objective[1]) <= objective_rtol * abs(objective[1])
    assert_allclose(_pair_probabilities(compiled), _pair_probabilities(reference),
                    rtol=0, atol=atol)


@pytest.mark.parametrize(
    "seed, k, alpha", [(0, 1, 1e-2), (1, 2, 0.5), (2, 1, 0.0), (5, 3, 0.1)])
def test_compiled_batch_fit_reaches_the_numpy_fit(seed, k, alpha, monkeypatch):
    X, y = _melo_matches(seed, k=k)
    fits = {compiled: _fit(X, y, compiled, monkeypatch, n_components=k,
                           alpha=alpha, tol=1e-10, max_iter=5000)
            for compiled in (True, False)}
    _assert_same_fit(fits[True], fits[False], X, y)


def test_default_batch_fit_reaches_the_same_fit_compiled_or_not(monkeypatch):
    """With the default tolerance too: the loss sums in another order, so the
    two runs may stop an iteration apart, anywhere the relative decrease falls
    below ``tol`` (1e-6); the predictions then agree to about
    sqrt(2 tol loss / n_matches) ~ 1e-3 (measured here: 3e-9)."""
    X, y = _melo_matches(3, n_players=40, n_matches=20_000)
    compiled = _fit(X, y, True, monkeypatch)
    reference = _fit(X, y, False, monkeypatch)
    _assert_same_fit(compiled, reference, X, y, objective_rtol=1e-6, atol=5e-3)


def test_lbfgs_runs_with_single_threaded_blas(monkeypatch):
    seen = []
    objective = _batch.melo_objective()

    def recording(*args):
        seen.append([lib["num_threads"] for lib in threadpool_info()
                     if lib["user_api"] == "blas"])
        return objective(*args)

    monkeypatch.setattr(_batch, "melo_objective", lambda n_pairs=None: recording)
    X, y = _melo_matches(4, n_players=10, n_matches=2000)
    MultiElo(method="batch", random_state=0).fit(X, y)
    assert seen and all(threads == [1] * len(threads) for threads in seen)


def test_small_fits_take_the_numpy_loss(monkeypatch):
    """Below ``COMPILED_FROM`` distinct pairs the batch fit never calls the
    compiled loss (no disk-cache load for a small file); forced, it does, and
    the two fits agree on what the data identify."""
    from sklearn_eval.pairwise import _batch

    calls = []
    original = _batch._melo_loss_and_grad_compiled

    def spy(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(_batch, "_melo_loss_and_grad_compiled", spy)
    rng = np.random.default_rng(4)
    X = rng.choice(12, size=(600, 2))
    X = X[X[:, 0] != X[:, 1]]
    y = (rng.random(X.shape[0]) < 0.5).astype(float)
    est = MultiElo(method="batch", scale="logit", random_state=0).fit(X, y)
    assert calls == []
    monkeypatch.setattr(_kernels, "COMPILED_FROM", 0)
    forced = MultiElo(method="batch", scale="logit", random_state=0).fit(X, y)
    assert bool(calls) == _kernels.HAVE_NUMBA
    _assert_same_fit(forced, est, X, y)
