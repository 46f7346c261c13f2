"""Quadrature grids for the standard normal ability distribution.

Two rules integrate ``E[f(theta)]`` for ``theta ~ N(0, 1)``:

- Gauss-Hermite (``"gauss-hermite"``): the classical rule, exact for
  polynomials, used by R's ``ltm`` with 21 nodes.
- Rectangular (``"rectangular"``): equally spaced nodes on ``[-r, r]`` with
  weights proportional to the normal density, as R's ``mirt`` uses.

With many items per agent the posterior of an ability is narrow (standard
deviation about 0.1 at 500 items) and a Gauss-Hermite rule with 21-61 nodes
integrates it badly, because its nodes are sparse in the tails and between
the central nodes. The rectangular grid keeps an even spacing everywhere,
which is why it is the default. Measured at 5000 agents x 500 items (20%
missing, plain EM): RMSE of (a, b) is (0.048, 0.062) with 121 rectangular
nodes, (0.177, 0.211) with 41 and (0.296, 0.383) with 21 Gauss-Hermite nodes.
"""

import numpy as np
from scipy.special import logsumexp

__all__ = ["QuadratureGrid", "make_grid"]


class QuadratureGrid:
    """Nodes and log-weights of a quadrature rule for ``N(0, 1)``.

    Parameters
    ----------
    nodes : ndarray of shape (n_nodes,)
        Ability values.
    log_weights : ndarray of shape (n_nodes,)
        Log of the prior weights; ``exp(log_weights)`` sums to one.
    kind : str
        ``"gauss-hermite"`` or ``"rectangular"``.
    """

    def __init__(self, nodes, log_weights, kind):
        self.nodes = np.asarray(nodes, dtype=np.float64)
        self.log_weights = np.asarray(log_weights, dtype=np.float64)
        self.kind = kind

    def __len__(self):
        return self.nodes.shape[0]

    def __repr__(self):
        return f"QuadratureGrid(kind={self.kind!r}, n_nodes={len(self)})"


def gauss_hermite_grid(n_nodes):
    """Gauss-Hermite rule for the standard normal (nodes sqrt(2) x_k)."""
    x, w = np.polynomial.hermite.hermgauss(n_nodes)
    return QuadratureGrid(np.sqrt(2.0) * x, np.log(w / np.sqrt(np.pi)),
                          "gauss-hermite")


def rectangular_grid(n_nodes, bound):
    """Equally spaced nodes on ``[-bound, bound]``, weights from the density."""
    nodes = np.linspace(-bound, bound, n_nodes)
    log_density = -0.5 * nodes**2
    return QuadratureGrid(nodes, log_density - logsumexp(log_density),
                          "rectangular")


# Responses per agent (for the graded models: category boundaries, responses
# x (K - 1)) up to which the default rectangular grid of the one-factor
# models with a fitted grid (3PL, 4PL, GRM, GPCM) has 61 nodes (spacing 0.2 on
# [-6, 6]), 121 beyond. The rectangle rule integrates a smooth posterior of
# sd sigma with an error of about exp(-2 pi^2 sigma^2 / h^2) at spacing h, so
# the coarser grid is exact to rounding while posteriors are wide. Measured
# (benchmarks/bench_irt_graded.py and bench_irt_models.py data): GRM 5,000 x
# 30 items, 4 categories (90 boundaries): 61 and 121 nodes give the same
# log-likelihood to 1e-3 units (on an 801-node grid), the fit in half the
# time; 3PL 20,000 x 60, 10% missing (54 responses): the two grids' maxima
# differ by 7e-5 units (1e-10 relative); 2,000 x 100 items, 5 categories
# (400 boundaries): the GPCM at 61 nodes ends 1.1 units (6e-6 relative) below
# 121 nodes, whose posteriors are narrower.
WIDE_POSTERIOR_RESPONSES = 150


def default_rectangular_nodes(per_agent):
    """Default number of rectangular nodes for ``per_agent`` responses."""
    return 61 if per_agent <= WIDE_POSTERIOR_RESPONSES else 121


def make_grid(kind, n_nodes, bound=6.0):
    """Build the quadrature grid named ``kind`` with ``n_nodes`` nodes.

    Parameters
    ----------
    kind : {"rectangular", "gauss-hermite"}
        Quadrature rule.
    n_nodes : int
        Number of nodes (at least 2).
    bound : float, default=6.0
        Half-width of the rectangular grid (ignored by Gauss-Hermite).

    Returns
    -------
    QuadratureGrid

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.irt._quadrature import make_grid
    >>> grid = make_grid("gauss-hermite", 21)
    >>> round(float(np.exp(grid.log_weights) @ grid.nodes**2), 10)
    1.0
    """
    if kind == "gauss-hermite":
        grid = gauss_hermite_grid(n_nodes)
    elif kind == "rectangular":
        grid = rectangular_grid(n_nodes, bound)
    else:
        raise ValueError(
            f"quadrature must be 'rectangular' or 'gauss-hermite'; got {kind!r}."
        )
    return grid


def estimator_grid(kind, n_nodes, bound=6.0):
    """:func:`make_grid` for an estimator's ``quadrature``, ``n_quadrature``
    and ``quadrature_bound``: refused (:func:`check_resolves_prior`) where it
    cannot integrate the ability prior."""
    grid = make_grid(kind, n_nodes, bound)
    check_resolves_prior(grid.nodes[:, None], grid.log_weights, kind, n_nodes, bound)
    return grid


# A grid resolves the N(0, I) ability prior when, along every axis, the
# nodes' prior variance is within _VARIANCE of 1. The rectangle rule's stays
# within 1e-3 of 1 up to a spacing of 1.2 (0.86 at 2, 0.19 at 3); a grid
# whose prior sits on one node has 0, two nodes at +-6 have 36.
_VARIANCE = (0.75, 4.0 / 3.0)


def check_resolves_prior(points, log_weights, kind, n_nodes, bound):
    """Raise a ValueError naming ``n_quadrature`` and ``quadrature_bound``
    where a grid cannot integrate the ``N(0, I)`` ability prior.

    ``points``: (n_points, n_dims) nodes; ``log_weights``: their log prior
    weights. Checked: some node, and along every axis a prior variance
    within ``_VARIANCE`` of 1. With too few nodes or too wide a bound (one
    node carrying all the prior, or none inside the ball of a rectangular
    grid with several factors) every posterior is the prior's, and the fit
    is meaningless rather than inaccurate.

    Examples
    --------
    >>> from sklearn_eval.irt._quadrature import estimator_grid
    >>> len(estimator_grid("rectangular", 61))
    61
    >>> estimator_grid("rectangular", 3)
    Traceback (most recent call last):
    ...
    ValueError: The quadrature grid (rectangular, n_quadrature=3, ...
    """
    setting = (f"The quadrature grid ({kind}, n_quadrature={n_nodes}, "
               f"quadrature_bound={bound})")
    remedy = ("use more nodes or a bound of 4 to 8 (the default: 61 or 121 "
              "nodes on [-6, 6]" + (", or quadrature='sobol'"
                                    if points.shape[1] > 1 else "") + ")")
    if len(points) == 0:
        raise ValueError(f"{setting} has no node inside the ball of radius "
                         f"quadrature_bound; {remedy}.")
    # weights that under- or overflowed (a Gauss-Hermite rule of hundreds of
    # nodes) are left to the fit's own check of the likelihood
    finite = np.isfinite(log_weights)
    if not finite.any():
        return
    points, log_weights = points[finite], log_weights[finite]
    weights = np.exp(log_weights - logsumexp(log_weights))
    for axis in range(points.shape[1]):
        mean = float(weights @ points[:, axis])
        variance = float(weights @ (points[:, axis] - mean) ** 2)
        if not _VARIANCE[0] <= variance <= _VARIANCE[1]:
            raise ValueError(
                f"{setting} cannot integrate the N(0, 1) ability prior: its "
                f"nodes' prior variance is {variance:.3g} instead of 1; {remedy}.")
