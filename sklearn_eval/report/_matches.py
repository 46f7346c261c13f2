"""The analyses behind the match report, on one table of pairwise games.

:func:`prepare_matches` checks the matches and sets the reference players
apart, and :func:`analyze_matches` runs the pairwise methods of the library:

* Bradley-Terry ratings (``EloRanker(method="batch")``) with intervals from
  :func:`~sklearn_eval.uncertainty.ranking_intervals` (sandwich or
  bootstrap), and each player's record;
* multidimensional Elo (``MultiElo``): the transitive ratings and the cyclic
  plane that the ratings cannot express;
* Nash averaging on the win-rate game: the empirical win rates, unplayed
  pairs filled by mElo (:func:`~sklearn_eval.game.fill_win_rates`), solved
  by ``NashAverager(game="agent_vs_agent")``;
* the Hodge split of that game's log-odds into transitive and cyclic parts.

As for the benchmark report, each analysis runs on its own: one that raises
(or needs one that did) is recorded in ``analysis.failures`` with a one-line
reason and its entry is None, and the others still run.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.utils import Bunch

from ..game import NashAverager, fill_win_rates, hodge_decomposition, schur_embedding
from ..pairwise import EloRanker, MultiElo
from ..uncertainty import ranking_intervals
from ..utils import check_matches, matches_to_win_rate
from ._analysis import _progress_printer, _quiet, _Steps, reference_kinds
from ._match_models import fit_ratings, transitive_null
from ._rank_set_input import match_rank_sets

__all__ = ["analyze_matches", "prepare_matches"]

MATCH_STEPS = {
    "ratings": "Bradley-Terry ratings",
    "intervals": "rating intervals",
    "melo": "multidimensional Elo (mElo)",
    "nash": "Nash averaging of the win-rate game",
    "hodge": "Hodge decomposition of the win-rate game",
    "reference": "records of the reference players",
    "rank_sets": "rank sets and tiers",
}
MATCH_NEEDS = {"intervals": ("ratings",), "hodge": ("nash",), "rank_sets": ("ratings",)}
_MELO_ALPHA = 0.01
#: the cyclic share is called beyond noise above this quantile of the shares
#: simulated from the transitive model
NULL_QUANTILE = 0.95


def prepare_matches(
    X,
    y,
    sample_weight=None,
    *,
    name="matches",
    reference_agents=None,
    include_reference=False,
    covariates=None,
):
    """Matches ready for :func:`analyze_matches`, reference players set apart.

    Parameters
    ----------
    X : array-like of shape (n_matches, 2)
        The two players of each match.
    y : array-like of shape (n_matches,)
        Outcome for the first player: 1, 0 or 0.5.
    sample_weight : array-like of shape (n_matches,), default=None
        Non-negative match weights.
    name : str, default="matches"
        Title of the report.
    reference_agents : list of str or dict, default=None
        Reference players (e.g. a human or a random baseline), or a dict from
        label to kind. By default their matches are left out of every
        analysis and their record is shown apart.
    include_reference : bool, default=False
        Rate the reference players with the others (marked in the tables).
    covariates : DataFrame or array-like of shape (n_matches, n_covariates), \
            default=None
        Numeric per-match covariates of the ratings (the covariate columns
        of ``EloRanker``'s ``X``).

    Returns
    -------
    matches : Bunch
        ``X``, ``y``, ``sample_weight`` (the matches analysed), ``players``
        (sorted labels), ``reference`` (``agents``, ``kinds``, ``X``, ``y``,
        ``sample_weight``: the matches involving a reference player;
        ``included``; None without reference players), ``reference_mask``
        over ``players``, ``covariates`` (a DataFrame or None), ``model_X``
        (the rating models' ``X``: the players, then the covariates) and
        ``name``.

    Examples
    --------
    >>> from sklearn_eval.report import prepare_matches
    >>> m = prepare_matches([["a", "b"], ["b", "c"], ["c", "rnd"]], [1, 0.5, 1],
    ...                     reference_agents=["rnd"])
    >>> m.players.tolist(), m.reference.X.tolist()
    (['a', 'b', 'c'], [['c', 'rnd']])
    """
    data = check_matches(X, y, sample_weight)
    first = np.array([str(p) for p in data.first], dtype=object)
    second = np.array([str(p) for p in data.second], dtype=object)
    everyone = np.array(sorted(set(first) | set(second)), dtype=object)
    kinds = reference_kinds(reference_agents, everyone, "players of the matches")
    involved = np.isin(first, list(kinds)) | np.isin(second, list(kinds))
    kept = np.ones(first.shape[0], dtype=bool) if include_reference else ~involved
    if not kept.any():
        raise ValueError("every match involves a reference player: nothing to rank.")
    pairs = np.column_stack([first, second])
    players = np.array(sorted(set(pairs[kept].ravel())), dtype=object)
    if players.size < 3:
        raise ValueError(
            f"a match report needs at least 3 players; got {players.size}."
        )
    reference = None
    if kinds:
        reference = Bunch(
            agents=np.array(list(kinds), dtype=object),
            kinds=list(kinds.values()),
            X=pairs[involved],
            y=data.y[involved],
            sample_weight=data.sample_weight[involved],
            included=bool(include_reference),
        )
    frame, model_X = _covariate_frame(covariates, pairs, kept)
    return Bunch(
        X=pairs[kept],
        y=data.y[kept],
        sample_weight=data.sample_weight[kept],
        players=players,
        reference=reference,
        reference_mask=np.isin(players, list(kinds)),
        covariates=frame,
        model_X=model_X,
        name=str(name),
    )


def _covariate_frame(covariates, pairs, kept):
    """The kept covariate rows (a DataFrame) and the rating models' ``X``."""
    if covariates is None:
        return None, pairs[kept]
    import pandas as pd

    frame = covariates
    if not isinstance(frame, pd.DataFrame):
        values = np.asarray(covariates, dtype=np.float64)
        values = values.reshape(len(pairs), -1) if values.ndim == 1 else values
        frame = pd.DataFrame(
            values, columns=[f"x{k + 2}" for k in range(values.shape[1])]
        )
    if len(frame) != len(pairs):
        raise ValueError(
            f"covariates has {len(frame)} rows for {len(pairs)} matches."
        )
    frame = frame.iloc[np.flatnonzero(kept)].reset_index(drop=True)
    players = pd.DataFrame(pairs[kept], columns=["first", "second"], dtype=object)
    return frame, pd.concat([players, frame], axis=1)


def records(X, y, sample_weight, players):
    """Weighted matches, wins, draws and losses of each player (sorted labels)."""
    index = {label: k for k, label in enumerate(players)}
    n = len(players)
    out = {key: np.zeros(n) for key in ("matches", "wins", "draws", "losses")}
    for column, outcome in ((0, y), (1, 1.0 - y)):
        known = np.array([label in index for label in X[:, column]], dtype=bool)
        rows = np.array([index[label] for label in X[known, column]], dtype=int)
        w, o = sample_weight[known], outcome[known]
        out["matches"] += np.bincount(rows, weights=w, minlength=n)
        out["wins"] += np.bincount(rows, weights=w * (o == 1.0), minlength=n)
        out["draws"] += np.bincount(rows, weights=w * (o == 0.5), minlength=n)
        out["losses"] += np.bincount(rows, weights=w * (o == 0.0), minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["score_rate"] = (out["wins"] + 0.5 * out["draws"]) / out["matches"]
    return Bunch(**out)


def _summary(matches):
    X, y, w = matches.X, matches.y, matches.sample_weight
    n = len(matches.players)
    pairs = {tuple(sorted(pair)) for pair in X.tolist()}
    counts = records(X, y, w, matches.players).matches
    reference = matches.reference
    return Bunch(
        name=matches.name,
        n_matches=int(X.shape[0]),
        n_players=n,
        total_weight=float(w.sum()),
        weighted=bool(np.any(w != 1.0)),
        draw_share=float(np.sum(w * (y == 0.5)) / max(w.sum(), 1e-300)),
        first_win_share=float(np.sum(w * (y == 1.0)) / max(w.sum(), 1e-300)),
        pairs_played=len(pairs),
        pairs_possible=n * (n - 1) // 2,
        matches_per_player=(
            float(counts.min()),
            float(np.median(counts)),
            float(counts.max()),
        ),
        reference_agents=[] if reference is None else list(reference.agents),
        reference_included=reference is not None and reference.included,
    )


def _fit_ratings(matches, alpha, ties, first_advantage, random_state):
    """Bradley-Terry ratings, fitted once (see :mod:`._match_models`)."""
    fit = fit_ratings(
        matches, alpha=alpha, ties=ties, first_advantage=first_advantage,
        random_state=random_state,
    )
    model = fit.model
    players = np.asarray(model.agents_, dtype=object)
    return Bunch(
        model=model,
        players=players,
        ratings=np.asarray(model.agent_scores_, dtype=np.float64),
        alpha=fit.alpha,
        ties=fit.ties,
        tie_scores=fit.tie_scores,
        note=fit.note,
        record=records(matches.X, matches.y, matches.sample_weight, players),
    )


def _intervals(
    matches, ratings, *, method, n_resamples, confidence_level, random_state, n_jobs
):
    # the fitted ratings: the sandwich reads them, the bootstrap refits copies
    result, _ = _quiet(
        ranking_intervals,
        ratings.model,
        matches.model_X,
        matches.y,
        sample_weight=matches.sample_weight,
        method=method,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        random_state=random_state,
        n_jobs=n_jobs,
        prefit=True,
    )
    if result.estimate.size > 1 and not np.any(result.high - result.low > 0):
        # zero width is no certainty: say so in the report and on stderr
        if not result.note:
            result.note = (
                f"The {result.method} intervals have zero width: every "
                "resample gave the same ratings (as when every match is a draw), "
                "so they do not measure uncertainty."
            )
        warnings.warn(result.note, UserWarning, stacklevel=2)
    return result


def _log_loss(p, y, w):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    losses = -(y * np.log(p) + (1 - y) * np.log1p(-p))
    return float(np.sum(w * losses) / np.sum(w))


def _melo(matches, ratings, n_components, random_state):
    X, y, w = matches.X, matches.y, matches.sample_weight
    model, messages = _quiet(
        MultiElo(
            n_components=n_components,
            method="batch",
            alpha=_MELO_ALPHA,
            random_state=random_state,
        ).fit,
        X,
        y,
        w,
    )
    elo = _same_prior_ratings(ratings)
    if elo is None:
        elo, _ = _quiet(EloRanker(method="batch", alpha=_MELO_ALPHA).fit, X, y, w)
    coordinates = model.embedding(0)
    return Bunch(
        model=model,
        players=np.asarray(model.agents_, dtype=object),
        transitive=np.asarray(model.transitive_ratings_, dtype=np.float64),
        coordinates=coordinates,
        radius=np.hypot(coordinates[:, 0], coordinates[:, 1]),
        log_loss=_log_loss(model.predict_proba(X)[:, 1], y, w),
        elo_log_loss=_log_loss(elo.predict_proba(X)[:, 1], y, w),
        n_components=int(n_components),
        warnings=messages,
    )


def _same_prior_ratings(ratings):
    """The report's ratings when they are mElo's reference model, else None."""
    if ratings is None:
        return None
    params = ratings.model.get_params()
    plain = params["ties"] == "half" and params["first_advantage"] == 0.0
    if plain and ratings.alpha == _MELO_ALPHA and ratings.model.n_features_in_ == 2:
        return ratings.model
    return None


def _win_rates(matches, melo, random_state):
    """Empirical win rates; the pairs that never met from the fitted mElo.

    Without an mElo fit (its step failed), the filling model is fitted here.
    """
    P, counts, players = matches_to_win_rate(
        matches.X, matches.y, matches.sample_weight
    )
    n = len(players)
    filled = (counts == 0) & ~np.eye(n, dtype=bool)
    if filled.any() and melo is None:
        filler = MultiElo(
            n_components=1, method="batch", alpha=_MELO_ALPHA,
            random_state=random_state,
        )
        (P, players, filled), _ = _quiet(
            fill_win_rates, matches.X, matches.y, matches.sample_weight,
            estimator=filler,
        )
        return P, players, filled
    if filled.any():
        if not np.array_equal(np.asarray(melo.model.agents_), players):
            raise ValueError("mElo's players differ from the match players.")
        rows, cols = np.nonzero(filled)
        pairs = np.column_stack([players[rows], players[cols]])
        P[rows, cols] = melo.model.predict_proba(pairs)[:, 1]
    P = 0.5 * (P + 1.0 - P.T)
    np.fill_diagonal(P, 0.5)
    return P, players, filled


def _nash(matches, melo, clip, random_state):
    P, players, filled = _win_rates(matches, melo, random_state)
    model, messages = _quiet(
        NashAverager(game="agent_vs_agent", payoff="probability", clip=clip).fit, P
    )
    return Bunch(
        model=model,
        P=P,
        players=np.asarray(players, dtype=object),
        filled=filled,
        n_filled_pairs=int(filled.sum() // 2),
        probability=model.agent_distribution_,
        skill=model.agent_skill_,
        uniform=model.payoff_.mean(axis=1),
        core=np.flatnonzero(model.agent_support_),
        exploitability=float(model.exploitability_),
        warnings=messages,
    )


def _hodge(nash, ratings, matches, clip, random_state, n_planes=2):
    A = nash.model.payoff_
    total = float(np.sum(A * A))
    if total == 0.0:
        return Bunch(
            transitive=np.nan, cyclic=np.nan, plane_shares=np.zeros(0), zero=True,
            null=None, beyond_noise=False,
        )
    split = hodge_decomposition(A)
    planes = np.zeros(0)
    if split.cyclic_share > 0 and A.shape[0] >= 3:
        embedding = schur_embedding(A, n_planes, remove_transitive=True)
        # the ratios are of the cyclic part's norm: rescale to the whole game
        planes = embedding.explained_variance_ratio * split.cyclic_share
    summary = Bunch(
        transitive=float(split.transitive_share),
        cyclic=float(split.cyclic_share),
        plane_shares=planes,
        zero=False,
        null=None,
        beyond_noise=False,
    )
    if ratings is None:  # no fitted transitive model to simulate from
        return summary
    null = transitive_null(
        matches, ratings.model, clip=clip, random_state=random_state
    )
    cutoff = float(np.quantile(null, NULL_QUANTILE))
    return Bunch(
        transitive=float(split.transitive_share),
        cyclic=float(split.cyclic_share),
        plane_shares=planes,
        zero=False,
        null=Bunch(
            mean=float(null.mean()),
            cutoff=cutoff,
            quantile=NULL_QUANTILE,
            n_draws=int(null.size),
            p_value=float((1 + np.sum(null >= split.cyclic_share)) / (1 + null.size)),
        ),
        beyond_noise=bool(split.cyclic_share > cutoff),
    )


def _reference_records(matches):
    ref = matches.reference
    if ref is None:
        return None
    record = records(ref.X, ref.y, ref.sample_weight, ref.agents)
    return Bunch(
        agents=ref.agents, kinds=ref.kinds, record=record, included=ref.included
    )


def analyze_matches(
    matches,
    *,
    alpha=None,
    interval_method="analytic",
    n_resamples=200,
    confidence_level=0.95,
    n_components=1,
    clip=1e-3,
    random_state=0,
    n_jobs=None,
    progress=None,
    ties=None,
    first_advantage=None,
):
    """Run every analysis of the match report.

    Each rating model is fitted once on the matches. The prior is chosen by
    a pure check (:func:`~sklearn_eval.pairwise.maximum_likelihood_exists`),
    and with draws in the data and ``ties=None`` the tie model by held-out
    likelihood (Davidson or Rao-Kupper, 5-fold cross-validation); the
    report says so. When every match is a draw no tie model has a finite
    tie parameter: draws count as half (every player rates the same) and
    the report says that instead; intervals of zero width (no resample or
    sandwich variance can vary such data) come with a note and a warning
    that they measure no uncertainty. The cyclic share of the win-rate game
    is set beside the shares of games simulated from the fitted ratings on
    the same schedule (a parametric bootstrap).

    Parameters
    ----------
    matches : Bunch
        From :func:`prepare_matches`.
    alpha : float or None, default=None
        L2 prior of the Bradley-Terry fit (``EloRanker(alpha=...)``). None:
        plain maximum likelihood when it has finite ratings, else a weak
        prior (0.01), said in the report.
    interval_method : {"analytic", "bootstrap"}, default="analytic"
        Sandwich intervals, or a percentile bootstrap over matches
        (:func:`~sklearn_eval.uncertainty.ranking_intervals`).
    n_resamples : int, default=200
        Bootstrap resamples, or normal draws for the analytic rank
        intervals; 0 skips the intervals.
    confidence_level : float, default=0.95
    n_components : int, default=1
        Cyclic planes of the mElo model.
    clip : float, default=1e-3
        Win rates are clipped to ``[clip, 1 - clip]`` before the logit of
        the Nash game.
    random_state : int, default=0
    n_jobs : int or None, default=None
        Workers of the bootstrap.
    progress : bool, file-like or None, default=None
        Progress lines on stderr (True) or the given stream.
    ties : {"half", "davidson", "rao-kupper"} or None, default=None
        The ratings' tie model (``EloRanker(ties=...)``). None: "half"
        without draws or when every match is a draw, else the better of
        Davidson and Rao-Kupper by held-out likelihood.
    first_advantage : float, "fit" or None, default=None
        The first player's advantage (``EloRanker(first_advantage=...)``);
        None is 0.

    Returns
    -------
    analysis : Bunch
        ``kind="matches"``, ``matches``, ``summary``, ``ratings``,
        ``intervals`` (a BootstrapResult, None when ``n_resamples=0``),
        ``melo``, ``nash``, ``hodge``, ``reference``, ``failures`` (name ->
        one-line reason) and ``tracebacks``.

    Examples
    --------
    >>> from sklearn_eval.datasets import load_vicuna80
    >>> from sklearn_eval.report import analyze_matches, prepare_matches
    >>> votes = load_vicuna80()
    >>> analysis = analyze_matches(prepare_matches(votes.data, votes.target),
    ...                            n_resamples=50)
    >>> analysis.failures
    {}
    >>> str(analysis.ratings.players[analysis.ratings.ratings.argmax()])
    'gpt4'
    """
    if interval_method not in ("analytic", "bootstrap"):
        raise ValueError(
            "interval_method must be 'analytic' or 'bootstrap'; got "
            f"{interval_method!r}."
        )
    say = _progress_printer(progress)
    steps = _Steps(say, MATCH_STEPS, MATCH_NEEDS)
    say(
        f"{matches.name}: {matches.X.shape[0]} matches between "
        f"{len(matches.players)} players"
    )
    say("Bradley-Terry ratings")
    start = time.perf_counter()
    ratings = steps.run(
        "ratings", _fit_ratings, matches, alpha, ties, first_advantage, random_state
    )
    intervals = None
    if n_resamples:
        unit = "resamples" if interval_method == "bootstrap" else "draws"
        say(f"rating intervals ({interval_method}; {n_resamples} {unit})")
        intervals = steps.run(
            "intervals",
            _intervals,
            matches,
            ratings,
            method=interval_method,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            random_state=random_state,
            n_jobs=n_jobs,
        )
    say("rank sets and tiers (sandwich covariance, max-|t| step-down)")
    steps.run("rank_sets", match_rank_sets, matches, ratings, confidence_level,
              random_state)
    say(f"mElo with {n_components} cyclic plane(s)")
    melo = steps.run("melo", _melo, matches, ratings, n_components, random_state)
    say("Nash averaging of the win-rate game (unplayed pairs filled by mElo)")
    nash = steps.run("nash", _nash, matches, melo, clip, random_state)
    say("Hodge decomposition, against games simulated from the ratings")
    steps.run("hodge", _hodge, nash, ratings, matches, clip, random_state)
    steps.run("reference", _reference_records, matches)
    say(
        f"analyses done in {time.perf_counter() - start:.1f} s"
        if not steps.failures
        else f"analyses done; {len(steps.failures)} failed: "
        + ", ".join(MATCH_STEPS[name] for name in steps.failures)
    )
    return Bunch(
        kind="matches",
        matches=matches,
        summary=_summary(matches),
        ratings=ratings,
        intervals=intervals,
        rank_sets=steps.results["rank_sets"],
        melo=melo,
        nash=nash,
        hodge=steps.results["hodge"],
        reference=steps.results["reference"],
        confidence_level=confidence_level,
        step_names=MATCH_STEPS,
        failures=steps.failures,
        tracebacks=steps.tracebacks,
    )
