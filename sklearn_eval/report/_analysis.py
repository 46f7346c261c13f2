"""The analyses behind the benchmark report, on one agents x tasks matrix.

:func:`prepare_benchmark` turns scores into the two matrices the methods read
(the scores, possibly normalised; and 0/1 successes for IRT), and
:func:`analyze_benchmark` runs every method of the library on them:

* Nash averaging and uniform averages on the largest complete block of the
  min-max normalised scores (Balduzzi et al., 2018, section 4.2);
* the Hodge split of the agent-vs-task flow (skill - difficulty against the
  residual);
* a 2PL IRT model of the successes (all agents, missing results allowed);
* generality and agent response curves against the IRT difficulties;
* information-gain selection of a reduced task subset and its agreement with
  the full benchmark;
* bootstrap intervals (tasks resampled) for the three rankings.

Each analysis runs on its own: one that raises (or needs one that did) is
recorded in ``analysis.failures`` with a one-line reason and its entry of the
analysis is None, and the others still run, so the report can show every
section that has its data.
"""

from __future__ import annotations

import numbers
import sys
import time
import traceback
import warnings

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.frozen import FrozenEstimator
from sklearn.utils import Bunch

from ..base import FitTemplateMixin
from ..game import NashAverager, avt_embedding, complete_submatrix, hodge_decomposition
from ..irt import IRT2PL, GeneralityScorer
from ..uncertainty import bootstrap_ranking
from ..utils import baseline_normalize, binarize_scores
from ._rank_set_input import benchmark_rank_sets
from ._reference import reference_scores

__all__ = ["analyze_benchmark", "prepare_benchmark"]

# the analyses, in the order they run, and the ones each needs
STEPS = {
    "block": "complete block",
    "nash": "Nash averaging",
    "hodge": "Hodge decomposition",
    "irt": "IRT 2PL model",
    "generality": "generality",
    "reference": "scores of the reference agents",
    "selection": "information-gain selection",
    "intervals.uniform": "bootstrap of the uniform average",
    "intervals.nash": "bootstrap of the Nash average",
    "intervals.ability": "bootstrap of the IRT ability",
    "rank_sets": "rank sets and tiers",
}
_NEEDS = {
    "rank_sets": ("block",),
    "nash": ("block",),
    "hodge": ("block",),
    "generality": ("irt",),
    "selection": ("block",),
    "intervals.uniform": ("block",),
    "intervals.nash": ("block", "nash"),
    "intervals.ability": ("irt",),
}
_MAX_REASON = 300


def one_line_reason(exc):
    """``"Type: first line of the message"``, at most about 300 characters."""
    lines = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


def _progress_printer(progress):
    """A callable writing timestamped progress lines, or a no-op."""
    if progress is None or progress is False:
        return lambda message: None
    stream = sys.stderr if progress is True else progress
    start = time.perf_counter()

    def report(message):
        stream.write(f"[sklearn-eval {time.perf_counter() - start:5.1f}s] {message}\n")
        stream.flush()

    return report


def _as_labels(labels, n, prefix):
    if labels is None:
        return np.array([f"{prefix}{k}" for k in range(n)], dtype=object)
    labels = np.asarray(labels, dtype=object)
    if labels.shape != (n,):
        raise ValueError(f"expected {n} {prefix} labels; got shape {labels.shape}.")
    return np.array([str(label) for label in labels], dtype=object)


def _check_scores(scores):
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"scores must be a non-empty 2-D matrix; got {values.shape}.")
    if np.isinf(values).any():
        i, j = np.unravel_index(np.argmax(np.isinf(values)), values.shape)
        raise ValueError(f"scores has an infinite value at row {i}, column {j}.")
    return values


def _check_size(values):
    if values.shape[0] < 3:
        raise ValueError(
            "a benchmark report needs at least 3 agents with a result; got "
            f"{values.shape[0]}."
        )
    if values.shape[1] < 2:
        raise ValueError(
            "a benchmark report needs at least 2 tasks with a result; got "
            f"{values.shape[1]}."
        )


def _is_binary(values):
    observed = values[~np.isnan(values)]
    return bool(np.isin(observed, (0.0, 1.0)).all())


def prepare_benchmark(
    scores,
    *,
    agents=None,
    tasks=None,
    low=None,
    high=None,
    threshold=None,
    stds=None,
    name="benchmark",
    reference_agents=None,
    include_reference=False,
):
    """Scores and 0/1 successes of a benchmark, ready for :func:`analyze_benchmark`.

    Parameters
    ----------
    scores : array-like of shape (n_agents, n_tasks)
        Scores (higher is better), NaN where missing.
    agents, tasks : array-like of str, default=None
        Row and column labels (``agent0, ...`` and ``task0, ...`` if None).
    low, high : float or array-like of shape (n_tasks,), default=None
        Baselines per task (e.g. random and human scores). When both are
        given, scores are baseline-normalised,
        ``100 * (score - low) / (high - low)``, before thresholding.
    threshold : float, "median" or None, default=None
        Success rule for IRT and generality: ``score >= threshold`` (on the
        normalised scale when baselines are given); ``"median"`` compares
        each score with its task's median over agents. None uses the scores
        as they are when they are already 0/1, and ``"median"`` otherwise.
    stds : array-like of shape (n_agents, n_tasks), default=None
        Spread (population standard deviation over runs) of each score, for
        information gain.
    name : str, default="benchmark"
        Title of the benchmark.
    reference_agents : list of str or dict, default=None
        Labels of reference agents (a human, a random or constant player: the
        anchors of normalised scores, not competitors), or a dict from label
        to kind (``"human"``, ``"random"``...), such as a built-in dataset's
        ``reference_agents``. Their successes use the same rule (a median
        threshold is the median over the other agents). Each label must be
        one of ``agents``.
    include_reference : bool, default=False
        Rank the reference agents with the others. By default they are left
        out of every analysis and shown apart (``reference``).

    Returns
    -------
    benchmark : Bunch
        ``scores`` (as given), ``normalized`` (baseline-normalised or None),
        ``responses`` (0/1 with NaN), ``response_rule`` (a sentence),
        ``agents``, ``tasks``, ``stds``, ``name``, ``dropped_agents`` /
        ``dropped_tasks``: those without any result, left out of every
        matrix; ``reference``: the reference agents' ``agents``, ``kinds``,
        ``scores``, ``normalized`` and ``responses`` (on ``tasks``) and
        ``included`` (None without reference agents); and
        ``reference_mask``, which rows of the matrices are reference agents
        (all False unless ``include_reference``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_eval.report import prepare_benchmark
    >>> bench = prepare_benchmark([[1.0, 5.0], [2.0, 3.0], [0.0, np.nan]])
    >>> bench.responses.tolist()
    [[1.0, 1.0], [1.0, 0.0], [0.0, nan]]

    A human reference is shown apart, not ranked:

    >>> bench = prepare_benchmark(
    ...     [[9.0, 9.0], [1.0, 5.0], [2.0, 3.0], [0.0, 1.0]],
    ...     agents=["human", "a", "b", "c"], reference_agents={"human": "human"})
    >>> bench.agents.tolist(), bench.reference.agents.tolist()
    (['a', 'b', 'c'], ['human'])
    """
    values = _check_scores(scores)
    n_agents, n_tasks = values.shape
    agents = _as_labels(agents, n_agents, "agent")
    tasks = _as_labels(tasks, n_tasks, "task")
    kinds = reference_kinds(reference_agents, agents)
    is_reference = np.isin(agents, list(kinds))
    normalized = None
    basis = values
    if (low is None) != (high is None):
        raise ValueError("give both low and high baselines, or neither.")
    if low is not None:
        normalized = baseline_normalize(values, low, high)
        basis = normalized
    if stds is not None:
        stds = np.asarray(stds, dtype=np.float64)
        if stds.shape != values.shape:
            raise ValueError(
                f"stds must have the shape of the scores {values.shape}; got "
                f"{stds.shape}."
            )
    responses, rule = _successes(
        basis, threshold, normalized is not None, basis[~is_reference]
    )
    # agents and tasks without any result carry no information: leave them out
    rows = ~np.isnan(values).all(axis=1)
    ranked = rows & (include_reference | ~is_reference)
    cols = ~np.isnan(values[ranked]).all(axis=0)
    _check_size(values[np.ix_(ranked, cols)])

    def keep(matrix, rows=ranked):
        return None if matrix is None else matrix[np.ix_(rows, cols)]

    shown = rows & is_reference
    reference = None
    if kinds:
        reference = Bunch(
            agents=agents[shown],
            kinds=[kinds[label] for label in agents[shown]],
            scores=keep(values, shown),
            normalized=keep(normalized, shown),
            responses=keep(responses, shown),
            included=bool(include_reference),
        )
    return Bunch(
        scores=keep(values),
        normalized=keep(normalized),
        responses=keep(responses),
        response_rule=rule,
        agents=agents[ranked],
        tasks=tasks[cols],
        stds=keep(stds),
        dropped_agents=agents[~rows],
        dropped_tasks=tasks[~cols],
        name=str(name),
        reference=reference,
        reference_mask=is_reference[ranked],
    )


def reference_kinds(reference_agents, agents, what="agents of the benchmark"):
    """``{label: kind}`` of the reference agents (kind "reference" when unknown)."""
    if reference_agents is None:
        return {}
    if isinstance(reference_agents, str):
        reference_agents = [reference_agents]
    if isinstance(reference_agents, dict):
        kinds = {str(k): str(v) for k, v in reference_agents.items()}
    else:
        kinds = {str(label): "reference" for label in reference_agents}
    unknown = [label for label in kinds if label not in set(agents)]
    if unknown:
        raise ValueError(f"reference agent {unknown[0]!r} is not one of the {what}.")
    return kinds


def _successes(basis, threshold, normalized, competitors):
    """0/1 successes of every agent, and the rule in words.

    A median threshold is each task's median over the ``competitors`` (the
    rows of ``basis`` that are not reference agents).
    """
    scale = "baseline-normalised score" if normalized else "score"
    if threshold is None:
        if _is_binary(basis):
            return basis.copy(), "the results are already successes (0/1)"
        threshold = "median"
    if isinstance(threshold, str):
        if threshold != "median":
            raise ValueError(
                f"threshold must be a number or 'median'; got {threshold!r}."
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            medians = np.nanmedian(competitors, axis=0)
        medians = np.where(np.isnan(medians), 0.0, medians)
        responses = binarize_scores(basis, medians)
        return responses, f"success = {scale} >= the task's median over agents"
    if not isinstance(threshold, numbers.Real) or not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number; got {threshold!r}.")
    responses = binarize_scores(basis, float(threshold))
    return responses, f"success = {scale} >= {float(threshold):g}"


# ---------------------------------------------------------------------------
# Small estimators for the bootstrap
# ---------------------------------------------------------------------------
class _UniformMean(FitTemplateMixin, BaseEstimator):
    """Mean score of each agent over the tasks (the uniform average)."""

    _parameter_constraints: dict = {}

    def _check_fit_data(self, X, y=None):
        return np.asarray(X, dtype=np.float64)

    def _solve(self, X):
        return {"agent_mean_": X.mean(axis=1)}


class _Abilities(FitTemplateMixin, BaseEstimator):
    """IRT abilities of the agents; NaN when a resample cannot be fitted."""

    _parameter_constraints: dict = {"irt": "no_validation"}
    _prefer_skip_nested_validation = False

    def __init__(self, irt=None):
        self.irt = irt

    def _check_fit_data(self, X, y=None):
        return np.asarray(X, dtype=np.float64)

    def _solve(self, X):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return {"abilities_": clone(self.irt).fit(X).abilities_}
        except (ValueError, FloatingPointError, np.linalg.LinAlgError):
            # e.g. a resample on which some agent has no observed result
            return {"abilities_": np.full(X.shape[0], np.nan)}


def _quiet(function, *args, **kwargs):
    """Run ``function`` and return (result, list of warning messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    messages = []
    for item in caught:
        text = str(item.message)
        if text not in messages:
            messages.append(text)
    return result, messages


# ---------------------------------------------------------------------------
# The analyses
# ---------------------------------------------------------------------------
def _minmax(values):
    low, high = values.min(axis=0), values.max(axis=0)
    span = high - low
    flat = ~(span > 0)
    return np.where(flat, 0.0, (values - low) / np.where(flat, 1.0, span))


def _complete_block(bench):
    _, agent_mask, task_mask = complete_submatrix(bench.scores, return_masks=True)
    if agent_mask.sum() < 2 or task_mask.sum() < 2:
        raise ValueError(
            "the scores have no complete block of at least 2 agents x 2 tasks; "
            "Nash averaging needs results of the same agents on the same tasks."
        )
    block = bench.scores[np.ix_(agent_mask, task_mask)]
    return Bunch(
        agent_mask=agent_mask,
        task_mask=task_mask,
        raw=block,
        scaled=_minmax(block),
        agents=bench.agents[agent_mask],
        tasks=bench.tasks[task_mask],
    )


def _summary(bench, block):
    """Sizes of the data (``complete_*`` are None without a complete block)."""
    missing = np.isnan(bench.scores)
    reference = bench.get("reference")
    return Bunch(
        name=bench.name,
        n_agents=bench.scores.shape[0],
        n_tasks=bench.scores.shape[1],
        missing_share=float(missing.mean()),
        n_missing=int(missing.sum()),
        complete_agents=None if block is None else int(block.agent_mask.sum()),
        complete_tasks=None if block is None else int(block.task_mask.sum()),
        success_rate=float(np.nanmean(bench.responses)),
        response_rule=bench.response_rule,
        normalized=bench.normalized is not None,
        dropped_agents=list(bench.get("dropped_agents", [])),
        dropped_tasks=list(bench.get("dropped_tasks", [])),
        reference_agents=list(reference.agents) if reference is not None else [],
        reference_included=reference is not None and reference.included,
    )


def _nash(block):
    nash, messages = _quiet(NashAverager().fit, block.scaled)
    return Bunch(
        model=nash,
        agent_probability=nash.agent_distribution_,
        task_probability=nash.task_distribution_,
        agent_nash=nash.agent_skill_,
        task_nash=nash.difficulty_,
        agent_uniform=block.scaled.mean(axis=1),
        task_uniform=-block.scaled.mean(axis=0),
        value=float(nash.value_),
        exploitability=float(nash.exploitability_),
        core_agents=np.flatnonzero(nash.agent_support_),
        core_tasks=np.flatnonzero(nash.task_support_),
        warnings=messages,
    )


def _hodge(block, n_planes=2):
    """Hodge split of the agent-vs-task flow, with its leading cyclic planes.

    The cyclic part of the flow is ``[[0, R], [-R^T, 0]]`` with ``R`` the
    double-centred residual, so its Schur planes have the singular values
    ``sigma_k`` of ``R`` and squared norms ``2 sigma_k^2``: an SVD of the
    small agents x tasks residual instead of a Schur decomposition of the
    (agents + tasks) square flow.
    """
    embedding = avt_embedding(block.scaled)
    split = hodge_decomposition(embedding.flow)
    residual = embedding.residual
    total = float(np.sum(embedding.flow**2))
    sigma = np.linalg.svd(residual, compute_uv=False)[:n_planes]
    planes = 2.0 * sigma**2 / total if total > 0 else np.zeros_like(sigma)
    return Bunch(
        flow=embedding.flow,
        transitive=split.transitive_share,
        cyclic=split.cyclic_share,
        plane_shares=planes,
        agent_skill=embedding.skill,
        task_difficulty=embedding.difficulty,
        agent_residual=np.sqrt(np.mean(residual**2, axis=1)),
        task_residual=np.sqrt(np.mean(residual**2, axis=0)),
    )


def _irt_estimator(prior):
    if prior:
        return IRT2PL(a_prior=(1.0, 2.0), b_prior=(0.0, 2.0))
    return IRT2PL()


def _irt(bench, prior):
    estimator = _irt_estimator(prior)
    model, messages = _quiet(clone(estimator).fit, bench.responses)
    success_rate = np.nanmean(bench.responses, axis=0)
    return Bunch(
        flags=task_flags(model.discrimination_, success_rate),
        model=model,
        estimator=estimator,
        ability=model.abilities_,
        ability_sd=model.abilities_sd_,
        difficulty=model.difficulty_,
        discrimination=model.discrimination_,
        success_rate=success_rate,
        prior=prior,
        warnings=messages,
    )


def _generality(bench, irt):
    scorer = GeneralityScorer(difficulty=FrozenEstimator(irt.model))
    scorer, messages = _quiet(scorer.fit, bench.responses)
    values = scorer.transform(bench.responses)
    names = list(scorer.get_feature_names_out())
    curves = scorer.response_curves(bench.responses)
    items = scorer.item_curves(bench.responses, abilities=irt.ability)
    return Bunch(
        model=scorer,
        table={name: values[:, k] for k, name in enumerate(names)},
        curves=curves,
        bin_points=np.where(
            np.isnan(scorer.bin_medians_), scorer.bin_centers_, scorer.bin_medians_
        ),
        item_curves=items,
        warnings=messages,
    )


def task_flags(discrimination, success_rate):
    """Per task: why its IRT numbers do not rank it (empty when they do).

    "negative discrimination": agents of higher ability succeed less, so its
    difficulty does not order it among the others; "nobody succeeds" /
    "everyone succeeds": a success rate of 0% or 100%.
    """
    flags = np.full(np.shape(success_rate), "", dtype=object)
    flags[np.asarray(discrimination) < 0] = "negative discrimination"
    flags[np.asarray(success_rate) == 0.0] = "nobody succeeds"
    flags[np.asarray(success_rate) == 1.0] = "everyone succeeds"
    return flags


def flag_tasks(benchmark, *, irt_prior=True):
    """The report's task flags: 0% or 100% success, negative discrimination.

    Fits the report's IRT model to the benchmark's successes and returns,
    for each task, "nobody succeeds", "everyone succeeds", "negative
    discrimination" or "" (see the report's tasks section); flagged tasks are
    left out of the recommended subsets (report and ``sklearn-eval select``).

    Parameters
    ----------
    benchmark : Bunch
        From :func:`prepare_benchmark`.
    irt_prior : bool, default=True
        The report's weak priors on the 2PL parameters.

    Returns
    -------
    flags : ndarray of str of shape (n_tasks,)

    Examples
    --------
    >>> from sklearn_eval.report import flag_tasks, prepare_benchmark
    >>> bench = prepare_benchmark([[1, 0, 1], [1, 1, 0], [1, 0, 0]])
    >>> flag_tasks(bench).tolist()[0]
    'everyone succeeds'
    """
    return _irt(benchmark, irt_prior).flags


def _selection(bench, block, n_tasks, spread, irt=None, include_flagged=False):
    # imported here: the match report never selects tasks, and the selectors
    # bring scikit-learn's clustering and feature selection with them
    from ..selection import InfoGainSelector, subset_agreement

    # tasks whose successes say nothing (0% or 100%) or the opposite of
    # ability (negative discrimination) stay out of the recommended subset
    flags = np.full(block.task_mask.sum(), "", dtype=object)
    if irt is not None:
        flags = irt.flags[block.task_mask]
    candidates = np.flatnonzero((flags == "") | include_flagged)
    if candidates.size < 2:  # too few left: the flags cannot be honoured
        candidates = np.arange(flags.size)
    n_select = int(min(n_tasks, candidates.size))
    stds = None
    std_offset = float(spread)
    rule = (
        f"assumed run-to-run spread {spread:g} on the min-max scale of every task "
        "(the data have one score per agent and task)"
    )
    if bench.stds is not None:
        block_stds = bench.stds[np.ix_(block.agent_mask, block.task_mask)]
        span = block.raw.max(axis=0) - block.raw.min(axis=0)
        span = np.where(span > 0, span, 1.0)
        stds = np.nan_to_num(block_stds / span)[:, candidates]
        std_offset = 1e-3
        rule = "spreads of the repeated runs (min-max scaled) + 0.001"
    selector = InfoGainSelector(n_tasks=n_select, input="agents", std_offset=std_offset)
    selector, messages = _quiet(
        selector.fit, block.scaled[:, candidates], None, stds
    )
    order = candidates[np.asarray(selector.selection_order_)]
    agreement = None
    if block.scaled.shape[0] >= 3:
        agreement, more = _quiet(subset_agreement, block.scaled, order)
        messages += more
    gain = np.full(flags.size, np.nan)
    gain[candidates] = selector.information_gain_
    left_out = np.setdiff1d(np.arange(flags.size), candidates)
    return Bunch(
        model=selector,
        order=order,
        cumulative_gain=np.asarray(selector.cumulative_gain_),
        information_gain=gain,
        max_information=float(selector.max_information_),
        agreement=agreement,
        spread_rule=rule,
        candidates=candidates,
        excluded=left_out,
        excluded_flags=flags[left_out],
        warnings=messages,
    )


def _bootstrap(estimator, X, statistic, *, n_resamples, random_state, n_jobs):
    """Percentile intervals of ``statistic`` over resampled tasks."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bootstrap_ranking(
            estimator,
            X,
            statistic=statistic,
            resample="tasks",
            n_resamples=n_resamples,
            random_state=random_state,
            n_jobs=n_jobs,
        )


def _uniform_intervals(bench, block, irt, **settings):
    return _bootstrap(_UniformMean(), block.scaled, "agent_mean_", **settings)


def _nash_intervals(bench, block, irt, **settings):
    return _bootstrap(NashAverager(), block.scaled, "agent_skill_", **settings)


def _ability_intervals(bench, block, irt, **settings):
    estimator = _Abilities(irt.estimator)
    return _bootstrap(estimator, bench.responses, "abilities_", **settings)


_INTERVALS = {
    "uniform": _uniform_intervals,
    "nash": _nash_intervals,
    "ability": _ability_intervals,
}


class _Steps:
    """Runs the analyses one by one; a failure is recorded, never raised.

    ``names`` gives each analysis its name in messages, ``needs`` the
    analyses each one needs (the benchmark report's by default).
    """

    def __init__(self, say, names=None, needs=None):
        self.say = say
        self.names = STEPS if names is None else names
        self.needs = _NEEDS if needs is None else needs
        self.results = {}
        self.failures = {}
        self.tracebacks = {}

    def run(self, name, function, *args, **kwargs):
        blocked = [need for need in self.needs.get(name, ()) if need in self.failures]
        if blocked:
            reason = f"not run: the {self.names[blocked[0]]} failed"
            self.failures[name] = f"{reason} ({self.failures[blocked[0]]})"
            self.results[name] = None
            return None
        try:
            result = function(*args, **kwargs)
        except Exception as exc:  # one analysis must not take the others down
            self.failures[name] = one_line_reason(exc)
            self.tracebacks[name] = traceback.format_exc()
            self.say(f"{self.names[name]} failed: {self.failures[name]}")
            result = None
        self.results[name] = result
        return result


def analyze_benchmark(
    benchmark,
    *,
    n_tasks=10,
    spread=0.05,
    irt_prior=True,
    n_resamples=100,
    random_state=0,
    n_jobs=None,
    progress=None,
    include_flagged_tasks=False,
):
    """Run every analysis of the benchmark report.

    Parameters
    ----------
    benchmark : Bunch
        From :func:`prepare_benchmark`.
    n_tasks : int, default=10
        Size of the reduced task subset chosen by information gain.
    spread : float, default=0.05
        Run-to-run spread assumed for information gain when the data have a
        single score per (agent, task), on the min-max scale of each task.
    irt_prior : bool, default=True
        Fit the 2PL model with weak normal priors (``a ~ N(1, 2)``,
        ``b ~ N(0, 2)``). Leaderboards have few agents, and plain marginal
        maximum likelihood then drives the discriminations of items that
        separate the agents to infinity.
    n_resamples : int, default=100
        Bootstrap resamples of the tasks for the ranking intervals; 0 skips
        the intervals.
    random_state : int, default=0
        Seed of the bootstrap.
    n_jobs : int or None, default=None
        Parallel workers of the bootstrap.
    progress : bool, file-like or None, default=None
        Write progress lines to stderr (True) or to the given stream.
    include_flagged_tasks : bool, default=False
        Let the information-gain subset recommend flagged tasks (0% or 100%
        success, negative IRT discrimination; see the tasks section), which
        it leaves out by default.

    Returns
    -------
    analysis : Bunch
        ``summary``, ``block`` (the complete block), ``nash``, ``hodge``,
        ``irt``, ``generality``, ``selection``, ``reference`` (the
        reference agents' scores, None without any; see
        :func:`prepare_benchmark`), ``intervals`` (None when
        ``n_resamples=0``; else a Bunch ``uniform``, ``nash``, ``ability``),
        ``benchmark``, and ``failures``: a dict from the name of each
        analysis that failed (a key of :data:`STEPS`, e.g. ``"nash"`` or
        ``"intervals.ability"``) to a one-line reason; that analysis's entry
        is None. An analysis that needs a failed one (Nash averaging needs
        the complete block) fails with a reason saying so. ``tracebacks``
        holds the full traceback of each analysis that raised.

    Notes
    -----
    Each analysis runs on its own, so real data that breaks one method (a
    solver failure, a benchmark without a complete block) still gets every
    other analysis; :func:`~sklearn_eval.report.render_report` shows each
    failure as an error box in its section.

    Examples
    --------
    >>> from sklearn_eval.datasets import make_irt_responses
    >>> from sklearn_eval.report import analyze_benchmark, prepare_benchmark
    >>> X = make_irt_responses(40, 12, random_state=0)
    >>> analysis = analyze_benchmark(prepare_benchmark(X), n_tasks=3,
    ...                              n_resamples=0)
    >>> analysis.selection.order.shape, round(float(analysis.nash.value), 3) <= 1
    ((3,), True)
    """
    say = _progress_printer(progress)
    steps = _Steps(say)
    block = steps.run("block", _complete_block, benchmark)
    shape = "none" if block is None else "{} x {}".format(*block.scaled.shape)
    say(
        f"{benchmark.name}: {benchmark.scores.shape[0]} agents x "
        f"{benchmark.scores.shape[1]} tasks; complete block {shape}"
    )
    say("Nash averaging (maximum-entropy equilibrium)")
    nash = steps.run("nash", _nash, block)
    say("Hodge decomposition")
    steps.run("hodge", _hodge, block)
    steps.run("rank_sets", benchmark_rank_sets, block, random_state=random_state)
    say("IRT 2PL on the successes")
    irt = steps.run("irt", _irt, benchmark, irt_prior)
    say("generality and agent response curves")
    steps.run("generality", _generality, benchmark, irt)
    steps.run("reference", reference_scores, benchmark, irt)
    if block is not None:
        n_select = min(n_tasks, block.scaled.shape[1])
        say(f"information-gain selection of {n_select} tasks")
    steps.run(
        "selection", _selection, benchmark, block, n_tasks, spread, irt,
        include_flagged_tasks,
    )
    intervals = None
    if n_resamples:
        # no up-front estimate: the first fits pay one-off costs (compilation,
        # imports) that the warm-started resamples do not, so a forecast from
        # them was many times too long; the time taken is said afterwards
        say(f"bootstrap intervals ({n_resamples} resamples of the tasks)")
        start = time.perf_counter()
        settings = dict(
            n_resamples=n_resamples, random_state=random_state, n_jobs=n_jobs
        )
        intervals = Bunch(
            **{
                key: steps.run(
                    f"intervals.{key}", function, benchmark, block, irt, **settings
                )
                for key, function in _INTERVALS.items()
            }
        )
        say(f"bootstrap intervals done in {time.perf_counter() - start:.1f} s")
    say("analyses done" if not steps.failures else _failure_line(steps.failures))
    return Bunch(
        benchmark=benchmark,
        summary=_summary(benchmark, block),
        block=block,
        nash=nash,
        hodge=steps.results["hodge"],
        rank_sets=steps.results["rank_sets"],
        irt=irt,
        generality=steps.results["generality"],
        selection=steps.results["selection"],
        reference=steps.results["reference"],
        intervals=intervals,
        failures=steps.failures,
        tracebacks=steps.tracebacks,
    )


def _failure_line(failures):
    failed = ", ".join(STEPS[name] for name in failures)
    return f"analyses done; {len(failures)} failed: {failed}"
