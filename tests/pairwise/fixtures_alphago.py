"""The AlphaGo 8x8 win-probability matrix and the reference numbers around it.

Source: Silver et al. (2016), "Mastering the game of Go with deep neural
networks and tree search", Extended Data Table 9, as used by Balduzzi et al.
(2018), "Re-evaluating evaluation", section 3.2. Transcribed in the project's
spec (shared/spec/nash_averaging_and_elo.md, section 3.1): entry (i, j) is the
probability that program i beats program j; the diagonal is 0.5.

Reference values are those the spec marks [VERIFIED] (batch Elo) or
published in the paper (the three 3x3 tables).
"""

import numpy as np

#: Program names, in the matrix's order.
ALPHAGO_PLAYERS = np.array(
    [
        "alpha_rvp",
        "alpha_vp",
        "alpha_rp",
        "alpha_rv",
        "alpha_r",
        "alpha_v",
        "alpha_p",
        "zen",
    ]
)

#: P[i, j] = probability that program i beats program j.
ALPHAGO_P = np.array(
    [
        [0.50, 0.99, 0.95, 1.00, 1.00, 1.00, 1.00, 0.99],
        [0.01, 0.50, 0.39, 0.65, 0.94, 1.00, 0.99, 0.84],
        [0.05, 0.61, 0.50, 0.87, 1.00, 1.00, 0.96, 0.98],
        [0.00, 0.35, 0.13, 0.50, 1.00, 0.71, 0.52, 0.92],
        [0.00, 0.06, 0.00, 0.00, 0.50, 0.22, 0.22, 0.06],
        [0.00, 0.00, 0.00, 0.29, 0.78, 0.50, 0.70, 0.40],
        [0.00, 0.01, 0.04, 0.48, 0.78, 0.30, 0.50, 1.00],
        [0.01, 0.16, 0.02, 0.08, 0.94, 0.60, 0.00, 0.50],
    ]
)

#: Batch Elo (Proposition 1 fixed point) on ALPHAGO_P, natural-logit scale,
#: mean zero (Balduzzi et al. 2018, section 3.2, the AlphaGo experiment).
BATCH_ELO_LOGIT = np.array(
    [4.927, 0.961, 1.744, -0.203, -3.114, -1.458, -1.082, -1.775]
)

#: The same ratings in Elo points (400-point scale, mean zero).
BATCH_ELO_POINTS = np.array(
    [855.9, 166.9, 303.0, -35.2, -541.0, -253.2, -188.0, -308.3]
)

#: ||P - P_hat||_F of the batch Elo fit (the paper prints 0.85).
BATCH_ELO_FROBENIUS = 0.855

#: mElo_2 bound from the paper: ||P - P_hat_2||_F = 0.35.
MELO2_FROBENIUS_BOUND = 0.35

#: The zoom-in on alpha_v, alpha_p and Zen (paper, section 3.2):
#: entry (i, j) = P(row beats column), in the order below.
CYCLE_PLAYERS = ["alpha_v", "alpha_p", "zen"]

ELO_TABLE = np.array(
    [
        [0.50, 0.41, 0.58],
        [0.59, 0.50, 0.67],
        [0.42, 0.33, 0.50],
    ]
)

MELO2_TABLE = np.array(
    [
        [0.50, 0.72, 0.46],
        [0.28, 0.50, 0.98],
        [0.55, 0.02, 0.50],
    ]
)

EMPIRICAL_TABLE = np.array(
    [
        [0.5, 0.7, 0.4],
        [0.3, 0.5, 1.0],
        [0.6, 0.0, 0.5],
    ]
)
