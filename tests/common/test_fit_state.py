"""A fit that fails part-way leaves the previous fitted model untouched.

Every estimator fits through the one template of :mod:`sklearn_eval.base`:
``_check_fit_data`` validates, ``_solve`` computes the fitted values with
pure functions, and the template assigns them in one step. Here the compute
step of each estimator is made to fail after a successful fit, on new valid
data, and the estimator's state must be byte-for-byte what it was; the
source of every estimator is walked for attribute writes outside ``__init__``
(only the template's assignment step may set fitted state); and ``_solve``
is run on a fitted estimator to check that it really leaves it untouched.
"""

import ast
import importlib
import inspect
import pickle
import pkgutil
import textwrap
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import sklearn_eval
from sklearn_eval.base import FitTemplateMixin
from sklearn_eval.pairwise import EloRanker
from tests.common.test_contract import CONFIGS

# config prefix -> the compute functions that a failure is injected into
COMPUTE_STEPS = {
    "EloRanker(online": ["sklearn_eval.pairwise._kernels.elo_scan"],
    "EloRanker(batch": ["sklearn_eval.pairwise._elo.fit_bradley_terry"],
    "MultiElo(online": ["sklearn_eval.pairwise._kernels.melo_scan"],
    "MultiElo(batch": ["sklearn_eval.pairwise._melo.fit_melo_lbfgs"],
    "NashAverager(agent_vs_task": ["sklearn_eval.game._nash.maxent_nash"],
    "NashAverager(agent_vs_agent": ["sklearn_eval.game._nash.symmetric_maxent_nash"],
    "IRT2PL": ["sklearn_eval.irt._irt2pl._fit_model"],
    "IRT(2PL,n_factors": ["sklearn_eval.irt._multidim.em"],
    "IRT(GRM,n_factors": ["sklearn_eval.irt._graded_factors.em_factors"],
    "IRT(GPCM,n_factors": ["sklearn_eval.irt._graded_factors.em_factors"],
    "GeneralityScorer": ["sklearn_eval.irt._generality._indicator_matrix"],
    "AlphaRank": ["sklearn_eval.game._alpharank._limit"],
    "VotingRanker": ["sklearn_eval.game._voting._aggregate"],
    "SubsetScoreEstimator": ["sklearn_eval.selection._subset_score._cross_validate"],
    "AdaptiveTester": ["sklearn_eval.irt._adaptive._node_probabilities"],
    "InfoGainSelector": [
        "sklearn_eval.selection._kernels.greedy_forward",
        "sklearn_eval.selection._kernels.greedy_discrete",
    ],
}


def _steps(config):
    for prefix, steps in COMPUTE_STEPS.items():
        if config.startswith(prefix):
            return steps
    return None


CHECKED = [c for c in CONFIGS if _steps(c) is not None]


class InjectedFailure(RuntimeError):
    pass


def _fail(*args, **kwargs):
    raise InjectedFailure("compute step failed")


def _other_data(X, y):
    """Valid training data different from the first fit's."""
    if y is not None:
        return X[::-1][:-7], y[::-1][:-7]
    X = np.asarray(X, dtype=float)
    if X.shape[0] == X.shape[1]:  # agent vs agent: keep the game square
        return X[:-1, :-1], None
    return X[:-1], None


@pytest.mark.parametrize("config", CHECKED)
def test_a_failing_fit_keeps_the_previous_model(config, monkeypatch):
    make, data, _ = CONFIGS[config]
    X, y, fit_params = data()
    est = make()
    est.fit(*((X,) if y is None else (X, y)), **(fit_params or {}))
    before = pickle.dumps(est.__dict__)
    for step in _steps(config):
        monkeypatch.setattr(step, _fail)
    X2, y2 = _other_data(X, y)
    with pytest.raises(InjectedFailure):
        est.fit(*((X2,) if y2 is None else (X2, y2)))
    assert pickle.dumps(est.__dict__) == before


def test_every_estimator_family_is_checked():
    families = {c.split("(")[0] for c in CHECKED}
    assert families == {
        "EloRanker", "MultiElo", "NashAverager", "IRT", "IRT2PL", "GeneralityScorer",
        "InfoGainSelector", "AlphaRank", "VotingRanker", "SubsetScoreEstimator",
        "AdaptiveTester",
    }


# ------------------------------------------------------------ one template
# Wrappers that never fit: an estimator fitted already, frozen so that an
# analytic interval path reads its state (``prefit=True``); their ``fit`` is a
# no-op, checked below.
NO_OP_FIT = {"sklearn_eval.uncertainty._dispatch._Fitted"}


def _package_estimators():
    """Every scikit-learn estimator class defined in the package (but the
    no-op wrappers of ``NO_OP_FIT``)."""
    found = {}
    for info in pkgutil.walk_packages(sklearn_eval.__path__, "sklearn_eval."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (issubclass(cls, BaseEstimator)
                    and cls.__module__.startswith("sklearn_eval")):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return {name: cls for name, cls in found.items() if name not in NO_OP_FIT}


ESTIMATORS = _package_estimators()


def _is_self(node):
    return isinstance(node, ast.Name) and node.id == "self"


def _written(target):
    """Attributes of ``self`` an assignment target writes."""
    if isinstance(target, ast.Attribute) and _is_self(target.value):
        yield target.attr
    elif isinstance(target, ast.Subscript):
        yield from _written(target.value)
    elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
        for element in getattr(target, "elts", [getattr(target, "value", None)]):
            yield from _written(element)


def attribute_writes(source):
    """``(method, what)`` for each write to ``self`` outside ``__init__``.

    Assignments (plain, augmented, annotated, item assignment into an
    attribute), ``del self.x``, ``setattr``/``delattr`` on ``self`` and
    writes through ``self.__dict__`` or ``vars(self)``.
    """
    tree = ast.parse(textwrap.dedent(source))
    writes = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if function.name == "__init__":
            continue
        for node in ast.walk(function):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            for target in targets:
                writes.extend((function.name, f"self.{name}")
                              for name in _written(target))
            if isinstance(node, ast.Call) and node.args:
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                first = node.args[0]
                if name in ("setattr", "delattr", "__setattr__") and _is_self(first):
                    writes.append((function.name, f"{name}(self, ...)"))
                if name == "vars" and _is_self(first):
                    writes.append((function.name, "vars(self)"))
            if (isinstance(node, ast.Attribute) and node.attr == "__dict__"
                    and _is_self(node.value)):
                writes.append((function.name, "self.__dict__"))
    return writes


def _own_sources(cls):
    """Source of every class in ``cls``'s MRO defined in the package."""
    for klass in cls.__mro__:
        if klass is FitTemplateMixin:  # the assignment step itself
            continue
        if klass.__module__.startswith("sklearn_eval"):
            yield klass, inspect.getsource(klass)


def test_the_walk_finds_every_estimator():
    names = {cls.__name__ for cls in ESTIMATORS.values()}
    assert {
        "EloRanker", "MultiElo", "NashAverager", "AlphaRank", "VotingRanker",
        "IRT2PL", "GeneralityScorer", "AdaptiveTester", "InfoGainSelector",
        "SubsetScoreEstimator",
    } <= names


@pytest.mark.parametrize("name", sorted(NO_OP_FIT))
def test_wrappers_left_out_of_the_template_never_fit(name):
    """Their ``fit`` writes no state and returns the wrapper, with or without y."""
    module, _, qualname = name.rpartition(".")
    cls = getattr(importlib.import_module(module), qualname)
    assert attribute_writes(inspect.getsource(cls)) == []
    fitted = EloRanker(method="batch").fit(np.array([["a", "b"], ["b", "a"]]),
                                           np.array([1.0, 1.0]))
    wrapper = cls(fitted)
    assert wrapper.fit(None) is wrapper and wrapper.fit(None, None) is wrapper
    assert wrapper.estimator is fitted


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_fits_through_the_template(name):
    cls = ESTIMATORS[name]
    assert issubclass(cls, FitTemplateMixin), f"{name} does not use the template"
    for klass, source in _own_sources(cls):
        writes = attribute_writes(source)
        assert writes == [], (
            f"{klass.__qualname__} writes state outside the template's "
            f"assignment step: {writes}"
        )


def test_the_walker_sees_planted_writes():
    source = """
    class Planted:
        def __init__(self, a):
            self.a = a
        def fit(self, X):
            self.coef_ = X
            self._cache, self.n_ = {}, 1
            self.table_[0] = 1
            self.count_ += 1
            setattr(self, "x_", 1)
            del self.old_
            self.__dict__.update(y_=1)
            return self
    """
    assert sorted(attribute_writes(source)) == sorted([
        ("fit", "self.coef_"),
        ("fit", "self._cache"),
        ("fit", "self.n_"),
        ("fit", "self.table_"),
        ("fit", "self.count_"),
        ("fit", "setattr(self, ...)"),
        ("fit", "self.old_"),
        ("fit", "self.__dict__"),
    ])


@pytest.mark.parametrize("config", CHECKED)
def test_solve_leaves_a_fitted_estimator_untouched(config):
    """``_check_fit_data`` and ``_solve`` are pure: only the template assigns."""
    make, data, _ = CONFIGS[config]
    X, y, fit_params = data()
    est = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(*((X,) if y is None else (X, y)), **(fit_params or {}))
        before = pickle.dumps(est.__dict__)
        X2, y2 = _other_data(X, y)
        fitted = est._solve(est._check_fit_data(X2, y2))
    assert pickle.dumps(est.__dict__) == before
    assert isinstance(fitted, dict) and fitted
    assert all(isinstance(name, str) and name.endswith("_") or name.startswith("_")
               for name in fitted)
