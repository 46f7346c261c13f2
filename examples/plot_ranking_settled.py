"""
Is the Chatbot Arena ranking settled? Rank sets, tiers, votes and sampling
==========================================================================

1.67 million votes between 129 chat models (Chatbot Arena up to 2024-08-14).
A leaderboard prints 129 distinct ranks; how many of them do the votes
support? This example builds simultaneous 95% rank sets and tiers
(Mogstad et al., 2024), compares clustered and unclustered uncertainty,
asks how many more votes the closest neighbours need, and compares active
with uniform sampling of new votes on a simulated league shaped like the
arena's top 16.
"""

# %%
# Rank sets and tiers
# -------------------
# The batch Bradley-Terry fit (ties as half a win) with its sandwich
# covariance; votes are frequency weights. The simultaneous sets hold for
# all 129 models at once.
import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit

from sklearn_eval.datasets import load_chatbot_arena
from sklearn_eval.pairwise import ActiveSampler, EloRanker
from sklearn_eval.uncertainty import rank_sets, votes_to_separate

arena = load_chatbot_arena()
X, y, votes = arena.data, arena.target, arena.sample_weight
sets = rank_sets(EloRanker(method="batch"), X, y, sample_weight=votes,
                 frequency_weights=True, random_state=0)
table = sets.to_frame()
print(table.head(15).to_string())
print(f"{table['tier'].max()} tiers for {len(table)} models; "
      f"{(table['rank_low'] == table['rank_high']).sum()} models have a single "
      f"possible rank; top set: {sets.top_set(1).tolist()}")

# %%
# The rank sets of the top 40, with tiers in alternating shades.
top = table.head(40)
fig, ax = plt.subplots(figsize=(7, 8))
shade = np.where(top["tier"] % 2 == 1, "tab:blue", "tab:orange")
positions = np.arange(len(top))
ax.hlines(positions, top["rank_low"], top["rank_high"], colors=shade, lw=4)
ax.plot(top["rank"], positions, "k|")
ax.set_yticks(positions, top.index, fontsize=6)
ax.invert_yaxis()
ax.set_xlabel("rank set (simultaneous 95%)")
fig.tight_layout()

# %%
# Adjacent pairs: which neighbours are separated?
adjacent = sets.adjacent()
print(f"{adjacent['separated'].sum()} of {len(adjacent)} adjacent pairs are "
      "separated at 95% (simultaneously)")

# %%
# Clustered versus unclustered
# ----------------------------
# The shipped votes carry no prompt labels, so the finest honest cluster
# available is the pair of models: votes on one pair share whatever drew
# those two models together (the period, the prompt mix). Clustering by
# pair is conservative; with prompt labels, give one label per vote.
pair = np.unique(np.sort(X.astype(str), axis=1), axis=0, return_inverse=True)[1]
clustered = rank_sets(EloRanker(method="batch"), X, y, sample_weight=votes,
                      frequency_weights=True, groups=pair.ravel(),
                      random_state=0)
both = clustered.to_frame()
print("mean rank-set width, votes independent:",
      round(float((table["rank_high"] - table["rank_low"]).mean()), 1),
      "; clustered by pair:",
      round(float((both["rank_high"] - both["rank_low"]).mean()), 1),
      f"; tiers {table['tier'].max()} vs {both['tier'].max()}")

# %%
# Votes needed for the closest neighbours at the top
# --------------------------------------------------
# How many more head-to-head votes would separate each of the five closest
# adjacent pairs among the top 20, if the current estimates are right?
head = adjacent.iloc[:19].nsmallest(5, "difference")
for row in head.itertuples():
    more = votes_to_separate(EloRanker(method="batch"), X, y, row.agent_a,
                             row.agent_b, sample_weight=votes,
                             frequency_weights=True)
    print(f"{row.agent_a} vs {row.agent_b}: {row.difference:.1f} Elo apart, "
          f"{more:,.0f} more votes")

# %%
# Active versus uniform sampling
# ------------------------------
# A simulated league with the arena's 16 best ratings as the truth: each
# round adds 200 votes, chosen by the sampler or uniformly over the pairs,
# until one model alone can be first (at 95%) or 30,000 votes are spent.
truth = table["score"].to_numpy()[:16]
rng = np.random.default_rng(0)


def vote(pairs):
    p = expit((truth[pairs[:, 0]] - truth[pairs[:, 1]]) * np.log(10) / 400)
    return (rng.random(len(pairs)) < p).astype(float)


first, second = np.triu_indices(16, k=1)
start = np.repeat(np.column_stack([first, second]), 3, axis=0)
start_votes = vote(start)
spent = {}
for strategy in ("top-k", "uniform"):
    sampler = ActiveSampler(strategy=strategy, random_state=0)
    sampler.fit(start, start_votes)
    while not sampler.is_settled("top-1") and sampler.n_votes_ < 30_000:
        pairs = sampler.next_pairs(200).astype(int)
        sampler.partial_fit(pairs, vote(pairs))
    spent[strategy] = sampler.n_votes_
    print(f"{strategy}: {sampler.n_votes_:,.0f} votes, top set "
          f"{sampler.agents_[sampler.rank_low_ == 1].tolist()}")
