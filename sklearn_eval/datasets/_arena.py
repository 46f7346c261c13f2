"""Loader of the Chatbot Arena vote counts (leaderbot's snapshot of 2024-08-14)."""

import json

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from ._base import _load_descr, _open_text
from ._references import mark_frame, reference_agents

__all__ = ["load_chatbot_arena"]

_FILE = "leaderbot_chatbotarena_20240814.json.gz"
#: Columns of the counts table: model_a's result against model_b.
COUNT_NAMES = ("win", "loss", "tie", "tie_both_bad")
#: The outcome y of each kind of vote for model_a ("tie, both bad" is a tie).
_OUTCOME = {"win": 1.0, "loss": 0.0, "tie": 0.5, "tie_both_bad": 0.5}


def _check_flag(value, name):
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a bool, got {value!r}.")
    return bool(value)


def _read_counts():
    """Model names, (n_pairs, 2) model indices and (n_pairs, 4) counts."""
    raw = json.loads(_open_text(_FILE))
    models = np.asarray(raw["models"], dtype=object)
    pairs = np.asarray(raw["X"], dtype=np.int64)
    counts = np.asarray(raw["Y"], dtype=np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or counts.shape != (pairs.shape[0], 4):
        raise ValueError("unexpected Chatbot Arena file layout")
    if (pairs < 0).any() or (pairs >= models.shape[0]).any() or (counts < 0).any():
        raise ValueError("unexpected Chatbot Arena indices or counts")
    return models, pairs, counts


def _counts_bunch(models, pairs, counts, as_frame):
    data = models[pairs]
    frame = None
    if as_frame:
        frame = pd.DataFrame(
            {"model_a": data[:, 0], "model_b": data[:, 1],
             **{name: counts[:, k] for k, name in enumerate(COUNT_NAMES)}}
        )
        data = frame[["model_a", "model_b"]]
    players = np.sort(models)
    references, is_reference = reference_agents("chatbot_arena", players)
    mark_frame(frame, references)
    return Bunch(
        data=data, counts=counts, count_names=list(COUNT_NAMES),
        players=players, feature_names=["model_a", "model_b"],
        n_votes=int(counts.sum()), frame=frame, DESCR=_load_descr("chatbot_arena"),
        reference_agents=references, is_reference=is_reference,
    )


def _rows_bunch(models, pairs, counts, as_frame):
    """One weighted row per (pair, kind of vote) with a positive count."""
    n_pairs = pairs.shape[0]
    pair_index = np.repeat(np.arange(n_pairs), len(COUNT_NAMES))
    kind = np.tile(np.arange(len(COUNT_NAMES)), n_pairs)
    weight = counts.ravel().astype(np.float64)
    keep = weight > 0
    pair_index, kind, weight = pair_index[keep], kind[keep], weight[keep]
    data = models[pairs[pair_index]]
    outcome = np.asarray(COUNT_NAMES, dtype=object)[kind]
    target = np.array([_OUTCOME[name] for name in COUNT_NAMES])[kind]
    frame = None
    if as_frame:
        frame = pd.DataFrame({
            "model_a": data[:, 0], "model_b": data[:, 1], "outcome": outcome,
            "count": weight, "target": target,
        })
        data = frame[["model_a", "model_b"]]
        target = frame["target"]
    players = np.sort(models)
    references, is_reference = reference_agents("chatbot_arena", players)
    mark_frame(frame, references)
    return Bunch(
        data=data, target=target, sample_weight=weight, outcome=outcome,
        players=players, feature_names=["model_a", "model_b"],
        n_votes=int(weight.sum()), frame=frame, DESCR=_load_descr("chatbot_arena"),
        reference_agents=references, is_reference=is_reference,
    )


def load_chatbot_arena(*, as_frame=False, return_counts=False):
    """Load Chatbot Arena's pairwise human votes between chat models, aggregated.

    1,670,250 votes of the LMSYS Chatbot Arena up to 2024-08-14 among 129
    models, aggregated per pair of models (3,460 pairs) into the counts of
    model_a's wins, losses, ties and "tie, both bad" votes, as shipped with
    the leaderbot package (BSD-3-Clause). Which model was shown first is not
    recorded (every pair is listed once, model_a being the one earlier in
    leaderbot's model list), and there are no per-vote covariates.

    By default the votes come as weighted match rows, ready for
    ``EloRanker(method="batch").fit(data, target, sample_weight=...)``,
    whose batch fits aggregate rows per pair (the cost does not grow with
    the number of votes): one row per pair and kind of vote with a positive
    count, ``target`` the outcome for model_a (1 win, 0 loss, 0.5 for both
    "tie" and "tie, both bad") and ``sample_weight`` the count. Give
    ``frequency_weights=True`` to the interval functions so that votes, not
    rows, are resampled.

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``data`` is a DataFrame (model_a, model_b), ``target`` a
        Series and ``frame`` one DataFrame with every column.
    return_counts : bool, default=False
        If True, return the counts table instead of match rows.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Match rows (default): ``data`` (n_rows, 2) object array of model
        names; ``target`` (n_rows,) float64 in {0, 0.5, 1};
        ``sample_weight`` (n_rows,) float64 vote counts; ``outcome``
        (n_rows,) the kind of vote for model_a ("win", "loss", "tie",
        "tie_both_bad"); ``players`` (129,) sorted model names;
        ``feature_names``; ``n_votes``; ``frame``; ``DESCR``;
        ``reference_agents`` (empty: every model is a competitor) and
        ``is_reference`` (over ``players``).

        Counts table (``return_counts=True``): ``data`` (3460, 2) model
        names; ``counts`` (3460, 4) int64 with columns ``count_names`` =
        ["win", "loss", "tie", "tie_both_bad"] (model_a's results);
        ``players``; ``feature_names``; ``n_votes``; ``frame``; ``DESCR``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_chatbot_arena
    >>> arena = load_chatbot_arena()
    >>> arena.data.shape[1], len(arena.players), arena.n_votes
    (2, 129, 1670250)
    >>> sorted(set(arena.target.tolist()))
    [0.0, 0.5, 1.0]
    >>> counts = load_chatbot_arena(return_counts=True)
    >>> counts.counts.shape, counts.count_names[-1]
    ((3460, 4), 'tie_both_bad')
    """
    as_frame = _check_flag(as_frame, "as_frame")
    return_counts = _check_flag(return_counts, "return_counts")
    models, pairs, counts = _read_counts()
    if return_counts:
        return _counts_bunch(models, pairs, counts, as_frame)
    return _rows_bunch(models, pairs, counts, as_frame)
