"""Docstrings shared by the item-curve methods of the binary IRT models.

``IRT2PL`` and the binary models of ``IRT`` (:mod:`._binary_curves`) give the
consumers' hook the same ``icc``, ``expected_score`` and ``item_information``;
their docstrings are written once here and filled in per estimator by
:func:`curve_doc`. The module imports nothing, so any IRT module can use it.
"""

_THETA = """\
        Parameters
        ----------
        theta : float or array-like of shape (n_points,)
            Abilities.
"""

ICC = """Item characteristic curves: ``P(x_j = 1 | theta)`` for every item.

{theta}
        Returns
        -------
        ndarray of shape (n_points, n_features)
            Success probabilities; items left out in ``fit`` get their
            training success rate (0 or 1; NaN for an item never observed).

        Examples
        --------
{examples}"""

EXPECTED_SCORE = """Expected score of every item at ``theta``: its success probability.

        The score a consumer averages into a full-benchmark estimate
        (accuracy for binary items).

{theta}
        Returns
        -------
        ndarray of shape (n_points, n_features)
            As :meth:`icc`.
        """

ITEM_INFORMATION = """Fisher information of every item about the ability at ``theta``.

{formula}

{theta}
        Returns
        -------
        ndarray of shape (n_points, n_features)
            0 for items left out in ``fit``.
        """

TEST_INFORMATION = """Test information: :meth:`item_information` summed over the items.

{theta}
        Returns
        -------
        ndarray of shape (n_points,)
            Fisher information about the ability at each ``theta`` (the
            asymptotic standard error of a maximum-likelihood ability
            estimate there is ``1 / sqrt`` of it).
        """

# The formulas of the information, per family of curves.
FOUR_PL_INFORMATION = """\
        ``P'(theta)^2 / (P (1 - P))`` with
        ``P' = (u - g) a s (1 - s)``, ``s = 1 / (1 + exp(-(a theta + d)))``;
        ``a^2 P (1 - P)`` for the 1PL and 2PL (Birnbaum 1968)."""

TWO_PL_INFORMATION = """\
        ``a^2 P (1 - P)`` with ``P = 1 / (1 + exp(-a (theta - b)))``
        (Birnbaum 1968)."""


def curve_doc(template, **fields):
    """Decorator: set a method's docstring to ``template`` filled with ``fields``.

    The method itself is returned unchanged (its module and globals stay
    those of its definition, so doctests in the filled docstring run there).
    """
    text = template.format(theta=_THETA, **fields)

    def decorate(method):
        method.__doc__ = text
        return method

    return decorate
