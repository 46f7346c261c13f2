"""Tests of EloRanker: online Elo, batch Bradley-Terry, the match API.

scikit-learn's ``check_estimator`` / ``parametrize_with_checks`` cannot run on
EloRanker or MultiElo: their X is a table of player *labels* (two columns,
any hashable values, no player against itself) and y an outcome in
{0, 0.5, 1}; the random real matrices those checks generate are not valid
matches (float "labels" collide, rows may repeat a player, y is continuous
or multi-class), so every check either feeds invalid data or tests a
contract (e.g. n_features-dependent behaviour, regression/classification
targets) that a match table does not have. The project's own contract suite
(``sklearn_eval.utils.estimator_checks``: clone/refit identical, idempotent
fit, pickle/joblib round-trip, inputs unmodified, failing call keeps state,
NotFittedError) runs instead on valid matches, for both estimators and both
methods; feature-name handling, order invariance of the batch fits and the
bad-input errors are tested below (and in test_melo.py) directly.
"""

import math
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit

from sklearn_eval.datasets import make_matches
from sklearn_eval.metrics import (
    match_log_loss,
    match_log_loss_scorer,
    three_outcome_log_loss_scorer,
)
from sklearn_eval.pairwise import EloRanker, MultiElo, _batch, _kernels
from sklearn_eval.utils import win_probability_to_matches
from sklearn_eval.utils.estimator_checks import check_estimator_contract
from tests.pairwise.fixtures_alphago import (
    ALPHAGO_P,
    ALPHAGO_PLAYERS,
    BATCH_ELO_FROBENIUS,
    BATCH_ELO_LOGIT,
    BATCH_ELO_POINTS,
    CYCLE_PLAYERS,
    ELO_TABLE,
)

ELO = 400.0 / math.log(10.0)


def elo_expected(r_first, r_second):
    """Classical Elo expectation on the 400-point scale."""
    return 1.0 / (1.0 + 10.0 ** ((r_second - r_first) / 400.0))


def ratings_by_label(est, labels):
    index = {p: k for k, p in enumerate(est.players_.tolist())}
    return np.array([est.ratings_[index[p]] for p in labels])


@pytest.fixture(scope="module")
def matches():
    X, y, strengths = make_matches(
        n_players=12,
        n_matches=600,
        draw_rate=0.1,
        labels="str",
        random_state=3,
        return_strengths=True,
    )
    return X, y, strengths


# --------------------------------------------------------------- online Elo
def test_online_three_matches_closed_form_both_scales():
    X = [["a", "b"], ["b", "c"], ["a", "c"]]
    y = [1.0, 0.5, 1.0]
    K = 32.0
    r = {"a": 1500.0, "b": 1500.0, "c": 1500.0}
    for (i, j), s in zip(X, y, strict=True):
        delta = K * (s - elo_expected(r[i], r[j]))
        r[i] += delta
        r[j] -= delta
    expected = np.array([r["a"], r["b"], r["c"]])

    est = EloRanker(k_factor=K).fit(X, y)
    assert_array_equal(est.players_, ["a", "b", "c"])
    assert_allclose(est.ratings_, expected, rtol=0, atol=1e-9)
    # Step one by hand: equal ratings, a wins, gains K/2 = 16 points.
    after_one = EloRanker(k_factor=K).fit(X[:1], y[:1])
    assert_allclose(after_one.ratings_, [1516.0, 1484.0], atol=1e-9)

    logit = EloRanker(k_factor=K, scale="logit").fit(X, y)
    assert_allclose(logit.ratings_, (expected - 1500.0) / ELO, atol=1e-12)
    # The natural-logit update is the same step K ln(10)/400 on sigma(r_i - r_j).
    q = {"a": 0.0, "b": 0.0, "c": 0.0}
    eta = K * math.log(10.0) / 400.0
    for (i, j), s in zip(X, y, strict=True):
        delta = eta * (s - 1.0 / (1.0 + math.exp(q[j] - q[i])))
        q[i] += delta
        q[j] -= delta
    assert_allclose(logit.ratings_, [q["a"], q["b"], q["c"]], atol=1e-12)
    # Predictions agree across scales.
    assert_allclose(est.predict_proba(X), logit.predict_proba(X), atol=1e-12)
    assert_allclose(
        est.predict_proba([["a", "c"]])[0, 1],
        elo_expected(expected[0], expected[2]),
        atol=1e-12,
    )


def test_single_update_k16_gains_eight_points():
    est = EloRanker(k_factor=16, initial_rating=0).fit([[0, 1]], [1])
    assert_allclose(est.ratings_, [8.0, -8.0], atol=1e-12)
    draw = EloRanker(k_factor=16, initial_rating=0).fit([[0, 1]], [0.5])
    assert_allclose(draw.ratings_, [0.0, 0.0], atol=1e-12)


def test_initial_rating_default_depends_on_scale():
    X, y = [["a", "b"]], [0.5]
    assert_allclose(EloRanker().fit(X, y).ratings_, [1500.0, 1500.0])
    assert_allclose(EloRanker(scale="logit").fit(X, y).ratings_, [0.0, 0.0])
    assert_allclose(EloRanker(initial_rating=1000).fit(X, y).ratings_, [1000, 1000])


def test_online_sample_weight_scales_the_step():
    X = [["a", "b"], ["b", "a"]]
    y = [1.0, 1.0]
    heavy = EloRanker(k_factor=10).fit(X, y, sample_weight=[2.0, 0.0])
    once = EloRanker(k_factor=20).fit(X[:1], y[:1])
    assert_allclose(heavy.ratings_, once.ratings_, atol=1e-12)


def test_first_advantage_online_and_prediction():
    est = EloRanker(k_factor=32, first_advantage=100.0).fit([["a", "b"]], [1.0])
    expected_gain = 32 * (1 - elo_expected(1600.0, 1500.0))
    assert_allclose(est.ratings_, [1500 + expected_gain, 1500 - expected_gain])
    p = est.predict_proba([["a", "b"], ["b", "a"]])[:, 1]
    r = est.ratings_
    assert_allclose(p, [elo_expected(r[0] + 100, r[1]), elo_expected(r[1] + 100, r[0])])


def test_online_zero_sum_and_order_dependence(matches):
    X, y, _ = matches
    est = EloRanker().fit(X, y)
    assert_allclose(est.ratings_.mean(), 1500.0, atol=1e-9)
    rng = np.random.RandomState(0)
    perm = rng.permutation(len(X))
    shuffled = EloRanker().fit(X[perm], y[perm])
    assert np.max(np.abs(shuffled.ratings_ - est.ratings_)) > 1.0


def test_online_recovers_strengths(matches):
    X, y, strengths = matches
    est = EloRanker(k_factor=24).fit(np.tile(X, (5, 1)), np.tile(y, 5))
    rho = np.corrcoef(
        np.argsort(np.argsort(est.ratings_)), np.argsort(np.argsort(strengths))
    )[0, 1]
    assert rho > 0.9


# ------------------------------------------------------- prediction API
def test_prediction_api(matches):
    X, y, _ = matches
    est = EloRanker().fit(X, y)
    assert_array_equal(est.classes_, [0, 1])
    proba = est.predict_proba(X)
    assert proba.shape == (len(X), 2)
    assert_allclose(proba.sum(axis=1), 1.0)
    logits = est.decision_function(X)
    assert_allclose(proba[:, 1], 1 / (1 + np.exp(-logits)), atol=1e-12)
    r = dict(zip(est.players_.tolist(), est.ratings_ / ELO, strict=True))
    assert_allclose(logits, [r[a] - r[b] for a, b in X], atol=1e-9)
    assert_array_equal(est.predict(X), (proba[:, 1] > 0.5).astype(int))
    swapped = est.predict_proba(X[:, ::-1])
    assert_allclose(swapped[:, 1], proba[:, 0], atol=1e-12)
    # score = mean three-outcome log-likelihood: a tie has the training share
    # of ties, a decided match the win probability of predict_proba
    tie = np.mean(y == 0.5)
    assert est.tie_probability_ == pytest.approx(tie, rel=1e-12)
    observed = np.where(y == 0.5, tie, (1 - tie) * np.where(y == 1, proba[:, 1],
                                                            proba[:, 0]))
    assert_allclose(est.score(X, y), np.mean(np.log(observed)), rtol=1e-12)
    w = np.linspace(0, 2, len(X))
    assert_allclose(
        est.score(X, y, sample_weight=w),
        w @ np.log(observed) / w.sum(),
        rtol=1e-12,
    )


def test_unseen_players_get_initial_rating(matches):
    X, y, _ = matches
    est = EloRanker(initial_rating=1200).fit(X, y)
    known = est.players_[0]
    r_known = est.ratings_[0]
    p = est.predict_proba([["newcomer", known], ["new1", "new2"]])[:, 1]
    assert_allclose(p, [elo_expected(1200.0, r_known), 0.5])
    batch = EloRanker(method="batch", initial_rating=1200, alpha=1.0).fit(X, y)
    p = batch.predict_proba([["newcomer", known]])[0, 1]
    assert_allclose(p, elo_expected(1200.0, batch.ratings_[0]))
    assert_allclose(batch.ratings_.mean(), 1200.0, atol=1e-9)


def test_win_probabilities_matrix(matches):
    X, y, _ = matches
    est = EloRanker().fit(X, y)
    P = est.win_probabilities()
    assert_allclose(np.diag(P), 0.5)
    assert_allclose(P + P.T, 1.0, atol=1e-12)
    a, b = est.players_[2], est.players_[5]
    assert_allclose(P[2, 5], est.predict_proba([[a, b]])[0, 1])
    sub = est.win_probabilities([b, a])
    assert_allclose(sub, P[np.ix_([5, 2], [5, 2])])


def test_agent_table_is_indexed_by_player_best_first(matches):
    X, y, _ = matches
    est = EloRanker().fit(X, y)
    table = est.agent_table()
    assert isinstance(table, pd.DataFrame)
    assert table.index.name == "agent"
    assert list(table.columns) == ["score", "rank"]
    assert np.all(np.diff(table["score"].to_numpy()) <= 0)
    assert table["rank"].iloc[0] == 1
    lookup = dict(zip(est.players_.tolist(), est.ratings_.tolist(), strict=True))
    for player, rating in table["score"].items():
        assert lookup[player] == rating
    assert_array_equal(est.agents_, est.players_)
    assert_array_equal(est.agent_scores_, est.ratings_)


def test_rating_table_is_a_deprecated_alias_of_agent_table(matches):
    X, y, _ = matches
    est = EloRanker().fit(X, y)
    with pytest.warns(FutureWarning, match="agent_table"):
        table = est.rating_table()
    assert table.equals(est.agent_table())


def test_dataframe_feature_names(matches):
    X, y, _ = matches
    frame = pd.DataFrame(X, columns=["home", "away"])
    est = EloRanker().fit(frame, y)
    assert est.n_features_in_ == 2
    assert_array_equal(est.feature_names_in_, ["home", "away"])
    assert_allclose(est.ratings_, EloRanker().fit(X, y).ratings_)
    with pytest.warns(UserWarning, match="feature names"):
        assert_allclose(est.predict_proba(frame), est.predict_proba(X))
    renamed = frame.rename(columns={"home": "a", "away": "b"})
    with pytest.raises(ValueError, match="feature names"):
        est.predict_proba(renamed)
    plain = EloRanker().fit(X, y)
    assert plain.n_features_in_ == 2
    assert not hasattr(plain, "feature_names_in_")


def test_not_fitted():
    est = EloRanker()
    for method in ("predict", "predict_proba", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(est, method)([["a", "b"]])
    with pytest.raises(NotFittedError):
        est.agent_table()
    with pytest.raises(NotFittedError):
        est.win_probabilities()


# ----------------------------------------------------------- partial_fit
def test_partial_fit_continues_online(matches):
    X, y, _ = matches
    full = EloRanker(k_factor=20).fit(X, y)
    # The second chunk brings players the first did not have.
    first_chunk = np.isin(X[:, 0], ["player_00", "player_01", "player_02"]) & np.isin(
        X[:, 1], ["player_00", "player_01", "player_02"]
    )
    order = np.concatenate([np.flatnonzero(first_chunk), np.flatnonzero(~first_chunk)])
    Xo, yo = X[order], y[order]
    n1 = int(first_chunk.sum())
    reference = EloRanker(k_factor=20).fit(Xo, yo)
    part = EloRanker(k_factor=20).fit(Xo[:n1], yo[:n1])
    assert len(part.players_) == 3
    part.partial_fit(Xo[n1 : n1 + 50], yo[n1 : n1 + 50]).partial_fit(
        Xo[n1 + 50 :], yo[n1 + 50 :]
    )
    assert_array_equal(part.players_, reference.players_)
    assert_allclose(part.ratings_, reference.ratings_, atol=1e-9)
    assert part.n_matches_seen_ == len(X)
    # partial_fit on an unfitted estimator is an online fit.
    fresh = EloRanker(k_factor=20).partial_fit(X, y)
    assert_allclose(fresh.ratings_, full.ratings_, atol=1e-12)


def test_partial_fit_after_batch_starts_from_batch_ratings(matches):
    X, y, _ = matches
    batch = EloRanker(method="batch").fit(X, y)
    before = batch.ratings_.copy()
    a, b = batch.players_[0], batch.players_[1]
    batch.partial_fit([[a, b]], [1.0])
    gain = 16 * (1 - elo_expected(before[0], before[1]))
    assert_allclose(batch.ratings_[:2], [before[0] + gain, before[1] - gain])
    assert_allclose(batch.ratings_[2:], before[2:])


def test_partial_fit_mixed_label_types_rejected_and_state_kept():
    est = EloRanker().fit([["a", "b"]], [1])
    before = est.ratings_.copy()
    with pytest.raises(TypeError, match="mix types"):
        est.partial_fit([[1, 2]], [1])
    assert_array_equal(est.ratings_, before)
    assert_array_equal(est.players_, ["a", "b"])


# ---------------------------------------------------------------- history
def test_history_and_trajectories(matches):
    X, y, _ = matches
    est = EloRanker(keep_history=True).fit(X[:300], y[:300])
    est.partial_fit(X[300:], y[300:])
    history = est.history_
    assert history.shape == (len(X), 2)
    traj = est.rating_history()
    assert traj.shape == (len(X) + 1, len(est.players_))
    assert_allclose(traj[0], 1500.0)
    assert_allclose(traj[-1], est.ratings_, atol=1e-9)
    # Row t + 1 holds the two players' ratings right after match t.
    col = {p: k for k, p in enumerate(est.players_.tolist())}
    for t in (0, 17, 299, 300, len(X) - 1):
        a, b = X[t]
        assert_allclose(traj[t + 1, [col[a], col[b]]], history[t], atol=1e-9)
    # Constant between a player's matches; replaying matches the trajectory.
    replay = EloRanker().fit(X[:123], y[:123])
    assert_allclose(
        traj[123],
        [
            replay.ratings_[replay.players_.tolist().index(p)]
            if p in replay.players_
            else 1500.0
            for p in est.players_
        ],
        atol=1e-9,
    )
    sub = est.rating_history([est.players_[3]])
    assert_allclose(sub[:, 0], traj[:, 3])
    with pytest.raises(ValueError, match="Unknown player"):
        est.rating_history(["nobody"])
    assert EloRanker().fit(X, y).history_ is None
    with pytest.raises(ValueError, match="keep_history"):
        EloRanker().fit(X, y).rating_history()


def test_history_after_batch_starts_at_batch_ratings(matches):
    X, y, _ = matches
    est = EloRanker(method="batch", keep_history=True).fit(X, y)
    assert est.history_.shape == (0, 2)
    start = est.ratings_.copy()
    est.partial_fit(X[:5], y[:5])
    traj = est.rating_history()
    assert traj.shape == (6, len(est.players_))
    assert_allclose(traj[0], start)
    assert_allclose(traj[-1], est.ratings_)


# ------------------------------------------------------------------ batch
def test_batch_alphago_reproduces_paper():
    X, y, w = win_probability_to_matches(ALPHAGO_P, ALPHAGO_PLAYERS)
    est = EloRanker(method="batch", initial_rating=0.0).fit(X, y, sample_weight=w)
    assert_allclose(ratings_by_label(est, ALPHAGO_PLAYERS), BATCH_ELO_POINTS, atol=0.06)
    logit = EloRanker(method="batch", scale="logit").fit(X, y, sample_weight=w)
    assert_allclose(
        ratings_by_label(logit, ALPHAGO_PLAYERS), BATCH_ELO_LOGIT, atol=5e-4
    )
    P_hat = est.win_probabilities(ALPHAGO_PLAYERS)
    assert abs(np.linalg.norm(ALPHAGO_P - P_hat) - BATCH_ELO_FROBENIUS) <= 0.005
    table = est.win_probabilities(CYCLE_PLAYERS)
    off = ~np.eye(3, dtype=bool)
    assert_array_equal(np.round(table[off], 2), ELO_TABLE[off])
    # Proposition 1: predicted and empirical row sums agree at the fixed point.
    assert_allclose(P_hat.sum(axis=1), ALPHAGO_P.sum(axis=1), atol=1e-8)
    assert est.n_iter_ < 30


def test_batch_appendix_a_rps_and_copy():
    rps = np.array([[0.5, 0.9, 0.1], [0.1, 0.5, 0.9], [0.9, 0.1, 0.5]])
    X, y, w = win_probability_to_matches(rps, ["A", "B", "C"])
    est = EloRanker(method="batch", initial_rating=0).fit(X, y, sample_weight=w)
    assert_allclose(est.ratings_, 0.0, atol=1e-9)
    assert_allclose(est.win_probabilities(), 0.5, atol=1e-12)
    copied = np.array(
        [
            [0.5, 0.9, 0.1, 0.1],
            [0.1, 0.5, 0.9, 0.9],
            [0.9, 0.1, 0.5, 0.5],
            [0.9, 0.1, 0.5, 0.5],
        ]
    )
    X, y, w = win_probability_to_matches(copied, ["A", "B", "C1", "C2"])
    est = EloRanker(method="batch", initial_rating=0).fit(X, y, sample_weight=w)
    assert_allclose(est.ratings_, [-71.91, 71.91, 0.0, 0.0], atol=0.01)


def test_batch_order_invariant_online_not(matches):
    X, y, _ = matches
    w = np.random.RandomState(1).uniform(0.2, 2.0, len(X))
    est = EloRanker(method="batch").fit(X, y, sample_weight=w)
    for seed in range(3):
        perm = np.random.RandomState(seed).permutation(len(X))
        again = EloRanker(method="batch").fit(X[perm], y[perm], sample_weight=w[perm])
        assert_allclose(again.ratings_, est.ratings_, rtol=0, atol=1e-8)


def test_batch_equals_penalised_logistic_regression(matches):
    X, y, _ = matches
    decisive = y != 0.5
    X, y = X[decisive], y[decisive]
    alpha = 0.5
    est = EloRanker(method="batch", scale="logit", alpha=alpha).fit(X, y)
    col = {p: k for k, p in enumerate(est.players_.tolist())}
    design = np.zeros((len(X), len(col)))
    rows = np.arange(len(X))
    design[rows, [col[a] for a in X[:, 0]]] = 1.0
    design[rows, [col[b] for b in X[:, 1]]] = -1.0
    # LogisticRegression minimises |w|^2 / 2 + C sum(loss): C = 1 / alpha.
    lr = LogisticRegression(
        C=1 / alpha, fit_intercept=False, tol=1e-12, max_iter=10_000
    ).fit(design, y)
    assert_allclose(est.ratings_, lr.coef_.ravel(), atol=1e-6)


def test_batch_integer_weights_equal_repeated_matches(matches):
    X, y, _ = matches
    w = np.random.RandomState(2).randint(0, 4, len(X)).astype(float)
    weighted = EloRanker(method="batch", alpha=0.1).fit(X, y, sample_weight=w)
    repeat = np.repeat(np.arange(len(X)), w.astype(int))
    repeated = EloRanker(method="batch", alpha=0.1).fit(X[repeat], y[repeat])
    assert_allclose(weighted.ratings_, repeated.ratings_, atol=1e-8)


def test_batch_first_advantage():
    rng = np.random.RandomState(0)
    X, y, strengths = make_matches(
        n_players=8, n_matches=4000, random_state=0, return_strengths=True
    )
    # Re-draw outcomes with a home advantage of 0.7 logits.
    logit = strengths[X[:, 0]] - strengths[X[:, 1]] + 0.7
    y = (rng.random_sample(len(X)) < 1 / (1 + np.exp(-logit))).astype(float)
    with_adv = EloRanker(method="batch", scale="logit", first_advantage=0.7).fit(X, y)
    without = EloRanker(method="batch", scale="logit").fit(X, y)
    truth = strengths - strengths.mean()
    assert np.abs(with_adv.ratings_ - truth).max() < 0.2
    assert with_adv.score(X, y) > without.score(X, y)
    assert_allclose(
        with_adv.decision_function([[0, 1]]),
        with_adv.ratings_[0] - with_adv.ratings_[1] + 0.7,
    )


def test_batch_undefeated_player_needs_alpha():
    X = [["a", "b"], ["b", "c"], ["c", "b"], ["a", "c"]]
    y = [1.0, 1.0, 1.0, 1.0]  # a never loses
    with pytest.warns(ConvergenceWarning, match="'a'.*undefeated.*alpha > 0"):
        mle = EloRanker(method="batch").fit(X, y)
    # A vanishing prior keeps the fit finite and converged; a is far ahead.
    assert np.all(np.isfinite(mle.ratings_))
    assert mle.ratings_[0] - mle.ratings_[1:].max() > 1000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = EloRanker(method="batch", alpha=0.5).fit(X, y)
    assert np.all(np.isfinite(est.ratings_))
    assert est.ratings_[0] == est.ratings_.max()
    assert_allclose(est.ratings_.mean(), 1500.0)


def test_batch_disconnected_groups_with_alpha():
    X = [["a", "b"], ["b", "a"], ["c", "d"], ["d", "c"], ["c", "d"]]
    y = [1.0, 1.0, 1.0, 0.5, 1.0]
    with pytest.warns(ConvergenceWarning, match="2 groups"):
        EloRanker(method="batch").fit(X, y)
    est = EloRanker(method="batch", alpha=0.1, scale="logit").fit(X, y)
    assert np.all(np.isfinite(est.ratings_))
    assert_allclose(est.ratings_[0], est.ratings_[1], atol=1e-9)  # 1 win each
    assert est.ratings_[2] > est.ratings_[3]


def test_batch_not_converged_warns(matches):
    X, y, _ = matches
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        est = EloRanker(method="batch", max_iter=1, tol=1e-14).fit(X, y)
    assert est.n_iter_ == 1


def test_sparse_newton_path_matches_dense(matches, monkeypatch):
    X, y, _ = matches
    dense = EloRanker(method="batch", alpha=0.01).fit(X, y)
    dense0 = EloRanker(method="batch").fit(X, y)
    monkeypatch.setattr(_batch, "_DENSE_LIMIT", 0)
    sparse = EloRanker(method="batch", alpha=0.01).fit(X, y)
    sparse0 = EloRanker(method="batch").fit(X, y)
    assert_allclose(sparse.ratings_, dense.ratings_, atol=1e-6)
    assert_allclose(sparse0.ratings_, dense0.ratings_, atol=1e-6)


def test_aggregate_pairs_both_paths_agree():
    rng = np.random.RandomState(0)
    n = 3000
    first = rng.randint(0, n, 200)
    second = (first + rng.randint(1, n, 200)) % n
    y = rng.choice([0.0, 0.5, 1.0], 200)
    w = rng.uniform(0, 2, 200)
    w[:5] = 0.0
    stats = _batch.aggregate_pairs(first, second, y, w, n)  # np.unique path
    dense = _batch.aggregate_pairs(first, second, y, w, 400)  # bincount path
    assert stats.games.shape[0] == np.unique((first * n + second)[w > 0]).shape[0]
    assert_allclose(stats.games.sum(), w.sum())
    assert_allclose(stats.score.sum(), (w * y).sum())
    assert_allclose(dense.games.sum(), w.sum())


# --------------------------------------------------------------- kernels
def test_python_fallback_equals_compiled_scan(matches):
    X, y, _ = matches
    rng = np.random.RandomState(0)
    first = rng.randint(0, 30, 2000)
    second = (first + rng.randint(1, 30, 2000)) % 30
    outcome = rng.choice([0.0, 0.5, 1.0], 2000)
    weight = rng.uniform(0, 2, 2000)
    r1, r2 = np.zeros(30), np.zeros(30)
    h1, h2 = np.empty((2000, 2)), np.empty((2000, 2))
    _kernels.elo_scan(first, second, outcome, weight, r1, 0.1, 0.05, h1)
    _kernels.elo_scan_python(first, second, outcome, weight, r2, 0.1, 0.05, h2)
    assert_allclose(r1, r2, atol=1e-12)
    assert_allclose(h1, h2, atol=1e-12)
    # Extreme logits do not overflow in the fallback.
    r3 = np.array([-800.0, 800.0])
    _kernels.elo_scan_python(
        np.array([0]),
        np.array([1]),
        np.array([1.0]),
        np.array([1.0]),
        r3,
        1.0,
        0.0,
        _kernels.no_history(),
    )
    assert_allclose(r3, [-799.0, 799.0])


def test_estimator_with_fallback_kernel(matches, monkeypatch):
    X, y, _ = matches
    compiled = EloRanker(keep_history=True).fit(X, y)
    monkeypatch.setattr(_kernels, "elo_scan", _kernels.elo_scan_python)
    fallback = EloRanker(keep_history=True).fit(X, y)
    assert_allclose(fallback.ratings_, compiled.ratings_, atol=1e-9)
    assert_allclose(fallback.history_, compiled.history_, atol=1e-9)


# ------------------------------------------------------- contract, errors
@pytest.mark.parametrize("method", ["online", "batch"])
def test_contract_suite(matches, method):
    X, y, _ = matches
    bad = [
        (X[:, :1], y),  # one column
        (X[:0], y[:0]),  # empty
        (np.array([["a", None], ["b", "c"]], dtype=object), [1, 0]),  # missing
        (np.array([["a", "a"], ["b", "c"]]), [1, 0]),  # self-play
    ]
    check_estimator_contract(
        EloRanker(method=method, alpha=0.01),
        X,
        y,
        bad_inputs=bad,
        matrix_input=False,
    )


BAD_FIT_INPUTS = [
    ("one column", lambda X, y, w: (X[:, :1], y, w), ValueError, "2 columns|shape"),
    (
        "nan label",
        lambda X, y, w: (
            np.where(np.arange(len(X))[:, None] == 3, np.nan, X.astype(object)),
            y,
            w,
        ),
        ValueError,
        "missing player label.*row 3",
    ),
    (
        "y outside",
        lambda X, y, w: (X, np.where(np.arange(len(y)) == 5, 2.0, y), w),
        ValueError,
        "y must be.*row 5",
    ),
    (
        "self play",
        lambda X, y, w: (np.vstack([X[:7], [[X[7, 0], X[7, 0]]], X[8:]]), y, w),
        ValueError,
        "against itself",
    ),
    ("empty", lambda X, y, w: (X[:0], y[:0], None), ValueError, "no matches"),
    ("y length", lambda X, y, w: (X, y[:-1], w), ValueError, "same length"),
    ("w length", lambda X, y, w: (X, y, w[:-1]), ValueError, "same length"),
    (
        "negative w",
        lambda X, y, w: (X, y, np.where(np.arange(len(w)) == 2, -1.0, w)),
        ValueError,
        "non-negative.*row 2",
    ),
    (
        "nan y",
        lambda X, y, w: (X, np.where(np.arange(len(y)) == 4, np.nan, y), w),
        ValueError,
        "non-finite.*row 4",
    ),
]


@pytest.mark.parametrize("method", ["online", "batch"])
@pytest.mark.parametrize("case", BAD_FIT_INPUTS, ids=[c[0] for c in BAD_FIT_INPUTS])
def test_bad_input_clear_error_state_untouched(matches, method, case):
    _, make_bad, error, message = case
    X, y, _ = matches
    w = np.ones(len(X))
    est = EloRanker(method=method, keep_history=True).fit(X, y)
    snapshot = pickle.dumps(est)
    Xb, yb, wb = make_bad(X, y, w)
    with pytest.raises(error, match=message):
        est.fit(Xb, yb, sample_weight=wb)
    with pytest.raises(error, match=message):
        est.partial_fit(Xb, yb, sample_weight=wb)
    assert pickle.dumps(est) == snapshot


def test_bad_parameters_rejected_before_state_changes(matches):
    X, y, _ = matches
    est = EloRanker().fit(X, y)
    snapshot = pickle.dumps(est)
    for params in (
        {"k_factor": -1},
        {"method": "magic"},
        {"scale": "glicko"},
        {"alpha": -0.1},
        {"initial_rating": np.inf},
        {"max_iter": 0},
    ):
        bad = clone(est).set_params(**params)
        with pytest.raises(ValueError, match="parameter"):
            bad.fit(X, y)
    assert pickle.dumps(est) == snapshot
    est.set_params(k_factor=-3)
    with pytest.raises(ValueError, match="k_factor"):
        est.partial_fit(X, y)
    est.set_params(k_factor=16.0)
    assert pickle.dumps(est) == snapshot


def test_divergence_raises_and_keeps_state():
    X = np.array([["a", "b"], ["b", "a"]] * 5)
    y = np.ones(len(X))
    est = EloRanker().fit(X, y)
    snapshot = pickle.dumps(est)
    with pytest.raises(FloatingPointError, match="diverged") as info, pytest.warns(
        UserWarning, match="single matches dominate"
    ):
        est.partial_fit(X, y, sample_weight=np.full(len(X), 1e308))
    assert isinstance(info.value, ValueError)  # bad settings for the data
    assert pickle.dumps(est) == snapshot


# -------------------------------------------------------- model selection
def test_grid_search_k_factor_with_time_series_split_and_draws():
    X, y = make_matches(n_players=10, n_matches=1500, draw_rate=0.2, random_state=5)
    assert np.any(y == 0.5)
    search = GridSearchCV(
        EloRanker(),
        {"k_factor": [1.0, 8.0, 64.0]},
        cv=TimeSeriesSplit(n_splits=3),
        scoring=match_log_loss_scorer,
    ).fit(X, y)
    assert search.best_params_["k_factor"] in (1.0, 8.0, 64.0)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all(scores < 0)
    # The default score is the three-outcome scorer's value.
    default = GridSearchCV(
        EloRanker(), {"k_factor": [1.0, 8.0, 64.0]}, cv=TimeSeriesSplit(n_splits=3)
    ).fit(X, y)
    three = GridSearchCV(
        EloRanker(), {"k_factor": [1.0, 8.0, 64.0]}, cv=TimeSeriesSplit(n_splits=3),
        scoring=three_outcome_log_loss_scorer,
    ).fit(X, y)
    assert_allclose(default.cv_results_["mean_test_score"],
                    three.cv_results_["mean_test_score"], rtol=1e-10)


# ------------------------------------------------------ property tests
match_lists = st.lists(
    st.tuples(
        st.integers(0, 5),
        st.integers(1, 5),
        st.sampled_from([0.0, 0.5, 1.0]),
        st.floats(0.1, 3.0),
    ),
    min_size=1,
    max_size=40,
)


def _to_matches(rows):
    first = np.array([a for a, _, _, _ in rows])
    second = (first + np.array([d for _, d, _, _ in rows])) % 6
    X = np.column_stack([first, second])
    y = np.array([s for _, _, s, _ in rows])
    w = np.array([v for _, _, _, v in rows])
    return X, y, w


@settings(max_examples=40, deadline=None)
@given(match_lists, st.floats(1.0, 64.0))
def test_property_online_zero_sum_and_bounded_steps(rows, k):
    X, y, w = _to_matches(rows)
    est = EloRanker(k_factor=k, keep_history=True).fit(X, y, sample_weight=w)
    assert_allclose(est.ratings_.sum(), 1500.0 * len(est.players_), rtol=1e-12)
    traj = est.rating_history()
    steps = np.abs(np.diff(traj, axis=0)).max(axis=1)
    assert np.all(steps <= k * w + 1e-9)


@settings(max_examples=40, deadline=None)
@given(match_lists, st.floats(0.05, 5.0))
def test_property_batch_stationarity_and_relabel_invariance(rows, alpha):
    X, y, w = _to_matches(rows)
    est = EloRanker(method="batch", scale="logit", alpha=alpha).fit(
        X, y, sample_weight=w
    )
    # Penalised Proposition 1: sum_j w (y - p_hat) = alpha r for every player.
    p = est.predict_proba(X)[:, 1]
    residual = w * (y - p)
    col = {q: k for k, q in enumerate(est.players_.tolist())}
    first = np.array([col[a] for a in X[:, 0]])
    second = np.array([col[b] for b in X[:, 1]])
    n = len(col)
    gradient = np.bincount(first, residual, n) - np.bincount(second, residual, n)
    assert_allclose(gradient, alpha * est.ratings_, atol=1e-7)
    # Relabelling the players relabels the ratings.
    relabel = np.array([f"p{v}" for v in range(6)])
    other = EloRanker(method="batch", scale="logit", alpha=alpha).fit(
        relabel[X], y, sample_weight=w
    )
    assert_allclose(
        ratings_by_label(other, relabel[est.players_]), est.ratings_, atol=1e-9
    )


# ------------------------------------------------- label coding: see
# tests/utils/test_labels.py


def test_runs_without_numba_in_a_fresh_interpreter():
    code = (
        "import numpy as np\n"
        "from sklearn_eval.pairwise import EloRanker, MultiElo, _kernels\n"
        "assert not _kernels.HAVE_NUMBA\n"
        "assert _kernels.elo_scan is _kernels.elo_scan_python\n"
        "X = np.array([['a', 'b'], ['b', 'c'], ['c', 'a']] * 20)\n"
        "y = np.ones(len(X))\n"
        "print(EloRanker(k_factor=32).fit(X, y).ratings_.round(6).tolist())\n"
        "print(MultiElo(random_state=0).fit(X, y).score(X, y))\n"
    )
    env = dict(os.environ, SKLEARN_EVAL_DISABLE_NUMBA="1")
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    X = np.array([["a", "b"], ["b", "c"], ["c", "a"]] * 20)
    y = np.ones(len(X))
    expected = EloRanker(k_factor=32).fit(X, y).ratings_.round(6).tolist()
    assert out[0] == str(expected)
    assert float(out[1]) == pytest.approx(
        MultiElo(random_state=0).fit(X, y).score(X, y), abs=1e-9
    )


# --------------------------------------------------------------- real data
def test_real_international_football_results(shared_dir):
    """49,520 international football matches since 1872 (CC0), 23% draws."""
    path = shared_dir / "data" / "pairwise" / "martj42_international_results_full.csv"
    data = pd.read_csv(path).dropna(subset=["home_score", "away_score"])
    goal_difference = np.sign(data["home_score"] - data["away_score"]).to_numpy()
    y = np.select([goal_difference > 0, goal_difference < 0], [1.0, 0.0], 0.5)
    X = data[["home_team", "away_team"]]
    cut = int(0.8 * len(X))
    train, test = slice(0, cut), slice(cut, None)
    baseline = match_log_loss(y[test], np.full(len(y) - cut, 0.5))
    online = EloRanker(k_factor=40).fit(X.iloc[train], y[train])
    home = EloRanker(k_factor=40, first_advantage=60).fit(X.iloc[train], y[train])
    loss_online = match_log_loss(y[test], online.predict_proba(X.iloc[test]))
    loss_home = match_log_loss(y[test], home.predict_proba(X.iloc[test]))
    assert loss_online < baseline - 0.08  # 0.585 against 0.693
    assert loss_home < loss_online  # the first-listed team plays at home
    assert_array_equal(online.feature_names_in_, ["home_team", "away_team"])
    # Some teams never lost (or never won): the unpenalised MLE does not exist.
    with pytest.warns(ConvergenceWarning, match="groups"):
        EloRanker(method="batch").fit(X.iloc[train], y[train])
    batch = EloRanker(method="batch", alpha=1.0).fit(X.iloc[train], y[train])
    assert np.all(np.isfinite(batch.ratings_))
    assert match_log_loss(y[test], batch.predict_proba(X.iloc[test])) < (
        baseline - 0.08)
    top = EloRanker(k_factor=40).fit(X, y).agent_table().index[:10].tolist()
    assert {"Spain", "Argentina", "France"} <= set(top)


def test_real_vicuna80_human_judgements(shared_dir):
    """Human pairwise preferences between 9 chatbots (PRD, MIT): 1 = A, 3 = tie."""
    data = pd.read_csv(shared_dir / "data" / "pairwise" /
                       "prd_vicuna80_human_pairwise.csv")
    y = data["score"].map({1: 1.0, 2: 0.0, 3: 0.5}).to_numpy()
    est = EloRanker(method="batch").fit(data[["model_a", "model_b"]], y)
    table = est.agent_table()
    assert set(table.index[:2]) == {"gpt4", "claude"}
    # Proposition 1 on real data: predicted and actual scores agree.
    p = est.predict_proba(data[["model_a", "model_b"]])[:, 1]
    col = {q: k for k, q in enumerate(est.players_.tolist())}
    first = data["model_a"].map(col).to_numpy()
    second = data["model_b"].map(col).to_numpy()
    n = len(col)
    gradient = np.bincount(first, y - p, n) - np.bincount(second, y - p, n)
    assert_allclose(gradient, 0.0, atol=1e-6)


def test_batch_edge_cases_zero_weights_and_single_match():
    X = [["a", "b"], ["b", "c"]]
    # weights summing to 0: no match counts, refused (see test_weights.py)
    with pytest.raises(ValueError, match="weights sum to 0"):
        EloRanker(method="batch").fit(X, [1, 0], sample_weight=[0.0, 0.0])
    with pytest.warns(ConvergenceWarning, match="undefeated"):
        single = EloRanker(method="batch").fit(X[:1], [1])
    assert np.all(np.isfinite(single.ratings_)) and single.ratings_[0] > 2000
    # A draw is enough for a finite, zero difference.
    draw = EloRanker(method="batch").fit(X[:1], [0.5])
    assert_allclose(draw.ratings_, 1500.0, atol=1e-9)
    # Two wins each way balance exactly with a first-player advantage.
    home = EloRanker(method="batch", first_advantage=50).fit(
        [["a", "b"], ["b", "a"]], [1, 1])
    assert_allclose(home.ratings_, 1500.0, atol=1e-9)


def test_huge_weights_online_warn_that_single_matches_dominate():
    X = np.array([["a", "b"], ["b", "c"], ["c", "a"]] * 3)
    y = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5])
    with pytest.warns(UserWarning, match="up to 1.6e\\+06 Elo points"):
        EloRanker(k_factor=16).fit(X, y, sample_weight=np.full(len(X), 1e5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        EloRanker(k_factor=16).fit(X, y, sample_weight=np.full(len(X), 2.0))
        EloRanker(method="batch").fit(X, y, sample_weight=np.full(len(X), 1e5))


@pytest.mark.parametrize("make", [
    lambda: EloRanker(), lambda: EloRanker(method="batch"),
    lambda: EloRanker(method="batch", ties="davidson", alpha=0.1),
    lambda: EloRanker(method="batch", first_advantage="fit"),
    lambda: MultiElo(), lambda: MultiElo(method="batch"),
], ids=["elo-online", "bt", "bt-davidson", "bt-advantage", "melo", "melo-batch"])
@pytest.mark.parametrize("call", ["fit", "partial_fit", "score"])
def test_weights_that_sum_to_zero_are_a_clear_error(make, call):
    # no match counts: every rater and every method that reads weights says
    # so, instead of returning everyone at the mean (and NaN scores)
    X = np.array([["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]] * 3)
    y = np.tile([1.0, 1.0, 0.0, 0.5], 3)
    est = make()
    if call != "fit":
        est.fit(X, y)
    method = getattr(est, call, None)
    if call == "partial_fit" and (est.get_params().get("ties", "half") != "half"
                                  or est.get_params().get("first_advantage")):
        pytest.skip("the extended batch model has no online update")
    snapshot = pickle.dumps(est)
    with pytest.raises(ValueError, match="the weights sum to 0"):
        method(X, y, sample_weight=np.zeros(len(y)))
    assert pickle.dumps(est) == snapshot
    some = np.r_[np.ones(8), np.zeros(len(y) - 8)]  # some matches count
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        method(X, y, sample_weight=some)
