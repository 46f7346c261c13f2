"""The EM of the binary models never lowers the grid's log-likelihood.

EM (Dempster, Laird and Rubin 1977) and its generalised and SQUAREM
(Varadhan and Roland 2008) variants increase the likelihood they maximise at
every step; the latent standardisation (parameter-expanded EM, Liu, Rubin and
Wu 1998) does so only with exact integration, not on a grid that is coarse
next to the agents' posteriors (many items per agent). Near-separable items
(no finite maximum in their discrimination) are where that shows: see the
User Guide, "How it is estimated".
"""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from scipy.special import expit

from sklearn_eval.irt import IRT, IRT2PL
from sklearn_eval.irt import _em as em_module
from sklearn_eval.irt._em import _em_run, _EMSettings
from sklearn_eval.irt._quadrature import make_grid
from sklearn_eval.irt._responses import _Responses
from sklearn_eval.irt._starts import _starting_points

_ROUNDING = 1e-12  # relative rounding of a sum of log-likelihoods


def _near_separable(seed, n_agents, n_items, steep=0.1, missing=0.0):
    """2PL responses where a share ``steep`` of the items are near steps."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    a = rng.lognormal(0.0, 0.3, n_items)
    b = rng.normal(size=n_items)
    k = int(round(steep * n_items))
    a[:k] = rng.uniform(15.0, 40.0, k)
    X = (rng.random((n_agents, n_items)) < expit(a * (theta[:, None] - b)))
    X = X.astype(np.float64)
    X[rng.random(X.shape) < missing] = np.nan
    varied = np.nanmin(X, axis=0) < np.nanmax(X, axis=0)
    return X[:, varied]


# (seed, agents, items, share of steep items, missing rate): many items per
# agent (narrow posteriors, where the standardisation is not an ascent step)
# and few (wide posteriors), with and without near-separable items
CORPUS = [(0, 40, 120, 0.1, 0.0), (1, 40, 120, 0.2, 0.15), (2, 60, 80, 0.0, 0.0),
          (3, 30, 150, 0.3, 0.1), (4, 80, 30, 0.2, 0.2), (5, 25, 60, 0.5, 0.0)]


def _traced(X, rescale, max_iter=25, tol=0.0, n_nodes=61):
    data = _Responses(X)
    grid = make_grid("rectangular", n_nodes)
    a, b, _ = next(_starting_points(data, "2PL", 1, None))
    trace = []
    run = _em_run(data, grid, a, b, _EMSettings(max_iter=max_iter, tol=tol),
                  None, None, rescale=rescale, trace=trace)
    return run, np.asarray(trace)


@pytest.mark.parametrize("rescale", [True, False])
@pytest.mark.parametrize("case", CORPUS)
def test_em_trace_never_decreases(case, rescale):
    seed, n_agents, n_items, steep, missing = case
    X = _near_separable(seed, n_agents, n_items, steep, missing)
    run, trace = _traced(X, rescale)
    assert np.all(np.isfinite(trace))
    assert np.all(np.diff(trace) >= -_ROUNDING * np.abs(trace[1:]))
    assert trace[-1] == run.loglik  # no prior: the objective is the likelihood


def test_the_standardisation_alone_can_lower_the_grid_likelihood(monkeypatch):
    """Why the standardised point is checked: over the corpus, some
    standardised EM points lower the likelihood and the plain EM point is
    taken instead (and the trace still never decreases, above)."""
    fallbacks = []
    em_map = em_module._em_map

    def counting(state, a, b, nodes, model, a_prior, b_prior, rescale):
        fallbacks.append(not rescale)
        return em_map(state, a, b, nodes, model, a_prior, b_prior, rescale)

    monkeypatch.setattr(em_module, "_em_map", counting)
    for seed, n_agents, n_items, steep, missing in CORPUS[:2]:
        _traced(_near_separable(seed, n_agents, n_items, steep, missing), True)
    assert any(fallbacks)


@pytest.mark.parametrize("case", CORPUS[:4])
def test_a_smaller_tol_never_ends_lower(case):
    """EM is deterministic and monotone: the run with the smaller tol passes
    through the same points and stops later."""
    X = _near_separable(*case)
    coarse, _ = _traced(X, True, max_iter=200, tol=1e-3)
    fine, _ = _traced(X, True, max_iter=200, tol=1e-5)
    assert fine.n_iter >= coarse.n_iter
    assert fine.loglik >= coarse.loglik - _ROUNDING * abs(coarse.loglik)
    if fine.n_iter == coarse.n_iter:
        assert_array_equal(fine.a, coarse.a)


def test_separating_items_are_named_in_a_warning():
    X = _near_separable(3, 60, 40, steep=0.3)
    with pytest.warns(UserWarning, match=r"no finite\s+maximum") as record:
        model = IRT(model="2PL").fit(X)
    steep = np.flatnonzero(np.abs(model.discrimination_) > 10)
    assert steep.size > 0
    message = next(str(w.message) for w in record if "no finite" in str(w.message))
    assert str(steep[:10].tolist()) in message
    # a weak prior keeps them finite, and quiet
    prior = IRT2PL(a_prior=(1.0, 2.0)).fit(X)
    assert np.nanmax(np.abs(prior.discrimination_)) < 10


def _arc(shared_dir):
    path = (shared_dir / "data" / "irt"
            / "atlas_openllm_arc_mixtral_family_response_matrix.csv")
    if not path.exists():
        pytest.skip(f"{path} not available")
    import pandas as pd

    return pd.read_csv(path, index_col=0).to_numpy(np.float64)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_arc_likelihood_rises_with_a_smaller_tol(shared_dir):
    """ARC (320 models x 735 items, Open LLM Leaderboard): ~90 items separate
    the Mixtral-family models; the rescaled EM on the 121-node grid
    (posterior sd ~0.07) climbs monotonically, and stopping later never
    ends lower."""
    X = _arc(shared_dir)
    coarse = IRT(model="2PL", tol=1e-4).fit(X)
    fine = IRT(model="2PL", tol=1e-5).fit(X)
    assert fine.n_iter_ >= coarse.n_iter_
    assert fine.log_likelihood_ >= coarse.log_likelihood_
    keep = coarse._keep
    data = _Responses(X[:, keep])
    grid = make_grid("rectangular", 121)
    a, b, _ = next(_starting_points(data, "2PL", 1, None))
    trace = []
    _em_run(data, grid, a, b, _EMSettings(max_iter=60, tol=0.0), None, None,
            rescale=True, trace=trace)
    trace = np.asarray(trace)
    assert np.all(np.diff(trace) >= -_ROUNDING * np.abs(trace[1:]))
