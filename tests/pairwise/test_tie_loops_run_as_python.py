"""The compiled tie-model loops mean what their Python source says.

numba compiles the loops of ``_tie_kernels`` (cell terms, dense Newton
system, sandwich meat, the whole Newton iteration). Here the same loops run
uncompiled, as plain Python, and must give the compiled fit and intervals:
a difference would be a numba-only semantic (integer overflow, an aliasing
write, a silent cast) that the source does not show.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from sklearn_eval.pairwise import EloRanker, _tie_kernels, bradley_terry_intervals

from . import fixtures_arena as F


def style_matches(n_covariates):
    first, second, x, y, _ = F.style_matches(
        seed=3, n_players=6, n_matches=400, nu=0.6,
        beta=F.STYLE_BETA[:n_covariates],
    )
    names = np.array([f"m{k}" for k in range(6)], dtype=object)
    X = np.column_stack([names[first], names[second], x[:, :n_covariates]])
    return (X[:, :2] if n_covariates == 0 else X), y


@pytest.fixture(autouse=True)
def compiled_on_small_data(monkeypatch):
    """The loops serve these small fits too (below ``COMPILED_FROM`` cells a
    fit otherwise takes the numpy twins)."""
    monkeypatch.setattr(_tie_kernels, "COMPILED_FROM", 0)


@pytest.fixture
def python_loops(monkeypatch):
    """Every compiled loop replaced by its uncompiled source."""
    loops = {
        "terms": _tie_kernels._terms_loop,
        "assemble": _tie_kernels._assemble_loop,
        "meat": _tie_kernels._meat_loop,
        "evaluate": _tie_kernels._evaluate_loop,
        "newton": _tie_kernels._newton_loop,
    }
    monkeypatch.setattr(_tie_kernels, "_compiled", lambda name="terms": loops[name])
    monkeypatch.setattr(_tie_kernels, "_terms_jit", loops["terms"])
    monkeypatch.setattr(_tie_kernels, "_assemble_jit", loops["assemble"])
    monkeypatch.setattr(_tie_kernels, "_evaluate_jit", loops["evaluate"])


@pytest.mark.parametrize("ties", ["half", "davidson", "rao-kupper"])
@pytest.mark.parametrize("n_covariates", [0, 2])
def test_fit_and_intervals_from_the_python_loops(ties, n_covariates, request):
    X, y = style_matches(n_covariates)
    model = EloRanker(method="batch", ties=ties, first_advantage="fit")
    compiled = model.fit(X, y)
    compiled_ci = bradley_terry_intervals(model, X, y, random_state=0)
    ratings, coef = compiled.ratings_.copy(), getattr(compiled, "covariate_coef_", None)

    request.getfixturevalue("python_loops")
    python = EloRanker(method="batch", ties=ties, first_advantage="fit").fit(X, y)
    python_ci = bradley_terry_intervals(python, X, y, random_state=0)

    assert python.n_iter_ == compiled.n_iter_
    assert_allclose(python.ratings_, ratings, rtol=1e-10, atol=1e-8)
    assert_allclose(python.first_advantage_, compiled.first_advantage_, atol=1e-8)
    if ties != "half":
        assert_allclose(python.tie_param_, compiled.tie_param_, rtol=1e-10)
    if coef is not None:
        assert_allclose(python.covariate_coef_, coef, rtol=1e-10, atol=1e-8)
    for name in ("estimate", "low", "high", "covariance"):
        assert_allclose(
            getattr(python_ci, name), getattr(compiled_ci, name), rtol=1e-9, atol=1e-8
        )
