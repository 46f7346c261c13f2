"""Games built from benchmark results: Hodge tools and Nash averaging.

Agent-vs-agent data (win probabilities or log-odds) and agent-vs-task data
(score matrices) are both turned into zero-sum games here. The Hodge
decomposition separates transitive from cyclic structure, the Schur/SVD
embeddings give latent skills, and :class:`NashAverager` ranks agents (and
tasks) by the maximum-entropy Nash equilibrium (Balduzzi et al., 2018).
"""

from ._alpharank import AlphaRank, infinite_alpha_limit
from ._hodge import (
    AvTEmbedding,
    HodgeDecomposition,
    LatentFactors,
    SchurEmbedding,
    avt_embedding,
    curl,
    div,
    grad,
    hodge_decomposition,
    latent_factors,
    rot,
    schur_embedding,
)
from ._markov import sink_components
from ._maxent_nash import (
    NashEquilibrium,
    exploitability,
    maxent_nash,
    symmetric_maxent_nash,
)
from ._missing import complete_submatrix, drop_incomplete, fill_win_rates
from ._nash import NashAverager
from ._voting import VotingRanker

__all__ = [
    "AlphaRank",
    "AvTEmbedding",
    "HodgeDecomposition",
    "LatentFactors",
    "NashAverager",
    "NashEquilibrium",
    "SchurEmbedding",
    "VotingRanker",
    "avt_embedding",
    "complete_submatrix",
    "curl",
    "div",
    "drop_incomplete",
    "exploitability",
    "fill_win_rates",
    "grad",
    "hodge_decomposition",
    "infinite_alpha_limit",
    "latent_factors",
    "maxent_nash",
    "rot",
    "schur_embedding",
    "sink_components",
    "symmetric_maxent_nash",
]
