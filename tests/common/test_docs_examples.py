"""Every code example a reader can copy runs: README and docs pages.

Python blocks (```python in the README, ``.. code-block:: python`` in the
docs) run in order per page, in a fresh namespace and a temporary working
directory. Command-line examples (``sklearn-eval ...`` lines in bash and
console blocks) run through the CLI's ``main`` on the files they name, which
the fixture writes from the built-in data under the same names.
"""

import doctest
import importlib.util
import io
import re
import shlex
import textwrap
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.rst"))]
PAGES = [p for p in PAGES if "_build" not in p.parts and "auto_examples" not in p.parts]


def _rst_blocks(text, languages):
    """Bodies of ``.. code-block:: <language>`` directives."""
    blocks = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        match = re.match(r"\s*\.\. code-block::\s*(\w+)", lines[k])
        if not match or match.group(1) not in languages:
            k += 1
            continue
        k += 1
        body = []
        while k < len(lines) and (not lines[k].strip() or lines[k][:1].isspace()):
            if lines[k].strip().startswith(":") and not body:
                k += 1  # directive options
                continue
            body.append(lines[k])
            k += 1
        blocks.append(textwrap.dedent("\n".join(body)).strip("\n"))
    return blocks


def _markdown_blocks(text, languages):
    pattern = r"```(" + "|".join(languages) + r")\n(.*?)```"
    return [m.group(2) for m in re.finditer(pattern, text, flags=re.S)]


def blocks(page, languages):
    text = page.read_text(encoding="utf-8")
    if page.suffix == ".md":
        return _markdown_blocks(text, languages)
    return _rst_blocks(text, languages)


PYTHON_PAGES = [p for p in PAGES if blocks(p, ("python",))]


@pytest.mark.parametrize(
    "page", PYTHON_PAGES, ids=[str(p.relative_to(ROOT)) for p in PYTHON_PAGES]
)
def test_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    for number, code in enumerate(blocks(page, ("python",)), start=1):
        if "dask" in code and importlib.util.find_spec("distributed") is None:
            continue  # the [distributed] extra's examples (CI installs it)
        if code.lstrip().startswith(">>>"):
            _run_doctest(code, namespace, f"{page.name} block {number}")
            continue
        try:
            exec(compile(code, f"{page.name}:block{number}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the failure message
            pytest.fail(f"{page.name} block {number} fails: {exc!r}\n{code}")
    import matplotlib.pyplot as plt

    plt.close("all")


def _run_doctest(code, namespace, name):
    """A ``>>>`` block runs as a doctest: its outputs are checked too."""
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    test = parser.get_doctest(code, namespace, name, name, 0)
    report = io.StringIO()
    result = runner.run(test, out=report.write)
    if result.failed:
        pytest.fail(f"{name} fails as a doctest:\n{report.getvalue()}")


def cli_examples(page):
    """``sklearn-eval ...`` command lines of a page's shell blocks."""
    found = []
    for code in blocks(page, ("bash", "console", "shell")):
        for line in code.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ").strip()
            for part in line.split("&&"):
                part = part.split(" #")[0].strip()
                if part.startswith("sklearn-eval "):
                    found.append(part)
    return found


def _distinct_cli_cases():
    """Each command line once (the first page showing it names the case).

    docs/user_guide/command_line.rst is run by tests/cli (its own fixtures).
    """
    seen = {}
    for page in PAGES:
        if page.name == "command_line.rst":
            continue
        for line in cli_examples(page):
            seen.setdefault(line, page)
    return [
        pytest.param(
            page, line,
            marks=[pytest.mark.slow] if line.split()[1] in ("demo", "report") else [],
            id=f"{page.relative_to(ROOT)}::{line}",
        )
        for line, page in seen.items()
    ]


CLI_CASES = _distinct_cli_cases()


def _write_example_files(directory):
    """The files the documented commands name, made from built-in data."""
    from sklearn_eval.datasets import load_atari, load_vicuna80, make_matches

    atari = load_atari(as_frame=True).frame
    atari.to_csv(directory / "scores.csv")
    atari.iloc[:, :12].dropna().to_csv(directory / "results.csv")
    long = atari.stack().rename("score").rename_axis(["agent", "task"])
    long.reset_index().to_csv(directory / "scores_long.csv", index=False)
    votes = load_vicuna80(as_frame=True).frame
    votes.to_csv(directory / "votes.csv", index=False)
    X, y = make_matches(n_players=8, n_matches=400, random_state=0)
    import pandas as pd

    pd.DataFrame({"first": X[:, 0], "second": X[:, 1], "outcome": y}).to_csv(
        directory / "matches.csv", index=False
    )


@pytest.mark.parametrize(("page", "line"), CLI_CASES)
def test_command_line_examples_run(page, line, tmp_path, monkeypatch, capsys):
    from sklearn_eval.cli import main

    _write_example_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(line)[1:]
    try:
        status = main(argv)
    except SystemExit as exc:  # --version / --help exit through argparse
        status = exc.code
    out, err = capsys.readouterr()
    assert status in (0, None), f"{line!r} failed ({status}): {err[-2000:]}"
