"""The vanishing L2 prior of batch ratings whose maximum likelihood does not
exist (a player undefeated, winless or cut off from the others)."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..utils._stack import find_stack_level
from ._batch import strong_components

__all__ = ["VANISHING_ALPHA", "effective_alpha", "vanishing_alpha"]

#: The prior used instead of alpha = 0 when the maximum-likelihood ratings do
#: not exist (see ``effective_alpha``).
VANISHING_ALPHA = 1e-6


def effective_alpha(stats, players, alpha, estimator_name, weight_scale=1.0):
    """The L2 penalty to fit with: ``alpha``, or a vanishing one if needed.

    With ``alpha = 0`` the maximum-likelihood ratings exist (finite and
    unique up to a constant) iff the "scored against" graph is strongly
    connected. Otherwise a ConvergenceWarning names an affected player and
    the fit uses ``VANISHING_ALPHA`` so that it stays finite, deterministic
    and fast; the ratings of the affected players are then arbitrary.

    ``stats`` sums the caller's weights divided by ``weight_scale`` (and
    ``alpha`` is divided alike): the vanishing prior is ``VANISHING_ALPHA``
    per unit of the caller's weights, ``VANISHING_ALPHA / weight_scale`` in
    the sums, so repeated rows and one row weighted by their count (or a
    table aggregated on Dask workers) give one fit.

    Returns
    -------
    alpha : float
    flagged : bool
        True when the warning was issued.
    """
    if alpha > 0 or stats.n_players < 2:
        return float(alpha), False
    n_components, labels = strong_components(stats)
    if n_components <= 1:
        return 0.0, False
    sizes = np.bincount(labels)
    example = players[int(np.flatnonzero(labels == np.argmin(sizes))[0])]
    if isinstance(example, np.generic):  # np.str_('b') -> 'b' in the message
        example = example.item()
    warnings.warn(
        f"{estimator_name}: the players split into {n_components} groups that "
        f"never both win and lose against each other (e.g. player {example!r} "
        "is undefeated, winless or disconnected), so the maximum-likelihood "
        "ratings are infinite or undetermined. A vanishing prior "
        f"(alpha={VANISHING_ALPHA:g}) keeps them finite, but the ratings of "
        "these players are arbitrary: set alpha > 0 (an L2 prior) to get "
        "meaningful finite ratings.",
        ConvergenceWarning,
        stacklevel=find_stack_level(),
    )
    return vanishing_alpha(weight_scale), True


def vanishing_alpha(weight_scale=1.0):
    """``VANISHING_ALPHA`` in sums of weights divided by ``weight_scale``."""
    return VANISHING_ALPHA / weight_scale
