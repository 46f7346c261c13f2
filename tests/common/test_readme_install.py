"""The README's first command works on a fresh machine.

The slow test copies the checkout (the files git tracks, as they are in the
working tree) to a temporary directory, runs the README's first command there
verbatim with bash (a fresh ``.venv`` from the ``python3`` on PATH, ``pip
install .`` with its dependencies from the package index, ``sklearn-eval
demo``), then checks the report the demo wrote into the current directory
(every figure drawn, none replaced by a note or an error box) and runs the
README's Python tour with that environment's Python. It takes minutes: CI runs
it (``--runslow``).
"""

import base64
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
INSTALL_TIMEOUT = 1500  # seconds: downloads and builds, on a busy machine too


def readme_text():
    return README.read_text(encoding="utf-8")


def first_command():
    """The first line of the README's first bash block."""
    match = re.search(r"```bash\n(.*?)```", readme_text(), flags=re.S)
    assert match, "README.md has no ```bash block"
    return match.group(1).strip().splitlines()[0].strip()


def tour_code():
    """The README's Python blocks, in order, as one script."""
    blocks = re.findall(r"```python\n(.*?)```", readme_text(), flags=re.S)
    assert blocks, "README.md has no ```python block"
    return "\n".join(blocks)


def report_name():
    """The report file the README says the demo writes (``./name.html``)."""
    match = re.search(r"`\./([\w.-]+\.html)`", readme_text())
    assert match, "README.md does not say where the demo writes its report"
    return match.group(1)


def test_first_command_installs_and_runs_the_demo_from_the_checkout():
    command = first_command()
    steps = [step.strip() for step in command.split("&&")]
    assert steps[0] == "python3 -m venv .venv", command
    assert any(re.fullmatch(r"pip install \.", step) for step in steps), command
    assert steps[-1].startswith("sklearn-eval demo"), command
    assert " -o" not in steps[-1] and "--output" not in steps[-1], (
        "the demo must write its report into the current directory (its default)"
    )


@pytest.mark.parametrize("page", ["docs/index.rst", "docs/getting_started.rst"])
def test_docs_show_the_readme_install_line(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert first_command() in text, f"{page} does not show the README's first command"


def checkout_files():
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (or git is missing): nothing to copy")
    names = [name for name in listed.decode().split("\0") if name]
    return [name for name in names if (ROOT / name).is_file()]


def copy_checkout(destination):
    for name in checkout_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


def clean_environment():
    """This process's environment without what would bypass the fresh venv."""
    env = dict(os.environ)
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP",
                 "PYTHONNOUSERSITE", "CONDA_PREFIX", "__PYVENV_LAUNCHER__"):
        env.pop(name, None)
    env["PIP_NO_INPUT"] = "1"
    env["MPLBACKEND"] = "Agg"
    return env


def check_report(path, demo_output):
    assert path.is_file(), f"the demo wrote no {path.name} in the current directory"
    page = path.read_text(encoding="utf-8")
    for absent in ("not installed", "not drawn", 'class="error-box"'):
        assert absent not in page, f"the report contains {absent!r}"
    assert "matplotlib is not installed" not in demo_output
    figures = re.findall(r"<figure\b", page)
    images = re.findall(r'<img\b[^>]*src="data:image/png;base64,([^"]+)"', page)
    assert figures, "the report has no figure"
    assert len(images) == len(figures), (
        f"{len(figures)} figures but {len(images)} embedded images"
    )
    for data in images:
        png = base64.b64decode(data)
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 2000
    return len(images)


@pytest.mark.slow
def test_readme_first_command_in_a_fresh_checkout(tmp_path):
    checkout = tmp_path / "sklearn-eval"
    copy_checkout(checkout)
    env = clean_environment()
    start = time.perf_counter()
    try:
        done = subprocess.run(
            ["bash", "-c", first_command()], cwd=checkout, env=env,
            capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
        )
        elapsed = time.perf_counter() - start
        output = done.stdout + done.stderr
        assert done.returncode == 0, (
            f"the README's first command failed ({done.returncode}):\n{output[-4000:]}"
        )
        print(f"README first command: {elapsed:.0f} s")
        n_figures = check_report(checkout / report_name(), output)
        print(f"report: {n_figures} figures")

        python = checkout / ".venv" / "bin" / "python"
        away = tmp_path / "elsewhere"  # not the checkout: import what pip installed
        away.mkdir()
        installed = subprocess.run(
            [str(python), "-c", "import numba, pandas, matplotlib, sklearn_eval; "
             "print(sklearn_eval.__file__)"],
            cwd=away, env=env, capture_output=True, text=True, timeout=300,
        )
        assert installed.returncode == 0, installed.stderr[-2000:]
        assert "site-packages" in installed.stdout, installed.stdout

        (away / "tour.py").write_text(tour_code(), encoding="utf-8")
        tour = subprocess.run(
            [str(python), "tour.py"], cwd=away, env=env,
            capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
        )
        assert tour.returncode == 0, (
            f"the README's tour fails in the fresh venv:\n{tour.stderr[-4000:]}"
        )
        assert "agent" in tour.stdout  # it printed its tables
    finally:
        # the environment is hundreds of MB: do not keep it among pytest's tmp dirs
        shutil.rmtree(checkout / ".venv", ignore_errors=True)
