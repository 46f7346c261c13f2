"""A command killed while it runs leaves its output file whole (command line guide).

``report`` and ``compress`` are run in a child process and killed (SIGKILL)
at random moments over their run time: the output file is then either the
file that was there before or the complete new one, never empty or partial.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import sklearn_eval
from sklearn_eval.datasets import make_agent_task_scores, make_irt_responses
from sklearn_eval.selection import read_items_csv

from ._helpers import write_wide

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.name != "posix", reason="POSIX signals"),
]

OLD = "the previous output\n"


def _env():
    root = str(Path(sklearn_eval.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root if not path else root + os.pathsep + path}


def _argv(command, data, output):
    base = [sys.executable, "-m", "sklearn_eval", command, str(data), "-q",
            "-o", str(output)]
    if command == "report":
        return base + ["--n-resamples", "0", "--n-tasks", "3", "--no-figures"]
    return base + ["--n-items", "8", "--random-state", "0"]


def _inputs(command, tmp_path):
    if command == "report":
        values = make_agent_task_scores(25, 15, random_state=0)
    else:
        values = make_irt_responses(60, 30, random_state=0)
    return write_wide(tmp_path / "data.csv", values)


@pytest.mark.parametrize("command", ["report", "compress"])
def test_killed_command_leaves_old_or_complete_output(command, tmp_path):
    data = _inputs(command, tmp_path)
    output = tmp_path / ("out.html" if command == "report" else "items.csv")
    start = time.perf_counter()
    subprocess.run(_argv(command, data, output), env=_env(), check=True,
                   capture_output=True)
    duration = time.perf_counter() - start
    complete = output.read_bytes()
    rng = np.random.default_rng(0)
    outcomes = []
    for delay in rng.uniform(0.3, 1.1, 4) * duration:
        output.write_text(OLD)
        child = subprocess.Popen(_argv(command, data, output), env=_env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        found = output.read_bytes()
        if found == OLD.encode():
            outcomes.append("old")
            continue
        outcomes.append("new")
        if command == "compress":
            assert found == complete
            read_items_csv(output)
        else:
            assert found.rstrip().endswith(b"</html>")
            assert abs(len(found) - len(complete)) < 0.01 * len(complete)
    assert len(outcomes) == 4
