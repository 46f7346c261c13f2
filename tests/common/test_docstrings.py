"""numpydoc validation of the public API (as scikit-learn's test_docstring_parameters).

Every public name of every subpackage (its ``__all__``) and every public method
or property of a public class is validated with :func:`numpydoc.validate.validate`.
The checks enforced are the ones that make a docstring wrong, not merely terse:

- GL08: the object has a docstring;
- SS01: it starts with a one-line summary;
- PR01 / PR02: every parameter of the signature is documented, and nothing
  else is;
- PR03: parameters are documented in the order of the signature;
- YD01: a generator documents what it yields.

Style checks (PR07 a parameter without a description line, RT02/RT03 the form
of the Returns section, SS05 the summary's mood) are not enforced.
"""

import dataclasses
import importlib
import inspect

import numpydoc.validate as numpydoc_validate
import pytest

SUBPACKAGES = [
    "datasets", "game", "io", "irt", "metrics", "pairwise", "plotting", "report",
    "selection", "uncertainty", "utils",
]
ENFORCED = {"GL08", "SS01", "PR01", "PR02", "PR03", "YD01"}

# name -> why a finding is accepted
EXCEPTIONS = {}


def _is_record(obj):
    """NamedTuple and dataclass results document their fields as Attributes."""
    return inspect.isclass(obj) and (
        dataclasses.is_dataclass(obj)
        or (issubclass(obj, tuple) and hasattr(obj, "_fields"))
    )


def _public_api():
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"sklearn_eval.{sub}")
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue  # constants and scorer objects (make_scorer instances)
            qualname = f"sklearn_eval.{sub}.{name}"
            yield qualname, obj
            if not inspect.isclass(obj):
                continue
            # its own methods and those of the package's mixins (not
            # scikit-learn's: get_params and friends are theirs to document)
            seen = set()
            for owner in obj.__mro__:
                if not owner.__module__.startswith("sklearn_eval"):
                    continue
                for attr, value in vars(owner).items():
                    if attr.startswith("_") or attr in seen:
                        continue
                    seen.add(attr)
                    if inspect.isfunction(value) or isinstance(
                        value, (property, classmethod, staticmethod)
                    ):
                        yield f"{qualname}.{attr}", value


API = sorted(dict(_public_api()).items())


@pytest.mark.parametrize("qualname, obj", API, ids=[q for q, _ in API])
def test_public_docstring_is_valid(qualname, obj):
    result = numpydoc_validate.validate(qualname)
    errors = [
        f"{code}: {message}"
        for code, message in result["errors"]
        if code in ENFORCED
        and (qualname, code) not in EXCEPTIONS
        and not (code == "PR01" and _is_record(obj))
    ]
    assert not errors, "\n".join(errors)


def test_the_walk_covers_the_api():
    names = {q for q, _ in API}
    assert "sklearn_eval.game.NashAverager.agent_table" in names
    assert "sklearn_eval.plotting.NashDisplay.from_estimator" in names
    assert len(API) > 200
