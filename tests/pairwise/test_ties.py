"""Tie models, covariates and a fitted first-player advantage in EloRanker's batch fit.

The likelihoods are checked against an independent maximum-likelihood fit
written here from the textbook formulas (strengths pi = exp(r), Davidson's
and Rao-Kupper's probabilities) and minimised by scipy, and against
arena-rank's contextual Bradley-Terry (reference numbers in
fixtures_arena.py); the rest checks the API, the invariances and the errors.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from sklearn_eval.datasets import make_matches
from sklearn_eval.metrics import (
    match_log_loss,
    three_outcome_log_loss,
    three_outcome_log_loss_scorer,
)
from sklearn_eval.pairwise import EloRanker, MultiElo, _extended, _ties
from sklearn_eval.pairwise._tie_kernels import cell_terms
from sklearn_eval.utils.estimator_checks import (
    check_estimator_contract,
    fitted_outputs,
)
from tests.pairwise import fixtures_arena as F

ELO = 400.0 / math.log(10.0)


def advantage_matches(n_players=8, n_matches=5000, advantage=60.0, seed=0):
    """Bradley-Terry matches (10% draws) where the first player has an edge."""
    rng = np.random.default_rng(seed)
    strengths = rng.normal(0.0, 1.0, n_players)
    first = rng.integers(0, n_players, n_matches)
    second = (first + rng.integers(1, n_players, n_matches)) % n_players
    p = 1.0 / (1.0 + np.exp(-(strengths[first] - strengths[second]
                              + advantage / ELO)))
    y = (rng.uniform(size=n_matches) < p).astype(float)
    y[rng.uniform(size=n_matches) < 0.1] = 0.5
    return np.column_stack([first, second]), y


def style_table(seed=0, n_players=10, n_matches=3000, n_covariates=3, nu=0.6,
                frame=False):
    first, second, x, y, strengths = F.style_matches(
        seed=seed, n_players=n_players, n_matches=n_matches, nu=nu,
        beta=F.STYLE_BETA[:n_covariates],
    )
    names = np.array([f"m{k:02d}" for k in range(n_players)], dtype=object)
    if frame:
        X = pd.DataFrame({"a": names[first], "b": names[second]})
        for k in range(n_covariates):
            X[F.STYLE_NAMES[k]] = x[:, k]
    else:
        X = np.column_stack([names[first], names[second], x[:, :n_covariates]])
        if n_covariates == 0:
            X = X[:, :2]
    return X, y, strengths


# ---------------------------------------------------------------------------
# an independent maximum-likelihood fit, from the textbook formulas
# ---------------------------------------------------------------------------
def textbook_loglik(params, model, first, second, x, y, weight, n, advantage):
    """Summed log-likelihood; params = log-strengths of players 1..n-1 (player 0
    fixed at 0), then [advantage], then the coefficients, then the log tie
    parameter (Davidson: log nu; Rao-Kupper: log(log theta))."""
    log_pi = np.concatenate([[0.0], params[: n - 1]])
    k = n - 1
    h = 0.0
    if advantage:
        h, k = params[k], k + 1
    beta = params[k: k + x.shape[1]]
    k += x.shape[1]
    pi_first = np.exp(log_pi[first] + h + x @ beta)
    pi_second = np.exp(log_pi[second])
    if model == "davidson":
        nu = np.exp(params[k])
        tie_term = nu * np.sqrt(pi_first * pi_second)
        denominator = pi_first + pi_second + tie_term
        p_win, p_tie = pi_first / denominator, tie_term / denominator
        p_loss = pi_second / denominator
    elif model == "rao-kupper":
        theta = np.exp(np.exp(params[k]))
        p_win = pi_first / (pi_first + theta * pi_second)
        p_loss = pi_second / (pi_second + theta * pi_first)
        p_tie = ((theta**2 - 1) * pi_first * pi_second
                 / ((pi_first + theta * pi_second) * (pi_second + theta * pi_first)))
    else:
        p_win = pi_first / (pi_first + pi_second)
        p_loss = 1.0 - p_win
        return float(weight @ (y * np.log(p_win) + (1 - y) * np.log(p_loss)))
    p = np.where(y == 1.0, p_win, np.where(y == 0.5, p_tie, p_loss))
    return float(weight @ np.log(p))


def central_gradient(f, x, h=1e-6):
    grad = np.empty_like(x)
    for k in range(x.shape[0]):
        step = np.zeros_like(x)
        step[k] = h
        grad[k] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def scipy_fit(model, first, second, x, y, weight, n, advantage):
    size = n - 1 + int(advantage) + x.shape[1] + (model != "half")

    def nll(p):
        return -textbook_loglik(p, model, first, second, x, y, weight, n, advantage)

    start = np.zeros(size)
    if model == "rao-kupper":
        start[-1] = math.log(0.5)
    result = scipy.optimize.minimize(
        nll, start, jac=lambda p: central_gradient(nll, p), method="BFGS",
        options={"gtol": 1e-7, "maxiter": 10_000},
    )
    return result.x, -result.fun


def ours_as_textbook(est, model, n, advantage):
    """The estimator's fit in the textbook parameters."""
    r = (est.ratings_ - est.ratings_[0]) / ELO
    params = list(r[1:])
    if advantage:
        params.append(est.first_advantage_ / ELO)
    if hasattr(est, "covariate_coef_"):
        params.extend(est.covariate_coef_ / ELO)
    if model == "davidson":
        params.append(math.log(est.tie_param_))
    elif model == "rao-kupper":
        params.append(math.log(math.log(est.tie_param_)))
    return np.array(params)


CASES = [
    ("davidson", 0, False, False),
    ("davidson", 3, False, False),
    ("davidson", 2, True, True),
    ("rao-kupper", 0, False, False),
    ("rao-kupper", 3, False, False),
    ("rao-kupper", 2, True, True),
    ("half", 3, True, False),
]


@pytest.mark.parametrize("model,n_covariates,advantage,weighted", CASES)
def test_loglik_equals_an_independent_scipy_fit(model, n_covariates, advantage,
                                                weighted):
    n = 8
    first, second, x, y, _ = F.style_matches(seed=1, n_players=n, n_matches=2500)
    x = x[:, :n_covariates]
    weight = 1.0 + (first + 2 * second) % 3 if weighted else np.ones(y.shape[0])
    X = np.column_stack([first, second, x]) if n_covariates else np.column_stack(
        [first, second]
    )
    est = EloRanker(method="batch", ties=model,
                    first_advantage="fit" if advantage else 0.0, tol=1e-12)
    est.fit(X, y, sample_weight=weight)
    ours = ours_as_textbook(est, model, n, advantage)
    loglik = textbook_loglik(ours, model, first, second, x, y, weight, n, advantage)
    params, reference = scipy_fit(model, first, second, x, y, weight, n, advantage)
    assert abs(loglik - reference) <= 1e-6
    assert loglik >= reference - 1e-9  # the scipy fit is never better
    assert_allclose(ours, params, atol=1e-4)
    # score is the mean three-outcome log-likelihood; for "half" the ratings
    # are those of the half likelihood and a tie has the training tie share
    expected = loglik
    if model == "half":
        tie = y == 0.5
        share = weight[tie].sum() / weight.sum()
        expected = textbook_half_outcomes(ours, first, second, x, y, weight, n,
                                          advantage, share)
    assert est.score(X, y, sample_weight=weight) == pytest.approx(
        expected / weight.sum(), rel=1e-12
    )


def textbook_half_outcomes(params, first, second, x, y, weight, n, advantage,
                           share):
    """Summed three-outcome log-likelihood of the half model: a tie with
    probability ``share``, a decided match split by the Bradley-Terry odds."""
    log_pi = np.concatenate([[0.0], params[: n - 1]])
    k = n - 1
    h = 0.0
    if advantage:
        h, k = params[k], k + 1
    d = log_pi[first] + h + x @ params[k: k + x.shape[1]] - log_pi[second]
    p_win = 1.0 / (1.0 + np.exp(-d))
    p = np.where(y == 1.0, (1 - share) * p_win,
                 np.where(y == 0.5, share, (1 - share) * (1 - p_win)))
    return float(weight @ np.log(p))


def test_davidson_and_rao_kupper_reduce_to_bradley_terry_without_ties():
    X, y = make_matches(n_players=6, n_matches=2000, draw_rate=0.0, random_state=0)
    bt = EloRanker(method="batch").fit(X, y)
    for model, boundary in (("davidson", 0.0), ("rao-kupper", 1.0)):
        with pytest.warns(UserWarning, match="no tie"):
            est = EloRanker(method="batch", ties=model).fit(X, y)
        assert est.tie_param_ == boundary
        assert_allclose(est.ratings_, bt.ratings_, atol=1e-8)
        proba = est.predict_proba(X[:50])
        assert_allclose(proba[:, 1], 0.0)
        assert_allclose(proba[:, 2], bt.predict_proba(X[:50])[:, 1], atol=1e-12)


def test_a_tie_model_without_a_maximum_warns_and_stays_finite():
    # a never loses; b only loses to a and ties with c: under Davidson the
    # likelihood increases forever as nu and the gaps grow
    X = [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]] * 10
    y = [1.0, 0.5, 0.0, 0.5] * 10
    with pytest.warns(ConvergenceWarning, match="does not exist"):
        est = EloRanker(method="batch", ties="davidson").fit(X, y)
    assert np.all(np.isfinite(est.ratings_)) and np.isfinite(est.tie_param_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prior = EloRanker(method="batch", ties="davidson", alpha=0.1).fit(X, y)
    assert prior.ratings_.argmax() == 0 and 1 < prior.tie_param_ < 100


def test_all_ties_cannot_fit_a_tie_model():
    X = [["a", "b"], ["b", "c"], ["c", "a"]]
    with pytest.raises(ValueError, match="every match .* is a tie"):
        EloRanker(method="batch", ties="davidson").fit(X, [0.5, 0.5, 0.5])
    # the half model keeps accepting it
    EloRanker(method="batch").fit(X, [0.5, 0.5, 0.5])


# ---------------------------------------------------------------------------
# arena-rank's contextual Bradley-Terry (reference numbers in the fixture)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("label", ["UNWEIGHTED", "WEIGHTED"])
def test_style_control_matches_arena_rank(label):
    first, second, x, y, strengths = F.style_matches()
    weight = None if label == "UNWEIGHTED" else 1.0 + (first + second) % 3
    X = np.column_stack([first.astype(object), second.astype(object), x])
    est = EloRanker(method="batch", scale="logit").fit(X, y, sample_weight=weight)
    assert_allclose(est.covariate_coef_, getattr(F, f"ARENA_RANK_{label}_COEF"),
                    atol=1e-4)
    assert_allclose(est.ratings_, getattr(F, f"ARENA_RANK_{label}_RATINGS"),
                    atol=1e-4)
    # the sandwich standard errors agree too (arena-rank's own Hessian and
    # gradient covariance)
    assert_allclose(est.covariate_se_, getattr(F, f"ARENA_RANK_{label}_SE"),
                    rtol=1e-5)


# ---------------------------------------------------------------------------
# API: classes, probabilities, score, scorer, covariate layout
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
def test_three_outcome_api(model):
    X, y, _ = style_table(n_covariates=2)
    est = EloRanker(method="batch", ties=model).fit(X, y)
    assert est.classes_.tolist() == [0.0, 0.5, 1.0]
    proba = est.predict_proba(X)
    assert proba.shape == (len(y), 3)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-14)
    assert_array_equal(est.predict(X), est.classes_[proba.argmax(axis=1)])
    assert est.score(X, y) == pytest.approx(-three_outcome_log_loss(y, proba))
    assert three_outcome_log_loss_scorer(est, X, y) == pytest.approx(est.score(X, y))
    # decision_function is d, the strength difference both tie models use
    d = est.decision_function(X)
    internal = np.log(est.tie_param_)
    assert_allclose(proba, _extended.outcome_probabilities(model, d, internal))
    if model == "davidson":
        # the likelihood equation of log nu: predicted ties = observed ties
        assert proba[:, 1].mean() == pytest.approx(np.mean(y == 0.5), rel=1e-8)


def test_win_probabilities_of_a_tie_model_are_expected_scores():
    X, y, _ = style_table(n_covariates=0)
    est = EloRanker(method="batch", ties="davidson").fit(X, y)
    P = est.win_probabilities()
    assert_allclose(P + P.T, 1.0, atol=1e-14)
    labels = est.players_
    proba = est.predict_proba(np.column_stack([labels[[0, 3]], labels[[1, 5]]]))
    assert_allclose(P[[0, 3], [1, 5]], proba[:, 2] + 0.5 * proba[:, 1])


def test_covariates_from_a_dataframe_and_an_object_array_agree():
    X, y, _ = style_table(frame=True)
    by_frame = EloRanker(method="batch", ties="rao-kupper").fit(X, y)
    array = np.column_stack([X.iloc[:, :2].to_numpy(), X.iloc[:, 2:].to_numpy()])
    by_array = EloRanker(method="batch", ties="rao-kupper").fit(array, y)
    assert_allclose(by_frame.covariate_coef_, by_array.covariate_coef_)
    assert by_frame.covariate_names_.tolist() == F.STYLE_NAMES
    assert by_array.covariate_names_.tolist() == ["x2", "x3", "x4"]
    assert by_frame.feature_names_in_.tolist() == ["a", "b", *F.STYLE_NAMES]
    assert by_frame.n_features_in_ == 5
    # a string array (numbers as text) is read the same way
    as_text = EloRanker(method="batch", ties="rao-kupper").fit(array.astype(str), y)
    assert_allclose(as_text.covariate_coef_, by_array.covariate_coef_)


def test_covariates_recover_the_truth_and_their_standard_errors_are_calibrated():
    X, y, strengths = style_table(n_players=12, n_matches=40_000)
    est = EloRanker(method="batch", ties="davidson", scale="logit").fit(X, y)
    z = (est.covariate_coef_ - F.STYLE_BETA) / est.covariate_se_
    assert np.all(np.abs(z) < 4)
    assert est.tie_param_ == pytest.approx(0.6, abs=0.05)
    order = np.argsort([int(p[1:]) for p in est.players_])
    true = strengths - strengths.mean()
    assert_allclose(est.ratings_[order], true, atol=0.1)


def test_fitted_advantage_is_the_fixed_advantage_that_fits_best():
    X, y = advantage_matches(advantage=60.0, seed=2)
    fitted = EloRanker(method="batch", first_advantage="fit").fit(X, y)
    se = fitted.first_advantage_se_
    assert fitted.first_advantage_ == pytest.approx(60.0, abs=3 * se)
    fixed = EloRanker(method="batch", first_advantage=fitted.first_advantage_).fit(X, y)
    assert_allclose(fitted.ratings_, fixed.ratings_, atol=1e-6)
    assert_allclose(fitted.predict_proba(X[:20]), fixed.predict_proba(X[:20]),
                    atol=1e-9)
    # the half likelihood (ties as half wins) is what the advantage maximises
    best = -match_log_loss(y, fixed.predict_proba(X))
    for value in (fitted.first_advantage_ - 5, fitted.first_advantage_ + 5):
        other = EloRanker(method="batch", first_advantage=value).fit(X, y)
        assert -match_log_loss(y, other.predict_proba(X)) < best


def test_constant_covariate_is_a_first_player_advantage():
    X, y = advantage_matches(n_players=6, n_matches=4000, advantage=40.0, seed=3)
    with_constant = np.column_stack([X.astype(object), np.ones(len(y))])
    est = EloRanker(method="batch").fit(with_constant, y)
    adv = EloRanker(method="batch", first_advantage="fit").fit(X, y)
    assert est.covariate_coef_[0] == pytest.approx(adv.first_advantage_, rel=1e-8)


def test_gridsearch_with_the_three_outcome_scorer():
    X, y, _ = style_table(n_covariates=1)
    grid = GridSearchCV(
        EloRanker(method="batch"), {"ties": ["davidson", "rao-kupper"]},
        scoring=three_outcome_log_loss_scorer, cv=KFold(3, shuffle=True,
                                                          random_state=0),
    ).fit(X, y)
    manual = {
        ties: cross_val_score(EloRanker(method="batch", ties=ties), X, y,
                              cv=KFold(3, shuffle=True, random_state=0),
                              scoring=three_outcome_log_loss_scorer).mean()
        for ties in ("davidson", "rao-kupper")
    }
    assert grid.best_params_["ties"] == max(manual, key=manual.get)
    assert grid.best_score_ == pytest.approx(max(manual.values()))


# ---------------------------------------------------------------------------
# invariances (hypothesis)
# ---------------------------------------------------------------------------
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000),
       model=st.sampled_from(["half", "davidson", "rao-kupper"]),
       n_covariates=st.integers(0, 2), weighted=st.booleans())
def test_swapping_players_mirrors_the_fit(seed, model, n_covariates, weighted):
    first, second, x, y, _ = F.style_matches(seed=seed, n_players=6, n_matches=400)
    x = x[:, :n_covariates]
    w = (1.0 + (first * 7 + seed) % 4) if weighted else None
    X = np.column_stack([first, second, x])
    swapped = np.column_stack([second, first, -x])
    a = EloRanker(method="batch", ties=model, alpha=0.05).fit(X, y, sample_weight=w)
    b = EloRanker(method="batch", ties=model, alpha=0.05).fit(
        swapped, 1.0 - y, sample_weight=w
    )
    assert_allclose(a.ratings_, b.ratings_, atol=1e-7)
    if n_covariates:
        assert_allclose(a.covariate_coef_, b.covariate_coef_, atol=1e-7)
        assert_allclose(a.covariate_se_, b.covariate_se_, rtol=1e-6)
    assert_allclose(a.predict_proba(swapped), a.predict_proba(X)[:, ::-1],
                    atol=1e-12)
    assert_allclose(b.predict_proba(X), a.predict_proba(X), atol=1e-7)


@settings(max_examples=60, deadline=None)
@given(
    d=st.lists(st.floats(-800, 800), min_size=1, max_size=20),
    model=st.sampled_from(["davidson", "rao-kupper"]),
    tie=st.floats(1e-6, 30.0),
)
def test_outcome_probabilities_are_a_distribution_and_mirror(d, model, tie):
    d = np.array(d)
    internal = math.log(tie) if model == "davidson" else tie
    proba = _extended.outcome_probabilities(model, d, internal)
    assert np.all(np.isfinite(proba)) and np.all(proba >= 0) and np.all(proba <= 1)
    assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert_allclose(_extended.outcome_probabilities(model, -d, internal),
                    proba[:, ::-1], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    d=st.lists(st.floats(-60, 60), min_size=1, max_size=30),
    model=st.sampled_from(["half", "davidson", "rao-kupper"]),
    tie=st.floats(0.01, 5.0), seed=st.integers(0, 1000),
)
def test_compiled_and_numpy_cell_terms_agree_and_match_the_loss(d, model, tie, seed):
    d = np.array(d)
    counts = np.random.default_rng(seed).uniform(0, 5, (d.shape[0], 3))
    internal = math.log(tie) if model == "davidson" else tie
    compiled = cell_terms(model, d, internal, counts, compiled=True)
    plain = cell_terms(model, d, internal, counts, compiled=False)
    for a, b in zip(compiled, plain, strict=True):
        assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    if model != "half":
        logp = _ties.log_probabilities(model, d, internal)
        assert compiled[0] == pytest.approx(-np.sum(counts * logp), rel=1e-10)


def test_numpy_fallback_gives_the_same_fit(monkeypatch):
    import sklearn_eval.pairwise._tie_kernels as kernels

    monkeypatch.setattr(kernels, "COMPILED_FROM", 0)  # compiled on small data too
    X, y, _ = style_table(n_covariates=2)
    compiled = EloRanker(method="batch", ties="davidson").fit(X, y)

    monkeypatch.setattr(kernels, "HAVE_NUMBA", False)
    plain = EloRanker(method="batch", ties="davidson").fit(X, y)
    assert_allclose(plain.ratings_, compiled.ratings_, atol=1e-8)
    assert_allclose(plain.covariate_coef_, compiled.covariate_coef_, atol=1e-8)


def test_iterative_rating_solvers_agree_with_cholesky(monkeypatch):
    X, y, _ = style_table(n_players=30, n_matches=6000, n_covariates=2)
    direct = EloRanker(method="batch", ties="rao-kupper",
                       first_advantage="fit").fit(X, y)
    for dense_limit in (10_000, 0):  # dense PCG, then sparse CG
        monkeypatch.setattr(_ties, "_DIRECT_LIMIT", 0)
        monkeypatch.setattr(_ties, "_DENSE_LIMIT", dense_limit)
        other = clone(direct).fit(X, y)
        assert_allclose(other.ratings_, direct.ratings_, atol=1e-6)
        assert_allclose(other.covariate_coef_, direct.covariate_coef_, atol=1e-6)
        assert_allclose(other.covariate_se_, direct.covariate_se_, rtol=1e-6)


def test_aggregated_and_expanded_rows_give_the_same_fit():
    X, y, _ = style_table(n_covariates=0, n_matches=2000)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y})
    counts = frame.groupby(["a", "b", "y"]).size().reset_index(name="n")
    expanded = EloRanker(method="batch", ties="davidson").fit(X, y)
    aggregated = EloRanker(method="batch", ties="davidson").fit(
        counts[["a", "b"]], counts["y"], sample_weight=counts["n"]
    )
    assert_allclose(aggregated.ratings_, expanded.ratings_, atol=1e-9)
    assert aggregated.tie_param_ == pytest.approx(expanded.tie_param_, rel=1e-10)


# ---------------------------------------------------------------------------
# contract, fit state, errors
# ---------------------------------------------------------------------------
CONFIGS = {
    "davidson": (lambda: EloRanker(method="batch", ties="davidson"), 0, False),
    "rao-kupper,covariates": (
        lambda: EloRanker(method="batch", ties="rao-kupper", scale="logit"), 2, False
    ),
    "half,covariates,fit-advantage": (
        lambda: EloRanker(method="batch", first_advantage="fit"), 1, False
    ),
    "davidson,frame,alpha,fit-advantage": (
        lambda: EloRanker(method="batch", ties="davidson", alpha=0.1,
                          first_advantage="fit", keep_history=True), 3, True
    ),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_contract_suite(name):
    make, n_covariates, frame = CONFIGS[name]
    X, y, _ = style_table(n_players=6, n_matches=600, n_covariates=n_covariates,
                          frame=frame)
    check_estimator_contract(make(), X, y, matrix_input=False,
                             bad_inputs=[(X[:0], y[:0])])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_failed_fit_keeps_the_fitted_state(name, monkeypatch):
    make, n_covariates, frame = CONFIGS[name]
    X, y, _ = style_table(n_players=6, n_matches=600, n_covariates=n_covariates,
                          frame=frame)
    est = make().fit(X, y)
    before = fitted_outputs(est, X, y)
    state = {k: v for k, v in vars(est).items() if k.endswith("_")}

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("sklearn_eval.pairwise._elo.fit_extended", boom)
    with pytest.raises(RuntimeError, match="boom"):
        est.fit(X, y)
    assert set(state) == {k for k in vars(est) if k.endswith("_")}
    for key, value in state.items():
        assert np.array_equal(np.asarray(getattr(est, key)), np.asarray(value)), key
    assert_allclose(fitted_outputs(est, X, y)["predict_proba()"],
                    before["predict_proba()"])


def test_refit_without_extras_drops_their_attributes():
    X, y, _ = style_table(n_covariates=2)
    est = EloRanker(method="batch", ties="davidson", first_advantage="fit").fit(X, y)
    assert {"tie_param_", "covariate_coef_", "first_advantage_se_"} <= set(vars(est))
    est.set_params(ties="half", first_advantage=0.0).fit(X[:, :2], y)
    assert not {"tie_param_", "covariate_coef_", "covariate_se_",
                "covariate_names_", "first_advantage_se_"} & set(vars(est))
    assert est.classes_.tolist() == [0, 1] and est.first_advantage_ == 0.0
    assert est.predict_proba(X[:3, :2]).shape == (3, 2)


def _bad(error, pattern, call):
    with pytest.raises(error, match=pattern):
        call()


def test_clear_errors():
    X, y, _ = style_table(n_covariates=2)
    two = X[:, :2]
    _bad(ValueError, "ties='davidson' .* needs method='batch'",
         lambda: EloRanker(ties="davidson").fit(two, y))
    _bad(ValueError, "first_advantage='fit' .* needs method='batch'",
         lambda: EloRanker(first_advantage="fit").fit(two, y))
    _bad(ValueError, "4 columns: the two players and 2 per-match covariate",
         lambda: EloRanker().fit(X, y))
    _bad(ValueError, "MultiElo reads only the two player columns",
         lambda: MultiElo(method="batch").fit(X, y))
    _bad(ValueError, "partial_fit runs Elo's online update",
         lambda: EloRanker(method="batch", ties="davidson").partial_fit(two, y))
    _bad(ValueError, "partial_fit runs Elo's online update",
         lambda: EloRanker().partial_fit(X, y))
    fitted = EloRanker(method="batch").fit(X, y)
    _bad(ValueError, "partial_fit runs Elo's online update",
         lambda: fitted.partial_fit(two, y))
    _bad(ValueError, "4 features, but EloRanker is expecting 2|expecting 4",
         lambda: EloRanker(method="batch").fit(two, y).predict_proba(X))
    _bad(ValueError, "expecting 4",
         lambda: fitted.predict_proba(two))
    _bad(Exception, "first_advantage",
         lambda: MultiElo(first_advantage="fit").fit(two, y))
    _bad(Exception, "ties",
         lambda: EloRanker(ties="both-bad").fit(two, y))


def test_covariate_errors_name_the_column():
    X, y, _ = style_table(frame=True, n_covariates=2)
    text = X.assign(length=X["length"].astype(str))
    _bad(TypeError, "column 'length' .* not numeric",
         lambda: EloRanker(method="batch").fit(text, y))
    holed = X.copy()
    holed.loc[7, "headers"] = np.nan
    _bad(ValueError, "non-finite covariate .* row 7, column 3 .*'headers'",
         lambda: EloRanker(method="batch").fit(holed, y))
    words = np.column_stack([X.iloc[:, :2].to_numpy(), np.full(len(y), "abc")])
    _bad(TypeError, "numeric|numbers",
         lambda: EloRanker(method="batch").fit(words, y))
    duplicated = X.assign(copy=X["length"])
    _bad(ValueError, "collinear", lambda: EloRanker(method="batch").fit(duplicated, y))
    zero = X.assign(zero=0.0)
    _bad(ValueError, "'zero' is collinear",
         lambda: EloRanker(method="batch", ties="davidson").fit(zero, y))
    # an advantage on a chain of players always listed in the same order is
    # confounded with the ratings
    chain = [["a", "b"], ["b", "c"]] * 20
    outcomes = [1.0, 0.0, 0.5, 1.0] * 10
    _bad(ValueError, "'first_advantage' is collinear",
         lambda: EloRanker(method="batch", first_advantage="fit").fit(chain, outcomes))


def test_two_column_behaviour_is_unchanged():
    X, y = make_matches(n_players=7, n_matches=1500, draw_rate=0.2, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = EloRanker(method="batch", alpha=0.01).fit(X, y)
    assert est.classes_.tolist() == [0, 1]
    assert not hasattr(est, "tie_param_") and not hasattr(est, "covariate_coef_")
    assert est.first_advantage_ == 0.0
    assert est.n_features_in_ == 2
    _bad(ValueError, r"shape \(n_matches, 2\)",
         lambda: EloRanker().fit(X[:, :1], y))
    _bad(ValueError, r"shape", lambda: EloRanker().fit(X[:, :, None], y))


def test_small_fits_take_the_numpy_twins_and_large_ones_the_compiled_loop(monkeypatch):
    """Below ``COMPILED_FROM`` cells a fit never loads the compiled loops (no
    disk-cache load for a small file); at or above it, with numba, it does;
    the fits agree either way."""
    import sklearn_eval.pairwise._tie_kernels as kernels

    calls = []
    original = kernels.newton_dense

    def spy(*args):
        calls.append(args[5].shape[0])
        return original(*args)

    monkeypatch.setattr(_ties, "newton_dense", spy)
    X, y, _ = style_table(n_covariates=1)
    small = EloRanker(method="batch", ties="davidson").fit(X, y)
    n_cells = kernels.COMPILED_FROM
    assert calls == []
    monkeypatch.setattr(kernels, "COMPILED_FROM", 1)
    large = EloRanker(method="batch", ties="davidson").fit(X, y)
    assert bool(calls) == kernels.HAVE_NUMBA
    assert all(c >= 1 for c in calls) and n_cells > max(calls, default=0)
    assert_allclose(large.ratings_, small.ratings_, atol=1e-8)
    assert_allclose(large.covariate_coef_, small.covariate_coef_, atol=1e-8)
