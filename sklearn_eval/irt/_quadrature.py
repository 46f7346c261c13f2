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
        return gauss_hermite_grid(n_nodes)
    if kind == "rectangular":
        return rectangular_grid(n_nodes, bound)
    raise ValueError(
        f"quadrature must be 'rectangular' or 'gauss-hermite'; got {kind!r}."
    )
