"""Tests of MultiElo (mElo_2k): cyclic games, reduction to Elo, the API.

Why scikit-learn's own estimator checks do not run here: see the module
docstring of test_elo.py (match tables are not random real matrices); the
project's contract suite runs instead.
"""

import ast
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from sklearn_eval.datasets import make_matches
from sklearn_eval.metrics import match_log_loss
from sklearn_eval.pairwise import EloRanker, MultiElo, _kernels
from sklearn_eval.utils import win_probability_to_matches
from sklearn_eval.utils.estimator_checks import check_estimator_contract
from tests.pairwise.fixtures_alphago import (
    ALPHAGO_P,
    ALPHAGO_PLAYERS,
    CYCLE_PLAYERS,
    EMPIRICAL_TABLE,
    MELO2_FROBENIUS_BOUND,
    MELO2_TABLE,
)

RPS = np.array([["rock", "scissors"], ["scissors", "paper"], ["paper", "rock"]])


@pytest.fixture(scope="module")
def alphago_matches():
    return win_probability_to_matches(ALPHAGO_P, ALPHAGO_PLAYERS)


@pytest.fixture(scope="module")
def cyclic_matches():
    X, y = make_matches(
        n_players=15,
        n_matches=3000,
        cyclic_strength=1.5,
        draw_rate=0.05,
        labels="str",
        random_state=7,
    )
    return X, y


# ------------------------------------------------------------- AlphaGo
def _likely_winners(table):
    off = ~np.eye(3, dtype=bool)
    return (table > 0.5)[off]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_alphago_batch_melo2_fixes_elo_cycle(alphago_matches, seed):
    X, y, w = alphago_matches
    elo = EloRanker(method="batch").fit(X, y, sample_weight=w)
    melo = MultiElo(1, method="batch", random_state=seed).fit(X, y, sample_weight=w)
    frob_elo = np.linalg.norm(ALPHAGO_P - elo.win_probabilities(ALPHAGO_PLAYERS))
    frob_melo = np.linalg.norm(ALPHAGO_P - melo.win_probabilities(ALPHAGO_PLAYERS))
    assert frob_melo <= MELO2_FROBENIUS_BOUND
    assert frob_melo < frob_elo - 0.5  # 0.26 against 0.855
    empirical = _likely_winners(EMPIRICAL_TABLE)
    melo_table = melo.win_probabilities(CYCLE_PLAYERS)
    elo_table = elo.win_probabilities(CYCLE_PLAYERS)
    assert_array_equal(_likely_winners(melo_table), empirical)
    # Elo gets two of the three pairs wrong (each counted in both orders).
    assert np.sum(_likely_winners(elo_table) != empirical) == 4
    # The paper's mElo_2 table (0.72 / 0.46 / 0.98) within 0.03.
    off = ~np.eye(3, dtype=bool)
    assert_allclose(melo_table[off], MELO2_TABLE[off], atol=0.03)
    # The predictions are antisymmetric by construction.
    P = melo.win_probabilities()
    assert_allclose(P + P.T, 1.0, atol=1e-12)
    assert melo.n_iter_ > 0
    # The plain maximum-likelihood fit reaches the spec's 0.260 from any seed.
    mle = MultiElo(1, method="batch", alpha=0.0, random_state=seed).fit(
        X, y, sample_weight=w
    )
    frob_mle = np.linalg.norm(ALPHAGO_P - mle.win_probabilities(ALPHAGO_PLAYERS))
    assert abs(frob_mle - 0.2605) < 0.002


def test_alphago_online_epochs_also_fit_the_cycle(alphago_matches):
    X, y, w = alphago_matches
    melo = MultiElo(1, random_state=0)
    rng = np.random.RandomState(0)
    for _ in range(150):
        order = rng.permutation(len(X))
        melo.partial_fit(X[order], y[order], sample_weight=w[order])
    assert np.linalg.norm(ALPHAGO_P - melo.win_probabilities(ALPHAGO_PLAYERS)) < 0.35
    table = melo.win_probabilities(CYCLE_PLAYERS)
    assert_array_equal(_likely_winners(table), _likely_winners(EMPIRICAL_TABLE))


# --------------------------------------------------------------- RRPS
def _rrps_matches(shared_dir):
    path = shared_dir / "data" / "pairwise" / "openspiel_pbe_rrps_bot_table_file.txt"
    rows = [ast.literal_eval(line) for line in path.read_text().splitlines() if line]
    bots = sorted({r[0] for r in rows} | {r[1] for r in rows})
    index = {b: k for k, b in enumerate(bots)}
    R = np.full((len(bots), len(bots)), np.nan)
    for a, b, value in rows:
        R[index[a], index[b]] = value
    P = (R + 1000.0) / 2000.0  # expected score of the row bot
    rng = np.random.RandomState(0)
    i, j = np.triu_indices(len(bots), 1)
    first, second = np.repeat(i, 200), np.repeat(j, 200)
    p = P[first, second]
    y = (rng.random_sample(first.shape[0]) < p).astype(float)
    swap = rng.random_sample(first.shape[0]) < 0.5  # who is listed first
    first, second = np.where(swap, second, first), np.where(swap, first, second)
    y = np.where(swap, 1.0 - y, y)
    p = np.where(swap, 1.0 - p, p)
    order = rng.permutation(first.shape[0])
    X = np.array(bots)[np.column_stack([first, second])[order]]
    return X, y[order], p[order], len(bots)


def test_rrps_heldout_log_loss(shared_dir):
    """43 RRPS bots, 200 sampled matches per pair, 20% held out.

    The issue asks for mElo's held-out log-loss to be at most half of Elo's.
    With outcomes sampled from the table's expected scores that is
    impossible for any model: most pairs are close to even, so even the true
    probabilities score 0.592 nats, against Elo's 0.633 (mElo_2: 0.601). What
    a model can remove is the excess over that floor (the held-out
    Kullback-Leibler divergence from the truth): mElo's excess must be at
    most half of Elo's (measured: 0.009 against 0.042).
    """
    X, y, p_true, n_bots = _rrps_matches(shared_dir)
    assert n_bots == 43
    n_train = int(0.8 * len(X))
    test = slice(n_train, None)
    floor = match_log_loss(y[test], p_true[test])
    elo = EloRanker(method="batch").fit(X[:n_train], y[:n_train])
    melo = MultiElo(1, method="batch", random_state=0).fit(X[:n_train], y[:n_train])
    loss_elo = -elo.score(X[test], y[test])
    loss_melo = -melo.score(X[test], y[test])
    assert 0.58 < floor < 0.60
    assert loss_melo < loss_elo
    assert loss_melo - floor <= 0.5 * (loss_elo - floor)
    # Online, one pass: mElo also beats online Elo.
    online_elo = EloRanker().fit(X[:n_train], y[:n_train])
    online_melo = MultiElo(1, random_state=0).fit(X[:n_train], y[:n_train])
    assert -online_melo.score(X[test], y[test]) < -online_elo.score(X[test], y[test])


# ------------------------------------------------------- cyclic structure
def test_pure_rps_elo_flat_melo_cyclic():
    X = np.tile(RPS, (100, 1))
    y = np.ones(len(X))
    elo = EloRanker(method="batch").fit(X, y)
    assert_allclose(elo.predict_proba(RPS)[:, 1], 0.5, atol=1e-9)
    for method in ("online", "batch"):
        melo = MultiElo(method=method, alpha=0.01, random_state=0).fit(X, y)
        assert np.all(melo.predict_proba(RPS)[:, 1] > 0.9)
        assert np.all(melo.predict_proba(RPS[:, ::-1])[:, 1] < 0.1)
        assert -melo.score(X, y) < 0.1 < -elo.score(X, y)
    assert_allclose(melo.transitive_ratings_, 1500.0, atol=1.0)


def test_n_components_zero_is_elo(cyclic_matches):
    X, y = cyclic_matches
    w = np.random.RandomState(0).uniform(0.5, 1.5, len(X))
    for kwargs in ({}, {"scale": "logit", "first_advantage": 0.3}):
        elo = EloRanker(k_factor=20, **kwargs).fit(X, y, sample_weight=w)
        melo = MultiElo(0, k_factor=20, **kwargs).fit(X, y, sample_weight=w)
        assert_allclose(melo.ratings_, elo.ratings_, atol=1e-9)
        assert melo.vectors_.shape == (len(melo.players_), 0)
        assert_allclose(melo.predict_proba(X), elo.predict_proba(X), atol=1e-12)
    elo = EloRanker(method="batch", alpha=0.1).fit(X, y, sample_weight=w)
    melo = MultiElo(0, method="batch", alpha=0.1).fit(X, y, sample_weight=w)
    assert_allclose(melo.ratings_, elo.ratings_, atol=1e-6)


def test_melo_recovers_cyclic_generator():
    X, y = make_matches(
        n_players=12, n_matches=40_000, cyclic_strength=2.0, random_state=11
    )
    train, test = slice(0, 32_000), slice(32_000, None)
    losses = {}
    for k in (0, 1):
        est = MultiElo(k, method="batch", random_state=0).fit(X[train], y[train])
        losses[k] = -est.score(X[test], y[test])
    assert losses[1] < losses[0] - 0.05


def test_online_update_is_appendix_e(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(1, k_factor=16, lr_vectors=0.7, scale="logit", random_state=0).fit(
        X[:500], y[:500]
    )
    r = dict(zip(est.players_.tolist(), est.ratings_, strict=True))
    c = dict(zip(est.players_.tolist(), est.vectors_.copy(), strict=True))
    i, j = X[600]
    s = 1.0
    p_hat = 1 / (1 + np.exp(-(r[i] - r[j] + c[i][0] * c[j][1] - c[j][0] * c[i][1])))
    delta = s - p_hat
    eta_r = 16 * np.log(10) / 400
    est.partial_fit([[i, j]], [s])
    after = dict(zip(est.players_.tolist(), est.ratings_, strict=True))
    after_c = dict(zip(est.players_.tolist(), est.vectors_, strict=True))
    assert_allclose(after[i], r[i] + eta_r * delta)
    assert_allclose(after[j], r[j] - eta_r * delta)
    # c_update = [[+d c_j1, -d c_i1], [-d c_j0, +d c_i0]] (rows: coordinate,
    # columns: player i, player j), times lr_vectors.
    assert_allclose(after_c[i], c[i] + 0.7 * delta * np.array([c[j][1], -c[j][0]]))
    assert_allclose(after_c[j], c[j] + 0.7 * delta * np.array([-c[i][1], c[i][0]]))


def test_online_update_is_gradient_step_any_k(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(3, scale="logit", lr_vectors=0.3, random_state=1).fit(X, y)
    r0, c0 = est.ratings_.copy(), est.vectors_.copy()
    a, b = 2, 9
    pair = [[est.players_[a], est.players_[b]]]

    def loglik(r, c):
        logit = r[a] - r[b] + c[a] @ _omega_matrix(3) @ c[b]
        return -np.logaddexp(0, -logit)  # log p(first wins)

    eps = 1e-6
    grad_c = np.zeros_like(c0)
    for player in (a, b):
        for k in range(6):
            up, down = c0.copy(), c0.copy()
            up[player, k] += eps
            down[player, k] -= eps
            grad_c[player, k] = (loglik(r0, up) - loglik(r0, down)) / (2 * eps)
    est.partial_fit(pair, [1.0])
    assert_allclose(est.vectors_ - c0, 0.3 * grad_c, atol=1e-8)
    moved = np.zeros(len(r0), dtype=bool)
    moved[[a, b]] = True
    assert_allclose(est.vectors_[~moved], c0[~moved])


def _omega_matrix(k):
    omega = np.zeros((2 * k, 2 * k))
    for block in range(k):
        omega[2 * block, 2 * block + 1] = 1.0
        omega[2 * block + 1, 2 * block] = -1.0
    return omega


def test_prediction_formula_and_antisymmetry(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(2, method="batch", scale="logit", random_state=0).fit(X, y)
    col = {p: k for k, p in enumerate(est.players_.tolist())}
    omega = _omega_matrix(2)
    r, c = est.ratings_, est.vectors_
    expected = [
        r[col[a]] - r[col[b]] + c[col[a]] @ omega @ c[col[b]] for a, b in X[:50]
    ]
    assert_allclose(est.decision_function(X[:50]), expected, atol=1e-10)
    proba = est.predict_proba(X)
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_allclose(est.predict_proba(X[:, ::-1])[:, 1], proba[:, 0], atol=1e-12)
    assert_array_equal(est.classes_, [0, 1])


def test_transitive_ratings_are_hodge_divergence(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(
        1, method="batch", scale="logit", initial_rating=10.0, random_state=0
    ).fit(X, y)
    P = est.win_probabilities()
    logits = np.log(P / (1 - P))
    assert_allclose(est.transitive_ratings_ - 10.0, logits.mean(axis=1), atol=1e-9)
    assert_allclose(est.transitive_ratings_.mean(), 10.0)


def test_embedding_and_table(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(2, random_state=0).fit(X, y)
    assert est.vectors_.shape == (len(est.players_), 4)
    assert_allclose(est.embedding(1), est.vectors_[:, 2:4])
    for bad in (2, -1, 0.5):
        with pytest.raises(ValueError, match="component"):
            est.embedding(bad)
    table = est.agent_table()
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == ["score", "rank", "transitive_rating"]
    assert np.all(np.diff(table["score"].to_numpy()) <= 0)
    assert_allclose(
        table.loc[est.players_, "transitive_rating"], est.transitive_ratings_
    )


def test_random_init_seeded_and_nonzero(cyclic_matches):
    X, y = cyclic_matches
    a = MultiElo(random_state=0).fit(X[:1], y[:1])
    # Players who never played keep their random initial vectors: non-zero.
    assert np.all(np.abs(a.vectors_).sum(axis=1) > 0)
    b = MultiElo(random_state=0).fit(X, y)
    c = MultiElo(random_state=0).fit(X, y)
    d = MultiElo(random_state=1).fit(X, y)
    assert_array_equal(b.vectors_, c.vectors_)
    assert not np.allclose(b.vectors_, d.vectors_)
    assert_allclose(
        MultiElo(init_scale=0.3, random_state=0).fit(X[:1], y[:1]).vectors_.std(),
        0.3,
        rtol=0.5,
    )


def test_partial_fit_new_players_and_equivalence(cyclic_matches):
    X, y = cyclic_matches
    full = MultiElo(1, random_state=0).fit(X, y)
    part = MultiElo(1, random_state=0).fit(X[:1000], y[:1000])
    part.partial_fit(X[1000:], y[1000:])
    assert_array_equal(part.players_, full.players_)
    assert_allclose(part.ratings_, full.ratings_, atol=1e-9)  # all players in chunk 1
    # A new player gets initial rating and a seeded random vector.
    grown = clone(part).fit(X, y)
    snapshot = pickle.dumps(grown)
    grown.partial_fit([["zz_new", X[0, 0]]], [1.0])
    again = pickle.loads(snapshot).partial_fit([["zz_new", X[0, 0]]], [1.0])
    assert_array_equal(grown.vectors_, again.vectors_)
    assert grown.players_[-1] == "zz_new"
    assert np.abs(grown.vectors_[-1]).sum() > 0
    # Changing n_components between calls is refused, state kept.
    grown.set_params(n_components=2)
    before = pickle.dumps(grown)
    with pytest.raises(ValueError, match="n_components changed"):
        grown.partial_fit(X[:3], y[:3])
    assert pickle.dumps(grown) == before


def test_unseen_players_initial_rating_zero_vector(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(1, initial_rating=1000, random_state=0).fit(X, y)
    known = est.players_[4]
    logit = est.decision_function([["newbie", known]])[0]
    assert_allclose(logit, (1000 - est.ratings_[4]) * np.log(10) / 400)


def test_batch_order_invariant(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(1, method="batch", random_state=0).fit(X, y)
    for seed in range(2):
        perm = np.random.RandomState(seed).permutation(len(X))
        again = MultiElo(1, method="batch", random_state=0).fit(X[perm], y[perm])
        # compare what the fit identifies, the predictions: the vectors are
        # defined up to rotations, and L-BFGS stops where the loss is flat to
        # ~tol, so parameters differ along flat directions with the summation
        # order (numpy, numba, BLAS versions) while predictions do not
        names = est.players_
        pairs = np.array([(a, b) for a in names for b in names if a != b])
        assert_allclose(again.predict_proba(pairs), est.predict_proba(pairs),
                        rtol=0, atol=1e-6)
    online = MultiElo(1, random_state=0).fit(X, y)
    shuffled = MultiElo(1, random_state=0).fit(X[perm], y[perm])
    assert np.abs(online.ratings_ - shuffled.ratings_).max() > 1.0


def test_batch_not_converged_warns(cyclic_matches):
    X, y = cyclic_matches
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        est = MultiElo(1, method="batch", max_iter=2, random_state=0).fit(X, y)
    assert est.n_iter_ <= 2


def test_history_kept_for_ratings(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(1, keep_history=True, random_state=0).fit(X, y)
    traj = est.rating_history()
    assert traj.shape == (len(X) + 1, len(est.players_))
    assert_allclose(traj[-1], est.ratings_, atol=1e-9)


def test_divergence_raises_and_keeps_state(cyclic_matches):
    X, y = cyclic_matches
    est = MultiElo(2, random_state=0).fit(X[:100], y[:100])
    snapshot = pickle.dumps(est)
    est.set_params(lr_vectors=1e6)
    with pytest.raises(FloatingPointError, match="diverged"):
        est.partial_fit(X, y)
    est.set_params(lr_vectors=0.1)
    assert pickle.dumps(est) == snapshot


def test_python_fallback_equals_compiled_scan():
    rng = np.random.RandomState(0)
    n, m = 20, 3000
    first = rng.randint(0, n, m)
    second = (first + rng.randint(1, n, m)) % n
    outcome = rng.choice([0.0, 0.5, 1.0], m)
    weight = rng.uniform(0, 2, m)
    for width in (0, 2, 6):
        c1 = rng.standard_normal((n, width))
        c2 = c1.copy()
        r1, r2 = np.zeros(n), np.zeros(n)
        h1, h2 = np.empty((m, 2)), np.empty((m, 2))
        _kernels.melo_scan(first, second, outcome, weight, r1, c1, 0.09, 0.2, 0.1, h1)
        _kernels.melo_scan_python(
            first, second, outcome, weight, r2, c2, 0.09, 0.2, 0.1, h2
        )
        assert_allclose(r1, r2, atol=1e-10)
        assert_allclose(c1, c2, atol=1e-10)
        assert_allclose(h1, h2, atol=1e-10)


def test_estimator_with_fallback_kernel(cyclic_matches, monkeypatch):
    X, y = cyclic_matches
    compiled = MultiElo(2, random_state=0).fit(X, y)
    monkeypatch.setattr(_kernels, "melo_scan", _kernels.melo_scan_python)
    fallback = MultiElo(2, random_state=0).fit(X, y)
    assert_allclose(fallback.ratings_, compiled.ratings_, atol=1e-8)
    assert_allclose(fallback.vectors_, compiled.vectors_, atol=1e-10)


# ------------------------------------------------------- contract, errors
@pytest.mark.parametrize("method", ["online", "batch"])
def test_contract_suite(cyclic_matches, method):
    X, y = cyclic_matches
    X, y = X[:800], y[:800]
    bad = [
        (X[:, :1], y),
        (X[:0], y[:0]),
        (np.array([["a", np.nan], ["b", "c"]], dtype=object), [1, 0]),
        (np.array([["a", "a"], ["b", "c"]]), [1, 0]),
    ]
    check_estimator_contract(
        MultiElo(1, method=method, alpha=0.1, random_state=0),
        X,
        y,
        bad_inputs=bad,
        matrix_input=False,
    )


@pytest.mark.parametrize("method", ["online", "batch"])
def test_bad_input_clear_error_state_untouched(cyclic_matches, method):
    X, y = cyclic_matches
    est = MultiElo(method=method, random_state=0).fit(X[:300], y[:300])
    snapshot = pickle.dumps(est)
    w = np.ones(300)
    cases = [
        (X[:300, :1], y[:300], w, "2 columns|shape"),
        (
            np.where(np.arange(300)[:, None] == 3, None, X[:300].astype(object)),
            y[:300],
            w,
            "missing player label.*row 3",
        ),
        (X[:300], np.where(np.arange(300) == 5, -1.0, y[:300]), w, "row 5"),
        (
            np.vstack([X[:7], [[X[7, 1], X[7, 1]]], X[8:300]]),
            y[:300],
            w,
            "against itself",
        ),
        (X[:0], y[:0], None, "no matches"),
        (X[:300], y[:299], w, "same length"),
        (X[:300], y[:300], w[:299], "same length"),
        (X[:300], y[:300], -w, "non-negative.*row 0"),
    ]
    for Xb, yb, wb, message in cases:
        with pytest.raises(ValueError, match=message):
            est.fit(Xb, yb, sample_weight=wb)
        with pytest.raises(ValueError, match=message):
            est.partial_fit(Xb, yb, sample_weight=wb)
    assert pickle.dumps(est) == snapshot


def test_not_fitted():
    est = MultiElo()
    with pytest.raises(NotFittedError):
        est.predict_proba(RPS)
    with pytest.raises(NotFittedError):
        est.embedding()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 3), st.integers(0, 10_000), st.floats(0.01, 1.0))
def test_property_online_rating_sum_conserved(k, seed, lr):
    X, y = make_matches(n_players=6, n_matches=60, draw_rate=0.2, random_state=seed)
    est = MultiElo(k, lr_vectors=lr, scale="logit", random_state=seed).fit(X, y)
    assert_allclose(est.ratings_.sum(), 0.0, atol=1e-9)
    P = est.win_probabilities()
    assert_allclose(P + P.T, 1.0, atol=1e-12)
    assert np.all(np.isfinite(est.vectors_))


@pytest.mark.parametrize("width, advantage, alpha", [(2, 0.0, 0.0), (6, 0.4, 0.3)])
def test_batch_gradient_matches_finite_differences(width, advantage, alpha):
    from scipy.optimize import approx_fprime

    from sklearn_eval.pairwise import _batch

    rng = np.random.RandomState(0)
    n, m = 7, 300
    first = rng.randint(0, n, m)
    second = (first + rng.randint(1, n, m)) % n
    stats = _batch.aggregate_pairs(
        first,
        second,
        rng.choice([0.0, 0.5, 1.0], m),
        rng.uniform(0.5, 2.0, m),
        n,
        ordered=advantage != 0,
    )
    params = rng.standard_normal(n * (1 + width))

    def loss(x):
        return _batch._melo_loss_and_grad(x, stats, width, alpha, advantage, 3.0)[0]

    grad = _batch._melo_loss_and_grad(params, stats, width, alpha, advantage, 3.0)[1]
    assert_allclose(grad, approx_fprime(params, loss, 1e-7), atol=1e-5)
    # The loss is the model's mean negative log-likelihood (+ penalty).
    vectors = params[n:].reshape(width, n).T
    logit = (
        params[stats.first]
        - params[stats.second]
        + advantage
        + _batch.omega_product(vectors[stats.first], vectors[stats.second])
    )
    nll = -(
        stats.score * -np.logaddexp(0, -logit)
        + (stats.games - stats.score) * -np.logaddexp(0, logit)
    ).sum()
    assert_allclose(loss(params), (nll + 0.5 * alpha * params @ params) / 3.0)
