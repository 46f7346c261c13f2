"""Each interval function has one public home, its family (see the API reference).

The generic entry points (``ranking_intervals``, ``bootstrap_ranking``,
``summarize_samples``) live in :mod:`sklearn_eval.uncertainty`; the fast and
analytic paths of a family live in that family. The names formerly
re-exported from :mod:`sklearn_eval.uncertainty` resolve to the same objects
with a FutureWarning, for one release.
"""

import inspect

import pytest

import sklearn_eval.irt
import sklearn_eval.pairwise
import sklearn_eval.uncertainty

MOVED = {
    "bootstrap_bradley_terry": sklearn_eval.pairwise,
    "bootstrap_online_elo": sklearn_eval.pairwise,
    "bradley_terry_covariance": sklearn_eval.pairwise,
    "bradley_terry_intervals": sklearn_eval.pairwise,
    "irt_intervals": sklearn_eval.irt,
}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_old_import_warns_and_resolves_to_the_family_function(name):
    assert name not in sklearn_eval.uncertainty.__all__
    family = MOVED[name].__name__
    with pytest.warns(FutureWarning, match=f"{family}.{name}"):
        moved = getattr(sklearn_eval.uncertainty, name)
    assert moved is getattr(MOVED[name], name)


def test_each_public_function_is_exported_by_one_subpackage():
    homes = {}
    for module in ("game", "irt", "metrics", "pairwise", "selection",
                   "uncertainty", "utils", "plotting", "datasets"):
        package = __import__(f"sklearn_eval.{module}", fromlist=["__all__"])
        for name in package.__all__:
            if not inspect.isfunction(getattr(package, name)):
                continue  # result classes are shared types, not entry points
            homes.setdefault(name, []).append(module)
    shared = {name: where for name, where in homes.items() if len(where) > 1}
    assert not shared, shared


def test_unknown_names_still_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute"):
        sklearn_eval.uncertainty.not_a_function  # noqa: B018
