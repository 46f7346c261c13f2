"""The fitted attributes every :class:`IRT` model shares, as a dict."""

import numpy as np


def shared_fitted(*, loglik, n_params, n_obs, n_iter, moments, labels, keep, grid):
    """Criteria, abilities, labels and grid of a fit (``moments``: the E-step's).

    Parameters
    ----------
    loglik, n_params, n_obs, n_iter : float, int, float, int
        Marginal log-likelihood, free item parameters, observed responses to
        the estimated items and E-steps run.
    moments : dict
        Posterior ``mean`` and ``sd`` of the training agents' abilities.
    labels, keep : ndarray of shape (n_items,)
        Item labels and the mask of the estimated items.
    grid : QuadratureGrid
        The quadrature grid of the fit.

    Returns
    -------
    dict
        ``constant_items_``, ``log_likelihood_``, ``n_parameters_``,
        ``n_observations_``, ``aic_``, ``bic_``, ``n_iter_``, ``abilities_``,
        ``abilities_sd_``, ``agent_scores_``, ``tasks_``,
        ``quadrature_nodes_``, ``quadrature_weights_``, ``_keep``.
    """
    return {
        "constant_items_": labels[~keep],
        "log_likelihood_": float(loglik),
        "n_parameters_": n_params,
        "n_observations_": n_obs,
        "aic_": -2.0 * loglik + 2.0 * n_params,
        "bic_": float(-2.0 * loglik + n_params * np.log(n_obs)),
        "n_iter_": int(n_iter),
        "abilities_": moments["mean"].copy(),
        "abilities_sd_": moments["sd"].copy(),
        "agent_scores_": moments["mean"].copy(),
        "tasks_": labels,
        "quadrature_nodes_": grid.nodes,
        "quadrature_weights_": np.exp(grid.log_weights),
        "_keep": keep,
    }
