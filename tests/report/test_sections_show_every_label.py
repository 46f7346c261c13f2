"""Every agent table of both reports names every agent by its label.

User guide: "The HTML report" and "The ranking protocol". The report's
rankers are fitted on labelled data (a benchmark with named agents and
tasks, matches between named players); each section that lists agents or
tasks shows each one's label, read through the protocol, never a position
("agent 3"). Checked on a seeded corpus of labelled benchmarks and
leagues of different sizes.
"""

import re

import numpy as np
import pytest

from sklearn_eval.datasets import make_agent_task_scores, make_matches
from sklearn_eval.report import (
    analyze_benchmark,
    analyze_matches,
    prepare_benchmark,
    prepare_matches,
    render_report,
)

from .pages import parse_sections

MODELS = ["gpt-x", "claude-y", "llama-z", "mistral-w", "qwen-v", "phi-u",
          "gemma-t", "command-s", "yi-r", "falcon-q"]
SUBJECTS = ["algebra", "biology", "chess", "drawing", "essays", "french",
            "geology", "history", "italian"]
POSITIONAL = re.compile(r"^(agent|player|task) ?\d+$")

# sections listing every agent (or, for tasks, every task) of what they rank
BENCHMARK_AGENTS = ("ranking", "generality")
BENCHMARK_BLOCK_AGENTS = ("hodge",)
BENCHMARK_TASKS = ("tasks",)
MATCH_PLAYERS = ("ratings", "cyclic", "nash")


def _benchmark(seed):
    n_agents, n_tasks = 6 + seed, 5 + seed
    scores = make_agent_task_scores(n_agents, n_tasks, random_state=seed)
    agents, tasks = MODELS[:n_agents], SUBJECTS[:n_tasks]
    bench = prepare_benchmark(scores, agents=agents, tasks=tasks, threshold=0.5)
    return bench, analyze_benchmark(bench, n_tasks=3, n_resamples=0,
                                    random_state=seed)


def _league(seed):
    n = 4 + 2 * seed
    X, y = make_matches(n_players=n, n_matches=60 * n, random_state=seed)
    names = dict(zip(sorted(set(np.asarray(X).ravel().tolist())), MODELS,
                     strict=False))
    X = np.vectorize(names.get, otypes=[object])(np.asarray(X))
    matches = prepare_matches(X, y)
    return matches, analyze_matches(matches, n_resamples=0, random_state=seed)


def _label_cells(section):
    return [cell.strip() for cell in section["cells"]]


@pytest.mark.parametrize("seed", range(3))
def test_benchmark_sections_name_every_agent_and_task(seed):
    bench, analysis = _benchmark(seed)
    assert not analysis.failures
    sections = parse_sections(render_report(analysis, figures=False))
    block_agents = analysis.block.agents
    for key, labels in (
        *((k, bench.agents) for k in BENCHMARK_AGENTS),
        *((k, block_agents) for k in BENCHMARK_BLOCK_AGENTS),
        *((k, bench.tasks) for k in BENCHMARK_TASKS),
    ):
        cells = _label_cells(sections[key])
        assert set(labels) <= set(cells), key
        assert not [c for c in cells if POSITIONAL.match(c)], key


@pytest.mark.parametrize("seed", range(3))
def test_match_sections_name_every_player(seed):
    matches, analysis = _league(seed)
    assert not analysis.failures
    sections = parse_sections(render_report(analysis, figures=False))
    for key in MATCH_PLAYERS:
        cells = _label_cells(sections[key])
        assert set(matches.players) <= set(cells), key
        assert set(matches.players) <= set(MODELS)
        assert not [c for c in cells if POSITIONAL.match(c)], key
