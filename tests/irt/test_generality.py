"""Tests for GeneralityScorer (user guide, "Generality: how general is an agent?"): the
seed paper's generality, the C-test response-curve family, the published per-agent
references and the contract."""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_eval.irt import (
    IRT2PL,
    GeneralityScorer,
    ctest_score,
    policy_difficulty,
    theoretical_generality,
)
from sklearn_eval.irt._binning import (
    assign_right_closed,
    merge_small_bins,
    quantile_edges,
    unique_value_edges,
)
from sklearn_eval.irt._curves import FEATURE_NAMES, _arc_points, _fill_empty_bins
from sklearn_eval.utils.estimator_checks import check_estimator_contract

COL = {name: k for k, name in enumerate(FEATURE_NAMES)}

# Techniques removed from the ALE table (Martinez-Plumed & Hernandez-Orallo 2018,
# Appendix A.1).
ALE_REMOVED = {
    "Schaul_DQN.baseline",
    "vanHasselt.Humanstarts_DQN",
    "vanHasselt.Humanstarts_Double.DQN..tuned.",
    "Wang.Humanstarts_DUEL",
    "Wang.Humanstarts_PRIOR.",
}


def column(out, name):
    return out[:, COL[name]]


def unit_scorer(curves, **params):
    """One task per unit bin (0, 1], (1, 2], ...: the ARC is the row itself."""
    curves = np.atleast_2d(np.asarray(curves, dtype=float))
    n_bins = curves.shape[1]
    params = {"min_tasks_per_bin": 1, **params}
    scorer = GeneralityScorer(
        difficulty=np.arange(n_bins) + 0.5, bins=np.arange(n_bins + 1.0), **params
    )
    return scorer.fit(curves), curves


# ---------------------------------------------------------------------------
# Shared fixtures: the published binary matrices and reference values
# ---------------------------------------------------------------------------
def load_fixture(shared_dir, name):
    base = shared_dir / "data" / "irt_fixtures"
    X = pd.read_csv(base / f"{name}_binary.csv", index_col=0)
    items = pd.read_csv(base / f"{name}_items_ltm.csv", index_col=0)
    reference = json.loads((base / "reference_agents.json").read_text())[name]
    assert list(items.index) == list(X.columns)
    return X, items, reference


@pytest.fixture(scope="module", params=["ale", "gvgai"])
def published(request, shared_dir):
    return request.param, *load_fixture(shared_dir, request.param)


@pytest.fixture(scope="module")
def ale(shared_dir):
    return load_fixture(shared_dir, "ale")


# ---------------------------------------------------------------------------
# Reference values: irt_fixtures/reference_agents.json
# (Martinez-Plumed & Hernandez-Orallo 2018, Table II and section V)
# ---------------------------------------------------------------------------
def test_reference_agents_bins_rates_gamma_slope(published):
    name, X, items, reference = published
    keep = (items["Dscrmn"] >= 0).to_numpy()
    X_kept = X.loc[:, keep]
    scorer = GeneralityScorer(
        difficulty=items["Dffclt"].to_numpy()[keep], bins=reference["cuts"]
    ).fit(X_kept)
    np.testing.assert_array_equal(scorer.bin_counts_, reference["bin_counts"])
    np.testing.assert_allclose(scorer.bin_medians_, reference["bin_medians"], atol=1e-3)
    out = pd.DataFrame(scorer.transform(X_kept), index=X.index, columns=FEATURE_NAMES)
    curves = scorer.response_curves(X_kept)
    assert list(curves.index) == list(X.index)
    n_defined = 0
    for agent in reference["agents"]:
        label = agent["agent"]
        np.testing.assert_allclose(
            curves.loc[label].to_numpy(), agent["bin_success"], atol=1e-3
        )
        assert out.loc[label, "generality"] == pytest.approx(agent["gamma"], abs=1e-3)
        if agent["slope05"] is None or np.isnan(agent["slope05"]):
            assert np.isnan(out.loc[label, "slope"]), label
        else:
            n_defined += 1
            assert out.loc[label, "slope"] == pytest.approx(agent["slope05"], abs=1e-3)
    # 30 defined slopes on ALE, 17 on GVGAI (Martinez-Plumed & Hernandez-Orallo 2018, V)
    assert n_defined == {"ale": 30, "gvgai": 17}[name]


def test_reference_t26_t27_named_agents(ale):
    X, items, reference = ale
    keep = (items["Dscrmn"] >= 0).to_numpy()
    scorer = GeneralityScorer(
        difficulty=items["Dffclt"].to_numpy()[keep], bins=reference["cuts"]
    )
    out = pd.DataFrame(
        scorer.fit_transform(X.loc[:, keep]), index=X.index, columns=FEATURE_NAMES
    )
    assert out.loc["Schaul_DDQN.proportional", "generality"] == pytest.approx(10.125)
    assert out.loc["Wang.noops_PRIOR.", "generality"] == pytest.approx(4.0)
    assert out.loc["Talvitie_LSH", "generality"] == pytest.approx(5.786, abs=1e-3)
    slope = 0.763889 / 1.169780
    for agent in ("Wang.Humanstarts_PRIOR..DUEL.", "Gruslys_PRIOR.DUEL"):
        assert out.loc[agent, "slope"] == pytest.approx(slope, abs=1e-4)
    assert np.isnan(out.loc["Wang.noops_DUEL", "slope"])


@pytest.mark.parametrize("name", ["ale", "gvgai"])
def test_reference_regularity_on_normalised_scores(shared_dir, name):
    """Regularity = 1 / population variance of the Phi(z) scores (user guide)."""
    base = shared_dir / "data" / "irt_fixtures"
    X = pd.read_csv(base / f"{name}_normalised_0_1.csv", index_col=0)
    reference = json.loads((base / "reference_agents.json").read_text())[name]
    ref = pd.DataFrame(reference["agents"]).set_index("agent").loc[X.index]
    out = GeneralityScorer(difficulty="rate", bins=4).fit(X).transform(X)
    np.testing.assert_allclose(column(out, "regularity"), ref["regularity"], rtol=1e-9)
    np.testing.assert_allclose(
        column(out, "mean_score"), ref["mean_norm_score"], rtol=1e-9
    )


def test_threshold_on_raw_ale_scores_matches_binary_fixture(shared_dir, ale):
    """ALE human-normalised scores, success when >= 100 (the paper, Appendix A.1)."""
    X, items, reference = ale
    raw = pd.read_csv(
        shared_dir / "data" / "irt_fixtures" / "ale_human_normalised_scores.csv",
        index_col=0,
        encoding="latin-1",
    ).T
    raw.index = [re.sub(r"[^A-Za-z0-9_.]", ".", name) for name in raw.index]
    assert ALE_REMOVED <= set(raw.index)
    raw = raw.drop(index=sorted(ALE_REMOVED))
    assert set(raw.index) == set(X.index)
    raw = raw.loc[X.index, X.columns]
    keep = (items["Dscrmn"] >= 0).to_numpy()
    params = {"difficulty": items["Dffclt"].to_numpy()[keep], "bins": reference["cuts"]}
    from_raw = GeneralityScorer(threshold=100.0, **params).fit(raw.loc[:, keep])
    from_binary = GeneralityScorer(**params).fit(X.loc[:, keep])
    np.testing.assert_array_equal(
        from_raw.transform(raw.loc[:, keep]), from_binary.transform(X.loc[:, keep])
    )
    with pytest.raises(ValueError, match="threshold"):
        GeneralityScorer(**params).fit(raw.loc[:, keep])


# ---------------------------------------------------------------------------
# "irt" difficulty: IRT2PL fitted inside, FrozenEstimator, clone
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ale_irt(ale):
    X, _, reference = ale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = GeneralityScorer(bins=reference["cuts"]).fit(X)
    return scorer


def test_irt_difficulty_excludes_negative_discrimination(ale, ale_irt):
    X, _, _ = ale
    model = ale_irt.difficulty_model_
    assert isinstance(model, IRT2PL)
    # a fresh fit finds exactly the paper's 4 abstruse ALE games
    # (Martinez-Plumed & Hernandez-Orallo 2018, section IV)
    assert set(model.negative_items_) == {
        "Centipede",
        "Tennis",
        "Venture",
        "Video Pinball",
    }
    assert set(ale_irt.excluded_tasks_) == set(model.negative_items_)
    np.testing.assert_array_equal(ale_irt.difficulty_, model.difficulty_)
    assert ale_irt.bin_counts_.sum() == 37
    # the same numbers as passing the kept items' difficulties by hand
    keep = model.discrimination_ >= 0
    by_hand = GeneralityScorer(
        difficulty=model.difficulty_[keep], bins=ale_irt.bin_edges_, min_tasks_per_bin=1
    ).fit(X.loc[:, keep])
    np.testing.assert_allclose(
        ale_irt.response_curves(X).to_numpy(), by_hand.response_curves(X.loc[:, keep])
    )
    binned_columns = [COL[c] for c in ("generality", "slope", "capability", "spread")]
    np.testing.assert_allclose(
        ale_irt.transform(X)[:, binned_columns],
        by_hand.transform(X.loc[:, keep])[:, binned_columns],
    )


def test_irt_fresh_fit_approximately_reproduces_reference_gamma(ale, ale_irt):
    """A fresh IRT2PL fit moves poorly identified items (against the paper's
    published fit: median |delta b| 0.15), so bins and gamma differ from the
    ltm-based reference, but the ranking of the agents by gamma stays close."""
    from scipy.stats import spearmanr

    X, _, reference = ale
    ref = pd.DataFrame(reference["agents"]).set_index("agent").loc[X.index]
    gamma = column(ale_irt.transform(X), "generality")
    assert spearmanr(gamma, ref["gamma"]).statistic > 0.75


def test_irt_including_negative_items_changes_bins(ale, ale_irt):
    """Items with a < 0 leave the generality bins (user guide, generality, Pitfalls)."""
    X, _, reference = ale
    frozen = FrozenEstimator(ale_irt.difficulty_model_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = GeneralityScorer(
            difficulty=frozen,
            bins=reference["cuts"],
            exclude_negative_discrimination=False,
        ).fit(X)
    assert scorer.excluded_tasks_.size == 0
    assert scorer.bin_counts_.sum() == 41
    assert not np.array_equal(scorer.bin_counts_, ale_irt.bin_counts_)


def test_frozen_irt_model_is_used_as_is_and_survives_clone(ale, ale_irt):
    X, _, reference = ale
    fitted = ale_irt.difficulty_model_
    frozen = FrozenEstimator(fitted)
    scorer = GeneralityScorer(difficulty=frozen, bins=reference["cuts"])
    cloned = clone(scorer)
    assert cloned.difficulty is frozen  # FrozenEstimator clones to itself
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cloned.fit(X)
    assert cloned.difficulty_model_ is frozen
    np.testing.assert_array_equal(cloned.transform(X), ale_irt.transform(X))


def test_unfitted_irt_instance_is_cloned_not_modified(ale):
    X, _, reference = ale
    model = IRT2PL(max_iter=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scorer = GeneralityScorer(difficulty=model, bins=reference["cuts"]).fit(X)
    assert not hasattr(model, "difficulty_")
    assert scorer.difficulty_model_ is not model
    assert scorer.difficulty_model_.max_iter == 50


def test_frozen_model_with_other_tasks_is_rejected(ale, ale_irt):
    X, _, _ = ale
    frozen = FrozenEstimator(ale_irt.difficulty_model_)
    with pytest.raises(ValueError):
        GeneralityScorer(difficulty=frozen).fit(X.iloc[:, :-1].to_numpy())


def test_irt_difficulty_needs_binary_responses():
    X = np.array([[0.2, 1.0, 0.0], [1.0, 0.0, 0.5]])
    with pytest.raises(ValueError, match="binary"):
        GeneralityScorer().fit(X)


def test_item_curves_with_irt_abilities(ale, ale_irt):
    X, _, _ = ale
    result = ale_irt.item_curves(X, bins=4)
    theta, _ = ale_irt.difficulty_model_.estimate_abilities(X)
    np.testing.assert_allclose(result.abilities, theta)
    assert result.success_rate.shape == (41, 4)
    np.testing.assert_array_equal(result.counts.sum(axis=1), np.full(41, 40))
    values = X.to_numpy()
    for group in range(4):
        members = result.ability_bin == group
        np.testing.assert_allclose(
            result.success_rate[:, group], values[members].mean(axis=0)
        )
    # items with a > 0 are solved more often by the most able quarter
    positive = ale_irt.difficulty_model_.discrimination_ > 0
    top, bottom = result.success_rate[:, -1], result.success_rate[:, 0]
    assert np.all(top[positive] >= bottom[positive])


def test_item_curves_given_abilities_and_edges():
    X = np.array([[1, 0, np.nan], [1, 1, 0], [0, 0, 1], [1, 1, 1.0]])
    scorer = GeneralityScorer(
        difficulty=[1.0, 2.0, 3.0], bins="unique", min_tasks_per_bin=1
    ).fit(X)
    result = scorer.item_curves(X, abilities=[0.0, 1.0, -1.0, 2.0], bins=[-2, 0.5, 3])
    np.testing.assert_array_equal(result.ability_bin, [0, 1, 0, 1])
    np.testing.assert_allclose(result.success_rate[:, 0], [0.5, 0.0, 1.0])
    np.testing.assert_allclose(result.success_rate[:, 1], [1.0, 1.0, 0.5])
    np.testing.assert_array_equal(result.counts[2], [1, 2])
    # default abilities without an IRT model: the agents' capability
    default = scorer.item_curves(X, bins=2)
    np.testing.assert_allclose(
        default.abilities, column(scorer.transform(X), "capability")
    )
    with pytest.raises(ValueError, match="one finite value per agent"):
        scorer.item_curves(X, abilities=[0.0, 1.0])


# ---------------------------------------------------------------------------
# Martinez-Plumed & Hernandez-Orallo 2018, section V: regularity, generality, bins
# ---------------------------------------------------------------------------
def test_t16_regularity_table_row_9_and_constant():
    X = np.array([[0.0] * 30 + [1.0] * 70, [0.7] * 100])
    out = GeneralityScorer(difficulty="rate", bins=2).fit(X).transform(X)
    assert column(out, "regularity")[0] == pytest.approx(1 / 0.21)
    assert column(out, "regularity")[0] == pytest.approx(4.7619, abs=1e-4)
    assert column(out, "regularity")[1] == np.inf


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (3, 8), elements=st.floats(0, 1)))
def test_t17_variance_below_bernoulli_bound(X):
    out = GeneralityScorer(difficulty=np.arange(8.0), bins=2, min_tasks_per_bin=1)
    out = out.fit(X).transform(X)
    mean = column(out, "mean_score")
    variance = 1.0 / column(out, "regularity")
    assert np.all(variance <= mean * (1 - mean) + 1e-12)
    binary = np.round(X)
    out = GeneralityScorer(difficulty=np.arange(8.0), bins=2, min_tasks_per_bin=1)
    out = out.fit(binary)
    out = out.transform(binary)
    mean = column(out, "mean_score")
    np.testing.assert_allclose(1.0 / column(out, "regularity"), mean * (1 - mean))


def test_t18_one_bin_generality_equals_regularity():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(6, 12))
    with pytest.warns(UserWarning, match="one difficulty bin"):
        scorer = GeneralityScorer(difficulty=rng.normal(size=12), bins=[-10, 10])
        scorer.fit(X)
    out = scorer.transform(X)
    np.testing.assert_allclose(column(out, "generality"), column(out, "regularity"))


def test_t19_t20_step_and_specialist_same_capability_different_generality():
    difficulty = np.repeat([1.0, 2.0, 3.0, 4.0], 5)
    step = np.repeat([1.0, 1.0, 0.0, 0.0], 5)
    specialist = np.array([1, 1, 1, 0, 0] * 3 + [1, 0, 0, 0, 0], dtype=float)
    X = np.vstack([step, specialist])
    scorer = GeneralityScorer(difficulty=difficulty, bins="unique").fit(X)
    out = scorer.transform(X)
    # equal success totals over the bins, equal mean and regularity
    assert scorer.response_curves(X).sum(axis=1) == pytest.approx([2.0, 2.0])
    np.testing.assert_allclose(column(out, "mean_score"), [0.5, 0.5])
    np.testing.assert_allclose(column(out, "regularity"), [4.0, 4.0])
    np.testing.assert_allclose(column(out, "capability"), [2.5, 2.5])
    generality = column(out, "generality")
    assert generality[0] == np.inf
    assert generality[1] == pytest.approx(1.13636, abs=1e-5)
    assert generality[0] > generality[1]
    assert column(out, "spread")[0] == 0.0 < column(out, "spread")[1]
    assert column(out, "spread_generality")[0] == np.inf


def test_t21_continuous_constant_within_bins():
    X = np.array([[0.9, 0.9, 0.6, 0.6, 0.2, 0.2]])
    scorer = GeneralityScorer(
        difficulty=[1, 1, 2, 2, 3, 3], bins="unique", min_tasks_per_bin=2
    ).fit(X)
    out = scorer.transform(X)
    assert column(out, "generality")[0] == np.inf
    assert column(out, "regularity")[0] == pytest.approx(1 / 0.0822222, abs=1e-3)
    assert column(out, "regularity")[0] == pytest.approx(12.162, abs=1e-3)


def test_t22_where_the_edges_fall():
    difficulty = np.arange(1.0, 21.0)
    X = (difficulty <= 10).astype(float)[None, :]
    aligned = GeneralityScorer(difficulty=difficulty, bins=[0, 5, 10, 15, 20])
    assert column(aligned.fit(X).transform(X), "generality")[0] == np.inf
    shifted = GeneralityScorer(
        difficulty=difficulty, bins=[0, 4, 8, 12, 16, 20], min_tasks_per_bin=4
    )
    assert column(shifted.fit(X).transform(X), "generality")[0] == pytest.approx(4.0)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, (4, 12), elements=st.floats(0, 1)),
    st.integers(1, 4),
    st.randoms(use_true_random=False),
)
def test_t22_t23_lower_bound_and_invariances(X, n_bins, random):
    difficulty = np.arange(12.0)
    edges = np.linspace(-0.5, 11.5, n_bins + 1)
    scorer = GeneralityScorer(difficulty=difficulty, bins=edges, min_tasks_per_bin=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = scorer.fit(X).transform(X)
    n_used = scorer.bin_counts_.size
    assert np.all(column(out, "generality") >= 4.0 / n_used - 1e-12)
    # permuting tasks (with their difficulties) and agents changes nothing
    tasks = np.array(random.sample(range(12), 12))
    agents = np.array(random.sample(range(4), 4))
    permuted = GeneralityScorer(
        difficulty=difficulty[tasks], bins=scorer.bin_edges_, min_tasks_per_bin=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out_p = permuted.fit(X[agents][:, tasks]).transform(X[agents][:, tasks])
    np.testing.assert_allclose(out_p, out[agents], rtol=1e-9, atol=1e-12)
    # duplicating the data set (population variances) changes nothing
    doubled = np.hstack([X, X])
    twice = GeneralityScorer(
        difficulty=np.tile(difficulty, 2), bins=scorer.bin_edges_, min_tasks_per_bin=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out_d = twice.fit(doubled).transform(doubled)
    for name in ("generality", "regularity", "mean_score", "capability", "spread"):
        np.testing.assert_allclose(column(out_d, name), column(out, name), rtol=1e-9)


def test_t25_perfectly_general_agents_form_a_chain():
    rng = np.random.default_rng(3)
    levels = np.repeat(np.arange(1.0, 7.0), 4)
    thresholds = rng.integers(0, 7, size=15)
    X = (levels[None, :] <= thresholds[:, None]).astype(float)
    scorer = GeneralityScorer(difficulty=levels, bins="unique", min_tasks_per_bin=4)
    out = scorer.fit(X).transform(X)
    assert np.all(column(out, "generality") == np.inf)
    assert np.all(column(out, "spread") == 0)
    capability = column(out, "capability")
    for a in range(15):
        for b in range(15):
            if capability[a] >= capability[b]:
                assert np.all(X[b] <= X[a])  # solved(B) is a subset of solved(A)


def test_dispersion_std_and_cap():
    X = np.array([[1, 1, 0, 1, 0, 0], [1, 1, 1, 1, 0, 0.0]])
    difficulty = [1, 1, 1, 2, 2, 2]
    var = GeneralityScorer(difficulty=difficulty, bins="unique", min_tasks_per_bin=3)
    std = clone(var).set_params(dispersion="std")
    g_var = column(var.fit(X).transform(X), "generality")
    g_std = column(std.fit(X).transform(X), "generality")
    p = np.array([[2 / 3, 1 / 3], [1, 1 / 3]])
    np.testing.assert_allclose(g_var, 1 / (p * (1 - p)).sum(axis=1))
    np.testing.assert_allclose(g_std, 1 / np.sqrt(p * (1 - p)).sum(axis=1))
    capped = clone(var).set_params(max_generality=50.0).fit(X)
    step = np.array([[1, 1, 1, 0, 0, 0.0]])
    out = capped.transform(step)
    assert column(out, "generality")[0] == 50.0
    assert column(out, "spread_generality")[0] == 50.0
    assert column(var.transform(step), "generality")[0] == np.inf


# ---------------------------------------------------------------------------
# C-test note (difficulty_weighted_aggregation.md section 3)
# ---------------------------------------------------------------------------
def test_ct1_ctest_aggregate():
    hit = [1, 1, 0.5, 0]
    assert ctest_score(hit, 0) == pytest.approx(2.5)
    assert ctest_score(hit, 1) == pytest.approx(4.5)
    assert ctest_score(hit, 2) == pytest.approx(9.5)
    # the transformer's column is eq. 1 normalised by sum_b b^e
    for exponent, expected in ((0, 2.5), (1, 4.5), (2, 9.5)):
        scorer, X = unit_scorer(hit, ctest_exponent=exponent)
        normaliser = np.sum(np.arange(1.0, 5.0) ** exponent)
        value = column(scorer.transform(X), "ctest_score")[0]
        assert value * normaliser == pytest.approx(expected)


def test_ct2_ctest_human_data():
    hit = [
        0.890625,
        0.590277778,
        0.652777778,
        0.40625,
        0.28125,
        0.3125,
        0.177083333,
        0.052083333,
    ]
    for exponent, expected in ((0, 3.362847), (1, 10.592014), (2, 45.918403)):
        assert ctest_score(hit, exponent) == pytest.approx(expected, abs=1e-6)
    levels = np.arange(7, 15)
    for exponent, expected in ((0, 3.362847), (1, 30.769097), (2, 294.085069)):
        assert ctest_score(hit, exponent, index=levels) == pytest.approx(
            expected, abs=1e-6
        )
    assert ctest_score(np.vstack([hit, hit]), 1).shape == (2,)
    with pytest.raises(ValueError, match="one entry per bin"):
        ctest_score(hit, 1, index=[1, 2])


def test_ct3_acceptability_is_inclusive():
    X = np.array([[0.9, 0.3, 0.8999999]])
    scorer = GeneralityScorer(
        difficulty=[1.0, 2.0, 3.0], bins="unique", min_tasks_per_bin=1, threshold=0.9
    ).fit(X)
    np.testing.assert_array_equal(scorer.response_curves(X), [[1.0, 0.0, 0.0]])
    # the threshold is taken directly, so the float trap 0.3 >= 1 - 0.7 is avoided
    at_03 = clone(scorer).set_params(threshold=0.3).fit(X)
    assert at_03.response_curves(X)[0, 1] == 1.0


def test_ct9_ct10_ct11_policy_difficulty():
    ratio = policy_difficulty([[0.42], [0.78], [1.0]], [1, 2, 3], method="ratio")
    assert ratio[0] == pytest.approx(2.380952, abs=1e-6)
    A = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0]])
    np.testing.assert_array_equal(policy_difficulty(A, [1, 2, 3]), [1, 2, np.inf])
    # agent 3 (L=3) passes task 2 but fails task 1: ARCs need not be monotone
    assert A[2, 1] == 1 and A[2, 0] == 0

    def soft(sizes):
        sizes = np.asarray(sizes, dtype=float)
        return policy_difficulty(np.ones((sizes.size, 1)), sizes, method="soft")[0]

    assert soft([5]) == pytest.approx(5.0)
    assert soft([3, 3]) == pytest.approx(2.5)
    assert soft([3, 5]) == pytest.approx(2.9562686, abs=1e-7)
    assert policy_difficulty(np.zeros((2, 1)), [3, 5], method="soft")[0] == np.inf
    # worst case of Prop. 4: 2^n programs of every length n >= 6 -> 0.5 (6 - 1)
    lengths = np.repeat(np.arange(6, 40), 1)
    counts = 2.0 ** np.arange(6, 40)
    log_sum = np.log2(np.sum(counts * 2.0 ** (-2.0 * lengths)))
    assert -0.5 * log_sum == pytest.approx(2.5, abs=1e-9)
    # threshold defines acceptability (inclusive)
    scores = np.array([[0.9, 0.2], [0.95, 0.89]])
    np.testing.assert_array_equal(
        policy_difficulty(scores, [2, 1], threshold=0.9), [1.0, np.inf]
    )
    with pytest.raises(ValueError, match="threshold"):
        policy_difficulty(scores, [2, 1])
    with pytest.raises(ValueError, match="one finite value per agent"):
        policy_difficulty(A, [1, 2])
    with pytest.raises(ValueError, match="method"):
        policy_difficulty(A, [1, 2, 3], method="longest")


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, (5, 6), elements=st.sampled_from([0.0, 1.0, np.nan])),
    arrays(np.float64, 5, elements=st.floats(0, 30)),
)
def test_prop3_prop4_policy_difficulty_bounds(A, sizes):
    hard = policy_difficulty(A, sizes)
    soft = policy_difficulty(A, sizes, method="soft")
    # Prop. 3 (by construction): an agent smaller than the difficulty fails
    assert not np.any((hard[None, :] > sizes[:, None]) & (A == 1))
    # Prop. 4: eq. 14 never exceeds eq. 13 (and both are inf for hell tasks)
    assert np.all(soft <= hard + 1e-9)
    np.testing.assert_array_equal(np.isinf(soft), np.isinf(hard))


def test_t24_theoretical_generality_is_dual_to_discrimination():
    levels = np.arange(-10, 11)
    np.testing.assert_allclose(
        theoretical_generality([-2.0, 0.0, 3.0], levels), 1.0001, atol=1e-3
    )
    # the C-test note's table, abilities on the grid of levels
    np.testing.assert_allclose(
        theoretical_generality([-2.0, 0.0, 3.0], levels, 2.0), 1.9959, atol=1e-4
    )
    half = theoretical_generality([-2.0, 0.0, 3.0], levels, 0.5)
    assert np.all((half > 0.505) & (half < 0.513))
    assert theoretical_generality(0.0, levels, 4.0) == pytest.approx(3.4964, abs=1e-4)
    assert theoretical_generality(0.0, np.arange(-10, 10.5, 0.5)) == pytest.approx(
        0.50003, abs=1e-4
    )
    narrow = theoretical_generality([0.0, 2.0, -2.0], np.arange(-3, 4))
    np.testing.assert_allclose(narrow, [1.0598, 1.2229, 1.2229], atol=1e-4)


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(1, 12),
    st.integers(1, 5),
    st.integers(0, 2**32 - 1),
)
def test_ct4_decomposition_identity(n_agents, n_tasks, n_bins, seed):
    """Prop. 1: sum_b p(b) psi_b equals the p-weighted mean, for any binning."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_agents, n_tasks))
    weights = rng.uniform(0.1, 3.0, size=n_tasks)
    scorer = GeneralityScorer(
        difficulty=rng.normal(size=n_tasks),
        bins=n_bins,
        min_tasks_per_bin=1,
        task_weights=weights,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scorer.fit(X)
    psi = scorer.response_curves(X)
    expected = X @ (weights / weights.sum())
    np.testing.assert_allclose(psi @ scorer.bin_weights_, expected, atol=1e-12)
    np.testing.assert_allclose(
        column(scorer.transform(X), "mean_score"), expected, atol=1e-12
    )


def test_ct5_complexity_weights():
    """Tasks of complexity k weighted 2^-k: uniform within a level (p(j|h))."""
    complexity = np.array([1, 2, 2, 3, 3, 3, 3.0])
    weights = 2.0**-complexity
    X = np.array([[1, 1, 0, 1, 0, 0, 0.0]])
    scorer = GeneralityScorer(
        difficulty=complexity, bins="unique", min_tasks_per_bin=1, task_weights=weights
    ).fit(X)
    np.testing.assert_allclose(scorer.response_curves(X), [[1.0, 0.5, 0.25]])
    counts = np.array([1, 2, 4])
    p_level = counts * 2.0 ** -np.array([1, 2, 3.0])
    np.testing.assert_allclose(scorer.bin_weights_, p_level / p_level.sum())


def test_ct7_ranking_reversal():
    psi_a = [1.0] * 10 + [0.0] * 10
    psi_b = [0.8] * 20
    X = np.array([psi_a, psi_b])
    difficulty = np.arange(1.0, 21.0)
    params = {"difficulty": difficulty, "min_tasks_per_bin": 1, "ctest_exponent": 0}
    narrow = GeneralityScorer(bins=np.arange(0.5, 11.0), **params)
    with pytest.warns(UserWarning, match="outside the bin edges"):
        narrow.fit(X)
    assert narrow.excluded_tasks_.tolist() == list(range(10, 20))
    u_10 = column(narrow.transform(X), "ctest_score")
    wide = GeneralityScorer(bins=np.arange(0.5, 21.0), **params).fit(X)
    u_20 = column(wide.transform(X), "ctest_score")
    np.testing.assert_allclose(u_10, [1.0, 0.8])
    np.testing.assert_allclose(u_20, [0.5, 0.8])


@pytest.mark.parametrize("k", [1, 3, 5])
def test_ct8_step_area_doubles(k):
    def area(threshold):
        scorer, X = unit_scorer([1.0] * threshold + [0.0] * (20 - threshold))
        return column(scorer.transform(X), "capability")[0] - scorer.bin_edges_[0]

    assert area(k) == pytest.approx(k)
    assert area(2 * k) == pytest.approx(2 * area(k))


@pytest.mark.parametrize(
    ("curve", "capability", "spread", "generality", "normalized"),
    [
        ([1.0] * 5 + [0.0] * 5, 5.0, 0.0, np.inf, 1.0),
        ([0.5] * 10, 5.0, 5.0, 0.2, 0.0),
        ([0.0] * 5 + [1.0] * 5, 5.0, 7.0711, 0.14142, -1.0),
        ([0.0] * 10, 0.0, 0.0, np.inf, 0.0),
        ([1.0] * 10, 10.0, 0.0, np.inf, 0.0),
    ],
)
def test_ct12_analytic_response_curves(
    curve, capability, spread, generality, normalized
):
    scorer, X = unit_scorer(curve)
    out = scorer.transform(X)[0]
    assert out[COL["capability"]] == pytest.approx(capability, abs=1e-9)
    assert out[COL["spread"]] == pytest.approx(spread, abs=1e-4)
    if generality == np.inf:
        assert out[COL["spread_generality"]] == np.inf
        assert out[COL["spread"]] == 0.0
    else:
        assert out[COL["spread_generality"]] == pytest.approx(generality, abs=1e-5)
    assert out[COL["normalized_generality"]] == pytest.approx(normalized, abs=1e-12)


def test_ct12_linear_curve_trapezoid():
    h = np.arange(11.0)
    X = (1 - h / 10)[None, :]
    scorer = GeneralityScorer(
        difficulty=h, bins="unique", min_tasks_per_bin=1, integration="trapezoid"
    ).fit(X)
    out = scorer.transform(X)[0]
    assert out[COL["capability"]] == pytest.approx(5.0, abs=1e-12)
    assert out[COL["spread"]] == pytest.approx(10 / np.sqrt(12), abs=1e-9)
    assert out[COL["spread_generality"]] == pytest.approx(0.346410, abs=1e-6)


T13_R1 = [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0]
T13_R2 = [1] * 8 + [1, 0, 1, 1, 1, 1, 1, 1] + [0] * 8


def test_ct13_r_parity_trapezoid_and_step():
    X = np.array([T13_R1, T13_R2], dtype=float)
    difficulty = np.repeat([0.0, 1.0, 2.0], 8)
    trapezoid = GeneralityScorer(
        difficulty=difficulty, bins="unique", integration="trapezoid"
    ).fit(X)
    np.testing.assert_allclose(
        trapezoid.response_curves(X), [[0.75, 0.625, 0.5], [1, 0.875, 0]]
    )
    out = trapezoid.transform(X)
    np.testing.assert_allclose(column(out, "mean_score"), [0.625, 0.625])
    np.testing.assert_allclose(column(out, "capability"), [1.25, 1.375], atol=1e-9)
    np.testing.assert_allclose(column(out, "spread"), [0.877971, 0.438986], atol=1e-6)
    np.testing.assert_allclose(
        column(out, "spread_generality"), [1.138990, 2.277979], atol=1e-6
    )
    step = GeneralityScorer(difficulty=difficulty, bins=[-0.5, 0.5, 1.5, 2.5]).fit(X)
    out = step.transform(X)
    np.testing.assert_allclose(column(out, "capability"), [1.375, 1.375], atol=1e-9)
    np.testing.assert_allclose(column(out, "spread"), [1.268611, 0.330719], atol=1e-6)
    np.testing.assert_allclose(
        column(out, "spread_generality"), [0.788263, 3.023716], atol=1e-6
    )
    np.testing.assert_allclose(
        column(out, "normalized_generality"), [0.237037, 0.948148], atol=1e-6
    )


T2_HIT = [
    0.890625,
    0.590277778,
    0.652777778,
    0.40625,
    0.28125,
    0.3125,
    0.177083333,
    0.052083333,
]


def test_ct14_ctest_data_and_padding_invariance():
    X = np.array([T2_HIT])
    levels = np.arange(7.0, 15.0)
    trapezoid = GeneralityScorer(
        difficulty=levels, bins="unique", min_tasks_per_bin=1, integration="trapezoid"
    ).fit(X)
    out = trapezoid.transform(X)[0]
    assert out[COL["capability"]] == pytest.approx(9.891493, abs=1e-6)
    assert out[COL["spread"]] == pytest.approx(2.452046, abs=1e-6)
    step = GeneralityScorer(
        difficulty=levels, bins=np.arange(6.5, 15.0), min_tasks_per_bin=1
    ).fit(X)
    out = step.transform(X)[0]
    assert out[COL["capability"]] == pytest.approx(9.862847, abs=1e-6)
    assert out[COL["spread"]] == pytest.approx(2.551948, abs=1e-6)
    assert out[COL["normalized_generality"]] == pytest.approx(0.582376, abs=1e-6)
    # widening the range into the padded region (empty bins filled with 1 on
    # the left and 0 on the right) leaves capability and spread unchanged
    wide = GeneralityScorer(
        difficulty=levels, bins=np.arange(-0.5, 25.0), min_tasks_per_bin=1
    ).fit(X)
    assert wide.bin_counts_.sum() == 8 and (wide.bin_counts_ == 0).sum() == 17
    out_wide = wide.transform(X)[0]
    assert out_wide[COL["capability"]] == pytest.approx(out[COL["capability"]])
    assert out_wide[COL["spread"]] == pytest.approx(out[COL["spread"]])


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, (3, 6), elements=st.floats(0, 1)),
    st.floats(-50, 50),
    st.floats(0.1, 20),
    st.sampled_from(["step", "trapezoid"]),
)
def test_ct15_shift_and_scale_invariance(X, shift, scale, integration):
    edges = np.array([0.0, 1.0, 2.5, 3.0, 5.0, 6.0, 8.0])
    difficulty = (edges[:-1] + edges[1:]) / 2
    params = {"min_tasks_per_bin": 1, "integration": integration}
    base = GeneralityScorer(difficulty=difficulty, bins=edges, **params).fit(X)
    moved = GeneralityScorer(
        difficulty=scale * difficulty + shift, bins=scale * edges + shift, **params
    ).fit(X)
    out, out_m = base.transform(X), moved.transform(X)
    low = _arc_points(base.bin_medians_, base.bin_centers_)[0]
    low_m = _arc_points(moved.bin_medians_, moved.bin_centers_)[0]
    if integration == "step":
        low, low_m = base.bin_edges_[0], moved.bin_edges_[0]
    np.testing.assert_allclose(
        column(out_m, "capability") - low_m,
        scale * (column(out, "capability") - low),
        atol=1e-8 * scale,
    )
    np.testing.assert_allclose(
        column(out_m, "spread"), scale * column(out, "spread"), atol=1e-7 * scale
    )
    np.testing.assert_allclose(
        column(out_m, "normalized_generality"),
        column(out, "normalized_generality"),
        atol=1e-7,
    )
    for name in ("generality", "regularity", "mean_score", "ctest_score"):
        np.testing.assert_allclose(column(out_m, name), column(out, name))


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (4, 10), elements=st.floats(0, 1)))
def test_spread_bounds_any_curve(X):
    """0 <= S^2 <= 2 A (W - A) for any ARC in [0, 1], monotone or not."""
    scorer, X = unit_scorer(X)
    out = scorer.transform(X)
    area = column(out, "capability")
    spread2 = column(out, "spread") ** 2
    assert np.all(spread2 >= 0)
    assert np.all(spread2 <= 2 * area * (10 - area) + 1e-9)
    normalized = column(out, "normalized_generality")
    assert np.all((normalized >= -1 - 1e-9) & (normalized <= 1 + 1e-9))


# ---------------------------------------------------------------------------
# Binning, empty bins and missing results
# ---------------------------------------------------------------------------
def test_binning_helpers():
    np.testing.assert_array_equal(
        assign_right_closed([0.0, 0.5, 1.0, 1.5], [0.0, 1.0]), [-1, 0, 0, -1]
    )
    np.testing.assert_array_equal(
        assign_right_closed([0.0, 1.0], [0.0, 1.0], include_lowest=True), [0, 0]
    )
    np.testing.assert_allclose(quantile_edges([2.0, 2.0], 3), [1.5, 2.5])
    np.testing.assert_allclose(quantile_edges([0, 0, 0, 0, 0, 0, 1.0], 2), [0, 0.5, 1])
    np.testing.assert_allclose(quantile_edges([0, 1, 1, 1, 1, 1, 1.0], 3), [0, 0.5, 1])
    np.testing.assert_allclose(unique_value_edges([4.0]), [3.5, 4.5])
    np.testing.assert_allclose(unique_value_edges([0, 1, 3]), [-0.5, 0.5, 2, 4])
    values = np.array([0.0, 0.1, 0.2, 5, 6, 7, 8, 9, 10, 11])
    merged = merge_small_bins(values, np.array([0.0, 0.15, 4.0, 11.0]), 3)
    counts = np.bincount(assign_right_closed(values, merged, include_lowest=True))
    assert counts.min() >= 3 and counts.sum() == 10


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, st.integers(1, 60), elements=st.floats(-30, 85)),
    st.integers(1, 12),
    st.integers(1, 8),
)
def test_quantile_bins_hold_min_tasks(difficulty, n_bins, min_tasks):
    X = np.zeros((2, difficulty.size))
    X[0, ::2] = 1.0
    scorer = GeneralityScorer(
        difficulty=difficulty, bins=n_bins, min_tasks_per_bin=min_tasks
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scorer.fit(X)
    counts = scorer.bin_counts_
    assert counts.sum() == difficulty.size  # quantile bins lose no task
    assert counts.size <= n_bins
    if difficulty.size >= min_tasks:
        assert counts.min() >= min_tasks
    else:
        assert counts.size == 1
    assert np.all(np.diff(scorer.bin_edges_) > 0)


def test_quantile_bins_on_skewed_irt_scale():
    """GVGAI-like difficulties from -30 to 85: quantile bins stay populated."""
    rng = np.random.default_rng(0)
    difficulty = np.concatenate([rng.normal(1, 1, 140), [-29.6, -14.1, 84.5, 84.5]])
    X = (rng.uniform(size=(10, 144)) < 0.5).astype(float)
    scorer = GeneralityScorer(difficulty=difficulty, bins=10, min_tasks_per_bin=5)
    scorer.fit(X)
    assert scorer.bin_counts_.size == 10
    assert scorer.bin_counts_.min() >= 5


def test_empty_bins_interpolate_or_nan():
    difficulty = np.array([0.5, 0.6, 2.5, 2.6, 4.5])
    X = np.array([[1.0, 1.0, 0.0, 1.0, 0.0], [1.0, np.nan, np.nan, np.nan, 1.0]])
    edges = np.arange(0.0, 6.0)  # bins 1 and 3 hold no task
    scorer = GeneralityScorer(difficulty=difficulty, bins=edges, min_tasks_per_bin=1)
    scorer.fit(X)
    np.testing.assert_array_equal(scorer.bin_counts_, [2, 0, 2, 0, 1])
    assert np.isnan(scorer.bin_medians_[[1, 3]]).all()
    curves = scorer.response_curves(X)
    np.testing.assert_allclose(curves[0], [1.0, 0.75, 0.5, 0.25, 0.0])
    np.testing.assert_allclose(curves[1], [1.0, 1.0, 1.0, 1.0, 1.0])
    nan_scorer = clone(scorer).set_params(empty_bins="nan").fit(X)
    raw = nan_scorer.response_curves(X)
    assert np.isnan(raw[0, [1, 3]]).all() and np.isnan(raw[1, 1:4]).all()
    out = nan_scorer.transform(X)
    assert np.isnan(column(out, "capability")).all()
    assert np.isnan(column(out, "ctest_score")).all()
    # generality uses the observed bins only, the same in both modes
    np.testing.assert_allclose(
        column(out, "generality"), column(scorer.transform(X), "generality")
    )
    assert column(out, "generality")[0] == pytest.approx(4.0)


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, (4, 7), elements=st.floats(0, 1)),
    arrays(np.bool_, (4, 7)),
)
def test_interpolation_matches_np_interp(curve, holes):
    curve = np.where(holes, np.nan, curve)
    filled = _fill_empty_bins(curve, "interpolate")
    positions = np.arange(7.0)
    for row in range(4):
        known = ~holes[row]
        if not known.any():
            assert np.isnan(filled[row]).all()
            continue
        expected = np.interp(
            positions, positions[known], curve[row, known], left=1.0, right=0.0
        )
        np.testing.assert_allclose(filled[row], expected, atol=1e-14)


def test_missing_results_are_ignored():
    rng = np.random.default_rng(1)
    X = (rng.uniform(size=(8, 20)) < 0.6).astype(float)
    difficulty = np.repeat(np.arange(4.0), 5)
    full = GeneralityScorer(difficulty=difficulty, bins="unique").fit(X)
    holed = X.copy()
    holed[0, 0] = np.nan
    out = full.transform(holed)[0]
    kept = X[0, 1:5]
    assert full.response_curves(holed)[0, 0] == pytest.approx(kept.mean())
    assert out[COL["mean_score"]] == pytest.approx(X[0, 1:].mean())
    # leading bin entirely missing for an agent: padded with 1
    holed[1, :5] = np.nan
    assert full.response_curves(holed)[1, 0] == 1.0
    with pytest.raises(ValueError, match="no observed result"):
        full.transform(np.full((1, 20), np.nan))


def test_rate_difficulty():
    X = np.array([[1, 1, 0, 0], [1, 0, 0, 1], [1, 1, 1, 0.0]])
    scorer = GeneralityScorer(difficulty="rate", bins="unique", min_tasks_per_bin=1)
    scorer.fit(X)
    np.testing.assert_allclose(scorer.difficulty_, [0, 1 / 3, 2 / 3, 2 / 3])
    np.testing.assert_array_equal(scorer.bin_counts_, [1, 1, 2])
    with pytest.raises(ValueError, match="no observed result"):
        GeneralityScorer(difficulty="rate").fit(np.array([[1, np.nan], [0, np.nan]]))


def test_difficulty_series_is_aligned_on_column_names():
    X = pd.DataFrame([[1, 0, 1.0], [0, 0, 1.0]], columns=["a", "b", "c"])
    series = pd.Series({"c": 1.0, "a": 2.0, "b": 3.0})
    scorer = GeneralityScorer(difficulty=series, bins="unique", min_tasks_per_bin=1)
    np.testing.assert_array_equal(scorer.fit(X).difficulty_, [2.0, 3.0, 1.0])


# ---------------------------------------------------------------------------
# Bad input: clear errors or documented warnings
# ---------------------------------------------------------------------------
X_SMALL = np.array([[1, 0, 1, 0, 1, 1.0], [0, 0, 1, 1, 0, 1.0], [1, 1, 1, 0, 0, 0.0]])
D_SMALL = np.array([0.1, 0.5, 1.0, 1.5, 2.0, 2.5])


@pytest.mark.parametrize(
    ("params", "X", "match"),
    [
        ({"difficulty": D_SMALL[:-1]}, X_SMALL, "one value per task"),
        ({"difficulty": np.r_[D_SMALL[:-1], np.nan]}, X_SMALL, "must be finite"),
        ({"difficulty": D_SMALL}, X_SMALL * 2, r"\[0, 1\].*threshold"),
        ({"difficulty": D_SMALL, "bins": [0, 2, 1]}, X_SMALL, "strictly increasing"),
        ({"difficulty": D_SMALL, "bins": [[0, 1]]}, X_SMALL, "1-D"),
        ({"difficulty": D_SMALL, "bins": [10, 20]}, X_SMALL, "No task falls"),
        ({"difficulty": D_SMALL, "task_weights": [1] * 5}, X_SMALL, "task_weights"),
        ({"difficulty": D_SMALL, "task_weights": [-1] * 6}, X_SMALL, ">= 0"),
        (
            {"difficulty": D_SMALL, "bins": [0, 1], "task_weights": [0, 0, 0, 1, 1, 1]},
            X_SMALL,
            "zero for every binned task",
        ),
        ({"difficulty": D_SMALL, "dispersion": "mad"}, X_SMALL, "dispersion"),
        ({"difficulty": "easy"}, X_SMALL, "difficulty"),
        ({"difficulty": D_SMALL}, np.r_[X_SMALL, [[np.nan] * 6]], "row 3"),
        ({"difficulty": D_SMALL}, np.ones((2, 0)), "empty"),
        ({"difficulty": D_SMALL, "threshold": np.inf}, X_SMALL, "finite"),
    ],
)
def test_bad_input_raises(params, X, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # tasks outside the edges
        with pytest.raises(ValueError, match=match):
            GeneralityScorer(**params).fit(X)


def test_all_tasks_in_one_bin_warns():
    with pytest.warns(UserWarning, match="one difficulty bin"):
        GeneralityScorer(difficulty=np.ones(6), bins=4).fit(X_SMALL)


def test_small_explicit_bins_warn():
    with pytest.warns(UserWarning, match="fewer than min_tasks_per_bin"):
        GeneralityScorer(difficulty=D_SMALL, bins=[0, 1, 3]).fit(X_SMALL)


def test_transform_checks_tasks():
    scorer = GeneralityScorer(difficulty=D_SMALL, bins=2, min_tasks_per_bin=1)
    with pytest.raises(NotFittedError):
        scorer.transform(X_SMALL)
    scorer.fit(X_SMALL)
    with pytest.raises(ValueError, match="features"):
        scorer.transform(X_SMALL[:, :4])
    with pytest.raises(ValueError, match="threshold"):
        scorer.transform(X_SMALL + 1)


def test_failed_fit_keeps_previous_state():
    scorer = GeneralityScorer(difficulty=D_SMALL, bins=2, min_tasks_per_bin=1)
    scorer.fit(X_SMALL)
    before = scorer.transform(X_SMALL)
    edges = scorer.bin_edges_.copy()
    scorer.set_params(difficulty=D_SMALL[:3])
    with pytest.raises(ValueError):
        scorer.fit(X_SMALL)
    np.testing.assert_array_equal(scorer.bin_edges_, edges)
    np.testing.assert_array_equal(scorer.transform(X_SMALL), before)


# ---------------------------------------------------------------------------
# scikit-learn contract
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "scorer",
    [
        GeneralityScorer(difficulty=D_SMALL, bins=2, min_tasks_per_bin=1),
        GeneralityScorer(difficulty="rate", bins="unique", min_tasks_per_bin=1),
        GeneralityScorer(
            difficulty=D_SMALL,
            bins=[0, 1, 3],
            integration="trapezoid",
            min_tasks_per_bin=1,
            threshold=0.5,
        ),
    ],
)
def test_contract_suite(scorer):
    bad = [
        (X_SMALL[:0], None),
        (np.r_[X_SMALL, [[np.nan] * 6]], None),
    ]
    if scorer.threshold is None:
        bad.append((X_SMALL * 3, None))
    check_estimator_contract(scorer, X_SMALL, bad_inputs=bad)


def test_contract_suite_with_irt_difficulty():
    from sklearn_eval.datasets import make_irt_responses

    X = make_irt_responses(60, 12, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator_contract(GeneralityScorer(bins=3), X)


def test_set_output_pandas_and_feature_names():
    X = pd.DataFrame(
        X_SMALL, index=["ann", "bob", "cy"], columns=[f"t{k}" for k in range(6)]
    )
    scorer = GeneralityScorer(difficulty=D_SMALL, bins=2, min_tasks_per_bin=1)
    scorer.set_output(transform="pandas")
    out = scorer.fit_transform(X)
    assert list(out.columns) == list(FEATURE_NAMES)
    assert list(out.index) == ["ann", "bob", "cy"]
    assert list(scorer.feature_names_in_) == list(X.columns)
    result = scorer.item_curves(X, bins=2)  # capability as ability, under pandas
    np.testing.assert_allclose(result.abilities, out["capability"])
    curves = scorer.response_curves(X)
    assert list(curves.columns) == ["(0.1, 1.25]", "(1.25, 2.5]"]
    assert list(curves.index) == ["ann", "bob", "cy"]


@parametrize_with_checks(
    [GeneralityScorer(difficulty="rate", threshold=0.5, bins=3, min_tasks_per_bin=1)]
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)
