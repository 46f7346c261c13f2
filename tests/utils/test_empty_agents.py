"""One rule for agents with no response, in every entry point.

User guide, "Data": an agent without any observed response is an error that
says how many and which; ``drop_empty=True`` (``--drop-empty``) leaves such
agents out with a warning naming them.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from sklearn_eval.cli import main
from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL
from sklearn_eval.selection import SubsetScoreEstimator
from sklearn_eval.utils import check_empty_agents


@pytest.mark.parametrize("n_empty", [1, 3, 8])
@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_the_error_counts_and_names_the_first_few(n_empty, layout):
    rng = np.random.default_rng(n_empty)
    X = (rng.random((30, 6)) < 0.5).astype(float)
    empty = np.sort(rng.choice(30, n_empty, replace=False))
    X[empty] = np.nan
    agents = np.array([f"model-{k}" for k in range(30)], dtype=object)
    values = X
    if layout == "sparse":
        values = sparse.csr_array(np.where(np.isnan(X), 0.0, X + 1.0))
    with pytest.raises(ValueError) as info:
        check_empty_agents(values, agents, what="fit")
    message = str(info.value)
    assert f"{n_empty} agent" in message and "of 30" in message
    shown = [f"'model-{k}'" for k in empty[:5]]
    assert all(name in message for name in shown)
    assert ("..." in message) == (n_empty > 5)
    with pytest.warns(UserWarning, match=f"left out {n_empty} agent"):
        keep = check_empty_agents(values, agents, drop_empty=True)
    np.testing.assert_array_equal(np.flatnonzero(~keep), empty)


def test_irt2pl_raises_or_drops_with_a_warning():
    X = make_irt_responses(80, 10, random_state=0)
    frame = pd.DataFrame(X, index=[f"m{k}" for k in range(80)])
    frame.iloc[[4, 50]] = np.nan
    with pytest.raises(ValueError, match=r"2 agents of 80 .*'m4', 'm50'"):
        IRT2PL().fit(frame)
    with pytest.warns(UserWarning, match=r"left out 2 agents .*'m4', 'm50'"):
        dropped = IRT2PL(drop_empty=True).fit(frame)
    kept = frame.drop(index=["m4", "m50"])
    reference = IRT2PL().fit(kept)
    assert list(dropped.agents_) == list(kept.index)
    np.testing.assert_allclose(
        dropped.log_likelihood_, reference.log_likelihood_, rtol=1e-10
    )


def test_subset_score_estimator_names_them():
    X = make_irt_responses(60, 12, random_state=1)
    X[[7, 9]] = np.nan
    with pytest.raises(ValueError, match=r"2 agents of 60 .*row 7, row 9"):
        SubsetScoreEstimator(n_items=4, random_state=0).fit(X)


def test_voting_ranker_names_them_by_their_labels():
    from sklearn_eval.game import VotingRanker

    X = pd.DataFrame([[1.0, 2.0], [np.nan, np.nan], [2.0, 1.0]],
                     index=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"1 agent of 3 has no observed .*\('b'\)"):
        VotingRanker().fit(X)


@pytest.mark.parametrize(
    "command",
    ["irt", "generality", "select", "compress", "vote", "compare", "advise"],
)
def test_commands_raise_or_drop_with_a_warning(command, tmp_path, capsys):
    X = make_irt_responses(60, 12, random_state=2)
    X[[3, 11]] = np.nan
    frame = pd.DataFrame(X, index=[f"m{k}" for k in range(60)])
    frame.index.name = "agent"
    path = tmp_path / "responses.csv"
    frame.to_csv(path)
    extra = {
        "compress": ["-o", str(tmp_path / "items.csv"), "--n-items", "4"],
        "compare": ["--n-resamples", "20"],
        "advise": ["--cv", "2"],
    }.get(command, [])
    code = main([command, str(path), "-q", *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert "2 agents of 60 have no observed response ('m3', 'm11')" in err
    assert "--drop-empty" in err
    code = main([command, str(path), "-q", "--drop-empty", *extra])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "left out 2 agents of 60 with no observed response ('m3', 'm11')" in err
