"""Files are replaced atomically: the old file or the complete new one, never a part.

A set of files written together (the tables of one ``--csv``) is replaced
whole or not at all, whatever step fails.

A child process writing a large payload in a loop is killed (SIGKILL) at
random moments; the target must then hold one complete payload. The writer's
other promises (permissions, links, errors) are checked directly, and the
package's source is searched for any other way of writing a file.
"""

import ast
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from contextlib import ExitStack
from pathlib import Path
from tempfile import TemporaryDirectory
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sklearn_eval
from sklearn_eval.utils import _files
from sklearn_eval.utils._files import (
    atomic_write,
    atomic_write_all,
    write_text_atomic,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

# the child loads the writer's module alone (standard library only): it starts fast
_CHILD = textwrap.dedent("""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("files", sys.argv[3])
    files = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(files)
    write_text_atomic = files.write_text_atomic
    path, size = sys.argv[1], int(sys.argv[2])
    print("ready", flush=True)
    k = 0
    while True:
        k += 1
        write_text_atomic(path, f"{k}\\n" + "x" * size + f"\\n{k}\\n")
""")


def _complete(text, size):
    lines = text.split("\n")
    return (len(lines) == 4 and lines[0] == lines[2] and lines[3] == ""
            and lines[1] == "x" * size)


@pytest.mark.slow
def test_killed_writer_leaves_old_or_complete_file(tmp_path):
    size = 8_000_000
    path = tmp_path / "payload.txt"
    write_text_atomic(path, "0\n" + "x" * size + "\n0\n")
    rng = np.random.default_rng(0)
    seen = set()
    for delay in rng.uniform(0.0, 0.4, 12):
        child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), str(size),
                                  _files.__file__], stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "ready\n"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        text = path.read_text()
        assert _complete(text, size), (delay, len(text))
        seen.add(text.split("\n", 1)[0])
    assert len(seen) > 1  # the kills did land during the writes


def test_block_that_raises_leaves_the_old_file(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(path) as handle:
            handle.write("partial")
            raise RuntimeError("interrupted")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.csv"]  # no temporary file left


def test_permissions_are_kept_and_new_files_follow_the_umask(tmp_path):
    path = tmp_path / "kept.txt"
    path.write_text("old")
    os.chmod(path, 0o640)
    write_text_atomic(path, "new")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.txt"
        write_text_atomic(fresh, "new")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o644


def test_read_only_file_is_not_replaced(tmp_path, monkeypatch):
    path = tmp_path / "locked.txt"
    path.write_text("old")
    os.chmod(path, 0o444)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # root may write anything
        monkeypatch.setattr(os, "access", lambda name, mode: False)
    with pytest.raises(PermissionError, match="locked.txt"):
        write_text_atomic(path, "new")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["locked.txt"]


def test_link_is_followed_and_binary_mode(tmp_path):
    real = tmp_path / "real.bin"
    real.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(real)
    with atomic_write(link, "wb") as handle:
        handle.write(b"\x00new")
    assert link.is_symlink()
    assert real.read_bytes() == b"\x00new"


def test_errors_name_the_problem(tmp_path):
    with pytest.raises(IsADirectoryError):
        write_text_atomic(tmp_path, "x")
    with pytest.raises(FileNotFoundError, match=r"missing/x\.txt'$"):
        write_text_atomic(tmp_path / "missing" / "x.txt", "x")
    with pytest.raises(ValueError, match="mode"):
        with atomic_write(tmp_path / "x", "a"):
            pass
    assert os.listdir(tmp_path) == []


def _writes(tree):
    """(line, what) of every call in ``tree`` that writes a file directly."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            modes = [*node.args[1:2], *(k.value for k in node.keywords
                                        if k.arg == "mode")]
            if any(isinstance(m, ast.Constant) and set(str(m.value)) & set("wax+")
                   for m in modes):
                found.append((node.lineno, "open for writing"))
        elif isinstance(func, ast.Attribute):
            # to_csv/to_html/to_json with no target return a string
            returns_text = (func.attr in _TEXT_WHEN_NO_TARGET and not node.args
                            and not any(k.arg in ("path_or_buf", "buf")
                                        for k in node.keywords))
            if func.attr in _DIRECT_WRITERS and not returns_text:
                found.append((node.lineno, func.attr))
            elif func.attr == "savefig" and not (
                    node.args and isinstance(node.args[0], ast.Name)
                    and "buffer" in node.args[0].id):
                found.append((node.lineno, "savefig to a path"))
    return found


_TEXT_WHEN_NO_TARGET = {"to_csv", "to_html", "to_json"}
_DIRECT_WRITERS = {"to_csv", "to_html", "to_json", "to_parquet", "write_text",
                   "write_bytes", "tofile", "save", "savez", "savez_compressed"}


def test_every_file_the_package_writes_goes_through_the_atomic_writer():
    package = Path(sklearn_eval.__file__).resolve().parent
    offenders = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "_files.py" and path.parent.name == "utils":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [(str(path.relative_to(package)), line, what)
                      for line, what in _writes(tree)]
    assert offenders == []


# ---------------------------------------------------------------------------
# A set of files written together: all of them or none
# ---------------------------------------------------------------------------
@st.composite
def _write_sets(draw):
    n = draw(st.integers(1, 4))
    existing = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    failure = draw(st.sampled_from(["none", "directory", "create", "block",
                                    "replace"]))
    where = draw(st.integers(0, n - 1))
    return n, existing, failure, where


def _failing(function, where, is_target):
    """``function``, raising OSError on its ``where``-th call that writes a target."""
    calls = []

    def wrapped(*args, **kwargs):
        if is_target(*args):
            calls.append(args)
            if len(calls) == where + 1:
                raise OSError(5, "Input/output error", args[-1])
        return function(*args, **kwargs)

    return wrapped


@settings(max_examples=60, deadline=None)
@given(_write_sets())
def test_a_set_of_files_is_replaced_whole_or_not_at_all(case):
    n, existing, failure, where = case
    with TemporaryDirectory() as folder, ExitStack() as stack:
        targets = [os.path.join(folder, f"t{k}.csv") for k in range(n)]
        for k, target in enumerate(targets):
            if existing[k]:
                Path(target).write_text(f"old {k}\n")
        if failure == "directory":  # a target that cannot be written
            if existing[where]:
                os.unlink(targets[where])
            os.mkdir(targets[where])
        elif failure == "create":
            stack.enter_context(mock.patch.object(
                _files, "_temporary",
                _failing(_files._temporary, where, lambda *a: True)))
        elif failure == "replace":
            stack.enter_context(mock.patch.object(
                os, "replace",
                _failing(os.replace, where,
                         lambda src, dst: os.fspath(dst) in targets)))
        before = {name: (Path(folder, name).read_text()
                         if Path(folder, name).is_file() else None)
                  for name in os.listdir(folder)}
        try:
            with atomic_write_all(targets) as handles:
                for k, handle in enumerate(handles):
                    handle.write(f"new {k}\n")
                    if failure == "block" and k == where:
                        raise RuntimeError("interrupted")
        except (OSError, RuntimeError):
            failed = True
        else:
            failed = False
        assert failed == (failure != "none")
        after = {name: (Path(folder, name).read_text()
                        if Path(folder, name).is_file() else None)
                 for name in os.listdir(folder)}
        if failed:
            assert after == before  # no file changed, no temporary left
        else:
            assert after == {f"t{k}.csv": f"new {k}\n" for k in range(n)}
