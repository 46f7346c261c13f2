"""Tests of the command line interface."""

import io
import subprocess
import sys

from sklearn_eval import __version__
from sklearn_eval.cli import main


def test_demo_summarises_builtin_data():
    out = io.StringIO()
    assert main(["demo"], out=out) == 0
    text = out.getvalue()
    assert "atari_noop_matrix" in text and "32x57" in text
    assert "vicuna80" in text and "MIT" in text
    assert "Top 10 agents" in text


def test_no_command_prints_help_and_fails(capsys):
    out = io.StringIO()
    assert main([], out=out) == 2
    assert "usage: sklearn-eval" in out.getvalue()


def test_python_dash_m_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_eval", "--version"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == __version__
