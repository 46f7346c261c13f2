"""Display constructors only store; ``from_*`` and ``plot`` check, before drawing.

scikit-learn's Display convention: ``__init__`` keeps its arguments as given
(under the same names), the ``from_*`` constructors validate their inputs, and
``plot`` checks the stored data, so bad data raises a ValueError naming the
problem before any figure is opened. Also: the module imports without
matplotlib and says what to install when asked to draw.
"""

import ast
import inspect
import subprocess
import sys
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from sklearn_eval import plotting
from sklearn_eval.game import NashAverager
from sklearn_eval.irt import IRT2PL, GeneralityScorer
from sklearn_eval.plotting import (
    AbilityGeneralityDisplay,
    AgentCurveDisplay,
    CyclicEmbeddingDisplay,
    HodgeDisplay,
    InfoGainDisplay,
    ItemCurveDisplay,
    MissingResultsDisplay,
    NashDisplay,
    RatingTableDisplay,
)
from sklearn_eval.selection import InfoGainSelector
from tests.plotting.drawing import LADDER, RPS

DISPLAYS = [getattr(plotting, name) for name in plotting.__all__]

# (display class, constructor args, constructor kwargs, message of plot's error)
BAD_DATA = [
    (NashDisplay, ([0.5, 0.6], [0, 0], [0, 0]), {}, "probability distribution"),
    (NashDisplay, ([0.5, 0.5], [0, 0, 0], [0, 0]), {}, "must have 2 entries"),
    (NashDisplay, ([0.5, 0.5], [0, 0], [0, 0]), {"agent_names": ["a"]}, "have 2"),
    (
        NashDisplay,
        ([0.5, 0.5], [0, 0], [0, 0]),
        {"task_distribution": [1.0]},
        "all of task_distribution",
    ),
    (NashDisplay, ([0.5, 0.5], [np.nan, 0], [0, 0]), {}, "non-finite"),
    (HodgeDisplay, (0.5, 0.3), {}, "must be 1"),
    (HodgeDisplay, (0.5, 0.5), {"plane_shares": [[0.4, 0.3]]}, "at most"),
    (CyclicEmbeddingDisplay, (np.zeros((3, 3)),), {}, r"shape \(n_players, 2\)"),
    (CyclicEmbeddingDisplay, ([[0.0, np.inf], [1.0, 0.0]],), {}, "non-finite"),
    (RatingTableDisplay, (["a"], [1.0]), {"low": [0.0]}, "both low and high"),
    (
        RatingTableDisplay,
        (["a", "b"], [1.0, 2.0]),
        {"low": [0, 3], "high": [2, 2.5]},
        "'b' has low",
    ),
    (RatingTableDisplay, (["a"], [1.0, 2.0]), {}, "labels must have 2"),
    (RatingTableDisplay, (["a", "b"], [1.0, np.nan]), {}, "non-finite"),
    (InfoGainDisplay, (["a", "b"], [1.0, 2.5]), {"max_information": 2.0}, "exceeds"),
    (InfoGainDisplay, (["a"], [-1.0]), {}, "negative"),
    (InfoGainDisplay, ([], []), {}, "empty"),
    (InfoGainDisplay, (["a"], [1.0, 2.0]), {}, "task_names must have 2"),
    (ItemCurveDisplay, ([0, 1], [[0.2], [1.2]]), {}, r"\[0, 1\]"),
    (
        ItemCurveDisplay,
        ([0, 1], [[0.2], [0.8]]),
        {"response_ability": [0.0], "responses": [[0.5]]},
        "0, 1 or NaN",
    ),
    (ItemCurveDisplay, ([0.0], [[0.5]]), {}, "at least 2 points"),
    (AgentCurveDisplay, ([1, 2], [[0.5, 1.5]]), {}, r"success rates in \[0, 1\]"),
    (AgentCurveDisplay, ([1, 2, 3], [[0.5, 0.5]]), {}, "shape"),
    (AgentCurveDisplay, ([1, 2], [[0.5, 0.5]]), {"slope": np.inf}, "slope"),
    (AbilityGeneralityDisplay, ([0.0], [-1.0]), {}, "non-negative"),
    (AbilityGeneralityDisplay, ([np.inf], [1.0]), {}, "finite"),
    (MissingResultsDisplay, (np.ones((2, 2)),), {}, "boolean"),
    (
        MissingResultsDisplay,
        (np.array([[True, False], [True, True]]),),
        {"agent_mask": np.array([True, True]), "task_mask": np.array([True, True])},
        "complete block",
    ),
    (
        MissingResultsDisplay,
        (np.ones((2, 2), dtype=bool),),
        {"agent_mask": np.array([True, True])},
        "both agent_mask and task_mask",
    ),
]


@pytest.mark.parametrize("display_class", DISPLAYS, ids=lambda c: c.__name__)
def test_init_only_stores_each_argument_under_its_name(display_class):
    """The body of ``__init__`` is ``self.<name> = <name>`` for every parameter."""
    source = textwrap.dedent(inspect.getsource(display_class.__init__))
    function = ast.parse(source).body[0]
    parameters = [a.arg for a in function.args.args[1:] + function.args.kwonlyargs]
    stored = []
    for statement in function.body:
        assert isinstance(statement, ast.Assign), ast.dump(statement)
        (target,) = statement.targets
        assert isinstance(target, ast.Attribute) and target.value.id == "self"
        assert isinstance(statement.value, ast.Name)
        assert target.attr == statement.value.id
        stored.append(target.attr)
    assert stored == parameters


@pytest.mark.parametrize(
    ("display_class", "args", "kwargs", "message"),
    BAD_DATA,
    ids=[f"{case[0].__name__}-{case[3]}" for case in BAD_DATA],
)
def test_bad_data_is_stored_then_rejected_by_plot_before_drawing(
    display_class, args, kwargs, message
):
    display = display_class(*args, **kwargs)
    names = list(inspect.signature(display_class).parameters)
    for name, value in zip(names, args, strict=False):
        assert getattr(display, name) is value
    for name, value in kwargs.items():
        assert getattr(display, name) is value
    open_figures = plt.get_fignums()
    with pytest.raises(ValueError, match=message):
        display.plot()
    assert plt.get_fignums() == open_figures  # nothing drawn, nothing leaked


def test_cyclic_logits_check_the_stored_coordinates():
    with pytest.raises(ValueError, match="non-finite"):
        CyclicEmbeddingDisplay([[0.0, np.nan], [1.0, 0.0]]).cyclic_logits()


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: NashDisplay.from_estimator(NashAverager()), NotFittedError, None),
        (
            lambda: NashDisplay.from_data([[1.0, np.nan], [0.0, 1.0]]),
            ValueError,
            "missing value",
        ),
        (
            lambda: HodgeDisplay.from_payoff(LADDER + np.eye(3)),
            ValueError,
            "antisymmetric",
        ),
        (
            lambda: HodgeDisplay.from_payoff(
                [[0.5, 0.7], [0.7, 0.5]], payoff="probability"
            ),
            ValueError,
            r"P\[i, j\] \+ P\[j, i\] = 1",
        ),
        (
            lambda: HodgeDisplay.from_payoff(
                [[0.5, 1.5], [-0.5, 0.5]], payoff="probability"
            ),
            ValueError,
            r"in \[0, 1\]",
        ),
        (lambda: HodgeDisplay.from_payoff(RPS, n_planes=-1), ValueError, "n_planes"),
        (lambda: HodgeDisplay.from_estimator(NashAverager()), NotFittedError, None),
        (
            lambda: CyclicEmbeddingDisplay.from_payoff(LADDER),
            ValueError,
            "does not exist",
        ),
        (
            lambda: CyclicEmbeddingDisplay.from_payoff(np.ones((3, 3))),
            ValueError,
            "antisymmetric",
        ),
        (
            lambda: RatingTableDisplay.from_result(np.zeros(3)),
            TypeError,
            "BootstrapResult",
        ),
        (
            lambda: RatingTableDisplay.from_data(["a", "b"], [1.0, 2.0], low=[0, 0]),
            ValueError,
            "both low and high",
        ),
        (
            lambda: InfoGainDisplay.from_estimator(InfoGainSelector()),
            NotFittedError,
            None,
        ),
        (lambda: ItemCurveDisplay.from_estimator(IRT2PL()), NotFittedError, None),
        (
            lambda: AgentCurveDisplay.from_estimator(GeneralityScorer(), [[1.0]]),
            NotFittedError,
            None,
        ),
        (
            lambda: AbilityGeneralityDisplay.from_data([0.0, 1.0], [1.0, -2.0]),
            ValueError,
            "non-negative",
        ),
        (
            lambda: MissingResultsDisplay.from_data(np.ones(3)),
            ValueError,
            "2-D",
        ),
    ],
)
def test_from_constructors_validate_before_drawing(call, error, message):
    with pytest.raises(error, match=message):
        call()
    assert plt.get_fignums() == []


def test_item_curves_from_estimator_reject_bad_selections():
    X = make_items()
    model = IRT2PL().fit(X)
    for kwargs, message in (
        ({"items": ["nope"]}, "Unknown item 'nope'"),
        ({"items": [99]}, "out of range"),
        ({"show_responses": True}, "X is needed"),
        ({"theta_range": (2, -2)}, "theta_range"),
        ({"items": "hardest"}, "not a rule"),
        ({"item_names": ["a"]}, "item_names must have 8"),
    ):
        with pytest.raises(ValueError, match=message):
            ItemCurveDisplay.from_estimator(model, **kwargs)
    Xc = X.copy()
    Xc[:, 0] = 1.0
    with pytest.warns(UserWarning):
        constant = IRT2PL().fit(Xc)
    with pytest.raises(ValueError, match="left out of estimation"):
        ItemCurveDisplay.from_estimator(constant, items=[0])
    assert plt.get_fignums() == []


def make_items():
    from sklearn_eval.datasets import make_irt_responses

    return make_irt_responses(120, 8, random_state=0)


def test_matplotlib_is_imported_by_the_displays_only():
    """matplotlib is a core dependency, imported by ``sklearn_eval.plotting``;
    the package and its command line start without it."""
    code = textwrap.dedent(
        """
        import sys
        import sklearn_eval, sklearn_eval.cli
        assert "matplotlib" not in sys.modules
        import sklearn_eval.plotting
        assert "matplotlib.pyplot" in sys.modules
        print("ok")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
