"""The sections of the match report, one function each, and its degeneracies.

Same contract as :mod:`._sections`: a section function takes the page and
returns its HTML body, reading only its typed input (``page.input``, built
from the analysis by the section's ``inputs`` function in
:mod:`._match_inputs`, which raises :class:`~._figures.MissingAnalysis` when
the analysis failed: the page then shows an error box); tables come from
:mod:`._tables` (full, sortable, escaped).
"""

from __future__ import annotations

import numpy as np

from ._degenerate import (
    Degeneracy,
    support_copies,
    tie_at_top,
)
from ._match_figures import _MAX_BARS
from ._tables import (
    heading,
    interval,
    note,
    num,
    paragraph,
    percent,
    rank_cell,
    rank_range,
    table,
)

__all__ = ["MATCH_SECTIONS", "MATCH_SECTION_RENDERERS", "match_degeneracies"]

MATCH_SECTIONS = {
    "summary": "Data summary",
    "ratings": "Ratings with intervals (Bradley-Terry)",
    "cyclic": "Cyclic structure (multidimensional Elo)",
    "nash": "Nash averaging of the win-rate game",
    "hodge": "Transitive and cyclic shares (Hodge decomposition)",
}

# 1 logit = 400 / ln(10) Elo points: ties are judged on the logit scale
_ELO_PER_LOGIT = 400.0 / np.log(10.0)
RATING_TOL = 1e-6 * _ELO_PER_LOGIT
# a game whose log-odds are all within this of 0 is "all players equal": the
# pairs that never met are filled by mElo, whose optimiser stops near 0, not at it
GAME_TOL = 1e-4


def summary_section(page):
    s = page.input  # a SummaryInput
    low, median, high = s.matches_per_player
    rows = [
        ("matches", s.n_matches),
        ("players", s.n_players),
        ("pairs of players that met", f"{s.pairs_played} of {s.pairs_possible}"),
        ("matches per player (min / median / max)", f"{low:g} / {median:g} / {high:g}"),
        ("first player wins", f"{s.first_win_share:.1%}"),
        ("draws", f"{s.draw_share:.1%}"),
    ]
    if s.weighted:
        rows.append(("total match weight", f"{s.total_weight:g}"))
    if s.reference_agents:
        how = (
            "rated with the others (marked)"
            if s.reference_included
            else "their matches are left out; their record is shown apart"
        )
        rows.append(("reference players", f"{', '.join(s.reference_agents)} ({how})"))
    return (
        table(("quantity", "value"), rows, labels=2)
        + note(
            "Outcomes are for the first player of each match (1 win, 0.5 draw, 0 "
            "loss). Ratings use every match; the Nash game needs a win rate for "
            "every pair of players, so the pairs that never met are filled by the "
            "mElo model fitted on the matches."
        )
        + _reference_part(s.reference)
    )


def _reference_part(ref):
    if ref is None:
        return ""
    rows = [
        (
            ref.agents[k],
            ref.kinds[k],
            num(ref.matches[k], 0),
            num(ref.wins[k], 0),
            num(ref.draws[k], 0),
            num(ref.losses[k], 0),
            percent(ref.score_rate[k], 1),
        )
        for k in range(len(ref.agents))
    ]
    title = (
        "Reference players (rated with the others)"
        if ref.included
        else "Reference players (not rated)"
    )
    return (
        heading(title)
        + table(
            (
                "reference player",
                "kind",
                "matches",
                "wins",
                "draws",
                "losses",
                "score rate",
            ),
            rows,
            labels=2,
            key="reference",
        )
        + note(
            "Reference players anchor the scale (e.g. a human or a random "
            "baseline); by default their matches are left out of the analyses. "
            "Rate them with the others with --include-reference "
            "(include_reference=True)."
        )
    )


def ratings_section(page):
    r = page.input  # a RatingsInput
    order = np.lexsort((-r.scores, r.ranks))  # by rating within a tie
    rows = [
        (
            r.agents[k],
            rank_cell(r.ranks[k]),
            num(r.scores[k], 1),
            interval(r, k, 1),
            rank_range(r.rank_low[k], r.rank_high[k]),
            num(r.matches[k], 0),
            num(r.wins[k], 0),
            num(r.draws[k], 0),
            num(r.losses[k], 0),
            percent(r.score_rate[k], 1),
        )
        for k in order
    ]
    header = (
        "player",
        "rank",
        "rating",
        "interval",
        "rank interval",
        "matches",
        "wins",
        "draws",
        "losses",
        "score rate",
    )
    parts = []
    if r.intervals_failure is not None:
        parts.append(page.error("rating intervals", r.intervals_failure))
    parts.append(
        table(header, rows, tags=_ordered_tags(r.tags, order), key="ratings")
    )
    how = "No intervals (n_resamples=0). "
    result = r.intervals
    if result is not None:
        how = (
            f"Intervals: {result.confidence_level:.0%} {result.method} intervals "
            "of the ratings (ranking_intervals); rank intervals from "
            f"{result.n_samples} "
            + (
                "resamples. "
                if result.method == "percentile bootstrap"
                else "draws from their normal approximation. "
            )
            + (result.note + " " if result.note else "")
        )
    prior = r.prior_note
    if not prior.startswith("Some players"):
        prior = (
            f"L2 prior alpha={r.alpha:g}. "
            if r.alpha
            else "Maximum likelihood (no prior). "
        ) + prior
    prior += _extended_text(r.extras)
    parts.append(
        note(
            f"Bradley-Terry ratings ({r.model}) "
            "on the 400-point Elo scale (a 400-point gap is 10:1 odds), "
            "centred on 1500. "
            + how
            + prior
            + "Score rate = (wins + draws / 2) / matches."
        )
    )
    shown = min(len(r.agents), _MAX_BARS)
    caption = "Ratings with intervals"
    if shown < len(r.agents):
        caption += f" (best {shown} of {len(r.agents)})"
    parts.append(page.figure("ratings", caption))
    return "".join(parts)


def _extended_text(extras):
    """The fitted tie parameter, first-player advantage and covariates."""
    parts = []
    if extras.tie_param is not None:
        parts.append(f"tie parameter ({extras.ties}) {extras.tie_param:.3g}")
    if extras.first_advantage_se is not None:
        parts.append(
            f"first-player advantage {extras.first_advantage:.1f} "
            f"(standard error {extras.first_advantage_se:.1f})"
        )
    elif extras.first_advantage:
        parts.append(f"first-player advantage {extras.first_advantage:g} (given)")
    parts += [
        f"covariate {name}: {coef:.3g} per unit (standard error {se:.2g})"
        for name, coef, se in extras.covariates
    ]
    if not parts:
        return ""
    return "Fitted jointly with the ratings: " + "; ".join(parts) + ". "


def _ordered_tags(tags, order):
    return None if tags is None else [tags[k] for k in order]


def cyclic_section(page):
    melo = page.input  # a CyclicInput
    order = np.argsort(-melo.radius, kind="stable")
    rows = [
        (
            melo.agents[k],
            num(melo.transitive[k], 1),
            num(melo.coordinates[k, 0]),
            num(melo.coordinates[k, 1]),
            num(melo.radius[k]),
        )
        for k in order
    ]
    gain = melo.elo_log_loss - melo.log_loss
    return (
        paragraph(
            f"Multidimensional Elo (Balduzzi et al., 2018) with "
            f"{melo.n_components} cyclic plane(s): in-sample log-loss "
            f"{melo.log_loss:.4f} against {melo.elo_log_loss:.4f} for ratings "
            f"alone (same prior), a gain of {gain:.4f} nats per match. A point's "
            "distance from the origin is how much of its results one rating "
            "cannot explain; points turning anticlockwise beat those behind "
            "them."
        )
        + table(
            ("player", "transitive rating", "c1", "c2", "distance from 0"),
            rows,
            tags=_ordered_tags(melo.tags, order),
            key="cyclic",
        )
        + page.figure(
            "cyclic",
            "Players in the first cyclic plane of mElo (colour: transitive "
            "rating; arrows: the strongest cyclic wins)",
        )
    )


def nash_section(page):
    nash = page.input  # a NashGameInput
    order = np.lexsort((-nash.probability, -np.round(nash.skill, 9)))
    rows = [
        (
            nash.agents[k],
            num(nash.probability[k]),
            num(nash.skill[k]),
            num(nash.uniform[k]),
        )
        for k in order
    ]
    n = len(nash.agents)
    single = ""
    if len(nash.core) == 1:
        single = (
            "With a single core player the equilibrium is that player alone "
            "(nobody beats it on average) and the Nash ranking is the order of "
            "every player's results against it."
        )
    return (
        paragraph(
            f"The win-rate game of {n} players (log-odds of the empirical win "
            f"rates; {nash.n_filled_pairs} of {n * (n - 1) // 2} pairs never "
            "met and are filled by mElo) has value 0. Its maximum-entropy Nash "
            f"equilibrium plays {len(nash.core)} core player(s); a player's Nash "
            "average is its mean log-odds against that team (0 for the core, "
            "below 0 for the others; exploitability "
            f"{nash.exploitability:.1e})."
        )
        + table(
            ("player", "Nash probability", "Nash average", "uniform average"),
            rows,
            tags=_ordered_tags(nash.tags, order),
            key="nash",
        )
        + note("Uniform average: mean log-odds against every player. " + single)
        + page.figure(
            "nash",
            "Nash distribution over the players and Nash vs uniform averages",
        )
    )


def hodge_section(page):
    hodge = page.input  # a HodgeInput
    if hodge.zero:
        return note(
            "Every win rate is 0.5: the game is zero, with neither a transitive "
            "nor a cyclic part."
        )
    planes = [
        (f"cyclic plane {k + 1}", percent(share, 1))
        for k, share in enumerate(hodge.plane_shares)
    ]
    rows = [
        ("transitive (one rating per player)", percent(hodge.transitive, 1)),
        ("cyclic (rock-paper-scissors)", percent(hodge.cyclic, 1)),
        *planes,
    ]
    null = hodge.null
    verdict = ""
    if null is not None:
        rows.append(
            (
                "cyclic, expected from the ratings alone (mean of "
                f"{null.n_draws} simulated leagues)",
                percent(null.mean, 1),
            )
        )
        rows.append(
            (f"cyclic, {null.quantile:.0%} of simulated leagues below",
             percent(null.cutoff, 1))
        )
        verdict = (
            paragraph(
                f"The cyclic share, {hodge.cyclic:.1%}, is beyond what sampling "
                f"noise gives a transitive game on this schedule (at most "
                f"{null.cutoff:.1%} in {null.quantile:.0%} of the simulations; "
                f"p = {null.p_value:.3f}): the game is cyclic."
            )
            if hodge.beyond_noise
            else paragraph(
                f"The cyclic share, {hodge.cyclic:.1%}, is within what sampling "
                "noise alone gives a transitive game on this schedule (mean "
                f"{null.mean:.1%}, {null.quantile:.0%} of the simulations below "
                f"{null.cutoff:.1%}; p = {null.p_value:.3f}): no evidence that "
                "the game is cyclic."
            )
        )
    return (
        verdict
        + table(("part of the win-rate game", "share"), rows, key="hodge")
        + note(
            "Shares of the squared Frobenius norm of the log-odds game; the "
            "transitive and cyclic shares add up to 100%. A large cyclic share "
            "means no single rating orders the players: Elo-style ratings then "
            "depend on who played whom. With few matches per pair the win "
            "rates are noisy and noise is mostly cyclic, so the observed share "
            "is compared with the shares of leagues simulated from the fitted "
            "ratings (same matches, same weights, outcomes drawn from the "
            "model; the pairs that never met are filled by the model): a "
            "parametric bootstrap of the share expected without any cyclic "
            "structure."
        )
        + page.figure("hodge", "Transitive vs cyclic shares of the win-rate game")
    )


MATCH_SECTION_RENDERERS = {
    "summary": summary_section,
    "ratings": ratings_section,
    "cyclic": cyclic_section,
    "nash": nash_section,
    "hodge": hodge_section,
}


def match_degeneracies(analysis):
    """Degenerate findings of a match analysis, in page order."""
    found = []
    ratings, nash = analysis.ratings, analysis.nash
    if ratings is not None:
        found.append(
            tie_at_top(
                "ratings",
                "tie-ratings",
                "Bradley-Terry rating",
                ratings.ratings,
                ratings.players,
                RATING_TOL,
            )
        )
    if nash is not None:
        A = nash.model.payoff_
        if not np.any(np.abs(A) > GAME_TOL):
            found.append(
                Degeneracy(
                    "nash",
                    "players-equal",
                    "Every player wins half of its games against every other: "
                    "the equilibrium is uniform over all players and every Nash "
                    "average is 0.",
                )
            )
        else:
            found.append(
                support_copies(
                    "nash", "support-copies", A, nash.core, nash.players, "players"
                )
            )
    return [item for item in found if item is not None]
