"""Which ranking method fits a data set, and why: the method advisor.

:func:`advise` reads matches, result matrices or square games, runs
diagnostics of the data, compares the candidate models of that kind of data
by cross-validated held-out log-likelihood and returns an :class:`Advice`
with an unfitted recommended estimator and the reasons for it.
"""

from ._advice import Advice, Agreement, advise

__all__ = ["Advice", "Agreement", "advise"]
