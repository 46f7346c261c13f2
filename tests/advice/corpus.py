"""Seeded synthetic data with a known generating model, for the advisor.

Matches: Bradley-Terry (Bradley and Terry, 1952), Davidson's ties (Davidson,
1970), a first-player advantage, and multidimensional Elo with k cyclic
planes (Balduzzi et al., 2018, section 3.1). Items: the 1PL, 2PL and 3PL
(Birnbaum, 1968). Agents x tasks: scores with duplicated tasks, which Nash
averaging neutralises (Balduzzi et al., 2018, section 4).
"""

import numpy as np

from sklearn_eval.datasets import make_agent_task_scores


def _pairs(rng, n_players, n_votes):
    first = rng.integers(n_players, size=n_votes)
    second = (first + rng.integers(1, n_players, size=n_votes)) % n_players
    return first, second


def _labels(first, second):
    return np.column_stack([[f"p{a:02d}" for a in first],
                            [f"p{b:02d}" for b in second]]).astype(object)


def matches(kind, seed, n_players=12, n_votes=5000):
    """``(X, y)`` from the model ``kind``; see the module docstring."""
    rng = np.random.default_rng(seed)
    r = rng.normal(0, 1.0, n_players)
    first, second = _pairs(rng, n_players, n_votes)
    d = r[first] - r[second]
    if kind == "advantage":
        d = d + 0.5
    if kind.startswith("cyclic"):
        k = int(kind[-1])
        C = rng.normal(0, 1.2, (n_players, 2 * k))
        omega = np.zeros((2 * k, 2 * k))
        for p in range(k):
            omega[2 * p, 2 * p + 1], omega[2 * p + 1, 2 * p] = 1.0, -1.0
        d = d + np.einsum("ni,ij,nj->n", C[first], omega, C[second])
    if kind == "davidson":
        nu = 0.8
        weights = np.column_stack([np.exp(-d / 2), np.full(d.size, nu), np.exp(d / 2)])
        p = weights / weights.sum(axis=1, keepdims=True)
        u = rng.random(d.size)[:, None]
        y = np.array([0.0, 0.5, 1.0])[(u > np.cumsum(p, axis=1)).sum(axis=1)]
    else:
        y = (rng.random(d.size) < 1 / (1 + np.exp(-d))).astype(float)
    return _labels(first, second), y


def items(model, seed, n_agents=3000, n_items=30):
    """0/1 responses from the 1PL, 2PL or 3PL."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    b = rng.normal(size=n_items)
    a = np.ones(n_items) if model == "1PL" else np.exp(rng.normal(0, 0.5, n_items))
    g = rng.uniform(0.15, 0.3, n_items) if model == "3PL" else np.zeros(n_items)
    p = g + (1 - g) / (1 + np.exp(-a * (theta[:, None] - b)))
    return (rng.random(p.shape) < p).astype(float)


def duplicated_tasks(seed, n_agents=30, n_tasks=20, copies=3, n_copied=4):
    """Agents x tasks scores where a few tasks appear ``copies`` times."""
    scores = make_agent_task_scores(n_agents, n_tasks, random_state=seed)
    rng = np.random.default_rng(seed)
    copied = rng.choice(n_tasks, n_copied, replace=False)
    extra = np.repeat(scores[:, copied], copies - 1, axis=1)
    return np.hstack([scores, extra])


def _category_probabilities(model, a, b, theta):
    """``(n, J, K)`` probabilities of the graded response model (Samejima,
    1969) or the generalized partial credit model (Muraki, 1992)."""
    z = a[None, :, None] * (theta[:, None, None] - b[None])
    if model == "GRM":
        star = 1.0 / (1.0 + np.exp(-z))
        ones = np.ones(star.shape[:2] + (1,))
        return (np.concatenate([ones, star], axis=2)
                - np.concatenate([star, 0.0 * ones], axis=2))
    cumulative = np.concatenate([np.zeros(z.shape[:2] + (1,)),
                                 np.cumsum(z, axis=2)], axis=2)
    cumulative -= cumulative.max(axis=2, keepdims=True)
    p = np.exp(cumulative)
    return p / p.sum(axis=2, keepdims=True)


def graded(model, seed, n_agents=2000, n_items=20, n_categories=4):
    """Integer categories ``0..n_categories - 1`` from the GRM or the GPCM."""
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0.2, 0.3, n_items)
    b = rng.normal(0.0, 1.0, (n_items, n_categories - 1))
    if model == "GRM":
        b = np.sort(b, axis=1)
    theta = rng.normal(size=n_agents)
    P = _category_probabilities(model, a, b, theta)
    u = rng.random((n_agents, n_items, 1))
    return (u > np.cumsum(P, axis=2)[..., :-1]).sum(axis=2).astype(float)


def two_factor_items(seed, n_agents=2000, n_items=20, corr=0.3):
    """0/1 responses from a 2-factor 2PL: half the items load on each factor
    (simple structure with small cross-loadings, correlated factors)."""
    rng = np.random.default_rng(seed)
    loadings = np.zeros((n_items, 2))
    main = np.arange(n_items) % 2
    loadings[np.arange(n_items), main] = rng.uniform(0.8, 2.0, n_items)
    loadings[np.arange(n_items), 1 - main] = rng.uniform(-0.2, 0.4, n_items)
    chol = np.linalg.cholesky(np.array([[1.0, corr], [corr, 1.0]]))
    intercept = rng.normal(0.0, 1.0, n_items)
    theta = rng.standard_normal((n_agents, 2)) @ chol.T
    p = 1.0 / (1.0 + np.exp(-(theta @ loadings.T + intercept)))
    return (rng.random(p.shape) < p).astype(float)


def continuous(model, seed, n_agents=1000, n_items=20):
    """Scores in (0, 1) from the beta (Noel and Dauvier, 2007) or the
    logit-normal item response model: ``mu = expit(a (theta - b))``."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_agents)
    a = rng.uniform(0.5, 2.0, n_items)
    b = rng.normal(size=n_items)
    z = a * (theta[:, None] - b)
    if model == "beta":
        phi = rng.uniform(5.0, 50.0, n_items)
        mu = 1.0 / (1.0 + np.exp(-z))
        X = rng.beta(mu * phi, (1.0 - mu) * phi)
    else:
        sigma = rng.uniform(0.3, 1.0, n_items)
        X = 1.0 / (1.0 + np.exp(-(z + sigma * rng.normal(size=z.shape))))
    return np.clip(X, 1e-9, 1.0 - 1e-9)
