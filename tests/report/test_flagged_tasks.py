"""Tasks whose results say nothing about ability are flagged and not recommended.

User guide, "Command line" (the report): a task nobody or everyone solves
separates no agents, and one with a negative IRT discrimination (the abler
agents fail it more often) is not ordered by its difficulty; the report flags
them wherever tasks are listed and leaves them out of the recommended subset
unless asked.
"""

import re

import numpy as np
import pytest

from sklearn_eval.datasets import make_agent_task_scores
from sklearn_eval.report import analyze_benchmark, prepare_benchmark, render_report


def _benchmark(seed):
    scores = make_agent_task_scores(30, 14, noise=0.5, random_state=seed)
    order = np.argsort(scores.mean(axis=1))
    # task 0: nobody succeeds; task 1: everyone succeeds; task 2: reversed
    scores[:, 0] = -10.0
    scores[:, 1] = 10.0
    scores[:, 2] = np.where(np.argsort(order) < 15, 1.0, 0.0)  # weak agents win
    bench = prepare_benchmark(
        scores, threshold=0.5, tasks=[f"task{j}" for j in range(14)]
    )
    return bench


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_flagged_tasks_are_flagged_and_not_recommended(seed):
    bench = _benchmark(seed)
    analysis = analyze_benchmark(bench, n_tasks=13, n_resamples=0)
    flags = dict(zip(bench.tasks, analysis.irt.flags, strict=True))
    assert flags["task0"] == "nobody succeeds"
    assert flags["task1"] == "everyone succeeds"
    assert flags["task2"] == "negative discrimination"
    assert analysis.irt.discrimination[2] < 0
    unflagged = [t for t, f in flags.items() if not f]
    assert all(analysis.irt.discrimination[int(t[4:])] >= 0 for t in unflagged)
    chosen = set(analysis.block.tasks[analysis.selection.order])
    assert not chosen & {"task0", "task1", "task2"}
    assert len(chosen) == len(unflagged)  # every other task is still a candidate
    page = render_report(analysis, figures=False)
    tasks = page[page.index('data-table="tasks"'):]
    tasks = tasks[: tasks.index("</table>")]
    rows = [r for r in re.findall(r'<td class="label">([^<]*)</td>', tasks)
            if r in flags]
    assert sorted(rows) == sorted(flags)
    # the reversed task is listed after the others, not among the easiest
    assert rows[-1] == "task2"
    for name in ("nobody succeeds", "everyone succeeds", "negative discrimination"):
        assert name in tasks
    assert "Left out of the candidates as flagged" in page


def test_flagged_tasks_are_recommended_when_asked():
    bench = _benchmark(0)
    analysis = analyze_benchmark(
        bench, n_tasks=14, n_resamples=0, include_flagged_tasks=True
    )
    assert len(analysis.selection.order) == 14
    assert analysis.selection.excluded.size == 0
