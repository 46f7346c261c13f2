"""Players whose matches all have zero weight: no data, so no estimate.

Regression: such a player got no warning from online Elo and a zero-width
interval, the batch sandwich gave it +-3.4e10 Elo (and blew up everyone
else's intervals with alpha=0), Davidson's sandwich a zero width. The one
treatment (``pairwise/_unplayed.py``, user guide "Ratings from matches"): a
warning naming the players, the initial rating (as an unseen player's), the
other players rated as if the zero-weight matches were absent, and NaN
estimates, intervals and standard errors (rank -1) in every interval path.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_eval.pairwise import (
    EloRanker,
    MultiElo,
    bradley_terry_covariance,
    maximum_likelihood_exists,
)
from sklearn_eval.uncertainty import (
    compare_agents,
    rank_sets,
    ranking_intervals,
    votes_to_separate,
)

BASE_X = [["a", "b"], ["b", "c"], ["c", "a"], ["b", "a"], ["c", "b"], ["a", "c"]] * 3
BASE_Y = [1.0, 1.0, 1.0, 0.0, 0.5, 0.0] * 3


def _with_ghosts(ghosts=("z",), rows=None):
    """The base matches plus zero-weight matches of ``ghosts`` (and weights)."""
    X, y = [list(r) for r in BASE_X], list(BASE_Y)
    # with weight, each ghost would lose all its matches (no finite MLE)
    extra = rows or [["a", g] for g in ghosts] + [["c", g] for g in ghosts]
    w = [1.0] * len(X) + [0.0] * len(extra)
    return X + extra, y + [1.0] * len(extra), np.array(w)


RATERS = {
    "EloRanker(online)": lambda: EloRanker(),
    "EloRanker(online, keep_history)": lambda: EloRanker(keep_history=True),
    "EloRanker(batch)": lambda: EloRanker(method="batch"),
    "EloRanker(batch, alpha)": lambda: EloRanker(method="batch", alpha=0.5),
    "EloRanker(davidson)": lambda: EloRanker(method="batch", ties="davidson"),
    "EloRanker(rao-kupper)": lambda: EloRanker(method="batch", ties="rao-kupper"),
    "EloRanker(first_advantage='fit')": lambda: EloRanker(
        method="batch", first_advantage="fit"),
    "MultiElo(online)": lambda: MultiElo(random_state=0),
    "MultiElo(batch)": lambda: MultiElo(method="batch", random_state=0),
}


def _fit(est, X, y, w):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y, sample_weight=w)
    return est, [str(c.message) for c in caught if c.category is UserWarning]


@pytest.mark.parametrize("name", sorted(RATERS))
def test_fit_warns_naming_them_and_rates_the_others_without_them(name):
    X, y, w = _with_ghosts(("z", "zz"))
    est, messages = _fit(RATERS[name](), X, y, w)
    named = [m for m in messages if "only appear in matches of zero weight" in m]
    assert len(named) == 1 and "'z'" in named[0] and "'zz'" in named[0]
    table = est.agent_table()
    initial = 1500.0
    assert table.loc["z", "score"] == initial and table.loc["zz", "score"] == initial
    # the others as if the zero-weight matches were not there
    keep = w > 0
    alone, _ = _fit(RATERS[name](), [X[k] for k in np.flatnonzero(keep)],
                    np.asarray(y)[keep], w[keep])
    assert_allclose(table.loc[["a", "b", "c"], "score"],
                    alone.agent_table().loc[["a", "b", "c"], "score"],
                    rtol=1e-9, atol=1e-6)
    assert not [m for m in messages if "split into" in m]


def test_no_convergence_warning_for_an_unplayed_player_with_alpha_zero():
    # regression: the player made the others' maximum likelihood "not exist"
    X, y, w = _with_ghosts()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        EloRanker(method="batch").fit(X, y, sample_weight=w)
    assert not [c for c in caught if "split into" in str(c.message)]
    assert maximum_likelihood_exists(X, y, w)
    assert not maximum_likelihood_exists(X, y)  # with weight, 'z' is winless


INTERVALS = {
    "batch analytic": (lambda: EloRanker(method="batch"), {"method": "analytic"}),
    "batch alpha analytic": (lambda: EloRanker(method="batch", alpha=0.5),
                             {"method": "analytic"}),
    "batch bootstrap": (lambda: EloRanker(method="batch"), {"method": "bootstrap"}),
    "batch groups analytic": (lambda: EloRanker(method="batch"),
                              {"method": "analytic", "groups": True}),
    "batch groups bootstrap": (lambda: EloRanker(method="batch"),
                               {"method": "bootstrap", "groups": True}),
    "davidson analytic": (lambda: EloRanker(method="batch", ties="davidson"),
                          {"method": "analytic"}),
    "davidson bootstrap": (lambda: EloRanker(method="batch", ties="davidson"),
                           {"method": "bootstrap"}),
    "davidson groups analytic": (lambda: EloRanker(method="batch", ties="davidson"),
                                 {"method": "analytic", "groups": True}),
    "advantage analytic": (lambda: EloRanker(method="batch", first_advantage="fit"),
                           {"method": "analytic"}),
    "online bootstrap": (lambda: EloRanker(), {}),
    "online keep_history bootstrap": (lambda: EloRanker(keep_history=True), {}),
    "MultiElo online bootstrap": (lambda: MultiElo(random_state=0), {}),
    "MultiElo batch bootstrap": (lambda: MultiElo(method="batch", random_state=0),
                                 {}),
}


def _intervals(case, X, y, w):
    make, options = INTERVALS[case]
    options = dict(options)
    if options.pop("groups", False):
        # pairs of base rows; the zero-weight rows join the last cluster, so
        # the number of clusters (and G / (G - 1)) is that of the base rows
        options["groups"] = np.minimum(np.arange(len(y)) // 2,
                                       len(BASE_Y) // 2 - 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ranking_intervals(make(), X, y, sample_weight=w, n_resamples=30,
                                   random_state=0, **options)
    return result.to_frame(), [str(c.message) for c in caught]


@pytest.mark.parametrize("case", sorted(INTERVALS))
def test_every_interval_path_gives_nan_not_a_number_pretending_certainty(case):
    X, y, w = _with_ghosts(("z", "zz"))
    frame, messages = _intervals(case, X, y, w)
    for ghost in ("z", "zz"):
        row = frame.loc[ghost]
        assert np.isnan(row["estimate"]) and np.isnan(row["low"])
        assert np.isnan(row["high"]) and row["rank"] == -1
    others = frame.loc[["a", "b", "c"]]
    assert np.isfinite(others[["estimate", "low", "high"]].to_numpy()).all()
    assert (others["high"] - others["low"] > 0).all()
    # finite widths of a sensible size (the sandwich gave 1e10 Elo before)
    assert (others["high"] - others["low"] < 5000).all()
    assert any("'z'" in m and "zero weight" in m for m in messages)


@pytest.mark.parametrize("case", [c for c in INTERVALS if "analytic" in c])
def test_analytic_intervals_of_the_others_do_not_see_the_unplayed(case):
    X, y, w = _with_ghosts()
    frame, _ = _intervals(case, X, y, w)
    keep = w > 0
    alone, _ = _intervals(case, [X[k] for k in np.flatnonzero(keep)],
                          np.asarray(y)[keep], w[keep])
    assert_allclose(frame.loc[alone.index, ["estimate", "low", "high"]],
                    alone[["estimate", "low", "high"]], rtol=1e-7, atol=1e-6)


@pytest.mark.parametrize("ties", ["half", "davidson"])
@pytest.mark.parametrize("covariance", ["sandwich", "observed"])
def test_covariance_rows_of_the_unplayed_are_nan(ties, covariance):
    X, y, w = _with_ghosts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = EloRanker(method="batch", ties=ties).fit(X, y, sample_weight=w)
    cov = bradley_terry_covariance(est, X, y, w, covariance=covariance)
    z = est.players_.tolist().index("z")
    assert np.isnan(cov[z]).all() and np.isnan(cov[:, z]).all()
    rest = np.delete(np.delete(cov, z, 0), z, 1)
    assert np.isfinite(rest).all() and (np.diag(rest) > 0).all()


@pytest.mark.parametrize("method", ["analytic", "bootstrap"])
def test_rank_sets_and_comparisons_leave_them_out(method):
    X, y, w = _with_ghosts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sets = rank_sets(EloRanker(method="batch"), X, y, sample_weight=w,
                         method=method, n_resamples=30, random_state=0)
        table = compare_agents(EloRanker(method="batch"), X, y, sample_weight=w,
                               pairs="all")
    frame = sets.to_frame()
    assert frame.loc["z", ["rank", "rank_low", "rank_high", "tier"]].tolist() == [
        -1, -1, -1, -1]
    assert "z" not in set(sets.pairs.agent_a) | set(sets.pairs.agent_b)
    assert "z" not in set(table.agent_a) | set(table.agent_b)
    with pytest.raises(ValueError, match="no match of positive weight"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            votes_to_separate(EloRanker(method="batch"), X, y, "a", "z",
                              sample_weight=w)


def test_partial_fit_names_only_its_own_new_unplayed_players():
    X, y, w = _with_ghosts()
    est, messages = _fit(EloRanker(), X, y, w)
    assert any("'z'" in m for m in messages)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.partial_fit([["z", "a"], ["q", "b"]], [1.0, 1.0], sample_weight=[1, 0])
    texts = [str(c.message) for c in caught if "zero weight" in str(c.message)]
    assert len(texts) == 1 and "'q'" in texts[0] and "'z'" not in texts[0]
    # 'z' has played now: it gets an interval; 'q' has not
    frame, _ = _intervals("online bootstrap", X + [["z", "a"], ["q", "b"]],
                          y + [1.0, 1.0], np.r_[w, 1.0, 0.0])
    assert np.isfinite(frame.loc["z", "low"]) and np.isnan(frame.loc["q", "low"])


_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=list(HealthCheck))


@_SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(RATERS)))
def test_zero_weight_matches_change_nothing_but_add_unrated_players(data, name):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n_ghosts = data.draw(st.integers(1, 3))
    ghosts = [f"g{k}" for k in range(n_ghosts)]
    rows = []
    for _ in range(data.draw(st.integers(n_ghosts, 6))):
        pool = ["a", "b", "c"] + ghosts
        first, second = rng.choice(len(pool), 2, replace=False)
        rows.append([pool[first], pool[second]])
    for g in ghosts:  # every ghost appears at least once
        rows.append([g, "a"])
    X, y, w = _with_ghosts(rows=rows)
    y = np.asarray(y)
    y[len(BASE_Y):] = rng.choice([0.0, 0.5, 1.0], len(rows))
    est, messages = _fit(RATERS[name](), X, y, w)
    table = est.agent_table()
    assert np.isfinite(table["score"]).all()
    assert all(table.loc[g, "score"] == 1500.0 for g in ghosts)
    assert any(all(f"'{g}'" in m for g in ghosts) for m in messages)
    keep = w > 0
    alone, _ = _fit(RATERS[name](), [X[k] for k in np.flatnonzero(keep)],
                    y[keep], w[keep])
    assert_allclose(table.loc[["a", "b", "c"], "score"],
                    alone.agent_table().loc[["a", "b", "c"], "score"],
                    rtol=1e-9, atol=1e-6)
