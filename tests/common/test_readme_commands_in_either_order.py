"""The README's two commands work one after the other, in either order, in one checkout.

A non-editable install followed by an editable one (or the reverse) in the same
``.venv`` must leave a working package: the library never writes into its own
install directory at run time (compiled kernels are cached in the user cache
directory, see ``sklearn_eval.utils._jit``), so the uninstall that the second
``pip install`` performs removes every file of the first one and nothing is left
to turn ``sklearn_eval`` into a namespace package.

The slow test copies the checkout once per order, runs the README's bash blocks
verbatim (the second without its final full ``pytest`` run), then checks
``sklearn-eval --version``, the README's Python tour and ``pytest
--collect-only`` with that environment. It takes many minutes: CI runs it
(``--runslow``).
"""

import csv
import re
import shutil
import subprocess
import sys

import pytest

from .test_readme_install import (
    INSTALL_TIMEOUT,
    clean_environment,
    copy_checkout,
    readme_text,
    tour_code,
)


def readme_commands():
    """The first line of each of the README's first two bash blocks."""
    blocks = re.findall(r"```bash\n(.*?)```", readme_text(), flags=re.S)
    assert len(blocks) >= 2, "README.md has fewer than two ```bash blocks"
    return [block.strip().splitlines()[0].strip() for block in blocks[:2]]


def without_test_run(command):
    """The install part of the test command: its trailing ``pytest`` step dropped."""
    steps = [step.strip() for step in command.split("&&")]
    assert steps[-1].startswith("pytest"), command
    return " && ".join(steps[:-1])


def test_the_readme_has_an_install_command_and_a_test_command():
    demo, tests = readme_commands()
    assert "pip install ." in demo and "sklearn-eval demo" in demo, demo
    assert 'pip install -e ".[test]"' in tests, tests
    assert without_test_run(tests).endswith('pip install -e ".[test]"'), tests


def run(command, cwd, env, timeout=INSTALL_TIMEOUT):
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=timeout,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, (
        f"{command!r} failed ({done.returncode}):\n{output[-4000:]}"
    )
    return done.stdout


def stray_files(venv):
    """Files inside the installed ``sklearn_eval`` that its installer did not record."""
    site = next((venv / "lib").glob("python3*/site-packages"))
    package = site / "sklearn_eval"
    if not package.is_dir():
        return []  # editable install: the package is the checkout
    records = list(site.glob("sklearn_eval-*.dist-info/RECORD"))
    assert len(records) == 1, records
    with records[0].open(newline="", encoding="utf-8") as handle:
        recorded = {(site / row[0]).resolve() for row in csv.reader(handle) if row}
    return sorted(
        str(path.relative_to(site)) for path in package.rglob("*")
        if path.is_file() and path.resolve() not in recorded
    )


def check_environment(checkout, tmp_path, env, editable):
    python = checkout / ".venv" / "bin" / "python"
    away = tmp_path / "elsewhere"  # not the checkout: import what pip installed
    away.mkdir(exist_ok=True)
    version = run(f"{checkout / '.venv' / 'bin' / 'sklearn-eval'} --version", away, env,
                  timeout=300)
    assert re.search(r"\d+\.\d+", version), version
    where = run(f"{python} -c 'import sklearn_eval; print(sklearn_eval.__file__)'",
                away, env, timeout=300)
    # .venv lives in the checkout: tell the two installs apart by site-packages
    assert ("site-packages" in where) is not editable, where
    (away / "tour.py").write_text(tour_code(), encoding="utf-8")
    assert "agent" in run(f"{python} tour.py", away, env)
    collected = run(f"{python} -m pytest --collect-only -q -p no:cacheprovider",
                    checkout, env)
    assert re.search(r"\d+ tests? collected", collected), collected[-2000:]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="the README's commands are bash")
@pytest.mark.parametrize("order", ["demo-then-tests", "tests-then-demo"])
def test_readme_commands_in_either_order_in_one_checkout(tmp_path, order):
    checkout = tmp_path / "sklearn-eval"
    copy_checkout(checkout)
    env = clean_environment()
    # numba's user cache directory follows XDG_CACHE_HOME: keep it in tmp_path
    cache_home = tmp_path / "cache"
    env["XDG_CACHE_HOME"] = str(cache_home)
    env.pop("NUMBA_CACHE_DIR", None)
    demo, tests = readme_commands()
    install_tests = without_test_run(tests)
    try:
        if order == "demo-then-tests":
            run(demo, checkout, env)
            assert stray_files(checkout / ".venv") == [], (
                "the demo wrote into the installed package"
            )
            assert list(cache_home.rglob("*.nbi")), "no compiled kernel was cached"
            run(install_tests, checkout, env)
            check_environment(checkout, tmp_path, env, editable=True)
        else:
            run(install_tests, checkout, env)
            run(demo, checkout, env)
            assert stray_files(checkout / ".venv") == []
            check_environment(checkout, tmp_path, env, editable=False)
            assert stray_files(checkout / ".venv") == []
    finally:
        # the environment is hundreds of MB: do not keep it among pytest's tmp dirs
        shutil.rmtree(checkout / ".venv", ignore_errors=True)
        shutil.rmtree(cache_home, ignore_errors=True)


def test_stray_files_lists_what_the_installer_did_not_record(tmp_path):
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "sklearn_eval" / "__pycache__").mkdir(parents=True)
    (site / "sklearn_eval-0.dist-info").mkdir()
    (site / "sklearn_eval" / "__init__.py").write_text("")
    (site / "sklearn_eval" / "__pycache__" / "k.nbi").write_bytes(b"")
    (site / "sklearn_eval-0.dist-info" / "RECORD").write_text(
        "sklearn_eval/__init__.py,,\nsklearn_eval-0.dist-info/RECORD,,\n"
    )
    assert stray_files(tmp_path / "venv") == ["sklearn_eval/__pycache__/k.nbi"]
