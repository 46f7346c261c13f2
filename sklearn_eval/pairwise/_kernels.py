"""Sequential rating scans: compiled with numba when available, pure Python otherwise.

Online Elo and online mElo are inherently sequential (each update depends on
the ratings left by the previous match), so they cannot be vectorised with
numpy. The scans below are written once as plain Python functions over numpy
arrays; when numba (a dependency, where it has wheels) is importable they are
compiled with ``numba.njit`` on first use (and cached on disk), otherwise a
list-based pure-Python version of the same loop runs (about 0.3-1 microsecond
per match instead of about 15 nanoseconds). Setting the environment variable
``SKLEARN_EVAL_DISABLE_NUMBA=1`` forces the pure-Python scans.

All scans work on the natural-logit scale, update ``ratings`` (and
``vectors``) in place and, when ``history`` has one row per match, write the
ratings of the two players after each match into it.
"""

import math

import numpy as np

from ..utils._jit import jit_kernel, numba_wanted

__all__ = ["HAVE_NUMBA", "elo_scan", "melo_loss_grad", "melo_scan"]


def _sigmoid(z):
    """Logistic function that never overflows."""
    if z >= 0.0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _elo_scan_arrays(first, second, outcome, weight, ratings, step, advantage, history):
    """Online Elo over numpy arrays (the body compiled by numba)."""
    keep = history.shape[0] > 0
    for t in range(first.shape[0]):
        i = first[t]
        j = second[t]
        z = ratings[i] - ratings[j] + advantage
        if z >= 0.0:
            p = 1.0 / (1.0 + math.exp(-z))
        else:
            e = math.exp(z)
            p = e / (1.0 + e)
        delta = step * weight[t] * (outcome[t] - p)
        ratings[i] += delta
        ratings[j] -= delta
        if keep:
            history[t, 0] = ratings[i]
            history[t, 1] = ratings[j]


def _melo_scan_arrays(
    first, second, outcome, weight, ratings, vectors, step, step_vectors,
    advantage, history,
):
    """Online mElo_2k over numpy arrays (the body compiled by numba).

    The update is the paper's appendix E generalised to any k: with
    ``delta = w * (y - p_hat)``, ``r_i += step * delta``, ``r_j -= step * delta``,
    ``c_i += step_vectors * delta * Omega c_j`` and
    ``c_j -= step_vectors * delta * Omega c_i`` (old vectors on the right).
    """
    keep = history.shape[0] > 0
    width = vectors.shape[1]
    for t in range(first.shape[0]):
        i = first[t]
        j = second[t]
        z = ratings[i] - ratings[j] + advantage
        for a in range(0, width, 2):
            z += vectors[i, a] * vectors[j, a + 1] - vectors[i, a + 1] * vectors[j, a]
        if z >= 0.0:
            p = 1.0 / (1.0 + math.exp(-z))
        else:
            e = math.exp(z)
            p = e / (1.0 + e)
        delta = weight[t] * (outcome[t] - p)
        ratings[i] += step * delta
        ratings[j] -= step * delta
        g = step_vectors * delta
        for a in range(0, width, 2):
            ci0 = vectors[i, a]
            ci1 = vectors[i, a + 1]
            cj0 = vectors[j, a]
            cj1 = vectors[j, a + 1]
            vectors[i, a] = ci0 + g * cj1
            vectors[i, a + 1] = ci1 - g * cj0
            vectors[j, a] = cj0 - g * ci1
            vectors[j, a + 1] = cj1 + g * ci0
        if keep:
            history[t, 0] = ratings[i]
            history[t, 1] = ratings[j]


def _melo_loss_grad_arrays(params, first, second, games, score, n_players, width,
                           alpha, advantage, grad):
    """Penalised mElo negative log-likelihood and its gradient, fused.

    The compiled counterpart of the numpy loss in ``_batch`` (same layout of
    ``params``: ratings, then the vectors column by column). The parameters
    are first copied player by player (a player's rating and vector share a
    cache line), then one pass over the pairs computes the logits, the loss
    and the per-pair residual and scatters it into the gradient, written into
    ``grad``; returns the loss. ``softplus(z) = max(z, 0) - log(sigmoid(|z|))``
    reuses the sigmoid, so each pair costs one ``exp`` and one ``log``.
    """
    m = 1 + width
    own = np.empty((n_players, m))
    own_grad = np.zeros((n_players, m))
    penalty = 0.0
    for c in range(m):
        for i in range(n_players):
            value = params[c * n_players + i]
            own[i, c] = value
            penalty += value * value
    loss = 0.0
    for p in range(first.shape[0]):
        i = first[p]
        j = second[p]
        z = own[i, 0] - own[j, 0] + advantage
        for a in range(1, m, 2):
            z += own[i, a] * own[j, a + 1] - own[i, a + 1] * own[j, a]
        e = math.exp(-abs(z))
        inv = 1.0 / (1.0 + e)
        loss += games[p] * (max(z, 0.0) - math.log(inv)) - score[p] * z
        prob = inv if z >= 0.0 else e * inv
        residual = games[p] * prob - score[p]
        own_grad[i, 0] += residual
        own_grad[j, 0] -= residual
        # d z / d c_i = Omega c_j = (c_j1, -c_j0); d z / d c_j = (-c_i1, c_i0).
        for a in range(1, m, 2):
            own_grad[i, a] += residual * own[j, a + 1]
            own_grad[j, a] -= residual * own[i, a + 1]
            own_grad[i, a + 1] -= residual * own[j, a]
            own_grad[j, a + 1] += residual * own[i, a]
    for c in range(m):
        for i in range(n_players):
            k = c * n_players + i
            grad[k] = own_grad[i, c] + alpha * params[k]
    return loss + 0.5 * alpha * penalty


def elo_scan_python(first, second, outcome, weight, ratings, step, advantage, history):
    """Pure-Python online Elo: the fallback when numba is not installed.

    Same contract as the compiled scan; runs on Python lists, which is several
    times faster than indexing numpy arrays element by element.
    """
    r = ratings.tolist()
    keep = history.shape[0] > 0
    post_first = []
    post_second = []
    sigmoid = _sigmoid
    for i, j, s, w in zip(
        first.tolist(), second.tolist(), outcome.tolist(), weight.tolist(),
        strict=True,
    ):
        delta = step * w * (s - sigmoid(r[i] - r[j] + advantage))
        r[i] += delta
        r[j] -= delta
        if keep:
            post_first.append(r[i])
            post_second.append(r[j])
    ratings[:] = r
    if keep:
        history[:, 0] = post_first
        history[:, 1] = post_second


def melo_scan_python(
    first, second, outcome, weight, ratings, vectors, step, step_vectors,
    advantage, history,
):
    """Pure-Python online mElo_2k: the fallback when numba is not installed."""
    r = ratings.tolist()
    c = vectors.tolist()
    width = vectors.shape[1]
    keep = history.shape[0] > 0
    post = []
    sigmoid = _sigmoid
    for i, j, s, w in zip(
        first.tolist(), second.tolist(), outcome.tolist(), weight.tolist(),
        strict=True,
    ):
        ci = c[i]
        cj = c[j]
        z = r[i] - r[j] + advantage
        for a in range(0, width, 2):
            z += ci[a] * cj[a + 1] - ci[a + 1] * cj[a]
        delta = w * (s - sigmoid(z))
        r[i] += step * delta
        r[j] -= step * delta
        g = step_vectors * delta
        for a in range(0, width, 2):
            ci0, ci1, cj0, cj1 = ci[a], ci[a + 1], cj[a], cj[a + 1]
            ci[a] = ci0 + g * cj1
            ci[a + 1] = ci1 - g * cj0
            cj[a] = cj0 - g * ci1
            cj[a + 1] = cj1 + g * ci0
        if keep:
            post.append((r[i], r[j]))
    ratings[:] = r
    if width:
        vectors[:] = c
    if keep:
        history[:] = post


_numba_wanted = numba_wanted


_COMPILED = {}
# Batch fits over fewer cells (distinct pairs, or pair-and-covariate cells)
# than this take the numpy twins even with numba: a small fit costs
# milliseconds more that way, while the first compiled call of a process
# loads the loops from numba's disk cache (most of a second), which a command
# on a small file would pay for nothing.
COMPILED_FROM = 4096


def _compiled(name):
    """The numba-compiled scan, compiled (or loaded from cache) on first use.

    numba is imported only here, so importing the package stays fast.
    """
    if not _COMPILED:
        jit = jit_kernel
        _COMPILED["elo"] = jit(_elo_scan_arrays)
        _COMPILED["melo"] = jit(_melo_scan_arrays)
        _COMPILED["melo_loss_grad"] = jit(_melo_loss_grad_arrays)
    return _COMPILED[name]


def _elo_scan_numba(first, second, outcome, weight, ratings, step, advantage,
                    history):
    """Online Elo, compiled with numba (see :func:`elo_scan_python`)."""
    _compiled("elo")(first, second, outcome, weight, ratings, step, advantage,
                     history)


def _melo_scan_numba(first, second, outcome, weight, ratings, vectors, step,
                     step_vectors, advantage, history):
    """Online mElo_2k, compiled with numba (see :func:`melo_scan_python`)."""
    _compiled("melo")(first, second, outcome, weight, ratings, vectors, step,
                      step_vectors, advantage, history)


def melo_loss_grad(params, first, second, games, score, n_players, width, alpha,
                   advantage, grad):
    """Compiled mElo loss and gradient (see :func:`_melo_loss_grad_arrays`).

    Only with numba: without it the batch fit uses its numpy loss.
    """
    return _compiled("melo_loss_grad")(
        params, first, second, games, score, n_players, width, alpha, advantage,
        grad,
    )


HAVE_NUMBA = _numba_wanted()
if HAVE_NUMBA:
    elo_scan = _elo_scan_numba
    melo_scan = _melo_scan_numba
else:
    elo_scan = elo_scan_python
    melo_scan = melo_scan_python


def no_history():
    """An empty history buffer: tells a scan not to record ratings."""
    return np.empty((0, 2), dtype=np.float64)
