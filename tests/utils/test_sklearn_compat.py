"""scikit-learn's private names enter the package through one module.

``sklearn_eval/utils/_sklearn_compat.py`` is the only module that may import
a private scikit-learn module or name (``_param_validation``, ``_fit_context``,
``_get_feature_names``), so a scikit-learn release that moves one is absorbed
in one place (design page, "Supported scikit-learn versions").
"""

import ast
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn

from sklearn_eval.utils import _sklearn_compat

PACKAGE = Path(__file__).resolve().parents[2] / "sklearn_eval"
COMPAT = PACKAGE / "utils" / "_sklearn_compat.py"
PYPROJECT = PACKAGE.parent / "pyproject.toml"


def _private(part):
    return part.startswith("_") and not part.startswith("__")


def private_sklearn_imports(paths):
    """``path:line module:name`` of every private scikit-learn import."""
    bad = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                parts = node.module.split(".")
                if parts[0] != "sklearn":
                    continue
                private_module = any(_private(p) for p in parts[1:])
                for alias in node.names:
                    if private_module or _private(alias.name):
                        where = f"{path.name}:{node.lineno}"
                        bad.append(f"{where} {node.module}:{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "sklearn" and any(_private(p) for p in parts[1:]):
                        bad.append(f"{path.name}:{node.lineno} {alias.name}")
    return bad


def test_no_private_sklearn_import_outside_the_compat_module():
    sources = [p for p in sorted(PACKAGE.rglob("*.py")) if p != COMPAT]
    assert private_sklearn_imports(sources) == []


def test_the_walker_sees_planted_private_imports(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from sklearn.base import BaseEstimator, _fit_context\n"
        "from sklearn.utils._param_validation import Interval\n"
        "import sklearn.utils._testing\n"
        "from sklearn.utils.validation import check_array\n"
        "def f():\n    from sklearn.utils.validation import _get_feature_names\n"
    )
    assert private_sklearn_imports([planted]) == [
        "planted.py:1 sklearn.base:_fit_context",
        "planted.py:2 sklearn.utils._param_validation:Interval",
        "planted.py:3 sklearn.utils._testing",
        "planted.py:6 sklearn.utils.validation:_get_feature_names",
    ]


def test_installed_sklearn_is_in_the_declared_range():
    text = PYPROJECT.read_text(encoding="utf-8")
    low, high = re.search(r'"scikit-learn>=([0-9.]+),<([0-9.]+)"', text).groups()
    as_tuple = _sklearn_compat._version_tuple
    assert as_tuple(low) <= _sklearn_compat.SKLEARN_VERSION < as_tuple(high)
    assert _sklearn_compat.SKLEARN_VERSION == as_tuple(sklearn.__version__)


@pytest.mark.parametrize(
    "text, expected", [("1.6.1", (1, 6)), ("1.10.0rc1", (1, 10)), ("2.0.dev0", (2, 0))]
)
def test_version_tuple(text, expected):
    assert _sklearn_compat._version_tuple(text) == expected


def test_feature_names_follow_sklearn():
    frame = pd.DataFrame([[1.0, 2.0]], columns=["a", "b"])
    assert _sklearn_compat._get_feature_names(frame).tolist() == ["a", "b"]
    assert _sklearn_compat._get_feature_names(np.ones((1, 2))) is None
    with pytest.raises(TypeError):
        _sklearn_compat._get_feature_names(pd.DataFrame([[1.0, 2.0]], columns=["a", 0]))
