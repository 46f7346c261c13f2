"""
Elo cannot see cycles: multidimensional Elo on AlphaGo variants
===============================================================

Balduzzi et al. (2018) fit Elo and multidimensional Elo (mElo) to the win
probabilities among eight AlphaGo variants and Zen (Silver et al., 2016,
Extended Data Table 9). Three of them form a cycle: alpha_v beats alpha_p,
alpha_p beats Zen, and Zen beats alpha_v. Elo, which is transitive by
construction, gets two of these three pairs wrong; mElo with one cyclic plane
gets all three right.

The matrix below is transcribed from the paper (it is not a shipped dataset).
"""

# %%
import numpy as np

from sklearn_eval.game import hodge_decomposition
from sklearn_eval.pairwise import EloRanker, MultiElo
from sklearn_eval.plotting import CyclicEmbeddingDisplay
from sklearn_eval.utils import win_probability_to_matches

players = np.array(["alpha_rvp", "alpha_vp", "alpha_rp", "alpha_rv", "alpha_r",
                    "alpha_v", "alpha_p", "zen"])
P = np.array([
    [0.50, 0.99, 0.95, 1.00, 1.00, 1.00, 1.00, 0.99],
    [0.01, 0.50, 0.39, 0.65, 0.94, 1.00, 0.99, 0.84],
    [0.05, 0.61, 0.50, 0.87, 1.00, 1.00, 0.96, 0.98],
    [0.00, 0.35, 0.13, 0.50, 1.00, 0.71, 0.52, 0.92],
    [0.00, 0.06, 0.00, 0.00, 0.50, 0.22, 0.22, 0.06],
    [0.00, 0.00, 0.00, 0.29, 0.78, 0.50, 0.70, 0.40],
    [0.00, 0.01, 0.04, 0.48, 0.78, 0.30, 0.50, 1.00],
    [0.01, 0.16, 0.02, 0.08, 0.94, 0.60, 0.00, 0.50],
])

# %%
# Every pair counts equally: each probability becomes one weighted win and one
# weighted loss.
X, y, w = win_probability_to_matches(P, players)
elo = EloRanker(method="batch").fit(X, y, sample_weight=w)
melo = MultiElo(n_components=1, method="batch", random_state=0).fit(
    X, y, sample_weight=w)

pairs = [["alpha_v", "alpha_p"], ["alpha_p", "zen"], ["zen", "alpha_v"]]
truth = [P[5, 6], P[6, 7], P[7, 5]]
for pair, p, pe, pm in zip(pairs, truth, elo.predict_proba(pairs)[:, 1],
                           melo.predict_proba(pairs)[:, 1], strict=True):
    print(f"P({pair[0]} beats {pair[1]}): observed {p:.2f}, "
          f"Elo {pe:.2f}, mElo {pm:.2f}")

# %%
# How cyclic is the game? The Hodge decomposition of the logit matrix splits
# it into a transitive part (a rating) and a cyclic part.
logits = np.log(np.clip(P, 1e-3, 1 - 1e-3) / np.clip(1 - P, 1e-3, 1 - 1e-3))
hodge = hodge_decomposition(logits)
print(f"transitive share {hodge.transitive_share:.2f}, "
      f"cyclic share {hodge.cyclic_share:.2f}")

# %%
# The cyclic plane learned by mElo: a player's angle encodes whom it beats.
CyclicEmbeddingDisplay.from_estimator(melo)
