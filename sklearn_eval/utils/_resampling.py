"""Resampling machinery shared by every family's intervals.

The result type (:class:`BootstrapResult`), the seeded per-resample streams,
the chunking of resamples over joblib workers, the summaries (percentile and
rank intervals, P(A above B)) and the uncertainty protocol
(:class:`IntervalPlan`) live here once; the generic bootstrap is
:func:`sklearn_eval.uncertainty.bootstrap_ranking`, and each family offers its
fast or analytic paths through its estimators' ``__sklearn_eval_intervals__``.

Every resample draws from its own random stream, spawned from one
``numpy.random.SeedSequence``, so results do not depend on ``n_jobs`` or on
how resamples are split between workers.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from scipy.stats import norm

from ._ranks import RANK_RTOL, rank_scores
from ._stack import find_stack_level

__all__ = [
    "BootstrapResult",
    "IntervalPlan",
    "multinomial_counts",
    "normal_prob_above",
    "normal_draws",
    "rng_streams",
    "resample_chunks",
    "summarize_samples",
    "check_resampling",
    "unknown_target",
]

_UNITS = ("matches", "agents", "tasks", "runs")


@dataclass
class BootstrapResult:
    """Intervals for a ranking, from :func:`bootstrap_ranking`.

    Attributes
    ----------
    labels : ndarray of shape (n_items,)
        What is ranked (players, agents or tasks).
    estimate : ndarray of shape (n_items,)
        The statistic on the full data.
    low, high : ndarray of shape (n_items,)
        Percentile interval bounds at ``confidence_level``.
    rank : ndarray of shape (n_items,)
        Rank on the full data (1 = best; estimates equal up to
        :data:`~sklearn_eval.utils.RANK_RTOL` share the best rank, as in every
        ``rank`` column of the library; -1 where the estimate is NaN).
    rank_low, rank_high : ndarray of shape (n_items,)
        Percentile interval of the rank ("rank 2-4"), each resample ranked by
        the same rule.
    prob_above : ndarray of shape (n_items, n_items)
        ``prob_above[i, j]`` is the share of resamples in which i ranks above
        j (ties, by the same rule, count half); :meth:`prob_above_frame` gives
        it labelled.
    samples : ndarray of shape (n_resamples, n_items)
        The statistic on each resample (NaN where an item is absent); for
        analytic intervals, draws from the estimated normal distribution of
        the estimate (they give the rank intervals).
    confidence_level : float
    method : str
        How the intervals were made: ``"percentile bootstrap"``,
        ``"sandwich"``, ``"observed information"`` or ``"posterior"``.
    note : str
        Caveat on how to read the intervals ("" when they are calibrated
        confidence intervals under the method's assumptions), e.g. that they
        are descriptive for online Elo or for Nash distributions.
    covariance : ndarray of shape (n_items, n_items) or None
        Estimated covariance of ``estimate`` (analytic methods only).
    index_name : str
        What an item is, the index name of the frames: ``"agent"`` (agents or
        players ranked) or ``"task"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.uncertainty import summarize_samples
    >>> draws = np.random.default_rng(0).normal([0.0, 0.5, 5.0], 0.4, (500, 3))
    >>> res = summarize_samples(["a", "b", "c"], [0.0, 0.5, 5.0], draws)
    >>> res  # doctest: +NORMALIZE_WHITESPACE
    BootstrapResult(3 agents, 95% percentile bootstrap intervals, 500 resamples)
           estimate   low  high  rank  rank_low  rank_high
    agent
    c          5.00  4.24  5.76     1         1          1
    b          0.50 -0.18  1.30     2         2          3
    a          0.00 -0.89  0.67     3         2          3
    >>> res.prob_above_frame().round(2)  # doctest: +NORMALIZE_WHITESPACE
    agent     a     b    c
    agent
    a      0.50  0.13  0.0
    b      0.87  0.50  0.0
    c      1.00  1.00  0.5
    """

    labels: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rank: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    prob_above: np.ndarray
    samples: np.ndarray = field(repr=False)
    confidence_level: float = 0.95
    method: str = "percentile bootstrap"
    note: str = ""
    covariance: np.ndarray | None = field(default=None, repr=False)
    index_name: str = field(default="agent", repr=False)

    _SHOWN = 5  # rows of the table in the text repr

    def _index(self, pd):
        return pd.Index(self.labels, name=self.index_name)

    def to_frame(self):
        """The intervals as a DataFrame sorted by rank.

        Indexed by label (index name ``index_name``, ``"agent"`` unless tasks
        are ranked), with columns ``estimate``, ``low``, ``high``, ``rank``,
        ``rank_low`` and ``rank_high``.
        """
        frame = pd.DataFrame(
            {
                "estimate": self.estimate,
                "low": self.low,
                "high": self.high,
                "rank": self.rank,
                "rank_low": self.rank_low,
                "rank_high": self.rank_high,
            },
            index=self._index(pd),
        )
        # best first; items without an estimate (rank -1) last
        return frame.iloc[np.argsort(np.where(self.rank < 0, np.inf, self.rank),
                                     kind="stable")]

    def prob_above_frame(self):
        """``prob_above`` as a labelled DataFrame: P(row item above column item).

        Returns
        -------
        frame : pandas.DataFrame of shape (n_items, n_items)
            Rows and columns in the order of ``labels``, both named
            ``index_name``.
        """
        index = self._index(pd)
        return pd.DataFrame(self.prob_above, index=index, columns=index.copy())

    def samples_frame(self):
        """``samples`` as a labelled DataFrame: one row per resample (or draw).

        Returns
        -------
        frame : pandas.DataFrame of shape (n_resamples, n_items)
            Columns named by label (``index_name``), rows by resample number.
        """
        return pd.DataFrame(self.samples, index=pd.RangeIndex(
            self.samples.shape[0], name="resample"), columns=self._index(pd))

    def _headline(self):
        n_items = len(self.labels)
        noun = self.index_name + ("" if n_items == 1 else "s")
        draws = "draws" if self.method != "percentile bootstrap" else "resamples"
        return (f"BootstrapResult({n_items} {noun}, {self.confidence_level:.0%} "
                f"{self.method} intervals, {self.samples.shape[0]} {draws})")

    def __repr__(self):
        """A headline and the best few rows of :meth:`to_frame`."""
        try:
            frame = _shown(self.to_frame())
        except ImportError:  # pragma: no cover - pandas is a dependency
            return self._headline()
        lines = [self._headline(),
                 frame.head(self._SHOWN).to_string(float_format=_short_float)]
        if len(frame) > self._SHOWN:
            lines.append(f"... {len(frame) - self._SHOWN} more rows: .to_frame()")
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)

    def _repr_html_(self):
        """The headline and the whole interval table, for notebooks."""
        import html

        frame = _shown(self.to_frame())
        note = f"<p><em>{html.escape(self.note)}</em></p>" if self.note else ""
        table = frame.to_html(float_format=_short_float, max_rows=60)
        return f"<div><p>{html.escape(self._headline())}</p>{note}{table}</div>"


def _shown(frame):
    """The interval table for display: rank bounds as integers."""
    for column in ("rank_low", "rank_high"):
        frame[column] = frame[column].astype("Int64")
    return frame


def _short_float(value):
    return f"{value:.4g}" if abs(value) >= 1e4 or 0 < abs(value) < 1e-3 else (
        f"{value:.2f}")


def rng_streams(random_state, n_resamples):
    """One independent stream per resample, all spawned from one SeedSequence."""
    if isinstance(random_state, np.random.SeedSequence):
        root = random_state
    elif isinstance(random_state, np.random.RandomState):
        root = np.random.SeedSequence(int(random_state.randint(2**31 - 1)))
    elif random_state is None or (
        isinstance(random_state, numbers.Integral)
        and not isinstance(random_state, bool)
    ):
        root = np.random.SeedSequence(random_state)
    else:
        raise TypeError(
            "random_state must be None, an int, a SeedSequence or a RandomState; "
            f"got {type(random_state).__name__}."
        )
    return root.spawn(n_resamples)


#: numpy draws multinomial counts as C longs: totals from here on are drawn
#: category by category (binomial chain) with a Poisson or normal law where
#: the binomial's n is beyond that range
_EXACT_TOTAL = 2**62


def multinomial_counts(rng, total, weights):
    """Multinomial counts (float64) of ``total`` draws over ``weights``.

    Exactly ``rng.multinomial`` below 2**62 draws. From there on (frequency
    weights of 1e18 votes and more) the counts are drawn as a binomial
    chain, each binomial beyond the C range replaced by its Poisson (mean
    below 1e12) or normal limit, rounded and kept within the draws left:
    the relative error of such a law is below 1e-6, far under what float64
    counts of that size resolve.
    """
    weights = np.asarray(weights, dtype=np.float64)
    mass = float(weights.sum())
    if not (mass > 0 and total >= 0):
        raise ValueError(
            "Cannot resample: the resampling units have no positive weight "
            "(every weight or frequency is zero)."
        )
    p = weights / mass
    if total < _EXACT_TOTAL:
        return rng.multinomial(int(total), p).astype(np.float64)
    counts = np.zeros(p.shape[0])
    left, rest = float(total), 1.0
    for k in range(p.shape[0] - 1):
        if left <= 0 or rest <= 0:
            break
        q = min(1.0, max(0.0, p[k] / rest))
        counts[k] = _binomial(rng, left, q)
        left -= counts[k]
        rest -= p[k]
    counts[-1] = max(left, 0.0)
    return counts


def _binomial(rng, n, q):
    if n < _EXACT_TOTAL:
        return float(rng.binomial(int(n), q))
    mean = n * q
    if mean < 1e12:
        return float(min(rng.poisson(mean), n))
    sd = np.sqrt(mean * (1.0 - q))
    return float(min(max(np.rint(rng.normal(mean, sd)), 0.0), n))


def resample_chunks(n_resamples, n_jobs):
    """Split the resamples into a few chunks per worker (order preserved)."""
    n_chunks = min(n_resamples, max(1, effective_n_jobs(n_jobs)) * 4)
    return [c for c in np.array_split(np.arange(n_resamples), n_chunks) if len(c)]


def _ranks(values, higher_is_better, rtol=RANK_RTOL):
    """Competition ranks (1 = best) per row by the library's rule, NaN if missing."""
    return rank_scores(values, rtol=rtol, higher_is_better=higher_is_better).astype(
        np.float64)


def _prob_above(samples, higher_is_better, rtol=RANK_RTOL):
    """Share of rows in which item i scores above item j (ties count half).

    Scores of a row closer than ``rtol * max(1, max|row|)`` tie, as in
    :func:`~sklearn_eval.utils.rank_scores`.
    """
    scores = samples if higher_is_better else -samples
    with np.errstate(invalid="ignore"):
        magnitude = np.max(np.where(np.isfinite(scores), np.abs(scores), 0.0),
                           axis=1, initial=0.0)
    gaps = rtol * np.maximum(1.0, magnitude)
    n_items = scores.shape[1]
    # rows per block: about 2**21 pair entries per temporary array
    block = max(1, (1 << 21) // max(n_items * n_items, 1))
    wins = np.zeros((n_items, n_items))
    both = np.zeros((n_items, n_items))
    for start in range(0, scores.shape[0], block):
        rows = scores[start:start + block]
        gap = gaps[start:start + block, None, None]
        valid = ~np.isnan(rows)
        pair = valid[:, :, None] & valid[:, None, :]
        left, right = rows[:, :, None], rows[:, None, :]
        with np.errstate(invalid="ignore"):
            difference = left - right
            # equal infinities tie (their difference is NaN)
            tied = (np.abs(difference) <= gap) | (left == right)
            points = np.where(tied, 0.5, difference > gap)
        wins += np.where(pair, points, 0.0).sum(axis=0)
        both += pair.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = wins / both
    np.fill_diagonal(prob, 0.5)
    return prob


def _warn_missing_items(labels, estimate, samples):
    """Say which items have no value, instead of NaN intervals in silence."""
    missing = np.isnan(estimate)
    if samples.size:
        missing |= np.isnan(samples).all(axis=0)
    if missing.any():
        names = np.asarray(labels)[missing][:10].tolist()
        more = " ..." if missing.sum() > 10 else ""
        warnings.warn(
            f"The statistic is NaN for {int(missing.sum())} item(s) {names}{more}: "
            "their intervals are NaN and their rank is -1.",
            UserWarning,
            stacklevel=3,
        )


def summarize_samples(labels, estimate, samples, *, confidence_level=0.95,
                      higher_is_better=True, low=None, high=None, prob_above=None,
                      method="percentile bootstrap", note="", covariance=None,
                      rtol=RANK_RTOL, index_name="agent"):
    """Intervals, rank intervals and P(A above B) from resampled statistics.

    The shared back end of every interval method: percentile intervals of
    ``samples`` unless ``low``/``high`` are given (analytic methods), the
    percentile interval of each item's rank across the rows of ``samples``,
    and the share of rows in which one item ranks above another unless
    ``prob_above`` is given.

    Parameters
    ----------
    labels : array-like of shape (n_items,)
    estimate : array-like of shape (n_items,)
        The statistic on the full data.
    samples : array-like of shape (n_resamples, n_items)
        Bootstrap replicates or draws from an estimated distribution; NaN
        where an item is absent.
    confidence_level : float, default=0.95
    higher_is_better : bool, default=True
    low, high : array-like of shape (n_items,), default=None
        Interval bounds; percentiles of ``samples`` when None.
    prob_above : array-like of shape (n_items, n_items), default=None
        Computed from ``samples`` when None.
    method, note : str
        Stored on the result.
    covariance : ndarray or None
        Stored on the result.
    rtol : float, default=RANK_RTOL
        Relative tolerance under which estimates (and the values of one
        resample) tie for the ranks and ``prob_above``
        (:func:`~sklearn_eval.utils.rank_scores`).
    index_name : {"agent", "task"}, default="agent"
        What the items are (the index name of the result's frames).

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.uncertainty import summarize_samples
    >>> draws = np.random.default_rng(0).normal([0.0, 0.5, 5.0], 0.4, (500, 3))
    >>> res = summarize_samples(["a", "b", "c"], [0.0, 0.5, 5.0], draws)
    >>> res.rank.tolist(), res.rank_low.tolist(), res.rank_high.tolist()
    ([3, 2, 1], [2.0, 2.0, 1.0], [3.0, 3.0, 1.0])
    """
    samples = np.asarray(samples, dtype=np.float64)
    estimate = np.asarray(estimate, dtype=np.float64)
    _warn_missing_items(labels, estimate, samples)
    if low is None or high is None:
        _warn_constant_samples(samples)
    alpha = (1.0 - confidence_level) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if low is None or high is None:
            low, high = np.nanquantile(samples, [alpha, 1.0 - alpha], axis=0)
        ranks = _ranks(samples, higher_is_better, rtol)
        rank_low, rank_high = np.nanquantile(ranks, [alpha, 1.0 - alpha], axis=0)
    rank = _ranks(estimate[None, :], higher_is_better, rtol)[0]
    if prob_above is None:
        prob_above = _prob_above(samples, higher_is_better, rtol)
    rank = np.where(np.isnan(rank), -1, rank).astype(int)
    return BootstrapResult(
        labels=np.asarray(labels),
        estimate=estimate,
        low=np.asarray(low, dtype=np.float64),
        high=np.asarray(high, dtype=np.float64),
        rank=rank,
        rank_low=np.floor(rank_low),
        rank_high=np.ceil(rank_high),
        prob_above=np.asarray(prob_above, dtype=np.float64),
        samples=samples,
        confidence_level=float(confidence_level),
        method=method,
        note=note,
        covariance=covariance,
        index_name=index_name,
    )


def _warn_constant_samples(samples):
    """Warn when every resample gave every item the same value.

    Then the resampling could not vary the data (a single task or run drawn
    again and again, outcomes that are all draws): the intervals have zero
    width and the rank sets separate every pair whose estimates differ, which
    says nothing about the uncertainty of the ranking.
    """
    if samples.ndim != 2 or samples.shape[0] < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        spread = np.nanmax(samples, axis=0) - np.nanmin(samples, axis=0)
    if np.all(np.isnan(spread) | (spread == 0.0)):
        warnings.warn(
            f"All {samples.shape[0]} resamples gave the same values: resampling "
            "cannot vary these data (e.g. a single task or run, or outcomes that "
            "are all the same), so the intervals have zero width and do not "
            "measure uncertainty.", UserWarning, stacklevel=find_stack_level())


def check_resampling(n_resamples, confidence_level, resample):
    if (not isinstance(n_resamples, numbers.Integral) or isinstance(n_resamples, bool)
            or n_resamples < 2):
        raise ValueError(f"n_resamples must be an int >= 2; got {n_resamples!r}.")
    if not isinstance(confidence_level, numbers.Real) or not 0 < confidence_level < 1:
        raise ValueError(
            f"confidence_level must lie in (0, 1); got {confidence_level!r}."
        )
    if resample not in _UNITS:
        raise ValueError(f"resample must be one of {_UNITS}; got {resample!r}.")




def normal_draws(estimate, cov, n_draws, random_state):
    """Draws from N(estimate, cov) for a PSD (possibly singular) ``cov``."""
    values, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    rng = np.random.default_rng(rng_streams(random_state, 1)[0])
    return estimate + rng.standard_normal((n_draws, estimate.shape[0])) @ root.T


def normal_prob_above(estimate, cov):
    """P(item i above item j) when the estimates are jointly normal."""
    var = np.diag(cov)
    spread = np.sqrt(np.clip(var[:, None] + var[None, :] - 2.0 * cov, 0.0, None))
    difference = estimate[:, None] - estimate[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        prob = norm.cdf(difference / spread)
    prob = np.where(spread > 0, prob, 0.5 + 0.5 * np.sign(difference))
    np.fill_diagonal(prob, 0.5)
    return prob


@dataclass(frozen=True)
class IntervalPlan:
    """How an estimator's ranking is resampled: the uncertainty protocol.

    An estimator that ranks agents (or tasks) declares its plan in
    ``__sklearn_eval_intervals__(target)``;
    :func:`sklearn_eval.uncertainty.ranking_intervals` reads the plan and
    never needs to know the estimator's type. Fast and analytic paths are
    offered as callables bound to the (unfitted) estimator, so the generic
    code never imports a family's private machinery.

    Parameters
    ----------
    target : str
        The name of what is ranked (e.g. ``"ratings"``, ``"abilities"``).
    statistic : str or callable
        Fitted attribute ranked (e.g. ``"agent_scores_"``) or a function of
        the fitted estimator (and, with two positional parameters, of the
        data it was fitted on), as in ``bootstrap_ranking``.
    resample : {"matches", "agents", "tasks", "runs"}
        The unit drawn with replacement by the generic bootstrap.
    note : str, default=""
        Caveat stored on the result (why intervals are only descriptive).
    higher_is_better : bool, default=True
        Orientation of the statistic for ranks.
    requires_y : str or None, default=None
        When ``y`` is needed, the message of the error raised without it.
    check_data : callable or None, default=None
        ``check_data(X, y)`` raises a ValueError when the data do not suit
        the plan (e.g. a win-rate matrix where matches are resampled).
    fit_estimator : estimator or None, default=None
        What the generic bootstrap refits instead of the estimator (an
        adapter, e.g. Nash averaging fitted on matches).
    per_task_params : tuple of str, default=()
        Estimator parameters holding one value per task, resampled with the
        tasks.
    bootstrap : callable or None, default=None
        A fast bootstrap ``bootstrap(X, y, sample_weight, *, n_resamples,
        confidence_level, random_state, n_jobs, note)`` returning a
        :class:`BootstrapResult` with the same distribution as the generic
        one.
    analytic : callable or None, default=None
        Analytic intervals ``analytic(X, y, sample_weight, *,
        confidence_level, n_draws, random_state)``.
    prefer_analytic : bool, default=False
        Whether ``method="auto"`` takes the analytic path.
    fitted_state : callable or None, default=None
        ``fitted_state(fitted_estimator)`` returns a frozen record of the
        fitted state and scale that the fast and analytic paths read (e.g.
        the match raters' ``RatingState``), so that no interval code reads
        an estimator's private attributes.
    options : tuple of str, default=()
        Extra keywords both paths accept: ``"groups"`` (a cluster label per
        resampled unit: cluster bootstrap and cluster-robust covariance) and
        ``"frequency_weights"`` (weights read as counts of identical rows).
        Without ``"groups"``, the generic bootstrap draws the clusters.
    """

    target: str
    statistic: str | Callable
    resample: str
    note: str = ""
    higher_is_better: bool = True
    requires_y: str | None = None
    check_data: Callable | None = field(default=None, repr=False)
    fit_estimator: object = field(default=None, repr=False)
    per_task_params: tuple = ()
    bootstrap: Callable | None = field(default=None, repr=False)
    analytic: Callable | None = field(default=None, repr=False)
    prefer_analytic: bool = False
    fitted_state: Callable | None = field(default=None, repr=False)
    options: tuple = ()


def unknown_target(target, allowed, what):
    """The ValueError for a target an estimator does not rank."""
    return ValueError(
        f"target must be one of {sorted(allowed)} for {what}; got {target!r}."
    )
