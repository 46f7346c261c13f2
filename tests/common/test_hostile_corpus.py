"""Hostile inputs against the newest estimators, as against the oldest.

The categories of ``test_malformed_input`` (NaN, inf, wrong dimensions,
words, complex numbers, empty input, sparse input, duplicated columns, bad
outcomes ...) run here over alpha-Rank, every voting rule, adaptive
testing and the extended match models (tie models, covariates, a fitted
advantage), together with the classes specific to them:

- labels: every estimator that takes labelled agents refuses a repeated or
  missing (None, NaN, pd.NA) agent label, naming it, and keeps its state;
- extremes: finite legal inputs from 1e-300 to 1.7e308 give finite results;
- scores: a score needs a truth (no silent NaN), an accuracy is a fraction,
  an item response model must be one;
- the command line: one line on stderr naming the file, exit 2.

Every rejection is a ``ValueError`` or ``TypeError`` whose message names the
problem, and the fitted state is the one before the failed call (user guide,
"Reliability").
"""

from __future__ import annotations

import copy
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit

from sklearn_eval import (
    IRT2PL,
    EloRanker,
    GeneralityScorer,
    InfoGainSelector,
    MultiElo,
    NashAverager,
)
from sklearn_eval.datasets import make_cyclic_game, make_irt_responses, make_matches
from sklearn_eval.game import AlphaRank, VotingRanker
from sklearn_eval.irt import AdaptiveTester
from sklearn_eval.selection import SubsetScoreEstimator
from sklearn_eval.utils.estimator_checks import assert_same_outputs
from tests.common.test_malformed_input import MATCH_CASES, MATRIX_CASES, _with

ERRORS = (ValueError, TypeError)
VOTING_METHODS = sorted(VotingRanker._parameter_constraints["method"][0].options)
AVA = "agent_vs_agent"


# ---------------------------------------------------------------------------
# valid data of each shape (seeded)
# ---------------------------------------------------------------------------
def _logits():
    return make_cyclic_game(5, cyclic_rank=1, random_state=0)


def _probabilities():
    return expit(_logits())


def _scores():
    return np.random.default_rng(1).normal(size=(6, 4))


def _responses():
    return make_irt_responses(40, 8, random_state=3).astype(np.float64)


def _matches():
    X, y = make_matches(n_players=6, n_matches=240, draw_rate=0.2, random_state=0)
    return X.astype(object), y


def _covariate_matches():
    X, y = _matches()
    length = np.random.default_rng(5).normal(size=len(y))
    return np.column_stack([X, length]), y


ESTIMATORS = {
    # square antisymmetric games, declared (the default reads agents x tasks)
    "AlphaRank(probability)": (
        lambda: AlphaRank(alpha=5.0, game=AVA), _probabilities),
    "AlphaRank(logit,inf)": (
        lambda: AlphaRank(alpha=np.inf, payoff="logit", game=AVA), _logits),
    "AlphaRank(payoff,auto)": (
        lambda: AlphaRank(payoff="payoff", game=AVA), _logits),
    "AlphaRank(avt,minmax)": (
        lambda: AlphaRank(alpha=2.0, game="agent_vs_task", normalize="minmax"),
        _scores,
    ),
    **{
        f"VotingRanker({m})": (lambda m=m: VotingRanker(method=m), _scores)
        for m in VOTING_METHODS
    },
    "AdaptiveTester": (
        lambda: AdaptiveTester(max_items=4, random_state=0), _responses),
    "EloRanker(davidson)": (
        lambda: EloRanker(method="batch", ties="davidson"), _matches),
    "EloRanker(rao-kupper)": (
        lambda: EloRanker(method="batch", ties="rao-kupper"), _matches),
    "EloRanker(advantage=fit)": (
        lambda: EloRanker(method="batch", first_advantage="fit"), _matches),
    "EloRanker(covariates)": (lambda: EloRanker(method="batch"), _covariate_matches),
}

# legal input a contract accepts: NaN marks a missing result for these
NAN_ALLOWED = {f"VotingRanker({m})" for m in VOTING_METHODS} | {"AdaptiveTester"}
SQUARE = {"AlphaRank(probability)", "AlphaRank(logit,inf)", "AlphaRank(payoff,auto)"}


def _is_matches(name):
    return name.startswith("EloRanker")


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X) if y is None else est.fit(X, y)


def _fitted(name):
    make, data = ESTIMATORS[name]
    values = data()
    X, y = values if isinstance(values, tuple) else (values, None)
    return _fit(make(), X, y), X, y


def _state(est):
    """The public fitted state (deep copy): what a failed call must not touch."""
    return copy.deepcopy({
        k: v for k, v in vars(est).items()
        if k.endswith("_") and not k.startswith("_")
    })


def _cases(name):
    if _is_matches(name):
        cases = dict(MATCH_CASES)
        if name == "EloRanker(covariates)":
            # the third column is a covariate: the cases that rebuild a
            # two-column table are replaced by their three-column forms
            for key in ("one-column", "duplicated-columns", "mixed-label-types",
                        "sparse", "empty", "missing-label", "nan-label",
                        "self-play"):
                cases.pop(key)
            cases.update(COVARIATE_CASES)
        return cases
    cases = dict(MATRIX_CASES)
    if name in NAN_ALLOWED:
        del cases["nan"]
    if name in SQUARE:
        cases["non-square"] = lambda X, y: (np.asarray(X)[:, :-1], y, r"square")
    if name == "AdaptiveTester":
        cases["non-binary"] = lambda X, y: (_with(X, 0.5), y, r"binary")
    return cases


def _set(X, row, column, value):
    X = np.array(X, dtype=object)
    X[row, column] = X[row, 0] if value == "same" else value
    return X


COVARIATE_CASES = {
    "empty": lambda X, y: (X[:0], y[:0], r"no matches|shape \(0, 3\)"),
    "missing-label": lambda X, y: (
        _set(X, 3, 0, None), y, r"missing player label .* row 3"),
    "nan-label": lambda X, y: (
        _set(X, 2, 1, np.nan), y, r"missing player label .* row 2"),
    "self-play": lambda X, y: (_set(X, 5, 1, "same"), y, r"row 5 .*against itself"),
    "covariate-nan": lambda X, y: (
        _set(X, 4, 2, np.nan), y, r"non-finite covariate .* row 4"),
    "covariate-inf": lambda X, y: (
        _set(X, 4, 2, np.inf), y, r"non-finite covariate .* row 4"),
    "covariate-words": lambda X, y: (_set(X, 4, 2, "long"), y, r"numeric|number"),
    "covariate-complex": lambda X, y: (_set(X, 4, 2, 1j), y, r"numeric|number|omplex"),
}

PARAMS = [(name, case) for name in ESTIMATORS for case in _cases(name)]


@pytest.mark.parametrize(("name", "case"), PARAMS, ids=[f"{n}-{c}" for n, c in PARAMS])
def test_fit_rejects_with_clear_message_and_keeps_state(name, case):
    est, X, y = _fitted(name)
    before = _state(est)
    X_bad, y_bad, message = _cases(name)[case](X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ERRORS, match=message):
            est.fit(X_bad) if y_bad is None and not _is_matches(name) else est.fit(
                X_bad, y_bad)
    assert_same_outputs(before, _state(est), rtol=0.0, what=case)


# ---------------------------------------------------------------------------
# labels: every estimator that takes labelled agents
# ---------------------------------------------------------------------------
LABELLED = {
    **{name: ESTIMATORS[name] for name in ESTIMATORS if not _is_matches(name)},
    "NashAverager(avt)": (lambda: NashAverager(), _scores),
    "NashAverager(ava)": (
        lambda: NashAverager(game="agent_vs_agent", payoff="probability"),
        _probabilities,
    ),
    "IRT2PL": (lambda: IRT2PL(max_iter=100), _responses),
    "GeneralityScorer": (
        lambda: GeneralityScorer(difficulty="rate", bins=2, min_tasks_per_bin=1),
        _responses,
    ),
    "InfoGainSelector(agents)": (
        lambda: InfoGainSelector(n_tasks=2, input="agents"), _scores),
    "SubsetScoreEstimator": (
        lambda: SubsetScoreEstimator(n_items=3, random_state=0), _responses),
}
MISSING = {"None": None, "nan": np.nan, "pd.NA": pd.NA}


def _labelled_frame(X, labels, square):
    X = np.asarray(X)
    columns = labels if square else [f"t{k}" for k in range(X.shape[1])]
    return pd.DataFrame(X, index=pd.Index(labels, dtype=object),
                        columns=pd.Index(columns, dtype=object))


def _names(n):
    return [f"agent{k}" for k in range(n)]


@pytest.mark.parametrize("name", sorted(LABELLED))
@pytest.mark.parametrize("row", [0, 2])
def test_repeated_agent_label_is_refused_naming_it(name, row):
    make, data = LABELLED[name]
    X = data()
    est = _fit(make(), pd.DataFrame(X, index=_names(len(X)), columns=(
        _names(len(X)) if name in SQUARE or "(ava)" in name
        else [f"t{k}" for k in range(X.shape[1])])), None)
    before = _state(est)
    labels = _names(len(X))
    labels[row + 1] = labels[row]
    bad = _labelled_frame(X, labels, name in SQUARE or "(ava)" in name)
    with pytest.raises(ValueError, match=rf"'agent{row}' twice.*rows {row} and "
                                         rf"{row + 1}"):
        _fit(est, bad, None)
    assert_same_outputs(before, _state(est), rtol=0.0)


@pytest.mark.parametrize("name", sorted(LABELLED))
@pytest.mark.parametrize("missing", list(MISSING))
def test_missing_agent_label_is_refused_naming_the_row(name, missing):
    make, data = LABELLED[name]
    X = data()
    labels = _names(len(X))
    labels[1] = MISSING[missing]
    bad = _labelled_frame(X, labels, name in SQUARE or "(ava)" in name)
    est = make()
    with pytest.raises(ValueError, match=r"missing agent label.*row 1"):
        _fit(est, bad, None)
    assert not hasattr(est, "agents_") or name == "SubsetScoreEstimator"


@pytest.mark.parametrize("method", VOTING_METHODS)
def test_voting_ranking_and_table_agree_on_labelled_agents(method):
    X = _scores()
    frame = pd.DataFrame(X, index=[f"m{k}" for k in range(len(X))])
    est = _fit(VotingRanker(method=method), frame, None)
    assert est.agent_table().index.tolist() == est.ranking_.tolist()
    assert sorted(est.ranking_.tolist()) == sorted(frame.index.tolist())


# ---------------------------------------------------------------------------
# extremes: finite legal input, finite results
# ---------------------------------------------------------------------------
EXTREME_SCALES = [1.7e308 / 4, 1e300, 1e-300, 5e-324]


@pytest.mark.parametrize("scale", EXTREME_SCALES)
@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n.startswith(
    ("AlphaRank(logit", "AlphaRank(payoff", "AlphaRank(avt", "VotingRanker"))])
def test_extreme_magnitudes_give_finite_results(name, scale):
    est, X, _ = _fitted(name)
    X = np.asarray(X) / np.max(np.abs(X))
    reference = _fit(ESTIMATORS[name][0](), X, None)
    got = _fit(ESTIMATORS[name][0](), X * scale, None)
    scores = np.asarray(got.agent_scores_, dtype=np.float64)
    assert np.all(np.isfinite(scores))
    table = got.agent_table()
    assert not table.select_dtypes("number").isna().any().any()
    if scale < 1e-300:
        return  # subnormal: most entries round to 0, another game
    if name.startswith("AlphaRank(logit") or name.startswith("AlphaRank(avt"):
        # alpha = inf and task normalisation are scale invariant
        assert_allclose(scores, reference.agent_scores_, atol=1e-9)
    if name.startswith("VotingRanker") and "sco" not in name:
        # the rules read only the order of the scores within each task
        assert got.ranking_.tolist() == reference.ranking_.tolist()


@pytest.mark.parametrize("alpha", [1e300, 1e308, np.finfo(np.float64).max, np.inf])
@pytest.mark.parametrize("payoff", ["probability", "logit", "payoff"])
def test_alpha_up_to_infinity_gives_a_distribution(alpha, payoff):
    X = _probabilities() if payoff == "probability" else _logits()
    est = _fit(AlphaRank(alpha=alpha, payoff=payoff, game=AVA), X, None)
    assert np.all(np.isfinite(est.agent_distribution_))
    assert est.agent_distribution_.sum() == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# scores and model selection
# ---------------------------------------------------------------------------
SCORE_CASES = {
    "no-response-row": (
        lambda X: np.where(np.arange(len(X))[:, None] == 3, np.nan, X), None,
        r"row 3 has no response"),
    "y-nan": (lambda X: X, lambda n: np.r_[np.nan, np.full(n - 1, 0.5)],
              r"\[0, 1\].*row 0"),
    "y-wrong-length": (lambda X: X, lambda n: np.full(n - 2, 0.5), r"shape|entries"),
    "y-outside-[0,1]": (lambda X: X, lambda n: np.full(n, 5.0), r"\[0, 1\].*5\.0"),
    "y-words": (lambda X: X, lambda n: np.array(["a"] * n), r"numeric"),
}


@pytest.mark.parametrize("case", sorted(SCORE_CASES))
@pytest.mark.parametrize("name", ["AdaptiveTester", "SubsetScoreEstimator"])
def test_accuracy_scores_need_a_truth(name, case):
    make = (ESTIMATORS.get(name) or LABELLED[name])[0]
    X = _responses()
    est = _fit(make(), X, None)
    before = _state(est)
    transform, target, message = SCORE_CASES[case]
    X_case = transform(X)
    y_case = None if target is None else target(len(X))
    with pytest.raises(ERRORS, match=message):
        est.score(X_case, y_case)
    assert_same_outputs(before, _state(est), rtol=0.0)
    # with a true accuracy per row, a row without responses is legal
    if case == "no-response-row":
        value = est.score(X_case, np.nanmean(X, axis=1))
        assert np.isfinite(value)


@pytest.mark.parametrize("accuracy", [5.0, -0.1, np.nan, np.inf])
def test_subset_score_fit_refuses_accuracies_outside_the_unit_interval(accuracy):
    X = _responses()
    y = np.full(len(X), 0.5)
    y[7] = accuracy
    with pytest.raises(ValueError, match=r"\[0, 1\].*row 7"):
        SubsetScoreEstimator(n_items=3, random_state=0).fit(X, y)


def _linear_regression():
    from sklearn.linear_model import LinearRegression

    return LinearRegression()


@pytest.mark.parametrize("make", [
    lambda irt: AdaptiveTester(irt=irt), lambda irt: SubsetScoreEstimator(irt=irt)])
def test_an_irt_that_is_no_item_response_model_is_named(make):
    est = make(_linear_regression())
    with pytest.raises(TypeError, match=r"item response model.*LinearRegression"):
        est.fit(_responses())


@pytest.mark.parametrize("ties", ["davidson", "rao-kupper"])
@pytest.mark.parametrize("covariates", [False, True])
def test_all_zero_weights_with_a_tie_model_say_so(ties, covariates):
    X, y = _covariate_matches() if covariates else _matches()
    est = _fit(EloRanker(method="batch", ties=ties), X, y)
    before = _state(est)
    with pytest.raises(ValueError, match="sample_weight is zero for every match"):
        est.fit(X, y, sample_weight=np.zeros(len(y)))
    assert_same_outputs(before, _state(est), rtol=0.0)


@pytest.mark.parametrize("extra", [["x"] * 240, np.ones(240)], ids=["words", "numbers"])
@pytest.mark.parametrize("make", [EloRanker, lambda: MultiElo(random_state=0)],
                         ids=["EloRanker", "MultiElo"])
def test_partial_fit_names_its_two_columns(make, extra):
    X, y = _matches()
    est = make().fit(X, y)
    before = _state(est)
    with pytest.raises(ValueError, match=r"3 columns.*two player"):
        est.partial_fit(np.column_stack([X, np.asarray(extra, dtype=object)]), y)
    assert_same_outputs(before, _state(est), rtol=0.0)


@pytest.mark.parametrize("ties", ["half", "davidson", "rao-kupper"])
def test_every_tie_setting_scores_three_outcomes(ties):
    from sklearn_eval.metrics import (
        three_outcome_log_loss,
        three_outcome_log_loss_scorer,
    )

    X, y = _matches()
    est = _fit(EloRanker(method="batch", ties=ties), X, y)
    proba = est.predict_outcome_proba(X)
    assert proba.shape == (len(y), 3)
    assert est.score(X, y) == pytest.approx(-three_outcome_log_loss(y, proba))
    assert three_outcome_log_loss_scorer(est, X, y) == pytest.approx(est.score(X, y))


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------
def _run_cli(argv, capsys):
    from sklearn_eval.cli import main

    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue(), capsys.readouterr().err


HUGE = "agent,t1,t2,t3\nA,1.7e308,0,1\nB,0,-1.7e308,1\nC,1,1,0\nD,0,1,1\n"
TINY = "agent,t1,t2,t3\nA,1e-300,0,2e-300\nB,0,0,1e-300\nC,3e-300,1e-300,0\n"
CLI_BAD = {
    "duplicated-agent": ("agent,t1,t2\nA,1,0\nB,0,1\nA,1,1\n", [], "more than one row"),
    "empty-agent": ("agent,t1,t2\nA,1,0\n,0,1\nC,1,1\n", [], "line 3"),
    "infinite": ("agent,t1,t2\nA,1,0\nB,inf,1\nC,0,1\n", [], "infinite"),
    "alpha-1e400": (HUGE, ["--alpha", "1e400"], "--alpha"),
    "alpha-nan": (HUGE, ["--alpha", "nan"], "--alpha"),
}


@pytest.mark.parametrize("command", ["alpharank", "vote"])
@pytest.mark.parametrize("case", sorted(CLI_BAD))
def test_cli_bad_input_fails_in_one_line_naming_the_file(command, case, tmp_path,
                                                         capsys):
    content, extra, message = CLI_BAD[case]
    if command == "vote" and extra:
        return  # --alpha is alpha-Rank's option
    path = tmp_path / "bad-data.csv"
    path.write_text(content)
    code, _, err = _run_cli([command, str(path), *extra, "-q"], capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and message in err, err
    assert "Traceback" not in err
    if not extra:
        assert "bad-data.csv" in err


@pytest.mark.parametrize("content", [HUGE, TINY], ids=["1.7e308", "1e-300"])
@pytest.mark.parametrize("argv", [["alpharank"], ["alpharank", "--alpha", "1e308"],
                                  ["alpharank", "--alpha", "inf"], ["vote"]])
def test_cli_extreme_but_legal_scores_give_a_table(content, argv, tmp_path, capsys):
    path = tmp_path / "extreme.csv"
    path.write_text(content)
    code, out, err = _run_cli([*argv, str(path), "-q"], capsys)
    assert code == 0, err
    assert "A" in out and "nan" not in out.lower()


def test_cli_rank_with_huge_vote_counts_gives_finite_intervals(tmp_path, capsys):
    rows = ["first,second,outcome,weight"] + [
        f"{a},{b},{o},1e18" for a, b, o in
        [("a", "b", 1), ("b", "c", 0.5), ("c", "a", 1), ("a", "c", 0), ("b", "a", 1)]
    ] * 3
    path = tmp_path / "votes.csv"
    path.write_text("\n".join(rows) + "\n")
    code, out, err = _run_cli(
        ["rank", str(path), "--method", "batch", "--weight-col", "weight",
         "--n-resamples", "20", "--random-state", "0", "-q"], capsys)
    assert code == 0, err
    assert "nan" not in out.lower()
