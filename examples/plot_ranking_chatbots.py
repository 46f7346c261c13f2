"""
Ranking chatbots: ties, style control, intervals and cycles on Chatbot Arena
============================================================================

1.67 million human votes between 129 chat models (Chatbot Arena up to
2024-08-14, shipped as counts per pair of models). A third of the votes are
ties ("tie" or "tie, both bad"). This example fits the arena as it is ranked
today -- Bradley-Terry with ties as half a win -- and then with a tie model
(Davidson), compares them out of sample, adds intervals, controls for answer
style on simulated style covariates (the shipped votes carry none), and looks
at what a single rating per model misses: the Nash averaging of the arena's
win-rate game and MultiElo's cyclic part.
"""

# %%
# The votes as weighted match rows
# --------------------------------
# One row per pair of models and kind of vote, weighted by the number of
# votes; the batch fit aggregates them per pair, so it costs O(pairs), not
# O(votes).
import matplotlib.pyplot as plt
import numpy as np

from sklearn_eval.datasets import load_chatbot_arena
from sklearn_eval.game import NashAverager, fill_win_rates, hodge_decomposition
from sklearn_eval.metrics import match_log_loss
from sklearn_eval.pairwise import EloRanker, MultiElo, bradley_terry_intervals

arena = load_chatbot_arena()
X, y, votes = arena.data, arena.target, arena.sample_weight
print(f"{len(arena.players)} models, {arena.n_votes:,} votes in {len(y):,} rows; "
      f"ties: {votes[y == 0.5].sum() / votes.sum():.1%}")

# %%
# Ties as an outcome of their own
# -------------------------------
# Davidson's model gives a tie the probability ``nu / (e^(d/2) + nu +
# e^(-d/2))``: ties are most likely between equal models. The tie parameter is
# learned with the ratings.
half = EloRanker(method="batch").fit(X, y, sample_weight=votes)
davidson = EloRanker(method="batch", ties="davidson").fit(X, y, sample_weight=votes)
print(f"Davidson's nu = {davidson.tie_param_:.3f}; classes_ = "
      f"{davidson.classes_.tolist()} (second model wins, tie, first wins)")
top = davidson.agent_table().head(8)
top["rating, ties as half wins"] = half.agent_table()["score"].reindex(top.index)
print(top.round(1))

# %%
# Which model predicts held-out votes better? Split every pair's votes at
# random in two halves, fit on one and score the other with the three-outcome
# log-loss (``score``, the same quantity for every ``ties`` setting).
# Bradley-Terry (``ties="half"``) has no tie probability of its own: it
# predicts the training tie rate.
rng = np.random.default_rng(0)
train_votes = rng.binomial(votes.astype(np.int64), 0.5).astype(float)
test_votes = votes - train_votes
fit_rows, test_rows = train_votes > 0, test_votes > 0


def held_out(estimator):
    estimator.fit(X[fit_rows], y[fit_rows], sample_weight=train_votes[fit_rows])
    return -estimator.score(X[test_rows], y[test_rows],
                            sample_weight=test_votes[test_rows])


bt_loss = held_out(EloRanker(method="batch"))
print(f"held-out log-loss per vote: Bradley-Terry + tie rate {bt_loss:.4f}, "
      f"Davidson {held_out(EloRanker(method='batch', ties='davidson')):.4f}, "
      f"Rao-Kupper {held_out(EloRanker(method='batch', ties='rao-kupper')):.4f}")

# %%
# Intervals
# ---------
# The weights are vote counts: ``frequency_weights=True`` makes the sandwich
# (and the bootstrap) count votes, not rows.
intervals = bradley_terry_intervals(
    EloRanker(method="batch", ties="davidson"), X, y, votes,
    frequency_weights=True, random_state=0,
)
order = np.argsort(-intervals.estimate)[:25]
fig, ax = plt.subplots(figsize=(7, 6))
ax.errorbar(intervals.estimate[order], np.arange(25)[::-1],
            xerr=[intervals.estimate[order] - intervals.low[order],
                  intervals.high[order] - intervals.estimate[order]],
            fmt="o", capsize=2)
ax.set_yticks(np.arange(25)[::-1], intervals.labels[order], fontsize=7)
ax.set_xlabel("Davidson rating (Elo points), 95% sandwich interval")
ax.set_title("Chatbot Arena, top 25")
fig.tight_layout()
print("rank intervals of the top 5:",
      [(str(m), int(lo), int(hi)) for m, lo, hi in zip(
          intervals.labels[order[:5]], intervals.rank_low[order[:5]],
          intervals.rank_high[order[:5]], strict=True)])

# %%
# Style control on simulated covariates
# -------------------------------------
# LMArena controls its ratings for style: longer answers and more markdown win
# votes whatever the model. The shipped votes have no style features, so we
# simulate votes among the top 20 models from the Davidson fit, where the
# first five models write much longer answers and a length advantage of one
# unit is worth 60 Elo points. Numeric columns after the two players are
# covariates, fitted jointly with the ratings.
names = davidson.agent_table().index[:20].to_numpy()
truth = davidson.agent_table()["score"].iloc[:20].to_numpy() / (400 / np.log(10))
verbose = np.isin(np.arange(20), np.arange(5))
n = 100_000
first, second = rng.integers(0, 20, n), rng.integers(0, 19, n)
second += second >= first
length = (rng.normal(0, 0.5, n) + 1.5 * verbose[first]) - (
    rng.normal(0, 0.5, n) + 1.5 * verbose[second])
d = truth[first] - truth[second] + 60 / (400 / np.log(10)) * length
nu = davidson.tie_param_
p_win = np.exp(d / 2) / (np.exp(d / 2) + nu + np.exp(-d / 2))
p_tie = nu / (np.exp(d / 2) + nu + np.exp(-d / 2))
u = rng.uniform(size=n)
y_sim = np.where(u < p_win, 1.0, np.where(u < p_win + p_tie, 0.5, 0.0))
X_sim = np.column_stack([names[first], names[second], length])

raw = EloRanker(method="batch", ties="davidson").fit(X_sim[:, :2], y_sim)
styled = EloRanker(method="batch", ties="davidson").fit(X_sim, y_sim)
print(f"length coefficient {styled.covariate_coef_[0]:.1f} "
      f"+- {styled.covariate_se_[0]:.1f} Elo per unit (truth 60)")
true_gap = (truth - truth.mean()) * 400 / np.log(10)
for label, est in (("without style control", raw), ("with style control", styled)):
    table = est.agent_table().reindex(names)
    error = table["score"].to_numpy() - table["score"].mean() - true_gap
    print(f"{label}: verbose models off by {error[verbose].mean():+.0f} Elo, "
          f"the others by {error[~verbose].mean():+.0f}")

# %%
# What one rating per model misses
# --------------------------------
# The arena's win-rate game: the empirical expected score of every pair (a tie
# counting half) where at least 50 votes were cast, and MultiElo's prediction
# (ratings plus one cyclic plane per model) elsewhere. Its log-odds split into
# a transitive part (what one rating per model can express) and a cyclic part.
P, players, filled = fill_win_rates(X, y, votes, min_count=50)
logits = np.log(np.clip(P, 1e-3, 1 - 1e-3) / np.clip(1 - P, 1e-3, 1 - 1e-3))
hodge = hodge_decomposition(logits)
print(f"{filled.mean():.0%} of the pairs filled by MultiElo; transitive share of "
      f"the log-odds {hodge.transitive_share:.3f}, cyclic {hodge.cyclic_share:.3f}")

# %%
# Nash averaging ranks models by the maximum-entropy Nash equilibrium of that
# game: its support is the set of models that no mixture of others beats on
# average. A tie model's own game is transitive by construction (its
# equilibrium is its top model); the arena's is not exactly.
nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(P)
support = nash.agent_distribution_ > 1e-6
print("Nash support:", dict(zip(players[support].tolist(),
                                nash.agent_distribution_[support].round(3).tolist(),
                                strict=True)))
table = nash.agent_table()
table.index = players[table.index]
print(table.head(5).round(3))

# %%
# MultiElo fitted to all the votes barely improves the likelihood of the
# votes over Elo (ties as half wins in both): the cyclic part is real but
# small next to the spread of ratings.
melo = MultiElo(n_components=1, method="batch", random_state=0).fit(
    X, y, sample_weight=votes)
elo_fit = -match_log_loss(y, half.predict_proba(X), sample_weight=votes)
print(f"log-likelihood per vote: Elo {elo_fit:.5f}, "
      f"MultiElo {melo.score(X, y, votes):.5f}")
plt.show()
