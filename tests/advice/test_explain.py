"""The advisor's explanation compares candidates by their parameter counts.

A rival with fewer parameters is "simpler", one with as many is "as simple"
and only one with more is "more complex" (user guide, "Which method fits my
data": the simplest candidate within noise is recommended).
"""

import itertools
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.advice._choice import candidate_table
from sklearn_eval.advice._explain import complexity, reasons
from sklearn_eval.advice._items import (
    gaussian_candidates,
    gaussian_n_parameters,
    irt_n_parameters,
)
from sklearn_eval.advice._kinds import Candidate, item_candidates
from sklearn_eval.advice._matches import match_candidates, n_parameters

from . import corpus

UNITS = {"vote": "per vote", "response": "per response", "result": "per result"}
GROUP = re.compile(r"(\d+) (simpler|as simple|more complex) candidate\(s\) \(")


def _families():
    """Every candidate family the advisor compares, with real parameter
    counts: rating models of matches (with draws and both orders), binary,
    graded and continuous item response models, Gaussian cell models."""
    X, y = corpus.matches("davidson", 0, n_players=8, n_votes=400)
    w = np.ones(y.size)
    found, draws, _, players = match_candidates(X, y, w, False)
    out = {"matches": [(c, n_parameters(c, players.size, draws, 0)) for c in found]}
    data = {"binary": corpus.items("2PL", 0, n_agents=50, n_items=6),
            "graded": corpus.graded("GRM", 0, n_agents=50, n_items=6),
            "continuous": corpus.continuous("beta", 0, n_agents=50, n_items=6)}
    for kind, values in data.items():
        out[kind] = [(c, irt_n_parameters(c, values)) for c in item_candidates(kind)]
    out["scores"] = [(c, gaussian_n_parameters(c, 30, 8))
                     for c in gaussian_candidates(30, 8)]
    return out


FAMILIES = _families()
PAIRS = [(kind, a, b) for kind, found in FAMILIES.items()
         for a, b in itertools.permutations(found, 2)]


def _explain(candidates, scores, n_params):
    reprs = {c.name: c.name for c in candidates}
    table, chosen, unsure = candidate_table(candidates, scores, n_params, reprs)
    advice = SimpleNamespace(recommendation=chosen, candidates=table,
                             cannot_tell=bool(unsure), agreement=None,
                             diagnostics=pd.DataFrame(columns=["value", "verdict"]))
    result = {"kind": "binary", "unit": "response", "split": "cells",
              "unsure": unsure}
    return " ".join(reasons(advice, result, UNITS)), table, chosen, unsure


def _check_words(text, table, chosen, unsure):
    """Every comparison word in ``text`` agrees with the parameter counts."""
    assert "equally simple" not in text
    n_chosen = table.loc[chosen, "n_parameters"]
    for name in table.index.drop(chosen):
        n = table.loc[name, "n_parameters"]
        if f"the simpler {name} by" in text:
            assert n < n_chosen, (name, text)
        if f"It beats {name}, as simple," in text or f"{name}, as simple (" in text:
            assert n == n_chosen, (name, text)
        if f"The more complex {name} is ahead" in text:
            assert n > n_chosen, (name, text)
    if not unsure:
        assert "Cannot tell" not in text
        return
    sentence = text[text.index("Cannot tell"):]
    parts = GROUP.split(sentence)[1:]
    groups = {word: (int(count), rest) for count, word, rest
              in zip(parts[::3], parts[1::3], parts[2::3], strict=True)}
    assert "simpler" not in groups  # the chosen one is the simplest plausible
    for name in unsure:
        word = complexity(table.loc[name, "n_parameters"], n_chosen)
        assert word != "simpler"
        assert name in groups[word][1], (name, sentence)
    for word, (count, _) in groups.items():
        assert count == sum(complexity(table.loc[n, "n_parameters"], n_chosen)
                            == word for n in unsure)


def test_complexity_words():
    assert complexity(3, 5) == "simpler"
    assert complexity(5, 5) == "as simple"
    assert complexity(7, 5) == "more complex"


@pytest.mark.parametrize("gap", [0.003, 0.05])
@pytest.mark.parametrize(("kind", "first", "second"), PAIRS,
                         ids=[f"{k}:{a[0].name}|{b[0].name}" for k, a, b in PAIRS])
def test_every_pair_of_families_is_worded_by_its_counts(kind, first, second, gap):
    """``second`` is ahead of ``first`` by ``gap`` per response: within
    noise (both plausible, cannot tell) or beyond it."""
    rng = np.random.default_rng(0)
    base = -0.6 + 0.01 * rng.standard_normal(5)
    scores = {first[0].name: base,
              second[0].name: base + gap + 0.004 * rng.standard_normal(5)}
    n_params = {first[0].name: first[1], second[0].name: second[1]}
    text, table, chosen, unsure = _explain([first[0], second[0]], scores, n_params)
    _check_words(text, table, chosen, unsure)
    if first[1] == second[1] and gap < 0.01:
        assert "as simple" in text and "more complex" not in text


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(1, 6), min_size=2, max_size=5),
       offsets=st.lists(st.floats(-0.02, 0.02), min_size=5, max_size=5),
       seed=st.integers(0, 2**16))
def test_any_candidate_table_is_worded_by_its_counts(counts, offsets, seed):
    rng = np.random.default_rng(seed)
    candidates = [Candidate(f"model {i}", "IRT", {}, i) for i in range(len(counts))]
    scores = {c.name: -0.6 + offsets[i] + 0.005 * rng.standard_normal(5)
              for i, c in enumerate(candidates)}
    n_params = {c.name: n for c, n in zip(candidates, counts, strict=True)}
    _check_words(*_explain(candidates, scores, n_params))
