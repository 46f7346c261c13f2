"""The package's rules that a walk over its source (and its tests) checks.

The design page ("The ranking protocol", "Layout") sets them: consumers of
the estimators read the ranking protocol (``agents_``, ``agent_scores_``,
``agent_table()``), never the names only the match raters have; a test of a
core dependency fails when it is missing instead of skipping; tabular text is
parsed by pandas, never row by row by hand; and every subpackage, plotting
included, counts for coverage. Each walker is shown a planted violation, so
that a walker that sees nothing cannot pass.
"""

import ast
import re
from pathlib import Path

import pytest

import sklearn_eval

PACKAGE = Path(sklearn_eval.__file__).resolve().parent
ROOT = PACKAGE.parent
TESTS = ROOT / "tests"
PYPROJECT = ROOT / "pyproject.toml"

# the match raters' own names for what the protocol calls agents_,
# agent_scores_ and agent_table() (kept there as aliases)
ELO_ONLY = frozenset({"players_", "ratings_", "rating_table"})


def _sources(folder):
    return sorted(folder.rglob("*.py"))


def _relative(path):
    path = path.resolve()
    return path.relative_to(ROOT).as_posix() if ROOT in path.parents else path.name


# ---------------------------------------------------------------------------
# Consumers read the protocol
# ---------------------------------------------------------------------------
def elo_name_reads(paths):
    """``path:line name`` of every read of a match rater's own name.

    A read is an attribute load (``model.ratings_``) or a ``getattr`` /
    ``hasattr`` naming it; an estimator that defines a ``ratings_`` of its own
    writes it (a fitted-value dict key), which is not a read.
    """
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                name = node.attr
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "hasattr") and len(node.args) > 1
                  and isinstance(node.args[1], ast.Constant)):
                name = node.args[1].value
            if name in ELO_ONLY:
                found.append(f"{_relative(path)}:{node.lineno} {name}")
    return sorted(found)


def test_no_consumer_outside_pairwise_reads_elo_only_names():
    consumers = [p for p in _sources(PACKAGE)
                 if "pairwise" not in p.relative_to(PACKAGE).parts]
    assert elo_name_reads(consumers) == []


# ---------------------------------------------------------------------------
# Tests of core dependencies fail instead of skipping
# ---------------------------------------------------------------------------
_IMPORT_NAMES = {"scikit-learn": "sklearn"}


def core_dependencies():
    """Import names of ``[project] dependencies`` (and matplotlib's pillow)."""
    text = PYPROJECT.read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.M | re.S).group(1)
    names = set()
    for line in block.splitlines():
        match = re.match(r'\s*"([A-Za-z0-9_.-]+)', line)
        if match:
            name = match.group(1).lower()
            names.add(_IMPORT_NAMES.get(name, name.replace("-", "_")))
    return names | {"PIL"}  # pillow: a requirement of matplotlib


def core_importorskips(paths, core):
    """``path:line module`` of every ``importorskip`` of a core dependency."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(
                func, "id", None)
            if called != "importorskip" or not node.args:
                continue
            module = node.args[0]
            if isinstance(module, ast.Constant) and isinstance(module.value, str):
                if module.value.split(".")[0] in core:
                    found.append(f"{_relative(path)}:{node.lineno} {module.value}")
    return sorted(found)


def test_core_dependencies_are_read_from_the_project():
    core = core_dependencies()
    assert {"numpy", "scipy", "sklearn", "pandas", "matplotlib", "numba",
            "cvxpy", "joblib"} <= core
    assert "dask" not in core and "distributed" not in core  # an extra


def test_no_importorskip_of_a_core_dependency():
    assert core_importorskips(_sources(TESTS), core_dependencies()) == []


# ---------------------------------------------------------------------------
# Tabular text is parsed by pandas
# ---------------------------------------------------------------------------
# the standard library's row-by-row readers and the garbage-collector pause
# that made them bearable on large files; csv.writer (with the spreadsheet
# formula rule) and csv.Sniffer (which guesses a separator) parse nothing
_ROW_READERS = frozenset({"reader", "DictReader"})


def hand_written_parsers(paths):
    """``path:line what`` of every row-by-row CSV reader or GC pause."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)):
                continue
            module, name = node.value.id, node.attr
            if (module == "csv" and name in _ROW_READERS) or (
                    module == "gc" and name == "disable"):
                found.append(f"{_relative(path)}:{node.lineno} {module}.{name}")
    return sorted(found)


# the library's own files, read with the standard library's reader so that a
# damaged row (one cell more or fewer than the header) is named by its line:
# the shipped datasets and the item files of write_items_csv (checksummed).
# Users' files (result matrices, matches, harness outputs) are parsed by pandas.
_OWN_FORMATS = (
    "sklearn_eval/datasets/_base.py",
    "sklearn_eval/datasets/_leaderboards.py",
    "sklearn_eval/selection/_item_format.py",
)


def test_no_hand_written_csv_parser():
    found = hand_written_parsers(_sources(PACKAGE))
    assert [f for f in found if not f.startswith(_OWN_FORMATS)] == []


# ---------------------------------------------------------------------------
# Coverage counts every subpackage
# ---------------------------------------------------------------------------
def _coverage_settings():
    text = PYPROJECT.read_text(encoding="utf-8")
    match = re.search(r"^\[tool\.coverage\.run\]\n(.*?)(?=^\[|\Z)", text,
                      re.M | re.S)
    return "" if match is None else match.group(1)


def test_plotting_counts_for_coverage():
    settings = _coverage_settings()
    assert re.search(r'^source = \["sklearn_eval"\]', settings, re.M)
    assert "omit" not in settings
    for other in (ROOT / ".coveragerc", ROOT / "setup.cfg", ROOT / "tox.ini"):
        if other.exists():
            text = other.read_text(encoding="utf-8")
            assert "[coverage:" not in text and "omit" not in text, other.name


# ---------------------------------------------------------------------------
# The walkers see what they look for
# ---------------------------------------------------------------------------
@pytest.fixture
def planted(tmp_path):
    root = tmp_path / "planted"
    root.mkdir()

    def plant(source):
        path = root / "module.py"
        path.write_text(source, encoding="utf-8")
        return [path]

    return plant


def test_the_walkers_see_planted_violations(planted):
    paths = planted(
        "import csv, gc, pytest\n"
        "x = model.ratings_\n"
        "y = getattr(model, 'players_', None)\n"
        "model.rating_table()\n"
        "ok = {'ratings_': 1}\n"
        "pd = pytest.importorskip('pandas')\n"
        "da = pytest.importorskip('dask.array')\n"
        "rows = list(csv.reader(handle))\n"
        "gc.disable()\n"
        "csv.writer(handle)\n"
    )
    assert elo_name_reads(paths) == [
        "module.py:2 ratings_", "module.py:3 players_", "module.py:4 rating_table",
    ]
    assert core_importorskips(paths, {"pandas"}) == [
        "module.py:6 pandas"]
    assert hand_written_parsers(paths) == [
        "module.py:8 csv.reader", "module.py:9 gc.disable"]
