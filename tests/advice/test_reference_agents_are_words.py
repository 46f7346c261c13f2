"""The advisor's "reference agents" check matches words, not letters.

It flagged HELM's "Jurassic-2 Grande (17B)" (g-RAND-e) and AutoML's
"randomforest" as reference agents to set apart from the ranking.
"""

import numpy as np
import pandas as pd
import pytest

from sklearn_eval import advise
from sklearn_eval.advice._diagnostics import reference_like

REFERENCES = [
    "human", "Human", "HUMAN", "humans", "human@dqn", "random@dqn", "Random",
    "RandomAgent", "random_agent", "rand", "constantpredictor", "baseline_v1",
    "Oracle (upper bound)",
]
COMPETITORS = [
    "Jurassic-2 Grande (17B)", "J1-Grande v1 (17B)", "randomforest",
    "tunedrandomforest", "humaneval-coder", "Strand-7B", "brand new model",
    "Grandmaster", "operand",
]


@pytest.mark.parametrize("label", REFERENCES)
def test_baseline_words_are_reference_agents(label):
    assert reference_like([label]) == [label]


@pytest.mark.parametrize("label", COMPETITORS)
def test_letters_inside_a_word_are_not(label):
    assert reference_like([label]) == []


def test_advise_lists_only_the_baselines():
    rng = np.random.default_rng(0)
    agents = ["random@dqn", "Jurassic-2 Grande (17B)", "randomforest", "m1", "m2",
              "m3"]
    X = pd.DataFrame(rng.random((len(agents), 12)) + np.arange(6)[:, None],
                     index=agents)
    advice = advise(X, cv=2, random_state=0)
    assert advice.diagnostics.loc["reference agents", "value"] == "random@dqn"
