"""Hodge operators, the agent-vs-task embedding and Schur/SVD embeddings.

Reference values: spec nash_averaging_and_elo.md sections 2, 6 (cases 1-3,
27-29) and 7.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import expit, logit

from sklearn_eval.game import (
    avt_embedding,
    curl,
    div,
    grad,
    hodge_decomposition,
    latent_factors,
    rot,
    schur_embedding,
)

T4 = np.array(
    [[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 1], [-3, -2, -1, 0]], dtype=float
)
C4 = np.array([[0, 1, 0, -1], [-1, 0, 1, 0], [0, -1, 0, 1], [1, 0, -1, 0]], dtype=float)
RPS = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=float)

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


@st.composite
def flows(draw, min_n=2, max_n=8):
    n = draw(st.integers(min_n, max_n))
    G = draw(arrays(np.float64, (n, n), elements=finite))
    return G - G.T


@st.composite
def rating_vectors(draw, min_n=2, max_n=8):
    n = draw(st.integers(min_n, max_n))
    return draw(arrays(np.float64, (n,), elements=finite))


@settings(max_examples=60, deadline=None)
@given(flows(), st.data())
def test_hodge_identities(A, data):
    n = A.shape[0]
    r = data.draw(arrays(np.float64, (n,), elements=finite))
    atol = 1e-9 * max(1.0, np.abs(A).max(), np.abs(r).max())
    np.testing.assert_allclose(div(grad(r)), r - r.mean(), atol=atol)
    np.testing.assert_allclose(div(rot(A)), 0.0, atol=atol)
    np.testing.assert_allclose(rot(grad(r)), 0.0, atol=atol)
    np.testing.assert_allclose(grad(div(A)) + rot(A), A, atol=atol)
    assert abs(np.sum(grad(div(A)) * rot(A))) <= 1e-9 * max(1.0, np.sum(A * A))
    np.testing.assert_allclose(curl(grad(r)), 0.0, atol=atol)
    # rot is the average curl over the third index (its definition)
    np.testing.assert_allclose(rot(A), curl(A).mean(axis=2), atol=atol)


@settings(max_examples=40, deadline=None)
@given(flows(), rating_vectors())
def test_inner_product_identity(B, r):
    # <grad(r), B> = 2 n r^T div(B) for antisymmetric B
    if B.shape[0] != r.shape[0]:
        r = np.resize(r, B.shape[0])
    n = B.shape[0]
    lhs = np.sum(grad(r) * B)
    assert lhs == pytest.approx(2 * n * r @ div(B), abs=1e-8 * (1 + abs(lhs)))


def test_proposition_3_elo_in_logit_space():
    rng = np.random.default_rng(0)
    r = rng.normal(size=6)
    r -= r.mean()
    A = logit(expit(grad(r)))
    np.testing.assert_allclose(div(A), r, atol=1e-12)
    np.testing.assert_allclose(curl(A), 0.0, atol=1e-12)
    assert np.abs(curl(RPS)).max() == 3.0


def test_f1_matrices():
    np.testing.assert_allclose(div(T4), [1.5, 0.5, -0.5, -1.5])
    np.testing.assert_allclose(T4, grad(div(T4)))
    np.testing.assert_allclose(div(C4), 0.0)
    for M, lam in ((T4, np.sqrt(20.0)), (C4, 2.0)):
        assert np.linalg.matrix_rank(M) == 2
        eig = np.sort(np.abs(np.linalg.eigvals(M).imag))
        np.testing.assert_allclose(eig, [0, 0, lam, lam], atol=1e-12)


def test_hodge_decomposition_shares():
    h = hodge_decomposition(RPS)
    np.testing.assert_allclose(h.ratings, 0.0)
    assert (h.transitive_share, h.cyclic_share) == (0.0, 1.0)
    h = hodge_decomposition(T4)
    assert h.transitive_share == pytest.approx(1.0)
    assert h.cyclic_share == pytest.approx(0.0, abs=1e-15)
    rng = np.random.default_rng(1)
    G = rng.normal(size=(7, 7))
    h = hodge_decomposition(G - G.T)
    assert h.transitive_share + h.cyclic_share == pytest.approx(1.0)
    np.testing.assert_allclose(h.transitive + h.cyclic, G - G.T, atol=1e-12)
    zero = hodge_decomposition(np.zeros((3, 3)))
    assert (zero.transitive_share, zero.cyclic_share) == (0.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 7),
    exponent=st.integers(-300, 300),
)
def test_shares_do_not_depend_on_the_scale_of_the_game(seed, n, exponent):
    # squares of entries near 1e-161 underflow and of 1e155 overflow: the
    # shares must still add up to 1 and equal those of the unit-scale game
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n))
    unit = hodge_decomposition(G - G.T)
    scaled = hodge_decomposition((G - G.T) * 10.0**exponent)
    assert scaled.transitive_share + scaled.cyclic_share == pytest.approx(1.0)
    assert scaled.transitive_share == pytest.approx(unit.transitive_share, abs=1e-12)
    assert np.all(np.isfinite(scaled.ratings))
    unit_schur = schur_embedding(G - G.T)
    scaled_schur = schur_embedding((G - G.T) * 10.0**exponent)
    np.testing.assert_allclose(
        scaled_schur.explained_variance_ratio,
        unit_schur.explained_variance_ratio,
        atol=1e-12,
    )


def test_operators_reject_bad_input():
    with pytest.raises(ValueError, match="square"):
        div(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        rot([[0, np.nan], [np.nan, 0]])
    with pytest.raises(ValueError, match="1-D"):
        grad(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="use rot"):
        curl(np.zeros((600, 600)))


def test_avt_embedding_divergence_and_residual():
    rng = np.random.default_rng(2)
    S = rng.normal(size=(4, 6)) + 3.0
    emb = avt_embedding(S)
    np.testing.assert_allclose(emb.flow, -emb.flow.T)
    np.testing.assert_allclose(
        div(emb.flow), np.concatenate([emb.skill, emb.difficulty]), atol=1e-12
    )
    np.testing.assert_allclose(emb.residual.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(emb.residual.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(
        emb.grand_mean + emb.skill[:, None] - emb.difficulty[None, :] + emb.residual, S
    )
    assert np.abs(curl(emb.flow)).max() > 1e-3


def test_avt_embedding_transitive_scores_have_zero_curl():
    s = np.array([1.0, 3.0, 3.0, 0.0])
    d = np.array([0.5, 2.0, 2.0, -1.0, 2.0])
    emb = avt_embedding(s[:, None] - d[None, :])
    np.testing.assert_allclose(emb.residual, 0.0, atol=1e-12)
    np.testing.assert_allclose(curl(emb.flow), 0.0, atol=1e-12)
    np.testing.assert_allclose(emb.skill - emb.skill.mean(), s - s.mean())


@pytest.mark.parametrize("shape", [(3, 5), (6, 4), (5, 5)])
def test_proposition_2_schur_equals_svd(shape):
    rng = np.random.default_rng(sum(shape))
    S = rng.normal(size=shape)
    m, n = shape
    A = np.block([[np.zeros((m, m)), S], [-S.T, np.zeros((n, n))]])
    emb = schur_embedding(A, remove_transitive=False)
    sv = np.linalg.svd(S, compute_uv=False)
    np.testing.assert_allclose(np.abs(emb.eigenvalues), sv, rtol=1e-10)
    Q = emb.coordinates.reshape(m + n, -1)
    np.testing.assert_allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-10)
    _assert_signed_area_identity(A, emb)


def _assert_signed_area_identity(A, emb):
    q1, q2 = emb.coordinates[:, :, 0], emb.coordinates[:, :, 1]
    rebuilt = np.einsum("k,ik,jk->ij", emb.eigenvalues, q1, q2)
    rebuilt -= np.einsum("k,ik,jk->ij", emb.eigenvalues, q2, q1)
    np.testing.assert_allclose(rebuilt, A, atol=1e-10 * max(1, np.abs(A).max()))


@settings(max_examples=30, deadline=None)
@given(flows(min_n=2, max_n=9))
def test_signed_area_identity(A):
    emb = schur_embedding(A, remove_transitive=False)
    _assert_signed_area_identity(A, emb)
    total = np.sum(A * A)
    if total > 1e-12:
        assert emb.explained_variance_ratio.sum() == pytest.approx(1.0, rel=1e-8)
    assert np.all(np.diff(np.abs(emb.eigenvalues)) <= 1e-9 * (1 + np.abs(A).max()))


def test_figure_3_transitive_line_and_cyclic_circle():
    emb_t = schur_embedding(T4, remove_transitive=False)
    pts = emb_t.coordinates[:, 0, :]
    steps = np.diff(pts, axis=0)
    # equally spaced points on a line: all consecutive steps are equal
    np.testing.assert_allclose(
        steps, np.broadcast_to(steps[0], steps.shape), atol=1e-12
    )
    emb_c = schur_embedding(C4, remove_transitive=False)
    np.testing.assert_allclose(
        np.linalg.norm(emb_c.coordinates[:, 0, :], axis=1), 1 / np.sqrt(2), atol=1e-12
    )
    np.testing.assert_allclose(np.abs(emb_c.eigenvalues), [2.0])


def test_schur_embedding_removes_transitive_part():
    rng = np.random.default_rng(3)
    r = rng.normal(size=6)
    G = rng.normal(size=(6, 6))
    A = grad(r) + rot(G - G.T)
    emb = schur_embedding(A, n_components=1)
    np.testing.assert_allclose(emb.ratings, div(A))
    assert emb.coordinates.shape == (6, 1, 2)
    full = schur_embedding(A)
    _assert_signed_area_identity(rot(A), full)
    with pytest.raises(ValueError, match="n_components"):
        schur_embedding(A, n_components=-1)


def test_latent_factors_rebuild_scores():
    rng = np.random.default_rng(4)
    S = rng.normal(size=(5, 7))
    f = latent_factors(S)
    emb = avt_embedding(S)
    rebuilt = (
        emb.grand_mean
        + f.skill[:, None]
        - f.difficulty[None, :]
        + f.agent_factors @ f.task_factors.T
    )
    np.testing.assert_allclose(rebuilt, S, atol=1e-12)
    np.testing.assert_allclose(
        f.singular_values, np.linalg.svd(emb.residual, compute_uv=False)[:4]
    )
    assert latent_factors(S, n_components=2).agent_factors.shape == (5, 2)
