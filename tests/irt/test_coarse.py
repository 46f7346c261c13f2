"""The coarse-grid phases of the 3PL/4PL EM (every other node first).

The phases change where EM starts on the full grid, not where it ends: the
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
    accept_coarse,
    coarse_grid,
    coarse_grids,
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
                                  make_grid("rectangular", 59)])
def test_no_coarse_grid_where_it_cannot_halve_the_rule(grid):
    X = simulate_responses(50, 20, seed=0)[0]
    assert coarse_grid(grid, _Responses(X)) is None


def test_no_coarse_grid_for_narrow_posteriors():
    # more responses per agent than the rule allows at spacing 0.2 (121 -> 61
    # nodes on [-6, 6]): posteriors too narrow
    J = COARSE_MAX_RESPONSES + 10
    X = simulate_responses(20, J, missing=0.0, seed=1)[0]
    grid = make_grid("rectangular", 121)
    assert coarse_grid(grid, _Responses(X)) is None
    X[:, :20] = np.nan  # 20 responses fewer per agent: within the rule
    assert coarse_grid(grid, _Responses(X)) is not None


@pytest.mark.parametrize("per_agent,sizes", [
    (20, [31, 61]),  # both halvings: spacing 0.4 allows a quarter of the rule
    (COARSE_MAX_RESPONSES // 4 - 1, [31, 61]),
    (COARSE_MAX_RESPONSES // 4 + 1, [61]),
    (COARSE_MAX_RESPONSES, [61]),
    (COARSE_MAX_RESPONSES + 1, []),
])
def test_the_ladder_halves_while_the_spacing_suits_the_posteriors(per_agent, sizes):
    # the rule scales with the spacing squared (a posterior's variance falls as
    # one over the responses per agent): 121 -> 61 -> 31 nodes on [-6, 6]
    X = simulate_responses(30, per_agent, missing=0.0, seed=2)[0]
    ladder = coarse_grids(make_grid("rectangular", 121), _Responses(X))
    assert [len(g) for g in ladder] == sizes
    # every grid of the ladder is every other node of the next finer one
    chain = [*ladder, make_grid("rectangular", 121)]
    for coarse, fine in zip(chain[:-1], chain[1:], strict=True):
        assert_allclose(coarse.nodes, fine.nodes[::2], rtol=0, atol=0)
        assert_allclose(np.exp(coarse.log_weights).sum(), 1.0, rtol=1e-14)


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
    assert both[4] is grid
    # never below the full grid's own run; above it by at most a flat ridge's
    # slack (the 4PL's upper asymptotes: EM on the full grid alone crawls
    # along it and stops lower, 2e-8 relative on seed 3)
    assert both[1] >= fine[1] - 1e-9 * abs(fine[1])
    assert_allclose(both[1], fine[1], rtol=1e-7)
    # identified quantities: the success probabilities at the grid's nodes
    P_both = np.exp(log_tables(both[0], grid.nodes)[0])
    P_fine = np.exp(log_tables(fine[0], grid.nodes)[0])
    assert_allclose(P_both, P_fine, atol=1e-3)


@pytest.mark.parametrize("max_iter,calls", [
    (9, [(31, 5), (61, 2), (121, 2)]),  # each phase leaves 2 for every later one
    (5, [(31, 1), (61, 2), (121, 2)]),
    (4, [(61, 2), (121, 2)]),  # no budget for the coarsest: the next still runs
    (2, [(121, 2)]),
])
def test_iterations_of_all_phases_stay_within_max_iter(max_iter, calls):
    seen = []

    def run(params, grid, budget):
        seen.append((len(grid), budget))
        return params, 0.0, budget, False  # a phase that uses its budget

    X = simulate_responses(50, 20, seed=0)[0]
    grid = make_grid("rectangular", 121)
    params = np.array([[1.0, 0.0, -2.0, np.inf]])
    _, _, n_iter, converged, fitted = em_coarse_to_fine(
        run, params, grid, _Responses(X), max_iter, accept=lambda *_: True)
    assert seen == calls
    # an unconverged coarse phase is never the fit
    assert n_iter == max_iter and not converged and fitted is grid


@pytest.mark.parametrize("slope,n_nodes", [(1.0, 61), (2.4, 61), (4.9, 61),
                                           (5.1, 121)])
def test_the_61_node_solution_is_the_fit_only_for_gentle_items(slope, n_nodes):
    # the rectangle rule's error on a logistic curve of slope a at spacing h is
    # about exp(-2 pi^2 / (a h)): the 61-node grid (h = 0.2) ends the fit only
    # while a h <= 1; the run stops there, or goes on to the 121-node grid
    seen = []

    def run(params, grid, budget):
        seen.append(len(grid))
        return params, -1.0, 3, True

    X = simulate_responses(50, 20, seed=0)[0]
    params = np.array([[slope, 0.0, -2.0, np.inf], [-0.5, 1.0, -2.0, np.inf]])
    grid = make_grid("rectangular", 121)
    *_, fitted = em_coarse_to_fine(run, params, grid, _Responses(X), 100,
                                   accept=accept_coarse)
    assert len(fitted) == n_nodes
    assert seen == [31, 61, 121][:2 if n_nodes == 61 else 3]


@pytest.mark.parametrize("found_slope,kept", [(2.4, True), (2.6, False)])
def test_a_steep_solution_of_the_coarsest_grid_is_not_a_start(found_slope, kept):
    # the 31-node grid (h = 0.4) cannot tell a curve steeper than a h = 1 from
    # a step: its solution is dropped and the 61-node phase starts where it did
    starts = []

    def run(params, grid, budget):
        starts.append((len(grid), params[0, 0]))
        found = params.copy()
        found[0, 0] = found_slope if len(grid) == 31 else 1.5
        return found, -1.0, 3, True

    X = simulate_responses(50, 20, seed=0)[0]
    params = np.array([[1.0, 0.0, -2.0, np.inf]])
    em_coarse_to_fine(run, params, make_grid("rectangular", 121), _Responses(X),
                      100)
    assert starts == [(31, 1.0), (61, found_slope if kept else 1.0), (121, 1.5)]


def test_no_61_node_fit_for_narrow_posteriors():
    params = np.array([[1.0, 0.0, -2.0, np.inf]])
    assert not accept_coarse(params, make_grid("rectangular", 61), 151.0)
    assert accept_coarse(params, make_grid("rectangular", 61), 150.0)
    assert not accept_coarse(params, make_grid("rectangular", 31), 20.0)


@pytest.mark.parametrize("model,seed", [("3PL", 0), ("4PL", 1)])
def test_default_grid_fit_agrees_with_the_121_node_fit(model, seed):
    # gentle items, 9 responses per agent: the default fit ends on 61 nodes,
    # and its likelihood is the 121-node fit's to rounding of the integration
    X, _ = simulate_responses(3000, 10, guessing=0.2, missing=0.1, seed=seed,
                              upper=0.9 if model == "4PL" else 1.0)
    kwargs = {"model": model, "n_options": 4, "tol": 1e-10}
    if model == "4PL":
        kwargs["upper_prior"] = (0.9, 0.5)
    default = IRT(**kwargs).fit(X)
    full = IRT(n_quadrature=121, **kwargs).fit(X)
    assert len(default.quadrature_nodes_) == 61
    assert np.max(np.abs(default.discrimination_)) * 0.2 <= 1.0
    assert_allclose(default.log_likelihood_, full.log_likelihood_, rtol=1e-8)
    assert_allclose(default.predict_proba(X), full.predict_proba(X), atol=1e-4)
    # everything after the fit reads the grid it was fitted on
    assert_allclose(default.score(X) * default.n_observations_,
                    default.log_likelihood_, rtol=1e-12)


def test_unconverged_fit_warns_and_counts_every_e_step():
    X, _ = simulate_responses(300, 10, guessing=0.2, seed=5)
    with pytest.warns(ConvergenceWarning, match="max_iter=6"):
        model = IRT(model="3PL", max_iter=6).fit(X)
    assert model.n_iter_ <= 6
