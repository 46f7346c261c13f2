"""EloRanker's batch fits from a Dask DataFrame of votes (user guide, "More
data than one machine"): counts per distinct row from a groupby on the workers,
then the in-memory fit; equal to the fit on every vote."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from sklearn_eval.pairwise import EloRanker, aggregate_matches, bootstrap_bradley_terry

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.slow


def _votes(seed, n=3_000, n_players=12, ties=0.2, covariate=False):
    """Votes of an arena: Bradley-Terry strengths, a share of ties."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, n_players)
    first = rng.integers(0, n_players, n)
    second = (first + rng.integers(1, n_players, n)) % n_players
    style = rng.integers(0, 3, n).astype(np.float64) if covariate else 0.0
    p = 1.0 / (1.0 + np.exp(-(strength[first] - strength[second] + 0.3 * style)))
    u = rng.random(n)
    y = np.where(u < ties, 0.5, (rng.random(n) < p).astype(np.float64))
    table = pd.DataFrame({"first": [f"m{i:02d}" for i in first],
                          "second": [f"m{i:02d}" for i in second]})
    if covariate:
        table["style"] = style
    table["y"] = y
    return table


@pytest.mark.parametrize("params", [
    {"ties": "half"},
    {"ties": "davidson"},
    {"ties": "rao-kupper", "first_advantage": "fit"},
])
@pytest.mark.parametrize("covariate", [False, True])
def test_batch_fit_on_dask_votes_equals_fit_on_every_vote(dask_client, params,
                                                          covariate):
    if covariate and params["ties"] == "half" and "first_advantage" not in params:
        params = {**params, "first_advantage": "fit"}
    votes = _votes(0, covariate=covariate)
    X, y = votes.drop(columns="y"), votes["y"].to_numpy()
    memory_fit = EloRanker(method="batch", tol=1e-12, **params).fit(X, y)
    frame = dd.from_pandas(votes, npartitions=4, sort=False)
    fit = EloRanker(method="batch", tol=1e-12, **params).fit(
        frame.drop(columns="y"), frame["y"])
    assert_allclose(fit.ratings_, memory_fit.ratings_, rtol=1e-10, atol=1e-8)
    np.testing.assert_array_equal(fit.players_, memory_fit.players_)
    for name in ("covariate_coef_", "tie_param_", "first_advantage_"):
        if hasattr(memory_fit, name):
            assert_allclose(getattr(fit, name), getattr(memory_fit, name),
                            rtol=1e-9, atol=1e-9, err_msg=name)
    # the outcome given as a column name of X
    by_name = EloRanker(method="batch", tol=1e-12, **params).fit(frame, "y")
    assert_allclose(by_name.ratings_, memory_fit.ratings_, rtol=1e-10, atol=1e-8)


def test_weighted_votes_and_counts(dask_client):
    votes = _votes(1)
    weight = np.random.default_rng(2).integers(1, 4, len(votes)).astype(float)
    X, y = votes.drop(columns="y"), votes["y"].to_numpy()
    memory_fit = EloRanker(method="batch", tol=1e-12).fit(X, y, sample_weight=weight)
    frame = dd.from_pandas(votes.assign(w=weight), npartitions=3, sort=False)
    fit = EloRanker(method="batch", tol=1e-12).fit(
        frame[["first", "second"]], frame["y"], sample_weight=frame["w"])
    assert_allclose(fit.ratings_, memory_fit.ratings_, rtol=1e-10, atol=1e-8)
    Xd, yd, counts = aggregate_matches(frame[["first", "second"]], frame["y"],
                                       frame["w"])
    assert counts.sum() == weight.sum()
    assert len(Xd) == len(votes.drop_duplicates(["first", "second", "y"]))


def test_bootstrap_from_the_counts_is_the_bootstrap_of_the_votes(dask_client):
    """Counts with frequency weights resample the same matches (multinomial):
    the intervals from the aggregated counts equal those from every vote."""
    votes = _votes(3, n=1_500)
    X, y = votes.drop(columns="y"), votes["y"].to_numpy()
    frame = dd.from_pandas(votes, npartitions=3)
    Xd, yd, counts = aggregate_matches(frame.drop(columns="y"), frame["y"])
    estimator = EloRanker(method="batch")
    from_counts = bootstrap_bradley_terry(estimator, Xd, yd, counts,
                                          n_resamples=200, random_state=0,
                                          frequency_weights=True)
    ones = np.ones(len(votes))
    from_votes = bootstrap_bradley_terry(estimator, X, y, ones, n_resamples=200,
                                         random_state=0, frequency_weights=True)
    assert_allclose(from_counts.estimate, from_votes.estimate, rtol=1e-9)
    # same distribution of resampled ratings (different draws): widths agree
    widths_counts = from_counts.high - from_counts.low
    widths_votes = from_votes.high - from_votes.low
    assert_allclose(widths_counts, widths_votes, rtol=0.3)


def test_online_elo_says_it_is_sequential(dask_client):
    frame = dd.from_pandas(_votes(4, n=200), npartitions=2)
    with pytest.raises(ValueError, match="one match at a time in match order"):
        EloRanker().fit(frame.drop(columns="y"), frame["y"])


def test_bad_outcome_arguments_are_named(dask_client):
    frame = dd.from_pandas(_votes(5, n=200), npartitions=2)
    with pytest.raises(ValueError, match="names the column 'winner'"):
        EloRanker(method="batch").fit(frame, "winner")
    with pytest.raises(TypeError, match="y must be a Dask Series"):
        EloRanker(method="batch").fit(frame.drop(columns="y"), np.ones(200))


def test_dask_fit_equals_memory_fit_with_an_undefeated_player(dask_client):
    """The vanishing prior is per unit of the votes' weights, so the counts
    aggregated on the workers give the fit on every vote."""
    votes = _votes(2, n=800, n_players=6, ties=0.0)
    undefeated = pd.DataFrame({"first": ["champ"] * 5,
                               "second": [f"m{i:02d}" for i in range(5)],
                               "y": 1.0})
    votes = pd.concat([votes, undefeated], ignore_index=True)
    X, y = votes.drop(columns="y"), votes["y"].to_numpy()
    with pytest.warns(ConvergenceWarning):
        memory_fit = EloRanker(method="batch", tol=1e-12).fit(X, y)
    frame = dd.from_pandas(votes, npartitions=3, sort=False)
    with pytest.warns(ConvergenceWarning):
        fit = EloRanker(method="batch", tol=1e-12).fit(frame.drop(columns="y"),
                                                       frame["y"])
    assert_allclose(fit.ratings_, memory_fit.ratings_, rtol=1e-10, atol=1e-7)
