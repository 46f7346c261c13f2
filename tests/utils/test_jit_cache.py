"""Compiled kernels are cached out of the package (getting started: installation).

The library never writes into its own install directory: numba's cache goes
where ``NUMBA_CACHE_DIR`` points, else to the user cache directory.
"""

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

import sklearn_eval

# numba is a dependency on CPython only (pyproject.toml)
pytestmark = pytest.mark.skipif(
    platform.python_implementation() != "CPython",
    reason="numba is a dependency on CPython only",
)

PACKAGE = Path(sklearn_eval.__file__).resolve().parent
SCRIPT = (
    "import numpy as np\n"
    "from sklearn_eval.pairwise import EloRanker\n"
    "X = np.array([['a', 'b'], ['b', 'c'], ['c', 'a']] * 4)\n"
    "y = np.array([1.0, 0.0, 0.5] * 4)\n"
    "print(EloRanker().fit(X, y).ratings_.round(6).tolist())\n"
)


def _cache_files(root):
    return sorted(p for p in Path(root).rglob("*") if p.suffix in (".nbi", ".nbc"))


def _run(env):
    for name in ("SKLEARN_EVAL_DISABLE_NUMBA", "NUMBA_DISABLE_JIT"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("where", ["NUMBA_CACHE_DIR", "XDG_CACHE_HOME"])
def test_kernels_are_cached_outside_the_package(tmp_path, where):
    before = _cache_files(PACKAGE)
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env[where] = str(tmp_path)
    first = _run(env)
    cached = _cache_files(tmp_path)
    assert cached, f"nothing cached under {where}"
    assert _cache_files(PACKAGE) == before, "a kernel was cached in the package"
    # a second process loads the cache: same answer, no new files
    assert _run(env) == first
    assert _cache_files(tmp_path) == cached
