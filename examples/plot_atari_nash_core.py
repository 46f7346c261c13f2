"""
The Nash core of the Atari benchmark
====================================

Which agents and which games matter once redundancy is discounted? Nash
averaging (Balduzzi et al., 2018) plays agents against games in a zero-sum
game and keeps the maximum-entropy equilibrium: the agents that no game mix
can beat and the games that no agent mix can solve. Here on the rldb no-op
scores of 32 agents on 57 games (the paper used its own 20 x 54 table, so the
core differs in detail).
"""

# %%
from scipy.stats import spearmanr

from sklearn_eval.datasets import load_atari
from sklearn_eval.game import NashAverager, complete_submatrix
from sklearn_eval.plotting import NashDisplay

scores = load_atari(as_frame=True).frame
block = complete_submatrix(scores)  # Nash averaging needs complete data
print(f"complete block: {block.shape[0]} agents x {block.shape[1]} games "
      f"(of {scores.shape[0]} x {scores.shape[1]})")

# %%
# Per-game min-max normalisation, as in the paper, then the equilibrium.
nash = NashAverager(game="agent_vs_task", normalize="minmax").fit(block)
print(f"game value {nash.value_:.4f}, exploitability {nash.exploitability_:.1e}")
agents = block.index.to_numpy()
games = block.columns.to_numpy()
for name, p in sorted(zip(agents, nash.agent_distribution_, strict=True),
                      key=lambda t: -t[1])[:6]:
    print(f"agent {name:32s} p = {p:.3f}")
for name, p in sorted(zip(games, nash.task_distribution_, strict=True),
                      key=lambda t: -t[1])[:6]:
    print(f"game  {name:32s} p = {p:.3f}")

# %%
# Uniform averages reward agents that are good on the many easy games; Nash
# averages weight the games that separate the strongest agents.
uniform = nash.payoff_.mean(axis=1)
rho = spearmanr(uniform, nash.agent_skill_).statistic
print(f"Spearman correlation of uniform and Nash averages: {rho:.2f}")

# %%
# The equilibrium and both averages, for the first 15 agents and games in
# Nash order (the support first; every other agent and game has probability
# zero). Top: the Nash probabilities. Bottom: uniform against Nash averages,
# agents by skill and games by difficulty, with the game value dashed.
display = NashDisplay.from_estimator(nash, agent_names=agents, max_items=15)
