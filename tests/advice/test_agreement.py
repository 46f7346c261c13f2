"""Agreement between the plausible methods' rankings (Kendall's tau).

A method never agrees with itself in the summary: ``min_tau`` reads only
pairs of different methods, and a method whose scores are all equal orders
nothing, so it is named in words rather than reported as tau >= 1.
"""

import re
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_eval.advice import Agreement
from sklearn_eval.advice._diagnostics import kendall_agreement
from sklearn_eval.advice._explain import _agreement


def _rankings(kinds, n_agents, seed):
    """One ranking per entry of ``kinds``: "flat" (all scores equal), "ties"
    (two levels) or "order" (distinct scores)."""
    rng = np.random.default_rng(seed)
    agents = [f"agent {i}" for i in range(n_agents)]
    out = {}
    for k, kind in enumerate(kinds):
        if kind == "flat":
            values = np.full(n_agents, 0.5)
        elif kind == "ties":
            values = rng.integers(0, 2, n_agents).astype(float)
        else:
            values = rng.normal(size=n_agents)
        out[f"method {k}"] = pd.Series(values, index=agents)
    return out


@settings(max_examples=80, deadline=None)
@given(kinds=st.lists(st.sampled_from(["flat", "ties", "order"]), min_size=2,
                      max_size=4),
       n_agents=st.integers(2, 8), seed=st.integers(0, 2**16))
def test_min_tau_reads_pairs_of_different_methods(kinds, n_agents, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy on constant input
        tau, movers = kendall_agreement(_rankings(kinds, n_agents, seed))
    agreement = Agreement(tau, movers)
    values = tau.to_numpy(dtype=float)
    pairs = values[~np.eye(len(kinds), dtype=bool)]
    finite = pairs[np.isfinite(pairs)]
    if finite.size:
        assert agreement.min_tau == finite.min()
    else:
        assert np.isnan(agreement.min_tau)
    for name, row in zip(tau.index, values, strict=True):
        others = np.delete(row, list(tau.index).index(name))
        assert (name in agreement.without_order) == (not np.isfinite(others).any())
    text = " ".join(_agreement(SimpleNamespace(agreement=agreement)))
    assert "nan" not in text.lower()
    if "tau >=" in text:
        shown = float(re.search(r"tau >= (-?\d\.\d\d)", text)[1])
        assert abs(shown - finite.min()) <= 0.005
    else:
        assert "cannot be compared" in text
    for name in agreement.without_order:
        assert name in text


def test_rankings_without_order_are_not_reported_as_full_agreement():
    """Every method constant: the diagonal's 1s used to print tau >= 1.00."""
    rankings = _rankings(["flat", "flat", "flat"], 6, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agreement = Agreement(*kendall_agreement(rankings))
    assert np.isnan(agreement.min_tau)
    text = " ".join(_agreement(SimpleNamespace(agreement=agreement)))
    assert "tau >= 1.00" not in text
    assert "cannot be compared" in text and "order no agent" in text
    assert "moves most" not in text


@given(names=st.lists(st.sampled_from(
    ["Bradley-Terry", "Bradley-Terry, first-player advantage", "MultiElo k=1",
     "Nash averaging", "Borda"]), min_size=2, max_size=5, unique=True))
def test_listed_method_names_stay_apart(names):
    # a name holding a comma must not read as two methods
    from sklearn_eval.advice._explain import _names

    text = _names(names)
    separator = "; " if any("," in name for name in names) else ", "
    assert text.split(separator) == names[:-2] + [
        f"{names[-2]} and {names[-1]}"]
