"""Starting values of the IRT2PL EM: moment estimates and jittered restarts."""

import numpy as np


def _starting_points(data, model, n_init, rng):
    """Yield ``n_init`` starting points ``(a, b, warm_up_prior)``.

    1. a from the item-total correlation, b from the marginal logit;
    2. a = 1, b = -logit(p), first run under a N(1, 2) prior on a (a
       continuation that lets steep items grow together), then without;
    3+. the first start with log-normal jitter on a and normal jitter on b.
    """
    a0, b0, p = _initial_items(data, model)
    yield a0, b0, None
    if n_init >= 2:
        yield np.ones_like(a0), np.clip(-np.log(p / (1.0 - p)), -10, 10), (1.0, 2.0)
    for _ in range(n_init - 2):
        a = a0 * np.exp(rng.normal(0.0, 0.5, a0.shape)) if model == "2PL" else a0
        yield a, b0 + rng.normal(0.0, 0.5, b0.shape), None


def _initial_items(data, model):
    """Starting values: item-total correlation for a, marginal logit for b."""
    J = data.n_items
    successes, observed = data.item_counts()
    row_successes, row_observed = data.row_sums()
    total = row_successes / np.maximum(row_observed, 1)
    p = (successes + 0.5) / (observed + 1.0)
    if model == "2PL":
        corr = _item_total_correlation(data, total)
        a = np.clip(1.7 * corr / np.sqrt(np.maximum(1.0 - corr**2, 1e-3)), -2.5, 2.5)
        a = np.where(np.abs(a) < 0.2, np.where(a < 0, -0.2, 0.2), a)
    else:
        a = np.ones(J)
    intercept = np.log(p / (1.0 - p)) * np.sqrt(1.0 + np.pi * a * a / 8.0)
    b = np.clip(-intercept / a, -10.0, 10.0)
    return a, b, p


def _item_total_correlation(data, total):
    # n, sum x, sum t, sum xt, sum t^2 (over observed responses)
    n, sx, st, sxt, stt = data.item_moments(total)
    n = np.maximum(n, 1.0)
    cov = sxt / n - sx / n * st / n
    var_x = sx / n * (1 - sx / n)
    var_t = stt / n - (st / n) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.sqrt(var_x * var_t)
    return np.nan_to_num(corr, nan=0.0)
