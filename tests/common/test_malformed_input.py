"""Malformed-input battery: every public estimator, converter, loader and command.

Each hostile input must give a ``ValueError`` or ``TypeError`` naming the
problem (or a documented warning, or a valid finite result where the input is
legal), never an unrelated exception, a hang or a silent NaN; and a fitted
estimator that receives it keeps predicting exactly as before. The table in
``docs/user_guide/reliability.rst`` summarises the categories tested here.
"""

from __future__ import annotations

import copy
import io
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.special import expit

from sklearn_eval import EloRanker, InfoGainSelector, MultiElo, NashAverager
from sklearn_eval.datasets import make_cyclic_game, make_irt_responses
from sklearn_eval.irt import IRT2PL, GeneralityScorer, theoretical_generality
from sklearn_eval.selection import SubsetScoreEstimator
from sklearn_eval.utils.estimator_checks import assert_same_outputs, fitted_outputs

ERRORS = (ValueError, TypeError)


# ---------------------------------------------------------------------------
# valid data of each shape
# ---------------------------------------------------------------------------
def _matches():
    rng = np.random.default_rng(0)
    players = np.array([f"p{k}" for k in range(6)])
    first = rng.integers(0, 6, 120)
    second = (first + rng.integers(1, 6, 120)) % 6
    X = np.column_stack([players[first], players[second]])
    y = rng.choice([0.0, 0.5, 1.0], size=120, p=[0.45, 0.1, 0.45])
    return X, y


def _scores():
    return np.random.default_rng(1).normal(size=(6, 5)), None


def _logits():
    return make_cyclic_game(6, cyclic_rank=1, random_state=0), None


def _probabilities():
    return expit(make_cyclic_game(6, cyclic_rank=1, random_state=0)), None


def _responses():
    X = make_irt_responses(40, 8, random_state=3)
    assert (X.min(axis=0) == 0).all() and (X.max(axis=0) == 1).all()
    return X, None


def _runs():
    rng = np.random.default_rng(2)
    y = np.repeat(["a", "b", "c"], 8)
    X = rng.normal(size=(24, 5)) + np.repeat([0.0, 1.0, 2.0], 8)[:, None]
    return X, y


DATA = {
    "matches": _matches,
    "scores": _scores,
    "logits": _logits,
    "probabilities": _probabilities,
    "responses": _responses,
    "runs": _runs,
}

ESTIMATORS = {
    "EloRanker(online)": (lambda: EloRanker(), "matches"),
    "EloRanker(batch)": (lambda: EloRanker(method="batch", alpha=0.01), "matches"),
    "MultiElo(online)": (lambda: MultiElo(random_state=0), "matches"),
    "MultiElo(batch)": (lambda: MultiElo(method="batch", random_state=0), "matches"),
    "NashAverager(avt)": (lambda: NashAverager(), "scores"),
    "NashAverager(avt,minmax)": (lambda: NashAverager(normalize="minmax"), "scores"),
    "NashAverager(ava,logit)": (
        lambda: NashAverager(game="agent_vs_agent"),
        "logits",
    ),
    "NashAverager(ava,probability)": (
        lambda: NashAverager(game="agent_vs_agent", payoff="probability"),
        "probabilities",
    ),
    "IRT2PL": (lambda: IRT2PL(max_iter=200), "responses"),
    "GeneralityScorer(rate)": (
        lambda: GeneralityScorer(difficulty="rate", bins=2, min_tasks_per_bin=1),
        "responses",
    ),
    "GeneralityScorer(irt)": (
        lambda: GeneralityScorer(
            difficulty=IRT2PL(max_iter=200), bins=2, min_tasks_per_bin=1
        ),
        "responses",
    ),
    "InfoGainSelector(runs)": (lambda: InfoGainSelector(n_tasks=2), "runs"),
    "InfoGainSelector(agents)": (
        lambda: InfoGainSelector(n_tasks=2, input="agents"),
        "scores",
    ),
    "SubsetScoreEstimator": (
        lambda: SubsetScoreEstimator(n_items=3, random_state=0),
        "responses",
    ),
}


# ---------------------------------------------------------------------------
# hostile inputs: category -> function(X, y) -> (X_bad, y_bad, message regex)
# ---------------------------------------------------------------------------
def _with(X, value, at=(1, 1)):
    X = np.array(X, dtype=np.float64)
    X[at] = value
    return X


def _frame_dup(X):
    columns = ["t"] * X.shape[1]
    return pd.DataFrame(X, columns=columns)


MATRIX_CASES = {
    "nan": lambda X, y: (_with(X, np.nan), y, r"NaN|missing"),
    "inf": lambda X, y: (_with(X, np.inf), y, r"infinit"),
    "1-D": lambda X, y: (np.asarray(X)[0], y, r"2-D|2D|dim"),
    "3-D": lambda X, y: (np.asarray(X)[:, :, None], y, r"2-D|dim 3|3-D"),
    "words": lambda X, y: (
        np.where(np.arange(X.shape[1]) == 0, "abc", np.asarray(X).astype(str)),
        y,
        r"number|numeric|convert string to float",
    ),
    "object-words": lambda X, y: (
        np.where(np.arange(X.shape[1]) == 0, "abc", np.asarray(X).astype(object)),
        y,
        r"number|numeric|convert string to float",
    ),
    "complex": lambda X, y: (np.asarray(X).astype(complex), y, r"[Cc]omplex"),
    "empty-rows": lambda X, y: (
        np.asarray(X)[:0],
        None if y is None else np.asarray(y)[:0],
        r"empty|0 sample|no run|0 class|at least",
    ),
    "empty-columns": lambda X, y: (np.asarray(X)[:, :0], y, r"empty|0 feature"),
    "duplicated-columns": lambda X, y: (
        _frame_dup(X),
        y,
        r"[Dd]uplicat|unique column",
    ),
    "sparse": lambda X, y: (sp.csr_matrix(np.asarray(X)), y, r"[Ss]parse"),
}

MATCH_CASES = {
    "one-column": lambda X, y: (X[:, :1], y, r"2 columns|shape"),
    "1-D": lambda X, y: (X[:, 0], y, r"shape"),
    "3-D": lambda X, y: (X[:, :, None], y, r"shape"),
    "empty": lambda X, y: (X[:0], y[:0], r"no matches"),
    "missing-label": lambda X, y: (
        np.where(np.arange(len(X))[:, None] == 3, None, X.astype(object)),
        y,
        r"missing player label .* row 3",
    ),
    "nan-label": lambda X, y: (
        np.where(np.arange(len(X))[:, None] == 2, np.nan, X.astype(object)),
        y,
        r"missing player label .* row 2",
    ),
    "self-play": lambda X, y: (
        np.vstack([X[:5], [["p1", "p1"]]]),
        np.r_[y[:5], 1.0],
        r"row 5 .*against itself",
    ),
    "mixed-label-types": lambda X, y: (
        np.array([["a", 1], [2, "b"], ["a", "b"]], dtype=object),
        [1.0, 0.0, 1.0],
        r"mix types",
    ),
    # a list: numpy would make "1" of 1 (a self-match) and compare as text
    "mixed-label-types-list": lambda X, y: (
        [["p0", 1], [1, "1"], ["p0", "p1"]],
        [1.0, 0.0, 1.0],
        r"mix types",
    ),
    "y-nan": lambda X, y: (X, np.r_[y[:4], np.nan, y[5:]], r"y .*row 4"),
    "y-inf": lambda X, y: (X, np.r_[y[:4], np.inf, y[5:]], r"y .*row 4"),
    "y-outside-{0,0.5,1}": lambda X, y: (X, np.r_[y[:4], 0.7, y[5:]], r"row 4"),
    "y-unknown-word": lambda X, y: (
        X, np.r_[["maybe"], y[1:].astype(str)], r"'maybe' at row 0"
    ),
    "y-wrong-length": lambda X, y: (X, y[:-1], r"same length"),
    "y-2-D": lambda X, y: (X, np.column_stack([y, y]), r"1-D"),
    "sparse": lambda X, y: (sp.csr_matrix(np.ones((3, 2))), [1, 0, 1], r"[Ss]parse"),
    "duplicated-columns": lambda X, y: (
        pd.DataFrame(X, columns=["p", "p"]),
        y,
        r"[Dd]uplicat|unique column",
    ),
}

# per-estimator extra cases (the checks that only apply to one input contract)
EXTRA_CASES = {
    "NashAverager(ava,logit)": {
        "non-antisymmetric": lambda X, y: (
            _with(X, X[1, 2] + 0.5, at=(1, 2)),
            y,
            r"A\[i, j\] = -A\[j, i\].*row 1, column 2",
        ),
        "non-square": lambda X, y: (X[:, :4], y, r"square"),
        "single-agent": lambda X, y: (X[:1, :1], y, r"minimum of 2"),
        "huge-1e300-entry": lambda X, y: (
            _with(X, 1e300, at=(0, 1)),
            y,
            r"antisymmetric|A\[i, j\] = -A\[j, i\]",
        ),
    },
    "NashAverager(ava,probability)": {
        "probability>1": lambda X, y: (
            _with(X, 1.5, at=(0, 2)),
            y,
            r"\[0, 1\].*row 0, column 2",
        ),
        "probability<0": lambda X, y: (
            _with(X, -0.1, at=(2, 0)),
            y,
            r"\[0, 1\].*row 2, column 0",
        ),
        "not-complementary": lambda X, y: (
            _with(X, 0.99, at=(3, 4)),
            y,
            r"P\[i, j\] \+ P\[j, i\] = 1",
        ),
        "non-square": lambda X, y: (X[:, :4], y, r"square"),
    },
    "NashAverager(avt)": {
        "single-agent": lambda X, y: (X[:1], y, r"minimum of 2"),
    },
    "IRT2PL": {
        "non-binary": lambda X, y: (_with(X, 0.5), y, r"binary.*row 1, column 1"),
        "huge-1e300": lambda X, y: (X * 1e300, y, r"binary"),
        "tiny-1e-300": lambda X, y: (X * 1e-300, y, r"binary"),
        "single-agent": lambda X, y: (X[:1], y, r"at least 2 agents"),
        "single-item": lambda X, y: (X[:, :1], y, r"at least 2 items"),
        "all-items-constant": lambda X, y: (
            np.ones_like(X),
            y,
            r"both successes and failures",
        ),
    },
    "GeneralityScorer(rate)": {
        "outside-[0,1]": lambda X, y: (X * 3 - 1, y, r"\[0(\.0)?, 1(\.0)?\]"),
        "huge-1e300": lambda X, y: (X * 1e300, y, r"\[0(\.0)?, 1(\.0)?\]"),
    },
    "GeneralityScorer(irt)": {
        "non-binary": lambda X, y: (_with(X, 0.5), y, r"binary"),
        "single-item": lambda X, y: (X[:, :1], y, r"at least 2 items"),
    },
    "InfoGainSelector(runs)": {
        "single-agent": lambda X, y: (X, np.full(len(y), "a"), r"at least 2 agents"),
        "single-run-per-agent": lambda X, y: (
            X[[0, 8, 16]],
            y[[0, 8, 16]],
            r"single run",
        ),
        "agent-without-runs-on-a-task": lambda X, y: (
            np.where((np.arange(len(y))[:, None] < 8) & (np.arange(5) == 2), np.nan, X),
            y,
            r"no run",
        ),
        "y-missing": lambda X, y: (X, None, r"y|requires"),
        "more-tasks-than-columns": lambda X, y: (X[:, :1], y, r"larger than"),
    },
    "InfoGainSelector(agents)": {
        "single-agent": lambda X, y: (X[:1], y, r"at least 2 agents"),
    },
    "SubsetScoreEstimator": {
        "non-binary": lambda X, y: (_with(X, 0.5), y, r"binary.*row 1, column 1"),
        "single-model": lambda X, y: (X[:1], y, r"at least 2 models"),
        "single-item": lambda X, y: (X[:, :1], y, r"at least 2 items"),
        "item-never-observed": lambda X, y: (
            _with(X, np.nan, (slice(None), 2)), y, r"column 2.*no observed"),
        "y-wrong-length": lambda X, y: (X, np.full(len(X) - 1, 0.5), r"entries"),
    },
}

# categories a contract accepts (legal input): the fit must succeed with finite
# results (and a documented warning where stated)
# sparse results are read as observed entries only (absent = missing): for
# these, the zero-free "sparse" case is legal new data once fitted
SPARSE_RESULTS_ALLOWED = {"IRT2PL"}

MATRIX_NAN_ALLOWED = {
    "IRT2PL",
    "SubsetScoreEstimator",
    "GeneralityScorer(rate)",
    "GeneralityScorer(irt)",
    "InfoGainSelector(runs)",
}
MATRIX_SKIP = {
    # empty columns of a run matrix: "no tasks" is reported as empty as well
}


def _cases(name):
    kind = ESTIMATORS[name][1]
    base = dict(MATCH_CASES) if kind == "matches" else dict(MATRIX_CASES)
    if name in MATRIX_NAN_ALLOWED:
        del base["nan"]
    base.update(EXTRA_CASES.get(name, {}))
    return base


PARAMS = [(name, case) for name in ESTIMATORS for case in _cases(name)]


def _fit(est, X, y):
    if y is None:
        return est.fit(X)
    return est.fit(X, y)


def _fitted(name):
    make, kind = ESTIMATORS[name]
    X, y = DATA[kind]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = _fit(make(), X, y)
    return est, X, y


def _snapshot(est, X, y):
    return copy.deepcopy(fitted_outputs(est, X, None if y is None else y))


@pytest.mark.parametrize(("name", "case"), PARAMS, ids=[f"{n}-{c}" for n, c in PARAMS])
def test_fit_rejects_with_clear_message_and_keeps_state(name, case):
    est, X, y = _fitted(name)
    before = _snapshot(est, X, y)
    X_bad, y_bad, message = _cases(name)[case](X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ERRORS, match=message):
            if ESTIMATORS[name][1] == "runs" or y_bad is not None:
                est.fit(X_bad, y_bad)
            else:
                est.fit(X_bad)
    assert_same_outputs(before, _snapshot(est, X, y), rtol=0.0, what=case)


RATERS = [n for n, (_, kind) in ESTIMATORS.items() if kind == "matches"]
PARTIAL = [(n, c) for n in RATERS for c in MATCH_CASES]


@pytest.mark.parametrize(
    ("name", "case"), PARTIAL, ids=[f"{n}-{c}" for n, c in PARTIAL]
)
def test_partial_fit_rejects_and_keeps_state(name, case):
    est, X, y = _fitted(name)
    before = _snapshot(est, X, y)
    seen = est.n_matches_seen_
    X_bad, y_bad, message = MATCH_CASES[case](X, y)
    with pytest.raises(ERRORS, match=message):
        est.partial_fit(X_bad, y_bad)
    assert est.n_matches_seen_ == seen
    assert_same_outputs(before, _snapshot(est, X, y), rtol=0.0, what=case)


PREDICT_CASES = {
    "matches": ["one-column", "1-D", "3-D", "empty", "missing-label", "sparse"],
    "matrix": ["nan", "inf", "1-D", "3-D", "words", "complex", "empty-rows", "sparse"],
}


def _predict_params():
    params = []
    for name, (_, kind) in ESTIMATORS.items():
        family = "matches" if kind == "matches" else "matrix"
        for case in PREDICT_CASES[family]:
            if case == "nan" and name in MATRIX_NAN_ALLOWED:
                continue
            if case == "sparse" and name in SPARSE_RESULTS_ALLOWED:
                continue  # legal: absent entries are missing (tests/irt/test_sparse.py)
            if name.startswith("InfoGainSelector") and case in {
                "sparse",
                "nan",
                "inf",
                "words",
            }:
                continue  # a selector's transform only selects columns
            params.append((name, case))
    return params


@pytest.mark.parametrize(
    ("name", "case"), _predict_params(), ids=[f"{n}-{c}" for n, c in _predict_params()]
)
def test_output_methods_reject_and_keep_state(name, case):
    est, X, y = _fitted(name)
    before = _snapshot(est, X, y)
    X_bad, _, message = _cases(name)[case](X, y)
    methods = [
        m
        for m in ("predict", "predict_proba", "decision_function", "transform")
        if hasattr(est, m)
    ]
    assert methods
    for method in methods:
        with pytest.raises(ERRORS, match=message):
            getattr(est, method)(X_bad)
    assert_same_outputs(before, _snapshot(est, X, y), rtol=0.0, what=case)


@pytest.mark.parametrize(
    "name", [n for n, (_, kind) in ESTIMATORS.items() if kind != "matches"]
)
def test_wrong_number_of_columns_at_prediction(name):
    est, X, y = _fitted(name)
    before = _snapshot(est, X, y)
    with pytest.raises(ValueError, match=r"features|columns"):
        est.transform(np.asarray(X)[:, :-1])
    assert_same_outputs(before, _snapshot(est, X, y), rtol=0.0)


# ---------------------------------------------------------------------------
# legal edge cases: a valid, finite answer (and a documented warning)
# ---------------------------------------------------------------------------
def _all_finite(values):
    return np.isfinite(np.asarray(values, dtype=np.float64)).all()


def test_single_match_gives_finite_ratings():
    X = np.array([["a", "b"]])
    for est in (EloRanker(), MultiElo(random_state=0), EloRanker(method="batch")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, [1.0])
        assert _all_finite(est.ratings_)
        assert est.ratings_[0] >= est.ratings_[1]
        assert _all_finite(est.predict_proba(X))


def test_unseen_and_other_type_labels_at_prediction_get_the_initial_rating():
    X, y = _matches()
    elo = EloRanker().fit(X, y)
    proba = elo.predict_proba(np.array([["zz", 7]], dtype=object))
    assert proba[0, 1] == 0.5
    assert elo.decision_function([["p0", "zz"]])[0] == pytest.approx(
        (elo.ratings_[0] - 1500) / (400 / np.log(10))
    )


def test_partial_fit_with_labels_of_another_type_is_rejected_and_keeps_state():
    X, y = _matches()
    elo = EloRanker().fit(X, y)
    before = _snapshot(elo, X, y)
    with pytest.raises(TypeError, match="mix types"):
        elo.partial_fit(np.array([[1, 2]]), [1.0])
    assert_same_outputs(before, _snapshot(elo, X, y), rtol=0.0)


def test_float_labels_are_valid_players():
    X = np.array([[0.5, 1.5], [1.5, 2.5], [2.5, 0.5]])
    elo = EloRanker().fit(X, [1, 1, 0])
    assert elo.players_.tolist() == [0.5, 1.5, 2.5]


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
@pytest.mark.parametrize("estimator", ["EloRanker", "MultiElo"])
def test_batch_ratings_do_not_depend_on_the_weight_scale(estimator, scale):
    # regression: weights of 1e-150 or 1e300 silently gave all-equal ratings
    X, y = _matches()
    make = {
        "EloRanker": lambda: EloRanker(method="batch"),
        "MultiElo": lambda: MultiElo(method="batch", alpha=0.0, random_state=0),
    }[estimator]
    reference = make().fit(X, y).ratings_
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        scaled = make().fit(X, y, sample_weight=np.full(len(y), scale)).ratings_
    np.testing.assert_allclose(scaled, reference, rtol=1e-6)


def test_batch_alpha_is_relative_to_the_weight_scale():
    # weights c * w with alpha c * a have the same minimiser as (w, a)
    X, y = _matches()
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    a = EloRanker(method="batch", alpha=0.3).fit(X, y, sample_weight=w).ratings_
    b = (
        EloRanker(method="batch", alpha=0.3e-200)
        .fit(X, y, sample_weight=w * 1e-200)
        .ratings_
    )
    np.testing.assert_allclose(a, b, rtol=1e-9)


def test_zero_weights_are_refused_not_fitted():
    # weights summing to 0 leave no match to count: a clear error, not
    # everyone at the mean (tests/pairwise/test_elo.py covers every rater)
    X, y = _matches()
    with pytest.raises(ValueError, match="the weights sum to 0"):
        EloRanker(method="batch").fit(X, y, sample_weight=np.zeros(len(y)))


def test_online_divergence_is_reported_not_returned_as_nan():
    X, y = _matches()
    with pytest.raises(ValueError, match="diverged"), pytest.warns(
        UserWarning, match="single matches dominate"
    ):
        MultiElo(random_state=0).fit(X, y, sample_weight=np.full(len(y), 1e300))


@pytest.mark.parametrize("scale", [1e-300, 1e300])
@pytest.mark.parametrize(
    "make",
    [
        lambda: NashAverager(),
        lambda: NashAverager(game="agent_vs_agent"),
    ],
    ids=["avt", "ava"],
)
def test_nash_is_scale_invariant_at_extreme_magnitudes(make, scale):
    X = _scores()[0] if make().game == "agent_vs_task" else _logits()[0]
    reference = make().fit(X)
    scaled = make().fit(X * scale)
    np.testing.assert_allclose(
        scaled.agent_distribution_, reference.agent_distribution_, atol=1e-9
    )
    assert _all_finite(scaled.agent_skill_)
    assert _all_finite(scaled.transform(X * scale))


def test_nash_zscore_at_extreme_magnitudes_matches_unit_scale():
    X = _scores()[0]
    reference = NashAverager(normalize="zscore").fit(X)
    for scale in (1e-300, 1e300):
        scaled = NashAverager(normalize="zscore").fit(X * scale)
        np.testing.assert_allclose(
            scaled.agent_distribution_, reference.agent_distribution_, atol=1e-9
        )


def test_nash_constant_task_with_normalisation_warns():
    X = _scores()[0]
    X[:, 2] = 4.0
    with pytest.warns(UserWarning, match=r"\[2\] are constant"):
        nash = NashAverager(normalize="minmax").fit(X)
    assert _all_finite(nash.agent_skill_)
    assert np.all(nash.payoff_[:, 2] == 0)


def test_nash_single_task_is_a_valid_game():
    X = _scores()[0][:, :1]
    nash = NashAverager().fit(X)
    assert nash.agent_distribution_[np.argmax(X[:, 0])] == pytest.approx(1.0)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
@pytest.mark.parametrize("scale_name", ["sum_std", "pooled"])
def test_information_gain_stays_finite_at_extreme_magnitudes(scale, scale_name):
    # regression: means of 1e300 gave NaN gains and an IndexError
    X = _scores()[0]
    selector = InfoGainSelector(n_tasks=2, input="agents", pair_spread=scale_name)
    selector.fit(X * scale)
    assert _all_finite(selector.information_gain_)
    assert _all_finite(selector.cumulative_gain_)
    assert np.all(selector.information_gain_ >= 0)
    assert np.all(selector.information_gain_ <= np.log2(6) + 1e-12)
    if scale > 1:  # far apart: every task identifies every agent
        np.testing.assert_allclose(selector.information_gain_, np.log2(6))
    else:  # far below the spread offset: no task tells agents apart
        np.testing.assert_allclose(selector.information_gain_, 0.0, atol=1e-9)


def test_information_gain_affine_invariance_without_offset_at_1e300():
    X = _scores()[0]
    stds = np.full_like(X, 0.7)
    ref = InfoGainSelector(n_tasks=2, input="agents", std_offset=0).fit(X, X_std=stds)
    big = InfoGainSelector(n_tasks=2, input="agents", std_offset=0).fit(
        X * 1e300, X_std=stds * 1e300
    )
    np.testing.assert_allclose(big.information_gain_, ref.information_gain_, rtol=1e-9)


def test_information_gain_constant_task_adds_nothing():
    X, y = _runs()
    X[:, 3] = 1.0
    selector = InfoGainSelector(n_tasks=2).fit(X, y)
    assert selector.information_gain_[3] == pytest.approx(0.0, abs=1e-12)
    assert 3 not in selector.selection_order_


def test_irt_constant_item_is_left_out_with_a_warning():
    X = _responses()[0].copy()
    X[:, 4] = 1.0
    with pytest.warns(UserWarning, match="left out"):
        model = IRT2PL(max_iter=200).fit(X)
    assert model.constant_items_.tolist() == [4]
    assert np.isnan(model.difficulty_[4]) and np.isnan(model.discrimination_[4])
    others = np.delete(model.difficulty_, 4)
    assert _all_finite(others)
    assert _all_finite(model.transform(X))


def test_generality_single_agent_and_constant_matrix_are_valid():
    X = _responses()[0]
    difficulty = np.linspace(-1, 1, X.shape[1])
    scorer = GeneralityScorer(difficulty=difficulty, bins=2, min_tasks_per_bin=1)
    out = scorer.fit(X[:1]).transform(X[:1])
    assert out.shape[0] == 1
    with pytest.warns(UserWarning, match="one difficulty bin"):
        GeneralityScorer(difficulty="rate", bins=2, min_tasks_per_bin=1).fit(
            np.ones_like(X)
        )


def test_generality_threshold_accepts_any_finite_scores():
    X = np.random.default_rng(0).normal(size=(10, 8)) * 1e300
    scorer = GeneralityScorer(
        difficulty="rate", threshold=0.0, bins=2, min_tasks_per_bin=1
    )
    out = scorer.fit_transform(X)
    names = list(scorer.get_feature_names_out())
    assert _all_finite(out[:, names.index("mean_score")])


# ---------------------------------------------------------------------------
# functions: converters, validators, game tools, selection functions
# ---------------------------------------------------------------------------
def _functions():
    from sklearn_eval import game, metrics, selection, utils

    X, y = _matches()
    S = _scores()[0]
    A = _logits()[0]
    P = _probabilities()[0]
    long = pd.DataFrame({"agent": ["a", "b"], "task": ["t", "t"], "score": [1, 2]})
    R = _responses()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        irt_model = IRT2PL(max_iter=100).fit(R)
    return [
        # (id, call, message)
        (
            "matches_to_win_matrix-self-play",
            lambda: utils.matches_to_win_matrix([["a", "a"]], [1]),
            "against itself",
        ),
        (
            "matches_to_win_matrix-bad-y",
            lambda: utils.matches_to_win_matrix(X, np.r_[2.0, y[1:]]),
            "row 0",
        ),
        (
            "matches_to_win_matrix-unknown-player",
            lambda: utils.matches_to_win_matrix(X, y, players=["p0", "p1"]),
            "not in players",
        ),
        (
            "matches_to_win_rate-empty",
            lambda: utils.matches_to_win_rate(X[:0], y[:0]),
            "no matches",
        ),
        (
            "matches_to_win_rate-mixed-labels",
            lambda: utils.matches_to_win_rate(np.array([["a", 1]], dtype=object), [1]),
            "mix types",
        ),
        (
            "win_probability_to_matches-outside-[0,1]",
            lambda: utils.win_probability_to_matches(P * 3),
            r"\[0, 1\]|\[0.0, 1.0\]",
        ),
        (
            "win_probability_to_matches-nan",
            lambda: utils.win_probability_to_matches(_with(P, np.nan, at=(0, 1))),
            "NaN|finite|missing",
        ),
        (
            "win_probability_to_matches-non-square",
            lambda: utils.win_probability_to_matches(P[:, :3]),
            "square",
        ),
        (
            "long_to_result_matrix-missing-column",
            lambda: utils.long_to_result_matrix(long.drop(columns="score")),
            "score",
        ),
        (
            "long_to_result_matrix-words",
            lambda: utils.long_to_result_matrix(long.assign(score=["x", "y"])),
            "numeric",
        ),
        (
            "long_to_result_matrix-inf",
            lambda: utils.long_to_result_matrix(long.assign(score=[1, np.inf])),
            "infinite",
        ),
        (
            "long_to_result_matrix-empty",
            lambda: utils.long_to_result_matrix(long.iloc[:0]),
            "empty",
        ),
        (
            "long_to_result_matrix-repeats-with-error",
            lambda: utils.long_to_result_matrix(
                long.assign(agent=["a", "a"]), aggfunc="error"
            ),
            "a",
        ),
        (
            "binarize_scores-inf-threshold",
            lambda: utils.binarize_scores(S, np.inf),
            "finite",
        ),
        ("binarize_scores-1-D", lambda: utils.binarize_scores(S[0], 0.0), "2-D"),
        (
            "minmax_normalize-inf",
            lambda: utils.minmax_normalize(_with(S, np.inf)),
            "infinite",
        ),
        (
            "minmax_normalize-sparse-dia",
            lambda: utils.minmax_normalize(sp.dia_matrix(S)),
            "DIA format.*CSR, CSC or COO",
        ),
        (
            "baseline_normalize-equal-baselines",
            lambda: utils.baseline_normalize(S, 1.0, 1.0),
            "low|high|differ|equal",
        ),
        (
            "baseline_normalize-wrong-length",
            lambda: utils.baseline_normalize(S, np.zeros(3), np.ones(3)),
            "task|length",
        ),
        (
            "check_antisymmetric",
            lambda: utils.check_antisymmetric(_with(A, 9.0, at=(0, 1))),
            "antisymmetric",
        ),
        ("check_square", lambda: utils.check_square(S), "square"),
        ("check_in_bounds", lambda: utils.check_in_bounds(S, 0, 1), r"row \d"),
        (
            "check_binary_values",
            lambda: utils.check_binary_values(S),
            "binary responses",
        ),
        (
            "check_result_matrix-dup",
            lambda: utils.check_result_matrix(_frame_dup(S)),
            "duplicated column",
        ),
        (
            "hodge_decomposition-non-antisymmetric",
            lambda: game.hodge_decomposition(_with(A, 9.0, at=(0, 1))),
            "antisymm",
        ),
        (
            "hodge_decomposition-nan",
            lambda: game.hodge_decomposition(_with(A, np.nan, at=(0, 1))),
            "finite|NaN|missing",
        ),
        (
            "hodge_decomposition-non-square",
            lambda: game.hodge_decomposition(S),
            "square",
        ),
        (
            "schur_embedding-non-antisymmetric",
            lambda: game.schur_embedding(np.ones((4, 4))),
            "antisymm",
        ),
        ("grad-2-D", lambda: game.grad(S), "1-D|vector|shape"),
        (
            "maxent_nash-nan",
            lambda: game.maxent_nash(_with(S, np.nan)),
            "finite|NaN|missing",
        ),
        ("maxent_nash-1-D", lambda: game.maxent_nash(S[0]), "2-D|matrix|shape"),
        (
            "symmetric_maxent_nash-non-antisymmetric",
            lambda: game.symmetric_maxent_nash(S[:5, :5]),
            "antisymm",
        ),
        (
            "avt_embedding-inf",
            lambda: game.avt_embedding(_with(S, np.inf)),
            "finite|infinite",
        ),
        (
            "latent_factors-nan",
            lambda: game.latent_factors(_with(S, np.nan)),
            "finite|NaN|missing",
        ),
        ("complete_submatrix-1-D", lambda: game.complete_submatrix(S[0]), "2-D|shape"),
        (
            "information_gain-negative-std",
            lambda: selection.information_gain(S, -np.ones_like(S)),
            ">= 0",
        ),
        (
            "information_gain-shape-mismatch",
            lambda: selection.information_gain(S, np.ones((2, 2))),
            "same shape",
        ),
        (
            "information_gain-nan",
            lambda: selection.information_gain(_with(S, np.nan), np.ones_like(S)),
            "finite",
        ),
        (
            "greedy_select-too-many",
            lambda: selection.greedy_select(S, np.ones_like(S), 50),
            r"n_tasks .*got 50",
        ),
        (
            "task_clusters-nan",
            lambda: selection.task_clusters(_with(S, np.inf)),
            "finite|infinite",
        ),
        (
            "task_clusters-single-task",
            lambda: selection.task_clusters(S[:, :1]),
            "at least 2 tasks",
        ),
        (
            "subset_agreement-index-out-of-range",
            lambda: selection.subset_agreement(S, [0, 9]),
            r"\[0, 5\)",
        ),
        (
            "InfoGainSelector-mixed-agent-labels",
            lambda: selection.InfoGainSelector(n_tasks=1).fit(
                S, np.array([1, 1, "a", "a", 2, 2], dtype=object)
            ),
            "mixes agent labels",
        ),
        (
            "InfoGainSelector-missing-agent-label",
            lambda: selection.InfoGainSelector(n_tasks=1).fit(
                S, np.array([1, 1, 2, 2, None, None], dtype=object)
            ),
            "missing agent label .* row 4",
        ),
        (
            "match_log_loss-probability>1",
            lambda: metrics.match_log_loss([1, 0], [1.5, 0.5]),
            r"\[0, 1\].*row 0",
        ),
        (
            "match_log_loss-nan",
            lambda: metrics.match_log_loss([1, 0], [0.5, np.nan]),
            "row 1",
        ),
        (
            "match_log_loss-zero-weights",
            lambda: metrics.match_log_loss([1, 0], [0.5, 0.5], sample_weight=[0, 0]),
            "sums to zero",
        ),
        (
            "kendall_tau-nan",
            lambda: metrics.kendall_tau([1, 2, np.nan], [1, 2, 3]),
            "finite.*position 2",
        ),
        (
            "spearman_rho-single-agent",
            lambda: metrics.spearman_rho([1.0], [1.0]),
            "at least 2",
        ),
        (
            "IRT2PL.from_item_params-inf",
            lambda: IRT2PL.from_item_params([1.0, np.inf], [0.0, 1.0]),
            "finite",
        ),
        (
            "IRT2PL.from_item_params-lengths",
            lambda: IRT2PL.from_item_params([1.0, 1.0], [0.0, 1.0, 2.0]),
            "equal length",
        ),
        (
            "GeneralityScorer-nan-difficulty",
            lambda: GeneralityScorer(difficulty=[np.nan] * 5).fit(
                (S > 0).astype(float)[:, :5] if S.shape[1] >= 5 else np.ones((3, 5))
            ),
            "finite",
        ),
        (
            "GeneralityScorer-decreasing-edges",
            lambda: GeneralityScorer(difficulty="rate", bins=[1.0, 0.5, 2.0]).fit(
                (S > 0).astype(float)
            ),
            "strictly increasing",
        ),
        (
            "GeneralityScorer-negative-task-weights",
            lambda: GeneralityScorer(
                difficulty="rate", task_weights=[-1.0] * S.shape[1]
            ).fit((S > 0).astype(float)),
            ">= 0",
        ),
        (
            "complete_submatrix-words",
            lambda: game.complete_submatrix(np.array([["a", "b"], ["c", "d"]])),
            "must hold numbers",
        ),
        (
            "complete_submatrix-inf",
            lambda: game.complete_submatrix(_with(S, np.inf)),
            "infinite value at row 1, column 1",
        ),
        (
            "drop_incomplete-empty",
            lambda: game.drop_incomplete(S[:0]),
            "non-empty 2-D",
        ),
        (
            "drop_incomplete-nothing-left",
            lambda: game.drop_incomplete(
                np.array([[1.0, np.nan], [np.nan, 1.0]]),
                min_task_coverage=1.0,
                min_agent_coverage=1.0,
            ),
            "coverage thresholds",
        ),
        (
            "fill_win_rates-negative-min_count",
            lambda: game.fill_win_rates([["a", "b"]], [1.0], min_count=-1),
            "min_count",
        ),
        (
            "match_log_loss-words",
            lambda: metrics.match_log_loss(["win", "loss"], [0.5, 0.5]),
            "numeric",
        ),
        (
            "match_log_loss-three-columns",
            lambda: metrics.match_log_loss([1, 0], np.full((2, 3), 0.3)),
            r"shape \(n_matches, 2\)",
        ),
        (
            "match_log_loss-3-D",
            lambda: metrics.match_log_loss([1, 0], np.full((2, 2, 1), 0.5)),
            "1-D or 2-D",
        ),
        (
            "match_log_loss-lengths",
            lambda: metrics.match_log_loss([1, 0, 1], [0.5, 0.5]),
            "entries but y_true has 3",
        ),
        (
            "match_log_loss-y-2-D",
            lambda: metrics.match_log_loss(np.ones((2, 2)), [0.5, 0.5]),
            "y_true must be 1-D",
        ),
        (
            "task_clusters-bad-distance",
            lambda: selection.task_clusters(S, distance="euclid"),
            "distance must be one of",
        ),
        (
            "task_clusters-bad-method",
            lambda: selection.task_clusters(S, method="centroid"),
            "method must be one of",
        ),
        (
            "task_clusters-bad-criterion",
            lambda: selection.task_clusters(S, criterion="inconsistent"),
            "criterion must be one of",
        ),
        (
            "task_clusters-single-agent",
            lambda: selection.task_clusters(S[:1]),
            "at least 2 agents",
        ),
        (
            "check_result_matrix-datetimes",
            lambda: utils.check_result_matrix(
                np.array([["2020-01-01", "2020-01-02"]], dtype="datetime64[D]")
            ),
            "must hold numbers; got dtype datetime64",
        ),
        (
            "IRT2PL-a_prior-not-a-pair",
            lambda: IRT2PL(a_prior=("x", 1)).fit(R),
            r"a_prior must be None or a pair",
        ),
        (
            "IRT2PL-b_prior-zero-sd",
            lambda: IRT2PL(b_prior=(0.0, 0.0)).fit(R),
            r"b_prior must be \(mean, sd\) with finite mean and sd > 0",
        ),
        (
            "IRT2PL.icc-nan-theta",
            lambda: irt_model.icc([0.0, np.nan]),
            "theta must be finite",
        ),
        (
            "IRT2PL.item_information-inf-theta",
            lambda: irt_model.item_information(np.inf),
            "theta must be finite",
        ),
        (
            "IRT2PL.estimate_abilities-bad-method",
            lambda: irt_model.estimate_abilities(R, method="mle"),
            "method must be 'map', 'eap' or None",
        ),
        (
            "IRT2PL.estimate_abilities-non-binary",
            lambda: irt_model.estimate_abilities(R * 2),
            "binary",
        ),
        (
            "theoretical_generality-nan-ability",
            lambda: theoretical_generality([np.nan, 1.0], [0.0, 1.0]),
            "abilities must be finite",
        ),
        (
            "theoretical_generality-no-levels",
            lambda: theoretical_generality([0.0], []),
            "at least one level",
        ),
        (
            "theoretical_generality-inf-discrimination",
            lambda: theoretical_generality([0.0], [1.0], np.inf),
            "discrimination must be finite",
        ),
        (
            "GeneralityScorer-nan-threshold",
            lambda: GeneralityScorer(difficulty="rate", threshold=np.nan).fit(S),
            "finite",
        ),
    ]


FUNCTION_CASES = _functions()


@pytest.mark.parametrize(
    ("case", "call", "message"), FUNCTION_CASES, ids=[c[0] for c in FUNCTION_CASES]
)
def test_functions_reject_with_clear_message(case, call, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ERRORS, match=message):
            call()


def test_converters_leave_extremes_finite():
    from sklearn_eval import utils

    S = _scores()[0]
    for scale in (1e-300, 1e300):
        Z = utils.minmax_normalize(S * scale)
        assert _all_finite(Z) and Z.min() == 0.0 and Z.max() == 1.0
        B = utils.baseline_normalize(S * scale, -scale, scale)
        np.testing.assert_allclose(B, 100 * (S + 1) / 2)
    P = _probabilities()[0]
    P[0, 1], P[1, 0] = 1.0, 0.0  # 0/1 win rates
    X, y, w = utils.win_probability_to_matches(P)
    assert _all_finite(w) and (w >= 0).all()


# ---------------------------------------------------------------------------
# loaders
# ---------------------------------------------------------------------------
def _loader_cases():
    from sklearn_eval import datasets

    return [
        ("load_atari-kind", lambda: datasets.load_atari(kind="nope"), "kind"),
        (
            "load_atari-as_frame",
            lambda: datasets.load_atari(as_frame="yes"),
            "as_frame",
        ),
        (
            "load_automl_benchmark-budget",
            lambda: datasets.load_automl_benchmark(budget="2h"),
            "budget",
        ),
        (
            "load_automl_benchmark-kind",
            lambda: datasets.load_automl_benchmark(kind="all_of_it"),
            "kind",
        ),
        (
            "load_international_football-subset",
            lambda: datasets.load_international_football(subset="moon"),
            "subset",
        ),
        (
            "load_chembench-as_frame",
            lambda: datasets.load_chembench(as_frame=1.5),
            "as_frame",
        ),
        (
            "make_matches-negative",
            lambda: datasets.make_matches(n_players=-1),
            "n_players",
        ),
        (
            "make_matches-one-player",
            lambda: datasets.make_matches(n_players=1),
            "n_players",
        ),
        (
            "make_matches-draw_rate",
            lambda: datasets.make_matches(draw_rate=2.0),
            "draw_rate",
        ),
        (
            "make_irt_responses-missing_rate",
            lambda: datasets.make_irt_responses(5, 5, missing_rate=1.5),
            "missing_rate",
        ),
        (
            "make_irt_responses-float-n",
            lambda: datasets.make_irt_responses(5.5, 5),
            "n_agents",
        ),
        (
            "make_cyclic_game-nan-scale",
            lambda: datasets.make_cyclic_game(5, cyclic_scale=np.nan),
            "cyclic_scale",
        ),
    ]


LOADER_CASES = _loader_cases()


@pytest.mark.parametrize(
    ("case", "call", "message"), LOADER_CASES, ids=[c[0] for c in LOADER_CASES]
)
def test_loaders_and_generators_reject_bad_arguments(case, call, message):
    with pytest.raises(ERRORS, match=message):
        call()


# ---------------------------------------------------------------------------
# command line: a missing file, a missing column, a bad row -> one line, exit 2
# ---------------------------------------------------------------------------
def _run_cli(argv, capsys):
    from sklearn_eval.cli import main

    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue(), capsys.readouterr().err


def _write(path, text):
    path.write_text(text)
    return str(path)


RESULT_COMMANDS = ["nash", "irt", "generality", "select", "report"]
WIDE = "agent,t1,t2,t3\nA,1,0,1\nB,0,0,1\nC,1,1,0\nD,0,1,1\n"
CLI_RESULT_CASES = {
    "missing-file": (None, [], "file not found"),
    "missing-column": (
        "agent,task\nA,t1\nB,t1\n",
        ["--format", "long"],
        "has no column",
    ),
    "bad-row": ("agent,t1,t2\nA,1,0\nB,1,oops\nC,0,1\n", [], "line 3"),
    "ragged-row": ("agent,t1,t2\nA,1,0\nB,1\nC,0,1\n", [], "line 3"),
    "infinite": ("agent,t1,t2\nA,1,0\nB,inf,1\nC,0,1\n", [], "infinite"),
    "huge-1e400": ("agent,t1,t2\nA,1,0\nB,1e400,1\nC,0,1\n", [], "infinite"),
    "duplicated-column": ("agent,t1,t1\nA,1,0\nB,0,1\n", [], "twice"),
}


@pytest.mark.parametrize("command", RESULT_COMMANDS)
@pytest.mark.parametrize("case", sorted(CLI_RESULT_CASES))
def test_cli_result_commands_fail_with_one_line(command, case, tmp_path, capsys):
    content, extra, message = CLI_RESULT_CASES[case]
    path = tmp_path / "data.csv"
    if content is not None:
        path.write_text(content)
    argv = [command, str(path), *extra, "-q"]
    if command == "report":
        argv += ["--output", str(tmp_path / "r.html"), "--no-figures"]
    code, out, err = _run_cli(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err


CLI_MATCH_CASES = {
    "missing-file": (None, "file not found"),
    "missing-column": ("first,second\na,b\n", "has no column"),
    "bad-row-outcome": ("first,second,outcome\na,b,1\nb,c,banana\n", "line 3"),
    "bad-row-self-play": ("first,second,outcome\na,b,1\nc,c,0\n", "line 3"),
    "bad-row-nan-outcome": ("first,second,outcome\na,b,1\nb,c,nan\n", "missing"),
}


@pytest.mark.parametrize("model_method", ["elo online", "elo batch", "melo online"])
@pytest.mark.parametrize("case", sorted(CLI_MATCH_CASES))
def test_cli_rank_fails_with_one_line(model_method, case, tmp_path, capsys):
    content, message = CLI_MATCH_CASES[case]
    path = tmp_path / "m.csv"
    if content is not None:
        path.write_text(content)
    model, method = model_method.split()
    argv = ["rank", str(path), "--model", model, "--method", method, "-q"]
    code, _, err = _run_cli(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and message in err, err


def test_cli_hostile_but_valid_matrix_gives_a_table(tmp_path, capsys):
    # a single constant item and huge scores: warnings are one line each
    path = _write(
        tmp_path / "w.csv", "agent,t1,t2,t3\nA,1e300,0,1\nB,0,0,1\nC,1,1e300,1\n"
    )
    code, out, err = _run_cli(["nash", path, "-q"], capsys)
    assert code == 0, err
    assert "A" in out and "nan" not in out.lower()


# ---------------------------------------------------------------------------
# uncertainty
# ---------------------------------------------------------------------------
UNCERTAINTY_CASES = [
    ("resample", {"resample": "rows"}, "resample must be one of"),
    ("n_resamples", {"n_resamples": 0}, "n_resamples must be an int >= 2"),
    ("confidence_level", {"confidence_level": 2.0}, r"confidence_level .*\(0, 1\)"),
    ("confidence_level-nan", {"confidence_level": np.nan}, "confidence_level"),
    ("statistic-length", {"statistic": lambda e: np.ones(3)}, "3 values"),
]


@pytest.mark.parametrize(
    ("case", "kwargs", "message"),
    UNCERTAINTY_CASES,
    ids=[c[0] for c in UNCERTAINTY_CASES],
)
def test_bootstrap_rejects_bad_arguments(case, kwargs, message):
    from sklearn_eval.uncertainty import bootstrap_ranking

    params = {
        "statistic": lambda est: est.agent_skill_,
        "resample": "tasks",
        "n_resamples": 5,
        "random_state": 0,
        **kwargs,
    }
    with pytest.raises(ERRORS, match=message):
        bootstrap_ranking(NashAverager(), _scores()[0], **params)


def test_bootstrap_nan_statistic_is_not_silent():
    from sklearn_eval.uncertainty import bootstrap_ranking

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            bootstrap_ranking(
                NashAverager(),
                _scores()[0],
                statistic=lambda est: np.full(6, np.nan),
                resample="tasks",
                n_resamples=5,
                random_state=0,
            )
        except ValueError:
            return
    assert caught, "a NaN statistic gave NaN intervals silently"


def test_bootstrap_bad_statistic_type_names_the_parameter():
    from sklearn_eval.uncertainty import bootstrap_ranking

    with pytest.raises(TypeError, match="statistic"):
        bootstrap_ranking(
            NashAverager(), _scores()[0], statistic=3, resample="tasks", n_resamples=5
        )


def test_bradley_terry_bootstrap_does_not_depend_on_the_weight_scale():
    from sklearn_eval.pairwise import bootstrap_bradley_terry

    X, y = _matches()

    def low(scale):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bootstrap_bradley_terry(
                EloRanker(method="batch"),  # alpha=0: the MLE ignores the scale
                X,
                y,
                sample_weight=np.full(len(y), scale),
                n_resamples=20,
                random_state=0,
            ).low

    np.testing.assert_allclose(low(1e-150), low(1.0), rtol=1e-6)
