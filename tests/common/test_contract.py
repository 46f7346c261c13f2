"""The project's contract suite over every public estimator configuration.

scikit-learn's ``parametrize_with_checks`` feeds random real matrices. The
configurations whose input contract accepts them run it in their family's test
file (listed in ``SKLEARN_CHECKS`` below, with the check that the listing stays
true); the others cannot, for the reason given in ``NO_SKLEARN_CHECKS``. Every
configuration runs the project's own contract (DESIGN.md section 5) here, on
valid data of its own shape: clone/refit identical, idempotent fit, pickle and
joblib round-trips, inputs unmodified, a failing call keeps the fitted state,
``NotFittedError`` when unfitted, ``n_features_in_``/``feature_names_in_``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.frozen import FrozenEstimator

import sklearn_eval
from sklearn_eval import EloRanker, InfoGainSelector, MultiElo, NashAverager
from sklearn_eval.datasets import make_cyclic_game, make_irt_responses, make_matches
from sklearn_eval.game import AlphaRank, VotingRanker
from sklearn_eval.irt import IRT, IRT2PL, AdaptiveTester, GeneralityScorer
from sklearn_eval.selection import SubsetScoreEstimator
from sklearn_eval.utils.estimator_checks import check_estimator_contract

TESTS = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------
# valid data of each shape
# ---------------------------------------------------------------------------
def _matches():
    X, y = make_matches(n_players=8, n_matches=300, draw_rate=0.1, random_state=0)
    return np.asarray(X), np.asarray(y, dtype=float)


def _cyclic_matches():
    X, y = make_matches(n_players=6, n_matches=300, cyclic_strength=1.5, random_state=1)
    return np.asarray(X), np.asarray(y, dtype=float)


def _scores():
    return np.random.default_rng(0).normal(size=(7, 5)) * 10 + 50


def _logits():
    return make_cyclic_game(7, cyclic_rank=2, cyclic_scale=1.5, random_state=0)


def _graded_responses():
    """Ordered categories 0..3 of 60 agents on 6 items, 10% missing."""
    rng = np.random.default_rng(0)
    latent = rng.normal(size=(60, 1)) + rng.normal(size=(60, 6))
    X = np.clip(np.round(1.5 + latent), 0, 3)
    X[rng.random(X.shape) < 0.1] = np.nan
    return X


def _responses():
    return make_irt_responses(60, 6, missing_rate=0.1, random_state=15)


def _continuous_scores():
    rng = np.random.default_rng(16)
    mu = expit(np.outer(rng.normal(size=40), rng.uniform(0.5, 2, 5)))
    X = rng.beta(20 * mu, 20 * (1 - mu))
    X[rng.random(X.shape) < 0.1] = np.nan
    return X


def _complete_responses():
    return make_irt_responses(60, 8, random_state=4)


def _runs():
    rng = np.random.default_rng(5)
    y = np.repeat(["a", "b", "c", "d"], 6)
    X = rng.normal(size=(24, 6)) + np.outer(
        np.repeat([0, 1, 2, 3], 6), [1, 0.5, 0, 0, 2, 1]
    )
    return X, y


def _given_difficulty():
    return np.linspace(-2, 2, 8)


# id -> (estimator factory, data factory returning (X, y, fit_params), matrix?)
CONFIGS = {
    "EloRanker(online)": (
        lambda: EloRanker(),
        lambda: (*_matches(), None),
        False,
    ),
    "EloRanker(online,logit,advantage,history)": (
        lambda: EloRanker(
            scale="logit", first_advantage=0.2, keep_history=True, k_factor=24
        ),
        lambda: (*_matches(), None),
        False,
    ),
    "EloRanker(batch)": (
        lambda: EloRanker(method="batch", alpha=0.01),
        lambda: (*_matches(), None),
        False,
    ),
    "EloRanker(batch,weights)": (
        lambda: EloRanker(method="batch", first_advantage=30.0),
        lambda: (
            *_matches(),
            {"sample_weight": np.random.default_rng(1).uniform(0.5, 2, 300)},
        ),
        False,
    ),
    "MultiElo(online)": (
        lambda: MultiElo(random_state=0),
        lambda: (*_cyclic_matches(), None),
        False,
    ),
    "MultiElo(online,k=2,history)": (
        lambda: MultiElo(n_components=2, keep_history=True, random_state=0),
        lambda: (*_cyclic_matches(), None),
        False,
    ),
    "MultiElo(batch)": (
        lambda: MultiElo(method="batch", random_state=0),
        lambda: (*_cyclic_matches(), None),
        False,
    ),
    "NashAverager(agent_vs_task)": (
        lambda: NashAverager(),
        lambda: (_scores(), None, None),
        True,
    ),
    "NashAverager(agent_vs_task,minmax)": (
        lambda: NashAverager(normalize="minmax"),
        lambda: (_scores(), None, None),
        True,
    ),
    "NashAverager(agent_vs_task,zscore)": (
        lambda: NashAverager(normalize="zscore"),
        lambda: (_scores(), None, None),
        True,
    ),
    "NashAverager(agent_vs_agent,logit)": (
        lambda: NashAverager(game="agent_vs_agent"),
        lambda: (_logits(), None, None),
        False,  # square: dropping a column is not a valid "wrong width" probe
    ),
    "NashAverager(agent_vs_agent,probability)": (
        lambda: NashAverager(game="agent_vs_agent", payoff="probability"),
        lambda: (expit(_logits()), None, None),
        False,
    ),
    "AlphaRank(agent_vs_agent)": (
        lambda: AlphaRank(game="agent_vs_agent", alpha=10.0),
        lambda: (expit(_logits()), None, None),
        False,  # square: dropping a column is not a valid "wrong width" probe
    ),
    "AlphaRank(agent_vs_task)": (
        lambda: AlphaRank(alpha=1.0, game="agent_vs_task"),
        lambda: (_scores(), None, None),
        True,
    ),
    "VotingRanker": (lambda: VotingRanker(), lambda: (_scores(), None, None), True),
    "VotingRanker(sco)": (
        lambda: VotingRanker(method="sco"),
        lambda: (_scores(), None, None),
        True,
    ),
    "IRT2PL": (lambda: IRT2PL(), lambda: (_responses(), None, None), True),
    "IRT(3PL,n_options)": (
        lambda: IRT(model="3PL", n_options=4),
        lambda: (_responses(), None, None),
        True,
    ),
    "IRT(GRM)": (
        lambda: IRT(model="GRM"),
        lambda: (_graded_responses(), None, None),
        True,
    ),
    "IRT(GPCM)": (
        lambda: IRT(model="GPCM"),
        lambda: (_graded_responses(), None, None),
        True,
    ),
    "IRT(beta)": (
        lambda: IRT(model="beta"),
        lambda: (_continuous_scores(), None, None),
        True,
    ),
    "IRT(logit-normal)": (
        lambda: IRT(model="logit-normal"),
        lambda: (_continuous_scores(), None, None),
        True,
    ),
    "IRT(2PL,n_factors=2)": (
        lambda: IRT(n_factors=2, random_state=0),
        lambda: (_responses(), None, None),
        True,
    ),
    "IRT(GRM,n_factors=2)": (
        lambda: IRT(model="GRM", n_factors=2, random_state=0),
        lambda: (_graded_responses(), None, None),
        True,
    ),
    "IRT(GPCM,n_factors=2)": (
        lambda: IRT(model="GPCM", n_factors=2, random_state=0),
        lambda: (_graded_responses(), None, None),
        True,
    ),
    "IRT2PL(1PL)": (
        lambda: IRT2PL(model="1PL"),
        lambda: (_responses(), None, None),
        True,
    ),
    "IRT2PL(Rasch,eap)": (
        lambda: IRT2PL(model="Rasch", ability_method="eap"),
        lambda: (_responses(), None, None),
        True,
    ),
    "IRT2PL(gauss-hermite,priors)": (
        lambda: IRT2PL(
            quadrature="gauss-hermite", a_prior=(1.0, 2.0), b_prior=(0.0, 2.0)
        ),
        lambda: (_responses(), None, None),
        True,
    ),
    "IRT2PL(n_init=3,random_state)": (
        lambda: IRT2PL(n_init=3, random_state=0, accelerate=False),
        lambda: (_responses(), None, None),
        True,
    ),
    "GeneralityScorer(irt)": (
        lambda: GeneralityScorer(bins=3, min_tasks_per_bin=1),
        lambda: (_complete_responses(), None, None),
        True,
    ),
    "GeneralityScorer(rate,std,trapezoid)": (
        lambda: GeneralityScorer(
            difficulty="rate",
            bins=2,
            min_tasks_per_bin=1,
            dispersion="std",
            integration="trapezoid",
        ),
        lambda: (_complete_responses(), None, None),
        True,
    ),
    "GeneralityScorer(given,unique,nan,weights)": (
        lambda: GeneralityScorer(
            difficulty=np.repeat([1.0, 2.0, 3.0, 4.0], 2),
            bins="unique",
            empty_bins="nan",
            task_weights=np.arange(1.0, 9.0),
            max_generality=1e3,
        ),
        lambda: (_complete_responses(), None, None),
        True,
    ),
    "GeneralityScorer(edges,threshold)": (
        lambda: GeneralityScorer(
            difficulty=_given_difficulty(),
            bins=[-3.0, -1.0, 0.0, 1.0, 3.0],
            threshold=0.5,
        ),
        lambda: (np.random.default_rng(0).uniform(size=(12, 8)), None, None),
        True,
    ),
    "GeneralityScorer(frozen IRT2PL)": (
        lambda: GeneralityScorer(
            difficulty=FrozenEstimator(IRT2PL().fit(_complete_responses())),
            bins=2,
            min_tasks_per_bin=1,
        ),
        lambda: (_complete_responses(), None, None),
        True,
    ),
    "InfoGainSelector(runs)": (
        lambda: InfoGainSelector(n_tasks=2),
        lambda: (*_runs(), None),
        True,
    ),
    "InfoGainSelector(runs,auto,pooled,floor)": (
        lambda: InfoGainSelector(n_tasks="auto", pair_spread="pooled", prob_floor=1e-5),
        lambda: (*_runs(), None),
        True,
    ),
    "InfoGainSelector(runs,groups,exhaustive)": (
        lambda: InfoGainSelector(
            n_tasks=2, groups=["g1", "g1", "g2", "g2", "g3", "g3"], search="exhaustive"
        ),
        lambda: (*_runs(), None),
        False,  # groups fix the number of columns: no narrower valid matrix
    ),
    "InfoGainSelector(runs,discrete)": (
        lambda: InfoGainSelector(n_tasks=0.5, method="discrete", bin_width=0.5),
        lambda: (*_runs(), None),
        True,
    ),
    "InfoGainSelector(agents,X_std)": (
        lambda: InfoGainSelector(n_tasks=2, input="agents"),
        lambda: (
            _scores(),
            None,
            {"X_std": np.random.default_rng(2).uniform(1, 5, size=(7, 5))},
        ),
        False,  # X_std is tied to X's width
    ),
    "InfoGainSelector(agents)": (
        lambda: InfoGainSelector(n_tasks=3, input="agents", std_offset=2.0),
        lambda: (_scores(), None, None),
        True,
    ),
    "SubsetScoreEstimator(auto)": (
        lambda: SubsetScoreEstimator(n_items=3, random_state=0),
        lambda: (_responses(), None, None),
        True,
    ),
    "SubsetScoreEstimator(anchor,gp-irt,y)": (
        lambda: SubsetScoreEstimator(n_items=3, selection="anchor",
                                     method="gp-irt", random_state=0),
        lambda: (_complete_responses(), np.linspace(0.2, 0.8, 60), None),
        True,
    ),
    "AdaptiveTester": (
        lambda: AdaptiveTester(max_items=4, randomesque=2, random_state=0),
        lambda: (_responses(), None, None),
        True,
    ),
    "AdaptiveTester(GRM)": (
        lambda: AdaptiveTester(IRT(model="GRM"), max_items=4, random_state=0),
        lambda: (_graded_responses(), None, None),
        True,
    ),
    "SubsetScoreEstimator(beta,information)": (
        lambda: SubsetScoreEstimator(n_items=2, selection="information",
                                     irt=IRT(model="beta"), random_state=0),
        lambda: (_continuous_scores(), None, None),
        True,
    ),
    "AdaptiveTester(frozen 2PL,se_target)": (
        lambda: AdaptiveTester(FrozenEstimator(IRT2PL(a_prior=(1.0, 1.0)).fit(
            _complete_responses())), se_target=0.6),
        lambda: (_complete_responses(), None, None),
        True,
    ),
}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_contract(config):
    make, data, matrix_input = CONFIGS[config]
    X, y, fit_params = data()
    with warnings.catch_warnings():
        # documented warnings (nearly separable items, undefeated players...)
        # are tested in the family files; here only the contract matters
        warnings.simplefilter("ignore")
        check_estimator_contract(
            make(), X, y, fit_params=fit_params, matrix_input=matrix_input
        )


# ---------------------------------------------------------------------------
# every public estimator is covered, here and by scikit-learn's checks
# ---------------------------------------------------------------------------
def _public_estimators():
    found = {}
    for module_name in (
        "sklearn_eval",
        "sklearn_eval.pairwise",
        "sklearn_eval.game",
        "sklearn_eval.irt",
        "sklearn_eval.selection",
        "sklearn_eval.metrics",
        "sklearn_eval.uncertainty",
        "sklearn_eval.utils",
    ):
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                found[name] = obj
    return found


#: configurations that run scikit-learn's ``parametrize_with_checks`` and where
SKLEARN_CHECKS = {
    "AlphaRank(agent_vs_task)": ("game/test_alpharank.py", "AlphaRank"),
    "VotingRanker": ("game/test_voting.py", "VotingRanker"),
    "NashAverager(agent_vs_task)": ("game/test_nash.py", "NashAverager"),
    "NashAverager(agent_vs_task, normalize=minmax/zscore)": (
        "game/test_nash.py",
        "NashAverager",
    ),
    "InfoGainSelector(input='agents')": (
        "selection/test_infogain.py",
        "InfoGainSelector",
    ),
    "InfoGainSelector(input='runs')": (
        "selection/test_infogain.py",
        "InfoGainSelector",
    ),
    "GeneralityScorer(difficulty='rate', threshold=0.5)": (
        "irt/test_generality.py",
        "GeneralityScorer",
    ),
}

#: configurations that cannot run them, and why (each is covered by CONFIGS)
NO_SKLEARN_CHECKS = {
    "AlphaRank(agent_vs_agent)": "needs a square win-probability matrix with "
    "P + P^T = 1 (or antisymmetric log-odds); random matrices are rejected.",
    "EloRanker": "X is a table of two player labels per match and y an outcome "
    "in {0, 0.5, 1}; scikit-learn's random real matrices have other widths and "
    "continuous or multi-class targets, which the contract rejects by design.",
    "MultiElo": "same match-table input contract as EloRanker.",
    "NashAverager(agent_vs_agent)": "needs a square antisymmetric log-odds "
    "matrix (or P + P^T = 1 probabilities); random matrices are rejected.",
    "IRT2PL": "needs 0/1 responses (NaN = missing); random real matrices are "
    "rejected with a ValueError naming the first non-binary entry.",
    "IRT": "needs 0/1 responses (NaN = missing), as IRT2PL.",
    "GeneralityScorer(difficulty='irt' or an estimator)": "binarised random "
    "data often has no item with both successes and failures among the few "
    "rows the checks use, which the IRT model rejects by design.",
    "GeneralityScorer(threshold=None)": "without a threshold results must lie "
    "in [0, 1]; the checks feed unbounded values.",
    "SubsetScoreEstimator": "needs 0/1 responses (NaN = missing) of a population "
    "with every item observed; random real matrices are rejected.",
    "AdaptiveTester": "calibrates an IRT2PL on 0/1 responses; random real "
    "matrices are rejected.",
}


def _config_class(config_id):
    return config_id.split("(")[0]


def test_every_public_estimator_has_a_contract_configuration():
    public = set(_public_estimators())
    configured = {_config_class(c) for c in CONFIGS}
    assert public <= configured, f"no contract configuration for {public - configured}"
    assert public == {
        "AlphaRank",
        "VotingRanker",
        "EloRanker",
        "MultiElo",
        "NashAverager",
        "IRT2PL",
        "IRT",
        "GeneralityScorer",
        "InfoGainSelector",
        "SubsetScoreEstimator",
        "AdaptiveTester",
    }


def test_every_public_estimator_is_in_the_sklearn_checks_listing():
    listed = {_config_class(c) for c in SKLEARN_CHECKS} | {
        _config_class(c) for c in NO_SKLEARN_CHECKS
    }
    assert set(_public_estimators()) <= listed
    assert all(reason.strip() for reason in NO_SKLEARN_CHECKS.values())


def _parametrize_with_checks_targets(path):
    """Class names instantiated inside ``@parametrize_with_checks([...])``."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and getattr(decorator.func, "id", None) == "parametrize_with_checks"
            ):
                for call in ast.walk(decorator):
                    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                        names.add(call.func.id)
    return names


@pytest.mark.parametrize("config", list(SKLEARN_CHECKS))
def test_sklearn_checks_listing_is_true(config):
    filename, class_name = SKLEARN_CHECKS[config]
    path = TESTS / filename
    assert path.exists(), path
    assert class_name in _parametrize_with_checks_targets(path), (
        f"{filename} no longer runs parametrize_with_checks on {class_name}"
    )


def test_no_estimator_skips_sklearn_checks_wholesale():
    # DESIGN.md section 5: never use tags that make scikit-learn skip its checks
    for cls in _public_estimators().values():
        source = inspect.getsource(cls)
        assert "_skip_test" not in source and "non_deterministic = True" not in source


def test_top_level_exports_are_the_estimators():
    assert {"EloRanker", "MultiElo", "NashAverager", "InfoGainSelector"} <= set(
        sklearn_eval.__all__
    )


TRANSFORMERS = [
    c
    for c, (make, _, matrix_input) in CONFIGS.items()
    if matrix_input and hasattr(make(), "transform")
]


@pytest.mark.parametrize("config", TRANSFORMERS)
def test_set_output_pandas_keeps_agents_and_names(config):
    # DESIGN.md section 5: set_output(transform="pandas") works for every
    # transformer, outputs indexed by the agent labels of the input
    make, data, _ = CONFIGS[config]
    X, y, fit_params = data()
    frame = pd.DataFrame(
        np.asarray(X, dtype=float),
        index=[f"row{k}" for k in range(len(X))],
        columns=[f"task{k}" for k in range(np.shape(X)[1])],
    )
    est = make().set_output(transform="pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if y is None:
            est.fit(frame, **(fit_params or {}))
        else:
            est.fit(frame, y, **(fit_params or {}))
        out = est.transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert list(out.index) == list(frame.index)
    assert list(out.columns) == list(est.get_feature_names_out())
    assert list(est.feature_names_in_) == list(frame.columns)
