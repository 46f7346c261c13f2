"""The helpers around the EM engine, each against a direct computation: the
item-fit statistic's rest-of-test posteriors, the block storage of responses
and the starting values."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.special import expit

from sklearn_eval.irt import _responses
from sklearn_eval.irt._estep import _e_step
from sklearn_eval.irt._item_fit import _item_fit
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import (
    _check_fit_responses,
    _column_rate,
    _informative_items,
    _Responses,
)
from sklearn_eval.irt._starts import (
    _initial_items,
    _item_total_correlation,
    _starting_points,
)


def _responses_with_missing(seed, n_agents, n_items, missing=0.2):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    a, b = rng.normal(1.2, 0.4, n_items), rng.normal(0.0, 1.0, n_items)
    values = (rng.random((n_agents, n_items)) < expit(a * (theta[:, None] - b)))
    values = values.astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values, a, b


def _brute_force_item_fit(values, a, b, grid, max_groups=10):
    """Rest-of-test posteriors from an E-step without the item, item by item."""
    n_agents, n_items = values.shape
    n_groups = int(max(2, min(max_groups, n_agents // 5)))
    statistic = np.zeros(n_items)
    for j in range(n_items):
        rest = np.delete(np.arange(n_items), j)
        moments = _e_step(_Responses(values[:, rest]), a[rest], b[rest], grid,
                          counts=False, moments=True)
        # posterior mean of P_j(theta) under the rest-of-test posterior
        p_j = expit(a[j] * (grid.nodes - b[j]))
        posts = []
        for i in range(n_agents):
            log_post = grid.log_weights.copy()
            for k in rest:
                if not np.isnan(values[i, k]):
                    p = expit(a[k] * (grid.nodes - b[k]))
                    log_post += np.log(p if values[i, k] == 1 else 1 - p)
            post = np.exp(log_post - log_post.max())
            posts.append(post / post.sum())
        posts = np.asarray(posts)
        expected = posts @ p_j
        assert_allclose(posts @ grid.nodes, moments["mean"], rtol=1e-10, atol=1e-12)
        seen = np.flatnonzero(~np.isnan(values[:, j]))
        order = seen[np.argsort(moments["mean"][seen], kind="stable")]
        groups = np.arange(order.size) * n_groups // order.size
        for g in range(n_groups):
            members = order[groups == g]
            if members.size == 0:
                continue
            obs = values[members, j].sum()
            exp = expected[members].sum()
            var = (expected[members] * (1 - expected[members])).sum()
            statistic[j] += (obs - exp) ** 2 / var if var > 0 else 0.0
    return statistic, n_groups


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_item_fit_divides_the_item_out_of_the_posterior(seed):
    """Agents with equal rest-of-test posteriors would be split between groups
    by rounding noise, so the data have no two equal rest-of-test patterns."""
    values, a, b = _responses_with_missing(seed, 40, 12)
    for j in range(12):
        rest = np.nan_to_num(np.delete(values, j, axis=1), nan=-1.0)
        assert np.unique(rest, axis=0).shape[0] == 40
    grid = make_grid("rectangular", 61, 6.0)
    statistic, n_groups = _item_fit(values, a, b, grid)
    expected, expected_groups = _brute_force_item_fit(values, a, b, grid)
    assert n_groups == expected_groups == 8
    assert_allclose(statistic, expected, rtol=1e-8)


# ----------------------------------------------------------------- storage
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_agents=st.integers(1, 30),
       n_items=st.integers(1, 8), chunk_size=st.integers(1, 12),
       compact=st.booleans())
def test_blocks_serve_the_responses_back(seed, n_agents, n_items, chunk_size,
                                         compact):
    rng = np.random.default_rng(seed)
    values = (rng.random((n_agents, n_items)) < 0.5).astype(float)
    values[rng.random(values.shape) < 0.3] = np.nan
    keep = rng.random(n_items) < 0.7
    old_limit = _responses._DENSE_LIMIT
    try:
        if compact:
            _responses._DENSE_LIMIT = -1  # uint8 storage
        data = _Responses(values, keep, chunk_size=chunk_size)
    finally:
        _responses._DENSE_LIMIT = old_limit
    kept = values[:, keep]
    observed = ~np.isnan(kept)
    assert data.dense is not compact
    assert data.n_items == kept.shape[1] and data.has_missing == (not observed.all())
    rows_seen = []
    for rows, Y, M in data.blocks():
        assert Y.dtype == np.float64
        assert_allclose(Y, np.where(observed[rows], kept[rows], 0.0))
        if M is None:
            assert observed.all()
        else:
            assert_allclose(M, observed[rows])
        rows_seen.extend(range(n_agents)[rows])
    assert rows_seen == list(range(n_agents))
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.nansum(kept, axis=1) / observed.sum(axis=1)
    assert_allclose(data.success_rate(), rate, equal_nan=True)
    assert_allclose(data.n_observed(), observed.sum(axis=1))


def test_column_summaries_in_row_blocks(monkeypatch):
    values, _, _ = _responses_with_missing(0, 50, 6, missing=0.3)
    values[:, 2] = 1.0
    values[:, 4] = np.nan
    monkeypatch.setattr(_responses, "_BLOCK_ENTRIES", 6 * 7)  # 7 agents a block
    seen = ~np.isnan(values)
    with np.errstate(invalid="ignore"):
        expected_rate = np.nansum(values, axis=0) / seen.sum(axis=0)
    assert_allclose(_column_rate(values), expected_rate, equal_nan=True)
    keep, constant = _informative_items(values)
    assert list(np.flatnonzero(constant)) == [2, 4]
    assert np.array_equal(keep, ~constant)


def test_fit_responses_are_checked_before_any_work():
    frame = pd.DataFrame([[0, 1, 1], [1, 0, 1]], columns=["x", 1, "z"])
    with pytest.raises(TypeError, match="string names"):
        _check_fit_responses(frame)
    values, labels, summary, _ = _check_fit_responses(
        frame.set_axis(["x", "y", "z"], axis=1))
    assert labels.tolist() == ["x", "y", "z"] and values.dtype == np.float64
    # the item counts of the validation are the ones the fit uses
    assert summary.keep.tolist() == [True, True, False]
    assert_allclose(summary.rate, [0.5, 0.5, 1.0])
    assert summary.n_observed == 4.0


# ---------------------------------------------------------- starting values
def test_item_total_correlation_is_pearsons_on_complete_data():
    values, _, _ = _responses_with_missing(1, 200, 7, missing=0.0)
    data = _Responses(values, chunk_size=33)
    total = values.mean(axis=1)
    expected = [np.corrcoef(values[:, j], total)[0, 1] for j in range(7)]
    assert_allclose(_item_total_correlation(data, total), expected, rtol=1e-10)


def test_initial_items_follow_the_marginal_logit_and_correlation():
    values, a_true, b_true = _responses_with_missing(2, 2000, 12, missing=0.1)
    data = _Responses(values)
    a, b, p = _initial_items(data, "2PL")
    rate = np.nanmean(values, axis=0)
    n = (~np.isnan(values)).sum(axis=0)
    assert_allclose(p, (rate * n + 0.5) / (n + 1.0))
    assert np.all(a > 0) and np.all(np.abs(a) <= 2.5)
    assert np.corrcoef(b, b_true)[0, 1] > 0.9  # harder items start harder
    assert np.corrcoef(a, a_true)[0, 1] > 0.5
    ones, _, _ = _initial_items(data, "Rasch")
    assert_allclose(ones, 1.0)


def test_starting_points_are_the_documented_starts():
    values, _, _ = _responses_with_missing(3, 100, 5)
    data = _Responses(values)
    rng = np.random.default_rng(0)
    starts = list(_starting_points(data, "2PL", 4, rng))
    assert len(starts) == 4
    first, second = starts[0], starts[1]
    assert first[2] is None and second[2] == (1.0, 2.0)
    assert_allclose(second[0], 1.0)
    p = _initial_items(data, "2PL")[2]
    assert_allclose(second[1], np.clip(-np.log(p / (1 - p)), -10, 10))
    for a, b, warm_up in starts[2:]:  # jittered copies of the first start
        assert warm_up is None
        assert np.all(np.sign(a) == np.sign(first[0]))
        assert not np.allclose(b, first[1])
