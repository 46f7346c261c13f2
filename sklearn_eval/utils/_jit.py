"""The numba decorator every compiled kernel uses, with the cache out of the package.

``numba.njit(cache=True)`` writes its cache files next to the source, into
``sklearn_eval/**/__pycache__`` of the installed package when that directory is
writable. Files there belong to no installer record: ``pip uninstall`` leaves
them, and the directory they keep alive turns ``sklearn_eval`` into a namespace
package that hides a later (editable) install. So the library never writes into
its own install directory: the kernels are cached where numba's own
``NUMBA_CACHE_DIR`` points when it is set, and in the user cache directory
otherwise (numba's ``<user cache>/numba``, e.g. ``~/.cache/numba`` on Linux),
never in the source tree. When no cache directory is writable, or numba lacks
the hooks used here, the kernels are compiled in memory on first use (correct,
slower to start).

Caching pays: measured on a busy 2-core machine, a fresh process that fits
online Elo, Bradley-Terry with Davidson ties, batch mElo and a 2PL model spent
about 27 s compiling their kernels with a cold cache and about 2.5 s loading
them (numba's import included) with a warm one; every command line run is such
a fresh process.
"""

import importlib.util
import os
import types

__all__ = ["KernelSet", "numba_wanted", "jit_kernel"]


def numba_wanted():
    """Whether the kernels are compiled: numba importable, not switched off.

    ``SKLEARN_EVAL_DISABLE_NUMBA=1`` keeps the pure-Python paths, and so does
    numba's own ``NUMBA_DISABLE_JIT=1``: with the JIT off numba hands back the
    Python functions, whose per-element loops run far slower than the
    library's vectorised paths (and with numpy's scalar semantics, which warn
    on the wrapping integer arithmetic the hashing kernels rely on).
    """
    for switch in ("SKLEARN_EVAL_DISABLE_NUMBA", "NUMBA_DISABLE_JIT"):
        if os.environ.get(switch, "").strip() not in ("", "0"):
            return False
    return importlib.util.find_spec("numba") is not None


_CACHE_CLASS = []


def _user_cache_class():
    """A numba ``FunctionCache`` whose locators skip the source tree, or None."""
    if _CACHE_CLASS:
        return _CACHE_CLASS[0]
    cache_class = None
    try:
        from numba.core import caching

        def locator(name):
            # numba 0.68 made the locator classes public (the old names had "_")
            return getattr(caching, name, None) or getattr(caching, "_" + name)

        class _OutOfTreeImpl(caching.CompileResultCacheImpl):
            # NUMBA_CACHE_DIR first (numba's semantics), then the user cache
            # directory; no InTreeCacheLocator, so nothing lands in the package
            _locator_classes = [locator("UserProvidedCacheLocator"),
                                locator("UserWideCacheLocator")]

        class _OutOfTreeCache(caching.FunctionCache):
            _impl_class = _OutOfTreeImpl

        cache_class = _OutOfTreeCache
    except (ImportError, AttributeError):  # pragma: no cover - numba internals moved
        cache_class = None
    _CACHE_CLASS.append(cache_class)
    return cache_class


def jit_kernel(function):
    """Compile ``function`` with ``numba.njit(nogil=True)``, cached out of tree.

    Parameters
    ----------
    function : callable
        A numba-compilable function of numpy arrays and scalars.

    Returns
    -------
    dispatcher : numba dispatcher
        Compiled lazily on first call; loads from and saves to the on-disk
        cache described in the module docstring when one is writable, else
        compiles in memory.
    """
    import numba

    dispatcher = numba.njit(nogil=True)(function)
    if not hasattr(dispatcher, "enable_caching"):
        return dispatcher  # NUMBA_DISABLE_JIT=1: the Python function itself
    cache_class = _user_cache_class()
    if cache_class is not None:
        try:
            dispatcher._cache = cache_class(function)
        except RuntimeError:
            # no writable cache directory: compile in memory, write nothing
            pass
    return dispatcher


class KernelSet:
    """The loops of one module: compiled with numba on first use, or plain Python.

    Parameters
    ----------
    python : dict
        Name -> numba-compilable Python function (the pure-Python kernels).
    namespace : dict
        The module's globals, where the ``helpers`` are bound.
    helpers : dict, optional
        Global name -> function that the kernels call by that name. The module
        binds each name to the Python function itself, and it stays so: the
        pure-Python kernels call the Python helpers whatever has been
        compiled. The compiled kernels are copies of the functions bound to a
        snapshot of the module's globals in which those names are the
        compiled helpers, so the two never mix.

    Examples
    --------
    >>> def twice(x):
    ...     return 2 * x
    >>> _twice = twice
    >>> def double(x):
    ...     return _twice(x)
    >>> kernels = KernelSet({"double": double}, globals(), {"_twice": twice})
    >>> kernels.get("double", compiled=False)(3)
    6
    """

    def __init__(self, python, namespace, helpers=None):
        self.python = python
        self._namespace = namespace
        self._helpers = dict(helpers or {})
        self._compiled = {}

    def get(self, name, compiled):
        """The kernel ``name``: compiled (on first use) if ``compiled``, else Python.

        numba is imported only here, so importing the package stays fast.
        """
        if not compiled:
            return self.python[name]
        if not self._compiled:
            scope = dict(self._namespace)
            scope.update({global_name: jit_kernel(_bound(function, scope))
                          for global_name, function in self._helpers.items()})
            self._compiled.update({key: jit_kernel(_bound(function, scope))
                                   for key, function in self.python.items()})
        return self._compiled[name]


def _bound(function, scope):
    """A copy of ``function`` whose global names resolve in ``scope``."""
    out = types.FunctionType(function.__code__, scope, function.__name__,
                             function.__defaults__, function.__closure__)
    out.__doc__, out.__kwdefaults__ = function.__doc__, function.__kwdefaults__
    out.__qualname__, out.__module__ = function.__qualname__, function.__module__
    return out
