"""The switches that turn the compiled kernels off (see ``utils/_jit.py``).

numba's own ``NUMBA_DISABLE_JIT=1`` turns every kernel into its Python
function; the library then takes its vectorised paths, as with
``SKLEARN_EVAL_DISABLE_NUMBA=1``, and gives the same answers without warnings.
"""

import os
import platform
import subprocess
import sys

import pytest

from sklearn_eval.utils._jit import numba_wanted

# numba is a dependency on CPython only (pyproject.toml)
NUMBA = pytest.mark.skipif(
    platform.python_implementation() != "CPython",
    reason="numba is a dependency on CPython only",
)

SCRIPT = (
    "import warnings\n"
    "warnings.simplefilter('error')\n"
    "import numpy as np\n"
    "from sklearn_eval.pairwise import EloRanker\n"
    "from sklearn_eval.utils import _label_kernels as lk\n"
    "rng = np.random.default_rng(0)\n"
    "names = np.array([f'team {i}' for i in range(40)])\n"
    "X = names[rng.integers(0, 40, size=(600, 2))]\n"
    "X = X[X[:, 0] != X[:, 1]]\n"
    "y = rng.integers(0, 2, size=len(X)).astype(float)\n"
    "for method in ('online', 'batch'):\n"
    "    r = EloRanker(method=method, alpha=1.0).fit(X, y)\n"
    "    print(method, r.agents_[:3].tolist(), np.round(r.ratings_, 8).tolist())\n"
    "words = rng.integers(0, 2**63, size=(500, 1), dtype=np.uint64)\n"
    "words = words[rng.integers(0, 500, size=2000)]\n"
    "codes, first = lk._code_keys_numba(words, np.empty((1, 2000), dtype=np.int64))\n"
    "ref = lk.code_keys_numpy(words)\n"
    "print('interpreted kernel agrees:', np.array_equal(codes[0], ref[0]),\n"
    "      np.array_equal(first, ref[1]), lk.HAVE_NUMBA)\n"
)


def _run(**switches):
    env = dict(os.environ)
    for name in ("SKLEARN_EVAL_DISABLE_NUMBA", "NUMBA_DISABLE_JIT"):
        env.pop(name, None)
    env.update(switches)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.parametrize("value, wanted", [("1", False), ("0", True), ("", True)])
@NUMBA
def test_numba_disable_jit_is_honoured(monkeypatch, value, wanted):
    monkeypatch.delenv("SKLEARN_EVAL_DISABLE_NUMBA", raising=False)
    monkeypatch.setenv("NUMBA_DISABLE_JIT", value)
    assert numba_wanted() is wanted


@pytest.mark.slow
@NUMBA
def test_jit_off_gives_the_same_answers_without_warnings():
    compiled = _run()
    interpreted = _run(NUMBA_DISABLE_JIT="1")
    vectorised = _run(SKLEARN_EVAL_DISABLE_NUMBA="1")
    # the fits agree whichever path ran (rounded to 1e-8 Elo points)
    assert compiled[:2] == interpreted[:2] == vectorised[:2]
    # numba's JIT off: the hashing loop runs interpreted, silently, and agrees
    # with the numpy coder; the library itself takes the vectorised path
    assert interpreted[2] == "interpreted kernel agrees: True True False"


def test_python_kernels_call_python_helpers_after_compilation():
    # the pure-Python fallback stays pure Python whatever has been compiled:
    # its helpers are not swapped for the compiled ones in the module (the
    # compiled kernels are bound to their own copy of the globals), so the
    # tests that compare the two bodies compare what they say they do
    from sklearn_eval.irt import _kernels, _table_kernels
    from sklearn_eval.utils._jit import KernelSet

    namespace = {"__name__": "scratch"}
    exec("def twice(x):\n    return 2 * x\n"
         "def double(x):\n    return _twice(x)\n"
         "_twice = twice\n", namespace)
    twice = namespace["twice"]
    kernels = KernelSet({"double": namespace["double"]}, namespace,
                        {"_twice": twice})
    if numba_wanted():
        compiled = kernels.get("double", compiled=True)
        assert compiled(3) == 6
        assert compiled is not namespace["double"]
    # the module's name still holds the Python helper, which the Python
    # kernel (the module's own function) resolves when it runs
    assert namespace["_twice"] is twice
    python = kernels.get("double", compiled=False)
    assert python is namespace["double"] and python(4) == 8
    # the library's own sets: after their compiled kernels have been built
    for module in (_kernels, _table_kernels):
        if numba_wanted():
            module.kernel("posterior_rows_tables" if module is _kernels
                          else "posterior_rows_by_item")
        assert module._window_jit is _kernels.normalise_window
