"""Graded responses with rare categories: the held-out comparison still runs.

The advisor holds out responses (cells). ``IRT.score`` refuses a category
an item never had in fit, so a category seen once was always held out in
some fold and every candidate failed ("item 0 has category 4, which it never
had in fit"): no advice on graded data whenever a category was rare. The
graded folds are dealt by (item, category): a pair seen twice or more keeps
an occurrence in every training fold, a category seen once is never held
out (and said so); a held-out response the fit still cannot score is left
out of the score, as in :func:`sklearn_eval.irt.compare_models`.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval import advise
from sklearn_eval.advice._items import cell_folds, heldout_irt, irt_n_parameters
from sklearn_eval.advice._kinds import item_candidates
from sklearn_eval.irt import IRT, compare_models

from . import corpus


@settings(max_examples=60, deadline=None)
@given(n_agents=st.integers(3, 30), n_items=st.integers(1, 5),
       n_codes=st.integers(1, 6), missing=st.sampled_from([0.0, 0.3]),
       cv=st.integers(2, 6), seed=st.integers(0, 2**16))
def test_every_category_seen_twice_is_in_every_training_fold(
        n_agents, n_items, n_codes, missing, cv, seed):
    rng = np.random.default_rng(seed)
    # skewed codes: some categories rare, some seen once
    values = np.minimum(rng.geometric(0.5, (n_agents, n_items)) - 1,
                        n_codes - 1).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    rows, cols, fold = cell_folds(values, cv, np.random.RandomState(seed),
                                  by_category=True)
    data = values[rows, cols]
    pairs = {}
    for index, key in enumerate(zip(cols.tolist(), data.tolist(), strict=True)):
        pairs.setdefault(key, []).append(index)
    for cells in pairs.values():
        folds = fold[cells]
        if len(cells) == 1:
            assert folds.tolist() == [-1]  # never held out
            continue
        assert (folds >= 0).all()
        for k in range(cv):
            assert np.any(folds != k)  # an occurrence left in training
    dealt = np.bincount(fold[fold >= 0], minlength=cv)
    assert dealt.max() - dealt.min() <= 1  # folds of equal size


def _graded(seed, n_agents=200, n_items=10, top=3):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    b = rng.normal(size=n_items)
    latent = theta[:, None] - b + rng.normal(scale=0.7, size=(n_agents, n_items))
    return np.clip(np.round(latent + 2), 0, top), theta


def _rare_top(seed):
    """The reviewer's case: codes 0..3 plus one cell of code 4."""
    G, theta = _graded(seed)
    G[np.argmax(theta), 0] = 4
    return G


def _shifted(seed):
    """Codes 1..5: category 0 never used."""
    return _graded(seed, n_agents=60, n_items=8, top=4)[0] + 1


def _constant_item(seed):
    G = _graded(seed, n_agents=60, n_items=8, top=4)[0]
    G[:, 0] = 2
    return G


def _unused_middle(seed):
    G = _graded(seed, n_agents=60, n_items=8, top=4)[0]
    G[G == 2] = 1
    return G


def _rare_with_gaps(seed):
    G = _rare_top(seed)
    G[np.random.default_rng(seed).random(G.shape) < 0.3] = np.nan
    return G


CASES = {"one cell of a category": _rare_top, "codes 1..5": _shifted,
         "a constant item": _constant_item, "an unused middle code": _unused_middle,
         "a rare category and missing cells": _rare_with_gaps}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", list(CASES))
def test_graded_data_with_rare_categories_get_advice(case, seed):
    G = CASES[case](seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        advice = advise(G, random_state=seed)
    assert advice.kind == "graded"
    assert isinstance(advice.recommendation, IRT)
    assert set(advice.candidates.index) == {"GRM", "GPCM"}
    assert np.isfinite(advice.candidates["heldout_loglik"]).all()
    row = advice.diagnostics.loc["rare categories"]
    notes = [str(w.message) for w in caught if "alone" in str(w.message)
             or "only one of their category" in str(w.message)]
    if row["verdict"] == "none":
        assert not notes
    else:
        assert row["verdict"] == "kept in training, not scored"
        assert len(notes) == 1 and "not scored" in notes[0]
    assert "No recommendation" not in advice.explain()


def test_a_category_held_out_without_training_is_not_scored():
    """Plain random folds (as compare_models draws them) put the single
    code 4 in a held-out fold: the fit has no such category, so that
    response is left out of the score instead of failing the candidate."""
    G = _rare_top(0)
    rows, cols, fold = cell_folds(G, 5, np.random.RandomState(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fold's training collapses a code
        scores, reasons = heldout_irt(item_candidates("graded"), G, rows, cols,
                                      fold, 0, 1)
    assert reasons == {}
    assert set(scores) == {"GRM", "GPCM"}
    for means in scores.values():
        assert np.isfinite(means).all()


@pytest.mark.parametrize("case", ["codes 1..5", "a constant item",
                                  "an unused middle code", "one cell of a category"])
def test_graded_parameter_counts_are_those_of_the_fit(case):
    """A slope and a boundary between every two observed categories of each
    item with two or more, as the fitted model counts them (an unused code
    is collapsed, a constant item left out)."""
    G = CASES[case](0)
    for candidate in item_candidates("graded"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted = IRT(**candidate.params).fit(G)
        assert irt_n_parameters(candidate, G) == fitted.n_parameters_


def test_corpus_graded_items_keep_their_advice():
    G = corpus.graded("GPCM", 0, n_agents=300, n_items=6)
    advice = advise(G, random_state=0)
    assert set(advice.candidates.index) == {"GRM", "GPCM"}


@pytest.mark.parametrize("case", list(CASES))
def test_compare_models_scores_the_same_data(case):
    """compare_models already leaves out held-out responses in a category the
    fold's fit lacks (``n_heldout`` counts those scored): the advisor's rule
    is the same, so both compare the GRM and the GPCM on these data."""
    G = CASES[case](0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models(G, models=["GRM", "GPCM"], cv=5, random_state=0)
    assert np.isfinite(table["heldout_loglik_per_response"]).all()
    assert (table["n_heldout"] <= np.sum(~np.isnan(G))).all()
