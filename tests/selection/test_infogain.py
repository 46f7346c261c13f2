"""Tests of the continuous information gain and InfoGainSelector.

Reference values: spec ``information_gain.md`` section 5 (toy cases, computed
independently from the paper's equations) and Table II of Stephenson et al.
(2020), recomputed from the authors' GPL data in ``shared/data/gvgai`` (read
from ``shared_dir`` only, never shipped).
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_eval.selection import (
    InfoGainSelector,
    _kernels,
    choose_n_tasks,
    confusion_matrix,
    discrete_information_gain,
    greedy_select,
    information_gain,
    make_subset_scorer,
    subset_agreement,
    task_clusters,
)
from sklearn_eval.utils.estimator_checks import check_estimator_contract

LOG2 = math.log2


# ----------------------------------------------------------------------------
# Spec section 5: toy cases (exact log space, no offset, no floor)
# ----------------------------------------------------------------------------


def test_t1_two_agents_closed_form():
    C = confusion_matrix([0.0, 2.0], [1.0, 1.0])
    np.testing.assert_allclose(
        C, [[0.6224593312, 0.3775406688], [0.3775406688, 0.6224593312]], atol=1e-10
    )
    q = 1 / (1 + math.exp(0.5))
    closed = 1 + q * LOG2(q) + (1 - q) * LOG2(1 - q)
    assert information_gain([0.0, 2.0], [1.0, 1.0]) == pytest.approx(
        0.0437134606192710, abs=1e-14
    )
    assert closed == pytest.approx(0.0437134606192710, abs=1e-14)


def test_t2_equal_means_unequal_spreads_give_gain():
    C = confusion_matrix([0.0, 0.0], [1.0, 2.0])
    np.testing.assert_allclose(C, [[0.6, 0.4], [4 / 7, 3 / 7]], atol=1e-12)
    assert information_gain([0.0, 0.0], [1.0, 2.0]) == pytest.approx(
        0.0219106347555399, abs=1e-14
    )
    assert information_gain([0.0, 0.0], [0.01, 1.0]) == pytest.approx(
        0.470674002011438, abs=1e-13
    )


def test_t3_three_agents():
    C = confusion_matrix([0.0, 1.0, 2.0], [0.5, 0.5, 0.5])
    row0 = [0.5740969930, 0.3482074279, 0.0776955791]
    np.testing.assert_allclose(C[0], row0, atol=1e-10)
    np.testing.assert_allclose(C[1], [0.2740686191, 0.4518627619, 0.2740686191],
                               atol=1e-10)
    np.testing.assert_allclose(C[2], row0[::-1], atol=1e-10)
    assert information_gain([0, 1, 2], [0.5] * 3) == pytest.approx(
        0.220486070213404, abs=1e-13
    )


@pytest.mark.parametrize("n, sigma", [(2, 0.1), (5, 1.0), (30, 7.5)])
def test_t4_identical_agents_give_zero(n, sigma):
    C = confusion_matrix(np.full(n, 3.0), np.full(n, sigma))
    np.testing.assert_allclose(C, np.full((n, n), 1 / n), atol=1e-15)
    assert information_gain(np.full(n, 3.0), np.full(n, sigma)) == pytest.approx(
        0.0, abs=1e-12
    )


def test_t5_well_separated_agents_reach_log2_n():
    means = [0.0, 1.0, 2.0, 3.0]
    assert information_gain(means, [1e-3] * 4) == pytest.approx(2.0, abs=1e-12)
    assert information_gain(means, [0.1] * 4) == pytest.approx(
        1.99989112806415, abs=1e-13
    )


def test_t6_same_task_twice_equals_spread_over_sqrt2():
    mu = np.array([0.0, 1.0, 3.0])
    single = information_gain(mu, np.full(3, 0.8))
    twice = information_gain(np.column_stack([mu, mu]), np.full((3, 2), 0.8))
    assert single == pytest.approx(0.205358194918900, abs=1e-13)
    assert twice == pytest.approx(0.497151209122120, abs=1e-13)
    assert twice == pytest.approx(information_gain(mu, np.full(3, 0.8 / 2**0.5)),
                                  abs=1e-13)


def test_t6b_identity_needs_equal_spreads():
    mu = np.array([0.0, 1.0, 3.0])
    sd = np.array([0.5, 0.8, 1.2])
    twice = information_gain(np.column_stack([mu, mu]), np.column_stack([sd, sd]))
    assert twice == pytest.approx(0.430025352140463, abs=1e-13)
    assert information_gain(mu, sd / 2**0.5) == pytest.approx(0.407776121759210,
                                                             abs=1e-13)


def test_t7_two_complementary_tasks():
    g1, g2 = [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]
    sd = np.full(3, 0.25)
    assert information_gain(g1, sd) == pytest.approx(0.413332648303319, abs=1e-13)
    assert information_gain(g2, sd) == pytest.approx(0.413332648303319, abs=1e-13)
    both = information_gain(np.column_stack([g1, g2]), np.column_stack([sd, sd]))
    assert both == pytest.approx(0.840682106685772, abs=1e-13)


T8_MU = np.array([0.2, 1.5, -0.7, 3.0])
T8_SD = np.array([0.4, 0.9, 0.3, 1.1])


def test_t8_affine_invariance():
    expected = 0.432546684623730
    assert information_gain(T8_MU, T8_SD) == pytest.approx(expected, abs=1e-13)
    assert information_gain(10 * T8_MU - 5, 10 * T8_SD) == pytest.approx(
        expected, abs=1e-13
    )
    assert information_gain(-T8_MU, T8_SD) == pytest.approx(expected, abs=1e-13)


def test_t9_constant_task_adds_nothing():
    means = np.column_stack([T8_MU, np.ones(4)])
    stds = np.column_stack([T8_SD, np.full(4, 0.3)])
    assert information_gain(means, stds) == pytest.approx(0.432546684623730,
                                                          abs=1e-13)


T10 = np.array(
    [[0, 0, 0, 0], [0, 0, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]], dtype=float
)  # columns t1, t2 (= t1), t3, t4


def test_t10_single_pair_and_greedy_values():
    sd = np.full((4, 4), 0.1)
    singles = [information_gain(T10[:, j], sd[:, j]) for j in range(4)]
    np.testing.assert_allclose(
        singles, [0.999927418535787] * 3 + [0.811205543342206], atol=1e-13
    )
    assert singles[3] == pytest.approx(2 - 0.75 * LOG2(3), abs=1e-3)
    pairs = {(0, 1): 0.999999999479062, (0, 2): 1.999854837071573,
             (0, 3): 1.499909273137171}
    for (a, b), value in pairs.items():
        got = information_gain(T10[:, [a, b]], sd[:, [a, b]])
        assert got == pytest.approx(value, abs=1e-12)
    order, cumulative = greedy_select(T10, sd, 2)
    assert order.tolist() == [0, 2]  # t1 and t3 tie to rounding: lowest index
    np.testing.assert_allclose(cumulative, [0.99992741853579, 1.99985483707157],
                               atol=1e-12)


def test_t10b_ties_go_to_lowest_index():
    means = T10[:, [0, 0, 3]]
    order, _ = greedy_select(means, np.full(means.shape, 0.1), 1)
    assert order.tolist() == [0]
    # the duplicate placed first wins too: tie-breaking is by position
    order, _ = greedy_select(T10[:, [3, 1, 0]], np.full((4, 3), 0.1), 1)
    assert order.tolist() == [1]
    selector = InfoGainSelector(n_tasks=1, input="agents", std_offset=0.0)
    selector.fit(means, X_std=np.full(means.shape, 0.1))
    assert selector.selection_order_.tolist() == [0]
    assert selector.get_support().tolist() == [True, False, False]


def test_t11_diagonal_need_not_be_the_row_maximum():
    C = confusion_matrix([0.0, 0.1], [1.0, 0.1])
    np.testing.assert_allclose(C[0], [0.3557852604, 0.6442147396], atol=1e-10)
    assert C[0, 1] > C[0, 0]


def test_t12_adding_a_task_can_lower_the_gain():
    a_mu, a_sd = [0.8, 0.7], [0.9, 0.1]
    b_mu, b_sd = [0.7, 0.7], [0.3, 1.0]
    ig_a = information_gain(a_mu, a_sd)
    ig_b = information_gain(b_mu, b_sd)
    ig_ab = information_gain(np.column_stack([a_mu, b_mu]),
                             np.column_stack([a_sd, b_sd]))
    assert ig_a == pytest.approx(0.205166933627372, abs=1e-13)
    assert ig_b == pytest.approx(0.066480731177421, abs=1e-13)
    assert ig_ab == pytest.approx(0.110456374696401, abs=1e-13)
    assert ig_ab < ig_a
    # auto stopping sees the drop and keeps A alone
    means = np.column_stack([a_mu, b_mu])
    order, cumulative = greedy_select(means, np.column_stack([a_sd, b_sd]), "auto")
    assert order.tolist() == [0]
    np.testing.assert_allclose(cumulative, [ig_a])


def test_t13_super_additive_pair():
    twice = information_gain(np.zeros((2, 2)), np.array([[1.0, 1.0], [2.0, 2.0]]))
    assert twice == pytest.approx(0.0834125852625081, abs=1e-13)
    assert twice > 2 * 0.0219106347555399


@pytest.mark.parametrize(
    "means, expected",
    [
        ([0.49, 0.50], 1.0),
        ([0.1, 0.1, 0.9, 0.9], 1.0),
        ([0.1, 0.2, 0.3, 0.4], 2.0),
        (np.column_stack([[0.1, 0.1, 0.9, 0.9], [0.1, 0.9, 0.1, 0.9]]), 2.0),
        ([0.5, 0.5, 0.5], 0.0),
        ([0.1, 0.1, 0.1, 0.9], 2 - 0.75 * LOG2(3)),
    ],
)
def test_discrete_cases(means, expected):
    assert discrete_information_gain(means) == pytest.approx(expected, abs=1e-12)


def test_discrete_bin_width_and_greedy():
    assert discrete_information_gain([0.12, 0.14], bin_width=0.1) == 0.0
    means = np.column_stack([[0.1, 0.1, 0.9, 0.9], [0.1, 0.1, 0.9, 0.9],
                             [0.1, 0.9, 0.1, 0.9]])
    order, cumulative = greedy_select(means, None, 2, method="discrete")
    assert order.tolist() == [0, 2]
    np.testing.assert_allclose(cumulative, [1.0, 2.0])


def test_discrete_selector_runs_with_single_runs():
    X = np.array([[0.1, 0.5], [0.1, 0.6], [0.9, 0.5], [0.9, 0.7]])
    selector = InfoGainSelector(n_tasks=1, method="discrete").fit(X, [0, 1, 2, 3])
    # column 1 bins (0.5, 0.6, 0.5, 0.7) give 3 cells: 2 - 0.5 = 1.5 bits
    np.testing.assert_allclose(selector.information_gain_, [1.0, 1.5])
    assert selector.selection_order_.tolist() == [1]
    np.testing.assert_allclose(selector.confusion_matrix_.sum(axis=1), 1.0)


def test_prob_floor_only_counts_underflowed_entries():
    means = np.array([0.0, 1.0, 100.0])
    sd = np.full(3, 0.1)
    exact = information_gain(means, sd)
    floored = information_gain(means, sd, prob_floor=1e-5)
    C = confusion_matrix(means, sd)
    n_zero = int((C == 0).sum())
    assert n_zero > 0
    expected = exact - n_zero * (-1e-5 * LOG2(1e-5)) / 3
    assert floored == pytest.approx(expected, abs=1e-12)
    Cf = confusion_matrix(means, sd, prob_floor=1e-5)
    assert (Cf[C == 0] == 1e-5).all()
    np.testing.assert_array_equal(Cf[C > 0], C[C > 0])
    # no underflow: the floor changes nothing
    assert information_gain([0, 1], [1, 1], prob_floor=1e-5) == information_gain(
        [0, 1], [1, 1]
    )


def test_pooled_pair_spread_uses_root_sum_of_squares():
    # pooled s = sqrt(2) sigma equals sum_std with sigma / sqrt(2)
    mu = [0.0, 1.0, 3.0]
    assert information_gain(mu, [0.8] * 3, pair_spread="pooled") == pytest.approx(
        information_gain(mu, [0.8 * 2**0.5 / 2] * 3), abs=1e-13
    )


def test_scale_is_a_deprecated_alias_of_pair_spread():
    mu, sd = [0.0, 1.0, 3.0], [0.8] * 3
    with pytest.warns(FutureWarning, match="pair_spread"):
        old = information_gain(mu, sd, scale="pooled")
    assert old == information_gain(mu, sd, pair_spread="pooled")
    X = np.array([[0.0, 1.0], [1.0, 0.2], [2.0, 0.1]])
    new = InfoGainSelector(n_tasks=1, input="agents", pair_spread="pooled").fit(X)
    with pytest.warns(FutureWarning, match="pair_spread"):
        renamed = InfoGainSelector(n_tasks=1, input="agents", scale="pooled").fit(X)
    np.testing.assert_array_equal(renamed.information_gain_, new.information_gain_)


def test_classes_is_a_deprecated_alias_of_agents():
    X = np.array([[0.0, 1.0], [1.0, 0.2], [2.0, 0.1]])
    selector = InfoGainSelector(n_tasks=1, input="agents").fit(X)
    with pytest.warns(FutureWarning, match="agents_"):
        np.testing.assert_array_equal(selector.classes_, selector.agents_)


def test_task_table_lists_gain_and_selection_order():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(6, 4)) * [3.0, 0.1, 1.0, 0.5],
                     columns=["a", "b", "c", "d"])
    selector = InfoGainSelector(n_tasks=2, input="agents").fit(X)
    table = selector.task_table()
    assert table.index.name == "task" and table.index.tolist() == list("abcd")
    np.testing.assert_array_equal(table["information_gain"],
                                  selector.information_gain_)
    assert table["selected"].sum() == 2
    first, second = selector.selection_order_
    assert table["selection_order"].iloc[first] == 1
    assert table["selection_order"].iloc[second] == 2
    assert table["cumulative_gain"].iloc[second] == selector.cumulative_gain_[-1]
    assert table["cumulative_gain"].isna().sum() == 2


# ----------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
spread = st.floats(0.01, 20, allow_nan=False, allow_infinity=False)


@st.composite
def summaries(draw, max_agents=7, max_columns=4):
    n = draw(st.integers(2, max_agents))
    m = draw(st.integers(1, max_columns))
    means = draw(arrays(np.float64, (n, m), elements=finite))
    stds = draw(arrays(np.float64, (n, m), elements=spread))
    return means, stds


@settings(max_examples=60, deadline=None)
@given(summaries(), st.sampled_from([None, 1e-5]))
def test_property_bounds_and_rows(data, floor):
    means, stds = data
    n = means.shape[0]
    gain = information_gain(means, stds, prob_floor=floor)
    assert 0.0 <= gain <= LOG2(n) + 1e-12
    C = confusion_matrix(means, stds)
    np.testing.assert_allclose(C.sum(axis=1), 1.0, atol=1e-12)
    kernel = _kernels.set_log_kernel(means, stds, "sum_std")
    np.testing.assert_array_equal(kernel, kernel.T)


@settings(max_examples=60, deadline=None)
@given(summaries(), st.randoms(use_true_random=False))
def test_property_permutation_invariance(data, rnd):
    means, stds = data
    agents = list(range(means.shape[0]))
    columns = list(range(means.shape[1]))
    rnd.shuffle(agents)
    rnd.shuffle(columns)
    base = information_gain(means, stds)
    permuted = information_gain(means[agents][:, columns], stds[agents][:, columns])
    assert permuted == pytest.approx(base, abs=1e-10)


@settings(max_examples=60, deadline=None)
@given(summaries(max_columns=1), st.floats(0.01, 100), st.floats(-100, 100),
       st.booleans())
def test_property_affine_invariance(data, scale, shift, flip):
    means, stds = data
    sign = -1.0 if flip else 1.0
    base = information_gain(means, stds)
    moved = information_gain(sign * scale * means + shift, scale * stds)
    assert moved == pytest.approx(base, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(summaries(max_columns=5))
def test_property_greedy_k1_is_argmax_and_support_size(data):
    means, stds = data
    singles = [information_gain(means[:, j], stds[:, j]) for j in range(means.shape[1])]
    order, cumulative = greedy_select(means, stds, 1)
    assert cumulative[0] == pytest.approx(max(singles), abs=1e-12)
    assert singles[order[0]] >= max(singles) - 1e-12
    k = means.shape[1]
    selector = InfoGainSelector(n_tasks=k, input="agents", std_offset=0.0)
    selector.fit(means, X_std=stds)
    assert selector.get_support().sum() == k
    assert sorted(selector.selection_order_.tolist()) == list(range(k))
    for size, value in enumerate(selector.cumulative_gain_, start=1):
        chosen = selector.selection_order_[:size]
        assert value == pytest.approx(
            information_gain(means[:, chosen], stds[:, chosen]), abs=1e-10
        )


# ----------------------------------------------------------------------------
# The estimator
# ----------------------------------------------------------------------------


def _runs(random_state=0, n_agents=6, n_runs=25):
    """Run-level data: task 0 separates all agents, task 1 is noise,
    task 2 separates two groups, task 3 repeats task 2."""
    rng = np.random.default_rng(random_state)
    agents = np.repeat([f"agent{k}" for k in range(n_agents)], n_runs)
    skill = np.repeat(np.arange(n_agents, dtype=float), n_runs)
    group = (skill >= n_agents / 2).astype(float)
    X = np.column_stack([
        skill + rng.normal(0, 0.3, skill.size),
        rng.normal(0, 1.0, skill.size),
        3 * group + rng.normal(0, 0.3, skill.size),
        3 * group + rng.normal(0, 0.3, skill.size),
    ])
    return X, agents


def test_run_statistics_match_numpy():
    X, agents = _runs()
    X[3, 1] = np.nan  # one missing run
    selector = InfoGainSelector(n_tasks=2).fit(X, agents)
    assert selector.agents_.tolist() == sorted(set(agents))
    for k, agent in enumerate(selector.agents_):
        rows = X[agents == agent]
        np.testing.assert_allclose(selector.means_[k], np.nanmean(rows, axis=0))
        np.testing.assert_allclose(selector.stds_[k], np.nanstd(rows, axis=0) + 1e-3)
        np.testing.assert_array_equal(selector.n_runs_[k], (~np.isnan(rows)).sum(0))


def test_runs_and_agents_forms_agree():
    X, agents = _runs()
    by_runs = InfoGainSelector(n_tasks=3).fit(X, agents)
    by_agents = InfoGainSelector(n_tasks=3, input="agents").fit(
        by_runs.means_, X_std=by_runs.stds_ - 1e-3
    )
    np.testing.assert_array_equal(by_runs.selection_order_,
                                  by_agents.selection_order_)
    np.testing.assert_allclose(by_runs.cumulative_gain_, by_agents.cumulative_gain_,
                               rtol=1e-12)
    np.testing.assert_allclose(by_runs.information_gain_,
                               by_agents.information_gain_, rtol=1e-12)


def test_selector_picks_informative_then_complementary():
    X, agents = _runs()
    selector = InfoGainSelector(n_tasks=2).fit(X, agents)
    assert selector.selection_order_[0] == 0
    assert selector.information_gain_[1] < 0.5  # the noise task
    assert selector.max_information_ == pytest.approx(LOG2(6))
    assert selector.cumulative_gain_[0] == pytest.approx(
        selector.information_gain_.max()
    )
    np.testing.assert_allclose(selector.scores_, selector.information_gain_)
    assert selector.get_support().sum() == 2
    assert selector.transform(X).shape == (X.shape[0], 2)
    np.testing.assert_array_equal(selector.transform(X), X[:, selector.support_])
    assert selector.information_fraction_ == pytest.approx(
        selector.cumulative_gain_[-1] / LOG2(6)
    )
    np.testing.assert_allclose(selector.confusion_matrix_.sum(axis=1), 1.0)


def test_dataframe_names_and_pandas_output():
    X, agents = _runs()
    frame = pd.DataFrame(X, columns=["skill", "noise", "group", "group_copy"])
    selector = InfoGainSelector(n_tasks=2).fit(frame, agents)
    names = selector.get_feature_names_out()
    assert names.tolist() == frame.columns[selector.support_].tolist()
    assert selector.tasks_.tolist() == frame.columns.tolist()
    selector.set_output(transform="pandas")
    out = selector.transform(frame)
    assert out.columns.tolist() == names.tolist()
    # agent-level frame: classes_ are the index
    means = frame.groupby(agents).mean()
    stds = frame.groupby(agents).std(ddof=0)
    by_agents = InfoGainSelector(n_tasks=2, input="agents").fit(means, X_std=stds)
    assert by_agents.agents_.tolist() == means.index.tolist()
    np.testing.assert_array_equal(by_agents.support_, selector.support_)


def test_groups_select_whole_tasks():
    X, agents = _runs()
    # two measures per task: tasks "a" = columns 0, 1; "b" = columns 2, 3
    selector = InfoGainSelector(n_tasks=1, groups=["a", "a", "b", "b"]).fit(X, agents)
    assert selector.tasks_.tolist() == ["a", "b"]
    assert selector.get_support().tolist() == [True, True, False, False]
    assert selector.information_gain_.shape == (2,)
    expected = information_gain(selector.means_[:, :2], selector.stds_[:, :2])
    assert selector.information_gain_[0] == pytest.approx(expected, abs=1e-12)
    np.testing.assert_allclose(selector.scores_,
                               selector.information_gain_[[0, 0, 1, 1]])
    # non-contiguous groups: labels keep their first-appearance order
    selector = InfoGainSelector(n_tasks=2, groups=["b", "a", "b", "a"]).fit(X, agents)
    assert selector.tasks_.tolist() == ["b", "a"]
    assert selector.get_support().all()


def test_n_tasks_fraction_and_auto():
    X, agents = _runs()
    assert InfoGainSelector(n_tasks=0.5).fit(X, agents).get_support().sum() == 2
    assert InfoGainSelector(n_tasks=0.1).fit(X, agents).get_support().sum() == 1
    auto = InfoGainSelector(n_tasks="auto").fit(X, agents)
    assert np.all(np.diff(auto.cumulative_gain_) > 0)
    full = InfoGainSelector(n_tasks=4).fit(X, agents)
    k = len(auto.selection_order_)
    np.testing.assert_array_equal(full.selection_order_[:k], auto.selection_order_)
    if k < 4:
        assert full.cumulative_gain_[k] <= auto.cumulative_gain_[-1]
    strict = InfoGainSelector(n_tasks="auto", min_gain=10.0).fit(X, agents)
    assert len(strict.selection_order_) == 1
    # the former name of the gain threshold still works, with a FutureWarning
    with pytest.warns(FutureWarning, match="min_gain"):
        renamed = InfoGainSelector(n_tasks="auto", tol=10.0).fit(X, agents)
    np.testing.assert_array_equal(renamed.selection_order_, strict.selection_order_)
    loose = InfoGainSelector(n_tasks="auto", min_gain=-np.inf)
    with pytest.raises(ValueError, match="min_gain"):
        loose.fit(X, agents)


def test_zero_spread_is_valid_with_the_offset():
    means = np.column_stack([T8_MU, np.ones(4)])
    stds = np.column_stack([T8_SD, np.zeros(4)])  # the constant task has no spread
    selector = InfoGainSelector(n_tasks=1, input="agents", groups=[0, 0])
    selector.fit(means, X_std=stds)
    expected = information_gain(T8_MU, T8_SD + 1e-3)
    assert selector.information_gain_[0] == pytest.approx(expected, abs=1e-12)
    # means without spreads: only the offset
    selector = InfoGainSelector(n_tasks=1, input="agents").fit(means)
    np.testing.assert_allclose(selector.stds_, 1e-3)
    assert selector.information_gain_[1] == 0.0
    assert selector.information_gain_[0] == pytest.approx(2.0, abs=1e-9)
    with pytest.raises(ValueError, match="spread of agent 0 on column 1 is 0"):
        InfoGainSelector(n_tasks=1, input="agents", std_offset=0).fit(
            means, X_std=stds
        )


@pytest.mark.parametrize(
    "kwargs, X, y, X_std, match",
    [
        ({}, [[0.0], [1.0]], ["a", "a"], None, "at least 2 agents"),
        ({"input": "agents"}, [[0.0, 1.0]], None, None, "at least 2 agents"),
        ({}, [[0.0], [1.0], [2.0]], [0.0, np.nan, 1.0], None, "missing agent label"),
        ({}, [[0.0], [1.0], [2.0]], ["a", None, "b"], None, "missing agent label"),
        ({}, [[0.0], [1.0], [2.0], [3.0]], ["a", "a", "b", "c"], None,
         "single run"),
        ({}, [[0.0]] * 4, ["a", "a", "b", "b"], None, None),  # valid
        ({"n_tasks": 3}, [[0.0, 1.0]] * 4, ["a", "a", "b", "b"], None,
         "larger than the number of tasks"),
        ({}, [[0.0, np.nan], [1.0, np.nan], [2.0, 1.0], [3.0, 1.0]],
         ["a", "a", "b", "b"], None, "no run"),
        ({}, [[0.0], [1.0]], None, None, "requires y to be passed"),
        ({}, [[0.0], [1.0]], ["a", "b", "c"], None, "3 labels but X has 2"),
        ({"input": "agents"}, [[0.0], [1.0]], None, [[1.0, 1.0], [1.0, 1.0]],
         "same shape"),
        ({"input": "agents"}, [[0.0], [1.0]], None, [[1.0], [-1.0]], ">= 0"),
        ({"input": "agents"}, [[0.0], [np.nan]], None, None, "NaN"),
        ({"input": "agents"}, [[0.0], [1.0]], None, [[1.0], [np.nan]], "NaN"),
        ({"groups": [0, 1, 2]}, [[0.0, 1.0]] * 4, ["a", "a", "b", "b"], None,
         "one task label per column"),
        ({}, [[0.0], [1.0], [2.0], [3.0]], ["a", "a", "b", "b"], [[1.0], [1.0]],
         "only used with input='agents'"),
    ],
)
def test_bad_input_errors(kwargs, X, y, X_std, match):
    selector = InfoGainSelector(**{"n_tasks": 1, **kwargs})
    fit_kwargs = {} if X_std is None else {"X_std": X_std}
    if match is None:
        selector.fit(np.asarray(X), y, **fit_kwargs)
        return
    with pytest.raises(ValueError, match=match):
        selector.fit(np.asarray(X), y, **fit_kwargs)


def test_bad_parameters():
    X, agents = _runs()
    for params in ({"n_tasks": 0}, {"n_tasks": 1.5}, {"n_tasks": "all"},
                   {"input": "matrix"}, {"prob_floor": 0.0}, {"std_offset": -1},
                   {"scale": "max"}, {"method": "binned"}):
        with pytest.raises(ValueError):
            InfoGainSelector(**params).fit(X, agents)
    with pytest.raises(ValueError, match="n_tasks"):
        greedy_select(T10, np.ones((4, 4)), 5)
    with pytest.raises(ValueError, match="spread"):
        information_gain([0.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="finite"):
        information_gain([0.0, np.inf], [1.0, 1.0])
    with pytest.raises(ValueError, match=">= 0"):
        confusion_matrix([0.0, 1.0], [1.0, -1.0])


def test_failed_fit_keeps_state():
    X, agents = _runs()
    selector = InfoGainSelector(n_tasks=2).fit(X, agents)
    before = (selector.selection_order_.copy(), selector.n_features_in_)
    with pytest.raises(ValueError):
        selector.fit(X[:, :1], np.where(agents == "agent0", np.nan, 1.0))
    with pytest.raises(ValueError):
        selector.set_params(n_tasks=9).fit(X, agents)
    np.testing.assert_array_equal(selector.selection_order_, before[0])
    assert selector.n_features_in_ == before[1]


def test_unfitted_and_pipeline():
    X, agents = _runs()
    with pytest.raises(NotFittedError):
        InfoGainSelector().transform(X)
    pipe = make_pipeline(InfoGainSelector(n_tasks=2), StandardScaler())
    assert pipe.fit_transform(X, agents).shape == (X.shape[0], 2)


def test_project_contract_runs_and_agents():
    X, agents = _runs()
    check_estimator_contract(InfoGainSelector(n_tasks=2), X, agents)
    selector = InfoGainSelector(n_tasks=2).fit(X, agents)
    check_estimator_contract(
        InfoGainSelector(n_tasks=2, input="agents"),
        selector.means_,
        fit_params={"X_std": selector.stds_},
    )


@parametrize_with_checks(
    [
        InfoGainSelector(n_tasks=1, input="agents"),
        InfoGainSelector(n_tasks=0.5, input="agents", std_offset=0.5),
        InfoGainSelector(n_tasks="auto", input="agents", method="discrete"),
        # run-level form: the generated y has several runs per class
        InfoGainSelector(n_tasks=1),
        InfoGainSelector(n_tasks=0.5, method="discrete", groups=None),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("floor", [None, 1e-5])
def test_cache_strategies_agree(monkeypatch, floor):
    rng = np.random.default_rng(3)
    means = rng.normal(size=(12, 30))
    stds = rng.uniform(0.05, 1.0, size=(12, 30))
    groups = np.repeat(np.arange(15), 2)
    bank = _kernels.KernelBank(means, stds, groups, 15, "sum_std", floor)
    assert bank.strategy == ("product" if floor is None else "log")
    cached = greedy_select(means, stds, 6, groups=groups, prob_floor=floor)
    # log-space cache (the product form needs twice the memory)
    monkeypatch.setattr(_kernels, "_CACHE_BYTES", 15 * 12 * 12 * 8)
    bank = _kernels.KernelBank(means, stds, groups, 15, "sum_std", floor)
    assert bank.strategy == "log"
    logged = greedy_select(means, stds, 6, groups=groups, prob_floor=floor)
    # no cache, small blocks
    monkeypatch.setattr(_kernels, "_CACHE_BYTES", 0)
    monkeypatch.setattr(_kernels, "_BLOCK_ELEMENTS", 4 * 12 * 12)
    assert _kernels.KernelBank(means, stds, groups, 15, "sum_std").strategy == (
        "blocked"
    )
    blocked = greedy_select(means, stds, 6, groups=groups, prob_floor=floor)
    for other in (logged, blocked):
        np.testing.assert_array_equal(cached[0], other[0])
        np.testing.assert_allclose(cached[1], other[1], rtol=1e-12, atol=1e-13)


def test_product_form_falls_back_when_products_underflow(monkeypatch):
    rng = np.random.default_rng(5)
    means = rng.normal(size=(8, 10))
    stds = rng.uniform(0.1, 1.0, size=(8, 10))
    expected = greedy_select(means, stds, 4)
    monkeypatch.setattr(_kernels, "_TINY_NORM", np.inf)  # always fall back
    fallback = greedy_select(means, stds, 4)
    np.testing.assert_array_equal(expected[0], fallback[0])
    np.testing.assert_allclose(expected[1], fallback[1], rtol=1e-12)


# ----------------------------------------------------------------------------
# GVGAI: Table II of the paper (GPL data, read from the shared directory)
# ----------------------------------------------------------------------------

TABLE_II_WIN = {
    "freeway": 1.17484168, "labyrinth": 1.10088062, "tercio": 1.10018133,
    "labyrinthdual": 1.08531707, "iceandfire": 1.07275305, "chopper": 1.06542656,
    "doorkoban": 0.98911214, "hungrybirds": 0.91886839, "watergame": 0.89206793,
    "escape": 0.87721725,
}
TABLE_II_SCORE = {
    "invest": 1.62405816, "intersection": 1.13955416, "freeway": 1.13619392,
    "tercio": 1.10018133, "watergame": 0.89206793, "cops": 0.88658183,
    "flower": 0.86746818, "waitforbreakfast": 0.80128373, "labyrinth": 0.78021437,
    "realportals": 0.73246317,
}
TABLE_II_COMBINED = {
    "freeway": 1.89430152, "invest": 1.62405816, "intersection": 1.59362941,
    "chopper": 1.48524965, "tercio": 1.44693431, "labyrinthdual": 1.42090667,
    "iceandfire": 1.32455879, "hungrybirds": 1.32100004,
    "waitforbreakfast": 1.28983481, "doorkoban": 1.28593860,
}
TABLE_II_TOP10 = [
    ("freeway", 1.89430152), ("invest", 3.08236771), ("labyrinthdual", 3.81992620),
    ("tercio", 4.22563462), ("sistersavior", 4.40856274),
    ("avoidgeorge", 4.54036694), ("escape", 4.60252506), ("whackamole", 4.64444512),
    ("chopper", 4.67138328), ("watergame", 4.68457480),
]


@pytest.fixture(scope="module")
def gvgai(request):
    shared = request.getfixturevalue("shared_dir")
    path = shared / "data" / "gvgai" / "stephenson2020_Combined_raw_data.csv"
    if not path.exists():
        pytest.skip(f"{path} not found")
    raw = np.genfromtxt(path, delimiter=",", dtype=None, encoding="utf-8",
                        autostrip=True)
    agent = np.array([row[0] for row in raw])
    game = np.array([row[1] for row in raw])
    numbers = np.array([list(row)[2:] for row in raw], dtype=float)
    agents, games = np.unique(agent), np.unique(game)
    a_idx = np.searchsorted(agents, agent)
    g_idx = np.searchsorted(games, game)

    def table(column):
        out = np.full((len(agents), len(games)), np.nan)
        out[a_idx, g_idx] = numbers[:, column]
        return out

    data = {
        "agents": agents, "games": games, "n": table(0), "win": table(1),
        "score": table(2), "win_std": table(4), "score_std": table(5),
    }
    assert not np.isnan(data["win"]).any()
    return data


def _combined(gvgai):
    games = gvgai["games"]
    n_games = len(games)
    means = np.empty((len(gvgai["agents"]), 2 * n_games))
    stds = np.empty_like(means)
    means[:, 0::2], means[:, 1::2] = gvgai["win"], gvgai["score"]
    stds[:, 0::2], stds[:, 1::2] = gvgai["win_std"], gvgai["score_std"]
    return means, stds, np.repeat(games, 2)


def _paper_selector(**kwargs):
    # the CSV already holds std + 0.001: no further offset
    return InfoGainSelector(input="agents", std_offset=0.0, prob_floor=1e-5,
                            **kwargs)


def test_gvgai_data_totals(gvgai):
    assert gvgai["win"].shape == (27, 108)
    assert gvgai["n"].sum() == 3_990_760


@pytest.mark.parametrize(
    "measure, table",
    [("win", TABLE_II_WIN), ("score", TABLE_II_SCORE)],
)
def test_table2_single_measure_columns(gvgai, measure, table):
    selector = _paper_selector(n_tasks=1).fit(
        gvgai[measure], X_std=gvgai[f"{measure}_std"]
    )
    gains = selector.information_gain_
    top = np.argsort(-gains, kind="stable")[:10]
    assert [gvgai["games"][g] for g in top] == list(table)
    np.testing.assert_allclose(gains[top], list(table.values()), atol=1e-7)


def test_table2_combined_column_and_top10(gvgai):
    means, stds, groups = _combined(gvgai)
    selector = _paper_selector(n_tasks=12, groups=groups).fit(means, X_std=stds)
    games = selector.tasks_
    gains = selector.information_gain_
    top = np.argsort(-gains, kind="stable")[:10]
    assert games[top].tolist() == list(TABLE_II_COMBINED)
    np.testing.assert_allclose(gains[top], list(TABLE_II_COMBINED.values()),
                               atol=1e-7)
    order = games[selector.selection_order_].tolist()
    assert order[:10] == [name for name, _ in TABLE_II_TOP10]
    np.testing.assert_allclose(selector.cumulative_gain_[:10],
                               [value for _, value in TABLE_II_TOP10], atol=1e-7)
    # Stephenson et al. (2020), V-C: extending the greedy past the paper's 10 games
    assert order[10:] == ["donkeykong", "vortex"]
    np.testing.assert_allclose(selector.cumulative_gain_[10:],
                               [4.69650154, 4.70459512], atol=1e-7)
    # narrative facts: invest's win rate adds nothing; intersection not chosen
    invest = np.flatnonzero(games == "invest")[0]
    win_only = _paper_selector(n_tasks=1).fit(gvgai["win"], X_std=gvgai["win_std"])
    assert win_only.information_gain_[invest] == pytest.approx(0.0, abs=1e-14)
    assert gains[invest] == pytest.approx(1.62405816, abs=1e-7)
    assert "intersection" not in order[:10]
    assert selector.cumulative_gain_[0] == pytest.approx(1.89430152, abs=1e-7)
    assert selector.max_information_ == pytest.approx(4.754887502, abs=1e-9)


def test_table2_spec_fixture_all_19_games(gvgai):
    expected = {  # Stephenson et al. (2020), V-C: win, score, combined
        "labyrinth": (1.10088063, 0.78021437, 1.27727576),
        "watergame": (0.89206794, 0.89206794, 1.19372804),
        "escape": (0.87721725, 0.72528011, 1.22655041),
        "cops": (0.76142633, 0.88658184, 1.25336748),
        "flower": (0.0, 0.86746818, 0.86746818),
        "realportals": (0.31025328, 0.73246318, 0.95992854),
        "sistersavior": (0.38873281, 0.72942295, 1.04693935),
        "avoidgeorge": (0.68320426, 0.46417896, 1.00759159),
        "whackamole": (0.60096813, 0.05954999, 0.69323257),
    }
    games = gvgai["games"].tolist()
    for name, (win, score, both) in expected.items():
        g = games.index(name)
        ws, ss = gvgai["win_std"][:, g], gvgai["score_std"][:, g]
        wm, sm = gvgai["win"][:, g], gvgai["score"][:, g]
        assert information_gain(wm, ws, prob_floor=1e-5) == pytest.approx(win,
                                                                           abs=1e-7)
        assert information_gain(sm, ss, prob_floor=1e-5) == pytest.approx(score,
                                                                           abs=1e-7)
        combined = information_gain(np.column_stack([wm, sm]),
                                    np.column_stack([ws, ss]), prob_floor=1e-5)
        assert combined == pytest.approx(both, abs=1e-7)


def test_gvgai_single_measure_greedy(gvgai):
    win = _paper_selector(n_tasks=10).fit(gvgai["win"], X_std=gvgai["win_std"])
    assert gvgai["games"][win.selection_order_].tolist() == [
        "freeway", "tercio", "chopper", "labyrinth", "avoidgeorge", "camelRace",
        "islands", "superman", "aliens", "vortex",
    ]
    assert win.cumulative_gain_[-1] == pytest.approx(4.36904776, abs=1e-7)
    score = _paper_selector(n_tasks=10).fit(gvgai["score"],
                                            X_std=gvgai["score_std"])
    assert gvgai["games"][score.selection_order_].tolist() == [
        "invest", "intersection", "tercio", "sistersavior", "shipwreck",
        "labyrinth", "avoidgeorge", "escape", "freeway", "mirrors",
    ]
    assert score.cumulative_gain_[-1] == pytest.approx(4.47987186, abs=1e-7)


def test_gvgai_non_monotone_full_set_and_auto(gvgai):
    means, stds, groups = _combined(gvgai)
    auto = _paper_selector(n_tasks="auto", groups=groups).fit(means, X_std=stds)
    assert len(auto.selection_order_) == 41
    assert auto.cumulative_gain_[-1] == pytest.approx(4.749770, abs=1e-6)
    exact = InfoGainSelector(n_tasks="auto", groups=groups, input="agents",
                             std_offset=0.0).fit(means, X_std=stds)
    assert len(exact.selection_order_) == 41
    assert exact.cumulative_gain_[-1] == pytest.approx(4.751234, abs=1e-6)
    # floor vs exact: same first 20 picks, values within 5e-4
    np.testing.assert_array_equal(exact.selection_order_[:20],
                                  auto.selection_order_[:20])
    np.testing.assert_allclose(exact.information_gain_, auto.information_gain_,
                               atol=5e-4)
    everything_floor = information_gain(means, stds, prob_floor=1e-5)
    everything = information_gain(means, stds)
    assert everything_floor == pytest.approx(4.680335, abs=1e-6)
    assert everything == pytest.approx(4.682137, abs=1e-6)
    # all 108 games give less than the top-10 subset (gain is not monotone)
    assert everything < exact.cumulative_gain_[9]
    # the combined gain is not sub-additive: bait (Stephenson et al. 2020, V-B)
    bait = np.flatnonzero(auto.tasks_ == "bait")[0]
    win = information_gain(gvgai["win"][:, bait], gvgai["win_std"][:, bait],
                           prob_floor=1e-5)
    score = information_gain(gvgai["score"][:, bait], gvgai["score_std"][:, bait],
                             prob_floor=1e-5)
    assert win + score < auto.information_gain_[bait]


def test_gvgai_subset_stands_in_for_the_benchmark(gvgai):
    means, stds, groups = _combined(gvgai)
    selector = _paper_selector(n_tasks=10, groups=groups).fit(means, X_std=stds)
    chosen = np.zeros(108, dtype=bool)
    chosen[selector.selection_order_] = True
    # Stephenson et al. (2020), section V-C: the top ten games vs all 108
    win = subset_agreement(gvgai["win"], chosen)
    assert win.kendall_tau == pytest.approx(0.8120, abs=1e-4)
    assert win.spearman_rho == pytest.approx(0.9389, abs=1e-4)
    score = subset_agreement(gvgai["score"], chosen, normalize="minmax")
    assert score.kendall_tau == pytest.approx(0.7322, abs=1e-4)
    assert score.spearman_rho == pytest.approx(0.9060, abs=1e-4)
    # usefulness: leave-one-agent-out linear prediction of the full mean win
    # rate from the 10 chosen games beats the median random 10-game subset
    rng = np.random.default_rng(0)
    random_errors = []
    for _ in range(100):
        subset = rng.choice(108, size=10, replace=False)
        random_errors.append(subset_agreement(gvgai["win"], subset).mean_absolute_error)
    median_random = float(np.median(random_errors))
    print(f"chosen MAE {win.mean_absolute_error:.4f}, "
          f"median random MAE {median_random:.4f}")
    assert win.mean_absolute_error < median_random
    assert win.mean_absolute_error == pytest.approx(0.041418, abs=1e-5)


# ----------------------------------------------------------------------------
# Subset metrics, size choice and task clusters
# ----------------------------------------------------------------------------


def _agents_matrix(random_state=0, n_agents=30, n_tasks=12):
    rng = np.random.default_rng(random_state)
    ability = rng.normal(size=(n_agents, 1))
    return ability + rng.normal(scale=0.6, size=(n_agents, n_tasks))


def test_subset_agreement_values():
    X = _agents_matrix()
    everything = subset_agreement(X, np.ones(12, dtype=bool))
    assert everything.kendall_tau == 1.0
    assert everything.spearman_rho == 1.0
    assert everything.mean_absolute_error < 1e-12
    some = subset_agreement(X, [0, 1, 2])
    np.testing.assert_allclose(some.full_score, X.mean(axis=1))
    np.testing.assert_allclose(some.subset_score, X[:, :3].mean(axis=1))
    assert 0 < some.kendall_tau < 1
    assert some.root_mean_squared_error >= some.mean_absolute_error
    # leave-one-out predictions by hand
    for agent in (0, 7):
        keep = np.arange(30) != agent
        design = np.column_stack([np.ones(29), X[keep, :3]])
        coef = np.linalg.lstsq(design, X[keep].mean(axis=1), rcond=None)[0]
        assert some.predicted[agent] == pytest.approx(coef[0] + X[agent, :3] @ coef[1:])
    # the closed-form leave-one-out equals explicit refits
    from sklearn.model_selection import LeaveOneOut
    refit = subset_agreement(X, [0, 1, 2], cv=LeaveOneOut())
    np.testing.assert_allclose(refit.predicted, some.predicted, rtol=1e-10)
    with pytest.raises(ValueError, match="no task"):
        subset_agreement(X, np.zeros(12, dtype=bool))
    with pytest.raises(ValueError, match="indices"):
        subset_agreement(X, [12])
    with pytest.raises(ValueError, match="normalize"):
        subset_agreement(X, [1], normalize="zscore")


def test_subset_scorer_on_held_out_agents():
    X = _agents_matrix()
    selector = InfoGainSelector(n_tasks=4, input="agents", std_offset=0.5)
    selector.fit(X[:20])
    test = X[20:]
    mask = selector.get_support()
    tau = make_subset_scorer("kendall_tau")(selector, test)
    assert tau == pytest.approx(
        __import__("scipy").stats.kendalltau(test.mean(1), test[:, mask].mean(1))[0]
    )
    error = make_subset_scorer("neg_mean_absolute_error")(selector, test)
    assert error < 0
    with pytest.raises(ValueError, match="metric"):
        make_subset_scorer("accuracy")


def test_subset_scorer_on_runs():
    X, agents = _runs()
    selector = InfoGainSelector(n_tasks=1).fit(X, agents)
    rho = make_subset_scorer("spearman_rho")(selector, X, agents)
    means = selector.means_
    expected = __import__("scipy").stats.spearmanr(
        means.mean(1), means[:, selector.support_].mean(1)
    )[0]
    assert rho == pytest.approx(expected)


def test_choose_n_tasks_picks_smallest_within_tolerance():
    X = _agents_matrix(n_agents=40, n_tasks=60)
    sizes = [1, 2, 5, 10, 20, 40, 60]
    selector = InfoGainSelector(input="agents", std_offset=0.5)
    result = choose_n_tasks(selector, X, sizes=sizes, tol=0.1, random_state=0)
    means = result.mean_scores
    assert result.scores.shape == (7, 5)
    assert means[-1] == pytest.approx(1.0)  # all tasks: perfect agreement
    assert means[0] < means[-1]
    first_ok = sizes[int(np.flatnonzero(means >= means.max() - 0.1)[0])]
    assert result.n_tasks == first_ok < 60
    # a bare argmax (what GridSearchCV would do) takes every task
    assert sizes[int(np.argmax(means))] == 60
    again = choose_n_tasks(selector, X, sizes=sizes, tol=0.1, random_state=0)
    np.testing.assert_array_equal(result.scores, again.scores)
    with pytest.raises(ValueError, match="sizes"):
        choose_n_tasks(InfoGainSelector(input="agents"), X, sizes=[0])


def test_choose_n_tasks_on_runs_with_spreads():
    X, agents = _runs()
    result = choose_n_tasks(InfoGainSelector(), X, agents, random_state=0,
                            scoring="spearman_rho", tol=0.0)
    assert result.sizes.tolist() == [1, 2, 3, 4]
    assert result.n_tasks == result.sizes[np.argmax(result.mean_scores)]


def test_task_clusters_two_obvious_groups():
    rng = np.random.default_rng(0)
    speed = rng.normal(size=20)
    memory = rng.normal(size=20)
    X = np.column_stack(
        [speed + rng.normal(scale=0.1, size=20) for _ in range(4)]
        + [memory + rng.normal(scale=0.1, size=20) for _ in range(3)]
    )
    columns = [0, 4, 1, 5, 2, 6, 3]  # interleave the groups
    result = task_clusters(X[:, columns])
    expected = np.array([0, 1, 0, 1, 0, 1, 0])
    labels = result.labels
    assert set(labels.tolist()) == {0, 1}
    assert (labels == expected).all() or (labels == 1 - expected).all()
    # the leaf order keeps each group together
    ordered = labels[result.order]
    assert np.count_nonzero(np.diff(ordered)) == 1
    assert result.correlation.shape == (7, 7)
    assert task_clusters(X, criterion="maxclust", threshold=2).labels.max() == 1
    assert task_clusters(X, threshold=1e-6).labels.max() == 6


def test_task_clusters_constant_and_anticorrelated_tasks():
    skill = np.arange(6, dtype=float)
    X = np.column_stack([skill, -skill, np.ones(6), skill ** 2])
    result = task_clusters(X, threshold=0.5)
    assert result.correlation[2].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert result.labels[0] == result.labels[3] != result.labels[1]
    folded = task_clusters(X, distance="abs_correlation", threshold=0.5)
    assert folded.labels[0] == folded.labels[1] == folded.labels[3]
    with pytest.raises(ValueError, match="distance"):
        task_clusters(X, distance="euclidean")
    with pytest.raises(ValueError, match="NaN"):
        task_clusters(np.array([[0.0, np.nan], [1.0, 2.0]]))


def test_clone_keeps_groups():
    selector = InfoGainSelector(groups=["a", "a"])
    assert clone(selector).groups == ["a", "a"]


# ----------------------------------------------------------------------------
# Exhaustive search
# ----------------------------------------------------------------------------


def test_exhaustive_search_on_toy_cases():
    sd = np.full((4, 4), 0.1)
    selector = InfoGainSelector(n_tasks=2, input="agents", std_offset=0.0,
                                search="exhaustive").fit(T10, X_std=sd)
    assert selector.selection_order_.tolist() == [0, 2]
    np.testing.assert_allclose(selector.cumulative_gain_,
                               [0.999927418535787, 1.999854837071573], atol=1e-12)
    assert selector.get_support().tolist() == [True, False, True, False]
    with pytest.raises(ValueError, match="more than the limit of 5"):
        InfoGainSelector(n_tasks=2, input="agents", search="exhaustive",
                         max_subsets=5).fit(T10, X_std=sd)
    with pytest.raises(ValueError, match="fixed n_tasks"):
        InfoGainSelector(n_tasks="auto", input="agents",
                         search="exhaustive").fit(T10, X_std=sd)


@settings(max_examples=30, deadline=None)
@given(summaries(max_agents=6, max_columns=5), st.integers(1, 3))
def test_property_exhaustive_is_at_least_greedy(data, k):
    means, stds = data
    k = min(k, means.shape[1])
    params = dict(n_tasks=k, input="agents", std_offset=0.0)
    greedy = InfoGainSelector(**params).fit(means, X_std=stds)
    best = InfoGainSelector(search="exhaustive", **params).fit(means, X_std=stds)
    assert best.cumulative_gain_[-1] >= greedy.cumulative_gain_[-1] - 1e-12
    chosen = best.selection_order_
    assert best.cumulative_gain_[-1] == pytest.approx(
        information_gain(means[:, chosen], stds[:, chosen]), abs=1e-10
    )


SPEC_POOL = [  # 19 GVGAI games holding the paper's whole top 10 (V-C)
    "freeway", "labyrinth", "tercio", "labyrinthdual", "iceandfire", "chopper",
    "doorkoban", "hungrybirds", "watergame", "escape", "invest", "intersection",
    "cops", "flower", "waitforbreakfast", "realportals", "sistersavior",
    "avoidgeorge", "whackamole",
]


def test_gvgai_spec_pool_reproduces_top10_and_greedy_is_optimal_for_4(gvgai):
    means, stds, groups = _combined(gvgai)
    games = gvgai["games"].tolist()
    columns = np.ravel([[2 * games.index(g), 2 * games.index(g) + 1]
                        for g in SPEC_POOL])
    data = means[:, columns], stds[:, columns]
    greedy = _paper_selector(n_tasks=10, groups=groups[columns])
    greedy.fit(data[0], X_std=data[1])
    assert greedy.tasks_[greedy.selection_order_].tolist() == [
        name for name, _ in TABLE_II_TOP10
    ]
    np.testing.assert_allclose(greedy.cumulative_gain_,
                               [value for _, value in TABLE_II_TOP10], atol=1e-7)
    best = _paper_selector(n_tasks=4, groups=groups[columns], search="exhaustive")
    best.fit(data[0], X_std=data[1])
    assert set(best.tasks_[best.selection_order_]) == {
        "freeway", "invest", "labyrinthdual", "tercio"
    }
    assert best.cumulative_gain_[-1] == pytest.approx(4.22563462, abs=1e-7)


@pytest.mark.slow
def test_gvgai_greedy_top3_is_the_global_optimum(gvgai):
    means, stds, groups = _combined(gvgai)
    best = _paper_selector(n_tasks=3, groups=groups, search="exhaustive",
                           max_subsets=300_000).fit(means, X_std=stds)
    assert set(best.tasks_[best.selection_order_]) == {
        "freeway", "invest", "labyrinthdual"
    }
    assert best.cumulative_gain_[-1] == pytest.approx(3.81992620, abs=1e-7)


# ----------------------------------------------------------------------------
# Real run-level data: GVGAI runs of Martinez-Plumed et al. (no licence: read
# from the shared directory only). 23 agents x 49 games x 25 runs; columns
# agent, game, level, win, score, time.
# ----------------------------------------------------------------------------


def test_gvgai_run_level_data(shared_dir):
    path = shared_dir / "data" / "gvgai" / "martinezplumed2018_GVGAI_data.csv"
    if not path.exists():
        pytest.skip(f"{path} not found")
    runs = pd.read_csv(path, header=None,
                       names=["agent", "game", "level", "win", "score", "time"])
    games = np.unique(runs["game"])
    g = np.searchsorted(games, runs["game"])
    # one row per run; the run's game holds its win and score, NaN elsewhere
    X = np.full((len(runs), 2 * len(games)), np.nan)
    X[np.arange(len(runs)), 2 * g] = runs["win"]
    X[np.arange(len(runs)), 2 * g + 1] = runs["score"]
    groups = np.repeat(games, 2)
    selector = InfoGainSelector(n_tasks=10, groups=groups)
    selector.fit(X, runs["agent"].to_numpy())
    assert len(selector.agents_) == 23
    assert selector.n_runs_.min() == selector.n_runs_.max() == 25
    # agent-level form from an independent pandas aggregation
    stats = runs.groupby(["agent", "game"])[["win", "score"]]
    mean = stats.mean().unstack("game")
    std = stats.std(ddof=0).unstack("game")
    means = np.empty((23, 98))
    stds = np.empty((23, 98))
    for k, measure in enumerate(["win", "score"]):
        means[:, k::2] = mean[measure][games].to_numpy()
        stds[:, k::2] = std[measure][games].to_numpy()
    np.testing.assert_allclose(selector.means_, means, rtol=1e-12)
    np.testing.assert_allclose(selector.stds_, stds + 1e-3, rtol=1e-9, atol=1e-12)
    by_agents = InfoGainSelector(n_tasks=10, groups=groups, input="agents")
    by_agents.fit(means, X_std=stds)
    np.testing.assert_array_equal(selector.selection_order_,
                                  by_agents.selection_order_)
    np.testing.assert_allclose(selector.cumulative_gain_, by_agents.cumulative_gain_,
                               rtol=1e-10)
    first = selector.selection_order_[0]
    cols = [2 * first, 2 * first + 1]
    assert selector.cumulative_gain_[0] == pytest.approx(
        information_gain(means[:, cols], stds[:, cols] + 1e-3), abs=1e-12
    )
    assert selector.information_gain_[first] == selector.information_gain_.max()
    assert 0 < selector.cumulative_gain_[-1] <= LOG2(23)
    assert selector.transform(X).shape == (len(runs), 20)
