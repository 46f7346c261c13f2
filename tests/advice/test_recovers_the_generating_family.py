"""On data from a known model the advisor names that model (seeded corpus).

The target of the user guide's "Which method fits my data" page: at
realistic sizes the recommendation names the generating family, with its tie
model and first-player advantage, in at least 90% of the seeds: matches,
binary, graded (GRM against GPCM) and continuous (beta against logit-normal)
items, items from two factors, and score tables with duplicated tasks.
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


def _named_by_irt(data, params, **kwargs):
    """Whether the advice on ``data(seed)`` is ``IRT`` with ``params``, per seed."""
    return [_names(advise(data(seed), random_state=seed, **kwargs).recommendation,
                   IRT, params)
            for seed in SEEDS]


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
    """1PL, 2PL and 3PL among one-factor candidates (3,000 agents x 30 items:
    a guessing floor is hard to tell from a 2PL with less). Whether a
    one-factor bank keeps one factor against the 2-factor candidate is
    tested on its own below."""
    hits = _named_by_irt(lambda seed: corpus.items(model, seed), {"model": model},
                         max_factors=1)
    assert _share(hits) >= 0.9, hits


@pytest.mark.slow
@pytest.mark.parametrize("model", ["GRM", "GPCM"])
def test_graded_items_name_the_generating_model(model):
    """2,000 agents x 20 items in 4 categories separate the GRM (Samejima,
    1969) from the GPCM (Muraki, 1992) by several standard errors."""
    hits = _named_by_irt(lambda seed: corpus.graded(model, seed), {"model": model})
    assert _share(hits) >= 0.9, hits


@pytest.mark.slow
def test_two_factor_items_name_two_factors():
    """A 2-factor 2PL bank of 1,000 agents: the recommendation has two
    abilities (the one-factor 2PL loses on held-out responses)."""
    hits = _named_by_irt(lambda seed: corpus.two_factor_items(seed, n_agents=1000),
                         {"model": "2PL", "n_factors": 2})
    assert _share(hits) >= 0.9, hits


@pytest.mark.slow
@pytest.mark.parametrize("model", ["1PL", "2PL"])
def test_one_factor_items_keep_one_factor(model):
    """The 2-factor candidate is compared on one-factor banks too and must
    not be chosen there (it costs about 20 more parameters per 20 items)."""
    hits = _named_by_irt(
        lambda seed: corpus.items(model, seed, n_agents=1000, n_items=20),
        {"model": model, "n_factors": 1})
    assert _share(hits) >= 0.9, hits


@pytest.mark.slow
@pytest.mark.parametrize("model", ["beta", "logit-normal"])
def test_continuous_scores_name_the_generating_model(model):
    """Scores in (0, 1): the beta model's variance shrinks towards 0 and 1
    as mu (1 - mu) / (1 + phi); the logit-normal's is constant on the logit
    scale. 150 agents x 8 tasks tell them apart."""
    hits = _named_by_irt(
        lambda seed: corpus.continuous(model, seed, n_agents=150, n_items=8),
        {"model": model})
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
