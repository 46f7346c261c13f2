"""The advisor's explanation: what was chosen and the facts that decided it."""

from __future__ import annotations

import numpy as np

from ._choice import ERRATIC, erratic

__all__ = []


def _diag(advice, check):
    table = advice.diagnostics
    if check not in table.index:
        return None
    return table.loc[check]


def complexity(n_other, n_chosen):
    """How a candidate with ``n_other`` parameters compares with the chosen
    one's ``n_chosen``: ``"simpler"``, ``"as simple"`` or ``"more complex"``."""
    if n_other < n_chosen:
        return "simpler"
    return "as simple" if n_other == n_chosen else "more complex"


def reasons(advice, result, units):
    """Plain sentences with numbers (see :meth:`Advice.explain`)."""
    out = [f"Recommended: {advice.recommendation!r}."]
    out.extend(_excluded(result))
    if result["kind"] == "game":
        out.append(f"The square game's cyclic share is {result['cyclic']:.1%}"
                   + (" and some agents nearly duplicate others"
                      if result["redundant"] else "") + ".")
        out.append(result["note"][:1].upper() + result["note"][1:] + ".")
        return out + _agreement(advice, result)
    table = advice.candidates
    unit = units[result["unit"]]
    chosen = table.index[table["recommended"]][0]
    row = table.loc[chosen]
    cv_words = f"held-out log-likelihood {unit} (folds over {result['split']})"
    out.append(f"{chosen} scores {row['heldout_loglik']:.4f} ± "
               f"{row['heldout_se']:.4f} {cv_words}.")
    n_chosen = row["n_parameters"]
    shaky = erratic(table)
    simpler = table[(table["n_parameters"] <= n_chosen) & (table.index != chosen)]
    best = table.index[0]
    if len(simpler):
        name = simpler["heldout_loglik"].idxmax()
        if name not in shaky and not (name == best and best != chosen):
            out.append(_rival(table, chosen, name, unit))
    if best != chosen and best not in shaky:
        ahead = (f"by only {row['diff_to_best']:.4f} ± {row['diff_se']:.4f}, "
                 "within noise")
        if complexity(table.loc[best, "n_parameters"], n_chosen) == "more complex":
            out.append(f"The more complex {best} is ahead {ahead}, so the "
                       "simpler model is kept.")
        else:
            out.append(f"{best}, as simple ({n_chosen} parameters each), is "
                       f"ahead {ahead}; of candidates with as many parameters the "
                       "first listed is kept.")
    if shaky:
        out.append(_inconclusive(table, shaky, unit))
    out.extend(_kind_facts(advice, result))
    if advice.cannot_tell:
        out.append(_cannot_tell(table, result["unsure"], n_chosen))
    return out + _agreement(advice, result)


def _rival(table, chosen, name, unit):
    """The chosen model against its best rival with at most as many
    parameters, worded by the sign of the gap."""
    n_chosen = table.loc[chosen, "n_parameters"]
    gain = table.loc[chosen, "heldout_loglik"] - table.loc[name, "heldout_loglik"]
    noise = "within" if table.loc[name, "within_noise"] else "beyond"
    words = complexity(table.loc[name, "n_parameters"], n_chosen)
    if gain >= 0:
        rival = f"the simpler {name}" if words == "simpler" else f"{name}, as simple,"
        return f"It beats {rival} by {gain:.4f} {unit}, {noise} noise."
    rival = f"The simpler {name}" if words == "simpler" else f"{name}, as simple,"
    kept = ("; of candidates with as many parameters the first listed is kept"
            if words == "as simple" else "")
    return (f"{rival} is ahead of it by {-gain:.4f} {unit} on average, {noise} "
            f"noise of the best{kept}.")


def _inconclusive(table, shaky, unit):
    """The sentence on candidates whose held-out score swings from fold to
    fold (see :func:`~._choice.erratic`)."""
    steady = table["heldout_se"].drop(shaky)
    steadiest = steady.idxmin() if len(steady) else None
    parts = [f"{name} ({table.loc[name, 'heldout_loglik']:.4f} ± "
             f"{table.loc[name, 'heldout_se']:.4f} {unit})" for name in shaky]
    against = ("" if steadiest is None else
               f", more than {ERRATIC:.0f} times the spread of {steadiest}'s "
               f"(± {table.loc[steadiest, 'heldout_se']:.4f})")
    one = len(shaky) == 1
    return (f"The comparison with {' and '.join(parts)} is inconclusive: "
            + ("its held-out score swings" if one else "their held-out scores swing")
            + f" from fold to fold{against}, so "
            + ("its mean rests" if one else "their means rest")
            + f" on a fold or two and rank{'s' if one else ''} nothing.")


def _cannot_tell(table, unsure, n_chosen):
    """The "cannot tell" sentence, each rival counted by its parameters."""
    groups = {}
    for name in unsure:
        words = complexity(table.loc[name, "n_parameters"], n_chosen)
        groups.setdefault(words, []).append(name)
    rivals = " and ".join(
        f"{len(names)} {words} candidate(s) ({'; '.join(names)})"
        for words, names in sorted(groups.items()))
    kept = "the simplest plausible model is recommended"
    if "as simple" in groups:
        kept += (" (equal parameter counts go to the candidate listed first, "
                 "then to the better held-out score)")
    return (f"Cannot tell: the data are too few to rule out that one of {rivals} "
            f"within noise fits better; {kept}.")


def _kind_facts(advice, result):
    facts = []
    if result["kind"] == "matches":
        for check in ("draw rate", "first-player advantage", "intransitivity"):
            row = _diag(advice, check)
            if row is not None and row["verdict"] != "n/a":
                facts.append(f"{check[:1].upper() + check[1:]}: {row['value']} "
                             f"({row['verdict']}).")
        return facts
    if result.get("redundant"):
        nash = any(name.startswith("NashAverager")
                   for name in result.get("excluded", {}))
        facts.append("Near-duplicate tasks would count twice in an average: Nash "
                     "averaging gives them no extra weight"
                     + (", once the data are complete." if nash else "."))
    row = _diag(advice, "guessing floor")
    if row is not None:
        facts.append(f"Guessing floor: {row['value']} ({row['verdict']}).")
    return facts


def _excluded(result):
    """Estimators passed over because they cannot take the data, and why."""
    return [f"Not recommended: {name}, which cannot take these data "
            f"({_plain(why).rstrip('.')})."
            for name, why in result.get("excluded", {}).items()]


def _plain(why):
    """An estimator's reason in the advice's words: a missing result is
    "missing", never "NaN" (the advice text holds no "nan")."""
    return why.replace(" (NaN)", "").replace("NaN", "missing")


def _first_sentence(text):
    head, dot, _ = _plain(text).partition(". ")
    return head if dot else _plain(text).rstrip(".")


def _left_out(result):
    """The methods missing from the agreement because they could not be
    fitted on the data, with the first sentence of each reason."""
    left = result.get("left_out", {})
    return "; ".join(f"{name} ({_first_sentence(why)})" for name, why in left.items())


def _agreement(advice, result=None):
    """The agreement sentence; never a NaN tau nor a method's tau with itself."""
    left = _left_out(result or {})
    if advice.agreement is None:
        return ([f"The methods' rankings could not be compared: too few could be "
                 f"fitted on these data (left out: {left})."] if left else [])
    return _tau_sentence(advice) + (
        [f"Left out of the comparison of rankings: {left}."] if left else [])


def _tau_sentence(advice):
    tau = advice.agreement.min_tau
    flat = advice.agreement.without_order
    if not np.isfinite(tau):
        return [f"The plausible methods' rankings cannot be compared: "
                f"{_names(flat)} order{'s' if len(flat) == 1 else ''} no agent "
                "(every score equal)."]
    out = f"The plausible methods' rankings agree with Kendall tau >= {tau:.2f}"
    if flat:
        one = len(flat) == 1
        out += (f" ({_names(flat)} order{'s' if one else ''} no agent and "
                f"{'is' if one else 'are'} left out)")
    movers = advice.agreement.movers
    spread = movers["rank_spread"].iloc[0]
    if not spread > 0:
        return [out + "; no agent changes rank between them."]
    return [out + f"; {movers.index[0]} moves most ({spread:.0f} places)."]


def _names(names):
    """``a, b and c``; with ``;`` between names that hold a comma themselves
    ("Bradley-Terry, first-player advantage")."""
    if len(names) == 1:
        return names[0]
    separator = "; " if any("," in name for name in names) else ", "
    return separator.join(names[:-1]) + " and " + names[-1]
