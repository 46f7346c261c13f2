"""Shared fixtures: the location of the shared reference data."""

import os
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[1]


def _find_shared():
    candidates = [
        os.environ.get("SKLEARN_EVAL_SHARED"),
        _REPO.parent / "shared",
        Path("/work/shared"),
    ]
    for candidate in candidates:
        if candidate and (Path(candidate) / "data").is_dir():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def shared_dir():
    """Path to the shared reference data (``../shared`` beside the repo).

    Tests that need files which are not shipped with the package (GPL or
    unlicensed reference data, the published fixtures) skip when it is absent.
    """
    path = _find_shared()
    if path is None:
        pytest.skip("shared reference data (../shared) not found")
    return path


def pytest_addoption(parser):
    parser.addoption(
        "--runslow", action="store_true", default=False, help="also run slow tests"
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow: run with --runslow (CI does)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)
