"""A warning raised while fitting names the user's line, at any call depth.

The fit template, the solvers and scikit-learn's wrappers sit between the
user's ``fit`` call and the code that warns; each warning must still point
at the caller (Python's ``warnings`` documentation, ``stacklevel``), so that
``-W error::UserWarning:mymodule`` style filters and the printed location
are about the user's code.
"""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from sklearn_eval.datasets import make_irt_responses, make_matches
from sklearn_eval.game import AlphaRank, NashAverager
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.pairwise import EloRanker
from sklearn_eval.utils._stack import find_stack_level

_UNDEFEATED = (np.array([["a", "b"], ["a", "c"], ["b", "c"]] * 5), np.ones(15))


def _constant_item():
    X = make_irt_responses(60, 6, random_state=0)
    X[:, 0] = 1
    return X


def _constant_task():
    S = np.random.default_rng(0).random((5, 4))
    S[:, 1] = 3.0
    return S


FITS = {
    "IRT2PL, constant item": lambda: IRT2PL().fit(_constant_item()),
    "GeneralityScorer, one bin": lambda: GeneralityScorer(bins=[-10, -9, 10]).fit(
        np.random.default_rng(0).integers(0, 2, (30, 12)).astype(float)
    ),
    "EloRanker batch, undefeated player": lambda: EloRanker(method="batch").fit(
        *_UNDEFEATED
    ),
    "EloRanker online, huge step": lambda: EloRanker(k_factor=1e6).fit(
        *make_matches(n_players=5, n_matches=50, random_state=0)
    ),
    "EloRanker davidson, max_iter": lambda: EloRanker(
        method="batch", ties="davidson", alpha=0.1, max_iter=1, tol=1e-300
    ).fit(*make_matches(n_players=5, n_matches=200, draw_rate=0.2, random_state=0)),
    "NashAverager, constant task": lambda: NashAverager(normalize="minmax").fit(
        _constant_task()
    ),
    "AlphaRank, constant task": lambda: AlphaRank(
        game="agent_vs_task", normalize="minmax"
    ).fit(_constant_task()),
}


@pytest.mark.parametrize("name", sorted(FITS))
def test_fit_warnings_point_at_the_caller(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FITS[name]()
    library = [w for w in caught if not issubclass(w.category, DeprecationWarning)]
    assert library, f"{name}: the degenerate fit did not warn"
    assert {w.filename for w in library} == {__file__}, [
        (w.filename, str(w.message)[:60]) for w in library
    ]


def test_through_a_meta_estimator_the_warning_names_its_caller():
    X = _constant_item()
    search = GridSearchCV(IRT2PL(), {"max_iter": [50]}, cv=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X)
    assert caught
    assert all(w.filename == __file__ for w in caught
               if "left out of estimation" in str(w.message))


def test_outside_the_library_the_level_is_the_caller():
    assert find_stack_level() == 1
