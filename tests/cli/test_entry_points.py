"""``sklearn-eval`` and ``python -m sklearn_eval`` start fast and answer alike."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sklearn_eval
from sklearn_eval import __version__
from sklearn_eval.cli import main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["rank", "nash", "irt", "generality", "select", "report", "demo"]
HEAVY = ("sklearn", "scipy", "numpy", "pandas", "matplotlib", "cvxpy", "numba")


def _modules_after(code):
    """Top-level packages among HEAVY imported by running ``code``."""
    script = (
        f"{code}\nimport sys\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()


def test_version_imports_neither_scikit_learn_nor_numpy():
    lines = _modules_after(
        "import runpy, sys\n"
        "sys.argv = ['sklearn-eval', '--version']\n"
        "try:\n"
        "    runpy.run_module('sklearn_eval', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code"
    )
    assert lines == [__version__, "[]"]


def test_importing_the_package_and_the_cli_stays_light():
    assert _modules_after("import sklearn_eval, sklearn_eval.cli") == ["[]"]


def test_the_estimators_are_still_top_level_names():
    from sklearn_eval.game import NashAverager

    assert sklearn_eval.NashAverager is NashAverager
    assert set(sklearn_eval.__all__) <= set(dir(sklearn_eval))
    namespace = {}
    exec("from sklearn_eval import *", namespace)
    assert {"EloRanker", "IRT2PL", "NashAverager"} <= set(namespace)
    assert sklearn_eval.game.NashAverager is NashAverager
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sklearn_eval.nope  # noqa: B018


def test_python_dash_m_entry_point():
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_eval", "--version"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == __version__


def test_console_script_points_at_main():
    text = (ROOT / "pyproject.toml").read_text()
    scripts = text.split("[project.scripts]")[1].split("[")[0]
    target = re.search(r'^sklearn-eval = "([^"]+)"$', scripts, flags=re.M)[1]
    module, _, name = target.partition(":")
    assert (module, name) == ("sklearn_eval.cli", "main")
    assert sys.modules[module].main is main


def test_version_in_process_matches_argparse(capsys):
    out = io.StringIO()
    assert main(["--version"], out=out) == 0
    assert out.getvalue() == f"{__version__}\n"
    # the full parser answers the same when --version comes with more options
    with pytest.raises(SystemExit) as exit_info:
        from sklearn_eval.cli._main import build_parser

        build_parser().parse_args(["--version", "--help"])
    assert exit_info.value.code == 0


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        from sklearn_eval.cli._main import build_parser

        build_parser().parse_args(["--help"])
    text = capsys.readouterr().out
    for command in COMMANDS:
        assert command in text


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    assert main([command, "--help"], out=io.StringIO()) == 0
    text = capsys.readouterr().out
    assert f"usage: sklearn-eval {command}" in text and "--quiet" in text


def test_no_command_prints_help_and_fails(capsys):
    out = io.StringIO()
    assert main([], out=out) == 2
    assert "usage: sklearn-eval" in out.getvalue()


def test_bad_file_in_a_subprocess_is_one_line_without_traceback(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "sklearn_eval", "report", str(tmp_path / "nope.csv")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert f"file not found: {tmp_path / 'nope.csv'}" in done.stderr


def test_debug_shows_the_traceback(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sklearn_eval",
            "nash",
            str(tmp_path / "nope.csv"),
            "--debug",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode != 0
    assert "Traceback" in done.stderr and "CSVError" in done.stderr


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (RuntimeError("solver blew up"), 1, "RuntimeError: solver blew up (rerun with"),
        (KeyboardInterrupt(), 130, "interrupted"),
    ],
)
def test_unexpected_failures_are_one_line(error, code, message, tmp_path, monkeypatch):
    from sklearn_eval.cli import _irt

    def fail(args, bench):
        raise error

    monkeypatch.setattr(_irt, "fit_irt", fail)
    path = tmp_path / "s.csv"
    path.write_text("agent,t1,t2\na,1,0\nb,0,1\nc,1,1\n")
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["irt", str(path), "-q"], out=io.StringIO()) == code
    assert err.getvalue().count("\n") == 1 and message in err.getvalue()
    if code == 1:
        assert str(path) in err.getvalue()


def _exit_codes():
    from sklearn_eval.cli import _output

    return {value for name, value in vars(_output).items()
            if name.startswith("EXIT_") and isinstance(value, int)}


def test_every_exit_code_is_listed_wherever_exit_codes_are(capsys):
    # the constants the CLI returns, against the guide's table, --help of
    # every command, main's docstring and the package docstring
    import sklearn_eval.cli as cli
    from sklearn_eval.cli import _main

    codes = _exit_codes()
    assert codes == {0, 1, 2, 3, 130}
    guide = (ROOT / "docs" / "user_guide" / "command_line.rst").read_text()
    table = guide[guide.index("Errors and exit codes"):]
    listed = {int(m) for m in re.findall(r"^(\d+)\s{2,}\S", table, flags=re.M)}
    assert listed == codes
    for command in [None, *COMMANDS, "compress", "advise"]:
        code = main(([command] if command else []) + ["--help"])
        assert code == 0
        helped = capsys.readouterr().out.replace("\n", " ")
        for value in codes:
            assert re.search(rf"\b{value} \w", helped.split("exit codes:")[1]), (
                command, value)
    returns = main.__doc__[main.__doc__.index("Returns"):]
    assert all(re.search(rf"\b{value}\b", returns) for value in codes)
    assert "3 when" in returns and "130" in returns
    assert "3 when" in cli.__doc__ and "130" in cli.__doc__
    assert _main.exit_code_help().count(";") == len(codes) - 1
