"""Whether the maximum-likelihood Bradley-Terry ratings of matches exist."""

from ..utils import check_and_encode_matches
from ._batch import aggregate_pairs, strong_components
from ._unplayed import played_mask, played_subset

__all__ = ["maximum_likelihood_exists"]


def maximum_likelihood_exists(X, y, sample_weight=None):
    """Whether unpenalised Bradley-Terry ratings of the matches are finite.

    The maximum-likelihood ratings (``EloRanker(method="batch", alpha=0)``)
    exist, finite and unique up to a constant, iff the "scored against"
    graph (an edge i -> j when i won or drew against j) is strongly
    connected (Zermelo, 1929; Ford, 1957). Otherwise some player is
    undefeated, winless or disconnected, and the fit needs an L2 prior
    (``alpha > 0``). This is the check the batch fit runs before it warns;
    it fits nothing.

    Parameters
    ----------
    X : array-like of shape (n_matches, 2)
        The two players of each match.
    y : array-like of shape (n_matches,)
        Outcome for the first player: 1 win, 0 loss, 0.5 draw.
    sample_weight : array-like of shape (n_matches,), default=None
        Non-negative match weights (a zero weight is no match: a player
        whose matches all have zero weight is not rated, and does not make
        the others' ratings infinite).

    Returns
    -------
    exists : bool

    Examples
    --------
    >>> from sklearn_eval.pairwise import maximum_likelihood_exists
    >>> maximum_likelihood_exists([["a", "b"], ["b", "c"], ["c", "a"]], [1, 1, 1])
    True
    >>> maximum_likelihood_exists([["a", "b"], ["b", "c"]], [1, 1])
    False
    """
    matches, players, first, second = check_and_encode_matches(X, y, sample_weight)
    # players whose matches all have zero weight are not rated (the fit
    # leaves them out, at the initial rating): they do not count
    present, first, second, keep = played_subset(
        first, second, matches.sample_weight,
        played_mask(first, second, matches.sample_weight, len(players)))
    if len(present) < 2:
        return True
    stats = aggregate_pairs(
        first, second, matches.y[keep], matches.sample_weight[keep], len(present)
    )
    n_components, _ = strong_components(stats)
    return bool(n_components <= 1)
