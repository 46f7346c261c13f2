"""``advise``: which ranking method fits a data set, and why."""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd

from ._diagnostics import kendall_agreement
from ._kinds import KINDS, detect_kind, split_long_matches
from ._matches import build
from ._run_matches import run_matches
from ._run_matrix import run_matrix

__all__ = ["Advice", "Agreement", "advise"]

_UNITS = {"vote": "per vote", "response": "per response", "result": "per result"}


@dataclass
class Agreement:
    """How much the plausible methods' rankings agree.

    Attributes
    ----------
    kendall_tau : DataFrame
        Kendall's tau between every two methods' agent scores.
    movers : DataFrame
        Each agent's rank (1 = best) under each method and ``rank_spread``
        (highest minus lowest rank), the agents that move most first.
    """

    kendall_tau: pd.DataFrame
    movers: pd.DataFrame

    @property
    def min_tau(self):
        """The lowest Kendall tau between two different methods.

        The diagonal (a method against itself) never counts. NaN pairs (a
        method whose scores are all equal has no order) are skipped; NaN
        when no pair is left (see :attr:`without_order`).
        """
        values = self.kendall_tau.to_numpy(dtype=float)
        values = values[np.triu_indices_from(values, k=1)]
        values = values[np.isfinite(values)]  # NaN: a ranking without order
        return float(values.min()) if values.size else float("nan")

    @property
    def without_order(self):
        """The methods whose tau with every other method is NaN.

        Their scores are all equal (or too few agents are common to the
        rankings): they order nothing, so nothing can agree with them.
        """
        tau = self.kendall_tau.to_numpy(dtype=float).copy()
        np.fill_diagonal(tau, np.nan)
        return [name for name, row in zip(self.kendall_tau.index, tau, strict=True)
                if not np.isfinite(row).any()]


@dataclass
class Advice:
    """The advisor's answer: diagnostics, candidates, recommendation, reasons.

    Returned by :func:`advise`; see there.

    Attributes
    ----------
    kind : str
        The data kind (``"matches"``, ``"game"``, ``"binary"``, ``"graded"``,
        ``"continuous"``, ``"scores"``).
    diagnostics : DataFrame
        One row per check (index ``check``): ``value``, ``verdict``, ``why``.
    candidates : DataFrame or None
        One row per candidate model (index ``model``), best held-out first:
        ``estimator``, ``heldout_loglik`` (mean held-out log-likelihood per
        vote or response), ``heldout_se`` (over folds), ``diff_to_best`` and
        ``diff_se`` (paired over folds), ``n_parameters``, ``within_noise``,
        ``recommended``. None when no cross-validation was run.
    recommendation : estimator or None
        The recommended unfitted estimator, None when the data are too small.
    cannot_tell : bool
        True when the data cannot separate the recommended model from a more
        complex one within noise (the simplest is then recommended).
    agreement : Agreement or None
        Kendall tau between the plausible methods' rankings and the movers.
    rank_sets : RankSets or None
        Rank sets of the recommended model on the data.
    reasons : list of str
        The facts behind the recommendation, in plain sentences.
    """

    kind: str
    diagnostics: pd.DataFrame
    candidates: pd.DataFrame | None = None
    recommendation: object = None
    cannot_tell: bool = False
    agreement: Agreement | None = None
    rank_sets: object = None
    reasons: list = field(default_factory=list)

    def explain(self):
        """A few plain sentences: what was chosen and the facts that decided it.

        Returns
        -------
        text : str
        """
        return " ".join(self.reasons)

    def __repr__(self):
        rec = "None" if self.recommendation is None else repr(self.recommendation)
        n = 0 if self.candidates is None else len(self.candidates)
        return (f"Advice(kind={self.kind!r}, recommendation={rec}, "
                f"cannot_tell={self.cannot_tell}, candidates={n})")

    def _repr_html_(self):
        parts = [f"<h4>Advice: {html.escape(KINDS.get(self.kind, self.kind))}</h4>",
                 f"<p>{html.escape(self.explain())}</p>",
                 self.diagnostics.to_html(escape=True)]
        if self.candidates is not None:
            parts.append(self.candidates.to_html(escape=True, float_format="%.4f"))
        return "".join(parts)


def _check_params(kind, cv, y, max_factors=2):
    if (not isinstance(max_factors, Integral) or isinstance(max_factors, bool)
            or max_factors < 1):
        raise ValueError(f"max_factors must be an integer >= 1; got {max_factors!r}.")
    if kind != "auto" and kind not in KINDS:
        raise ValueError(
            f"kind must be 'auto' or one of {sorted(KINDS)}; got {kind!r}.")
    if not isinstance(cv, Integral) or isinstance(cv, bool) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2; got {cv!r}.")
    if kind not in ("auto", "matches") and y is not None:
        raise ValueError(f"y is only read for matches; kind={kind!r} takes X alone.")


def _check_dimensions(X):
    """Refuse ``X`` that is neither a table (2-D) nor a DataFrame."""
    if isinstance(X, pd.DataFrame):
        return
    try:
        shape = np.shape(X)
    except ValueError:  # ragged nested lists
        raise ValueError(
            "X must be a 2-D table (an agents x tasks result matrix, a square "
            "game, or matches with y); got rows of different lengths.") from None
    if len(shape) != 2 and 0 in shape:
        raise ValueError(f"X is empty (shape {shape}): there is nothing to advise on.")
    if len(shape) != 2:
        raise ValueError(
            "X must be a 2-D table: an agents x tasks result matrix, a square "
            "agents x agents game, or a table of matches with their outcomes y; "
            f"got {len(shape)}-D input of shape {shape}.")


def advise(X, y=None, *, sample_weight=None, kind="auto", cv=5, random_state=None,
           n_jobs=None, max_factors=2, drop_empty=False):
    """Which ranking method fits this data, and why.

    Runs checks on the data (kind, connectivity, votes per pair, draws,
    first-player advantage, intransitivity against transitive noise,
    effective dimension, redundancy, missingness, reference agents, constant
    tasks, negative discrimination, guessing floor, ranking stability),
    compares the candidate models of that kind of data by
    cross-validated held-out log-likelihood, and recommends the simplest
    candidate within noise of the best (see the user guide's "Which method
    fits my data" page).

    Matches are cross-validated over votes: whole-number weights are vote
    counts and each vote goes to a fold at random (a multinomial split of
    each row's count); other weights split by row. Result matrices are
    cross-validated over observed responses (cells), not agents.

    Parameters
    ----------
    X : array-like or DataFrame
        Matches (two player columns, then numeric covariates; with ``y``),
        a long match table (DataFrame: two player columns and an ``outcome``
        column, optionally ``weight``), an agents x tasks result matrix
        (0/1 responses, graded integers, scores in [0, 1] or any scores;
        NaN is missing) or a square agents x agents game.
    y : array-like of shape (n_matches,) or None, default=None
        Outcomes of the first player (1, 0.5, 0) for matches.
    sample_weight : array-like of shape (n_matches,) or None, default=None
        Match weights (vote counts as weighted rows).
    kind : {"auto", "matches", "game", "binary", "graded", "continuous", \
            "scores"}, default="auto"
        The data kind; "auto" detects it.
    cv : int, default=5
        Number of folds.
    random_state : int, RandomState instance or None, default=None
        Seeds the folds and the fits.
    n_jobs : int or None, default=None
        Threads of the item response fits.
    max_factors : int, default=2
        The most abilities (factors) of an item response candidate. With
        the default, binary item banks of at least 500 agents and at most
        250,000 responses also compare a 2PL with two factors, whose EM runs
        on a product grid (about 20 times the cost of a one-factor fit);
        ``max_factors=1`` compares one-factor models only.
    drop_empty : bool, default=False
        Agents (rows of a result matrix) without any observed result: an
        error naming them (no estimator ranks them), or with
        ``drop_empty=True`` left out of the advice with a warning naming
        them (the library's rule, as ``--drop-empty`` on the command line).

    Returns
    -------
    advice : Advice
        ``diagnostics``, ``candidates``, ``recommendation`` (unfitted),
        ``cannot_tell``, ``agreement``, ``rank_sets`` and ``explain()``.

    Raises
    ------
    ValueError
        On input no estimator could read, naming the problem: ``X`` that is
        not a 2-D table or is empty, infinite values, a matrix without any
        observed result, agents without any result (unless
        ``drop_empty``), values the forced ``kind`` cannot read (a game that
        is not square, 0/1 responses with other values, ...), matches whose
        weights are all zero, outcomes that are neither 1, 0.5, 0 nor a word
        the estimators read (``"win"``, ``"loss"``, ``"draw"``, ...).
    TypeError
        On a result matrix with non-numeric columns.

    Warns
    -----
    UserWarning
        When the data are too small for cross-validation, or hold nothing to
        rank (every result equal, every task constant, every pair of a game
        even): the advice then holds the diagnostics, no candidates and no
        recommendation, and its explanation says why.

    Examples
    --------
    >>> from sklearn_eval import advise
    >>> from sklearn_eval.datasets import make_matches
    >>> X, y = make_matches(n_players=8, n_matches=3000, random_state=0)
    >>> advice = advise(X, y, random_state=0)
    >>> advice.recommendation
    EloRanker(method='batch')
    >>> advice.diagnostics.loc["data kind", "value"]
    'matches'
    """
    _check_params(kind, cv, y, max_factors)
    if not isinstance(drop_empty, bool | np.bool_):
        raise ValueError(f"drop_empty must be True or False; got {drop_empty!r}.")
    if y is None:
        _check_dimensions(X)
    if kind == "auto":
        kind = detect_kind(X, y)
    if kind == "matches":
        if y is None:
            long = split_long_matches(X)
            if long is None:
                raise ValueError(
                    "matches need y (the first player's outcomes), or a DataFrame "
                    "with two player columns and an 'outcome' column.")
            X, y, weight = long
            sample_weight = weight if sample_weight is None else sample_weight
        result = run_matches(X, y, sample_weight, int(cv), random_state)
    else:
        result = run_matrix(X, kind, int(cv), random_state, n_jobs,
                            max_factors=int(max_factors), drop_empty=drop_empty)
    return _assemble(result, random_state)


def _assemble(result, random_state):
    checks = result["checks"].frame()
    advice = Advice(kind=result["kind"], diagnostics=checks,
                    candidates=result.get("candidates"),
                    rank_sets=result.get("rank_sets"))
    for note in result.get("notes", ()):  # degenerate data: what was done
        warnings.warn(f"{note}.", UserWarning, stacklevel=3)
    if "too_small" in result:
        warnings.warn(f"No recommendation: {result['too_small']}.", UserWarning,
                      stacklevel=3)
        advice.reasons = [
            f"No recommendation: {result['too_small']}.",
            "The diagnostics above still describe the data.",
        ]
        return advice
    if "chosen" in result:
        chosen = result["chosen"]
        advice.recommendation = result.get("recommended") or build(chosen, random_state)
        if chosen.family == "MultiElo":
            advice.recommendation.set_params(random_state=None)
        advice.cannot_tell = bool(result["unsure"])
    else:
        advice.recommendation = result["recommended"]
    fitted = result.get("fitted", {})
    rankings = {}
    for name, model in fitted.items():
        rankings[name] = model if isinstance(model, pd.Series) else pd.Series(
            model.agent_scores_, index=model.agents_)
    if "nash" in result:
        rankings["Nash averaging"] = result["nash"]
    rankings = {name: pd.Series(series.to_numpy(dtype=float),
                                index=series.index.map(str))
                for name, series in rankings.items()}
    if len(rankings) >= 2:
        advice.agreement = Agreement(*kendall_agreement(rankings))
    advice.reasons = _reasons(advice, result)
    return advice


def _reasons(advice, result):
    from ._explain import reasons

    return reasons(advice, result, _UNITS)
