"""On data from a known model the advisor names that model (seeded corpus).

The target of the user guide's "Which method fits my data" page: at
realistic sizes the recommendation names the generating family, with its tie
model and first-player advantage, in at least 90% of the seeds.
"""

import pytest

from sklearn_eval import advise
from sklearn_eval.game import NashAverager
from sklearn_eval.irt import IRT
from sklearn_eval.pairwise import EloRanker, MultiElo

from . import corpus

SEEDS = range(10)
MATCH_TRUTH = {
    "bt": (EloRanker, {"ties": "half", "first_advantage": 0.0}),
    "davidson": (EloRanker, {"ties": "davidson", "first_advantage": 0.0}),
    "advantage": (EloRanker, {"ties": "half", "first_advantage": "fit"}),
    "cyclic1": (MultiElo, {"n_components": 1}),
    "cyclic2": (MultiElo, {"n_components": 2}),
}


def _names(recommendation, family, params):
    if not isinstance(recommendation, family):
        return False
    given = recommendation.get_params()
    return all(given[key] == value for key, value in params.items())


def _share(hits):
    return sum(hits) / len(hits)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(MATCH_TRUTH))
def test_matches_name_the_generating_model(kind):
    family, params = MATCH_TRUTH[kind]
    n_votes = 8000 if kind == "cyclic2" else 5000
    hits = []
    for seed in SEEDS:
        X, y = corpus.matches(kind, seed, n_votes=n_votes)
        advice = advise(X, y, random_state=seed)
        hits.append(_names(advice.recommendation, family, params))
    assert _share(hits) >= 0.9, hits


@pytest.mark.slow
@pytest.mark.parametrize("model", ["1PL", "2PL", "3PL"])
def test_items_name_the_generating_model(model):
    hits = []
    for seed in SEEDS:
        advice = advise(corpus.items(model, seed), random_state=seed)
        hits.append(_names(advice.recommendation, IRT, {"model": model}))
    assert _share(hits) >= 0.9, hits


@pytest.mark.slow
def test_duplicated_tasks_get_nash_averaging():
    hits = [isinstance(advise(corpus.duplicated_tasks(seed), random_state=seed)
                       .recommendation, NashAverager) for seed in SEEDS]
    assert _share(hits) >= 0.9, hits


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["davidson", "advantage", "cyclic1"])
def test_tiny_data_cannot_tell(kind):
    """On 60 votes the richer model is never claimed with confidence."""
    told = []
    for seed in SEEDS:
        X, y = corpus.matches(kind, seed, n_players=6, n_votes=60)
        advice = advise(X, y, random_state=seed)
        told.append(advice.recommendation is None or advice.cannot_tell)
    assert _share(told) >= 0.9, told
