"""Players without a match of positive weight: the one treatment of the raters.

A label can reach ``players_`` through matches that all have zero weight
(``sample_weight=0``: no match, as the user guide and
:func:`~sklearn_eval.pairwise.maximum_likelihood_exists` read it). Such a
player has no data: its rating is the initial rating, as an unseen player's
at prediction time, which is not an estimate. So

- the fit warns, naming the players (``warn_unplayed``);
- a batch fit rates the other players only, as if the unplayed ones were
  absent (so they neither make the maximum-likelihood ratings of the others
  "infinite" nor take part in their anchoring), and gives them the initial
  rating (``played_subset`` and ``embed_state``);
- every interval path reports them as absent: NaN estimate, interval and
  standard error, rank -1 (``mask_unplayed``, ``embed_covariance``), the
  rule for a player absent from a resample.
"""

import warnings

import numpy as np

from ..utils._stack import find_stack_level

__all__ = [
    "embed_covariance",
    "embed_state",
    "mask_unplayed",
    "played_mask",
    "played_subset",
    "warn_unplayed",
]

_SHOWN = 5


def played_mask(first, second, weight, n_players):
    """Which players have at least one match of positive weight."""
    played = np.zeros(int(n_players), dtype=bool)
    positive = weight > 0
    played[first[positive]] = True
    played[second[positive]] = True
    return played


def warn_unplayed(players, unplayed, estimator_name):
    """A UserWarning naming the players (``unplayed``: a mask or indices)."""
    rows = np.flatnonzero(unplayed) if np.asarray(unplayed).dtype == bool else (
        np.asarray(unplayed, dtype=np.intp))
    if rows.size == 0:
        return
    names = [
        repr(players[k].item() if isinstance(players[k], np.generic) else players[k])
        for k in rows[:_SHOWN]
    ]
    listed = ", ".join(names) + (", ..." if rows.size > _SHOWN else "")
    one = rows.size == 1
    count = f"{rows.size} player{'' if one else 's'}"
    verb, them = ("appears", "it") if one else ("appear", "them")
    rating, its = ("its rating is", "its") if one else ("their ratings are", "their")
    warnings.warn(
        f"{estimator_name}: {count} ({listed}) only {verb} in matches of zero "
        f"weight, so there are no data on {them}: {rating} the initial rating, "
        "as an unseen player's, which is not an estimate, and "
        f"{its} intervals and standard errors are NaN (rank -1 in interval "
        "tables).",
        UserWarning,
        stacklevel=find_stack_level(),
    )


def played_subset(first, second, weight, played):
    """The matches of positive weight, with players coded among the played.

    Returns ``(present, first, second, keep)``: the indices of the played
    players, the recoded players of the kept matches and the mask of the
    kept matches (positive weight).
    """
    present = np.flatnonzero(played)
    code = np.full(played.shape[0], -1, dtype=np.int64)
    code[present] = np.arange(present.shape[0])
    keep = weight > 0
    return present, code[first[keep]], code[second[keep]], keep


def embed_state(sub_state, present, n_players):
    """A state fitted on the played players, the others at the origin.

    ``ratings`` (and MultiElo's ``vectors``) get zeros for the unplayed
    players: the initial rating and no cyclic interaction, as an unseen
    player; every other entry (coefficients, tie parameter, random stream)
    is shared by all players and kept.
    """
    state = dict(sub_state)
    for key in ("ratings", "vectors"):
        if key in state:
            values = np.asarray(state[key])
            full = np.zeros((int(n_players), *values.shape[1:]))
            full[present] = values
            state[key] = full
    return state


def mask_unplayed(values, played):
    """``values`` with NaN for the players without a match (a copy)."""
    values = np.array(values, dtype=np.float64)
    if played is not None:
        values[~np.asarray(played, dtype=bool)] = np.nan
    return values


def embed_covariance(sub_cov, keep, size):
    """A covariance over ``keep`` (mask or indices) as ``size`` rows, NaN elsewhere."""
    full = np.full((size, size), np.nan)
    index = np.flatnonzero(keep) if np.asarray(keep).dtype == bool else keep
    full[np.ix_(index, index)] = sub_cov
    return full


def _laplacian(first, second, weights, n):
    """Dense weighted graph Laplacian sum_k w_k (e_i - e_j)(e_i - e_j)^T."""
    pair = np.bincount(first * n + second, weights=weights, minlength=n * n)
    pair = pair.reshape(n, n)
    return np.diag(pair.sum(axis=0) + pair.sum(axis=1)) - pair - pair.T


def _bread_inverse(hessian, alpha):
    """Inverse Hessian; with alpha = 0, the pseudo-inverse on mean-zero ratings."""
    n = hessian.shape[0]
    if alpha > 0:
        return np.linalg.inv(hessian)
    gauge = np.full((n, n), 1.0 / n)
    return np.linalg.inv(hessian + gauge) - gauge


def zero_width_note(name, half_width):
    """The note (and warning) of analytic intervals that all have zero width.

    The outcomes then do not vary around the fitted model (every match a
    draw): the estimated variance is zero, and the intervals do not measure
    uncertainty. Empty string otherwise.
    """
    if half_width.size < 2 or np.any(half_width > 0):
        return ""
    note = (f"The {name} intervals have zero width: the outcomes do not vary "
            "around the fitted model (as when every match is a draw), so the "
            "estimated variance is zero and the intervals do not measure "
            "uncertainty.")
    warnings.warn(note, UserWarning, stacklevel=find_stack_level())
    return note
