"""The reference agents of a benchmark, scored apart from the ranking.

Reference agents (a human, a random or constant player) anchor normalised
scores; ranking them with the methods ranks the anchors (Atari's human
reference, normalised to exactly 100 on every game, tops an IRT ranking at
threshold 100 by construction). :func:`prepare_benchmark` leaves them out of
the matrices by default; :func:`reference_scores` describes them on the
scales of the report: their mean score and success rate, and their IRT
ability on the items fitted without them (the rank they would take).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import Bunch

from ..utils import rank_scores

__all__ = ["reference_scores"]


def _row_means(values):
    observed = ~np.isnan(values)
    counts = observed.sum(axis=1)
    totals = np.where(observed, values, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan), counts


def _abilities(bench, irt, ref):
    """Abilities of the reference agents and the rank each would take."""
    n = len(ref.agents)
    if irt is None:
        return np.full(n, np.nan), np.full(n, -1)
    position = {label: k for k, label in enumerate(bench.agents)}
    if ref.included:
        ability = irt.ability[[position[label] for label in ref.agents]]
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ability = irt.model.transform(ref.responses)[:, 0]
    # the rank among the ranked agents, by the library's rule (ties up to
    # rounding share): an included agent's own rank, else the rank it would take
    rank = np.array([
        rank_scores(irt.ability if ref.included else np.append(irt.ability, a))[
            position[label] if ref.included else -1]
        for label, a in zip(ref.agents, ability, strict=True)
    ]) if n else np.zeros(0)
    return ability, np.where(np.isfinite(ability), rank, -1).astype(np.int64)


def reference_scores(bench, irt):
    """The reference agents on the report's scales, or None without any.

    Parameters
    ----------
    bench : Bunch
        From :func:`~sklearn_eval.report.prepare_benchmark`.
    irt : Bunch or None
        The report's IRT analysis (None when it failed: abilities are NaN).

    Returns
    -------
    Bunch or None
        ``agents``, ``kinds``, ``n_results`` (tasks with a result),
        ``mean_score`` (of the normalised scores when baselines were given),
        ``success_rate``, ``ability`` (IRT, on the items fitted without
        them unless they are ranked), ``ability_rank`` (the rank that ability
        takes among the ranked agents; -1 when unknown), ``normalized`` and
        ``included``.
    """
    ref = bench.get("reference")
    if ref is None or not len(ref.agents):
        return None
    basis = ref.normalized if ref.normalized is not None else ref.scores
    mean_score, counts = _row_means(basis)
    success_rate, _ = _row_means(ref.responses)
    ability, rank = _abilities(bench, irt, ref)
    return Bunch(
        agents=ref.agents,
        kinds=list(ref.kinds),
        n_results=counts,
        mean_score=mean_score,
        success_rate=success_rate,
        ability=ability,
        ability_rank=rank,
        normalized=ref.normalized is not None,
        included=ref.included,
    )
