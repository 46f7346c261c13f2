"""Which candidate the held-out scores support: the noise rule.

The candidate with the best mean held-out log-likelihood is the reference.
Another candidate is *within noise* of it when the paired difference of
their fold means is at most ``Z`` standard errors (the folds are shared, so
the difference is paired). Among the candidates within noise the simplest
(fewest parameters) is recommended: a more complex model has to earn its
parameters on held-out data. The advisor *cannot tell* when the data are too
few to rule out that a more complex candidate gains a practically relevant
``MIN_GAIN`` nats per vote or response over the one recommended.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = []

Z = 2.0
MIN_GAIN = 0.005
#: a candidate whose held-out score varies from fold to fold (its standard
#: error over the folds) more than ERRATIC times the steadiest candidate's is
#: *erratic*: its mean rests on a fold or two, so a comparison with it is
#: inconclusive, whatever its sign
ERRATIC = 10.0


def candidate_table(candidates, scores, n_params, estimators):
    """The candidates DataFrame and the name of the recommended one.

    ``scores`` maps names to fold means (the same folds for all).
    """
    names = [c.name for c in candidates if c.name in scores]
    order = {c.name: c.order for c in candidates}
    means = {n: float(np.mean(scores[n])) for n in names}
    best = max(names, key=lambda n: (means[n], -n_params[n]))
    cv = len(scores[best])
    records = []
    for name in names:
        diff = scores[best] - scores[name]
        diff_se = float(np.std(diff, ddof=1) / np.sqrt(cv)) if cv > 1 else np.nan
        records.append({
            "model": name,
            "estimator": estimators[name],
            "heldout_loglik": means[name],
            "heldout_se": float(np.std(scores[name], ddof=1) / np.sqrt(cv)),
            "diff_to_best": float(np.mean(diff)),
            "diff_se": diff_se,
            "n_parameters": int(n_params[name]),
            "within_noise": bool(np.mean(diff) <= Z * diff_se) or name == best,
        })
    table = pd.DataFrame.from_records(records).set_index("model")
    plausible = table.index[table["within_noise"]]
    chosen = min(plausible, key=lambda n: (n_params[n], order[n], -means[n]))
    table["recommended"] = table.index == chosen
    table = table.sort_values("heldout_loglik", ascending=False)
    return table, chosen, _cannot_tell(scores, chosen, plausible)


def _cannot_tell(scores, chosen, plausible):
    """Names of plausible candidates whose gain over ``chosen`` may matter."""
    cv = len(scores[chosen])
    unsure = []
    for name in plausible:
        if name == chosen:
            continue
        gain = scores[name] - scores[chosen]
        se = float(np.std(gain, ddof=1) / np.sqrt(cv))
        if float(np.mean(gain)) + Z * se > MIN_GAIN:
            unsure.append(name)
    return unsure


def erratic(table):
    """Names of the plausible candidates of ``table`` whose held-out score
    is erratic.

    Within noise of the best, and their standard error over the folds
    (``heldout_se``) is more than :data:`ERRATIC` times the smallest
    positive one of the table: the folds are shared, so models of the same
    data differ that much only when one of them breaks down on some fold (a
    log-density far below the others'). A candidate beyond noise is worse
    whatever its spread, and is worded so.
    """
    se = table["heldout_se"].to_numpy(dtype=float)
    positive = se[np.isfinite(se) & (se > 0)]
    if positive.size < 2:
        return []
    plausible = table["within_noise"].to_numpy(dtype=bool)
    return [name for name, value, near in zip(table.index, se, plausible,
                                              strict=True)
            if near and value > ERRATIC * positive.min()]
