"""A fit on Dask input gives the same numbers wherever its partitions ran
(user guide, "More data than one machine"): the sums over partitions are
carried as double-doubles and rounded once, so clusters with other numbers
of workers and threads, which group and place the partitions differently,
give bit-identical fits."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from sklearn_eval.irt import IRT
from tests.irt.simulate import simulate_graded, simulate_responses, simulate_scores

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

pytestmark = pytest.mark.slow


def _inputs():
    """(params, X) of a binary, a graded, a continuous and a two-factor
    model, no empty agent."""
    binary, _ = simulate_responses(300, 12, missing=0.3, seed=21)
    graded = simulate_graded(300, 10, K=4, missing=0.3, seed=22)
    scores = simulate_scores(300, 10, missing=0.3, seed=23)
    out = []
    for params, X in ((dict(model="2PL"), binary), (dict(model="GPCM"), graded),
                      (dict(model="beta"), scores),
                      (dict(model="2PL", n_factors=2, max_iter=30), binary)):
        out.append((dict(params, tol=1e-9), X[~np.isnan(X).all(axis=1)]))
    return out


def _fitted_values(fit):
    """Every fitted array and number of ``fit`` (Dask arrays computed)."""
    values = {}
    for name, value in vars(fit).items():
        if not name.endswith("_") or name.startswith("__"):
            continue
        if isinstance(value, da.Array):
            value = value.compute()
        value = np.asarray(value) if isinstance(value, (float, np.ndarray)) else None
        if value is not None and value.dtype.kind == "f":
            values[name] = value
    return values


def _fits(inputs):
    # 7 partitions of unequal size: groups per worker and thread differ by cluster
    return [_fitted_values(IRT(**params).fit(da.from_array(X, chunks=(43, -1))))
            for params, X in inputs]


def test_fits_are_bit_identical_on_clusters_of_other_shapes(dask_client):
    inputs = _inputs()
    reference = _fits(inputs)  # two single-threaded worker processes
    for n_workers, threads in ((1, 2), (3, 2)):
        # in-process workers share this process's BLAS, whose thread count
        # changes the rounding of a matrix product; worker processes run it
        # single-threaded (Dask's default), as the reference cluster does
        with threadpool_limits(limits=1, user_api="blas"), distributed.LocalCluster(
                n_workers=n_workers, threads_per_worker=threads, processes=False,
                dashboard_address=None, silence_logs=40) as cluster, \
                distributed.Client(cluster, set_as_default=False) as client, \
                client.as_current():
            other = _fits(inputs)
        for (params, _), ours, theirs in zip(inputs, other, reference, strict=True):
            assert ours.keys() == theirs.keys()
            assert "log_likelihood_" in ours and "abilities_" in ours
            for name in theirs:
                np.testing.assert_array_equal(
                    ours[name], theirs[name],
                    err_msg=f"{params['model']} {name} on {n_workers} x {threads}")


def test_fits_are_bit_identical_whether_the_driver_or_a_worker_merges_last(
        dask_client, monkeypatch):
    """The last two partial sums of a pass are merged by the driver (small
    totals: one round of scheduling less) or by a worker (large totals: the
    driver receives the rounded total only); both merge the same
    double-doubles, so the fits are identical."""
    from sklearn_eval.irt import _dask_responses

    inputs = _inputs()
    fits = []
    for limit in (0, np.inf):  # every last merge on a worker, on the driver
        monkeypatch.setattr(_dask_responses, "_DRIVER_MERGE_BYTES", limit)
        fits.append(_fits(inputs))
    for (params, _), ours, theirs in zip(inputs, *fits, strict=True):
        assert ours.keys() == theirs.keys()
        for name in theirs:
            np.testing.assert_array_equal(ours[name], theirs[name],
                                          err_msg=f"{params['model']} {name}")
