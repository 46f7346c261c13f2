"""The parameter-expanded (rescaled) EM run and its fallback to plain EM.

With many items per agent the rescaled run keeps the latent scale fixed on
a coarse grid (Liu, Rubin and Wu, 1998, parameter expansion). Items that
nearly separate the agents drive their discriminations towards infinity;
the rescaled run then wanders below its best objective and is abandoned,
and the plain run decides the fit. It must be abandoned early (it used to
run until ``|a|`` passed 1000, several times the cost of the plain fit) and
only then: on a bank without such items it is kept.
"""

import numpy as np
import pytest

from sklearn_eval.irt import IRT2PL, _em


def _bank(seed, sharp, n_agents=200, n_items=120):
    """2PL responses; the first ``sharp`` items nearly separate (a = 200)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    b = rng.normal(size=n_items)
    a = np.exp(rng.normal(0.0, 0.3, n_items))
    a[:sharp] = 200.0
    p = 1.0 / (1.0 + np.exp(-a * (theta[:, None] - b)))
    return (rng.random(p.shape) < p).astype(float)


@pytest.fixture
def e_steps(monkeypatch):
    """Counts the E-steps of the rescaled and the plain runs."""
    counts = {True: 0, False: 0}
    run = _em._em_run

    def counted(*args, rescale=False, **kwargs):
        e_step = _em._e_step

        def counting(*a, **k):
            counts[rescale] += 1
            return e_step(*a, **k)

        monkeypatch.setattr(_em, "_e_step", counting)
        try:
            return run(*args, rescale=rescale, **kwargs)
        finally:
            monkeypatch.setattr(_em, "_e_step", e_step)

    monkeypatch.setattr(_em, "_em_run", counted)
    return counts


def _fit(X, rescale):
    return IRT2PL(quadrature="gauss-hermite", tol=1e-5,
                  rescale_latent=rescale).fit(X)


@pytest.mark.parametrize("seed", range(2))
def test_nearly_separating_items_abandon_the_rescaled_run_early(seed, e_steps):
    X = _bank(seed, sharp=10)
    auto = _fit(X, "auto")
    rescaled_steps = e_steps[True]
    plain = _fit(X, False)
    # abandoned: the plain run's fit, to the last digit
    assert auto.log_likelihood_ == plain.log_likelihood_
    np.testing.assert_array_equal(auto.discrimination_, plain.discrimination_)
    # and early: a few patience windows of (up to 3) E-steps per iteration
    assert 0 < rescaled_steps <= 6 * _em._PATIENCE, rescaled_steps


@pytest.mark.parametrize("seed", range(2))
def test_a_bank_without_separating_items_keeps_the_rescaled_run(seed):
    X = _bank(seed, sharp=0)
    auto, plain = _fit(X, "auto"), _fit(X, False)
    assert auto.log_likelihood_ != plain.log_likelihood_
    np.testing.assert_allclose(auto.log_likelihood_, _fit(X, True).log_likelihood_,
                               rtol=0, atol=0)
