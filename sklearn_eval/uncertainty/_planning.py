"""Planning: how many items or votes a comparison needs, and its power.

Two-sided Wald tests at level ``1 - confidence_level``; the power at n
observations is ``Phi(sqrt(n) |effect| / sd - z) + Phi(-sqrt(n) |effect| / sd
- z)`` with ``sd`` the standard deviation of one observation's contribution
to the estimated difference, and the sample size the smallest n whose
normal-approximation power reaches the target.

- Items: two models answer the same items (paired); with accuracies
  ``p_b = baseline`` and ``p_a = baseline + effect`` and correlation
  ``rho`` between their item results, one item's difference has variance
  ``p_a q_a + p_b q_b - 2 rho sqrt(p_a q_a p_b q_b)``.
- Votes: a rating difference ``delta`` (logits) gives the stronger agent an
  expected score ``mu = expit(delta)`` per vote, ties counting half; with a
  share ``t`` of ties a vote's score has variance ``mu - t / 4 - mu^2`` and
  carries information ``I = (mu (1 - mu))^2 / var`` about ``delta`` (the
  sandwich of the Bradley-Terry fit). Head to head, ``var(delta_hat) =
  1 / (n I)``; in a uniform round robin of k agents (``n`` votes spread
  evenly over the pairs, every pair informative as this one), the
  complete-graph Laplacian gives ``var = (k - 1) / (n I)``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import expit
from scipy.stats import norm
from threadpoolctl import threadpool_limits

from ..utils._validation import check_outcomes, check_result_matrix
from ._dispatch import check_frequency_weights
from ._joint import resolve

__all__ = ["paired_correlation", "power", "sample_size", "votes_to_separate"]

_ELO_PER_LOGIT = 400.0 / math.log(10.0)


def _real(value, name):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not (
        math.isfinite(value)
    ):
        raise TypeError(f"{name} must be a finite real number; got {value!r}.")
    return float(value)


def _unit_sd(effect, data, scale, tie_rate, n_agents, baseline, correlation):
    """The sd of one item's (one vote's) contribution to the difference."""
    effect = _real(effect, "effect")
    if effect <= 0:
        raise ValueError(f"effect must be > 0; got {effect!r}.")
    if data == "items":
        baseline = _real(baseline, "baseline")
        correlation = _real(correlation, "correlation")
        if not 0 < baseline < 1 or not 0 < baseline + effect < 1:
            raise ValueError(
                "baseline and baseline + effect must be accuracies in (0, 1); got "
                f"baseline={baseline!r}, effect={effect!r}."
            )
        if not -1 < correlation < 1:
            raise ValueError(f"correlation must lie in (-1, 1); got {correlation!r}.")
        a, b = baseline + effect, baseline
        var = a * (1 - a) + b * (1 - b) - 2 * correlation * math.sqrt(
            a * (1 - a) * b * (1 - b))
        return effect, math.sqrt(max(var, 1e-300))
    if data != "matches":
        raise ValueError(f"data must be 'items' or 'matches'; got {data!r}.")
    if scale not in ("elo", "logit"):
        raise ValueError(f"scale must be 'elo' or 'logit'; got {scale!r}.")
    tie_rate = _real(tie_rate, "tie_rate")
    if not isinstance(n_agents, numbers.Integral) or isinstance(n_agents, bool) or (
        n_agents < 2
    ):
        raise ValueError(f"n_agents must be an int >= 2; got {n_agents!r}.")
    delta = effect / _ELO_PER_LOGIT if scale == "elo" else effect
    mu = float(expit(delta))
    if not 0 <= tie_rate < 1 or tie_rate / 2 > 1 - mu:
        raise ValueError(
            f"tie_rate must lie in [0, 1) and leave room for the weaker agent's "
            f"expected score (at most {2 * (1 - mu):.3g} here); got {tie_rate!r}."
        )
    var = mu - tie_rate / 4.0 - mu**2
    information = (mu * (1 - mu)) ** 2 / var
    return delta, math.sqrt((n_agents - 1) / information)


def _check_two_agents(pair, name):
    """Refuse the same agent twice: there is no difference to plan for."""
    first, second = pair
    try:
        same = bool(first == second)
    except (TypeError, ValueError):  # array-like labels: not one agent each
        raise ValueError(f"{name} must be two agent labels; got {pair!r}.") from None
    if same:
        raise ValueError(
            f"{name} must be two different agents; got {first!r} twice (there "
            "is no difference to separate)."
        )


def _power_at(n, effect, sd, alpha):
    z = norm.ppf(1 - alpha / 2)
    shift = math.sqrt(n) * effect / sd
    return float(norm.cdf(shift - z) + norm.cdf(-shift - z))


def _check_level(confidence_level):
    level = _real(confidence_level, "confidence_level")
    if not 0 < level < 1:
        raise ValueError(f"confidence_level must lie in (0, 1); got {level!r}.")
    return 1 - level


def sample_size(effect, *, data="items", power=0.8, confidence_level=0.95,
                scale="elo", tie_rate=0.0, n_agents=2, baseline=0.5,
                correlation=0.0):
    """Items or votes needed to detect a difference, at a target power.

    Parameters
    ----------
    effect : float
        ``data="items"``: the accuracy difference (e.g. 0.05); ``"matches"``:
        the rating difference on ``scale``. Must be > 0.
    data : {"items", "matches"}, default="items"
        Two models answering the same items (paired), or votes between
        agents.
    power : float, default=0.8
        Target probability of a significant difference, in (0, 1).
    confidence_level : float, default=0.95
        The test is two-sided at level ``1 - confidence_level``.
    scale : {"elo", "logit"}, default="elo"
        Votes: the scale of ``effect`` (Elo points: 400 per factor 10 of
        odds).
    tie_rate : float, default=0.0
        Votes: the share of ties, scored half. The rating difference fixes
        the expected score; at a given expected score, ties make a vote's
        score less variable, so fewer votes are needed.
    n_agents : int, default=2
        Votes: 2 for head to head, k for votes spread uniformly over the
        pairs of k agents (the returned n is the total).
    baseline : float, default=0.5
        Items: accuracy of the weaker model.
    correlation : float, default=0.0
        Items: correlation between the two models' item results (estimate
        it with :func:`paired_correlation`); positive correlation, the
        rule, lowers the n needed.

    Returns
    -------
    int
        Items (``"items"``) or votes (``"matches"``).

    See Also
    --------
    power, paired_correlation, votes_to_separate

    Examples
    --------
    >>> from sklearn_eval.uncertainty import sample_size
    >>> sample_size(0.05, data="items", baseline=0.7)
    1248
    >>> sample_size(0.05, data="items", baseline=0.7, correlation=0.5)
    625
    >>> sample_size(20, data="matches")
    2377
    """
    alpha = _check_level(confidence_level)
    target = _real(power, "power")
    if not 0 < target < 1:
        raise ValueError(f"power must lie in (0, 1); got {power!r}.")
    effect, sd = _unit_sd(effect, data, scale, tie_rate, n_agents, baseline,
                          correlation)
    z = norm.ppf(1 - alpha / 2) + norm.ppf(target)
    n = max(1, math.ceil((z * sd / effect) ** 2))
    while n > 1 and _power_at(n - 1, effect, sd, alpha) >= target:
        n -= 1
    while _power_at(n, effect, sd, alpha) < target:
        n += 1
    return n


def power(n, effect, *, data="items", confidence_level=0.95, scale="elo",
          tie_rate=0.0, n_agents=2, baseline=0.5, correlation=0.0):
    """Probability that n items or votes detect a difference ``effect``.

    The keywords are those of :func:`sample_size`.

    Parameters
    ----------
    n : int
        Items, or votes (total over the pairs with ``n_agents > 2``).
    effect : float
        The difference to detect: accuracy points for items, rating points
        on ``scale`` for votes.
    data : {"items", "matches"}, default="items"
        As in :func:`sample_size`.
    confidence_level : float, default=0.95
        The test is two-sided at level ``1 - confidence_level``.
    scale : {"elo", "logit"}, default="elo"
        Votes: the scale of ``effect``.
    tie_rate : float, default=0.0
        Votes: the share of ties, scored half.
    n_agents : int, default=2
        Votes: 2 for head to head, k for a uniform round robin of k agents.
    baseline : float, default=0.5
        Items: accuracy of the weaker model.
    correlation : float, default=0.0
        Items: correlation between the two models' item results.

    Returns
    -------
    float

    Examples
    --------
    >>> from sklearn_eval.uncertainty import power
    >>> round(power(1248, 0.05, data="items", baseline=0.7), 3)
    0.8
    """
    alpha = _check_level(confidence_level)
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be an int >= 1; got {n!r}.")
    effect, sd = _unit_sd(effect, data, scale, tie_rate, n_agents, baseline,
                          correlation)
    return _power_at(int(n), effect, sd, alpha)


def paired_correlation(X, pair=None):
    """Correlation between two agents' results on the same items.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_agents, n_items)
        A result matrix (0/1 or scores); NaN marks a missing result (the
        items both answered are used).
    pair : (agent, agent) or None, default=None
        Row labels (DataFrame index) or positions; None: the median over all
        pairs of agents.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``X`` is not a 2-D matrix of at least two agents, holds an
        infinite value, if ``pair`` names an unknown agent or the same agent
        twice, or if no pair of agents has varying results on three shared
        items.
    TypeError
        If ``X`` does not hold numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.uncertainty import paired_correlation
    >>> easy = np.random.default_rng(0).random(500)
    >>> X = (np.random.default_rng(1).random((4, 500)) < easy).astype(float)
    >>> bool(paired_correlation(X) > 0.2)
    True
    """
    values = check_result_matrix(X, allow_nan=True).values
    if values.shape[0] < 2:
        raise ValueError(
            f"X must be a result matrix with at least two agents (rows); got "
            f"shape {values.shape}."
        )
    if pair is None:
        rows = [(i, j) for i in range(values.shape[0])
                for j in range(i + 1, values.shape[0])]
    else:
        labels = list(X.index) if hasattr(X, "index") else list(
            range(values.shape[0]))
        try:
            a, b = pair
        except (TypeError, ValueError):
            raise ValueError(f"pair must be two agents; got {pair!r}.") from None
        _check_two_agents((a, b), "pair")
        unknown = [p for p in (a, b) if p not in labels]
        if unknown:
            raise ValueError(f"pair names unknown agents {unknown}.")
        rows = [(labels.index(a), labels.index(b))]
    found = []
    for i, j in rows:
        both = ~np.isnan(values[i]) & ~np.isnan(values[j])
        u, v = values[i, both], values[j, both]
        if both.sum() > 2 and u.std() > 0 and v.std() > 0:
            found.append(float(np.corrcoef(u, v)[0, 1]))
    if not found:
        raise ValueError(
            "paired_correlation: no pair of agents has varying results on at "
            "least three shared items."
        )
    return float(np.median(found))


def votes_to_separate(estimator, X, y, a, b, *, sample_weight=None, power=0.8,
                      confidence_level=0.95, frequency_weights=False):
    """How many more votes between a and b separate them, at the current estimates.

    With ``V`` the current variance of the rating difference ``d`` (the
    sandwich of the fitted ranking) and ``I`` one more a-vs-b vote's
    information about it at the current estimates (the observed tie share
    included), m new votes leave ``1 / (1 / V + m I)``; the answer is the
    smallest m at which a two-sided test of ``d`` reaches ``power`` if the
    current difference is the true one (0 when it already does; inf when
    the estimates are equal).

    Parameters
    ----------
    estimator : estimator instance
        A match rater with analytic intervals (``EloRanker(method="batch")``,
        any tie model and covariates); unfitted.
    X : array-like or DataFrame of shape (n_matches, 2 + n_covariates)
        The votes so far: the two players, then any covariates.
    y : array-like of shape (n_matches,)
        Their outcomes as the estimator's ``fit`` reads them: 1, 0, 0.5 or
        the outcome words (``"win"``, ``"loss"``, ``"draw"``, ...). The share
        of draws sets one more vote's information.
    a, b : agent labels
        The two agents to separate: two different labels of ``X``.
    sample_weight : array-like of shape (n_matches,) or None, default=None
        Weights of the votes so far.
    power : float, default=0.8
    confidence_level : float, default=0.95
    frequency_weights : bool, default=False
        Read ``sample_weight`` as vote counts.

    Returns
    -------
    float
        Votes (an integer value, or inf).

    Raises
    ------
    ValueError
        If ``a`` and ``b`` are the same agent or not agents of ``X``, and on
        the match checks of the estimator's ``fit``.
    TypeError
        If the estimator has no analytic intervals of matches.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_matches
    >>> from sklearn_eval.pairwise import EloRanker
    >>> from sklearn_eval.uncertainty import votes_to_separate
    >>> X, y = make_matches(n_players=4, n_matches=400, random_state=0)
    >>> m = votes_to_separate(EloRanker(method="batch"), X, y, 0, 1)
    >>> m >= 0
    True
    """
    alpha = _check_level(confidence_level)
    target = _real(power, "power")
    if not 0 < target < 1:
        raise ValueError(f"power must lie in (0, 1); got {power!r}.")
    _check_two_agents((a, b), "a, b")
    check_frequency_weights(frequency_weights)
    estimator, plan = resolve(estimator, None)
    if plan.analytic is None or plan.resample != "matches":
        raise TypeError(
            f"votes_to_separate needs a match rater with analytic intervals "
            f"(EloRanker(method='batch')); got {type(estimator).__name__}."
        )
    extra = {"frequency_weights": True} if frequency_weights else {}
    with threadpool_limits(limits=1, user_api="blas"):
        result = plan.analytic(X, y, sample_weight, confidence_level=confidence_level,
                               n_draws=2, random_state=0, **extra)
    labels = result.labels.tolist()
    unknown = [p for p in (a, b) if p not in labels]
    if unknown:
        raise ValueError(f"a, b: unknown agents {unknown}.")
    i, j = labels.index(a), labels.index(b)
    unrated = [p for p, k in ((a, i), (b, j)) if not np.isfinite(result.estimate[k])]
    if unrated:
        raise ValueError(
            f"a, b: {unrated} ha{'s' if len(unrated) == 1 else 've'} no match "
            "of positive weight, hence no estimated rating to separate."
        )
    cov = result.covariance
    variance = cov[i, i] + cov[j, j] - 2 * cov[i, j]
    difference = abs(float(result.estimate[i] - result.estimate[j]))
    if difference == 0:
        return math.inf
    units = _ELO_PER_LOGIT if getattr(estimator, "scale", "elo") == "elo" else 1.0
    mu = float(expit(difference / units))
    # the outcomes as every fit reads them (words such as "draw" included)
    outcomes, weight = check_outcomes(y, sample_weight, len(y))
    tie_rate = float(weight[outcomes == 0.5].sum() / weight.sum())
    tie_rate = min(tie_rate, 2 * (1 - mu) * 0.999)
    information = (mu * (1 - mu)) ** 2 / (mu - tie_rate / 4 - mu**2) / units**2
    z = norm.ppf(1 - alpha / 2) + norm.ppf(target)
    needed = (difference / z) ** 2
    if variance <= needed:
        return 0.0
    return float(math.ceil((1 / needed - 1 / variance) / information))
