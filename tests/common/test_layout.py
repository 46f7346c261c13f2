"""The package's layout rules, checked on its source.

Each family lives in its own subpackage and speaks to the others only
through their public names: no module imports another subpackage's private
modules or private names (``sklearn_eval.utils`` is the shared toolbox and
is exempt), no import circle (function-level imports included), and no
module grows past the size a reader can hold.
"""

import ast
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

import sklearn_eval

PACKAGE = Path(sklearn_eval.__file__).resolve().parent
MAX_LINES = 800


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _resolve(importer, node):
    """Absolute module named by an ``import``/``from`` node (None if external)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("sklearn_eval")]
    package = importer if MODULES[importer].name == "__init__.py" else (
        importer.rpartition(".")[0]
    )
    if node.level:
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("sklearn_eval"):
        return []
    found = []
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        found.append(submodule if submodule in MODULES else target)
    return found


def _imports():
    """(importer, imported module, imported name) for every import in the package."""
    edges = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            targets = _resolve(name, node)
            if isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names]
            else:
                names = [""] * len(targets)
            edges.extend(
                (name, target, imported)
                for target, imported in zip(targets, names, strict=False)
            )
    return edges


def _family(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _is_private(part):
    return part.startswith("_") and not part.startswith("__")


def cross_family_private_imports():
    bad = []
    for importer, target, name in _imports():
        family, other = _family(importer), _family(target)
        if other in ("", "utils") or family == other:
            continue
        private_module = any(_is_private(p) for p in target.split(".")[1:])
        if private_module or _is_private(name):
            bad.append(f"{importer} imports {target}:{name}")
    return sorted(set(bad))


def import_circles():
    names = sorted(MODULES)
    index = {name: k for k, name in enumerate(names)}
    pairs = {
        (index[a], index[b]) for a, b, _ in _imports() if a != b and b in index
    }
    rows, cols = zip(*pairs, strict=True) if pairs else ((), ())
    graph = csr_matrix(
        (np.ones(len(rows)), (rows, cols)), shape=(len(names), len(names))
    )
    _, labels = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(labels)
    return [
        sorted(names[k] for k in np.flatnonzero(labels == c))
        for c in np.flatnonzero(sizes > 1)
    ]


def test_no_module_imports_another_familys_private_names():
    assert cross_family_private_imports() == []


def test_no_import_circle():
    assert import_circles() == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_stays_readable(module):
    n_lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert n_lines <= MAX_LINES, f"{module} has {n_lines} lines"


def test_the_checker_sees_a_planted_violation(tmp_path, monkeypatch):
    """The walker would catch the old uncertainty -> pairwise._batch import."""
    fake = {
        "sklearn_eval.uncertainty._x": tmp_path / "_x.py",
        "sklearn_eval.pairwise._batch": tmp_path / "_batch.py",
        "sklearn_eval.pairwise._y": tmp_path / "_y.py",
    }
    fake["sklearn_eval.uncertainty._x"].write_text(
        "from ..pairwise._batch import _bt_gradient\n"
    )
    fake["sklearn_eval.pairwise._batch"].write_text("from . import _y\n")
    fake["sklearn_eval.pairwise._y"].write_text("from ._batch import f\n")
    monkeypatch.setattr(f"{__name__}.MODULES", fake)
    assert cross_family_private_imports() == [
        "sklearn_eval.uncertainty._x imports sklearn_eval.pairwise._batch:_bt_gradient"
    ]
    assert import_circles() == [
        ["sklearn_eval.pairwise._batch", "sklearn_eval.pairwise._y"]
    ]
