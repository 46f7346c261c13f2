"""IRT2PL end to end: the model, published references (R ltm, mirt), recovery."""

import itertools
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.stats import pearsonr, spearmanr
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, KFold

from sklearn_eval.datasets import make_irt_responses
from sklearn_eval.irt import IRT2PL
from sklearn_eval.utils.estimator_checks import check_estimator_contract

# the fixtures' nearly separable items trigger this (tested once, below)
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*have .discrimination. > 10:UserWarning"
)

ALE_NEGATIVE = {"Centipede", "Tennis", "Venture", "Video Pinball"}
GVGAI_NEGATIVE = {
    "bait.0",
    "camelRace.0",
    "camelRace.1",
    "factorymanager.3",
    "racebet2.4",
    "survivezombies.2",
}


# ---------------------------------------------------------------- fixtures
def _load(shared_dir, name):
    base = shared_dir / "data" / "irt_fixtures"
    X = pd.read_csv(base / f"{name}_binary.csv", index_col=0)
    items = pd.read_csv(base / f"{name}_items_ltm.csv", index_col=0)
    agents = pd.read_csv(base / f"{name}_agents_ref.csv", index_col=0)
    assert list(items.index) == list(X.columns)
    assert list(agents.index) == list(X.index)
    return X, items, agents


@pytest.fixture(scope="module")
def ale(shared_dir):
    return _load(shared_dir, "ale")


@pytest.fixture(scope="module")
def gvgai(shared_dir):
    return _load(shared_dir, "gvgai")


@pytest.fixture(scope="module")
def ale_fit(ale):
    X, _, _ = ale
    return IRT2PL(quadrature="gauss-hermite").fit(X)


@pytest.fixture(scope="module")
def gvgai_fit(gvgai):
    X, _, _ = gvgai
    return IRT2PL(quadrature="gauss-hermite", n_init=2).fit(X)


def _lsat7():
    """LSAT section 7 (Bock and Lieberman 1970): 1000 examinees x 5 items."""
    patterns = np.array(list(itertools.product([0, 1], repeat=5)), dtype=float)
    counts = [
        12,
        19,
        1,
        7,
        3,
        19,
        3,
        17,
        10,
        5,
        3,
        7,
        7,
        23,
        8,
        28,
        7,
        39,
        11,
        34,
        14,
        51,
        15,
        90,
        6,
        25,
        7,
        35,
        18,
        136,
        32,
        308,
    ]
    return np.repeat(patterns, counts, axis=0)


def _rmse(u, v):
    return float(np.sqrt(np.mean((np.asarray(u) - np.asarray(v)) ** 2)))


# ------------------ the 2PL curve (Martinez-Plumed & Hernandez-Orallo 2018, Eq. 1)
def test_icc_no_scaling_constant_and_location():
    model = IRT2PL.from_item_params([1.0, 1.3, -0.5], [0.0, 0.4, 1.0])
    P = model.icc([0.0, 0.4, 1.0, 4.0])
    assert_allclose(P[2, 0], 0.7310586, atol=1e-7)  # D = 1, not 1.7
    assert_allclose(P[1, 1], 0.5)  # P(theta = b) = 0.5
    assert_allclose(P[2, 2], 0.5)
    assert P[3, 2] < P[0, 2]  # a < 0 decreases
    four = IRT2PL.from_item_params([1.0], [4.0])
    assert_allclose(four.icc(4.0), [[0.5]])


def test_icc_slope_at_difficulty_is_a_over_4():
    a, b, h = 1.7, -0.3, 1e-5
    model = IRT2PL.from_item_params([a], [b])
    slope = (model.icc(b + h) - model.icc(b - h)) / (2 * h)
    assert_allclose(slope[0, 0], a / 4, atol=1e-6)  # slope a / 4 at theta = b
    assert_allclose(model.item_table()["slope_at_difficulty"], [a / 4])


def test_icc_limits():
    model = IRT2PL.from_item_params([2.0, -2.0], [0.0, 0.0])
    P = model.icc([-40.0, 40.0])
    assert_allclose(P[:, 0], [0.0, 1.0], atol=1e-12)
    assert_allclose(P[:, 1], [1.0, 0.0], atol=1e-12)


def test_item_and_test_information():
    a, b = np.array([0.5, 1.5, -2.0]), np.array([-1.0, 0.0, 2.0])
    model = IRT2PL.from_item_params(a, b)
    theta = np.linspace(-3, 3, 7)
    P = model.icc(theta)
    assert_allclose(model.item_information(theta), a**2 * P * (1 - P))
    assert_allclose(model.test_information(theta), (a**2 * P * (1 - P)).sum(1))
    # information peaks at b with value a^2 / 4
    assert_allclose(model.item_information(b)[np.arange(3), np.arange(3)], a**2 / 4)


# published item parameters (Martinez-Plumed & Hernandez-Orallo 2018, Appendix A)
@pytest.mark.parametrize("name, expected", [("ale", -490.3989), ("gvgai", -1150.5990)])
def test_marginal_loglik_at_published_items(shared_dir, name, expected):
    X, items, _ = _load(shared_dir, name)
    model = IRT2PL.from_item_params(
        items["Dscrmn"],
        items["Dffclt"],
        item_names=X.columns,
        quadrature="gauss-hermite",
    )
    assert_allclose(model.score(X) * len(X), expected, atol=1e-3)
    assert_allclose(model.score_samples(X).sum(), expected, atol=1e-3)


@pytest.mark.parametrize("name", ["ale", "gvgai"])
def test_map_abilities_at_published_items(shared_dir, name):
    X, items, agents = _load(shared_dir, name)
    model = IRT2PL.from_item_params(
        items["Dscrmn"], items["Dffclt"], item_names=X.columns
    )
    theta = model.transform(X)[:, 0]
    assert np.max(np.abs(theta - agents["abil"].to_numpy())) < 1e-3
    if name == "ale":
        assert_allclose([theta.min(), theta.max()], [-2.1489, 2.2245], atol=1e-4)
        row = list(X.index).index("Wang.noops_DUEL")
        assert_allclose(theta[row], 2.2245, atol=1e-4)  # scoring with fixed items


def test_eap_on_ltm_grid_matches_ltm(ale):
    """ltm's EAP is the posterior mean on its 21-node Gauss-Hermite grid."""
    from sklearn_eval.irt._estep import _e_step
    from sklearn_eval.irt._quadrature import make_grid
    from sklearn_eval.irt._responses import _Responses

    X, items, agents = ale
    out = _e_step(
        _Responses(X.to_numpy(float)),
        items["Dscrmn"].to_numpy(),
        items["Dffclt"].to_numpy(),
        make_grid("gauss-hermite", 21),
        counts=False,
        moments=True,
    )
    assert_allclose(out["mean"], agents["abilEAP"], atol=1e-6)
    # ... which the spec calls collapsed: our EAP uses a fine rectangular grid
    model = IRT2PL.from_item_params(
        items["Dscrmn"], items["Dffclt"], ability_method="eap"
    )
    fine = IRT2PL.from_item_params(
        items["Dscrmn"], items["Dffclt"], ability_method="eap", n_quadrature=2001
    )
    ours = model.transform(X.to_numpy())[:, 0]
    assert np.max(np.abs(ours - fine.transform(X.to_numpy())[:, 0])) < 0.02
    assert np.max(np.abs(ours - agents["abilEAP"])) > 0.1


# ------------------------ fresh fits (Martinez-Plumed & Hernandez-Orallo 2018, IV)
def test_ale_fresh_fit_matches_ltm(ale, ale_fit):
    X, items, agents = ale
    model = ale_fit
    assert model.log_likelihood_ >= -490.40  # at least as good as ltm
    assert set(model.negative_items_) == ALE_NEGATIVE
    assert spearmanr(model.difficulty_, items["Dffclt"]).statistic >= 0.95
    assert pearsonr(model.abilities_, agents["abil"]).statistic >= 0.97
    assert model.constant_items_.size == 0


def test_gvgai_fresh_fit_matches_ltm(gvgai, gvgai_fit):
    X, items, agents = gvgai
    model = gvgai_fit
    assert model.log_likelihood_ >= -1150.60  # ltm reached -1150.599
    assert spearmanr(model.difficulty_, items["Dffclt"]).statistic >= 0.95
    assert pearsonr(model.abilities_, agents["abil"]).statistic >= 0.97
    negative = set(model.negative_items_)
    # the five clearly negative items of the spec's list are found, nothing
    # outside the list; racebet2.4 (ltm a = -0.053) sits at a ~ 0 within one
    # standard error in the better optimum we reach (see report)
    assert negative <= GVGAI_NEGATIVE
    assert GVGAI_NEGATIVE - {"racebet2.4"} <= negative
    j = list(X.columns).index("racebet2.4")
    assert abs(model.discrimination_[j]) < model.discrimination_se_[j]


@pytest.mark.parametrize("name, bound", [("ale", -0.95), ("gvgai", -0.85)])
def test_difficulty_tracks_success_rate(shared_dir, name, bound, ale_fit, gvgai_fit):
    X, _, _ = _load(shared_dir, name)
    model = ale_fit if name == "ale" else gvgai_fit
    positive = model.discrimination_ > 0
    rate = X.mean().to_numpy()
    assert spearmanr(model.difficulty_[positive], rate[positive]).statistic <= bound


@pytest.mark.parametrize("name", ["ale", "gvgai"])
def test_orientation_and_item_sign_pattern(shared_dir, name, ale_fit, gvgai_fit):
    X, _, _ = _load(shared_dir, name)
    model = ale_fit if name == "ale" else gvgai_fit
    theta = model.abilities_
    assert spearmanr(theta, X.sum(axis=1)).statistic > 0.95  # oriented
    # items correlate with ability in the direction of their slope
    corr = np.array([np.corrcoef(theta, X.iloc[:, j])[0, 1] for j in range(X.shape[1])])
    a = model.discrimination_
    clear = np.abs(a) > model.discrimination_se_
    assert np.all(corr[clear & (a > 0)] > 0)
    assert np.all(corr[clear & (a < 0)] < 0)


def test_reflected_data_reflects_abilities(ale):
    X, _, _ = ale
    Xr = 1.0 - X.to_numpy()
    model = IRT2PL(quadrature="gauss-hermite").fit(Xr)
    assert spearmanr(model.abilities_, Xr.sum(axis=1)).statistic > 0.95


# --------- binarise, then fit (Martinez-Plumed & Hernandez-Orallo 2018, Appendix A)
ALE_DROPPED_TECHNIQUES = [
    "Schaul_DQN-baseline",
    "vanHasselt-Humanstarts_DQN",
    "vanHasselt-Humanstarts_Double-DQN-(tuned)",
    "Wang-Humanstarts_DUEL",
    "Wang-Humanstarts_PRIOR.",
]
ALE_CONSTANT_GAMES = {
    "Alien",
    "Asteroids",
    "Bowling",
    "Gravitar",
    "Krull",
    "Montezuma's Revenge",
    "Ms. Pacman",
    "Private Eye",
}


def test_ale_pipeline_from_human_normalised_scores(shared_dir, ale):
    from sklearn_eval.utils import binarize_scores

    X, _, _ = ale
    base = shared_dir / "data" / "irt_fixtures"
    scores = pd.read_csv(base / "ale_human_normalised_scores.csv", index_col=0).T
    scores = scores.drop(index=ALE_DROPPED_TECHNIQUES)
    assert scores.shape == (40, 49)
    binary = binarize_scores(scores, 100)  # exactly 100 counts as success
    with pytest.warns(UserWarning, match="8 item"):
        model = IRT2PL(quadrature="gauss-hermite").fit(binary)
    assert set(model.constant_items_) == ALE_CONSTANT_GAMES
    kept = binary.drop(columns=list(ALE_CONSTANT_GAMES))
    assert_allclose(kept.to_numpy(), X.to_numpy())
    direct = IRT2PL(quadrature="gauss-hermite").fit(X)
    names = list(model.feature_names_in_)
    cols = [names.index(c) for c in X.columns]
    assert_allclose(model.difficulty_[cols], direct.difficulty_)
    assert_allclose(model.log_likelihood_, direct.log_likelihood_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_gvgai_pipeline_from_win_counts(shared_dir, gvgai):
    from sklearn_eval.utils import binarize_scores

    X, _, _ = gvgai
    wins = pd.read_csv(
        shared_dir / "data" / "irt_fixtures" / "gvgai_wins_out_of_5.csv", index_col=0
    )
    binary = binarize_scores(wins, 3)  # at least 3 wins of 5
    with pytest.warns(UserWarning, match="91 item"):
        model = IRT2PL(quadrature="gauss-hermite", max_iter=5).fit(binary)
    assert model.constant_items_.size == 91
    assert np.isnan(model.difficulty_).sum() == 91
    finite = np.isfinite(model.difficulty_)
    estimated = list(binary.columns[finite])
    assert estimated == list(X.columns)


# population dependence, duality (Martinez-Plumed & Hernandez-Orallo 2018, section V)
def test_guttman_pattern_gives_steep_items():
    steps = np.arange(21)
    X = (steps[:, None] > np.arange(20)[None, :]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IRT2PL().fit(X)
    assert np.all(model.discrimination_ > 5)
    assert np.all(np.diff(model.difficulty_) > 0)  # item j harder than j - 1


def test_population_dependence():
    X = make_irt_responses(60, 15, random_state=3)
    before = IRT2PL().fit(X)
    step = (np.argsort(np.argsort(before.difficulty_)) < 8).astype(float)
    after = IRT2PL().fit(np.vstack([X, step]))
    assert np.max(np.abs(after.abilities_[:60] - before.abilities_)) > 0.01
    assert np.max(np.abs(after.discrimination_ - before.discrimination_)) > 0.01


# ------------------------------------------------------------- golden value
def test_lsat7_matches_r_mirt():
    """R mirt's 2PL on LSAT7 (61 equally spaced nodes): log-lik -2658.805."""
    X = _lsat7()
    model = IRT2PL(n_quadrature=61).fit(X)
    assert_allclose(model.log_likelihood_, -2658.805, atol=1e-3)
    assert model.n_iter_ < 100
    # the 1PL is nested in the 2PL: lower likelihood, yet preferred by BIC here
    one = IRT2PL(model="1PL", n_quadrature=61).fit(X)
    assert one.log_likelihood_ < model.log_likelihood_
    assert np.ptp(one.discrimination_) == 0
    assert one.bic_ < model.bic_


@pytest.mark.parametrize(
    "algorithm", ["dense", pytest.param("sparse", marks=pytest.mark.slow)])
def test_sat12_with_missing_responses_matches_r_mirt(shared_dir, algorithm):
    """R mirt's 2PL (TOL=1e-8) on SAT12 with 15% of the responses missing.

    The data, mirt's item parameters and marginal log-likelihood are R
    outputs (see the data sources); the EM on either storage reaches them.
    """
    base = shared_dir / "data" / "irt_fixtures" / "r_mirt"
    X = pd.read_csv(base / "mirt_SAT12_NA15_data.csv")
    items = pd.read_csv(base / "mirt_SAT12_NA15_mirt.csv", index_col=0)
    loglik = pd.read_csv(base / "loglik.csv", index_col=0)
    assert X.isna().sum().sum() == loglik.loc["mirt_SAT12_NA15", "n_na"]
    model = IRT2PL(tol=1e-10, algorithm=algorithm).fit(X)
    assert_allclose(model.log_likelihood_,
                    loglik.loc["mirt_SAT12_NA15", "mirt_logLik"], atol=1e-5)
    assert_allclose(model.discrimination_, items["a"], atol=1e-5)
    assert_allclose(model.difficulty_, items["b"], atol=1e-5)
    assert_allclose(-model.discrimination_ * model.difficulty_, items["d"],
                    atol=1e-5)


# ------------------------------------------------------ simulated data
@pytest.mark.parametrize("seed", range(5))
def test_parameter_recovery(seed):
    X, truth = make_irt_responses(500, 30, random_state=seed, return_params=True)
    model = IRT2PL().fit(X)
    assert np.corrcoef(model.difficulty_, truth["b"])[0, 1] > 0.95
    assert np.corrcoef(model.discrimination_, truth["a"])[0, 1] > 0.8
    assert np.corrcoef(model.abilities_, truth["theta"])[0, 1] > 0.9
    assert abs(np.mean(model.difficulty_ - truth["b"])) < 0.15  # on scale
    assert model.negative_items_.size == 0


def test_missing_at_random_costs_only_the_lost_information():
    ratios = []
    for seed in range(5):
        X, truth = make_irt_responses(500, 30, random_state=seed, return_params=True)
        Xm = make_irt_responses(500, 30, missing_rate=0.2, random_state=seed)
        assert np.array_equal(np.isnan(Xm) | (Xm == X), np.ones_like(X, bool))
        full = _rmse(IRT2PL().fit(X).difficulty_, truth["b"])
        missing = _rmse(IRT2PL().fit(Xm).difficulty_, truth["b"])
        ratios.append(missing / full)
    assert np.mean(ratios) <= 1.15 * np.sqrt(1.25)


def test_missing_responses_drop_out_exactly():
    X = make_irt_responses(200, 12, missing_rate=0.3, random_state=3)
    model = IRT2PL().fit(X)
    row = X[5]
    observed = ~np.isnan(row)
    sub = IRT2PL.from_item_params(
        model.discrimination_[observed], model.difficulty_[observed]
    )
    assert_allclose(
        model.score_samples(row[None]),
        sub.score_samples(row[observed][None]),
        rtol=1e-12,
    )
    assert_allclose(
        model.transform(row[None]), sub.transform(row[observed][None]), rtol=1e-10
    )


def test_rectangular_grid_recovers_better_than_gauss_hermite():
    """Spec finding: with many items the narrow posterior defeats GH-21."""
    X, truth = make_irt_responses(1000, 200, random_state=0, return_params=True)
    rect = IRT2PL(rescale_latent=False).fit(X)
    gh = IRT2PL(quadrature="gauss-hermite", rescale_latent=False).fit(X)
    assert _rmse(rect.difficulty_, truth["b"]) < 0.8 * _rmse(gh.difficulty_, truth["b"])
    assert _rmse(rect.discrimination_, truth["a"]) < 0.8 * _rmse(
        gh.discrimination_, truth["a"]
    )

    # the fine-grid likelihood of the rectangular fit is the better one
    def fine(model):
        return IRT2PL.from_item_params(
            model.discrimination_,
            model.difficulty_,
            n_quadrature=801,
            quadrature_bound=8.0,
        ).score(X)

    assert fine(rect) > fine(gh)


@pytest.mark.slow
def test_rescaling_fixes_scale_drift_with_many_items():
    """3000 items: posteriors (sd ~0.04) are narrower than the grid spacing.

    Marginal ML identifies the scale by the sample: abilities end with mean 0
    and variance 1, so compare with the standardised true abilities.
    """
    X, truth = make_irt_responses(300, 3000, random_state=1, return_params=True)
    theta = truth["theta"]
    z = (theta - theta.mean()) / theta.std()
    plain = IRT2PL(rescale_latent=False).fit(X)
    expanded = IRT2PL().fit(X)  # "auto": rescaling on for this shape
    assert _rmse(expanded.abilities_, z) < 0.05
    assert _rmse(expanded.abilities_, z) < 0.8 * _rmse(plain.abilities_, z)
    assert expanded.n_iter_ < plain.n_iter_
    assert abs(expanded.abilities_.mean()) < 1e-3


def test_rasch_keeps_unit_discrimination_when_rescaling():
    X = make_irt_responses(60, 120, random_state=18)
    model = IRT2PL(model="Rasch", rescale_latent=True).fit(X)
    assert_allclose(model.discrimination_, 1.0)


def test_rescaling_leaves_exact_solution_unchanged():
    X = _lsat7()
    plain = IRT2PL(n_quadrature=61, rescale_latent=False).fit(X)
    expanded = IRT2PL(n_quadrature=61, rescale_latent=True).fit(X)
    assert_allclose(expanded.log_likelihood_, plain.log_likelihood_, atol=1e-3)
    assert_allclose(expanded.difficulty_, plain.difficulty_, atol=5e-3)


def test_acceleration_reaches_the_same_optimum_faster():
    X = make_irt_responses(1000, 40, missing_rate=0.1, random_state=2)
    slow = IRT2PL(accelerate=False, tol=1e-9, max_iter=5000).fit(X)
    fast = IRT2PL(tol=1e-9).fit(X)
    assert fast.n_iter_ < slow.n_iter_
    assert_allclose(fast.log_likelihood_, slow.log_likelihood_, atol=1e-3)
    assert_allclose(fast.difficulty_, slow.difficulty_, atol=1e-2)


def test_blocked_and_compact_storage_give_identical_fits(monkeypatch):
    """Leaderboard-scale storage (uint8, agents in blocks) changes nothing."""
    import sklearn_eval.irt._responses as module

    X = make_irt_responses(300, 40, missing_rate=0.2, random_state=17)
    dense = IRT2PL().fit(X)
    monkeypatch.setattr(module, "_DENSE_LIMIT", 100)
    monkeypatch.setattr(module, "_BLOCK_ENTRIES", 40 * 7)  # 7 agents per block
    compact = IRT2PL().fit(X)
    assert_allclose(compact.log_likelihood_, dense.log_likelihood_, rtol=1e-12)
    assert_allclose(compact.difficulty_, dense.difficulty_, rtol=1e-9)
    assert_allclose(compact.abilities_, dense.abilities_, rtol=1e-9)
    assert_allclose(compact.difficulty_se_, dense.difficulty_se_, rtol=1e-9)
    assert_allclose(compact.score_samples(X), dense.score_samples(X), rtol=1e-12)


# ------------------------------------------------------------ model choice
def test_aic_bic_and_cross_validation_choose_the_generating_model():
    X2 = make_irt_responses(800, 15, random_state=4)
    m2, m1 = IRT2PL().fit(X2), IRT2PL(model="1PL").fit(X2)
    assert m2.aic_ < m1.aic_ and m2.bic_ < m1.bic_
    rng = np.random.default_rng(5)
    theta, b = rng.normal(size=800), rng.normal(size=15)
    Xr = (rng.random((800, 15)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(float)
    r2, rasch = IRT2PL().fit(Xr), IRT2PL(model="Rasch").fit(Xr)
    assert rasch.bic_ < r2.bic_
    assert_allclose(rasch.discrimination_, 1.0)
    search = GridSearchCV(
        IRT2PL(), {"model": ["Rasch", "2PL"]}, cv=KFold(3, shuffle=True, random_state=0)
    ).fit(X2)
    assert search.best_params_ == {"model": "2PL"}


def test_priors_keep_separable_items_finite(ale):
    X, _, _ = ale
    with pytest.warns(UserWarning, match="discrimination. > 10"):
        free = IRT2PL(quadrature="gauss-hermite").fit(X)
    shrunk = IRT2PL(
        quadrature="gauss-hermite", a_prior=(1.0, 2.0), b_prior=(0.0, 3.0)
    ).fit(X)
    assert np.nanmax(free.discrimination_) > 20
    assert np.nanmax(shrunk.discrimination_) < 10
    assert set(shrunk.negative_items_) == ALE_NEGATIVE  # normal prior keeps a < 0
    assert shrunk.log_likelihood_ < free.log_likelihood_


def test_priors_help_with_few_agents():
    X, truth = make_irt_responses(30, 300, random_state=6, return_params=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = IRT2PL(max_iter=200).fit(X)  # diverging items: capped
        prior = IRT2PL(a_prior=(1.0, 1.0), b_prior=(0.0, 2.0)).fit(X)
    keep = ~np.isnan(prior.difficulty_)
    assert _rmse(prior.difficulty_[keep], truth["b"][keep]) < _rmse(
        free.difficulty_[keep], truth["b"][keep]
    )
    assert _rmse(prior.difficulty_[keep], truth["b"][keep]) < 0.7


# ------------------------------------------------------ standard errors, fit
def test_standard_errors_match_numerical_observed_information():
    X = make_irt_responses(400, 8, random_state=7)
    model = IRT2PL(n_quadrature=61, tol=1e-12).fit(X)
    a, b = model.discrimination_.copy(), model.difficulty_.copy()
    j, h = 3, 1e-4

    def loglik(da, db):
        aa, bb = a.copy(), b.copy()
        aa[j] += da
        bb[j] += db
        return IRT2PL.from_item_params(aa, bb, n_quadrature=61).score(X) * len(X)

    f0 = loglik(0, 0)
    haa = (loglik(h, 0) - 2 * f0 + loglik(-h, 0)) / h**2
    hbb = (loglik(0, h) - 2 * f0 + loglik(0, -h)) / h**2
    hab = (loglik(h, h) - loglik(h, -h) - loglik(-h, h) + loglik(-h, -h)) / (4 * h * h)
    cov = np.linalg.inv(-np.array([[haa, hab], [hab, hbb]]))
    assert_allclose(model.discrimination_se_[j], np.sqrt(cov[0, 0]), rtol=2e-3)
    assert_allclose(model.difficulty_se_[j], np.sqrt(cov[1, 1]), rtol=2e-3)


def test_item_fit_is_calibrated_under_the_model():
    pvalues = []
    for seed in range(3):
        X = make_irt_responses(1000, 20, missing_rate=0.1, random_state=seed)
        pvalues.extend(IRT2PL().fit(X).item_fit(X)[1])
    pvalues = np.asarray(pvalues)
    assert 0.3 < np.median(pvalues) < 0.7
    assert np.mean(pvalues < 0.05) < 0.15


def test_item_fit_flags_a_non_monotone_item():
    rng = np.random.default_rng(8)
    X, truth = make_irt_responses(1500, 20, random_state=8, return_params=True)
    theta = truth["theta"]
    X[:, 0] = (rng.random(1500) < np.exp(-(theta**2))).astype(float)  # peaked
    model = IRT2PL().fit(X)
    table = model.item_table(X)
    assert table["item_fit_pvalue"].iloc[0] < 1e-4
    # calibrated on the 19 well-specified items: about 5% below 0.05
    assert np.median(table["item_fit_pvalue"].iloc[1:]) > 0.2
    assert np.mean(table["item_fit_pvalue"].iloc[1:] < 0.05) <= 0.2
    assert list(table.columns[:4]) == [
        "discrimination",
        "discrimination_se",
        "difficulty",
        "difficulty_se",
    ]


# ----------------------------------------- constant items, abilities, misc
def test_constant_items_left_out_with_warning():
    X = make_irt_responses(200, 10, random_state=9)
    X[:, 2] = 1.0
    X[:, 7] = 0.0
    frame = pd.DataFrame(X, columns=[f"t{k}" for k in range(10)])
    with pytest.warns(UserWarning, match="left out"):
        model = IRT2PL().fit(frame)
    assert list(model.constant_items_) == ["t2", "t7"]
    assert np.isnan(model.difficulty_[[2, 7]]).all()
    assert np.isfinite(model.difficulty_[[0, 1, 3]]).all()
    # transform ignores them
    changed = frame.copy()
    changed[["t2", "t7"]] = 1 - changed[["t2", "t7"]]
    assert_allclose(model.transform(frame), model.transform(changed))
    assert_allclose(model.item_information([0.0])[0, [2, 7]], 0.0)
    P = model.predict_proba(frame.iloc[:3])
    assert_allclose(P[:, 2], 1.0) and assert_allclose(P[:, 7], 0.0)
    table = model.item_table()
    assert table.loc[["t2", "t7"], "left_out"].all()


def test_transform_matches_training_abilities_and_eap():
    X = make_irt_responses(300, 25, missing_rate=0.1, random_state=10)
    model = IRT2PL().fit(X)
    assert_allclose(model.transform(X)[:, 0], model.abilities_, atol=1e-8)
    eap = IRT2PL(ability_method="eap").fit(X)
    assert_allclose(eap.discrimination_, model.discrimination_)
    theta, sd = model.estimate_abilities(X, method="eap")
    assert_allclose(theta, eap.abilities_)
    assert np.all(sd > 0) and np.all(sd < 1)
    # shrinkage: the posterior mean is closer to 0 than the mode on average
    assert np.corrcoef(theta, model.abilities_)[0, 1] > 0.99


def test_new_agent_without_responses_gets_the_prior():
    X = make_irt_responses(100, 10, random_state=11)
    model = IRT2PL().fit(X)
    out = model.transform(np.full((1, 10), np.nan))
    assert_allclose(out, [[0.0, 1.0]], atol=1e-8)
    eap = model.estimate_abilities(np.full((1, 10), np.nan), method="eap")
    assert_allclose(np.ravel(eap), [0.0, 1.0], atol=1e-6)
    assert model.score_samples(np.full((1, 10), np.nan))[0] == 0.0


def test_predict_proba_and_score():
    X = make_irt_responses(300, 20, random_state=12)
    model = IRT2PL().fit(X)
    P = model.predict_proba(X)
    assert P.shape == X.shape and np.all((P > 0) & (P < 1))
    assert_allclose(model.score(X), model.log_likelihood_ / len(X))
    assert model.score(X) < 0


def test_set_output_pandas_and_names():
    X = make_irt_responses(120, 8, random_state=13)
    frame = pd.DataFrame(
        X, columns=list("abcdefgh"), index=[f"agent{i}" for i in range(120)]
    )
    model = IRT2PL().set_output(transform="pandas").fit(frame)
    out = model.transform(frame)
    assert list(out.columns) == ["ability", "ability_sd"]
    assert list(out.index) == list(frame.index)
    assert list(model.item_table().index) == list("abcdefgh")
    with pytest.raises(ValueError):
        model.transform(frame[list("hgfedcba")])


def test_convergence_warning_and_n_iter():
    X = make_irt_responses(200, 10, random_state=14)
    with pytest.warns(ConvergenceWarning):
        model = IRT2PL(max_iter=2, accelerate=False).fit(X)
    assert model.n_iter_ == 2


def test_multiple_starts_never_worse(gvgai):
    X, _, _ = gvgai
    one = IRT2PL(quadrature="gauss-hermite").fit(X)
    three = IRT2PL(quadrature="gauss-hermite", n_init=3, random_state=0).fit(X)
    assert three.log_likelihood_ >= one.log_likelihood_ - 1e-9


def test_from_item_params_validation():
    with pytest.raises(ValueError, match="equal"):
        IRT2PL.from_item_params([1.0, 2.0], [0.0])
    with pytest.raises(ValueError, match="finite"):
        IRT2PL.from_item_params([np.inf], [0.0])
    with pytest.raises(ValueError, match="only one"):
        IRT2PL.from_item_params([np.nan, 1.0], [0.0, 1.0])
    with pytest.raises(ValueError):
        IRT2PL.from_item_params([1.0], [0.0], item_names=["a", "b"])
    model = IRT2PL.from_item_params([np.nan, 1.0], [np.nan, 0.5], item_names=["x", "y"])
    assert list(model.constant_items_) == ["x"]
    with pytest.raises(NotFittedError):
        IRT2PL().transform([[1, 0]])


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "X, message",
    [
        ([[0, 1, 2], [1, 0, 1]], "binary"),
        ([[0, 1, 0.5], [1, 0, 1]], "binary"),
        ([[0, 1, -1], [1, 0, 1]], "binary"),
        ([[0, 1, 1], [np.nan, np.nan, np.nan], [1, 0, 1]], "row 1"),
        ([[0], [1], [1]], "at least 2 items"),
        ([[0, 1, np.inf], [1, 0, 1]], "infinite"),
        ([0, 1, 1, 0], "2-D"),
        ([[1, 0], [1, 0], [1, 0]], "both successes and failures"),
    ],
)
def test_bad_input_raises_clear_errors(X, message):
    with pytest.raises(ValueError, match=message):
        IRT2PL().fit(np.asarray(X, dtype=float))


def test_bad_input_types_and_params():
    with pytest.raises(TypeError):
        IRT2PL().fit(np.array([["a", "b"], ["c", "d"]], dtype=object))
    with pytest.raises(ValueError, match="a_prior"):
        IRT2PL(a_prior=(1.0, -1.0)).fit(_lsat7())
    with pytest.raises(ValueError):
        IRT2PL(model="3PL").fit(_lsat7())
    with pytest.raises(ValueError):
        IRT2PL(quadrature="simpson").fit(_lsat7())


def test_contract_suite():
    X = make_irt_responses(60, 6, missing_rate=0.1, random_state=15)
    bad = [
        (X[:0], None),
        (np.where(np.isnan(X), np.nan, 2 * X), None),
        (X[:, :1], None),
    ]
    check_estimator_contract(IRT2PL(), X, bad_inputs=bad)


def test_pickle_keeps_predictions():
    X = make_irt_responses(80, 6, random_state=16)
    model = IRT2PL().fit(X)
    again = pickle.loads(pickle.dumps(model))
    assert_allclose(again.predict_proba(X), model.predict_proba(X))
    assert clone(model).get_params() == model.get_params()


# --------------------------------------------------------------- properties
_small = st.integers(min_value=0, max_value=2**31 - 1)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=_small)
def test_agent_order_does_not_matter(seed):
    X = make_irt_responses(60, 6, missing_rate=0.15, random_state=seed)
    order = np.random.default_rng(seed).permutation(60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = IRT2PL(tol=1e-10).fit(X)
        b = IRT2PL(tol=1e-10).fit(X[order])
    assert_allclose(a.log_likelihood_, b.log_likelihood_, rtol=1e-7)
    assert_allclose(b.abilities_, a.abilities_[order], atol=1e-3)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=_small)
def test_item_order_permutes_items(seed):
    X = make_irt_responses(60, 6, random_state=seed)
    order = np.random.default_rng(seed).permutation(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = IRT2PL(tol=1e-10).fit(X)
        b = IRT2PL(tol=1e-10).fit(X[:, order])
    assert_allclose(b.log_likelihood_, a.log_likelihood_, rtol=1e-7)
    ok = np.isfinite(a.difficulty_[order]) & (np.abs(a.discrimination_[order]) < 5)
    assert_allclose(b.difficulty_[ok], a.difficulty_[order][ok], atol=1e-2)


@settings(max_examples=15, deadline=None)
@given(
    a=st.lists(st.floats(-4, 4), min_size=1, max_size=6),
    theta=st.floats(-5, 5),
)
def test_probabilities_and_information_are_valid(a, theta):
    a = np.asarray(a)
    b = np.linspace(-2, 2, a.size)
    model = IRT2PL.from_item_params(a, b)
    P = model.icc(theta)
    assert np.all((P >= 0) & (P <= 1))
    info = model.item_information(theta)
    assert np.all(info >= 0) and np.all(info <= a**2 / 4 + 1e-12)
    # reflecting a and b reflects the curve: P(theta; a, b) = P(-theta; -a, -b)
    flipped = IRT2PL.from_item_params(-a, -b)
    assert_allclose(flipped.icc(-theta), P, atol=1e-12)
