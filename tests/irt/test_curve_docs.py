"""The item-curve methods of IRT2PL and IRT document one hook the same way."""

import inspect

import pytest
from numpydoc.docscrape import FunctionDoc

from sklearn_eval.irt import IRT, IRT2PL
from sklearn_eval.irt._curve_docs import ICC, curve_doc

CURVES = ["icc", "item_information"]


@pytest.mark.parametrize("name", CURVES)
def test_shared_sections_are_identical(name):
    # AdaptiveTester and SubsetScoreEstimator read either estimator through
    # these methods: their contract (parameters, returns) reads the same.
    # IRT's icc also covers graded and continuous models (an expected score):
    # its summary and the meaning of the values say so; the call and the
    # returned shape are the hook's contract.
    ours, theirs = FunctionDoc(getattr(IRT, name)), FunctionDoc(getattr(IRT2PL, name))
    assert ours["Parameters"] == theirs["Parameters"]
    assert [r.type for r in ours["Returns"]] == [r.type for r in theirs["Returns"]]
    if name != "icc":
        assert ours["Summary"] == theirs["Summary"]
        assert ours["Returns"] == theirs["Returns"]


@pytest.mark.parametrize("method", [
    IRT.icc, IRT.item_information, IRT.expected_score,
    IRT2PL.icc, IRT2PL.item_information, IRT2PL.test_information,
])
def test_filled_docstrings_have_no_placeholders(method):
    doc = inspect.getdoc(method)
    assert "{" not in doc and "}" not in doc
    assert "theta : float or array-like of shape (n_points,)" in doc


def test_examples_run_in_the_defining_module():
    # The doctest finder collects a method's examples from the module whose
    # globals the function holds: the decorator must return the function.
    def icc(self, theta):
        return theta

    decorated = curve_doc(ICC, examples="        >>> 1\n        1\n")(icc)
    assert decorated is icc
    assert decorated.__globals__ is globals()
    assert ">>> 1" in decorated.__doc__
    assert IRT2PL.icc.__module__ == "sklearn_eval.irt._irt2pl"
    assert "IRT2PL.from_item_params" in IRT2PL.icc.__doc__
    from sklearn_eval.irt._binary_curves import BinaryCurvesMixin

    assert 'IRT(model="3PL"' in BinaryCurvesMixin.icc.__doc__
