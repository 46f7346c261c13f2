"""Classes of hostile input, each tested across every API it can reach.

- missing labels (None, NaN, pd.NA) in agent, task or player columns are an
  error that names the row, never merged into another label or a task 'nan';
- finite but huge values (1e154 .. 1.8e308) give finite answers (the methods
  work in a safe scale), never NaN;
- complex numbers where reals are expected are rejected, never silently
  truncated to their real part;
- an unknown statistic name is a ValueError listing the valid ones.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_eval import EloRanker, InfoGainSelector, MultiElo
from sklearn_eval.game import fill_win_rates
from sklearn_eval.metrics import match_log_loss
from sklearn_eval.selection import confusion_matrix, information_gain
from sklearn_eval.uncertainty import bootstrap_ranking
from sklearn_eval.utils import (
    baseline_normalize,
    check_matches,
    long_to_result_matrix,
    matches_to_win_matrix,
    matches_to_win_rate,
    minmax_normalize,
)

MISSING = [None, np.nan, float("nan"), pd.NA]
MISSING_IDS = ["None", "np.nan", "float-nan", "pd.NA"]


# ---------------------------------------------------------------------------
# missing labels
# ---------------------------------------------------------------------------
def _long_table(column, missing, row):
    table = pd.DataFrame(
        {
            "agent": ["a", "a", "b", "b", "c"],
            "task": ["t", "u", "t", "u", "t"],
            "score": [1.0, 2.0, 3.0, 4.0, 5.0],
        }
    )
    table[column] = table[column].astype(object)
    table.loc[row, column] = missing
    return table


@pytest.mark.parametrize("missing", MISSING, ids=MISSING_IDS)
@pytest.mark.parametrize("column", ["agent", "task"])
@pytest.mark.parametrize("row", [0, 3])
def test_long_table_with_a_missing_label_names_the_row(column, missing, row):
    table = _long_table(column, missing, row)
    with pytest.raises(ValueError, match=rf"Column '{column}'.*missing.*row {row}"):
        long_to_result_matrix(table)
    as_dict = {k: table[k].tolist() for k in table}
    with pytest.raises(ValueError, match=rf"row {row}"):
        long_to_result_matrix(as_dict)


def _matches_with(missing, row, column):
    X = np.array([["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]], dtype=object)
    X[row, column] = missing
    return X, np.array([1.0, 0.0, 0.5, 1.0])


MATCH_APIS = {
    "check_matches": lambda X, y: check_matches(X, y),
    "EloRanker.fit": lambda X, y: EloRanker().fit(X, y),
    "EloRanker(batch).fit": lambda X, y: EloRanker(method="batch").fit(X, y),
    "MultiElo.fit": lambda X, y: MultiElo(random_state=0).fit(X, y),
    "EloRanker.partial_fit": lambda X, y: EloRanker().partial_fit(X, y),
    "matches_to_win_matrix": lambda X, y: matches_to_win_matrix(X, y),
    "matches_to_win_rate": lambda X, y: matches_to_win_rate(X, y),
    "fill_win_rates": lambda X, y: fill_win_rates(X, y),
}


@pytest.mark.parametrize("api", list(MATCH_APIS))
@pytest.mark.parametrize("missing", MISSING, ids=MISSING_IDS)
@pytest.mark.parametrize(("row", "column"), [(0, 0), (2, 1)])
def test_match_apis_reject_a_missing_player_naming_the_row(api, missing, row, column):
    X, y = _matches_with(missing, row, column)
    with pytest.raises(ValueError, match=rf"missing player label.*row {row}"):
        MATCH_APIS[api](X, y)
    frame = pd.DataFrame(X, columns=["first", "second"])
    with pytest.raises(ValueError, match=rf"row {row}"):
        MATCH_APIS[api](frame, y)
    with pytest.raises(ValueError, match=rf"row {row}"):
        MATCH_APIS[api](X.tolist(), y)


@pytest.mark.parametrize("missing", MISSING, ids=MISSING_IDS)
def test_run_level_selection_rejects_a_missing_agent(missing):
    X = np.random.default_rng(0).normal(size=(6, 3))
    y = np.array(["a", "a", "b", "b", "c", "c"], dtype=object)
    y[3] = missing
    with pytest.raises(ValueError, match="missing agent label.*row 3"):
        InfoGainSelector(n_tasks=1).fit(X, y)


# ---------------------------------------------------------------------------
# huge but finite values
# ---------------------------------------------------------------------------
HUGE = st.floats(min_value=1e154, max_value=1e307)


def _scores(seed, n_agents=6, n_tasks=4):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, size=(n_agents, n_tasks))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), scale=HUGE)
def test_minmax_normalize_is_scale_free_at_huge_magnitudes(seed, scale):
    X = _scores(seed)
    huge = minmax_normalize(X * scale * 1.7)
    assert np.isfinite(huge).all()
    assert_allclose(huge, minmax_normalize(X), atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), scale=HUGE)
def test_baseline_normalize_is_scale_free_at_huge_magnitudes(seed, scale):
    X = _scores(seed)
    low, high = -np.ones(4), np.full(4, 1.5)
    huge = baseline_normalize(X * scale, low * scale, high * scale)
    assert np.isfinite(huge).all()
    assert_allclose(huge, baseline_normalize(X, low, high), rtol=1e-12, atol=1e-10)


def test_baseline_normalize_says_when_no_finite_answer_exists():
    with pytest.raises(ValueError, match="exceed the float64 range"):
        baseline_normalize([[1.7e308]], low=-1e-300, high=1e-300)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), scale=HUGE,
       spread=st.sampled_from(["sum_std", "pooled"]))
def test_information_gain_is_scale_free_at_huge_magnitudes(seed, scale, spread):
    rng = np.random.default_rng(seed)
    means = rng.uniform(-1.0, 1.0, size=(5, 3))
    stds = rng.uniform(0.05, 0.5, size=(5, 3))
    gain = information_gain(means * scale * 1.7, stds * scale * 1.7,
                            pair_spread=spread)
    assert np.isfinite(gain)
    assert gain == pytest.approx(
        information_gain(means, stds, pair_spread=spread), abs=1e-9
    )
    C = confusion_matrix(means * scale, stds * scale, pair_spread=spread)
    assert np.isfinite(C).all()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), scale=HUGE)
def test_run_level_selection_is_scale_free_at_huge_magnitudes(seed, scale):
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b", "c"], 4)
    X = rng.normal(size=(12, 3)) + np.repeat([0.0, 1.0, 2.0], 4)[:, None]
    huge = InfoGainSelector(n_tasks=2, std_offset=0.0).fit(X * scale * 1.7, y)
    unit = InfoGainSelector(n_tasks=2, std_offset=0.0).fit(X, y)
    assert np.isfinite(huge.information_gain_).all()
    assert_allclose(huge.information_gain_, unit.information_gain_, atol=1e-9)
    assert np.isfinite(huge.means_).all() and np.isfinite(huge.stds_).all()


@pytest.mark.parametrize("weight", [1e154, 1e300, 1.7e308])
def test_win_rates_with_huge_weights_are_finite(weight):
    X = [["a", "b"], ["b", "a"], ["a", "b"], ["a", "c"]]
    y = [1.0, 0.0, 0.5, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rates, counts, _ = matches_to_win_rate(X, y, np.full(4, weight))
    reference, _, _ = matches_to_win_rate(X, y)
    assert_allclose(rates, reference, equal_nan=True)
    assert not np.isnan(counts).any()


# ---------------------------------------------------------------------------
# complex numbers where reals are expected
# ---------------------------------------------------------------------------
_X = np.array([["a", "b"], ["b", "c"], ["c", "a"]])
_Y_COMPLEX = np.array([1.0 + 0.5j, 0.0 + 0j, 0.5 + 0j])

COMPLEX_CALLS = {
    "EloRanker.fit y": lambda: EloRanker().fit(_X, _Y_COMPLEX),
    "EloRanker.partial_fit y": lambda: EloRanker().partial_fit(_X, _Y_COMPLEX),
    "MultiElo.fit y": lambda: MultiElo().fit(_X, _Y_COMPLEX),
    "EloRanker.fit sample_weight": lambda: EloRanker().fit(
        _X, [1.0, 0.0, 0.5], sample_weight=_Y_COMPLEX + 1
    ),
    "EloRanker.score y": lambda: EloRanker().fit(_X, [1.0, 0.0, 0.5]).score(
        _X, _Y_COMPLEX
    ),
    "check_matches y": lambda: check_matches(_X, _Y_COMPLEX),
    "matches_to_win_rate y": lambda: matches_to_win_rate(_X, _Y_COMPLEX),
    "match_log_loss y_true": lambda: match_log_loss(_Y_COMPLEX, [0.5, 0.5, 0.5]),
    "long_to_result_matrix score": lambda: long_to_result_matrix(
        {"agent": ["a", "b"], "task": ["t", "t"], "score": [1 + 1j, 2 + 0j]}
    ),
    "InfoGainSelector X": lambda: InfoGainSelector(n_tasks=1, input="agents").fit(
        np.ones((3, 2)) * (1 + 1j)
    ),
}


@pytest.mark.parametrize("call", list(COMPLEX_CALLS))
def test_complex_input_is_rejected_not_truncated(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        with pytest.raises((TypeError, ValueError), match="(?i)complex"):
            COMPLEX_CALLS[call]()


# ---------------------------------------------------------------------------
# unknown statistic names
# ---------------------------------------------------------------------------
def test_unknown_statistic_lists_the_valid_names():
    X = np.random.default_rng(0).normal(size=(5, 4))
    from sklearn_eval import NashAverager

    with pytest.raises(ValueError, match=r"statistic='skill_'.*agent_skill_"):
        bootstrap_ranking(NashAverager(), X, statistic="skill_", resample="tasks",
                          n_resamples=3, random_state=0)
