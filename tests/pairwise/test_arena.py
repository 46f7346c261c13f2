"""Chatbot Arena: the loader, leaderbot's tie models on the same votes, and
held-out three-outcome log-loss (5-fold cross-validation over the votes)."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import kendalltau

from sklearn_eval.datasets import load_chatbot_arena
from sklearn_eval.metrics import three_outcome_log_loss
from sklearn_eval.pairwise import EloRanker
from tests.pairwise import fixtures_arena as F


@pytest.fixture(scope="module")
def arena():
    return load_chatbot_arena()


@pytest.fixture(scope="module")
def counts():
    return load_chatbot_arena(return_counts=True)


# ---------------------------------------------------------------------------
# the loader
# ---------------------------------------------------------------------------
def test_counts_table(counts):
    assert counts.data.shape == (3460, 2)
    assert counts.counts.shape == (3460, 4)
    assert counts.counts.sum(axis=0).tolist() == [595570, 498305, 281121, 295254]
    assert counts.n_votes == 1_670_250
    assert len(counts.players) == 129
    assert list(counts.players) == sorted(counts.players)
    assert (counts.counts.sum(axis=1) > 0).all()
    assert (counts.data[:, 0] != counts.data[:, 1]).all()
    pairs = {frozenset(p) for p in counts.data.tolist()}
    assert len(pairs) == 3460  # each unordered pair once
    assert counts.count_names == ["win", "loss", "tie", "tie_both_bad"]
    assert "Chatbot Arena" in counts.DESCR and counts.frame is None


def test_match_rows_are_the_counts(arena, counts):
    assert arena.data.shape[1] == 2
    assert arena.n_votes == 1_670_250 == arena.sample_weight.sum()
    assert (arena.sample_weight > 0).all()
    assert set(arena.target.tolist()) == {0.0, 0.5, 1.0}
    expected = {"win": 1.0, "loss": 0.0, "tie": 0.5, "tie_both_bad": 0.5}
    assert_array_equal(arena.target, [expected[o] for o in arena.outcome])
    for kind, column in zip(counts.count_names, counts.counts.T, strict=True):
        rows = arena.outcome == kind
        assert arena.sample_weight[rows].sum() == column.sum()
    first = pd.Series(arena.sample_weight).groupby(
        [arena.data[:, 0], arena.data[:, 1]]
    ).sum()
    totals = pd.Series(counts.counts.sum(axis=1),
                       index=pd.MultiIndex.from_arrays(counts.data.T))
    assert_allclose(first.sort_index().to_numpy(), totals.sort_index().to_numpy())


def test_frames(arena):
    framed = load_chatbot_arena(as_frame=True)
    assert list(framed.frame.columns) == ["model_a", "model_b", "outcome", "count",
                                          "target"]
    assert list(framed.data.columns) == ["model_a", "model_b"]
    assert_array_equal(framed.target.to_numpy(), arena.target)
    counted = load_chatbot_arena(as_frame=True, return_counts=True)
    assert list(counted.frame.columns) == ["model_a", "model_b", "win", "loss",
                                           "tie", "tie_both_bad"]
    assert counted.frame[["win", "loss", "tie", "tie_both_bad"]].to_numpy().sum() \
        == 1_670_250


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_loader_flags_must_be_bools(bad):
    with pytest.raises(TypeError, match="as_frame must be a bool"):
        load_chatbot_arena(as_frame=bad)
    with pytest.raises(TypeError, match="return_counts must be a bool"):
        load_chatbot_arena(return_counts=bad)


# ---------------------------------------------------------------------------
# leaderbot's Davidson and Rao-Kupper fits of the same votes
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("ties,label", [("davidson", "DAVIDSON"),
                                        ("rao-kupper", "RAO_KUPPER")])
def test_agrees_with_leaderbot(arena, ties, label):
    est = EloRanker(method="batch", ties=ties, scale="logit").fit(
        arena.data, arena.target, sample_weight=arena.sample_weight
    )
    order = [int(np.flatnonzero(est.players_ == name)[0])
             for name in F.LEADERBOT_MODELS]
    ours = est.ratings_[order]
    reference = getattr(F, f"LEADERBOT_{label}_SCORES")
    tau = kendalltau(ours, reference).statistic
    assert tau >= 0.999
    assert_allclose(ours - ours.mean(), reference - reference.mean(), atol=1e-3)
    assert np.log(est.tie_param_) == pytest.approx(
        getattr(F, f"LEADERBOT_{label}_TIE"), abs=1e-6
    )
    # mean loss per vote: ours is at least as low (leaderbot's BFGS stops short)
    loss = -est.score(arena.data, arena.target, sample_weight=arena.sample_weight)
    reference_loss = getattr(F, f"LEADERBOT_{label}_LOSS")
    assert loss == pytest.approx(reference_loss, abs=1e-9)
    assert loss <= reference_loss + 1e-12


def test_counts_as_weighted_rows_fit_in_o_of_pairs(arena):
    est = EloRanker(method="batch", ties="davidson").fit(
        arena.data, arena.target, sample_weight=arena.sample_weight
    )
    assert est.n_matches_seen_ == arena.data.shape[0] < 3 * 4 * 3460
    assert est.n_iter_ <= 10
    # the Nash averaging input: an antisymmetric win-rate game
    P = est.win_probabilities()
    assert_allclose(P + P.T, 1.0, atol=1e-12)


# ---------------------------------------------------------------------------
# held-out three-outcome log-loss, 5-fold cross-validation over the votes
# ---------------------------------------------------------------------------
def vote_folds(counts, n_folds, seed):
    """Assign every vote to one of n_folds folds, uniformly at random.

    Returns an array (n_folds, n_pairs, 3) of the counts of model_a's wins,
    ties (both kinds) and losses in each fold.
    """
    rng = np.random.default_rng(seed)
    wins, losses = counts.counts[:, 0], counts.counts[:, 1]
    ties = counts.counts[:, 2] + counts.counts[:, 3]
    per_outcome = np.column_stack([wins, ties, losses])
    folds = np.empty((n_folds, *per_outcome.shape), dtype=np.int64)
    for k in range(per_outcome.shape[1]):
        folds[:, :, k] = rng.multinomial(per_outcome[:, k],
                                         np.full(n_folds, 1.0 / n_folds)).T
    return folds


def as_rows(pairs, table):
    """Weighted match rows (wins, ties, losses) from a (n_pairs, 3) count table."""
    X = np.repeat(pairs, 3, axis=0)
    y = np.tile([1.0, 0.5, 0.0], pairs.shape[0])
    w = table.ravel().astype(float)
    keep = w > 0
    return X[keep], y[keep], w[keep]


def constant_tie_rate_loss(train, test, *, decided_only):
    """Bradley-Terry plus a constant tie rate: P(tie) = t, P(win) = (1 - t) p.

    t is the training tie fraction; p comes from Bradley-Terry fitted either
    to the decided votes only (``decided_only=True``: the maximum-likelihood
    fit of this model, since ties carry no information on p) or to all votes
    with a tie as half a win (the anchor study's baseline).
    """
    X, y, w = train
    keep = y != 0.5 if decided_only else np.ones(y.shape[0], dtype=bool)
    bt = EloRanker(method="batch").fit(X[keep], y[keep], sample_weight=w[keep])
    rate = w[y == 0.5].sum() / w.sum()
    Xt, yt, wt = test
    p_win = bt.predict_proba(Xt)[:, 1]
    proba = np.column_stack([(1 - rate) * (1 - p_win), np.full_like(p_win, rate),
                             (1 - rate) * p_win])
    return three_outcome_log_loss(yt, proba, sample_weight=wt)


BASELINES = ("constant tie rate, BT on decided votes",
             "constant tie rate, BT with ties as half wins")


def test_davidson_beats_a_constant_tie_rate_out_of_sample(counts):
    folds = vote_folds(counts, 5, seed=0)
    losses = {name: [] for name in ("davidson", "rao-kupper", *BASELINES)}
    for k in range(5):
        train = as_rows(counts.data, folds[np.arange(5) != k].sum(axis=0))
        test = as_rows(counts.data, folds[k])
        for ties in ("davidson", "rao-kupper"):
            est = EloRanker(method="batch", ties=ties).fit(
                train[0], train[1], sample_weight=train[2]
            )
            losses[ties].append(-est.score(test[0], test[1], sample_weight=test[2]))
        for name, decided_only in zip(BASELINES, (True, False), strict=True):
            losses[name].append(
                constant_tie_rate_loss(train, test, decided_only=decided_only)
            )
    mean = {name: float(np.mean(values)) for name, values in losses.items()}
    print("held-out three-outcome log-loss per vote:", mean)
    for name in BASELINES:
        assert mean["davidson"] < mean[name] - 0.001
        for k in range(5):  # in every fold, not only on average
            assert losses["davidson"][k] < losses[name][k]
    # the values measured by the anchor study (1.0586, 1.0584, 1.0645)
    assert mean["davidson"] == pytest.approx(1.0586, abs=0.001)
    assert mean["rao-kupper"] == pytest.approx(1.0584, abs=0.001)
    assert mean[BASELINES[1]] == pytest.approx(1.0645, abs=0.001)
