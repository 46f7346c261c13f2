"""Analyses shared by the report tests (computed once per session)."""

import pytest

from sklearn_eval.cli._demo import atari_benchmark as _atari_benchmark
from sklearn_eval.datasets import make_agent_task_scores
from sklearn_eval.report import analyze_benchmark, prepare_benchmark


@pytest.fixture(scope="session")
def atari():
    return analyze_benchmark(_atari_benchmark(), n_resamples=10, random_state=0)


@pytest.fixture(scope="session")
def atari_with_reference():
    """Atari with the human and random reference rows ranked (no intervals)."""
    return analyze_benchmark(
        _atari_benchmark(include_reference=True), n_resamples=0, random_state=0
    )


@pytest.fixture(scope="session")
def atari_rendering(atari, tmp_path_factory):
    """The Atari report written with figures: (page, result, progress lines)."""
    from sklearn_eval.report import write_report

    messages = []
    path = tmp_path_factory.mktemp("atari") / "atari.html"
    result = write_report(atari, path, progress=messages.append)
    return path.read_text(encoding="utf-8"), result, messages


@pytest.fixture(scope="session")
def atari_page(atari_rendering):
    return atari_rendering[0]


@pytest.fixture(scope="session")
def synthetic():
    scores, params = make_agent_task_scores(
        25, 16, noise=0.8, random_state=0, return_params=True
    )
    bench = prepare_benchmark(scores, threshold=0.5, name="synthetic")
    return analyze_benchmark(bench, n_tasks=5, n_resamples=8, random_state=0), params
