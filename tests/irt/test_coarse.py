"""The coarse-grid phase of the 3PL/4PL EM (every other node first).

The phase changes where EM starts on the full grid, not where it ends: the
fit is an EM fixed point of the full rectangular grid (Bock and Aitkin 1981),
so its log-likelihood and item curves are those of EM on the full grid alone.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import logit
from sklearn.exceptions import ConvergenceWarning

from sklearn_eval.irt import IRT
from sklearn_eval.irt._binary_models import log_tables
from sklearn_eval.irt._coarse import (
    COARSE_MAX_RESPONSES,
    coarse_grid,
    em_coarse_to_fine,
)
from sklearn_eval.irt._irt_fit import _em_binary, _em_binary_grid, _two_pl_start
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import _Responses
from tests.irt.simulate import simulate_responses


def test_coarse_grid_is_every_other_node_of_the_rectangular_rule():
    X = simulate_responses(50, 20, seed=0)[0]
    grid = make_grid("rectangular", 121, 6.0)
    coarse = coarse_grid(grid, _Responses(X))
    reference = make_grid("rectangular", 61, 6.0)
    assert_allclose(coarse.nodes, reference.nodes, rtol=0, atol=1e-15)
    assert_allclose(coarse.log_weights, reference.log_weights, rtol=1e-12)
    assert coarse.kind == "rectangular"


@pytest.mark.parametrize("grid", [make_grid("gauss-hermite", 121),
                                  make_grid("rectangular", 120),
                                  make_grid("rectangular", 61)])
def test_no_coarse_grid_where_it_cannot_halve_the_rule(grid):
    X = simulate_responses(50, 20, seed=0)[0]
    assert coarse_grid(grid, _Responses(X)) is None


def test_no_coarse_grid_for_narrow_posteriors():
    # more responses per agent than the rule allows: posteriors too narrow
    J = COARSE_MAX_RESPONSES + 10
    X = simulate_responses(20, J, missing=0.0, seed=1)[0]
    grid = make_grid("rectangular", 121)
    assert coarse_grid(grid, _Responses(X)) is None
    X[:, :20] = np.nan  # 140 responses per agent: within the rule
    assert coarse_grid(grid, _Responses(X)) is not None


def _start(data, model):
    a, d = _two_pl_start(data)
    J = a.size
    return np.column_stack([a, d, np.full(J, logit(0.1)),
                            np.full(J, logit(0.95) if model == "4PL" else np.inf)])


@pytest.mark.parametrize("model,seed", [
    ("3PL", 0),
    pytest.param("3PL", 1, marks=pytest.mark.slow),
    pytest.param("3PL", 2, marks=pytest.mark.slow),
    pytest.param("4PL", 3, marks=pytest.mark.slow),
])
def test_the_fit_is_the_full_grids_maximum(model, seed):
    # a seeded corpus: EM with the coarse phase against EM on the full grid
    # alone, both run to a tight tolerance (2,000 agents: the 3PL/4PL maxima
    # of a few hundred are flat ridges on which EM stops anywhere within tol)
    X, _ = simulate_responses(2000, 10, guessing=0.2, missing=0.1, seed=seed,
                              upper=0.9 if model == "4PL" else 1.0)
    data = _Responses(X)
    grid = make_grid("rectangular", 121)
    assert coarse_grid(grid, data) is not None
    priors = {3: (logit(0.9), 0.5)} if model == "4PL" else {}
    both = _em_binary(data, grid, _start(data, model), model, priors, 3000, 1e-10)
    fine = _em_binary_grid(data, grid, _start(data, model), model, priors, 3000,
                           1e-10)
    assert both[3] and fine[3]
    assert_allclose(both[1], fine[1], rtol=1e-9)
    # identified quantities: the success probabilities at the grid's nodes
    P_both = np.exp(log_tables(both[0], grid.nodes)[0])
    P_fine = np.exp(log_tables(fine[0], grid.nodes)[0])
    assert_allclose(P_both, P_fine, atol=1e-3)


def test_iterations_of_both_phases_stay_within_max_iter():
    calls = []

    def run(params, grid, max_iter):
        calls.append((len(grid), max_iter))
        return params, 0.0, max_iter, False  # a phase that uses its budget

    X = simulate_responses(50, 20, seed=0)[0]
    grid = make_grid("rectangular", 121)
    _, _, n_iter, converged = em_coarse_to_fine(run, None, grid, _Responses(X), 9)
    assert calls == [(61, 7), (121, 2)]
    assert n_iter == 9 and not converged


def test_unconverged_fit_warns_and_counts_every_e_step():
    X, _ = simulate_responses(300, 10, guessing=0.2, seed=5)
    with pytest.warns(ConvergenceWarning, match="max_iter=6"):
        model = IRT(model="3PL", max_iter=6).fit(X)
    assert model.n_iter_ <= 6
