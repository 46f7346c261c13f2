"""Held-out scoring of the item response candidates of the advisor."""

import numpy as np
import pytest

from sklearn_eval.advice._items import cell_folds, fast_irt, heldout_irt
from sklearn_eval.advice._kinds import Candidate, item_candidates
from sklearn_eval.datasets import load_leaderboard


def test_fast_settings_keep_the_dense_grid_of_continuous_models():
    # Continuous-score models have narrow ability posteriors: a 21-node
    # Gauss-Hermite rule misses them (user guide, continuous scores).
    for model in ("1PL", "2PL", "3PL", "GRM", "GPCM"):
        assert fast_irt({"model": model})["quadrature"] == "gauss-hermite"
    for model in ("beta", "logit-normal"):
        assert "quadrature" not in fast_irt({"model": model})


@pytest.fixture(scope="module")
def helm_lite_folds():
    values = load_leaderboard("helm_lite").data  # 91 x 10 scores in (0, 1)
    rows, cols, fold = cell_folds(values, 3, np.random.default_rng(0))
    return values, rows, cols, fold


@pytest.mark.slow
def test_continuous_candidates_get_finite_heldout_scores(helm_lite_folds):
    candidates = item_candidates("continuous")
    assert candidates
    scores, reasons = heldout_irt(candidates, *helm_lite_folds, 0, 1)
    assert reasons == {}
    for name, means in scores.items():
        assert np.isfinite(means).all(), name
        assert means.mean() > 0  # a log-density of scores spread over (0, 1)


@pytest.mark.slow
def test_a_candidate_without_finite_scores_is_left_out_with_its_reason(
        helm_lite_folds):
    # The Gauss-Hermite rule on the Beta model gives NaN likelihoods: such a
    # candidate is not scored (nor recommended), and the reason is kept.
    broken = Candidate("beta (21 nodes)", "IRT",
                       {"model": "beta", "quadrature": "gauss-hermite"}, 0)
    scores, reasons = heldout_irt([broken], *helm_lite_folds, 0, 1)
    assert scores == {}
    assert "not finite" in reasons["beta (21 nodes)"]
