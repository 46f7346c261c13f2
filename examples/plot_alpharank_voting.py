"""
Nash averaging, alpha-Rank and voting side by side
==================================================

Three answers to "who is best?" when results are cyclic or tasks disagree:
the maximum-entropy Nash equilibrium (who a careful opponent must worry
about), alpha-Rank (who survives an evolutionary process) and voting (which
ranking the tasks agree with most). On OpenSpiel's MuJoCo soccer matrix and
on the Agent57 Atari table they agree on who is out of contention and differ,
for stated reasons, at the top.
"""

# %%
import numpy as np
import pandas as pd

from sklearn_eval.datasets import load_atari, load_soccer
from sklearn_eval.game import AlphaRank, NashAverager, VotingRanker
from sklearn_eval.plotting import AlphaRankSweepDisplay, VotingDisplay

soccer = load_soccer(as_frame=True).data  # P[i, j] = P(i beats j)

# %%
# Soccer: one population. Voting treats every opponent as a voter that ranks
# the agents by their win probability against it.
nash = NashAverager(game="agent_vs_agent", payoff="probability").fit(soccer)
alpha = AlphaRank(game="agent_vs_agent").fit(soccer)  # alpha="auto": sweeps
table = pd.DataFrame(
    {
        "nash_p": nash.agent_distribution_,
        "alpha_rank": alpha.agent_distribution_,
        "win_rate": soccer.to_numpy().mean(axis=1),
    },
    index=soccer.index,
)
for method in ("kemeny_young", "borda", "sco", "maximal_lotteries"):
    table[method] = VotingRanker(method=method).fit(soccer).agent_table()["rank"]
print(table.sort_values("alpha_rank", ascending=False).round(3))
print("response-graph sink:", soccer.index[alpha.sink_components_[0]].tolist())
print(f"alpha settled at {alpha.alpha_:.3g} after {alpha.alphas_.size} doublings")

# %%
# The sweep: at small alpha every agent keeps about 1/10 of the mass; as
# alpha grows the mass moves into the sink component and settles (the dashed
# line is where alpha="auto" stopped, the dots the exact infinite-alpha limit).
AlphaRankSweepDisplay.from_estimator(alpha)

# %%
# Atari (Agent57 table with the human and random references): agents against
# games. Nash and alpha-Rank need comparable scales (min-max per game); voting
# only uses each game's order.
atari = load_atari("agent57", as_frame=True)
scores = pd.DataFrame(
    np.vstack([atari.human_scores, atari.random_scores, atari.data.to_numpy()]),
    index=["human", "random", *atari.agent_names],
    columns=atari.data.columns,
)
nash = NashAverager(normalize="minmax").fit(scores)
alpha = AlphaRank(game="agent_vs_task", normalize="minmax").fit(scores)
kemeny = VotingRanker().fit(scores)
table = pd.DataFrame(
    {
        "nash_p": nash.agent_distribution_,
        "alpha_rank": alpha.agent_distribution_,
        "kemeny": kemeny.agent_table()["rank"],
        "plurality": VotingRanker(method="plurality").fit(scores)
        .agent_table()["rank"],
        "sco": VotingRanker(method="sco").fit(scores).agent_table()["rank"],
    },
    index=scores.index,
)
print(table.sort_values("alpha_rank", ascending=False).round(3))
print("Condorcet winner:", kemeny.condorcet_winner_)
core_games = scores.columns[nash.task_distribution_ > 1e-3].tolist()
print("Nash task support:", core_games)

# %%
# Which games disagree most with the consensus ranking?
print(kemeny.task_table().sort_values("kendall_tau").head(6))

# %%
# The Kemeny-Young ranking with its margin matrix (rows and columns in ranking
# order: a ranking that follows every majority is red above the diagonal).
VotingDisplay.from_estimator(kemeny)
