"""Shared fixtures: the location of the shared reference data, a Dask cluster."""

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


@pytest.fixture(scope="session")
def dask_client():
    """A ``dask.distributed`` client of two single-threaded worker processes.

    One cluster for the whole session, started by the first test that asks
    for it and closed at the end; skips when the ``distributed`` extra is not
    installed.
    """
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        silence_logs=40,
    ) as cluster, distributed.Client(cluster) as client:
        yield client


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
