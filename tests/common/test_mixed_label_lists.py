"""Match tables given as Python lists keep their labels' types.

``np.asarray`` turns ``[[1, "a"]]`` into the strings ``"1"`` and ``"a"``: mixed
labels were silently compared as text (``[1, "1"]`` became a self-match, and
``players_`` came out as strings) while the same labels in an object array or
a DataFrame are refused. Every entry point that reads matches must refuse
them alike, whatever the container.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_eval.game import NashAverager, fill_win_rates
from sklearn_eval.pairwise import (
    ActiveSampler,
    EloRanker,
    MultiElo,
    bootstrap_bradley_terry,
    bootstrap_online_elo,
    bradley_terry_covariance,
    bradley_terry_intervals,
    maximum_likelihood_exists,
)
from sklearn_eval.uncertainty import (
    bootstrap_ranking,
    compare_agents,
    rank_sets,
    ranking_intervals,
)
from sklearn_eval.utils import (
    check_and_encode_matches,
    encode_players,
    matches_to_win_matrix,
    matches_to_win_rate,
)

MIX = "mix types that cannot be ordered"


def _fit(make):
    return lambda X, y, w=None: make().fit(X, y, sample_weight=w)


def _with_covariate(make):
    def fit(X, y, w=None):
        if isinstance(X, pd.DataFrame):
            return make().fit(X.assign(x=0.1 * np.arange(len(X))), y, sample_weight=w)
        rows = [list(row) + [0.1 * k] for k, row in enumerate(X)]
        if isinstance(X, np.ndarray):
            rows = np.array(rows, dtype=object)
        return make().fit(rows, y, sample_weight=w)
    return fit


def _partial(make):
    return lambda X, y, w=None: make().partial_fit(X, y, sample_weight=w)


def _after_text_fit(make):
    """partial_fit on a rater fitted on text labels ("1" among them)."""
    def fit(X, y, w=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = make().fit([["1", "a"], ["a", "1"]], [1.0, 0.0])
        return est.partial_fit(X, y, sample_weight=w)
    return fit


def _batch():
    return EloRanker(method="batch", alpha=0.1)


_OPTS = {"n_resamples": 3, "random_state": 0}
TEXT_X = [["a", "b"], ["b", "c"], ["c", "a"], ["b", "a"], ["c", "b"], ["a", "c"]]
TEXT_Y = [1.0, 1.0, 0.0, 0.5, 1.0, 0.0]

# every public entry point that reads a table of matches
ENTRY_POINTS = {
    "EloRanker(online).fit": _fit(EloRanker),
    "EloRanker(batch).fit": _fit(_batch),
    "EloRanker(davidson).fit": _fit(
        lambda: EloRanker(method="batch", ties="davidson", alpha=0.1)),
    "EloRanker(rao-kupper).fit": _fit(
        lambda: EloRanker(method="batch", ties="rao-kupper", alpha=0.1)),
    "EloRanker(first_advantage='fit').fit": _fit(
        lambda: EloRanker(method="batch", first_advantage="fit", alpha=0.1)),
    "EloRanker(batch, covariates).fit": _with_covariate(_batch),
    "EloRanker.partial_fit": _partial(EloRanker),
    "EloRanker.partial_fit after text labels": _after_text_fit(EloRanker),
    "MultiElo(online).fit": _fit(lambda: MultiElo(random_state=0)),
    "MultiElo(batch).fit": _fit(lambda: MultiElo(method="batch", random_state=0)),
    "MultiElo.partial_fit": _partial(lambda: MultiElo(random_state=0)),
    "MultiElo.partial_fit after text labels": _after_text_fit(
        lambda: MultiElo(random_state=0)),
    "ActiveSampler.fit": _fit(ActiveSampler),
    "maximum_likelihood_exists": lambda X, y, w=None: maximum_likelihood_exists(
        X, y, w),
    "bootstrap_bradley_terry": lambda X, y, w=None: bootstrap_bradley_terry(
        _batch(), X, y, w, **_OPTS),
    "bradley_terry_intervals": lambda X, y, w=None: bradley_terry_intervals(
        _batch(), X, y, w),
    "bradley_terry_covariance": lambda X, y, w=None: bradley_terry_covariance(
        _batch().fit(TEXT_X, TEXT_Y), X, y, w),
    "bootstrap_online_elo": lambda X, y, w=None: bootstrap_online_elo(
        EloRanker(), X, y, w, **_OPTS),
    "ranking_intervals(online)": lambda X, y, w=None: ranking_intervals(
        EloRanker(), X, y, sample_weight=w, **_OPTS),
    "ranking_intervals(MultiElo)": lambda X, y, w=None: ranking_intervals(
        MultiElo(random_state=0), X, y, sample_weight=w, **_OPTS),
    "ranking_intervals(NashAverager from matches)": lambda X, y, w=None: (
        ranking_intervals(NashAverager(game="agent_vs_agent"), X, y,
                          sample_weight=w, **_OPTS)),
    "rank_sets(batch, frequency_weights)": lambda X, y, w=None: rank_sets(
        _batch(), X, y, sample_weight=np.ones(len(y)), frequency_weights=True,
        **_OPTS),
    "rank_sets(MultiElo, frequency_weights)": lambda X, y, w=None: rank_sets(
        MultiElo(random_state=0), X, y, sample_weight=np.ones(len(y)),
        frequency_weights=True, **_OPTS),
    "compare_agents(batch)": lambda X, y, w=None: compare_agents(
        _batch(), X, y, sample_weight=w),
    "bootstrap_ranking(matches)": lambda X, y, w=None: bootstrap_ranking(
        EloRanker(), X, y, statistic="agent_scores_", resample="matches", **_OPTS),
    "fill_win_rates": lambda X, y, w=None: fill_win_rates(X, y, w),
    "matches_to_win_matrix": lambda X, y, w=None: matches_to_win_matrix(X, y, w),
    "matches_to_win_rate": lambda X, y, w=None: matches_to_win_rate(X, y, w),
    "check_and_encode_matches": lambda X, y, w=None: check_and_encode_matches(
        X, y, w),
}

# labels that numpy would make text of; the first pair has one label and its text
MIXED_TABLES = {
    "int and its text": ([[1, "1"], ["1", 2], [2, 1]], [1.0, 0.0, 0.5]),
    "int and str": ([[1, "a"], ["a", 2], [2, 1]], [1.0, 0.0, 1.0]),
    "float and str": ([[1.5, "a"], ["a", 2.5], [2.5, 1.5]], [1.0, 0.0, 1.0]),
    "bool and str": ([[True, "b"], ["b", False], [False, True]], [1.0, 0.0, 1.0]),
    "bytes and str": ([[b"a", "b"], ["b", b"c"], [b"c", b"a"]], [1.0, 0.0, 1.0]),
}


@pytest.mark.parametrize("table", sorted(MIXED_TABLES))
@pytest.mark.parametrize("container", ["list", "tuple", "object array", "DataFrame"])
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_mixed_label_types_are_refused_by_every_match_reader(entry, container, table):
    rows, y = MIXED_TABLES[table]
    X = {
        "list": rows,
        "tuple": tuple(tuple(row) for row in rows),
        "object array": np.array(rows, dtype=object),
        "DataFrame": pd.DataFrame(np.array(rows, dtype=object), columns=["a", "b"]),
    }[container]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match=MIX):
            ENTRY_POINTS[entry](X, y)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_lists_of_one_label_type_still_work(entry):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ENTRY_POINTS[entry](TEXT_X, TEXT_Y)


_SETTINGS = settings(max_examples=80, deadline=None,
                     suppress_health_check=list(HealthCheck))

_labels = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["-1", "0", "1", "2", "a", "b", ""]),
    st.sampled_from([0.5, 1.0, 2.0]),
)


@_SETTINGS
@given(data=st.data())
def test_list_and_object_array_are_read_alike(data):
    pool = data.draw(st.lists(_labels, min_size=2, max_size=6, unique_by=repr))
    pool = [v for k, v in enumerate(pool) if not any(v == w for w in pool[:k])]
    if len(pool) < 2:
        return
    n = data.draw(st.integers(1, 12))
    pairs = data.draw(st.lists(
        st.tuples(st.integers(0, len(pool) - 1), st.integers(1, len(pool) - 1)),
        min_size=n, max_size=n))
    rows = [[pool[a], pool[(a + s) % len(pool)]] for a, s in pairs]
    y = np.ones(n)
    text = [isinstance(v, str) for row in rows for v in row]
    outcome = {}
    for name, X in (("list", rows), ("object", np.array(rows, dtype=object))):
        try:
            players = check_and_encode_matches(X, y, None)[1]
            outcome[name] = ("ok", players.tolist())
        except TypeError as exc:
            outcome[name] = ("TypeError", MIX in str(exc))
    if any(text) and not all(text):
        assert outcome["list"] == ("TypeError", True)
    assert outcome["list"] == outcome["object"]
    if outcome["list"][0] == "ok":
        players = outcome["list"][1]
        assert players == sorted(set(v for row in rows for v in row))
        assert encode_players(*np.array(rows, dtype=object).T)[0].tolist() == players
